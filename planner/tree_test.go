package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/planner/exec"
)

// TestJoinTree: a query block over a join is one plan tree, the nodes
// above the join (WHERE's remainder, Aggregate, HAVING, Sort, Limit,
// Project) shown by EXPLAIN in the order they run, and answered by them.
func TestJoinTree(t *testing.T) {
	f := joinTables(t, Options{})
	q := "SELECT c.city, COUNT(*) AS n, SUM(o.amount) FROM c LEFT JOIN o ON c.id = o.id WHERE o.amount > 0 OR o.amount IS NULL " +
		"GROUP BY c.city HAVING n > 0 ORDER BY 3 DESC LIMIT 1 OFFSET 1"
	if got := show(f.rows(q)); got != "rome,2,9" {
		t.Errorf("%s:\n got %s", q, got)
	}
	var lines []string
	for _, r := range f.rows("EXPLAIN " + q) {
		lines = append(lines, strings.TrimLeft(r[0].(string), " "))
	}
	text := strings.Join(lines, "\n")
	want := []string{"Project city, n, SUM(o.amount)", "Limit 1 offset 1", "Sort SUM(`o.amount`) DESC (top-k: keeps 2 rows",
		"Having COUNT(*) > 0", "Aggregate COUNT(*), SUM(`o.amount`) group by `c.city` (one state per group)",
		"Filter `o.amount` > 0 OR `o.amount` IS NULL", "HashJoin LEFT"}
	at := 0
	for _, w := range want {
		i := at
		for i < len(lines) && !strings.HasPrefix(lines[i], w) {
			i++
		}
		if i == len(lines) {
			t.Fatalf("EXPLAIN lacks %q after line %d:\n%s", w, at, text)
		}
		at = i + 1
	}
	if strings.Contains(text, "DerivedTable") {
		t.Errorf("EXPLAIN shows a derived-table level:\n%s", text)
	}
	cases := []struct{ sql, want string }{
		// The lone COUNT over a join, with and without an argument.
		{"SELECT COUNT(o.oid) FROM c LEFT JOIN o ON c.id = o.id", "3"},
		{"SELECT COUNT(*) FROM c LEFT JOIN o ON c.id = o.id", "6"},
		// No ORDER BY: LIMIT and OFFSET over the join's stream.
		{"SELECT COUNT(*) FROM (SELECT c.id FROM c CROSS JOIN o LIMIT 7 OFFSET 20) AS d", "5"},
		{"SELECT c.name FROM c JOIN o ON c.id = o.id LIMIT 0", ""},
		// Aggregates without GROUP BY over an empty join: one row.
		{"SELECT COUNT(*), SUM(e.x), MAX(c.name) FROM c JOIN e ON c.id = e.id", "0,NULL,NULL"},
		// ORDER BY a column outside the select list, then a computed item.
		{"SELECT c.name FROM c JOIN o ON c.id = o.id ORDER BY o.amount DESC", "bob | ann | ann"},
		{"SELECT o.amount * 2 AS d FROM c JOIN o ON c.id = o.id ORDER BY d", "10 | 14 | 18"},
		// Booleans of computed items are 1 or 0.
		{"SELECT o.amount > 6 FROM c JOIN o ON c.id = o.id ORDER BY o.oid", "0 | 1 | 1"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
}

// TestJoinTreeBudget: the Aggregate's groups are charged to the query's
// budget.
func TestJoinTreeBudget(t *testing.T) {
	f := newDataFixture(t, Options{JoinMemory: 64 << 10})
	f.exec(`CREATE TABLE a (k BIGINT)`)
	f.exec(`CREATE TABLE b (k BIGINT)`)
	var vals []string
	for i := range 2000 {
		vals = append(vals, "("+itoa(i)+")")
	}
	f.exec(`INSERT INTO a VALUES ` + strings.Join(vals, ", "))
	f.exec(`INSERT INTO b VALUES (1), (2)`)
	// The build side (b) fits; 2,000 groups of a CROSS JOIN do not.
	if got := show(f.rows("SELECT COUNT(*) FROM a CROSS JOIN b")); got != "4000" {
		t.Fatalf("count: %s", got)
	}
	_, err := f.try("SELECT a.k, COUNT(*) FROM a CROSS JOIN b GROUP BY a.k")
	if !errors.Is(err, exec.ErrBudgetExceeded) {
		t.Fatalf("got %v, want ErrBudgetExceeded", err)
	}
}
