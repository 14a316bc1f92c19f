package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/driver"
)

type peerVecHits struct {
	IDs   []int64   `json:"ids"`
	Dists []float64 `json:"dists"`
}

func peerVectorSearch(ctx context.Context, t *testing.T, root, table string, reqs []map[string]any) []peerVecHits {
	t.Helper()
	qj, _ := json.Marshal(reqs)
	out, err := peer.Run(ctx, t, "vector.mjs", "search", root, table, string(qj))
	if err != nil {
		t.Fatal(err)
	}
	var got []peerVecHits
	if err := json.Unmarshal(lastLine(out), &got); err != nil || len(got) != len(reqs) {
		t.Fatalf("peer search: %v: %s", err, out)
	}
	return got
}

// allVectors reads every (id, v) through SQL.
// querier is a *sql.DB or a *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

func allVectors(ctx context.Context, t *testing.T, db querier, table string) map[int64][]float64 {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT id, v FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64][]float64{}
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		var v []float64
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type idDist struct {
	id int64
	d  float64
}

func queryIDs(ctx context.Context, t *testing.T, db querier, q string, args ...any) []idDist {
	t.Helper()
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []idDist
	for rows.Next() {
		var x idDist
		if err := rows.Scan(&x.id, &x.d); err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func l2(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

func bruteForce(all map[int64][]float64, q []float64, k int, keep func(int64) bool) []idDist {
	var out []idDist
	for id, v := range all {
		if keep == nil || keep(id) {
			out = append(out, idDist{id, l2(v, q)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].id < out[j].id
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// sameUpToTies: the rows nearer than the k-th distance agree and the k-th
// distances agree.
func sameUpToTies(t *testing.T, label string, got, want []idDist) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows %v, want %d %v", label, len(got), got, len(want), want)
		return
	}
	if len(want) == 0 {
		return
	}
	last := want[len(want)-1].d
	tol := 1e-4 * math.Max(1, last)
	inner := func(xs []idDist) map[int64]bool {
		m := map[int64]bool{}
		for _, x := range xs {
			if x.d < last-tol {
				m[x.id] = true
			}
		}
		return m
	}
	gi, wi := inner(got), inner(want)
	ok := len(gi) == len(wi) && math.Abs(got[len(got)-1].d-last) <= tol
	for id := range wi {
		ok = ok && gi[id]
	}
	if !ok {
		t.Errorf("%s: got %v, want %v", label, got, want)
	}
}

// TestPeerVectorSearchSQL: ORDER BY VEC_L2_DISTANCE ... LIMIT k over a
// peer-built table and index: exact search (IGNORE INDEX) equals a brute
// force over the rows read through SQL; the indexed search returns the
// peer's own rows at the same nprobes/refine; a prefilter returns min(k,
// matches); rows INSERTed after the index are found; DELETEd rows never
// come back; EXPLAIN names the index; bad vectors are InvalidInput.
func TestPeerVectorSearchSQL(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	for _, c := range []struct{ table, index string }{
		{"pq", `{"type":"IVF_PQ","metric":"l2","numPartitions":8,"numSubVectors":4}`},
		{"hnsw", `{"type":"IVF_HNSW_SQ","metric":"l2","numPartitions":4}`},
	} {
		if _, err := peer.Run(ctx, t, "vector.mjs", "create", root, c.table, "3000", "16", "5", "1000"); err != nil {
			t.Fatal(err)
		}
		if _, err := peer.Run(ctx, t, "vector.mjs", "index", root, c.table, c.index); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// session variables live on one connection (the pool resets a session
	// it hands out again)
	db, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := allVectors(ctx, t, db, "pq")
	if len(all) != 3000 {
		t.Fatalf("read %d rows", len(all))
	}
	queries := [][]float64{all[7], all[1500], all[2999]}
	f32 := func(v []float64) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	for qi, q := range queries {
		// exact: equals brute force; the distance is Euclidean
		got := queryIDs(ctx, t, db, "SELECT id, VEC_L2_DISTANCE(v, ?) AS d FROM pq IGNORE INDEX (v_idx) ORDER BY d LIMIT 10", f32(q))
		sameUpToTies(t, fmt.Sprintf("exact q%d", qi), got, bruteForce(all, q, 10, nil))
		// exact with a prefilter
		got = queryIDs(ctx, t, db, "SELECT id, VEC_L2_DISTANCE(v, ?) FROM pq IGNORE INDEX (v_idx) WHERE cat = 3 ORDER BY 2 LIMIT 10", q)
		sameUpToTies(t, fmt.Sprintf("exact prefiltered q%d", qi), got, bruteForce(all, q, 10, func(id int64) bool { return id%10 == 3 }))
	}
	// indexed: the peer's rows at the same nprobes / refine
	for _, tbl := range []string{"pq", "hnsw"} {
		for _, p := range []struct{ nprobes, refine int }{{1, 0}, {2, 3}} {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("SET lancecat_nprobes = %d, lancecat_refine_factor = %d", p.nprobes, p.refine)); err != nil {
				t.Fatal(err)
			}
			var reqs []map[string]any
			for _, q := range queries {
				reqs = append(reqs, map[string]any{"q": q, "k": 10, "nprobes": p.nprobes, "refine": p.refine})
			}
			want := peerVectorSearch(ctx, t, root, tbl, reqs)
			for qi, q := range queries {
				got := queryIDs(ctx, t, db, fmt.Sprintf("SELECT id, VEC_L2_DISTANCE(v, '%s') AS d FROM %s ORDER BY d LIMIT 10", vecText(q), tbl))
				gotIDs := map[int64]bool{}
				for _, g := range got {
					gotIDs[g.id] = true
					if math.Abs(g.d-l2(all[g.id], q)) > 1e-3 {
						t.Errorf("%s: row %d distance %v, exact %v", tbl, g.id, g.d, l2(all[g.id], q))
					}
				}
				missing := 0
				for _, id := range want[qi].IDs {
					if !gotIDs[id] {
						missing++
					}
				}
				// the peer orders by its approximate distances; ties at the
				// k-th allow one row to differ
				if len(got) != 10 || missing > 1 {
					t.Errorf("%s nprobes=%d refine=%d q%d: ids %v, peer %v", tbl, p.nprobes, p.refine, qi, got, want[qi].IDs)
				}
			}
		}
	}
	if _, err := db.ExecContext(ctx, "SET lancecat_nprobes = 1, lancecat_refine_factor = 0"); err != nil {
		t.Fatal(err)
	}
	// prefilter through the index: min(k, matches) rows
	for _, c := range []struct {
		where string
		k     int
		want  int
	}{{"cat = 3", 20, 20}, {"id IN (3, 1503, 2999, 77)", 20, 4}, {"id = 2999", 5, 1}, {"id < 0", 5, 0}} {
		got := queryIDs(ctx, t, db, fmt.Sprintf("SELECT id, VEC_L2_DISTANCE(v, ?) AS d FROM pq WHERE %s ORDER BY d LIMIT %d", c.where, c.k), queries[0])
		if len(got) != c.want {
			t.Errorf("WHERE %s LIMIT %d: %d rows, want %d", c.where, c.k, len(got), c.want)
		}
	}
	var plan []string
	rows, err := db.QueryContext(ctx, "EXPLAIN SELECT id FROM pq WHERE cat = 3 ORDER BY VEC_L2_DISTANCE(v, ?) LIMIT 5", queries[0])
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		rows.Scan(&l)
		plan = append(plan, l)
	}
	rows.Close()
	text := strings.Join(plan, "\n")
	for _, want := range []string{"index v_idx (IVF_PQ, metric l2", "nprobes=1", "refine_factor=none", "prefilter: cat = 3", "covered by the index [0, 1, 2]"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}

	// appended rows are found before a rebuild; deleted rows never return
	far := make([]float64, 16)
	for i := range far {
		far[i] = 50
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO pq (id, cat, v) VALUES (5000, 1, '%s'), (5001, 1, '%s')", vecText(far), vecText(append(append([]float64{}, far[:15]...), 51)))); err != nil {
		t.Fatal(err)
	}
	got := queryIDs(ctx, t, db, "SELECT id, VEC_L2_DISTANCE(v, ?) AS d FROM pq ORDER BY d LIMIT 2", far)
	if len(got) != 2 || got[0].id != 5000 || got[1].id != 5001 || got[0].d != 0 || got[1].d != 1 {
		t.Errorf("appended rows: %v", got)
	}
	near := bruteForce(all, queries[1], 3, nil)
	if _, err := db.ExecContext(ctx, fmt.Sprintf("DELETE FROM pq WHERE id IN (5000, %d, %d)", near[0].id, near[1].id)); err != nil {
		t.Fatal(err)
	}
	for _, q := range [][]float64{far, queries[1]} {
		for _, hint := range []string{"", "IGNORE INDEX (v_idx)"} {
			for _, g := range queryIDs(ctx, t, db, fmt.Sprintf("SELECT id, VEC_L2_DISTANCE(v, ?) AS d FROM pq %s ORDER BY d LIMIT 20", hint), q) {
				if g.id == 5000 || g.id == near[0].id || g.id == near[1].id {
					t.Errorf("deleted row %d returned (%s)", g.id, hint)
				}
			}
		}
	}
	// the peer agrees on the deletions and the appended rows
	w := peerVectorSearch(ctx, t, root, "pq", []map[string]any{{"q": far, "k": 1}})
	if len(w[0].IDs) != 1 || w[0].IDs[0] != 5001 {
		t.Errorf("peer nearest to the appended rows after the delete: %v, want [5001]", w[0].IDs)
	}

	// bad vectors: InvalidInput
	for _, bad := range []any{"[1, 2]", "[]", "[1, NaN]", "not a vector", []float32{1, 2, 3}} {
		_, err := db.QueryContext(ctx, "SELECT id FROM pq ORDER BY VEC_L2_DISTANCE(v, ?) LIMIT 3", bad)
		var de *driver.Error
		if !errors.As(err, &de) || !errors.Is(err, driver.ErrInvalidInput) {
			t.Errorf("vector %v: %v, want InvalidInput", bad, err)
		}
	}
	if _, err := db.QueryContext(ctx, "SELECT id FROM pq ORDER BY VEC_L2_DISTANCE(v, ?) LIMIT 1000000", queries[0]); !errors.Is(err, driver.ErrInvalidInput) {
		t.Errorf("k = 1000000: %v, want InvalidInput", err)
	}
}

func vecText(v []float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
