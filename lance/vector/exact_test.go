package vector

import (
	"context"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// bruteTop is the k allowed, live rows nearest q by Metric.Distance, ties by
// row address: what Exact must return.
func bruteTop(t *testing.T, vecs map[uint64][]float32, q []float32, k int, allowed func(uint64) bool) []Hit {
	t.Helper()
	var all []Hit
	for a, v := range vecs {
		if allowed(a) {
			all = append(all, Hit{a, L2.Distance(q, v)})
		}
	}
	sortHits(all)
	return all[:min(k, len(all))]
}

// TestExactPrefilterTakesAllowedRows: a selective prefilter (rows far
// apart, a handful of rows) is served by reading only the allowed rows'
// vectors (Take), a broad or dense one by the scan; both return the
// brute-force top k over the allowed live rows, and deleted rows never come
// back even when the prefilter names them.
func TestExactPrefilterTakesAllowedRows(t *testing.T) {
	ctx := context.Background()
	const n, dim = 20000, 32
	ds := vectorDataset(t, n, dim)
	deleted := []uint64{3, 13, 23, 1003, 19993}
	ds, err := ds.Delete(ctx, deleted)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []uint64
	for a := range uint64(n) {
		addrs = append(addrs, a)
	}
	vecs, err := TakeVectors(ctx, ds, "v", addrs)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range deleted {
		delete(vecs, a)
	}
	q := randVecs(1, dim, 77)
	sparse, tenth, few, most := roaring64.New(), roaring64.New(), roaring64.New(), roaring64.New()
	for a := uint64(3); a < n; a += 211 {
		sparse.Add(a)
	}
	sparse.Add(19993)
	for a := uint64(3); a < n; a += 10 {
		tenth.Add(a)
	}
	few.AddMany([]uint64{3, 13, 500, 9000, 19993})
	for a := range uint64(n) {
		if a%10 != 0 {
			most.Add(a)
		}
	}
	frag := ds.Fragments()[0]
	// every tenth row of 768-float vectors is read alone: 9 rows of 3 KiB
	// between two allowed ones
	if _, took, err := takeRanges(ctx, ds, tenth, frag.ID, frag.PhysicalRows, 768*4); err != nil || !took {
		t.Fatalf("every tenth row of 768-float vectors: served by Take = %v (%v)", took, err)
	}
	for _, c := range []struct {
		name string
		pre  *roaring64.Bitmap
		take bool
	}{{"sparse", sparse, true}, {"few", few, true}, {"tenth", tenth, false}, {"most", most, false}} {
		_, took, err := takeRanges(ctx, ds, c.pre, frag.ID, frag.PhysicalRows, dim*4)
		if err != nil {
			t.Fatal(err)
		}
		if took != c.take {
			t.Fatalf("%s: served by Take = %v, want %v", c.name, took, c.take)
		}
		got, err := Exact(ctx, ds, ExactQuery{Column: "v", Vector: q, K: 10, Metric: L2, Prefilter: c.pre})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteTop(t, vecs, q, 10, func(a uint64) bool { _, live := vecs[a]; return live && c.pre.Contains(a) })
		if !slices.Equal(got, want) {
			t.Fatalf("%s: Exact = %v\nwant %v", c.name, got, want)
		}
		for _, h := range got {
			if slices.Contains(deleted, h.Row) {
				t.Fatalf("%s: deleted row %d came back", c.name, h.Row)
			}
		}
	}
}
