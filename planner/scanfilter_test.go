package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// filterFixture is a table of every type the column-wise filter compares
// (and a DECIMAL past an int64), with NULLs, over three fragments.
func filterFixture(t *testing.T) *fixture {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (a BIGINT, b INT, p DECIMAL(15,2), q DECIMAL(30,4), d DATE, e DATE, s VARCHAR(20), f DOUBLE)")
	day := func(n int) string {
		return time.Date(1994, 1, 1+n, 0, 0, 0, 0, time.UTC).Format("'2006-01-02'")
	}
	strs := []string{"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "", "air", "REG AIR"}
	for frag := 0; frag < 3; frag++ {
		var vals []string
		for k := 0; k < 700; k++ {
			i := frag*700 + k
			null := func(every int, v string) string {
				if i%every == 0 {
					return "NULL"
				}
				return v
			}
			q := fmt.Sprintf("%d.%04d", (i*131)%5000-2500, (i*7)%10000)
			if i%5 == 0 {
				q = fmt.Sprintf("%s123456789012345678901.2345", map[bool]string{true: "-", false: ""}[i%10 == 0])
			}
			vals = append(vals, fmt.Sprintf("(%s, %d, %s, %s, %s, %s, %s, %s)",
				null(17, fmt.Sprint((i*7919)%1000-500)), i%50,
				null(13, fmt.Sprintf("%d.%02d", (i*37)%1000-200, i%100)), null(29, q),
				null(11, day(i%900)), day(i%900+i%7-3),
				null(19, "'"+strs[i%len(strs)]+"'"), null(23, fmt.Sprintf("%g", float64(i%100)/7-5))))
		}
		f.exec("INSERT INTO t VALUES " + strings.Join(vals, ", "))
	}
	// Rows the equalities above meet.
	f.exec(`INSERT INTO t VALUES (5, 3, 12.30, 0, '1994-05-01', '1994-05-02', 'zz', 5),
		(7, 7, 0.05, 99999999999999.9999, '1994-05-02', '1994-05-01', 'b', 7), (-2, 1, 0.07, 1.0001, NULL, '1994-05-01', 'air', -2)`)
	return f
}

// filterResult is a query's rows and warnings, or its error, as text.
func filterResult(f *fixture, q string) string {
	res, err := f.try(q)
	if err != nil {
		return "error: " + err.Error()
	}
	w := f.exec("SHOW WARNINGS")
	return fmt.Sprint(len(res.Rows), res.Rows, w.Rows)
}

// columnWiseWheres are the WHEREs the column-wise filter tests compare.
var columnWiseWheres = []string{
	"a > 0", "a <= 17 AND b = 3", "3 = b", "a <> 5", "b >= 49",
	"p BETWEEN 0.05 AND 100.5", "p NOT BETWEEN -10 AND 10", "p < 24", "24 > p", "p = 12.30", "p = 12.3",
	"p >= 12.345", "p > -3", "p BETWEEN 0.06 - 0.01 AND 0.06 + 0.01",
	"q > 1000", "q < -1000.5", "q = 0", "q >= 123456789012345678901.2345", "q < 1.00005",
	"d >= DATE '1994-03-01' AND d < DATE '1994-03-01' + INTERVAL 1 YEAR", "d <= DATE '1998-12-01' - INTERVAL 90 DAY",
	"d > TIMESTAMP '1994-05-01 12:00:00'", "d = TIMESTAMP '1994-05-01 00:00:00'", "d = '1994-02-03'", "d < e", "d <> e", "e >= d",
	"s = 'AIR'", "s IN ('MAIL', 'SHIP')", "s < 'RAIL' AND s >= 'AIR'", "s LIKE 'A%'", "s = ''", "s > 'air'",
	"f > 1.5", "f > 1", "f = a", "f < p", "a IS NULL", "p IS NOT NULL AND a > b", "a > NULL", "NULL = s",
	"a > 0 AND s = 'TRUCK' AND p < 100", "s = 12", "a > 0 OR p < 3", "NOT (a > 3)", "p > 100 AND s + 1 > 0",
	"s + 1 > 0 AND p > 100", "a > 400 AND a / 0 IS NULL", "b = 3 AND (SELECT COUNT(*) FROM t t2 WHERE t2.b = t.a) > 0",
	"a > b AND b = 7 AND d < e AND s IS NOT NULL", "p < q",
	// IN lists, column-wise below 16 items (the row-wise evaluation's
	// hash set starts there).
	"s IN ('AIR')", "s NOT IN ('MAIL', 'SHIP', 'air')", "s IN ('MAIL', NULL)", "s NOT IN ('MAIL', NULL)",
	"s IN (NULL)", "s IN ('MAIL', 1)", "s IN (1, 2)", "b IN (3, 7, 49)", "b NOT IN (1, 2, 3)", "b IN (3, 7.0, 2.5)",
	"a IN (5, -2, NULL)", "p IN (12.30, 0.05, 7)", "p NOT IN (12.3, 0.070)", "q IN (0, 1.0001, 123456789012345678901.2345)",
	"d IN (DATE '1994-05-01', '1994-02-03')", "d NOT IN (DATE '1994-05-01', TIMESTAMP '1994-05-02 00:00:01')",
	"f IN (2, -5, 1.5)", "s IN ('AIR', 'MAIL') AND b IN (3, 4) AND p > 0",
	"s IN ('A','B','C','D','E','F','G','H','I','J','K','L','M','N','O','AIR')", "b IN (1 / 0, 3)",
	// IN an uncorrelated subquery: integers are one set, column-wise.
	"b IN (SELECT b FROM t t2 WHERE t2.a > 400)", "a IN (SELECT a FROM t t2 WHERE t2.b = 3)",
	"a IN (SELECT b FROM t t2 WHERE t2.b < 5) AND s = 'AIR'", "b IN (SELECT a FROM t t2 WHERE t2.a > 100000)",
	"b IN (SELECT s FROM t t2)", "b NOT IN (SELECT b FROM t t2 WHERE t2.b < 3)", "b IN (SELECT p FROM t t2 WHERE p = 12.30)",
	"b IN (SELECT NULL FROM t t2 WHERE t2.b = 1)",
}

// TestColumnWiseFilterMatchesRows: the scan that filters column-wise
// (scanfilter.go) returns the rows, warnings and errors the Filter over
// the plain scan returns, for the comparisons it evaluates on Arrow
// arrays, the ones it leaves to the Go values, and mixes of both in
// either order.
func TestColumnWiseFilterMatchesRows(t *testing.T) {
	f := filterFixture(t)
	for _, w := range columnWiseWheres {
		q := "SELECT a, b, p, q, d, e, s, f FROM t WHERE " + w
		columnWiseFilter = false
		want := filterResult(f, q)
		columnWiseFilter = true
		got := filterResult(f, q)
		if got != want {
			t.Errorf("WHERE %s:\n got %.600s\nwant %.600s", w, got, want)
		}
		if !strings.HasPrefix(want, "error") && strings.HasPrefix(want, "0 ") && !strings.Contains(w, "NULL") {
			t.Logf("WHERE %s keeps no row", w)
		}
	}
}

// TestColumnWiseFilterIsUsed: a table's scan under its WHERE runs as the
// column-wise filtered scan (so the test above compares two paths).
func TestColumnWiseFilterIsUsed(t *testing.T) {
	f := filterFixture(t)
	st, err := sqlparse.ParseOne("SELECT a FROM t WHERE p < 24 AND s = 'AIR' AND s IN ('MAIL', 'SHIP') AND b NOT IN (1, 2)")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tp, err := f.s.buildSelect(ctx, st.(*sqlparse.Select))
	if err != nil {
		t.Fatal(err)
	}
	n := tp.root
	for n != nil {
		if _, ok := n.(*plan.Filter); ok {
			break
		}
		n = plan.Input(n)
	}
	if n == nil {
		t.Fatal("no Filter in the plan")
	}
	op, err := tp.build(ctx, n, exec.NewBudget(0))
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	fo, ok := op.(*filterScanOp)
	if !ok {
		t.Fatalf("the Filter runs as %T, not the filtered scan", op)
	}
	for _, c := range fo.conj {
		if c.vec == nil {
			t.Errorf("conjunct %s is not column-wise", c.expr)
		}
	}
}
