package planner

import (
	"fmt"
	"strings"
	"testing"
)

// scalarDomainData is the data of scalarDomainFixture, kept to check the
// answers by hand: nil is NULL.
type scalarDomainData struct {
	o []struct {
		ok, sk *int64
		grp    int64
	}
	l []struct{ lk, sk, qty *int64 }
}

func ip(v int64) *int64 { return &v }

// scalarDomainFixture has an outer table o (ok unique with NULLs, grp, sk
// with NULLs) and an inner table l (lk with NULLs, with keys o has not and
// missing keys o has, sk and qty with NULLs).
func scalarDomainFixture(t *testing.T) (*fixture, *scalarDomainData) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE o (ok BIGINT, grp BIGINT, sk BIGINT)`)
	f.exec(`CREATE TABLE l (lk BIGINT, sk BIGINT, qty BIGINT)`)
	d := &scalarDomainData{}
	lit := func(p *int64) string {
		if p == nil {
			return "NULL"
		}
		return fmt.Sprint(*p)
	}
	var rows []string
	for i := range int64(300) {
		r := struct {
			ok, sk *int64
			grp    int64
		}{ok: ip(i * 3), sk: ip(i % 4), grp: i % 5}
		if i%41 == 0 {
			r.ok = nil
		}
		if i%37 == 0 {
			r.sk = nil
		}
		d.o = append(d.o, r)
		rows = append(rows, fmt.Sprintf("(%s, %d, %s)", lit(r.ok), r.grp, lit(r.sk)))
	}
	f.exec(`INSERT INTO o VALUES ` + strings.Join(rows, ", "))
	rows = rows[:0]
	for i := range int64(3000) {
		lk := i % 900
		if lk%7 == 3 {
			lk = 1000 + i // o's keys 3, 10, ... have no inner rows
		}
		r := struct{ lk, sk, qty *int64 }{lk: ip(lk), sk: ip(i * 7 % 5), qty: ip(i * 37 % 53)}
		if i%67 == 0 {
			r.lk = nil
		}
		if i%43 == 0 {
			r.sk = nil
		}
		if i%53 == 0 {
			r.qty = nil
		}
		d.l = append(d.l, r)
		rows = append(rows, fmt.Sprintf("(%s, %s, %s)", lit(r.lk), lit(r.sk), lit(r.qty)))
	}
	f.exec(`INSERT INTO l VALUES ` + strings.Join(rows, ", "))
	return f, d
}

// eq is SQL's = over nullable integers (NULL: false).
func eq(a, b *int64) bool { return a != nil && b != nil && *a == *b }

// TestScalarDomain: a Filter's correlated scalar aggregate on integer
// keys gets the outer key values of all the rows it filters (EXPLAIN says
// so), its decorrelated table holds only those keys, and the answers are
// the hand-computed ones and those without the domains: TPC-H Q17's shape
// (a join, qty < 0.5 * AVG over the same table), COUNT(*) for outer keys
// with no inner rows and NULL keys (0, not NULL), and Q20's two keys.
func TestScalarDomain(t *testing.T) {
	f, d := scalarDomainFixture(t)
	queries := []string{
		"SELECT COUNT(*), SUM(l1.qty) FROM l l1 JOIN o ON o.ok = l1.lk WHERE o.grp = 1 " +
			"AND l1.qty < (SELECT 0.5 * AVG(qty) FROM l WHERE l.lk = o.ok)",
		"SELECT ok FROM o WHERE grp = 2 AND 3 > (SELECT COUNT(*) FROM l WHERE l.lk = o.ok) ORDER BY ok",
		"SELECT ok, sk FROM o WHERE grp = 3 AND sk * 40 > (SELECT SUM(qty) FROM l WHERE l.lk = o.ok AND l.sk = o.sk) ORDER BY ok",
	}

	// The answers by hand.
	var want []string
	{ // Q17's shape: per key, qty*2*n < sum over the key's non-NULL qty.
		var count, sum int64
		for _, o := range d.o {
			if o.grp != 1 {
				continue
			}
			var n, s int64
			for _, l := range d.l {
				if eq(l.lk, o.ok) && l.qty != nil {
					n, s = n+1, s+*l.qty
				}
			}
			for _, l := range d.l {
				if eq(l.lk, o.ok) && l.qty != nil && n > 0 && *l.qty*2*n < s {
					count, sum = count+1, sum+*l.qty
				}
			}
		}
		if count == 0 {
			t.Fatal("the fixture has no row below its key's average")
		}
		want = append(want, fmt.Sprintf("%d,%d", count, sum))
	}
	{ // COUNT(*): 0 for a key with no rows and for a NULL key.
		var nulls, oks []string // ORDER BY ok: NULLs first
		for _, o := range d.o {
			if o.grp != 2 {
				continue
			}
			var n int64
			for _, l := range d.l {
				if eq(l.lk, o.ok) {
					n++
				}
			}
			if 3 > n {
				if o.ok == nil {
					nulls = append(nulls, "NULL")
				} else {
					oks = append(oks, fmt.Sprint(*o.ok))
				}
			}
		}
		want = append(want, strings.Join(append(nulls, oks...), " | "))
	}
	{ // Two keys: SUM is NULL (no match) without a row of both keys.
		var out []string
		for _, o := range d.o {
			if o.grp != 3 || o.sk == nil {
				continue
			}
			var n, s int64
			for _, l := range d.l {
				if eq(l.lk, o.ok) && eq(l.sk, o.sk) && l.qty != nil {
					n, s = n+1, s+*l.qty
				}
			}
			if n > 0 && *o.sk*40 > s {
				out = append(out, fmt.Sprintf("%d,%d", *o.ok, *o.sk))
			}
		}
		want = append(want, strings.Join(out, " | "))
	}
	got := sameWithAndWithout(t, f, &semiDomains, queries)
	for i := range queries {
		if got[i] != want[i] {
			t.Errorf("%s\n got  %s\n want %s", queries[i], got[i], want[i])
		}
	}

	const line = "(scalar subqueries get the outer keys of every input row first: "
	for i, q := range queries {
		if e := explainText(f, q); !strings.Contains(e, line) {
			t.Errorf("query %d: EXPLAIN %s:\n%s\nwant the outer keys line", i, q, e)
		}
	}
	// The decorrelated table holds the keys of o's rows with grp = 1 (at
	// most 60), not every key of l.
	f.rows(queries[0])
	n := 0
	for _, sq := range f.s.subq {
		if sq.decor == nil {
			continue
		}
		n++
		if len(sq.domains) == 0 || len(sq.decor.ints) == 0 || len(sq.decor.ints) > 60 {
			t.Errorf("decorrelated table of %d keys, domains %d; want at most 60 keys of one domain", len(sq.decor.ints), len(sq.domains))
		}
	}
	if n != 1 {
		t.Errorf("%d decorrelated subqueries, want 1", n)
	}
}

// TestDecorrelateByRows: when a correlated subquery without a domain
// decorrelates depends on the rows a run per value reads (its tables' row
// counts, an indexed lookup none), never on time: so the plan is the same
// on a loaded machine.
func TestDecorrelateByRows(t *testing.T) {
	f, _ := scalarDomainFixture(t)
	f.exec("CREATE TABLE big (k BIGINT)")
	f.exec("CREATE TABLE tiny (k BIGINT)")
	f.exec("INSERT INTO tiny VALUES (1), (2)")
	f.rows("SELECT ok FROM o WHERE 3 > (SELECT COUNT(*) FROM l WHERE l.lk = o.ok)")
	for _, sq := range f.s.subq {
		if got := sq.runRows(); got != 3000 {
			t.Errorf("runRows over l = %d, want l's 3000 rows", got)
		}
	}
	f.rows("SELECT ok FROM o WHERE 3 > (SELECT COUNT(*) FROM l JOIN tiny ON tiny.k = l.sk WHERE l.lk = o.ok)")
	for _, sq := range f.s.subq {
		if got := sq.runRows(); got != 3002 {
			t.Errorf("runRows over l and tiny = %d, want 3002", got)
		}
	}
	for _, c := range []struct {
		runs int
		rows int64
		want bool
	}{
		{0, decorrelateOneRows, false},
		{1, decorrelateOneRows, true},
		{1, decorrelateOneRows - 1, false},
		{decorrelateEarly - 1, decorrelateEarlyRows, false},
		{decorrelateEarly, decorrelateEarlyRows, true},
		{decorrelateEarly, decorrelateEarlyRows - 1, false},
		{decorrelateAfter - 1, 0, false},
		{decorrelateAfter, 0, true},
	} {
		sq := &subquery{runs: c.runs, runRowsEst: c.rows, runRowsDone: true}
		if got := sq.shouldDecorrelate(); got != c.want {
			t.Errorf("shouldDecorrelate after %d runs reading %d rows = %v, want %v", c.runs, c.rows, got, c.want)
		}
	}
}
