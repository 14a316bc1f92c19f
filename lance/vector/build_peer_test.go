package vector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/vector"
)

// recallAt is |got ∩ want| / |want| averaged over queries.
func recallAt(got, want [][]int64) float64 {
	var sum float64
	for i := range want {
		w := map[int64]bool{}
		for _, id := range want[i] {
			w[id] = true
		}
		hit := 0
		for _, id := range got[i] {
			if w[id] {
				hit++
			}
		}
		if len(want[i]) > 0 {
			sum += float64(hit) / float64(len(want[i]))
		}
	}
	return sum / float64(len(want))
}

// TestPeerSearchesLancecatIndex: an index lancecat builds is used by the
// peer's vectorSearch (its plan shows the ANN index over our uuid) with
// recall@10 no more than recallTolerance below the peer's own index at the
// same parameters, and lancecat's search over it does as well; rows
// appended after the build and deleted rows are handled on both sides.
//
// The peer seeds its k-means from the OS, so its own recall changes from
// build to build of the same data: measured over 5 IVF_PQ dot builds of
// this fixture, 0.188 to 0.239 (mean 0.220, standard deviation about
// 0.02), a spread wider than the 0.02. One peer build is therefore
// no fixed yardstick: the test compares with the mean of peerBuilds builds
// (for PQ; IVF_FLAT's recall does not depend on the training at nprobes
// 4) and allows recallTolerance, about three standard errors of that mean,
// so a lancecat build as good as the reference's fails less than once in
// several hundred runs, while a loss bigger than the tolerance fails.
func TestPeerSearchesLancecatIndex(t *testing.T) {
	peer.Require(t)
	const peerBuilds, recallTolerance = 2, 0.045
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	const n, dim, fragRows, k = 20000, 64, 5000, 10
	root := t.TempDir()
	run := vectorScript(ctx, t)
	data := genRows(n, dim, 21)
	queries := nudgedQueries(data, 100)
	cases := []struct {
		typ, metric string
		np, m       int
		nprobes     int
		refine      int
	}{
		{"IVF_FLAT", "l2", 32, 0, 4, 0},
		{"IVF_FLAT", "cosine", 32, 0, 4, 0},
		{"IVF_PQ", "l2", 32, 8, 4, 0},
		{"IVF_PQ", "cosine", 32, 8, 4, 0},
		{"IVF_PQ", "dot", 32, 8, 4, 0},
		{"IVF_PQ", "l2", 32, 16, 8, 4},
	}
	for ci, c := range cases {
		name := fmt.Sprintf("%s_%s_%d", c.typ, c.metric, ci)
		t.Run(name, func(t *testing.T) {
			builds := 1
			if c.typ != "IVF_FLAT" {
				builds = peerBuilds
			}
			ours := "o" + fmt.Sprint(ci)
			var theirs []string
			for b := range builds {
				theirs = append(theirs, fmt.Sprintf("p%d_%d", ci, b))
			}
			for _, tb := range append([]string{ours}, theirs...) {
				run("create", root, tb, fmt.Sprint(n), fmt.Sprint(dim), "21", fmt.Sprint(fragRows))
			}
			peerOpts := fmt.Sprintf(`{"type":%q,"metric":%q,"numPartitions":%d`, c.typ, c.metric, c.np)
			if c.m > 0 {
				peerOpts += fmt.Sprintf(`,"numSubVectors":%d`, c.m)
			}
			var peerBuild time.Duration
			for _, tb := range theirs {
				t0 := time.Now()
				run("index", root, tb, peerOpts+"}")
				peerBuild += time.Since(t0)
			}
			peerBuild /= time.Duration(len(theirs))
			m, _ := vector.ParseMetric(c.metric)
			ds := openDS(t, filepath.Join(root, ours+".lance"))
			t0 := time.Now()
			ds, err := vector.CreateIndex(ctx, ds, "v", vector.BuildOptions{Type: c.typ, Metric: m, NumPartitions: c.np, NumSubVectors: c.m, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			ourBuild := time.Since(t0)
			truth := exactTruth(ctx, t, ds, queries, k, m, fragRows)
			var reqs []map[string]any
			for _, q := range queries {
				reqs = append(reqs, map[string]any{"q": q, "k": k, "metric": c.metric, "nprobes": c.nprobes, "refine": c.refine})
			}
			reqs[0]["explain"] = true
			peerOnOurs := peerSearch2(ctx, t, root, ours, reqs)
			var rTheirs float64
			var each []string
			for _, tb := range theirs {
				r := recallAt(idsOf(peerSearch2(ctx, t, root, tb, reqs)), truth)
				rTheirs += r / float64(len(theirs))
				each = append(each, fmt.Sprintf("%.3f", r))
			}
			uuid := ds.Indices()[0].UUID
			if !strings.Contains(peerOnOurs[0].Plan, "ANNSubIndex: name=v_idx") || !strings.Contains(peerOnOurs[0].Plan, uuid) {
				t.Fatalf("the peer's plan does not use lancecat's index %s:\n%s", uuid, peerOnOurs[0].Plan)
			}
			ix, err := vector.Open(ctx, ds, "v_idx")
			if err != nil {
				t.Fatal(err)
			}
			var ourOnOurs [][]int64
			for _, q := range queries {
				res, err := ix.Search(ctx, vector.Query{Vector: q, K: k, NProbes: c.nprobes, MaxNProbes: c.nprobes, RefineFactor: c.refine})
				if err != nil {
					t.Fatal(err)
				}
				ourOnOurs = append(ourOnOurs, hitIDs(res.Hits, fragRows))
			}
			rOurs, rSelf := recallAt(idsOf(peerOnOurs), truth), recallAt(ourOnOurs, truth)
			t.Logf("%s np=%d m=%d nprobes=%d refine=%d: recall@10 peer-on-lancecat %.3f, peer-on-peer %.3f (mean of %s), lancecat-on-lancecat %.3f; build lancecat %v, peer %v (incl. node start)",
				c.typ+"/"+c.metric, c.np, c.m, c.nprobes, c.refine, rOurs, rTheirs, strings.Join(each, ", "), rSelf, ourBuild.Round(time.Millisecond), peerBuild.Round(time.Millisecond))
			if rOurs < rTheirs-recallTolerance {
				t.Errorf("peer's recall over lancecat's index %.3f < peer's own %.3f - %.3f", rOurs, rTheirs, recallTolerance)
			}
			if rSelf < rTheirs-recallTolerance {
				t.Errorf("lancecat's recall over its own index %.3f < peer's %.3f - %.3f", rSelf, rTheirs, recallTolerance)
			}
			if c.typ != "IVF_FLAT" || ci != 0 {
				return
			}
			// appends are found before a rebuild; deleted rows never come back
			run("append", root, ours, "500", fmt.Sprint(dim), "22", fmt.Sprint(n))
			run("delete", root, ours, "id = 3 OR id = 20017")
			appended := genRows(500, dim, 22)
			probe := [][]float32{appended[17], data[3]}
			var reqs2 []map[string]any
			for _, q := range probe {
				reqs2 = append(reqs2, map[string]any{"q": q, "k": 5, "metric": c.metric, "nprobes": c.nprobes})
			}
			reqs2 = append(reqs2, map[string]any{"q": appended[40], "k": 5, "metric": c.metric, "nprobes": c.nprobes})
			got := peerSearch2(ctx, t, root, ours, reqs2)
			ds = openDS(t, filepath.Join(root, ours+".lance"))
			ix, err = vector.Open(ctx, ds, "v_idx")
			if err != nil {
				t.Fatal(err)
			}
			if u := ix.Uncovered(); len(u) != 1 {
				t.Fatalf("uncovered fragments %v, want the appended one", u)
			}
			for i, q := range append(probe, appended[40]) {
				res, err := ix.Search(ctx, vector.Query{Vector: q, K: 5, NProbes: c.nprobes})
				if err != nil {
					t.Fatal(err)
				}
				mine := idsByColumn(ctx, t, ds, res.Hits)
				for _, ids := range [][]int64{mine, got[i].IDs} {
					for _, id := range ids {
						if id == 3 || id == 20017 {
							t.Errorf("query %d: deleted row %d returned (%v)", i, id, ids)
						}
					}
				}
				if i == 2 && (len(mine) == 0 || mine[0] != n+40 || got[i].IDs[0] != n+40) {
					t.Errorf("appended row %d not first: lancecat %v, peer %v", n+40, mine, got[i].IDs)
				}
			}
		})
	}
}

type peerHits2 struct {
	IDs   []int64   `json:"ids"`
	Dists []float64 `json:"dists"`
	Plan  string    `json:"plan"`
}

func idsOf(h []peerHits2) [][]int64 {
	out := make([][]int64, len(h))
	for i := range h {
		out[i] = h[i].IDs
	}
	return out
}

func peerSearch2(ctx context.Context, t *testing.T, root, table string, reqs []map[string]any) []peerHits2 {
	t.Helper()
	out, err := peer.Run(ctx, t, "vector.mjs", "search", root, table, mustJSON(t, reqs))
	if err != nil {
		t.Fatal(err)
	}
	var got []peerHits2
	lastJSON(t, out, &got)
	if len(got) != len(reqs) {
		t.Fatalf("peer answered %d of %d searches", len(got), len(reqs))
	}
	return got
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vectorScript runs conformance/peer's vector.mjs with args and returns its
// output, failing the test on an error.
func vectorScript(ctx context.Context, t *testing.T) func(args ...string) []byte {
	return func(args ...string) []byte {
		t.Helper()
		out, err := peer.Run(ctx, t, "vector.mjs", args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// nudgedQueries returns count query vectors: rows of data nudged off the
// data, so that no query is a row's exact copy.
func nudgedQueries(data [][]float32, count int) [][]float32 {
	var queries [][]float32
	for i := 0; i < count; i++ {
		q := append([]float32(nil), data[(i*977)%len(data)]...)
		for j := range q {
			q[j] += float32((i+j)%5-2) * 0.3
		}
		queries = append(queries, q)
	}
	return queries
}

// exactTruth is each query's exact top-k over ds (the ground truth of the
// recall figures), as row ids.
func exactTruth(ctx context.Context, t *testing.T, ds *dataset.Dataset, queries [][]float32, k int, m vector.Metric, fragRows int) [][]int64 {
	t.Helper()
	var truth [][]int64
	for _, q := range queries {
		hits, err := vector.Exact(ctx, ds, vector.ExactQuery{Column: "v", Vector: q, K: k, Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		truth = append(truth, hitIDs(hits, fragRows))
	}
	return truth
}
