package exec

import (
	"fmt"
	"testing"
)

// countStates counts, per build row, the joined rows folded into it and
// their non-NULL probe values (at probeVal); Result is the build key (at
// keyAt) and the two counts.
type countStates struct {
	keyAt, probeVal int
	rows, vals      []int64
}

func (c *countStates) Fold(i int, row []any) error {
	c.rows[i]++
	if row[c.probeVal] != nil {
		c.vals[i]++
	}
	return nil
}

func (c *countStates) Result(i int, row []any) ([]any, error) {
	return []any{row[c.keyAt], c.rows[i], c.vals[i]}, nil
}

// TestGroupJoinEqualBuildKeys: build rows of equal keys (duplicates, and
// several NULL keys of a kept build side) share one group, so a group join
// over a build side that is not unique still gives the GROUP BY's groups:
// every matching pair and every unmatched build row folded once. Also
// with every key of one hash (distinct keys in one chain), without the
// int64 key path, and spilled.
func TestGroupJoinEqualBuildKeys(t *testing.T) {
	cust := [][]any{{int64(1), "a"}, {int64(1), "b"}, {nil, "n"}, {nil, "n2"}, {int64(3), "c"}, {int64(5), "d"}}
	ord := [][]any{{int64(1), "x"}, {int64(1), nil}, {nil, "m"}, {int64(4), "z"}, {int64(5), "w"}, {int64(1), "y"}}
	oneHash := func(k []any) (uint64, bool) { return 7, k[0] != nil }
	for _, tc := range []struct {
		name   string
		kind   JoinKind
		hash   func([]any) (uint64, bool)
		intKey bool
		spill  bool
		want   string
	}{
		{"left", LeftJoin, hash, true, false, "[[1 6 4] [3 1 0] [5 1 1] [<nil> 2 0]]"},
		{"left one hash", LeftJoin, oneHash, true, false, "[[1 6 4] [3 1 0] [5 1 1] [<nil> 2 0]]"},
		{"left no int keys", LeftJoin, oneHash, false, false, "[[1 6 4] [3 1 0] [5 1 1] [<nil> 2 0]]"},
		{"left spilled", LeftJoin, hash, true, true, "[[1 6 4] [3 1 0] [5 1 1] [<nil> 2 0]]"},
		{"inner", InnerJoin, hash, true, false, "[[1 6 4] [5 1 1]]"},
		{"inner one hash", InnerJoin, oneHash, false, false, "[[1 6 4] [5 1 1]]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c1, c2 bool
			spec := JoinSpec{Kind: tc.kind, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey,
				Hash: tc.hash, KeyEqual: eq, IntKey: tc.intKey}
			left, right := rowsOf(&c1, cust...), rowsOf(&c2, ord...)
			states := &countStates{keyAt: 0, probeVal: 3}
			if tc.kind == LeftJoin {
				spec.BuildLeft = true
			} else {
				// INNER builds its right side: the customers go there.
				left, right = rowsOf(&c1, ord...), rowsOf(&c2, cust...)
				states = &countStates{keyAt: 2, probeVal: 1}
			}
			area := &dirArea{dir: t.TempDir()}
			if tc.spill {
				spec.Budget = NewBudget(400)
				spec.Spill = area
			}
			spec.Group = &GroupJoin{Bytes: 16, New: func(n int) GroupStates {
				s := *states
				s.rows, s.vals = make([]int64, n), make([]int64, n)
				return &s
			}}
			if got := fmt.Sprint(collect(t, Join(t.Context(), left, right, spec))); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if tc.spill && area.acquired == 0 {
				t.Error("the build side did not spill")
			}
			area.check(t, tc.name)
		})
	}
}

// TestJoinDenseKeys: a build side of int64 keys in a narrow range is
// probed through the dense index (hashTable.dense); probe keys outside
// the range, at the ends of int64 (whose offsets wrap) and equal keys in
// one chain join as the slots' search joins them.
func TestJoinDenseKeys(t *testing.T) {
	const minInt, maxInt = -1 << 63, 1<<63 - 1
	build := [][]any{{int64(-3), "a"}, {int64(-1), "b"}, {int64(-1), "c"}, {int64(0), "d"}, {nil, "n"}, {int64(2), "e"}}
	probe := [][]any{{int64(-1), "x"}, {int64(maxInt), "y"}, {int64(minInt), "z"}, {int64(-4), "w"}, {int64(3), "v"}, {int64(2), "u"}, {nil, "t"}, {int64(-3), "s"}}
	run := func(ints bool) []string {
		var c bool
		spec := JoinSpec{Kind: LeftJoin, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey,
			Hash: hash, KeyEqual: eq, IntKey: ints}
		return collect(t, Join(t.Context(), rowsOf(&c, probe...), rowsOf(&c, build...), spec))
	}
	bs := newBuildSet(true)
	for _, r := range build {
		rec := joinRec{Row: r, Key: []any{r[0]}, Null: r[0] == nil}
		if !rec.Null {
			rec.h, _ = hash(rec.Key)
		}
		bs.add(r, rec)
	}
	if tbl := newHashTable(bs); tbl.dense == nil {
		t.Fatal("keys -3..2 over 6 build rows: no dense index")
	}
	if got, want := fmt.Sprint(run(true)), fmt.Sprint(run(false)); got != want {
		t.Errorf("dense index gives %s, want %s", got, want)
	}
}
