package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/lancecat/lancecat/sqltypes"
)

// wideRows: n rows of width 12 whose positions 0 (the key, i%keys) and 5
// (a payload) hold values, the others NULL, as a join of joins whose
// scans read two of their columns gives.
func wideRows(n, keys int, tag string) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		r := make([]any, 12)
		r[0], r[5] = int64(i%keys), fmt.Sprintf("%s%d", tag, i)
		rows[i] = r
	}
	return rows
}

// TestJoinBuildCols: a join told which positions of its build rows hold
// values (BuildCols) gives the rows of one holding them whole, for every
// kind and build side, in memory and spilled; and holding only those, a
// build side too big for the budget at its full width fits (the held
// bytes are what is charged).
func TestJoinBuildCols(t *testing.T) {
	left := wideRows(600, 150, "l")
	right := wideRows(500, 200, "r")
	for _, kind := range []JoinKind{InnerJoin, LeftJoin, RightJoin, FullJoin} {
		for _, buildLeft := range []bool{false, true} {
			if buildLeft && kind != LeftJoin {
				continue
			}
			spec := JoinSpec{Kind: kind, LeftWidth: 12, RightWidth: 12, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq, BuildLeft: buildLeft,
				Cond: func(row []any) (bool, error) {
					return len(row[5].(string))%2 == 0 || row[17] == nil || len(row[17].(string))%3 != 0, nil
				}}
			var c bool
			spec.Budget = NewBudget(0)
			want := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec))
			spec.BuildCols = []int{0, 5}
			if got := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec)); !slices.Equal(got, want) {
				t.Errorf("kind %d build left %v: held columns give %d rows, whole rows %d", kind, buildLeft, len(got), len(want))
			}
			area := &dirArea{dir: t.TempDir()}
			spec.Budget, spec.Spill = NewBudget(4<<10), area
			if got := collect(t, Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec)); !slices.Equal(got, want) {
				t.Errorf("kind %d build left %v: held columns spilled give %d rows, whole rows %d", kind, buildLeft, len(got), len(want))
			}
			if area.acquired == 0 {
				t.Errorf("kind %d: the join did not spill", kind)
			}
			area.check(t, fmt.Sprintf("kind %d", kind))
		}
	}
	// 500 build rows of width 12 charge about 500 * 240 bytes; of the two
	// held values, about 500 * 120.
	spec := JoinSpec{Kind: InnerJoin, LeftWidth: 12, RightWidth: 12, LeftKey: intKey, RightKey: intKey, Hash: hash, KeyEqual: eq,
		Budget: NewBudget(90_000), Name: "the build side"}
	run := func() error {
		var c bool
		for _, err := range Rows(context.Background(), Join(context.Background(), rowsOf(&c, left...), rowsOf(&c, right...), spec)) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := run(); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("whole rows: %v, want the budget error", err)
	}
	spec.BuildCols = []int{0, 5}
	if err := run(); err != nil {
		t.Errorf("held columns: %v", err)
	}
}

// TestRowBytesCountsDecimals: a DECIMAL value (an exact number's text)
// is charged its bytes, as a string is.
func TestRowBytesCountsDecimals(t *testing.T) {
	text := "12345678901234567890.25"
	if s, d := RowBytes([]any{text}), RowBytes([]any{sqltypes.Decimal(text)}); d != s || d <= RowBytes([]any{nil}) {
		t.Errorf("RowBytes: decimal %d, string %d, NULL %d", d, s, RowBytes([]any{nil}))
	}
}
