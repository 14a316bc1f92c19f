package conformance

// Multivector search through the peer's multivector index (IVF_PQ and
// IVF_HNSW_SQ on a list<fixed_size_list<float32>[16]> column) compared
// with the peer's own indexed search.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// multiVectorIndexedQuery is a peer search through the index (no
// bypassVectorIndex) at the given nprobes / refine.
type multiVectorIndexedQuery struct {
	multiVectorQuery
	nprobes, refine int
}

func multiVectorPeerIndexedSearch(ctx context.Context, t *testing.T, root, table string, qs []multiVectorIndexedQuery) []peerVecHits {
	t.Helper()
	var reqs []map[string]any
	for _, q := range qs {
		r := map[string]any{"q": q.q, "metric": q.metric, "k": q.k, "nprobes": q.nprobes}
		if q.where != "" {
			r["where"] = q.where
		}
		if q.refine > 0 {
			r["refine"] = q.refine
		}
		reqs = append(reqs, r)
	}
	var res []peerVecHits
	peerQueryFile(ctx, t, "multivec.mjs", root, table, reqs, &res)
	if len(res) != len(qs) {
		t.Fatalf("peer multivector search: %d results for %d queries", len(res), len(qs))
	}
	return res
}

// TestPeerMultiVectorIndexSearch: over 1,500 rows of 2-8 vectors of 16
// floats with the peer's cosine multivector index (IVF_PQ, 8 partitions, 4
// sub-vectors; IVF_HNSW_SQ, 4 partitions), lancecat's ORDER BY
// VEC_MAXSIM_COSINE_DISTANCE(mv, ...) LIMIT k searches through the index
// (EXPLAIN names it) and, at the same lancecat_nprobes /
// lancecat_refine_factor as the peer's nprobes / refineFactor, with and
// without a WHERE prefilter, returns the rows of the peer's indexed search:
// the same set without refine (the peer shows its MaxSim estimate as
// _distance, lancecat the exact one), the same ids and exact distances
// (1e-5, up to ties) with refine. The same holds after lancecat deletes
// rows and appends a fragment the index does not cover (EXPLAIN lists it as
// scanned exactly). VEC_MAXSIM_DOT_DISTANCE (no dot index) and IGNORE
// INDEX stay exact and answer as the peer's exact search. The indexed
// search is approximate: at nprobes 2 it misses some of the exact top k
// (so the test can tell the index was used).
func TestPeerMultiVectorIndexSearch(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const n, dim = 1500, 16
	rng := rand.New(rand.NewPCG(61, 6))
	// rows around 24 centres, so that partitions differ
	centres := make([][]float32, 24)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for k := range centres[i] {
			centres[i][k] = float32(rng.NormFloat64())
		}
	}
	vec := func() []float32 {
		c := centres[rng.IntN(len(centres))]
		v := make([]float32, dim)
		for k := range v {
			v[k] = c[k] + float32(0.4*rng.NormFloat64())
		}
		return v
	}
	rows := make([][][]float32, n+100)
	for i := range rows {
		m := make([][]float32, 2+rng.IntN(7))
		for j := range m {
			m[j] = vec()
		}
		rows[i] = m
	}
	var b strings.Builder
	for i := range n {
		j, _ := json.Marshal(map[string]any{"id": i, "cat": i % 3, "mv": rows[i]})
		b.Write(j)
		b.WriteByte('\n')
	}
	rowsFile := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(rowsFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	indexes := map[string]string{
		"pq":   `{"type":"IVF_PQ","metric":"cosine","numPartitions":8,"numSubVectors":4}`,
		"hnsw": `{"type":"IVF_HNSW_SQ","metric":"cosine","numPartitions":4}`,
	}
	for _, table := range []string{"pq", "hnsw"} {
		if out, err := peer.Run(ctx, t, "multivec.mjs", "create", root, table, rowsFile, strconv.Itoa(dim)); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if out, err := peer.Run(ctx, t, "multivec.mjs", "index", root, table, indexes[table]); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	db, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	var qs []multiVectorIndexedQuery
	for qi, r := range []int{5, 140, 333, 612, 980, 1234, 1499} {
		q := make([][]float32, 1+qi%4)
		for j := range q {
			q[j] = make([]float32, dim)
			src := rows[r][j%len(rows[r])]
			for k := range q[j] {
				q[j][k] = src[k] + float32(0.3*rng.NormFloat64())
			}
		}
		for _, np := range []int{2, 20} {
			for _, refine := range []int{0, 3} {
				qs = append(qs,
					multiVectorIndexedQuery{multiVectorQuery{q: q, metric: "cosine", k: 10}, np, refine},
					multiVectorIndexedQuery{multiVectorQuery{q: q, metric: "cosine", k: 8, where: fmt.Sprintf("cat = %d", r%3)}, np, refine},
				)
			}
		}
	}
	setParams := func(q multiVectorIndexedQuery) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET lancecat_nprobes = %d, lancecat_refine_factor = %d", q.nprobes, q.refine)); err != nil {
			t.Fatal(err)
		}
	}
	// check compares every query with the peer's indexed search and
	// returns how many lancecat rows are not in the exact top k.
	check := func(table string, uncovered bool) (missed int) {
		t.Helper()
		want := multiVectorPeerIndexedSearch(ctx, t, root, table, qs)
		var exact []multiVectorQuery
		for _, q := range qs {
			exact = append(exact, q.multiVectorQuery)
		}
		truth := multiVectorPeerSearch(ctx, t, root, table, exact)
		for i, q := range qs {
			label := fmt.Sprintf("%s q%d (%d vectors, nprobes %d, refine %d) where %q", table, i, len(q.q), q.nprobes, q.refine, q.where)
			setParams(q)
			got := queryIDs(ctx, t, conn, q.sql(table))
			if q.refine > 0 || uncovered {
				// the peer re-scores exactly: ids and distances
				sameHits(t, label, got, want[i], 1e-5)
			} else {
				var g []int64
				for _, h := range got {
					g = append(g, h.id)
				}
				w := slices.Clone(want[i].IDs)
				slices.Sort(g)
				slices.Sort(w)
				if !slices.Equal(g, w) {
					t.Errorf("%s: rows %v, the peer's %v", label, g, w)
				}
			}
			for _, h := range got {
				if !slices.Contains(truth[i].IDs, h.id) {
					missed++
				}
			}
		}
		return missed
	}
	for _, table := range []string{"pq", "hnsw"} {
		if p := explainSQL(ctx, t, conn, qs[0].sql(table)); !strings.Contains(p, "MultiVectorSearch") || !strings.Contains(p, "index mv_idx") {
			t.Errorf("%s: EXPLAIN does not search through the peer's index:\n%s", table, p)
		}
		if missed := check(table, false); missed == 0 {
			t.Errorf("%s: every indexed row is in the exact top k: was the index used?", table)
		}
		// exact: the dot metric has no index, IGNORE INDEX bypasses it
		var exact []multiVectorQuery
		for _, q := range qs[:8] {
			d := q.multiVectorQuery
			d.metric = "dot"
			exact = append(exact, d, q.multiVectorQuery)
		}
		truth := multiVectorPeerSearch(ctx, t, root, table, exact)
		for i, q := range exact {
			s := q.sql(table)
			if q.metric == "cosine" {
				s = strings.Replace(s, "FROM "+table, "FROM "+table+" IGNORE INDEX (mv_idx)", 1)
			}
			if i < 2 {
				if p := explainSQL(ctx, t, conn, s); !strings.Contains(p, "ExactVectorSearch") {
					t.Errorf("%s %s: EXPLAIN is not exact:\n%s", table, q.metric, p)
				}
			}
			sameHits(t, fmt.Sprintf("%s exact %s q%d", table, q.metric, i), queryIDs(ctx, t, conn, s), truth[i], 1e-5)
		}
	}

	// deletions and an appended fragment the index does not cover
	for _, table := range []string{"pq", "hnsw"} {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE id %% 7 = 3", table)); err != nil {
			t.Fatal(err)
		}
		var vals []string
		for i := n; i < len(rows); i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", i, i%3, multiVectorLiteral(rows[i])))
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES %s", table, strings.Join(vals, ", "))); err != nil {
			t.Fatal(err)
		}
		p := explainSQL(ctx, t, conn, qs[0].sql(table))
		if !strings.Contains(p, "MultiVectorSearch") || strings.Contains(p, "scanned exactly []") {
			t.Errorf("%s: EXPLAIN after the append:\n%s", table, p)
		}
		check(table, true)
		for _, h := range queryIDs(ctx, t, conn, qs[0].sql(table)) {
			if h.id%7 == 3 && h.id < n {
				t.Errorf("%s: deleted row %d came back", table, h.id)
			}
		}
	}
}
