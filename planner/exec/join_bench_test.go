package exec

import (
	"context"
	"math/rand/v2"
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

// BenchmarkHashJoinIntKeys: 1,500,000 probe rows against 150,000 build
// rows on one BIGINT key, in shuffled order, one match each (TPC-H Q13's
// orders against customer at SF 1): the hash table and the build rows
// are far bigger than the cache, so each probe's memory touches count.
// The key functions and KeyEqual are the planner's (a fresh key slice per
// row; NULL and int64 checks first).
func BenchmarkHashJoinIntKeys(b *testing.B) {
	const nBuild, nProbe = 150_000, 1_500_000
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(nBuild)
	build := make([][]any, nBuild)
	for i := range build {
		build[i] = []any{int64(perm[i]) * 7, "customer" + strconv.Itoa(i)}
	}
	probe := make([][]any, nProbe)
	for i := range probe {
		probe[i] = []any{int64(rng.IntN(nBuild)) * 7, int64(i)}
	}
	key := func(row []any) ([]any, error) { return []any{row[0]}, nil }
	h := func(k []any) (uint64, bool) {
		v, ok := k[0].(int64)
		return uint64(v) * 0x9e3779b97f4a7c15, ok
	}
	eq := func(l, r []any) bool {
		if l[0] == nil || r[0] == nil {
			return false
		}
		if a, ok := l[0].(int64); ok {
			if b, ok := r[0].(int64); ok {
				return a == b
			}
		}
		return l[0] == r[0]
	}
	b.ReportAllocs()
	for b.Loop() {
		var lc, rc bool
		spec := JoinSpec{Kind: InnerJoin, LeftWidth: 2, RightWidth: 2, LeftKey: key, RightKey: key, Hash: h, KeyEqual: eq, Budget: NewBudget(0),
			IntKey: true}
		n := 0
		for _, err := range Rows(context.Background(), Join(context.Background(), rowsOf(&lc, probe...), rowsOf(&rc, build...), spec)) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != nProbe {
			b.Fatalf("%d rows", n)
		}
	}
}
