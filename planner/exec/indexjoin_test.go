package exec

import (
	"context"
	"slices"
	"testing"
)

// TestIndexJoinExec: the index nested-loop join gives the hash join's
// rows for INNER, LEFT and RIGHT joins (the outer side in several
// batches, NULL and duplicate keys), looks up each batch's distinct
// non-NULL keys once, and closes what it opens.
func TestIndexJoinExec(t *testing.T) {
	outer := spillRows(700, 90, "o")
	inner := spillRows(2000, 120, "i")
	for _, kind := range []JoinKind{InnerJoin, LeftJoin, RightJoin} {
		spec := JoinSpec{Kind: kind, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq,
			Budget: NewBudget(0), Cond: func(row []any) (bool, error) { return len(row[1].(string))%4 != 0, nil }}
		var c bool
		l, r := outer, inner
		if kind == RightJoin {
			l, r = inner, outer
		}
		want := collect(t, Join(context.Background(), rowsOf(&c, l...), rowsOf(&c, r...), spec))
		calls := 0
		var closed []*bool
		lookup := func(ctx context.Context, keys []any) (Operator, error) {
			calls++
			seen := map[any]bool{}
			for _, k := range keys {
				if k == nil || seen[k] {
					t.Errorf("lookup keys %v: NULL or repeated %v", keys, k)
				}
				seen[k] = true
			}
			var rows [][]any
			for _, row := range inner {
				if row[0] != nil && seen[row[0]] {
					rows = append(rows, row)
				}
			}
			done := new(bool)
			closed = append(closed, done)
			return rowsOf(done, rows...), nil
		}
		var oc bool
		got := collect(t, IndexJoin(context.Background(), rowsOf(&oc, outer...), lookup, 0, 256, spec))
		if !slices.Equal(got, want) {
			t.Errorf("kind %d: index join %d rows, hash join %d", kind, len(got), len(want))
		}
		if calls != 3 || !oc {
			t.Errorf("kind %d: %d lookups (want 3), outer closed %v", kind, calls, oc)
		}
		for i, done := range closed {
			if !*done {
				t.Errorf("kind %d: lookup %d not closed", kind, i)
			}
		}
		if spec.Budget.Used() != 0 {
			t.Errorf("kind %d: %d bytes still charged", kind, spec.Budget.Used())
		}
	}
}
