package vector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/vector"
	"github.com/lancecat/lancecat/storage"
)

// mulberry32 and the row generator mirror conformance/peer/vector.mjs so
// both sides know the same seeded clustered vectors.
func rng(seed uint32) func() float64 {
	a := seed
	return func() float64 {
		a += 0x6d2b79f5
		t := a
		t = (t ^ (t >> 15)) * (t | 1)
		t ^= t + (t^(t>>7))*(t|61)
		return float64(t^(t>>14)) / 4294967296
	}
}

func genRows(n, dim int, seed uint32) [][]float32 {
	r := rng(seed)
	centres := make([][]float64, 16)
	for c := range centres {
		for range dim {
			centres[c] = append(centres[c], r()*20-10)
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[int(math.Floor(r()*16))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(c[j] + (r()*2 - 1))
		}
		out[i] = v
	}
	return out
}

type peerHits struct {
	IDs   []int64   `json:"ids"`
	Dists []float64 `json:"dists"`
}

func lastJSON(t testing.TB, out []byte, v any) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), v); err != nil {
		t.Fatalf("peer output %s: %v", out, err)
	}
}

func openDS(t testing.TB, dir string) *dataset.Dataset {
	t.Helper()
	st, err := storage.Open(context.Background(), dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Open(context.Background(), st, "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rowIDs maps hits to the id column: the peer's tables are written in id
// order, one fragment per fragRows rows, so id = frag*fragRows + offset.
func hitIDs(hits []vector.Hit, fragRows int) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = int64(h.Row>>32)*int64(fragRows) + int64(h.Row&0xffffffff)
	}
	return out
}

func sameIDsUpToTies(t *testing.T, label string, got []int64, gotD []float32, want peerHits) {
	t.Helper()
	if len(got) != len(want.IDs) {
		t.Errorf("%s: %d hits %v, peer %d %v", label, len(got), got, len(want.IDs), want.IDs)
		return
	}
	// Rows strictly nearer than the k-th distance must be the same; rows at
	// the k-th distance are ties either side may pick.
	last := want.Dists[len(want.Dists)-1]
	tol := 1e-4 * math.Max(1, math.Abs(last))
	inner := func(ids []int64, d func(int) float64) map[int64]bool {
		m := map[int64]bool{}
		for i, id := range ids {
			if d(i) < last-tol {
				m[id] = true
			}
		}
		return m
	}
	gi := inner(got, func(i int) float64 { return float64(gotD[i]) })
	wi := inner(want.IDs, func(i int) float64 { return want.Dists[i] })
	ok := len(gi) == len(wi) && math.Abs(float64(gotD[len(gotD)-1])-last) <= tol
	for id := range wi {
		ok = ok && gi[id]
	}
	if ok {
		return
	}
	t.Errorf("%s: ids %v (dists %v), peer %v (dists %v)", label, got, gotD, want.IDs, want.Dists)
}

func TestPeerIndexSearchMatches(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const n, dim, fragRows = 3000, 16, 1000
	root := t.TempDir()
	type tc struct {
		typ, metric string
		extra       string
	}
	cases := []tc{
		{"IVF_FLAT", "l2", ""}, {"IVF_FLAT", "cosine", ""}, {"IVF_FLAT", "dot", ""},
		{"IVF_PQ", "l2", `,"numSubVectors":4`}, {"IVF_PQ", "cosine", `,"numSubVectors":4`}, {"IVF_PQ", "dot", `,"numSubVectors":4`},
		{"IVF_HNSW_SQ", "l2", ""}, {"IVF_HNSW_SQ", "cosine", ""},
		{"IVF_HNSW_PQ", "l2", `,"numSubVectors":4`},
	}
	data := genRows(n, dim, 7)
	queries := [][]float32{data[5], data[1234], data[2999]}
	// a query off the data, too
	off := make([]float32, dim)
	for j := range off {
		off[j] = float32(j%3) - 1
	}
	queries = append(queries, off)
	for _, c := range cases {
		name := c.typ + "_" + c.metric
		t.Run(name, func(t *testing.T) {
			_, err := peer.Run(ctx, t, "vector.mjs", "create", root, name, fmt.Sprint(n), fmt.Sprint(dim), "7", fmt.Sprint(fragRows))
			if err != nil {
				t.Fatal(err)
			}
			if _, err = peer.Run(ctx, t, "vector.mjs", "index", root, name, fmt.Sprintf(`{"type":%q,"metric":%q,"numPartitions":8%s}`, c.typ, c.metric, c.extra)); err != nil {
				t.Fatal(err)
			}
			ds := openDS(t, filepath.Join(root, name+".lance"))
			ix, err := vector.Open(ctx, ds, "v_idx")
			if err != nil {
				t.Fatal(err)
			}
			if ix.Type() != c.typ || ix.Metric().String() != c.metric || ix.Dimension() != dim || ix.Partitions() != 8 {
				t.Fatalf("opened %s %s dim %d parts %d", ix.Type(), ix.Metric(), ix.Dimension(), ix.Partitions())
			}
			m, _ := vector.ParseMetric(c.metric)
			type spec struct {
				q               []float32
				nprobes, refine int
				exact           bool
			}
			var specs []spec
			var reqs []map[string]any
			for _, q := range queries {
				for _, p := range []struct{ nprobes, refine int }{{1, 0}, {2, 0}, {3, 5}} {
					specs = append(specs, spec{q, p.nprobes, p.refine, false})
					reqs = append(reqs, map[string]any{"q": q, "k": 10, "metric": c.metric, "nprobes": p.nprobes, "refine": p.refine})
				}
				specs = append(specs, spec{q: q, exact: true})
				reqs = append(reqs, map[string]any{"q": q, "k": 10, "metric": c.metric, "exact": true})
			}
			want := peerSearch(ctx, t, root, name, reqs)
			for i, sp := range specs {
				var hits []vector.Hit
				label := fmt.Sprintf("query %d nprobes=%d refine=%d", i, sp.nprobes, sp.refine)
				if sp.exact {
					label = fmt.Sprintf("query %d exact", i)
					hits, err = vector.Exact(ctx, ds, vector.ExactQuery{Column: "v", Vector: sp.q, K: 10, Metric: m})
				} else {
					var res *vector.Result
					res, err = ix.Search(ctx, vector.Query{Vector: sp.q, K: 10, NProbes: sp.nprobes, MaxNProbes: sp.nprobes, RefineFactor: sp.refine})
					if res != nil {
						hits = res.Hits
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				sameIDsUpToTies(t, label, hitIDs(hits, fragRows), dists(hits), want[i])
			}
		})
	}
}

func dists(h []vector.Hit) []float32 {
	var d []float32
	for _, x := range h {
		d = append(d, x.Dist)
	}
	return d
}

// peerSearch runs a batch of searches in one peer process.
func peerSearch(ctx context.Context, t *testing.T, root, table string, reqs []map[string]any) []peerHits {
	t.Helper()
	qj, _ := json.Marshal(reqs)
	out, err := peer.Run(ctx, t, "vector.mjs", "search", root, table, string(qj))
	if err != nil {
		t.Fatal(err)
	}
	var got []peerHits
	lastJSON(t, out, &got)
	if len(got) != len(reqs) {
		t.Fatalf("peer answered %d of %d searches", len(got), len(reqs))
	}
	return got
}

func ids(hits []vector.Hit, fragRows int) map[int64]bool {
	m := map[int64]bool{}
	for _, id := range hitIDs(hits, fragRows) {
		m[id] = true
	}
	return m
}

// TestPeerIndexDeltasPrefilterDeletes: rows appended after the index are
// found (searched exactly, then through a second delta segment after the
// peer's optimize); deleted rows never come back; a prefilter returns
// min(k, matches) rows, as the peer does.
func TestPeerIndexDeltasPrefilterDeletes(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const n, dim, fragRows = 2000, 8, 1000
	root := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if _, err := peer.Run(ctx, t, "vector.mjs", args...); err != nil {
			t.Fatal(err)
		}
	}
	run("create", root, "t", fmt.Sprint(n), fmt.Sprint(dim), "11", fmt.Sprint(fragRows))
	run("index", root, "t", `{"type":"IVF_PQ","metric":"l2","numPartitions":4,"numSubVectors":2}`)
	// 1000 more rows, ids 2000.., in a fragment the index does not cover
	run("append", root, "t", "1000", fmt.Sprint(dim), "12", "2000")
	appended := genRows(1000, dim, 12)
	ds := openDS(t, filepath.Join(root, "t.lance"))
	ix, err := vector.Open(ctx, ds, "v_idx")
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Uncovered(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("uncovered fragments %v, want [2]", got)
	}
	q := appended[17]
	res, err := ix.Search(ctx, vector.Query{Vector: q, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Hits, fragRows); len(got) == 0 || got[0] != 2017 || res.Hits[0].Dist != 0 {
		t.Fatalf("appended row 2017 not found first: %v %v", got, dists(res.Hits))
	}

	// prefilter: only rows with id%10 == 3 (cat = 3); k=20 within 300 matches,
	// and a 4-row filter with k=20 returns exactly those 4
	pre := roaring64.New()
	for id := 0; id < 3000; id++ {
		if id%10 == 3 {
			pre.Add(uint64(id/fragRows)<<32 | uint64(id%fragRows))
		}
	}
	res, err = ix.Search(ctx, vector.Query{Vector: q, K: 20, NProbes: 1, MaxNProbes: 0, Prefilter: pre})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 20 {
		t.Fatalf("prefiltered search: %d rows, want 20", len(res.Hits))
	}
	for id := range ids(res.Hits, fragRows) {
		if id%10 != 3 {
			t.Errorf("row %d does not pass the prefilter", id)
		}
	}
	small := roaring64.New()
	for _, id := range []int{3, 1503, 1999, 2500} {
		small.Add(uint64(id/fragRows)<<32 | uint64(id%fragRows))
	}
	res, err = ix.Search(ctx, vector.Query{Vector: q, K: 20, NProbes: 1, Prefilter: small})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Hits, fragRows); len(got) != 4 || !got[3] || !got[1503] || !got[1999] || !got[2500] {
		t.Errorf("4-row prefilter returned %v", hitIDs(res.Hits, fragRows))
	}
	want := peerSearch(ctx, t, root, "t", []map[string]any{{"q": q, "k": 20, "where": "cat = 3", "nprobes": 1}})
	if len(want[0].IDs) != 20 {
		t.Errorf("peer prefiltered search: %d rows, want 20", len(want[0].IDs))
	}

	// delete the nearest rows; they never come back
	run("delete", root, "t", "id = 2017 OR id = 5")
	ds = openDS(t, filepath.Join(root, "t.lance"))
	ix, err = vector.Open(ctx, ds, "v_idx")
	if err != nil {
		t.Fatal(err)
	}
	for _, qv := range [][]float32{q, genRows(n, dim, 11)[5]} {
		res, err = ix.Search(ctx, vector.Query{Vector: qv, K: 50, RefineFactor: 2})
		if err != nil {
			t.Fatal(err)
		}
		got := ids(res.Hits, fragRows)
		if got[2017] || got[5] || len(res.Hits) != 50 {
			t.Errorf("after delete: %d rows, holds 2017: %v, 5: %v", len(res.Hits), got[2017], got[5])
		}
	}

	// the peer's optimize folds the appended fragment into a delta segment
	run("optimize", root, "t")
	ds = openDS(t, filepath.Join(root, "t.lance"))
	ix, err = vector.Open(ctx, ds, "v_idx")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after optimize: %d segments, uncovered %v", ix.Segments(), ix.Uncovered())
	q2 := appended[40]
	res, err = ix.Search(ctx, vector.Query{Vector: q2, K: 10, NProbes: 2, MaxNProbes: 2})
	if err != nil {
		t.Fatal(err)
	}
	want = peerSearch(ctx, t, root, "t", []map[string]any{{"q": q2, "k": 10, "nprobes": 2}})
	// row addresses changed if optimize compacted: compare by the id column
	got := idsByColumn(ctx, t, ds, res.Hits)
	sameIDsUpToTies(t, "after optimize", got, dists(res.Hits), want[0])
}

// idsByColumn reads the id column of the hits.
func idsByColumn(ctx context.Context, t *testing.T, ds *dataset.Dataset, hits []vector.Hit) []int64 {
	t.Helper()
	var rows []uint64
	for _, h := range hits {
		rows = append(rows, h.Row)
	}
	b, err := ds.Take(ctx, rows, dataset.TakeOptions{Columns: []string{"id"}, WithRowAddress: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	byRow := map[uint64]int64{}
	idc := b.Column(0).(*array.Int64)
	ac := b.Column(1).(*array.Uint64)
	for i := 0; i < int(b.NumRows()); i++ {
		byRow[ac.Value(i)] = idc.Value(i)
	}
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = byRow[h.Row]
	}
	return out
}
