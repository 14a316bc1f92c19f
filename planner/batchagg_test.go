package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// batchAggFixture is a lineitem-like table over four fragments: DECIMAL
// prices and rates (negative values, NULLs), a DECIMAL(30,4) whose values
// pass an int64 every fifth row, integers up to the int64 limits, one- and
// multi-byte string flags, dates, a fragment of NULLs; and an empty table
// of the same columns.
func batchAggFixture(t *testing.T) *fixture {
	f := newDataFixture(t, Options{})
	cols := "(id BIGINT, qty DECIMAL(15,2), price DECIMAL(15,2), disc DECIMAL(15,2), big DECIMAL(30,4), " +
		"huge DECIMAL(18,2), n BIGINT, k INT, flag CHAR(1), status VARCHAR(10), d DATE)"
	f.exec("CREATE TABLE li " + cols)
	f.exec("CREATE TABLE empty_li " + cols)
	flags := []string{"A", "N", "R", "é"}
	statuses := []string{"F", "O", "", "OPEN", "é", "NINE BYTES", "LONGER THAN EIGHT"}
	for frag := 0; frag < 3; frag++ {
		var vals []string
		for k := 0; k < 800; k++ {
			i := frag*800 + k
			null := func(every int, v string) string {
				if i%every == 0 {
					return "NULL"
				}
				return v
			}
			big := fmt.Sprintf("%d.%04d", (i*131)%5000-2500, (i*7)%10000)
			if i%5 == 0 {
				big = fmt.Sprintf("%s123456789012345678901.2345", map[bool]string{true: "-", false: ""}[i%10 == 0])
			}
			n := fmt.Sprint((i*7919)%2000 - 1000)
			if i%97 == 0 {
				n = "9223372036854775807" // an int64 product overflows
			} else if i%89 == 0 {
				n = "-9223372036854775808"
			}
			vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s)",
				i, null(13, fmt.Sprintf("%d.%02d", (i*37)%60-10, i%100)),
				null(17, fmt.Sprintf("%d.%02d", (i*7919)%100000-5000, (i*3)%100)),
				null(19, fmt.Sprintf("0.%02d", i%11)), null(29, big),
				null(23, fmt.Sprintf("%s9999999999999999.%02d", map[bool]string{true: "-", false: ""}[i%3 == 0], i%100)),
				null(31, n), i%50,
				null(37, "'"+flags[i%len(flags)]+"'"), null(41, "'"+statuses[(i/3)%len(statuses)]+"'"),
				null(43, time.Date(1994, 1, 1+i%900, 0, 0, 0, 0, time.UTC).Format("'2006-01-02'"))))
		}
		f.exec("INSERT INTO li VALUES " + strings.Join(vals, ", "))
	}
	// A fragment whose columns but id and k are all NULL.
	var vals []string
	for i := 2400; i < 2460; i++ {
		vals = append(vals, fmt.Sprintf("(%d, NULL, NULL, NULL, NULL, NULL, NULL, %d, NULL, NULL, NULL)", i, i%50))
	}
	f.exec("INSERT INTO li VALUES " + strings.Join(vals, ", "))
	return f
}

// TestBatchAggregateMatchesRows: an aggregate over a table's scan run over
// column batches (batchagg.go) gives the rows, warnings and errors of the
// row path (batchAggregates off): through NULLs, negative values, values
// and products past an int64 (those rows take the row path), sums past an
// int64 (128-bit), keys of each kind, WHERE conjuncts of both kinds, an
// empty table, and a WHERE no row passes.
func TestBatchAggregateMatchesRows(t *testing.T) {
	f := batchAggFixture(t)
	queries := []string{
		`SELECT flag, status, SUM(qty), SUM(price), SUM(price * (1 - disc)), SUM(price * (1 - disc) * (1 + disc)),
			AVG(qty), AVG(price), AVG(disc), COUNT(*) FROM li WHERE d <= DATE '1998-12-01' - INTERVAL 90 DAY
			GROUP BY flag, status ORDER BY flag, status`,
		"SELECT SUM(price * disc) FROM li WHERE d >= DATE '1994-01-01' AND d < DATE '1994-01-01' + INTERVAL 1 YEAR AND disc BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND qty < 24",
		"SELECT flag, SUM(big), AVG(big), SUM(big * 2 - qty), COUNT(big) FROM li GROUP BY flag",
		"SELECT SUM(huge), AVG(huge), SUM(huge + huge), SUM(-1 + huge), COUNT(huge) FROM li",
		"SELECT k, SUM(n), AVG(n), SUM(n * price), SUM(price * n * 100), SUM(n + 0.5), COUNT(n) FROM li GROUP BY k ORDER BY k",
		"SELECT status, COUNT(*), COUNT(flag), COUNT(d), COUNT(qty * 2), SUM(id), AVG(k), SUM(3), SUM(2.5), AVG(0.1) FROM li GROUP BY status",
		"SELECT d, COUNT(*), SUM(qty) FROM li WHERE k < 3 GROUP BY d ORDER BY d LIMIT 20",
		"SELECT n, COUNT(*), SUM(price) FROM li GROUP BY n ORDER BY n LIMIT 10",
		"SELECT qty, COUNT(*), SUM(disc) FROM li GROUP BY qty ORDER BY qty LIMIT 10",
		"SELECT big, COUNT(*) FROM li GROUP BY big ORDER BY big LIMIT 10",
		"SELECT flag, status, d, COUNT(*) FROM li WHERE flag IN ('A', 'é') AND status <> 'O' GROUP BY flag, status, d ORDER BY 1, 2, 3 LIMIT 15",
		"SELECT SUM(qty), COUNT(*), AVG(price) FROM li WHERE id > 100000",
		"SELECT flag, SUM(qty), COUNT(*) FROM li WHERE id > 100000 GROUP BY flag",
		"SELECT SUM(qty), COUNT(*), AVG(price), COUNT(flag) FROM empty_li",
		"SELECT flag, SUM(qty) FROM empty_li GROUP BY flag",
		"SELECT SUM(qty * qty * qty * qty * qty * qty * qty * qty * qty * qty) FROM li",
		"SELECT flag, SUM(qty) FROM li WHERE status LIKE 'O%' AND qty + 1 > 10 GROUP BY flag HAVING SUM(qty) > 100 ORDER BY 2 DESC",
		"SELECT SUM(price) / COUNT(*), SUM(qty) + 1, flag FROM li GROUP BY flag ORDER BY flag",
		"SELECT SUM(qty) FROM li WHERE qty > 10 LIMIT 0",
		"SELECT COUNT(*) FROM li WHERE qty > 10",
		"SELECT COUNT(price) FROM li",
		"SELECT SUM(price * 1.00000000000000000001) FROM li",
		// Per outer row, and decorrelated.
		"SELECT id, (SELECT SUM(l2.qty * l2.disc) FROM li l2 WHERE l2.k = li.k AND l2.flag = li.flag) FROM li WHERE id < 30 ORDER BY id",
		"SELECT id, (SELECT COUNT(*) + SUM(l2.price - li.qty) FROM li l2 WHERE l2.k = li.k) FROM li WHERE id < 10 ORDER BY id",
		"SELECT id FROM li WHERE qty > (SELECT AVG(qty) FROM li l2 WHERE l2.k = li.k) AND id < 200 ORDER BY id",
		"SELECT f, s FROM (SELECT flag AS f, SUM(price) AS s FROM li GROUP BY flag) x ORDER BY f",
	}
	for _, q := range queries {
		batchAggregates = false
		want := filterResult(f, q)
		batchAggregates = true
		got := filterResult(f, q)
		if got != want {
			t.Errorf("%s:\n batch %.800s\n rows  %.800s", q, got, want)
		}
	}
}

// TestBatchAggregateIsUsed: the aggregates the test above compares are
// planned over column batches, and those the batch path does not take
// (MIN, DISTINCT, a key that is an expression, a DOUBLE argument) are not.
func TestBatchAggregateIsUsed(t *testing.T) {
	f := batchAggFixture(t)
	for q, want := range map[string]bool{
		"SELECT flag, status, SUM(price * (1 - disc) * (1 + disc)), AVG(qty), COUNT(*) FROM li WHERE d <= DATE '1998-09-02' GROUP BY flag, status": true,
		"SELECT SUM(price * disc) FROM li WHERE qty < 24 AND status LIKE 'O%'":                                                                     true,
		"SELECT k, SUM(n), COUNT(flag), COUNT(qty * 2) FROM li GROUP BY k":                                                                         true,
		"SELECT COUNT(*) FROM li WHERE qty > 10":                                                                                                   true,
		"SELECT MIN(qty) FROM li":                                                                                                                  false,
		"SELECT COUNT(DISTINCT flag) FROM li":                                                                                                      false,
		"SELECT k + 1, SUM(qty) FROM li GROUP BY k + 1":                                                                                            false,
		"SELECT SUM(qty * 1.5e0) FROM li":                                                                                                          false,
		"SELECT SUM(n * k) FROM li":                                                                                                                false,
	} {
		tp, agg := aggregateOfQuery(t, f, q)
		if got := tp.batchAggregate(agg) != nil; got != want {
			t.Errorf("%s: over column batches %v, want %v", q, got, want)
		}
	}
}

// aggregateOfQuery plans q and returns the plan and its (lowest) Aggregate.
func aggregateOfQuery(t *testing.T, f *fixture, q string) (*treePlan, *plan.Aggregate) {
	t.Helper()
	st, err := sqlparse.ParseOne(q)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := f.s.buildSelect(context.Background(), st.(*sqlparse.Select))
	if err != nil {
		t.Fatal(err)
	}
	var agg *plan.Aggregate
	for n := tp.root; n != nil; n = plan.Input(n) {
		if a, ok := n.(*plan.Aggregate); ok {
			agg = a
		}
	}
	if agg == nil {
		t.Fatalf("%s: no Aggregate in the plan", q)
	}
	return tp, agg
}
