package planner

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// likeReference is LIKE by dynamic programming over characters: slow
// (quadratic) but obviously right, the oracle for the automaton.
func likeReference(pattern, s string, esc rune) bool {
	type el struct {
		kind byte
		r    rune
	}
	var p []el
	pr := []rune(pattern)
	for i := 0; i < len(pr); i++ {
		switch {
		case pr[i] == esc && i+1 < len(pr):
			i++
			p = append(p, el{'c', pr[i]})
		case pr[i] == '%':
			p = append(p, el{'%', 0})
		case pr[i] == '_':
			p = append(p, el{'_', 0})
		default:
			p = append(p, el{'c', pr[i]})
		}
	}
	r := []rune(s)
	// ok[j]: p[:i] matches r[:j].
	ok := make([]bool, len(r)+1)
	ok[0] = true
	for _, e := range p {
		next := make([]bool, len(r)+1)
		for j := 0; j <= len(r); j++ {
			switch e.kind {
			case '%':
				next[j] = ok[j] || (j > 0 && next[j-1])
			case '_':
				next[j] = j > 0 && ok[j-1]
			default:
				next[j] = j > 0 && ok[j-1] && r[j-1] == e.r
			}
		}
		ok = next
	}
	return ok[len(r)]
}

func TestLikeMatchesReference(t *testing.T) {
	fixed := []struct {
		pat, s string
		esc    rune
		want   bool
	}{
		{"", "", '\\', true},
		{"", "a", '\\', false},
		{"%", "", '\\', true},
		{"%%", "", '\\', true},
		{"_", "", '\\', false},
		{"_", "é", '\\', true}, // one character, two bytes
		{"__", "é", '\\', false},
		{"a_c", "aéc", '\\', true},
		{`a\%`, "a%", '\\', true},
		{`a\%`, "ab", '\\', false},
		{`a\_`, "ab", '\\', false},
		{`a\`, `a\`, '\\', true}, // a trailing escape stands for itself
		{`a\b`, `a\b`, likeNoEscape, true},
		{`a\b`, `ab`, likeNoEscape, false},
		{"a|%b", "a%b", '|', true},
		{"a|%b", "axb", '|', false},
		{"%b", "aaab", '\\', true},
		{"%b%", "abc", '\\', true},
		{"ab%", "abc", '\\', true},
		{"%a%b%c%", "xaybzc", '\\', true},
		{"%a%b%c%", "xcybza", '\\', false},
		{"A%", "abc", '\\', false}, // case-sensitive (ILIKE lowers both sides before)
		{"%\xff", "a\xff", '\\', true},
		{"_", "\xff", '\\', true},
	}
	for _, c := range fixed {
		if got := likeMatch(c.pat, c.s, c.esc); got != c.want {
			t.Errorf("%q LIKE %q (escape %q) = %v, want %v", c.s, c.pat, c.esc, got, c.want)
		}
		if ref := likeReference(c.pat, c.s, c.esc); ref != c.want && utf8.ValidString(c.s) {
			t.Errorf("reference: %q LIKE %q = %v, want %v", c.s, c.pat, ref, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alpha := []string{"a", "b", "é", "%", "_", `\`}
	gen := func(n int, pattern bool) string {
		var b strings.Builder
		for range rng.IntN(n) {
			k := len(alpha)
			if !pattern {
				k = 3
			}
			b.WriteString(alpha[rng.IntN(k)])
		}
		return b.String()
	}
	for range 20000 {
		pat, s := gen(12, true), gen(14, false)
		if rng.IntN(4) == 0 {
			pat = gen(70, true) + "%" + gen(70, true) // patterns over one 64-bit word
			s = gen(150, false)
		}
		if got, want := likeMatch(pat, s, '\\'), likeReference(pat, s, '\\'); got != want {
			t.Fatalf("%q LIKE %q = %v, want %v", s, pat, got, want)
		}
	}
}

// TestLikePathological: the recursive matcher this replaced overflowed the
// goroutine stack on an 8 MB subject (fatal, not recoverable) and took
// 108 s / 1.47 GB on 20,000 characters against 1,000 %; the automaton is
// linear in the subject.
func TestLikePathological(t *testing.T) {
	big := strings.Repeat("a", 8_000_000)
	if likeMatch("%b", big, '\\') {
		t.Errorf("8 MB of a LIKE %q", "%b")
	}
	if !likeMatch("%a_", big, '\\') {
		t.Error("8 MB of a LIKE '%a_'")
	}
	if likeMatch("%_b%", big, '\\') {
		t.Error("8 MB of a LIKE '%_b%'")
	}
	s := strings.Repeat("a", 20_000)
	if likeMatch(strings.Repeat("%", 1000)+"b", s, '\\') {
		t.Error("'<20,000 a>' LIKE '<1,000 %>b'")
	}
	if likeMatch(strings.Repeat("%a", 1000)+"%b", s, '\\') {
		t.Errorf("20,000 a LIKE %q", "%a%a...%b")
	}
	if !likeMatch(strings.Repeat("_", 19_999)+"%", s, '\\') {
		t.Error("'<20,000 a>' LIKE '<19,999 _>%'")
	}
	stops := 0
	p := compileLike("%_b", '\\')
	if p.match(big, func() bool { stops++; return stops > 2 }) {
		t.Error("a stopped match reported a match")
	}
	if stops != 3 {
		t.Errorf("stop called %d times, want 3 (it gives up when stop says so)", stops)
	}
}

func BenchmarkLikeWorstCase(b *testing.B) {
	s := strings.Repeat("a", 20_000)
	p := strings.Repeat("%a", 1000) + "%b"
	for b.Loop() {
		likeMatch(p, s, '\\')
	}
}

// TestLikeOverDatetimeKeepsMidnight: LIKE reads a DATETIME as its text
// with the time of day, midnight included, and a DATE as the date alone
// (MySQL's text of each), in the select list and under WHERE.
func TestLikeOverDatetimeKeepsMidnight(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT, ts DATETIME, d DATE)")
	f.exec("INSERT INTO t VALUES (1, '2020-01-01 00:00:00', '2020-01-01'), (2, '2020-01-01 10:00:00', '2020-01-02')")
	if got := show(f.rows("SELECT id, ts LIKE '%00:00:00', d LIKE '%00:00%' FROM t ORDER BY id")); got != "1,1,0 | 2,0,0" {
		t.Errorf("select list: %s", got)
	}
	if got := show(f.rows("SELECT id FROM t WHERE ts LIKE '% 00:%' ORDER BY id")); got != "1" {
		t.Errorf("WHERE: %s", got)
	}
}

// TestCompareTemporalWithNumber: a DATE or DATETIME compared with a number
// reads the number as YYYYMMDD[hhmmss], 0 as the zero date, as MariaDB
// does ('ts > 20200101' compared the number with 2020, the year, before),
// in the select list, under WHERE and through an index.
func TestCompareTemporalWithNumber(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT, ts DATETIME, d DATE)")
	f.exec("INSERT INTO t VALUES (1, '2020-01-01 00:00:00', '2020-01-01'), (2, '2020-01-01 10:00:00', '2020-01-02')")
	if got := show(f.rows("SELECT id, ts > 0, ts > 20200101, ts = 20200101000000, d = 20200101, 20200101 < ts FROM t ORDER BY id")); got != "1,1,0,1,1,0 | 2,1,1,0,0,1" {
		t.Errorf("select list: %s", got)
	}
	for _, tc := range []struct{ sql, want string }{
		{"SELECT id FROM t WHERE ts > 20200101 ORDER BY id", "2"},
		{"SELECT id FROM t WHERE d = 20200101 ORDER BY id", "1"},
		{"SELECT id FROM t WHERE d BETWEEN 20191231 AND 20200101 ORDER BY id", "1"},
	} {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.sql, got, tc.want)
		}
	}
	f.exec("CREATE INDEX dix ON t (d)")
	if got := show(f.rows("SELECT id FROM t WHERE d = 20200102")); got != "2" {
		t.Errorf("through the index: %s", got)
	}
}

// TestLikeSegmentsMatchReference: patterns with % inside and no _ take the
// segment search (kind 'm'), which must agree with the reference, with and
// without a leading or trailing %, on subjects where a segment occurs more
// than once or overlaps the next.
func TestLikeSegmentsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gen := func(n int, alpha []string) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		return b.String()
	}
	chars := []string{"a", "b", "é"}
	segmented := 0
	for range 20000 {
		pat := gen(4, chars) + "%" + gen(4, chars) + "%" + gen(4, chars)
		if rng.IntN(3) == 0 {
			pat += "%" + gen(3, chars)
		}
		s := gen(14, chars)
		if compileLike(pat, '\\').fast == 'm' {
			segmented++
		}
		if got, want := likeMatch(pat, s, '\\'), likeReference(pat, s, '\\'); got != want {
			t.Fatalf("%q LIKE %q = %v, want %v", s, pat, got, want)
		}
	}
	if segmented == 0 {
		t.Fatal("no pattern took the segment search")
	}
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"%special%requests%", "carefully special ironic requests sleep", true},
		{"%special%requests%", "requests before special", false},
		{"ab%ba", "aba", false}, // the prefix and the suffix may not share the middle a
		{"ab%ba", "abba", true},
		{"a%a%a", "aaa", true},
		{"a%a%a", "aa", false},
	} {
		if got := likeMatch(c.pat, c.s, '\\'); got != c.want {
			t.Errorf("%q LIKE %q = %v, want %v", c.s, c.pat, got, c.want)
		}
	}
}
