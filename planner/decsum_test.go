package planner

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/sqltypes"
)

// TestExactDecimalAggregates: SUM and AVG of DECIMAL are exact DECIMALs
// as in MySQL (SUM keeps the scale, AVG adds 4 digits, rounded half away
// from zero), not float64 sums.
func TestExactDecimalAggregates(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE t (k INT, d DECIMAL(15,2), e DECIMAL(15,2))`)
	var vals string
	for i := 0; i < 1000; i++ {
		if i > 0 {
			vals += ", "
		}
		vals += fmt.Sprintf("(%d, 0.10, -0.%02d)", i%3, i%100)
	}
	f.exec("INSERT INTO t VALUES " + vals + ", (0, NULL, NULL), (5, 0.01, 0.01), (5, 0.01, 0.00), (5, 0.00, 0.00)")
	cases := []struct{ sql, want string }{
		// 1,000 x 0.10 as float64 is 99.9999999999986.
		{"SELECT SUM(d) FROM t WHERE k < 3", "[[100.00]]"},
		{"SELECT SUM(e), AVG(e) FROM t WHERE k < 3", "[[-495.00 -0.495000]]"},
		{"SELECT k, SUM(d), AVG(d) FROM t GROUP BY k ORDER BY k", "[[0 33.40 0.100000] [1 33.30 0.100000] [2 33.30 0.100000] [5 0.02 0.006667]]"},
		{"SELECT AVG(e) FROM t WHERE k = 5", "[[0.003333]]"},
		{"SELECT SUM(d) FROM t WHERE k = 9", "[[<nil>]]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(f.rows(c.sql)); got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.sql, got, c.want)
		}
	}
}

// TestDecimalSubqueryCompares: a DECIMAL subquery value (an exact AVG)
// compares with a DECIMAL column as a number (TPC-H Q17, Q22).
func TestDecimalSubqueryCompares(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE t (k INT, d DECIMAL(15,2) NOT NULL)`)
	f.exec(`INSERT INTO t VALUES (1, 1.10), (1, 2.20), (2, 3.00), (3, 10.50), (4, -2.00)`)
	cases := []struct{ sql, want string }{
		{"SELECT k FROM t WHERE d > (SELECT AVG(d) FROM t) ORDER BY k", "[[2] [3]]"},
		{"SELECT k FROM t WHERE d > (SELECT 0.2 * AVG(d) FROM t) ORDER BY k", "[[1] [1] [2] [3]]"},
		{"SELECT k FROM t WHERE d IN (SELECT d FROM t WHERE d > 2.5) ORDER BY k", "[[2] [3]]"},
		{"SELECT k FROM t AS o WHERE d >= (SELECT AVG(d) FROM t WHERE t.k = o.k) ORDER BY k", "[[1] [2] [3] [4]]"},
		// Over a join (Q17's shape): 0.9 * AVG(d) is a DECIMAL too.
		{"SELECT t.k, t.d FROM t, t AS p WHERE p.k = t.k AND p.d = 3.00 AND t.d < (SELECT 0.9 * AVG(d) FROM t AS i WHERE i.k = p.k)", "[]"},
		{"SELECT o.k, o.d FROM t AS o, t AS p WHERE p.k = o.k AND p.d = 1.10 AND o.d < (SELECT 0.9 * AVG(d) FROM t AS i WHERE i.k = p.k)", "[[1 1.10]]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(f.rows(c.sql)); got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.sql, got, c.want)
		}
	}
}

// TestDecSumCrossesInt64: the int64 fast path of decSum gives the same
// text as exact arithmetic (math/big.Rat here) through scale changes,
// negative values, integers, a sum that overflows int64 midway, and
// values too long for it.
func TestDecSumCrossesInt64(t *testing.T) {
	cases := [][]any{
		{"1.5", "2", "0.25", "-3.125", int64(7), "-0.000"},
		{"00012.50", "+3", ".5", "-0"},
		func() []any { // 100 x an 18-digit value: past int64 after 93
			var vs []any
			for range 100 {
				vs = append(vs, "99999999999999999.9")
			}
			return vs
		}(),
		{"1.1", "12345678901234567890.12", "-5"}, // 22 digits: big from the second
		{int64(math.MaxInt64), int64(1), "-0.5"},
	}
	for _, vals := range cases {
		var d decSum
		want := new(big.Rat)
		scale := 0
		for _, v := range vals {
			d.add(v)
			text := fmt.Sprint(v)
			r, ok := new(big.Rat).SetString(text)
			if !ok {
				t.Fatalf("bad case value %q", text)
			}
			want.Add(want, r)
			if _, fp, ok := strings.Cut(text, "."); ok {
				scale = max(scale, len(fp))
			}
		}
		if d.bad {
			t.Fatalf("%v: went bad", vals)
		}
		if got, w := string(d.text(1, scale)), want.FloatString(scale); got != w {
			t.Errorf("%v: got %s, want %s", vals, got, w)
		}
	}
	var d decSum
	d.add("+")
	if !d.bad {
		t.Error(`"+" (no digit) was summed`)
	}
}

// BenchmarkDecSum: the exact SUM of one DECIMAL(15,2) column per row (TPC-H
// Q1's sums).
func BenchmarkDecSum(b *testing.B) {
	vals := make([]any, 1024)
	for i := range vals {
		vals[i] = sqltypes.Decimal(fmt.Sprintf("%d.%02d", 1000+i*37, i%100))
	}
	b.ReportAllocs()
	for b.Loop() {
		var d decSum
		for _, v := range vals {
			d.add(v)
		}
	}
}
