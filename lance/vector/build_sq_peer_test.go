package vector_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/vector"
)

// TestPeerSearchesLancecatSQHNSW: IVF_SQ, IVF_HNSW_SQ, IVF_HNSW_PQ and
// IVF_HNSW_FLAT indices lancecat builds are used by the peer's vectorSearch (its plan
// shows the ANN index over our uuid) with recall@10 no more than the
// tolerance below the peer's own index on the same data and parameters,
// lancecat's search over them does as well, and rows appended after the
// build and deleted rows are handled on both sides.
//
// The peer (LanceDB 0.31's node API) builds no IVF_SQ, so the yardstick of
// IVF_SQ is the peer's own IVF_HNSW_SQ searched with an ef above every
// partition's size: its beam then visits the whole partition, which makes
// it the peer's IVF and SQ training searched as IVF_SQ searches. Nor does
// it build IVF_HNSW_FLAT, which compares with the peer's IVF_HNSW_SQ: the
// same graph over storage that loses nothing to quantization. Every
// type compares with the mean of peerBuilds peer builds (the peer seeds
// its k-means and draws its HNSW levels from the OS's randomness and
// inserts in parallel, so its recall varies from build to build), HNSW at
// the same m and ef_construction.
func TestPeerSearchesLancecatSQHNSW(t *testing.T) {
	peer.Require(t)
	const peerBuilds, recallTolerance = 2, 0.045
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const n, dim, fragRows, k = 10000, 32, 2500, 10
	root := t.TempDir()
	run := vectorScript(ctx, t)
	data := genRows(n, dim, 21)
	queries := nudgedQueries(data, 100)
	cases := []struct {
		typ, metric, yardstick string
		np, m, nprobes         int
		yardEf                 int // the ef of the searches over the peer's index
		deltas                 bool
	}{
		{"IVF_SQ", "l2", "IVF_HNSW_SQ", 16, 0, 4, n, true},
		{"IVF_SQ", "cosine", "IVF_HNSW_SQ", 16, 0, 4, n, false},
		{"IVF_SQ", "dot", "IVF_HNSW_SQ", 16, 0, 4, n, false},
		{"IVF_HNSW_SQ", "l2", "IVF_HNSW_SQ", 16, 0, 4, 0, true},
		{"IVF_HNSW_SQ", "cosine", "IVF_HNSW_SQ", 16, 0, 4, 0, false},
		{"IVF_HNSW_FLAT", "l2", "IVF_HNSW_SQ", 16, 0, 4, 0, true},
		{"IVF_HNSW_PQ", "l2", "IVF_HNSW_PQ", 16, 8, 4, 0, true},
	}
	const hnswM, hnswEf = 20, 150
	// the peer's yardstick tables, built once per index type, metric and
	// parameters and shared by the cases that compare with them
	yardTables := map[string][]string{}
	yardRecall := map[string]float64{}
	yardEach := map[string]string{}
	for ci, c := range cases {
		name := fmt.Sprintf("%s_%s_%d", c.typ, c.metric, ci)
		t.Run(name, func(t *testing.T) {
			tol := recallTolerance
			ours := "o" + fmt.Sprint(ci)
			run("create", root, ours, fmt.Sprint(n), fmt.Sprint(dim), "21", fmt.Sprint(fragRows))
			yardKey := fmt.Sprintf("%s/%s/%d/%d", c.yardstick, c.metric, c.np, c.m)
			theirs, ok := yardTables[yardKey]
			if !ok {
				peerOpts := fmt.Sprintf(`{"type":%q,"metric":%q,"numPartitions":%d`, c.yardstick, c.metric, c.np)
				if c.m > 0 {
					peerOpts += fmt.Sprintf(`,"numSubVectors":%d`, c.m)
				}
				if strings.Contains(c.yardstick, "HNSW") {
					peerOpts += fmt.Sprintf(`,"m":%d,"efConstruction":%d`, hnswM, hnswEf)
				}
				for b := range peerBuilds {
					tb := fmt.Sprintf("p%d_%d", len(yardTables), b)
					run("create", root, tb, fmt.Sprint(n), fmt.Sprint(dim), "21", fmt.Sprint(fragRows))
					run("index", root, tb, peerOpts+"}")
					theirs = append(theirs, tb)
				}
				yardTables[yardKey] = theirs
			}
			hnsw := strings.Contains(c.typ, "HNSW")
			m, _ := vector.ParseMetric(c.metric)
			ds := openDS(t, filepath.Join(root, ours+".lance"))
			opts := vector.BuildOptions{Type: c.typ, Metric: m, NumPartitions: c.np, NumSubVectors: c.m, Seed: 1}
			if hnsw {
				opts.M, opts.EfConstruction = hnswM, hnswEf
			}
			t0 := time.Now()
			ds, err := vector.CreateIndex(ctx, ds, "v", opts)
			if err != nil {
				t.Fatal(err)
			}
			ourBuild := time.Since(t0)
			truth := exactTruth(ctx, t, ds, queries, k, m, fragRows)
			var reqs []map[string]any
			for _, q := range queries {
				reqs = append(reqs, map[string]any{"q": q, "k": k, "metric": c.metric, "nprobes": c.nprobes})
			}
			reqs[0]["explain"] = true
			peerOnOurs := peerSearch2(ctx, t, root, ours, reqs)
			recallKey := fmt.Sprintf("%s/%d", yardKey, c.yardEf)
			rTheirs, ok := yardRecall[recallKey]
			if !ok {
				yard := reqs
				if c.yardEf > 0 {
					yard = nil
					for _, r := range reqs {
						y := map[string]any{"ef": c.yardEf}
						for k, v := range r {
							y[k] = v
						}
						yard = append(yard, y)
					}
				}
				var each []string
				for _, tb := range theirs {
					r := recallAt(idsOf(peerSearch2(ctx, t, root, tb, yard)), truth)
					rTheirs += r / float64(len(theirs))
					each = append(each, fmt.Sprintf("%.3f", r))
				}
				yardRecall[recallKey], yardEach[recallKey] = rTheirs, strings.Join(each, ", ")
			}
			uuid := ds.Indices()[0].UUID
			if !strings.Contains(peerOnOurs[0].Plan, "ANNSubIndex: name=v_idx") || !strings.Contains(peerOnOurs[0].Plan, uuid) {
				t.Fatalf("the peer's plan does not use lancecat's index %s:\n%s", uuid, peerOnOurs[0].Plan)
			}
			ix, err := vector.Open(ctx, ds, "v_idx")
			if err != nil {
				t.Fatal(err)
			}
			if ix.Type() != c.typ || ix.HNSW() != hnsw {
				t.Fatalf("lancecat opened a %s index (hnsw %v), built %s", ix.Type(), ix.HNSW(), c.typ)
			}
			var ourOnOurs [][]int64
			for _, q := range queries {
				res, err := ix.Search(ctx, vector.Query{Vector: q, K: k, NProbes: c.nprobes, MaxNProbes: c.nprobes})
				if err != nil {
					t.Fatal(err)
				}
				ourOnOurs = append(ourOnOurs, hitIDs(res.Hits, fragRows))
			}
			rOurs, rSelf := recallAt(idsOf(peerOnOurs), truth), recallAt(ourOnOurs, truth)
			t.Logf("%s np=%d m=%d nprobes=%d: recall@10 peer-on-lancecat %.3f, peer-on-peer %s %.3f (mean of %s), lancecat-on-lancecat %.3f; lancecat build %v",
				c.typ+"/"+c.metric, c.np, c.m, c.nprobes, rOurs, c.yardstick, rTheirs, yardEach[recallKey], rSelf, ourBuild.Round(time.Millisecond))
			if rOurs < rTheirs-tol {
				t.Errorf("peer's recall over lancecat's index %.3f < peer's own %.3f - %.3f", rOurs, rTheirs, tol)
			}
			if rSelf < rTheirs-tol {
				t.Errorf("lancecat's recall over its own index %.3f < peer's %.3f - %.3f", rSelf, rTheirs, tol)
			}
			if !c.deltas {
				return
			}
			checkDeltas(ctx, t, root, ours, n, dim, fragRows, c.metric, c.nprobes)
		})
	}
}

// checkDeltas appends 500 rows and deletes two (one indexed, one
// appended): both sides find an appended row first before any rebuild and
// never return a deleted one.
func checkDeltas(ctx context.Context, t *testing.T, root, table string, n, dim, fragRows int, metric string, nprobes int) {
	t.Helper()
	for _, args := range [][]string{
		{"append", root, table, "500", fmt.Sprint(dim), "22", fmt.Sprint(n)},
		{"delete", root, table, fmt.Sprintf("id = 3 OR id = %d", n+17)},
	} {
		if _, err := peer.Run(ctx, t, "vector.mjs", args...); err != nil {
			t.Fatal(err)
		}
	}
	data := genRows(n, dim, 21)
	appended := genRows(500, dim, 22)
	probe := [][]float32{appended[17], data[3], appended[40]}
	var reqs []map[string]any
	for _, q := range probe {
		reqs = append(reqs, map[string]any{"q": q, "k": 5, "metric": metric, "nprobes": nprobes})
	}
	got := peerSearch2(ctx, t, root, table, reqs)
	ds := openDS(t, filepath.Join(root, table+".lance"))
	ix, err := vector.Open(ctx, ds, "v_idx")
	if err != nil {
		t.Fatal(err)
	}
	if u := ix.Uncovered(); len(u) != 1 {
		t.Fatalf("uncovered fragments %v, want the appended one", u)
	}
	for i, q := range probe {
		res, err := ix.Search(ctx, vector.Query{Vector: q, K: 5, NProbes: nprobes})
		if err != nil {
			t.Fatal(err)
		}
		mine := idsByColumn(ctx, t, ds, res.Hits)
		for _, ids := range [][]int64{mine, got[i].IDs} {
			for _, id := range ids {
				if id == 3 || id == int64(n+17) {
					t.Errorf("query %d: deleted row %d returned (%v)", i, id, ids)
				}
			}
		}
		if i == 2 && (len(mine) == 0 || mine[0] != int64(n+40) || len(got[i].IDs) == 0 || got[i].IDs[0] != int64(n+40)) {
			t.Errorf("appended row %d not first: lancecat %v, peer %v", n+40, mine, got[i].IDs)
		}
	}
}
