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
