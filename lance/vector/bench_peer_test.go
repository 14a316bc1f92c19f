package vector_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/vector"
)

// TestVectorRecallLatency measures, side by side with the peer, recall@10
// against exact search and median / p99 latency over a peer-built table
// (LANCECAT_VECTOR_BENCH=<catalog dir> holding tables made with
// `vector.mjs create DIR t 100000 128 21 50000` and indexed; see the README).
// It asserts nothing about speed; it logs the table.
func TestVectorRecallLatency(t *testing.T) {
	root := os.Getenv("LANCECAT_VECTOR_BENCH")
	if root == "" {
		t.Skip("set LANCECAT_VECTOR_BENCH to a catalog with peer-built indexed tables")
	}
	peer.Require(t)
	ctx := context.Background()
	const n, dim, fragRows, k, nq = 100000, 128, 50000, 10, 50
	data := genRows(n, dim, 21)
	var qs [][]float32
	for i := range nq {
		q := slices.Clone(data[(i*7919)%n])
		for j := range q {
			q[j] += 0.3
		}
		qs = append(qs, q)
	}
	for _, table := range []string{"t", "h"} {
		ds := openDS(t, filepath.Join(root, table+".lance"))
		ix, err := vector.Open(ctx, ds, "v_idx")
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			label   string
			recall  float64
			lat     []time.Duration
			peerRec float64
			peerLat []float64
		}
		exactIDs := make([]map[int64]bool, nq)
		var rows []row
		exactRow := row{label: "exact"}
		for i, q := range qs {
			t0 := time.Now()
			h, err := vector.Exact(ctx, ds, vector.ExactQuery{Column: "v", Vector: q, K: k, Metric: vector.L2})
			if err != nil {
				t.Fatal(err)
			}
			exactRow.lat = append(exactRow.lat, time.Since(t0))
			exactIDs[i] = map[int64]bool{}
			for _, id := range hitIDs(h, fragRows) {
				exactIDs[i][id] = true
			}
		}
		exactRow.recall = 1
		for _, p := range []struct {
			nprobes, refine int
		}{{20, 0}, {5, 0}, {20, 4}} {
			r := row{label: ix.Type()}
			var got int
			for i, q := range qs {
				// warm
				if _, err := ix.Search(ctx, vector.Query{Vector: q, K: k, NProbes: p.nprobes, MaxNProbes: p.nprobes, RefineFactor: p.refine}); err != nil {
					t.Fatal(err)
				}
				t0 := time.Now()
				res, err := ix.Search(ctx, vector.Query{Vector: q, K: k, NProbes: p.nprobes, MaxNProbes: p.nprobes, RefineFactor: p.refine})
				if err != nil {
					t.Fatal(err)
				}
				r.lat = append(r.lat, time.Since(t0))
				for _, id := range hitIDs(res.Hits, fragRows) {
					if exactIDs[i][id] {
						got++
					}
				}
			}
			r.recall = float64(got) / float64(nq*k)
			var reqs []map[string]any
			for _, q := range qs {
				reqs = append(reqs, map[string]any{"q": q, "k": k, "nprobes": p.nprobes, "refine": p.refine})
			}
			qj, _ := json.Marshal(reqs)
			out, err := peer.Run(ctx, t, "vector.mjs", "bench", root, table, string(qj))
			if err != nil {
				t.Fatal(err)
			}
			var pb struct {
				Ms  []float64 `json:"ms"`
				IDs [][]int64 `json:"ids"`
			}
			lastJSON(t, out, &pb)
			pg := 0
			for i, ids := range pb.IDs {
				for _, id := range ids {
					if exactIDs[i][id] {
						pg++
					}
				}
			}
			r.peerRec = float64(pg) / float64(nq*k)
			r.peerLat = pb.Ms
			r.label += " nprobes=" + itoa(p.nprobes) + " refine=" + itoa(p.refine)
			rows = append(rows, r)
		}
		rows = append([]row{exactRow}, rows...)
		for _, r := range rows {
			sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
			sort.Float64s(r.peerLat)
			med, p99 := r.lat[len(r.lat)/2], r.lat[len(r.lat)*99/100]
			pm, pp := 0.0, 0.0
			if len(r.peerLat) > 0 {
				pm, pp = r.peerLat[len(r.peerLat)/2], r.peerLat[len(r.peerLat)*99/100]
			}
			t.Logf("| %s | %s | recall %.3f | median %.2f ms | p99 %.2f ms | peer recall %.3f | peer median %.2f ms | peer p99 %.2f ms |",
				table, r.label, r.recall, float64(med.Microseconds())/1000, float64(p99.Microseconds())/1000, r.peerRec, pm, pp)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
