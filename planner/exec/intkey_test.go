package exec

// Tests of the int64 key path of hash joins (JoinSpec.IntKey): it must
// give exactly the rows, in the same order, of the path through KeyEqual.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// numKeyHash hashes a one-number key by its float64 value, as the
// planner's hashKey64 does (an int64 and a float64 of one value collide).
func numKeyHash(k []any) (uint64, bool) {
	switch v := k[0].(type) {
	case int64:
		return math.Float64bits(float64(v)) * 0xff51afd7ed558ccd, true
	case float64:
		return math.Float64bits(v+0) * 0xff51afd7ed558ccd, true
	}
	return 0, false
}

// numKeyEqual is = over int64 and float64 keys; two int64s compare with
// == (what IntKey promises).
func numKeyEqual(l, r []any) bool {
	if l[0] == nil || r[0] == nil {
		return false
	}
	if a, ok := l[0].(int64); ok {
		if b, ok := r[0].(int64); ok {
			return a == b
		}
	}
	f := func(v any) float64 {
		if i, ok := v.(int64); ok {
			return float64(i)
		}
		return v.(float64)
	}
	return f(l[0]) == f(r[0])
}

// randomKeyRows makes n rows {key, tag}: keys from a few values (so
// duplicates), some NULL, and when floats some float64 keys (integral
// ones equal to an int64 key, and 2.5 equal to none). Large keys past
// 2^53 hash alike as float64 but differ as int64.
func randomKeyRows(rng *rand.Rand, n int, floats bool, tag string) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k any
		switch r := rng.IntN(20); {
		case r < 2:
			k = nil
		case r < 4 && floats:
			k = []float64{2.5, 3, 7}[rng.IntN(3)]
		case r < 5:
			k = int64(1<<60) + int64(rng.IntN(3)) // collide in the hash
		default:
			k = int64(rng.IntN(12))
		}
		rows[i] = []any{k, fmt.Sprint(tag, i)}
	}
	return rows
}

func joinAll(t *testing.T, left, right [][]any, spec JoinSpec) []string {
	t.Helper()
	var lc, rc bool
	var out []string
	for r, err := range Rows(context.Background(), Join(context.Background(), rowsOf(&lc, left...), rowsOf(&rc, right...), spec)) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(r))
	}
	return out
}

func TestJoinIntKeyMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	kinds := []JoinKind{InnerJoin, LeftJoin, RightJoin, FullJoin}
	intRuns, spills := 0, 0
	for trial := range 120 {
		kind := kinds[trial%len(kinds)]
		buildLeft := trial%8 >= 4 && kind == LeftJoin
		spilled := trial%3 == 0
		leftFloats, rightFloats := trial%5 == 1, trial%7 == 2
		left := randomKeyRows(rng, 1+rng.IntN(300), leftFloats, "l")
		right := randomKeyRows(rng, 1+rng.IntN(300), rightFloats, "r")
		run := func(intKey bool) []string {
			spec := JoinSpec{Kind: kind, LeftWidth: 2, RightWidth: 2, LeftKey: intKey1, RightKey: intKey1,
				Hash: numKeyHash, KeyEqual: numKeyEqual, Budget: NewBudget(0), BuildLeft: buildLeft, IntKey: intKey}
			if trial%4 == 3 {
				// Pairs whose tags end alike (a residual condition).
				spec.Cond = func(row []any) (bool, error) {
					l, r := row[1].(string), row[3].(string)
					return l[len(l)-1] == r[len(r)-1] || l[len(l)-1] < '5', nil
				}
			}
			if spilled {
				spec.Budget = NewBudget(16 << 10)
				area := &dirArea{dir: t.TempDir()}
				spec.Spill = area
				defer func() { spills += area.acquired }()
			}
			return joinAll(t, left, right, spec)
		}
		want, got := run(false), run(true)
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				t.Fatalf("trial %d (kind %d, build left %v, spilled %v): IntKey gives %d rows, KeyEqual %d; they differ from row %d",
					trial, kind, buildLeft, spilled, len(got), len(want), i)
			}
		}
		if !leftFloats && !rightFloats {
			intRuns++
		}
	}
	if spills == 0 {
		t.Fatal("no trial spilled")
	}
	if intRuns < 50 {
		t.Fatalf("only %d trials with int64 keys on both sides", intRuns)
	}
}

// intKey1 is the key of a {key, tag} row, in a fresh slice.
func intKey1(row []any) ([]any, error) { return []any{row[0]}, nil }

// TestHashTableIntKeys: the dense int64 keys are taken only when every
// non-NULL build key is one int64.
func TestHashTableIntKeys(t *testing.T) {
	rows := []buildRow{{key: []any{int64(4)}, h: 1}, {key: []any{nil}, null: true}, {key: []any{int64(-2)}, h: 2}}
	if got := newHashTable(rows, true).ints; fmt.Sprint(got) != "[4 0 -2]" {
		t.Fatalf("ints %v", got)
	}
	if got := newHashTable(rows, false).ints; got != nil {
		t.Fatalf("ints without IntKey: %v", got)
	}
	rows = append(rows, buildRow{key: []any{3.0}, h: 3})
	if got := newHashTable(rows, true).ints; got != nil {
		t.Fatalf("ints with a float64 key: %v", got)
	}
}
