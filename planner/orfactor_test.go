package planner

import (
	"strings"
	"testing"
)

// TestFactorOr: a join condition repeated in every disjunct of an OR
// (TPC-H Q19) is taken out of it and becomes the hash join's key; the
// answers are those of the OR as written.
func TestFactorOr(t *testing.T) {
	f := joinTables(t, Options{})
	q := "SELECT oid FROM o, c WHERE (o.id = c.id AND c.city = 'oslo') OR (c.id = c.id AND o.id = c.id AND o.amount > 8) ORDER BY oid"
	if got, want := show(f.rows(q)), "10 | 11 | 12"; got != want {
		t.Errorf("%s\n got  %s\n want %s", q, got, want)
	}
	plan := show(f.rows("EXPLAIN " + q))
	if !strings.Contains(plan, "HashJoin INNER keys `o.id` = `c.id`") {
		t.Errorf("the common join condition is not a hash key:\n%s", plan)
	}
	// One disjunct that is only the common part makes the OR true.
	q = "SELECT oid FROM o, c WHERE o.id = c.id OR (o.id = c.id AND o.amount > 8) ORDER BY oid"
	if got, want := show(f.rows(q)), "10 | 11 | 12"; got != want {
		t.Errorf("%s\n got  %s\n want %s", q, got, want)
	}
	// Nothing in common: unchanged (a nested loop with the OR).
	q = "SELECT oid FROM o, c WHERE (o.id = c.id AND c.city = 'rome') OR (o.amount = 1 AND c.id = 3) ORDER BY oid"
	if got, want := show(f.rows(q)), "12 | 13"; got != want {
		t.Errorf("%s\n got  %s\n want %s", q, got, want)
	}
}

// TestImpliedOrFilters: an OR over two tables (TPC-H Q7's nation pairs)
// also filters each table that every disjunct constrains, in its scan;
// the answers are those of the OR as written.
func TestImpliedOrFilters(t *testing.T) {
	f := joinTables(t, Options{})
	q := "SELECT o.oid, c.name FROM o, c WHERE o.id = c.id AND ((c.city = 'oslo' AND o.amount > 6) OR (c.city = 'rome' AND o.amount < 10)) ORDER BY oid"
	if got, want := show(f.rows(q)), "11,ann | 12,bob"; got != want {
		t.Errorf("%s\n got  %s\n want %s", q, got, want)
	}
	plan := show(f.rows("EXPLAIN " + q))
	for _, filter := range []string{"Filter (city = 'oslo') OR (city = 'rome')", "Filter (amount > 6) OR (amount < 10)"} {
		if !strings.Contains(plan, filter) {
			t.Errorf("no %q in the plan:\n%s", filter, plan)
		}
	}
	// A disjunct that leaves c free implies nothing on c.
	q = "SELECT o.oid, c.name FROM o, c WHERE o.id = c.id AND ((c.city = 'oslo' AND o.amount > 6) OR o.amount = 9) ORDER BY oid"
	if got, want := show(f.rows(q)), "11,ann | 12,bob"; got != want {
		t.Errorf("%s\n got  %s\n want %s", q, got, want)
	}
	plan = show(f.rows("EXPLAIN " + q))
	if !strings.Contains(plan, "Filter (amount > 6) OR (amount = 9)") || strings.Contains(plan, "Filter (city") {
		t.Errorf("want the implied filter on o only:\n%s", plan)
	}
}
