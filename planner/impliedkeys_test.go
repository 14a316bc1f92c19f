package planner

import (
	"fmt"
	"strings"
	"testing"
)

// TestImpliedJoinKey: FROM p, s, f WHERE p.k = f.k AND s.k = f.k (TPC-H
// Q9's part, partsupp, lineitem) states no condition between the two
// small tables, but the integer equalities chain into p.k = s.k: the join
// order builds p JOIN s on that implied key (EXPLAIN shows it as the
// join's key) instead of a cross product, and the answer is the one
// computed from the data.
func TestImpliedJoinKey(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE p (k BIGINT, name VARCHAR(20))`)
	f.exec(`CREATE TABLE s (k BIGINT, cost BIGINT)`)
	f.exec(`CREATE TABLE f (k BIGINT, qty BIGINT)`)
	f.exec("INSERT INTO p VALUES " + valuesList(60, func(i int) string {
		name := "plain"
		if i%3 == 0 {
			name = "green"
		}
		return fmt.Sprintf("(%d, '%s')", i, name)
	}))
	f.exec("INSERT INTO s VALUES " + valuesList(240, func(i int) string { return fmt.Sprintf("(%d, %d)", i%80, i) }))
	f.exec("INSERT INTO f VALUES " + valuesList(4000, func(i int) string { return fmt.Sprintf("(%d, %d)", i%100, i%7) }))
	q := "SELECT COUNT(*), SUM(f.qty * s.cost) FROM p, f, s WHERE p.k = f.k AND s.k = f.k AND p.name LIKE '%green%'"
	text := explainText(f, q)
	if !strings.Contains(text, "keys `s.k` = `p.k`") && !strings.Contains(text, "keys `p.k` = `s.k`") {
		t.Errorf("no join of p and s on the implied key:\n%s", text)
	}
	if strings.Contains(text, "NestedLoopJoin") {
		t.Errorf("a cross product is left:\n%s", text)
	}
	// The answer from the data: green keys are multiples of 3 below 60; s
	// has keys i%80 (3 rows each below 80: i, i+80, i+160), f keys i%100.
	var count, sum int64
	for fi := 0; fi < 4000; fi++ {
		k := fi % 100
		if k >= 60 || k%3 != 0 {
			continue
		}
		for si := 0; si < 240; si++ {
			if si%80 == k {
				count++
				sum += int64(fi%7) * int64(si)
			}
		}
	}
	if got, want := fmt.Sprint(f.rows(q)), fmt.Sprintf("[[%d %d]]", count, sum); got != want {
		t.Errorf("%s: got %s, want %s", q, got, want)
	}
}

// TestImpliedJoinKeyNotAcrossTypes: a.s = c.n AND b.s = c.n between two
// strings and a number compares each string with the number as numbers,
// so '1.0' and '1' both match 1 while '1.0' = '1' as strings is false: no
// equality a.s = b.s is derived (it would drop the row), the shape that
// would otherwise use one.
func TestImpliedJoinKeyNotAcrossTypes(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE a (s VARCHAR(10), tag VARCHAR(10))`)
	f.exec(`CREATE TABLE b (s VARCHAR(10))`)
	f.exec(`CREATE TABLE c (n BIGINT)`)
	f.exec(`INSERT INTO a VALUES ('1.0', 'x'), ('2', 'y')`)
	f.exec(`INSERT INTO b VALUES ('1'), ('7')`)
	f.exec("INSERT INTO c VALUES " + valuesList(3000, func(i int) string { return fmt.Sprintf("(%d)", i%50) }))
	q := "SELECT a.s, b.s, COUNT(*) FROM a, c, b WHERE a.s = c.n AND b.s = c.n GROUP BY a.s, b.s"
	if got := fmt.Sprint(f.rows(q)); got != "[[1.0 1 60]]" {
		t.Errorf("%s: got %s, want [[1.0 1 60]]\n%s", q, got, explainText(f, q))
	}
	// The same with integer columns does chain (the join of the two
	// small tables has the implied key).
	f.exec(`CREATE TABLE ai (n BIGINT)`)
	f.exec(`CREATE TABLE bi (n BIGINT)`)
	f.exec(`INSERT INTO ai VALUES (1), (2)`)
	f.exec(`INSERT INTO bi VALUES (1), (7)`)
	qi := "SELECT ai.n, bi.n, COUNT(*) FROM ai, c, bi WHERE ai.n = c.n AND bi.n = c.n GROUP BY ai.n, bi.n"
	if got := fmt.Sprint(f.rows(qi)); got != "[[1 1 60]]" {
		t.Errorf("%s: got %s", qi, got)
	}
	if text := explainText(f, qi); !strings.Contains(text, "keys `ai.n` = `bi.n`") && !strings.Contains(text, "keys `bi.n` = `ai.n`") {
		t.Errorf("integers: no implied key:\n%s", text)
	}
}
