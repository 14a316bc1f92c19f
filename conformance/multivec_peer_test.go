package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// multiVectorLiteral is a multivector as SQL text, each float32 exactly.
func multiVectorLiteral(m [][]float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j, x := range v {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

type multiVectorQuery struct {
	q      [][]float32
	metric string // cosine | dot
	where  string
	k      int
}

func (q multiVectorQuery) sql(table string) string {
	fn := map[string]string{"cosine": "VEC_MAXSIM_COSINE_DISTANCE", "dot": "VEC_MAXSIM_DOT_DISTANCE"}[q.metric]
	where := ""
	if q.where != "" {
		where = " WHERE " + q.where
	}
	return fmt.Sprintf("SELECT id, %s(mv, '%s') AS d FROM %s%s ORDER BY d LIMIT %d", fn, multiVectorLiteral(q.q), table, where, q.k)
}

func multiVectorPeerSearch(ctx context.Context, t *testing.T, root, table string, qs []multiVectorQuery) []peerVecHits {
	t.Helper()
	var reqs []map[string]any
	for _, q := range qs {
		r := map[string]any{"q": q.q, "metric": q.metric, "k": q.k, "exact": true}
		if q.where != "" {
			r["where"] = q.where
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

// peerQueryFile writes reqs as JSON to a file and runs `node script search
// root table file`, decoding its last output line into res.
func peerQueryFile(ctx context.Context, t *testing.T, script, root, table string, reqs, res any) {
	t.Helper()
	qf := filepath.Join(t.TempDir(), "q.json")
	b, _ := json.Marshal(reqs)
	if err := os.WriteFile(qf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := peer.Run(ctx, t, script, "search", root, table, qf)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := json.Unmarshal(lastLine(out), res); err != nil {
		t.Fatalf("%s search: %v: %.300s", script, err, out)
	}
}

// explainSQL is EXPLAIN q's lines, joined by newlines.
func explainSQL(ctx context.Context, t *testing.T, db querier, q string) string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// sameHits compares lancecat's hits with the peer's: the same number, each
// distance within tol of the peer's at that rank, and the same id at each
// rank unless the two ids tie (their distances within tol).
func sameHits(t *testing.T, label string, got []idDist, want peerVecHits, tol float64) {
	t.Helper()
	if len(got) != len(want.IDs) {
		t.Errorf("%s: %d rows %v, the peer %d %v", label, len(got), got, len(want.IDs), want.IDs)
		return
	}
	for i, g := range got {
		if math.Abs(g.d-want.Dists[i]) > tol {
			t.Errorf("%s: rank %d: id %d distance %v, the peer's id %d %v", label, i, g.id, g.d, want.IDs[i], want.Dists[i])
		} else if g.id != want.IDs[i] {
			tie := false
			for j, id := range want.IDs {
				tie = tie || (id == g.id && math.Abs(want.Dists[j]-g.d) <= tol)
			}
			if !tie {
				t.Errorf("%s: rank %d: id %d, the peer's %d (distances %v / %v)", label, i, g.id, want.IDs[i], g.d, want.Dists[i])
			}
		}
	}
}

// TestPeerMultiVectorSearch: over 400 rows of 2-8 vectors of 16 floats in a
// list<fixed_size_list<float32>[16]> column the peer wrote, lancecat's
// DESCRIBE shows MULTIVECTOR(16) and ORDER BY
// VEC_MAXSIM_{COSINE,DOT}_DISTANCE(mv, '[[...], ...]') LIMIT 10, with and
// without a WHERE prefilter, for queries of 1 to 4 vectors, returns the ids
// (in order up to ties) and _distance (1e-5) of the peer's exact
// multivector search (table.search(q).distanceType(metric)
// .bypassVectorIndex()). A table lancecat created as MULTIVECTOR(16) and
// filled by INSERT reads in the peer with every float as written and the
// same type, and the peer's search over it answers as lancecat's; a query
// bound as a [][]float32 placeholder answers as its text. (Searches through
// the peer's index: TestPeerMultiVectorIndexSearch.)
func TestPeerMultiVectorSearch(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const n, dim = 400, 16
	rng := rand.New(rand.NewPCG(16, 8))
	rows := make([][][]float32, n)
	var b strings.Builder
	for i := range n {
		m := make([][]float32, 2+rng.IntN(7))
		for j := range m {
			m[j] = make([]float32, dim)
			for k := range m[j] {
				m[j][k] = float32(rng.NormFloat64())
			}
		}
		rows[i] = m
		j, _ := json.Marshal(map[string]any{"id": i, "cat": i % 3, "mv": m})
		b.Write(j)
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	rowsFile := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(rowsFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if out, err := peer.Run(ctx, t, "multivec.mjs", "create", root, "theirs", rowsFile, strconv.Itoa(dim)); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	db, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var col, typ string
	var null, key, extra string
	var def sql.NullString
	if err := db.QueryRowContext(ctx, "SHOW COLUMNS FROM theirs LIKE 'mv'").Scan(&col, &typ, &null, &key, &def, &extra); err != nil || !strings.EqualFold(typ, "MULTIVECTOR(16)") {
		t.Fatalf("the peer's multivector column: %q %v, want MULTIVECTOR(16)", typ, err)
	}

	// queries: near a row (its vectors perturbed, some of them) and random
	var qs []multiVectorQuery
	for qi, r := range []int{3, 77, 150, 222, 301, 399} {
		q := make([][]float32, 1+qi%4)
		for j := range q {
			q[j] = make([]float32, dim)
			src := rows[r][j%len(rows[r])]
			for k := range q[j] {
				q[j][k] = src[k] + float32(0.5*rng.NormFloat64())
				if qi == 5 {
					q[j][k] = float32(rng.NormFloat64()) // far from every row
				}
			}
		}
		for _, metric := range []string{"cosine", "dot"} {
			qs = append(qs,
				multiVectorQuery{q: q, metric: metric, k: 10},
				multiVectorQuery{q: q, metric: metric, k: 10, where: fmt.Sprintf("cat = %d", r%3)},
				multiVectorQuery{q: q, metric: metric, k: 5, where: "id >= 100 AND cat <> 2"},
			)
		}
	}
	check := func(table string) {
		t.Helper()
		want := multiVectorPeerSearch(ctx, t, root, table, qs)
		for i, q := range qs {
			label := fmt.Sprintf("%s %s q%d (%d vectors) where %q", table, q.metric, i, len(q.q), q.where)
			if len(want[i].IDs) != q.k {
				t.Errorf("%s: the peer returned %d rows, want %d", label, len(want[i].IDs), q.k)
			}
			sameHits(t, label, queryIDs(ctx, t, db, q.sql(table)), want[i], 1e-5)
		}
	}
	check("theirs")
	// the query bound as a [][]float32 placeholder
	bound := fmt.Sprintf("SELECT id, VEC_MAXSIM_DOT_DISTANCE(mv, ?) AS d FROM theirs ORDER BY d LIMIT %d", qs[3].k)
	if qs[3].metric != "dot" || qs[3].where != "" {
		t.Fatalf("query 3 is %s where %q, want dot without WHERE", qs[3].metric, qs[3].where)
	}
	sameHits(t, "bound [][]float32", queryIDs(ctx, t, db, bound, qs[3].q), multiVectorPeerSearch(ctx, t, root, "theirs", qs[3:4])[0], 1e-5)

	// lancecat's own MULTIVECTOR table, read and searched by the peer
	if _, err := db.ExecContext(ctx, "CREATE TABLE mine (id BIGINT NOT NULL, cat BIGINT, mv MULTIVECTOR(16), PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	var vals []string
	for i, m := range rows {
		vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", i, i%3, multiVectorLiteral(m)))
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO mine VALUES "+strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	out, err := peer.Run(ctx, t, "multivec.mjs", "read", root, "mine")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var read struct {
		Type string `json:"type"`
		Rows []struct {
			ID int64       `json:"id"`
			MV [][]float32 `json:"mv"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(lastLine(out), &read); err != nil || len(read.Rows) != n {
		t.Fatalf("peer read of mine: %v: %.300s", err, out)
	}
	if read.Type != "List<FixedSizeList[16]<Float32>>" {
		t.Errorf("the peer reads mine's mv as %s", read.Type)
	}
	for _, r := range read.Rows {
		if multiVectorLiteral(r.MV) != multiVectorLiteral(rows[r.ID]) {
			t.Fatalf("row %d: the peer reads %v, written %v", r.ID, r.MV, rows[r.ID])
		}
	}
	check("mine")
}
