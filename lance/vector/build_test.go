package vector

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

func randVecs(n, dim int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, n*dim)
	centres := make([]float32, 8*dim)
	for i := range centres {
		centres[i] = float32(r.Float64()*20 - 10)
	}
	for i := range n {
		c := r.IntN(8)
		for j := range dim {
			out[i*dim+j] = centres[c*dim+j] + float32(r.NormFloat64())
		}
	}
	return out
}

// TestSQRoundTrip: codes decode to within one quantization step below the
// value (the quantizer truncates), values outside the trained bounds
// saturate, the codes are what the search side computes for a query of
// the same values, and a zero range encodes everything as 0.
func TestSQRoundTrip(t *testing.T) {
	data := randVecs(2000, 16, 3)
	q := trainSQ(data[:1000*16])
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, x := range data[:1000*16] {
		lo, hi = min(lo, x), max(hi, x)
	}
	if q.start != float64(lo) || q.end != float64(hi) {
		t.Fatalf("bounds [%v, %v], sample's [%v, %v]", q.start, q.end, lo, hi)
	}
	step := (q.end - q.start) / 255
	codes := make([]byte, len(data))
	q.encode(data, codes)
	back := make([]float32, len(data))
	q.decode(codes, back)
	for i, x := range data {
		xv := float64(x)
		switch {
		case xv <= q.start:
			if codes[i] != 0 {
				t.Fatalf("value %v below the bounds: code %d", x, codes[i])
			}
		case xv >= q.end:
			if codes[i] != 255 {
				t.Fatalf("value %v above the bounds: code %d", x, codes[i])
			}
		default:
			if e := xv - float64(back[i]); e < -1e-6*math.Abs(xv) || e > step*(1+1e-6) {
				t.Fatalf("value %v decodes to %v: error %v, step %v", x, back[i], e, step)
			}
		}
	}
	if got := scaleToU8(data, q.start, q.end); !bytes.Equal(got, codes) {
		t.Errorf("the build's codes differ from the search side's scaling of the same values")
	}
	z := sqQuantizer{start: 2, end: 2}
	zc := []byte{9, 9}
	z.encode([]float32{1, 3}, zc)
	if zc[0] != 0 || zc[1] != 0 {
		t.Errorf("zero range codes %v", zc)
	}
	nan := []byte{9}
	q.encode([]float32{float32(math.NaN())}, nan)
	if nan[0] != 0 {
		t.Errorf("NaN code %d", nan[0])
	}
}

func testGraph(t *testing.T, n, dim int, p hnswParams, seed uint64) (*hnswGraph, []float32, func(a, b uint32) float32) {
	t.Helper()
	data := randVecs(n, dim, 5)
	dist := func(a, b uint32) float32 {
		return L2Squared(data[int(a)*dim:int(a+1)*dim], data[int(b)*dim:int(b+1)*dim])
	}
	g, err := buildHNSW(context.Background(), n, dist, p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return g, data, dist
}

// TestHNSWInvariants: node 0 lives on every level; no list holds more than
// 2m (bottom) or m (above) neighbours, the node itself or a duplicate; a
// neighbour on level l lives on level l; lists are nearest first with the
// true distances; every node is reachable from the entry point on the
// bottom level; upper levels thin out about m-fold; and the reader's search
// over the graph finds the true neighbours.
func TestHNSWInvariants(t *testing.T) {
	const n, dim = 3000, 16
	p := hnswParams{m: 12, efc: 100, maxLevel: DefaultHNSWMaxLevel}
	g, data, dist := testGraph(t, n, dim, p, 7)
	if len(g.adj[0]) != p.maxLevel {
		t.Fatalf("entry point on %d levels, want %d", len(g.adj[0]), p.maxLevel)
	}
	for i, levels := range g.adj {
		if len(levels) == 0 || len(levels) > p.maxLevel {
			t.Fatalf("node %d on %d levels", i, len(levels))
		}
		for l, list := range levels {
			mmax := p.m
			if l == 0 {
				mmax = 2 * p.m
			}
			if len(list) > mmax {
				t.Fatalf("node %d level %d: %d neighbours > %d", i, l, len(list), mmax)
			}
			seen := map[uint32]bool{}
			for k, e := range list {
				if int(e.id) == i || seen[e.id] {
					t.Fatalf("node %d level %d: self or duplicate edge %d", i, l, e.id)
				}
				seen[e.id] = true
				if len(g.adj[e.id]) <= l {
					t.Fatalf("node %d level %d: neighbour %d lives on %d levels", i, l, e.id, len(g.adj[e.id]))
				}
				if e.dist != dist(uint32(i), e.id) {
					t.Fatalf("node %d: stored distance %v, true %v", i, e.dist, dist(uint32(i), e.id))
				}
				if k > 0 && list[k-1].dist > e.dist {
					t.Fatalf("node %d level %d: neighbours not nearest first", i, l)
				}
			}
			if l == 0 && len(list) == 0 {
				t.Fatalf("node %d has no bottom-level neighbour", i)
			}
		}
	}
	reached := make([]bool, n)
	queue := []uint32{0}
	reached[0] = true
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range g.adj[x][0] {
			if !reached[e.id] {
				reached[e.id] = true
				queue = append(queue, e.id)
			}
		}
	}
	// Pruning drops directed edges, so a node can lose every in-edge (the
	// reference's graphs have such nodes too); they must stay rare.
	lost := 0
	for _, ok := range reached {
		if !ok {
			lost++
		}
	}
	t.Logf("%d of %d nodes unreachable from the entry point on the bottom level", lost, n)
	if lost > n/200 {
		t.Errorf("%d of %d nodes unreachable from the entry point", lost, n)
	}
	counts := g.levelCounts(p.maxLevel)
	if counts[0] != n || counts[1] < n/(3*p.m) || counts[1] > 3*n/p.m {
		t.Errorf("level counts %v: level 1 should hold about n/m = %d", counts, n/p.m)
	}
	// the reader's graph over the same lists, searched as a query would be
	rg := &graph{bottom: make([][]uint32, n), levels: make([]map[uint32][]uint32, p.maxLevel)}
	for l := 1; l < p.maxLevel; l++ {
		rg.levels[l] = map[uint32][]uint32{}
	}
	for i, levels := range g.adj {
		for l, list := range levels {
			ids := make([]uint32, len(list))
			for k, e := range list {
				ids[k] = e.id
			}
			if l == 0 {
				rg.bottom[i] = ids
			} else {
				rg.levels[l][uint32(i)] = ids
			}
		}
	}
	allowed := make([]bool, n)
	for i := range allowed {
		allowed[i] = true
	}
	deg := 0
	for _, levels := range g.adj {
		deg += len(levels[0])
	}
	t.Logf("mean bottom-level degree %.1f", float64(deg)/n)
	// queries: data rows nudged off the data
	r := rand.New(rand.NewPCG(11, 1))
	var hit, total int
	for qi := range 50 {
		q := append([]float32(nil), data[qi*37*dim:(qi*37+1)*dim]...)
		for j := range q {
			q[j] += float32(r.NormFloat64() * 0.3)
		}
		d := func(x uint32) float32 { return L2Squared(q, data[int(x)*dim:int(x+1)*dim]) }
		got := rg.search(p.maxLevel, d, 40, allowed)
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i
		}
		sort.Slice(ids, func(a, b int) bool { return d(uint32(ids[a])) < d(uint32(ids[b])) })
		want := map[uint32]bool{}
		for _, id := range ids[:10] {
			want[uint32(id)] = true
		}
		for _, nd := range got[:min(10, len(got))] {
			if want[nd.id] {
				hit++
			}
		}
		total += 10
	}
	rc := float64(hit) / float64(total)
	t.Logf("recall@10 of the graph at ef 40: %.3f", rc)
	if rc < 0.95 {
		t.Errorf("recall@10 of the graph at ef 40: %.3f", rc)
	}
}

// TestHNSWDeterministic: one seed, one graph; another seed draws other
// levels.
func TestHNSWDeterministic(t *testing.T) {
	p := hnswParams{m: 8, efc: 40, maxLevel: DefaultHNSWMaxLevel}
	a, _, _ := testGraph(t, 1500, 8, p, 1)
	b, _, _ := testGraph(t, 1500, 8, p, 1)
	c, _, _ := testGraph(t, 1500, 8, p, 2)
	same := func(x, y *hnswGraph) bool {
		if len(x.adj) != len(y.adj) {
			return false
		}
		for i := range x.adj {
			if len(x.adj[i]) != len(y.adj[i]) {
				return false
			}
			for l := range x.adj[i] {
				if len(x.adj[i][l]) != len(y.adj[i][l]) {
					return false
				}
				for k := range x.adj[i][l] {
					if x.adj[i][l][k] != y.adj[i][l][k] {
						return false
					}
				}
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("two builds with seed 1 differ")
	}
	if same(a, c) {
		t.Error("seeds 1 and 2 built the same graph")
	}
}

func vectorDataset(t testing.TB, n, dim int) *dataset.Dataset {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.FixedSizeListOf(int32(dim), arrow.PrimitiveTypes.Float32), Nullable: true},
	}, nil)
	mem := memory.DefaultAllocator
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	data := randVecs(n, dim, 9)
	for i := range n {
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
	}
	lb := rb.Field(1).(*array.FixedSizeListBuilder)
	for range n {
		lb.Append(true)
	}
	lb.ValueBuilder().(*array.Float32Builder).AppendValues(data, nil)
	rec := rb.NewRecordBatch()
	defer rec.Release()
	ds, err := dataset.CreateWithData(ctx, st, "", schema, []arrow.RecordBatch{rec}, dataset.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestBuildDeterministicFiles: for each new type, two builds with one seed
// write the same bytes, and the index opens with its type and answers k
// rows.
func TestBuildDeterministicFiles(t *testing.T) {
	ctx := context.Background()
	ds := vectorDataset(t, 3000, 16)
	for _, typ := range []string{"IVF_SQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_HNSW_FLAT"} {
		var files [2]map[string][]byte
		for k := range 2 {
			o := BuildOptions{Type: typ, Metric: L2, NumPartitions: 4, NumSubVectors: 4, Seed: 3, Name: "v_idx"}
			if strings.Contains(typ, "HNSW") {
				o.M, o.EfConstruction = 10, 40
			}
			meta, _, err := Build(ctx, ds, "v", o)
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			files[k] = map[string][]byte{}
			for _, f := range meta.Files {
				b, err := ds.Store().Read(ctx, path.Join(ds.Dir(), "_indices", meta.UUID, f.Path))
				if err != nil {
					t.Fatal(err)
				}
				files[k][f.Path] = b
			}
			if k == 1 {
				ds2, err := ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, nil)
				if err != nil {
					t.Fatal(err)
				}
				ds = ds2
				ix, err := Open(ctx, ds, "v_idx")
				if err != nil {
					t.Fatal(err)
				}
				if ix.Type() != typ || ix.HNSW() != strings.Contains(typ, "HNSW") {
					t.Errorf("%s opened as %s", typ, ix.Type())
				}
				res, err := ix.Search(ctx, Query{Vector: randVecs(1, 16, 9), K: 7, NProbes: 2})
				if err != nil || len(res.Hits) != 7 {
					t.Errorf("%s search: %v, %v", typ, res, err)
				}
			}
		}
		for name, b := range files[0] {
			if !bytes.Equal(b, files[1][name]) {
				t.Errorf("%s: %s differs between two builds with one seed", typ, name)
			}
		}
	}
}

// TestBuildUnbuiltTypes: a type Build does not write fails as unsupported
// naming the types it does; HNSW parameters on other types are rejected.
func TestBuildUnbuiltTypes(t *testing.T) {
	ctx := context.Background()
	ds := vectorDataset(t, 100, 8)
	for _, typ := range []string{"IVF_RQ", "IVF_HNSW_RQ", "HNSW"} {
		_, _, err := Build(ctx, ds, "v", BuildOptions{Type: typ})
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), builtTypes) {
			t.Errorf("%s: %v", typ, err)
		}
	}
	_, _, err := Build(ctx, ds, "v", BuildOptions{Type: "IVF_PQ", M: 16})
	if !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("m on IVF_PQ: %v", err)
	}
	_, _, err = Build(ctx, ds, "v", BuildOptions{Type: "IVF_HNSW_SQ", M: 1})
	if !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("m = 1: %v", err)
	}
}

// TestBuildMemoryBudget: the HNSW graph's edges count against MaxMemory: a
// budget that holds 3,000 SQ codes but not their graphs fails the HNSW
// build with a typed error and lets IVF_SQ through.
func TestBuildMemoryBudget(t *testing.T) {
	ctx := context.Background()
	ds := vectorDataset(t, 3000, 16)
	const budget = 1 << 20
	if _, _, err := Build(ctx, ds, "v", BuildOptions{Type: "IVF_SQ", NumPartitions: 2, MaxMemory: budget}); err != nil {
		t.Fatalf("IVF_SQ within %d bytes: %v", budget, err)
	}
	_, _, err := Build(ctx, ds, "v", BuildOptions{Type: "IVF_HNSW_SQ", NumPartitions: 2, MaxMemory: budget})
	if !errors.Is(err, ErrInvalidQuery) || !strings.Contains(err.Error(), "memory budget") {
		t.Errorf("IVF_HNSW_SQ within %d bytes: %v", budget, err)
	}
}

// TestHNSWCanceled: a canceled context stops a graph build with its error.
func TestHNSWCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	dist := func(a, b uint32) float32 { calls++; return float32(math.Abs(float64(a) - float64(b))) }
	_, err := buildHNSW(ctx, 5000, dist, hnswParams{m: 8, efc: 20, maxLevel: DefaultHNSWMaxLevel}, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled build: %v", err)
	}
	if calls > 256*20*16*4 {
		t.Errorf("%d distance calls after the cancel", calls)
	}
}
