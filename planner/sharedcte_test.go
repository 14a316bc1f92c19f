package planner

import (
	"strings"
	"testing"
)

// TestSharedCTEComputedOnce: a CTE the query names twice (TPC-H Q15's
// shape: joined, and compared to its own MAX in a subquery) is planned as
// one SharedCTE per reference, computed once (as MySQL 8 and DuckDB
// materialize it), and
// answers what the same query with the CTE written out twice answers.
func TestSharedCTEComputedOnce(t *testing.T) {
	f := joinTables(t, Options{})
	const shared = "WITH tot (cid, total) AS (SELECT id, SUM(amount) FROM o GROUP BY id) " +
		"SELECT c.id, c.name, total FROM c, tot WHERE c.id = cid AND total = (SELECT MAX(total) FROM tot) ORDER BY c.id"
	const inlined = "SELECT c.id, c.name, total FROM c, (SELECT id AS cid, SUM(amount) AS total FROM o GROUP BY id) tot " +
		"WHERE c.id = cid AND total = (SELECT MAX(total) FROM (SELECT id AS cid, SUM(amount) AS total FROM o GROUP BY id) t2) ORDER BY c.id"
	got, want := show(f.rows(shared)), show(f.rows(inlined))
	if got != want || got == "" {
		t.Errorf("shared CTE: %s, written out twice: %s", got, want)
	}
	plan := show(f.rows("EXPLAIN " + shared))
	if n := strings.Count(plan, "SharedCTE tot"); n != 2 {
		t.Errorf("EXPLAIN has %d SharedCTE lines, want one per reference (2):\n%s", n, plan)
	}
	f.rows(shared)
	if runs := sharedRuns(f.s); len(runs) != 1 || runs[0] != 1 {
		t.Errorf("the statement's shared CTEs ran %v times, want [1]", runs)
	}
	// A CTE named once is inlined as before: its filters push into it.
	if plan := show(f.rows("EXPLAIN WITH x AS (SELECT id FROM c) SELECT id FROM x WHERE id = 2")); strings.Contains(plan, "SharedCTE") {
		t.Errorf("a CTE named once is shared:\n%s", plan)
	}
}

// TestSharedCTEOverBudget: rows past the join memory budget are not held;
// each reference computes them and the answer is unchanged.
func TestSharedCTEOverBudget(t *testing.T) {
	f := joinTables(t, Options{JoinMemory: 300})
	const q = "WITH x AS (SELECT id, name, city FROM c) SELECT (SELECT COUNT(*) FROM x), (SELECT SUM(id) FROM x), (SELECT MIN(name) FROM x)"
	want := show(joinTables(t, Options{}).rows(q))
	if got := show(f.rows(q)); got != want || got == "" {
		t.Errorf("over budget: %s, within it: %s", got, want)
	}
	if runs := sharedRuns(f.s); len(runs) != 1 || runs[0] != 3 {
		t.Errorf("over budget the shared CTE ran %v times, want [3] (once per reference)", runs)
	}
}

// sharedRuns lists how many times each shared CTE of the session's last
// statement computed its rows.
func sharedRuns(s *Session) []int {
	var runs []int
	for _, c := range s.shared {
		runs = append(runs, c.computed)
	}
	return runs
}
