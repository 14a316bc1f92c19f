package exec

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkHashJoin: 100,000 probe rows against 10,000 build rows, one
// match each (the shape of a fact table joined to a dimension).
func BenchmarkHashJoin(b *testing.B) {
	build := make([][]any, 10_000)
	for i := range build {
		build[i] = []any{int64(i), "name" + strconv.Itoa(i)}
	}
	probe := make([][]any, 100_000)
	for i := range probe {
		probe[i] = []any{int64(i % 10_000), int64(i)}
	}
	key := func(row []any) ([]any, error) { return []any{row[0]}, nil }
	h := func(k []any) (uint64, bool) { return uint64(k[0].(int64)), true }
	eq := func(l, r []any) bool { return l[0] == r[0] }
	b.ReportAllocs()
	for b.Loop() {
		var lc, rc bool
		spec := JoinSpec{Kind: InnerJoin, LeftWidth: 2, RightWidth: 2, LeftKey: key, RightKey: key, Hash: h, KeyEqual: eq, Budget: NewBudget(0)}
		n := 0
		for _, err := range Rows(context.Background(), Join(context.Background(), rowsOf(&lc, probe...), rowsOf(&rc, build...), spec)) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(probe) {
			b.Fatalf("%d rows", n)
		}
	}
}

// BenchmarkHashJoinSpilled is BenchmarkHashJoin with a 256 KiB budget:
// the build side (about 1 MB) spills, and both sides are partitioned to
// files.
func BenchmarkHashJoinSpilled(b *testing.B) {
	build := make([][]any, 10_000)
	for i := range build {
		build[i] = []any{int64(i), "name" + strconv.Itoa(i)}
	}
	probe := make([][]any, 100_000)
	for i := range probe {
		probe[i] = []any{int64(i % 10_000), int64(i)}
	}
	key := func(row []any) ([]any, error) { return []any{row[0]}, nil }
	h := func(k []any) (uint64, bool) { return uint64(k[0].(int64)), true }
	eq := func(l, r []any) bool { return l[0] == r[0] }
	area := &dirArea{dir: b.TempDir()}
	b.ReportAllocs()
	for b.Loop() {
		var lc, rc bool
		spec := JoinSpec{Kind: InnerJoin, LeftWidth: 2, RightWidth: 2, LeftKey: key, RightKey: key, Hash: h, KeyEqual: eq,
			Budget: NewBudget(256 << 10), Spill: area}
		n := 0
		for _, err := range Rows(context.Background(), Join(context.Background(), rowsOf(&lc, probe...), rowsOf(&rc, build...), spec)) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(probe) {
			b.Fatalf("%d rows", n)
		}
	}
	if area.acquired == 0 {
		b.Fatal("did not spill")
	}
}
