package exec

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// source is an operator over fixed rows that records whether it was closed.
type source struct {
	Operator
	closed *bool
}

func (s source) Close() error {
	*s.closed = true
	return s.Operator.Close()
}

func rowsOf(closed *bool, rows ...[]any) Operator {
	seq := iter.Seq2[[]any, error](func(yield func([]any, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	})
	return source{FromSeq(seq), closed}
}

func intKey(row []any) ([]any, error) { return []any{row[0]}, nil }

func hash(k []any) (uint64, bool) {
	if k[0] == nil {
		return 0, false
	}
	h := fnv.New64a()
	fmt.Fprint(h, k[0])
	return h.Sum64(), true
}

func eq(l, r []any) bool { return l[0] == r[0] }

func collect(t *testing.T, op Operator) []string {
	t.Helper()
	var out []string
	for r, err := range Rows(context.Background(), op) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(r))
	}
	slices.Sort(out)
	return out
}

func TestJoinKinds(t *testing.T) {
	left := [][]any{{int64(1), "a"}, {int64(1), "b"}, {nil, "n"}, {int64(3), "c"}}
	right := [][]any{{int64(1), "x"}, {int64(1), "y"}, {nil, "m"}, {int64(4), "z"}}
	cases := []struct {
		kind   JoinKind
		hashed bool
		want   string
	}{
		{InnerJoin, true, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y]"},
		{LeftJoin, true, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y] [3 c <nil> <nil>] [<nil> n <nil> <nil>]"},
		{RightJoin, true, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y] [<nil> <nil> 4 z] [<nil> <nil> <nil> m]"},
		{InnerJoin, false, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y]"},
		{LeftJoin, false, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y] [3 c <nil> <nil>] [<nil> n <nil> <nil>]"},
		{RightJoin, false, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y] [<nil> <nil> 4 z] [<nil> <nil> <nil> m]"},
		{FullJoin, true, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y] [3 c <nil> <nil>] [<nil> <nil> 4 z] [<nil> <nil> <nil> m] [<nil> n <nil> <nil>]"},
		{FullJoin, false, "[1 a 1 x] [1 a 1 y] [1 b 1 x] [1 b 1 y] [3 c <nil> <nil>] [<nil> <nil> 4 z] [<nil> <nil> <nil> m] [<nil> n <nil> <nil>]"},
	}
	for _, tc := range cases {
		var lc, rc bool
		spec := JoinSpec{Kind: tc.kind, LeftWidth: 2, RightWidth: 2, Budget: NewBudget(0), Name: "test"}
		if tc.hashed {
			spec.LeftKey, spec.RightKey, spec.Hash, spec.KeyEqual = intKey, intKey, hash, eq
		} else {
			spec.Cond = func(row []any) (bool, error) { return row[0] != nil && row[0] == row[2], nil }
		}
		got := strings.Join(collect(t, Join(context.Background(), rowsOf(&lc, left...), rowsOf(&rc, right...), spec)), " ")
		if got != tc.want {
			t.Errorf("kind %d hashed %v:\n got  %s\n want %s", tc.kind, tc.hashed, got, tc.want)
		}
		if !lc || !rc {
			t.Errorf("kind %d: inputs not closed (left %v, right %v)", tc.kind, lc, rc)
		}
		if spec.Budget.Used() != 0 {
			t.Errorf("kind %d: %d bytes still charged", tc.kind, spec.Budget.Used())
		}
	}
}

func TestJoinEmptyBuildSkipsProbe(t *testing.T) {
	var rc bool
	probed := false
	left := FromSeq(func(yield func([]any, error) bool) {
		probed = true
		yield([]any{int64(1)}, nil)
	})
	spec := JoinSpec{Kind: InnerJoin, LeftWidth: 1, RightWidth: 1, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq}
	if got := collect(t, Join(context.Background(), left, rowsOf(&rc), spec)); len(got) != 0 || probed {
		t.Errorf("got %v, probed %v", got, probed)
	}
}

func TestJoinBudgetAndCancel(t *testing.T) {
	var lc, rc bool
	big := make([][]any, 100)
	for i := range big {
		big[i] = []any{int64(i), strings.Repeat("x", 100)}
	}
	spec := JoinSpec{Kind: InnerJoin, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq,
		Budget: NewBudget(1000), Name: "the build side"}
	var err error
	for _, e := range Rows(context.Background(), Join(context.Background(), rowsOf(&lc, big...), rowsOf(&rc, big...), spec)) {
		if e != nil {
			err = e
		}
	}
	var be *BudgetError
	if !errors.Is(err, ErrBudgetExceeded) || !errors.As(err, &be) || be.Operator != "the build side" {
		t.Fatalf("got %v, want the budget error", err)
	}
	if !lc || !rc || spec.Budget.Used() != 0 {
		t.Errorf("after the error: closed %v %v, charged %d", lc, rc, spec.Budget.Used())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spec.Budget = NewBudget(0)
	err = nil
	for _, e := range Rows(ctx, Join(ctx, rowsOf(&lc, big...), rowsOf(&rc, big...), spec)) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled join: %v", err)
	}
}

// TestJoinFullEmptySides: a FULL JOIN with one empty side keeps every row
// of the other.
func TestJoinFullEmptySides(t *testing.T) {
	rows := [][]any{{int64(1), "a"}, {nil, "n"}}
	for _, hashed := range []bool{true, false} {
		spec := JoinSpec{Kind: FullJoin, LeftWidth: 2, RightWidth: 2}
		if hashed {
			spec.LeftKey, spec.RightKey, spec.Hash, spec.KeyEqual = intKey, intKey, hash, eq
		} else {
			spec.Cond = func(row []any) (bool, error) { return row[0] != nil && row[0] == row[2], nil }
		}
		var c bool
		got := strings.Join(collect(t, Join(context.Background(), rowsOf(&c, rows...), rowsOf(&c), spec)), " ")
		if want := "[1 a <nil> <nil>] [<nil> n <nil> <nil>]"; got != want {
			t.Errorf("hashed %v, empty right: got %s, want %s", hashed, got, want)
		}
		got = strings.Join(collect(t, Join(context.Background(), rowsOf(&c), rowsOf(&c, rows...), spec)), " ")
		if want := "[<nil> <nil> 1 a] [<nil> <nil> <nil> n]"; got != want {
			t.Errorf("hashed %v, empty left: got %s, want %s", hashed, got, want)
		}
	}
}

// dirArea is a SpillArea over a test's directory, counting its users.
type dirArea struct {
	dir      string
	acquired int
	released int
}

func (a *dirArea) Acquire() (string, error) { a.acquired++; return a.dir, nil }
func (a *dirArea) Release()                 { a.released++ }

func (a *dirArea) check(t *testing.T, what string) {
	t.Helper()
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("%s: %d spill files left in %s", what, len(entries), a.dir)
	}
	if a.acquired != a.released {
		t.Errorf("%s: spill area acquired %d times, released %d", what, a.acquired, a.released)
	}
}

// spillRows: n rows keyed i%keys (every 50th key NULL), with a payload.
func spillRows(n, keys int, tag string) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k any = int64(i % keys)
		if i%50 == 7 {
			k = nil
		}
		rows[i] = []any{k, fmt.Sprintf("%s%d-%s", tag, i, strings.Repeat("p", i%13))}

	}
	return rows
}

// TestJoinSpill: a hash join whose build side passes a small budget
// partitions both sides to disk (re-partitioning partitions still too
// big) and gives the in-memory join's rows, for every kind; the files are
// gone afterwards and the budget is whole again.
func TestJoinSpill(t *testing.T) {
	left := spillRows(3000, 700, "l")
	right := spillRows(2500, 900, "r")
	for _, kind := range []JoinKind{InnerJoin, LeftJoin, RightJoin, FullJoin} {
		for _, cond := range []bool{false, true} {
			spec := JoinSpec{Kind: kind, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq}
			if cond {
				// A residual condition: some key matches fail it.
				spec.Cond = func(row []any) (bool, error) { return len(row[1].(string))%3 != len(row[3].(string))%3, nil }
			}
			var c bool
			spec.Budget = NewBudget(0)
			want := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec))
			area := &dirArea{dir: t.TempDir()}
			spec.Budget, spec.Spill = NewBudget(8<<10), area
			got := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec))
			if !slices.Equal(got, want) {
				t.Errorf("kind %d cond %v: spilled join gives %d rows, in memory %d", kind, cond, len(got), len(want))
			}
			if area.acquired == 0 {
				t.Errorf("kind %d: the join did not spill", kind)
			}
			area.check(t, fmt.Sprintf("kind %d", kind))
			if spec.Budget.Used() != 0 {
				t.Errorf("kind %d: %d bytes still charged", kind, spec.Budget.Used())
			}
		}
	}
}

// TestJoinSpillStopAndCancel: files are removed when the consumer stops
// early and when the context is cancelled mid-join; one key whose rows
// exceed the budget at every level still fails with the budget error.
func TestJoinSpillStopAndCancel(t *testing.T) {
	left := spillRows(3000, 700, "l")
	right := spillRows(2500, 900, "r")
	var c bool
	area := &dirArea{dir: t.TempDir()}
	spec := JoinSpec{Kind: FullJoin, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq,
		Budget: NewBudget(8 << 10), Spill: area}
	op := Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec)
	if _, err := op.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	op.Close()
	area.check(t, "stopped early")

	ctx, cancel := context.WithCancel(context.Background())
	area = &dirArea{dir: t.TempDir()}
	spec.Spill = area
	op = Join(ctx, rowsOf(&c, left...), rowsOf(&c, right...), spec)
	if _, err := op.Next(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	var err error
	for err == nil {
		_, err = op.Next(ctx)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	op.Close()
	area.check(t, "cancelled")

	same := make([][]any, 2000)
	for i := range same {
		same[i] = []any{int64(1), strings.Repeat("x", 50)}
	}
	area = &dirArea{dir: t.TempDir()}
	spec = JoinSpec{Kind: InnerJoin, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq,
		Budget: NewBudget(8 << 10), Spill: area, Name: "the build side"}
	err = nil
	for _, e := range Rows(context.Background(), Join(context.Background(), rowsOf(&c, same[:10]...), rowsOf(&c, same...), spec)) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("one huge key: got %v, want the budget error", err)
	}
	area.check(t, "one huge key")
}

// TestJoinSpillValues: values of every kind a row holds come back from
// the partition files as they went in.
func TestJoinSpillValues(t *testing.T) {
	kinds := []any{[]any{int64(1), "x"}, map[string]any{"a": float32(2)}, []float32{1, 2}, time.Unix(7, 0).UTC(),
		[]byte("b"), uint64(9), 2.5, true, nil, "s"}
	var left, right [][]any
	for i := 0; i < 400; i++ {
		left = append(left, []any{int64(i % 50), kinds[i%len(kinds)]})
		right = append(right, []any{int64(i % 60), kinds[(i+3)%len(kinds)]})
	}
	var c bool
	spec := JoinSpec{Kind: FullJoin, LeftWidth: 2, RightWidth: 2, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq, Budget: NewBudget(0)}
	want := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec))
	area := &dirArea{dir: t.TempDir()}
	spec.Budget, spec.Spill = NewBudget(4<<10), area
	got := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec))
	if !slices.Equal(got, want) || area.acquired == 0 {
		t.Errorf("spilled %d rows (spilled: %v), in memory %d", len(got), area.acquired > 0, len(want))
	}
	area.check(t, "values")
}
