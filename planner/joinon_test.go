package planner

import (
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestJoinOnSubqueries: subqueries in a join's ON, uncorrelated and
// correlated to either side or both (qualified, or unqualified where the
// subquery's own FROM lacks the name), under inner, LEFT, RIGHT and FULL
// joins: an outer join's ON subquery decides the match, the preserved
// side keeps every row. Each answer was checked by hand against the
// tables of joinTables (and conformance/mariadb TestJoinOnSubqueriesMatchMariaDB
// compares the same shapes with MariaDB).
func TestJoinOnSubqueries(t *testing.T) {
	f := joinTables(t, Options{})
	f.exec(`INSERT INTO e VALUES (1, 5), (2, 9), (3, 1)`)
	cases := []struct{ sql, want string }{
		// Uncorrelated, beside the hash key.
		{"SELECT c.name, o.oid FROM c JOIN o ON o.id = c.id AND o.amount IN (SELECT 5 UNION SELECT 9) ORDER BY o.oid", "ann,10 | bob,12"},
		{"SELECT c.name, o.oid FROM c JOIN o ON o.id = c.id AND o.amount = (SELECT MAX(x) FROM e) ORDER BY o.oid", "bob,12"},
		// An uncorrelated EXISTS that is false: an inner join has no row, a
		// LEFT JOIN keeps every left row with NULLs.
		{"SELECT COUNT(*) FROM c JOIN o ON o.id = c.id AND EXISTS (SELECT 1 FROM e WHERE x > 100)", "0"},
		{"SELECT c.name, o.oid FROM c LEFT JOIN o ON o.id = c.id AND EXISTS (SELECT 1 FROM e WHERE x > 100) ORDER BY c.name, c.id", "ann,NULL | ann,NULL | bob,NULL | cid,NULL | nul,NULL"},
		// Correlated to the right side (the filtered one) of a LEFT JOIN.
		{"SELECT c.id, o.oid FROM c LEFT JOIN o ON o.id = c.id AND o.amount > (SELECT MIN(p.amount) FROM o AS p WHERE p.id = o.id) ORDER BY c.id, o.oid", "NULL,NULL | 1,11 | 2,NULL | 3,NULL | 4,NULL"},
		// Correlated to the left (preserved) side: the brief's shape.
		{"SELECT c.id, o.oid FROM c LEFT JOIN o ON EXISTS (SELECT 1 FROM e WHERE e.id = c.id AND e.x > 4) AND o.amount > 8 ORDER BY c.id, o.oid", "NULL,NULL | 1,12 | 2,12 | 3,NULL | 4,NULL"},
		{"SELECT c.id, COUNT(o.oid) FROM c LEFT JOIN o ON EXISTS (SELECT 1 FROM o AS p WHERE p.id = c.id) GROUP BY c.id ORDER BY c.id", "NULL,0 | 1,5 | 2,5 | 3,0 | 4,0"},
		// Correlated to both sides.
		{"SELECT c.id, o.oid FROM c JOIN o ON (SELECT e.x FROM e WHERE e.id = c.id) = o.amount ORDER BY o.oid", "1,10 | 2,12 | 3,13"},
		{"SELECT c.id, o.oid FROM c LEFT JOIN o ON o.oid IN (SELECT p.oid FROM o AS p WHERE p.id = c.id AND p.amount > 5) ORDER BY c.id, o.oid", "NULL,NULL | 1,11 | 2,12 | 3,NULL | 4,NULL"},
		// Unqualified outer references (the subquery's FROM lacks amount).
		{"SELECT c.id, o.oid FROM c JOIN o ON o.id = c.id AND EXISTS (SELECT 1 FROM e WHERE e.x = amount) ORDER BY o.oid", "1,10 | 2,12"},
		// RIGHT and FULL joins keep their preserved side.
		{"SELECT c.name, o.oid FROM c RIGHT JOIN o ON o.id = c.id AND c.city IN (SELECT city FROM c AS d WHERE d.name = 'cid') ORDER BY o.oid", "ann,10 | ann,11 | NULL,12 | NULL,13 | NULL,14"},
		{"SELECT c.name, o.oid FROM c RIGHT JOIN o ON o.id = c.id AND c.city IN (SELECT city FROM c AS d WHERE d.id = o.id - 1) ORDER BY o.oid", "NULL,10 | NULL,11 | NULL,12 | NULL,13 | NULL,14"},
		{"SELECT c.id, o.oid FROM c FULL JOIN o ON o.id = c.id AND o.amount < (SELECT AVG(x) FROM e) ORDER BY c.id, o.oid", "NULL,NULL | NULL,10 | NULL,11 | NULL,12 | NULL,13 | NULL,14 | 1,NULL | 2,NULL | 3,NULL | 4,NULL"},
		// A nested join's ON, and the NOT forms.
		{"SELECT c.id, o.oid, e.x FROM c JOIN (o JOIN e ON e.id = o.id AND e.x NOT IN (SELECT amount FROM o AS p WHERE p.oid = o.oid)) ON c.id = o.id ORDER BY o.oid", "1,11,5"},
		{"SELECT c.id, o.oid FROM c JOIN o ON o.id = c.id AND NOT EXISTS (SELECT 1 FROM e WHERE e.x = o.amount) ORDER BY o.oid", "1,11"},
		{"SELECT c.id, o.oid FROM c JOIN o ON o.id = c.id AND o.amount >= ALL (SELECT x FROM e WHERE e.id = c.id) ORDER BY o.oid", "1,10 | 1,11 | 2,12"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
	f.fails("SELECT * FROM c JOIN o ON o.id = c.id AND COUNT(*) > 1", catalog.CodeInvalidInput, "MySQL error 1111")
	// The ON of the nested join (o JOIN e) sees o and e only: c, to its
	// left, is not one of its sides.
	f.fails("SELECT * FROM c JOIN (o JOIN e ON EXISTS (SELECT 1 FROM e AS q WHERE q.id = c.id)) ON c.id = o.id", catalog.CodeInvalidInput, "MySQL error 1054")
	f.fails("SELECT * FROM c JOIN o ON o.id = c.id AND o.amount IN (SELECT x, id FROM e)", catalog.CodeInvalidInput, "1 column")
	f.fails("SELECT * FROM c JOIN o ON o.id = c.id AND o.amount = (SELECT x FROM e)", catalog.CodeInvalidInput, "more than 1 row")
}

// TestJoinOnSubqueryExplain: EXPLAIN prints an ON subquery's plan under
// the join that evaluates it, with how it runs.
func TestJoinOnSubqueryExplain(t *testing.T) {
	f := joinTables(t, Options{})
	got := show(f.rows("EXPLAIN SELECT c.name, o.oid FROM c LEFT JOIN o ON o.id = c.id AND o.amount > (SELECT MIN(p.amount) FROM o AS p WHERE p.id = o.id)"))
	lines := strings.Split(got, " | ")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, "HashJoin LEFT") {
			at = i
		}
	}
	if at < 0 || at+2 >= len(lines) || !strings.Contains(lines[at+1], "in the condition") ||
		!strings.Contains(lines[at+2], "Subquery (SELECT MIN(p.amount) FROM o AS p WHERE p.id = `o.id`) (correlated on `o.id`") {
		t.Errorf("EXPLAIN does not show the ON subquery under its join:\n%s", strings.Join(lines, "\n"))
	}
	got = show(f.rows("EXPLAIN SELECT COUNT(*) FROM c JOIN o ON o.id = c.id AND o.amount IN (SELECT x FROM e)"))
	if !strings.Contains(got, "uncorrelated: runs once") || !strings.Contains(got, "TableScan e") {
		t.Errorf("EXPLAIN lacks the uncorrelated ON subquery:\n%s", got)
	}
}
