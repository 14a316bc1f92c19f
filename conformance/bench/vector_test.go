package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

// The data and queries are the same in every run (both sides and runs on
// different days measure the same work), a larger set extends a smaller
// one, the rows are clustered (each near one of the centres, the centres far
// apart), and the queries are near the data but not rows of it.
func TestVectorDataDeterministic(t *testing.T) {
	const n, dim = 500, 16
	a, b := vecData(n, dim), vecData(n, dim)
	if !slices.Equal(a, b) {
		t.Fatal("two data sets of 500 x 16 differ")
	}
	if c := vecData(2*n, dim); !slices.Equal(c[:n*dim], a) {
		t.Error("the first 500 rows of 1,000 differ from a set of 500")
	}
	if d := vecData(n, 2*dim); slices.Equal(d[:dim], a[:dim]) {
		t.Error("another dimension draws the same first row")
	}
	q1, q2 := vecQueries(20, dim), vecQueries(20, dim)
	for i := range q1 {
		if !slices.Equal(q1[i], q2[i]) {
			t.Fatalf("query %d differs between calls", i)
		}
	}
	centres := vecCentres(vecRand(dim), dim)
	nearest := func(v []float32) float64 {
		best := math.Inf(1)
		for _, c := range centres {
			var s float64
			for j, x := range v {
				d := float64(x) - c[j]
				s += d * d
			}
			best = min(best, s)
		}
		return math.Sqrt(best)
	}
	// Noise of 0.4 per coordinate puts a row about 0.4 x sqrt(16) = 1.6
	// from its centre; centres N(0, 1) are about sqrt(2 x 16) = 5.7 apart.
	used := map[int]bool{}
	for i := 0; i < n; i++ {
		row := a[i*dim : (i+1)*dim]
		if d := nearest(row); d > 3 {
			t.Errorf("row %d is %.2f from the nearest centre, want a clustered row", i, d)
		}
		used[slices.IndexFunc(centres, func(c []float64) bool {
			var s float64
			for j, x := range row {
				s += (float64(x) - c[j]) * (float64(x) - c[j])
			}
			return math.Sqrt(s) <= 3
		})] = true
	}
	if len(used) < vecClusters/2 {
		t.Errorf("500 rows fall in %d clusters, want most of %d", len(used), vecClusters)
	}
	for i, q := range q1 {
		if d := nearest(q); d > 3 {
			t.Errorf("query %d is %.2f from the nearest centre", i, d)
		}
		for r := 0; r < n; r++ {
			if slices.Equal(q, a[r*dim:(r+1)*dim]) {
				t.Errorf("query %d is row %d", i, r)
			}
		}
	}
}

// vecTruth is the exact top 10 by L2 distance, ties by id, and the filtered
// one holds only rows of the filter's category: checked against a plain sort.
func TestVectorTruth(t *testing.T) {
	const n, dim = 3000, 8
	data := vecData(n, dim)
	qs := vecQueries(4, dim)
	all, filtered, err := vecTruth(context.Background(), data, dim, qs)
	if err != nil {
		t.Fatal(err)
	}
	for qi, q := range qs {
		type cand struct {
			d  float64
			id int64
		}
		var cs []cand
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < dim; j++ {
				d := float64(data[i*dim+j]) - float64(q[j])
				s += d * d
			}
			cs = append(cs, cand{s, int64(i)})
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].id < cs[j].id })
		var want, wantF []int64
		for _, c := range cs {
			if len(want) < vecK {
				want = append(want, c.id)
			}
			if len(wantF) < vecK && vecCat(int(c.id)) == vecFilterCat {
				wantF = append(wantF, c.id)
			}
		}
		if !slices.Equal(all[qi], want) || !slices.Equal(filtered[qi], wantF) {
			t.Errorf("query %d: top 10 %v / filtered %v, want %v / %v", qi, all[qi], filtered[qi], want, wantF)
		}
	}
	if r := recall(all, all); r != 1 {
		t.Errorf("recall of the truth itself = %v", r)
	}
	half := [][]int64{all[0][:5], all[1][:5], all[2][:5], all[3][:5]}
	if r := recall(half, all); r != 0.5 {
		t.Errorf("recall of half of each answer = %v, want 0.5", r)
	}
}

func TestVectorFlags(t *testing.T) {
	cfg, err := vectorFlags("1_000_000x128, 100000x768", "ivf_pq,IVF_HNSW_SQ", 100, 20, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Sets, []vecShape{{1000000, 128}, {100000, 768}}) || !slices.Equal(cfg.Types, []string{"IVF_PQ", "IVF_HNSW_SQ"}) {
		t.Errorf("parsed %+v", cfg)
	}
	for _, bad := range [][2]string{{"100x", "IVF_PQ"}, {"5x16", "IVF_PQ"}, {"1000x0", "IVF_PQ"}, {"1000x16", "IVF_BOGUS"}} {
		if _, err := vectorFlags(bad[0], bad[1], 100, 20, 0, 0); err == nil {
			t.Errorf("-vectors %s -types %s: no error", bad[0], bad[1])
		}
	}
	if _, err := vectorFlags("1000x16", "IVF_PQ", 0, 20, 0, 0); err == nil {
		t.Error("-queries 0: no error")
	}
}

// TestVectorSuiteTiny runs the vector suite through the command at 2,000 x
// 16 with 5 queries: every row is filled on lancecat's side, on the peer's
// for the types it builds, exact search finds the exact top 10 on both
// sides, and the table prints the JSON's numbers.
func TestVectorSuiteTiny(t *testing.T) {
	peer.Require(t)
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	var out bytes.Buffer
	args := []string{"-vectors", "2000x16", "-queries", "5", "-types", "IVF_PQ,IVF_SQ,IVF_HNSW_SQ", "-refine", "2",
		"-workdir", t.TempDir(), "-json", jsonPath, "-q", "vector"}
	if err := run(args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	ops := map[string]Row{}
	for _, r := range rep.Rows {
		ops[r.Operation] = r
		if r.Suite != "vector" || r.Size != "2,000 x 16" || r.Lancecat == nil {
			t.Errorf("row %+v: suite, size or lancecat's number missing", r)
			continue
		}
		lancecatOnly := strings.Contains(r.Operation, "IVF_SQ") || r.Operation == "load table (setup)"
		if lancecatOnly != (r.Peer == nil) {
			t.Errorf("row %q: peer %+v", r.Operation, r.Peer)
		}
		if r.Unit == UnitNanos && strings.HasSuffix(r.Operation, "top 10") && (r.Lancecat.N != 5 || r.Peer != nil && r.Peer.N != 5) {
			t.Errorf("row %q: %d samples, want 5", r.Operation, r.Lancecat.N)
		}
		if r.Unit == UnitRecall && (r.Lancecat.Median <= 0 || r.Lancecat.Median > 1) {
			t.Errorf("row %q: recall %v", r.Operation, r.Lancecat.Median)
		}
		if r.Unit == UnitBytes && r.Lancecat.Median <= 0 {
			t.Errorf("row %q: %v bytes", r.Operation, r.Lancecat.Median)
		}
	}
	for _, op := range []string{"exact, recall@10", "exact, prefilter cat = 3 (10%), recall@10"} {
		r, ok := ops[op]
		if !ok || r.Lancecat.Median != 1 || r.Peer == nil || r.Peer.Median != 1 {
			t.Errorf("%s: %+v, want 1 on both sides", op, r)
		}
	}
	for _, typ := range []string{"IVF_PQ", "IVF_SQ", "IVF_HNSW_SQ"} {
		for _, suffix := range []string{" (nprobes 20, refine 2), recall@10", ", prefilter cat = 3 (10%), recall@10", " index bytes"} {
			if _, ok := ops[typ+suffix]; !ok {
				t.Errorf("no row %q", typ+suffix)
			}
		}
	}
	table := out.String()
	for _, r := range rep.Rows {
		if !strings.Contains(table, r.Operation+"  ") || !strings.Contains(table, formatStat(r.Unit, r.Lancecat)) {
			t.Errorf("table lacks row %q / %s:\n%s", r.Operation, formatStat(r.Unit, r.Lancecat), table)
		}
	}
}
