//go:build unix

package conformance

// A measurement, not a test: multivector search exact and through the
// peer's multivector index, lancecat beside the peer, same data (run with
// LANCECAT_MULTIVEC_BENCH=1; the numbers go to conformance/bench/README.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

func userCPU(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}

func TestMultiVectorIndexBench(t *testing.T) {
	if os.Getenv("LANCECAT_MULTIVEC_BENCH") == "" {
		t.Skip("set LANCECAT_MULTIVEC_BENCH=1 to measure")
	}
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	const n, dim, nq, k = 20000, 16, 50, 10
	rng := rand.New(rand.NewPCG(7, 20))
	centres := make([][]float32, 64)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	vec := func() []float32 {
		c := centres[rng.IntN(len(centres))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(0.4*rng.NormFloat64())
		}
		return v
	}
	var b strings.Builder
	rows := make([][][]float32, n)
	for i := range n {
		m := make([][]float32, 2+rng.IntN(7))
		for j := range m {
			m[j] = vec()
		}
		rows[i] = m
		j, _ := json.Marshal(map[string]any{"id": i, "cat": i % 3, "mv": m})
		b.Write(j)
		b.WriteByte('\n')
	}
	rowsFile := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(rowsFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// queries of 4 vectors near a row's (perturbed), as a late-interaction
	// query is near the documents it should find
	var qs []multiVectorQuery
	for range nq {
		src := rows[rng.IntN(n)]
		q := make([][]float32, 4)
		for j := range q {
			q[j] = make([]float32, dim)
			for d := range q[j] {
				q[j][d] = src[j%len(src)][d] + float32(0.3*rng.NormFloat64())
			}
		}
		qs = append(qs, multiVectorQuery{q: q, metric: "cosine", k: k})
	}
	root := t.TempDir()
	conn := openLancecatConn(ctx, t, root)
	recall := func(got [][]int64, truth []peerVecHits) float64 {
		hit, all := 0, 0
		for i := range got {
			for _, id := range got[i] {
				if slices.Contains(truth[i].IDs, id) {
					hit++
				}
			}
			all += len(truth[i].IDs)
		}
		return float64(hit) / float64(all)
	}
	peerRun := func(table string, reqs []map[string]any) ([]peerVecHits, time.Duration) {
		qf := filepath.Join(t.TempDir(), "q.json")
		bs, _ := json.Marshal(reqs)
		if err := os.WriteFile(qf, bs, 0o644); err != nil {
			t.Fatal(err)
		}
		before := userCPU(syscall.RUSAGE_CHILDREN)
		out, err := peer.Run(ctx, t, "multivec.mjs", "search", root, table, qf)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		cpu := userCPU(syscall.RUSAGE_CHILDREN) - before
		var res []peerVecHits
		if err := json.Unmarshal(lastLine(out), &res); err != nil {
			t.Fatal(err)
		}
		return res, cpu
	}
	// the peer's CPU per query: a run of every query less a run of one
	peerPerQuery := func(table string, extra map[string]any) ([]peerVecHits, float64) {
		var reqs []map[string]any
		for _, q := range qs {
			r := map[string]any{"q": q.q, "metric": q.metric, "k": q.k}
			for key, v := range extra {
				r[key] = v
			}
			reqs = append(reqs, r)
		}
		_, one := peerRun(table, reqs[:1])
		res, all := peerRun(table, reqs)
		return res, float64(all-one) / float64(time.Millisecond) / float64(len(reqs)-1)
	}
	lancecat := func(table, hint string, nprobes, refine int) ([][]int64, float64) {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET lancecat_nprobes = %d, lancecat_refine_factor = %d", nprobes, refine)); err != nil {
			t.Fatal(err)
		}
		queryIDs(ctx, t, conn, strings.Replace(qs[0].sql(table), "FROM "+table, "FROM "+table+hint, 1)) // warm
		before := userCPU(syscall.RUSAGE_SELF)
		var out [][]int64
		for _, q := range qs {
			var ids []int64
			for _, h := range queryIDs(ctx, t, conn, strings.Replace(q.sql(table), "FROM "+table, "FROM "+table+hint, 1)) {
				ids = append(ids, h.id)
			}
			out = append(out, ids)
		}
		return out, float64(userCPU(syscall.RUSAGE_SELF)-before) / float64(time.Millisecond) / float64(len(qs))
	}
	for _, ix := range []struct{ table, spec string }{
		{"pq", `{"type":"IVF_PQ","metric":"cosine","numPartitions":32,"numSubVectors":4}`},
		{"hnsw", `{"type":"IVF_HNSW_SQ","metric":"cosine","numPartitions":8}`},
	} {
		if out, err := peer.Run(ctx, t, "multivec.mjs", "create", root, ix.table, rowsFile, strconv.Itoa(dim)); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if out, err := peer.Run(ctx, t, "multivec.mjs", "index", root, ix.table, ix.spec); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		truth, peerExact := peerPerQuery(ix.table, map[string]any{"exact": true})
		got, lcExact := lancecat(ix.table, " IGNORE INDEX (mv_idx)", 20, 0)
		t.Logf("%s exact: recall lancecat %.3f; CPU ms/query lancecat %.2f peer %.2f", ix.table, recall(got, truth), lcExact, peerExact)
		for _, p := range []struct{ nprobes, refine int }{{20, 0}, {4, 0}, {20, 3}} {
			extra := map[string]any{"nprobes": p.nprobes}
			if p.refine > 0 {
				extra["refine"] = p.refine
			}
			pres, pcpu := peerPerQuery(ix.table, extra)
			var pids [][]int64
			for _, r := range pres {
				pids = append(pids, r.IDs)
			}
			got, cpu := lancecat(ix.table, "", p.nprobes, p.refine)
			same := 0
			for i := range got {
				a, b := slices.Clone(got[i]), slices.Clone(pids[i])
				slices.Sort(a)
				slices.Sort(b)
				if slices.Equal(a, b) {
					same++
				}
			}
			t.Logf("%s nprobes %d refine %d: recall@%d lancecat %.3f peer %.3f; same rows %d/%d; CPU ms/query lancecat %.2f peer %.2f",
				ix.table, p.nprobes, p.refine, k, recall(got, truth), recall(pids, truth), same, len(got), cpu, pcpu)
		}
	}
}
