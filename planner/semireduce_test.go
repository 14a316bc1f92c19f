package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

// TestReduceCorrelated: a correlated subquery over a join whose outer key
// comes from a selectively filtered table gets that table's keys as an IN
// conjunct (EXPLAIN shows it), and every answer is the one without it:
// scalar aggregates, EXISTS and NOT EXISTS, NULL keys on both sides (a
// subquery in the select list is left as it is).
func TestReduceCorrelated(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE p (pk INT, brand VARCHAR(8), flag INT)`)
	f.exec(`CREATE TABLE l (lk INT, q BIGINT)`)
	var rows []string
	for i := range 400 {
		pk := fmt.Sprint(i)
		if i%53 == 0 {
			pk = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%s, 'b%d', %d)", pk, i%7, i%3))
	}
	f.exec(`INSERT INTO p VALUES ` + strings.Join(rows, ", "))
	rows = rows[:0]
	for i := range 4000 {
		lk := fmt.Sprint(i % 410)
		if i%61 == 0 {
			lk = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%s, %d)", lk, i*37%1000))
	}
	f.exec(`INSERT INTO l VALUES ` + strings.Join(rows, ", "))
	queries := []string{
		"SELECT SUM(l.q), COUNT(*) FROM l, p WHERE p.pk = l.lk AND p.brand = 'b3' AND p.flag = 1 AND l.q < (SELECT AVG(q) FROM l l2 WHERE l2.lk = p.pk)",
		"SELECT COUNT(*) FROM p JOIN l ON p.pk = l.lk WHERE p.brand = 'b2' AND p.flag = 0 AND NOT EXISTS (SELECT 1 FROM l l2 WHERE l2.lk = p.pk AND l2.q > 990)",
		"SELECT COUNT(*) FROM p JOIN l ON p.pk = l.lk WHERE p.brand = 'b2' AND p.flag = 0 AND EXISTS (SELECT 1 FROM l l2 WHERE p.pk = l2.lk AND l2.q > 980)",
		"SELECT p.pk, (SELECT MAX(q) FROM l l2 WHERE l2.lk = p.pk) AS m FROM p LEFT JOIN l ON p.pk = l.lk AND l.q > 995 WHERE p.brand = 'b1' AND p.flag = 2 ORDER BY 1",
		"SELECT COUNT(*) FROM l, p WHERE p.pk = l.lk AND l.q < (SELECT AVG(q) FROM l l2 WHERE l2.lk = p.pk)",
	}
	sameWithAndWithout(t, f, &correlatedReduction, queries)
	explain := func(q string) string { return explainText(f, q) }
	for _, q := range queries[:3] {
		if e := explain(q); !strings.Contains(e, "IN (SELECT pk AS pk FROM p WHERE") {
			t.Errorf("EXPLAIN %s:\n%s\nwant the subquery reduced to p's keys", q, e)
		}
	}
	// p unfiltered: nothing to reduce by.
	if e := explain(queries[4]); strings.Contains(e, "IN (SELECT pk") {
		t.Errorf("EXPLAIN %s:\n%s\nwant no reduction", queries[4], e)
	}
}

// TestImpliedInReplacedByKeyFilter: the IN conjunct the planner adds to
// a correlated subquery (semireduce.go) is left out of its decorrelated
// run when the outer key domain filters the same column (the key filter
// keeps fewer keys), while an IN the query wrote stays; the answers are
// those without the domains.
func TestImpliedInReplacedByKeyFilter(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE p (pk INT, brand VARCHAR(8), flag INT)`)
	f.exec(`CREATE TABLE l (lk INT, q BIGINT)`)
	insertRows(f, "p", 2000, func(i int) string { return fmt.Sprintf("(%d, 'b%d', %d)", i, i%7, i%3) })
	insertRows(f, "l", 12000, func(i int) string { return fmt.Sprintf("(%d, %d)", i%2050, i*37%1000) })
	var decorrelated []string
	decorrelatedQueryHook = func(q *sqlparse.Select) {
		w := "" // every conjunct a correlation key
		if q.Where != nil {
			w = q.Where.String()
		}
		decorrelated = append(decorrelated, w)
	}
	defer func() { decorrelatedQueryHook = nil }()
	planned := `SELECT SUM(l.q), COUNT(*) FROM l, p WHERE p.pk = l.lk AND p.brand = 'b3' AND p.flag = 1 AND l.q < (SELECT AVG(q) FROM l l2 WHERE l2.lk = p.pk)`
	written := `SELECT SUM(l.q), COUNT(*) FROM l, p WHERE p.pk = l.lk AND p.brand = 'b3' AND p.flag = 1 AND l.q < (SELECT AVG(q) FROM l l2 WHERE l2.lk = p.pk AND l2.lk IN (SELECT pk FROM p WHERE brand = 'b3'))`
	if e := explainText(f, planned); !strings.Contains(e, "IN (SELECT pk AS pk FROM p WHERE") || !strings.Contains(e, "get the outer keys") {
		t.Fatalf("EXPLAIN %s:\n%s\nwant the subquery reduced to p's keys and an outer key domain", planned, e)
	}
	for _, c := range []struct {
		q      string
		wantIn bool
	}{{planned, false}, {written, true}} {
		decorrelated = nil
		f.rows(c.q)
		if len(decorrelated) == 0 {
			t.Fatalf("%s: no decorrelated run", c.q)
		}
		for _, w := range decorrelated {
			if got := strings.Contains(w, " IN (SELECT"); got != c.wantIn {
				t.Errorf("%s: decorrelated WHERE %s, want IN kept %v", c.q, w, c.wantIn)
			}
		}
	}
	decorrelatedQueryHook = nil
	sameWithAndWithout(t, f, &semiDomains, []string{planned, written})
}
