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
	rows, rowsFile := clusteredMultiVectors(t, rng, n, 100, dim)
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
	conn := openLancecatConn(ctx, t, root)

	qs := multiVectorIndexedQueries(rng, rows, []int{5, 140, 333, 612, 980, 1234, 1499})
	check := func(table string, uncovered bool) (missed int) {
		t.Helper()
		missed, _ = checkMultiVectorIndexed(ctx, t, conn, root, table, qs, uncovered)
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

// clusteredMultiVectors draws n+extra rows of 2-8 vectors of dim floats
// around 24 centres (so that IVF partitions differ) and writes the first n
// as the peer's JSONL rows ({"id", "cat": id % 3, "mv"}).
func clusteredMultiVectors(t *testing.T, rng *rand.Rand, n, extra, dim int) ([][][]float32, string) {
	t.Helper()
	centres := make([][]float32, 24)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for k := range centres[i] {
			centres[i][k] = float32(rng.NormFloat64())
		}
	}
	rows := make([][][]float32, n+extra)
	for i := range rows {
		m := make([][]float32, 2+rng.IntN(7))
		for j := range m {
			c := centres[rng.IntN(len(centres))]
			m[j] = make([]float32, dim)
			for k := range m[j] {
				m[j][k] = c[k] + float32(0.4*rng.NormFloat64())
			}
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
	return rows, rowsFile
}

// multiVectorIndexedQueries are cosine queries of 1-4 vectors near the
// given rows (their vectors perturbed), each at nprobes 2 and 20, refine
// none and 3, with and without a WHERE prefilter.
func multiVectorIndexedQueries(rng *rand.Rand, rows [][][]float32, near []int) []multiVectorIndexedQuery {
	var qs []multiVectorIndexedQuery
	for qi, r := range near {
		q := make([][]float32, 1+qi%4)
		for j := range q {
			src := rows[r][j%len(rows[r])]
			q[j] = make([]float32, len(src))
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
	return qs
}

// checkMultiVectorIndexed runs every query in lancecat (its session
// variables set on conn) and through the peer's indexed search and checks
// they return the same rows: the same set without refine (the peer's
// _distance is then its MaxSim estimate), the same ids and exact
// distances with refine or when fragments are uncovered (the peer
// re-scores exactly then). It returns how many of lancecat's rows, and how
// many of the peer's, are not in the exact top k.
func checkMultiVectorIndexed(ctx context.Context, t *testing.T, conn *sql.Conn, root, table string, qs []multiVectorIndexedQuery, uncovered bool) (missed, peerMissed int) {
	t.Helper()
	want := multiVectorPeerIndexedSearch(ctx, t, root, table, qs)
	var exact []multiVectorQuery
	for _, q := range qs {
		exact = append(exact, q.multiVectorQuery)
	}
	truth := multiVectorPeerSearch(ctx, t, root, table, exact)
	for i, q := range qs {
		label := fmt.Sprintf("%s q%d (%d vectors, nprobes %d, refine %d) where %q", table, i, len(q.q), q.nprobes, q.refine, q.where)
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET lancecat_nprobes = %d, lancecat_refine_factor = %d", q.nprobes, q.refine)); err != nil {
			t.Fatal(err)
		}
		got := queryIDs(ctx, t, conn, q.sql(table))
		if q.refine > 0 || uncovered {
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
		for _, id := range want[i].IDs {
			if !slices.Contains(truth[i].IDs, id) {
				peerMissed++
			}
		}
	}
	return missed, peerMissed
}

// TestPeerSearchesLancecatMultiVectorIndex: CREATE VECTOR INDEX on a
// MULTIVECTOR(16) column (1,500 rows of 2-8 vectors, metric cosine by
// default) builds IVF_PQ (8 partitions, 4 sub-vectors) and IVF_HNSW_SQ (4
// partitions) indices that the peer's search uses: through them the peer
// and lancecat return the same rows at the same nprobes / refine (as in
// TestPeerMultiVectorIndexSearch), and the peer's recall@k against its
// exact search is at least its recall over its own index of that type on
// the same rows, less 0.05. Another metric on a multivector column is
// InvalidInput.
func TestPeerSearchesLancecatMultiVectorIndex(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const n, dim = 1500, 16
	rng := rand.New(rand.NewPCG(33, 9))
	rows, rowsFile := clusteredMultiVectors(t, rng, n, 0, dim)
	qs := multiVectorIndexedQueries(rng, rows, []int{7, 201, 456, 777, 1001, 1333})
	root := t.TempDir()
	conn := openLancecatConn(ctx, t, root)
	types := []struct{ using, props, peerSpec string }{
		{"IVF_PQ", "num_partitions = 8, num_sub_vectors = 4", `{"type":"IVF_PQ","metric":"cosine","numPartitions":8,"numSubVectors":4}`},
		{"IVF_HNSW_SQ", "num_partitions = 4", `{"type":"IVF_HNSW_SQ","metric":"cosine","numPartitions":4}`},
	}
	for _, typ := range types {
		mine, theirs := "mine_"+strings.ToLower(typ.using), "theirs_"+strings.ToLower(typ.using)
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL, cat BIGINT, mv MULTIVECTOR(16), PRIMARY KEY (id))", mine)); err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < n; lo += 500 {
			var vals []string
			for i := lo; i < min(lo+500, n); i++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", i, i%3, multiVectorLiteral(rows[i])))
			}
			if _, err := conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES %s", mine, strings.Join(vals, ", "))); err != nil {
				t.Fatal(err)
			}
		}
		if typ.using == "IVF_PQ" {
			_, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE VECTOR INDEX bad ON %s (mv) USING IVF_PQ WITH PROPERTIES (metric = 'l2')", mine))
			if err == nil || !strings.Contains(err.Error(), "cosine") {
				t.Errorf("an l2 index on a multivector column: %v, want an InvalidInput naming cosine", err)
			}
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE VECTOR INDEX mv_idx ON %s (mv) USING %s WITH PROPERTIES (%s)", mine, typ.using, typ.props)); err != nil {
			t.Fatal(err)
		}
		if p := explainSQL(ctx, t, conn, qs[0].sql(mine)); !strings.Contains(p, "MultiVectorSearch") || !strings.Contains(p, typ.using) {
			t.Errorf("%s: EXPLAIN does not search through lancecat's index:\n%s", mine, p)
		}
		_, peerOnMine := checkMultiVectorIndexed(ctx, t, conn, root, mine, qs, false)

		if out, err := peer.Run(ctx, t, "multivec.mjs", "create", root, theirs, rowsFile, strconv.Itoa(dim)); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if out, err := peer.Run(ctx, t, "multivec.mjs", "index", root, theirs, typ.peerSpec); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		_, peerOnTheirs := checkMultiVectorIndexed(ctx, t, conn, root, theirs, qs, false)
		total := 0
		for _, q := range qs {
			total += q.k
		}
		rMine, rTheirs := 1-float64(peerOnMine)/float64(total), 1-float64(peerOnTheirs)/float64(total)
		t.Logf("%s: the peer's recall over lancecat's index %.3f, over its own %.3f", typ.using, rMine, rTheirs)
		if rMine < rTheirs-0.05 {
			t.Errorf("%s: the peer's recall over lancecat's index %.3f, over its own %.3f", typ.using, rMine, rTheirs)
		}
	}
}
