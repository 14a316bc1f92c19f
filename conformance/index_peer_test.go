package conformance

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
)

// sessionExec runs one SQL statement on a planner session.
func sessionExec(ctx context.Context, t *testing.T, s *planner.Session, q string) *planner.Result {
	t.Helper()
	st, err := sqlparse.ParseOne(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	res, err := s.Exec(ctx, st)
	if err == nil {
		err = res.Collect() // data SELECTs stream
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

func explainText(ctx context.Context, t *testing.T, s *planner.Session, q string) string {
	t.Helper()
	var lines []string
	for _, r := range sessionExec(ctx, t, s, "EXPLAIN "+q).Rows {
		lines = append(lines, fmt.Sprint(r[0]))
	}
	return strings.Join(lines, "\n")
}

// TestIndexedFixtureSelect: on the peer-built `indexed` table (BTREE on id
// and name, BITMAP on category, LABEL_LIST on tags), registered with CALL
// register_table, SELECTs with =, IN and LIKE 'prefix%' go through the
// peer's indices and return exactly what the scan without indices returns;
// still so after the peer appends rows (a fragment the indices do not
// cover) and deletes rows.
func TestIndexedFixtureSelect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := peer.FixtureCopy(t, "indexed")
	root := filepath.Dir(dir)
	lc, err := manifest.OpenCatalog(ctx, root, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	counter := &servedLookups{}
	indexed := planner.NewSession(lc.Catalog, planner.Options{Store: lc.Store, Indexes: counter})
	scanned := planner.NewSession(lc.Catalog, planner.Options{Store: lc.Store, NoIndexes: true})
	sessionExec(ctx, t, indexed, fmt.Sprintf("CALL register_table('t', %s)", sqlparse.QuoteString(filepath.Base(dir))))

	for q, want := range map[string]string{
		"SELECT id FROM t WHERE id = 5":                                          "index BTREE \"id_idx\" answers id = 5\n      covered fragments [0], read [0]\n      uncovered fragments scanned none",
		"SELECT id FROM t WHERE name LIKE 'item-01%'":                            "index BTREE \"name_idx\" answers name LIKE prefix 'item-01'",
		"SELECT id FROM t WHERE category IN ('books')":                           "index BITMAP \"category_idx\" answers category IN ('books')",
		"SELECT id FROM t WHERE value = 1 AND id = 3":                            "index BTREE \"id_idx\" answers id = 3",
		"SELECT id FROM t WHERE array_has_all(tags, 'new', 'sale') AND id < 100": "index LABEL_LIST \"tags_idx\" answers array_has_all(tags, 'new', 'sale')\n      intersected with index BTREE \"id_idx\" answers id < 100",
		"SELECT id FROM t WHERE category LIKE 'boo%'":                            "BITMAP 'category_idx' cannot answer it",
		"SELECT id FROM t WHERE id BETWEEN 10 AND 20 AND name IS NULL":           "index BTREE \"id_idx\" answers id >= 10 AND id <= 20\n      intersected with index BTREE \"name_idx\" answers name IS NULL",
		"SELECT id FROM t WHERE category = 'books' AND id < 100":                 "index BITMAP \"category_idx\" answers category = 'books'\n      intersected with index BTREE \"id_idx\" answers id < 100",
	} {
		if got := explainText(ctx, t, indexed, q); !strings.Contains(got, want) {
			t.Errorf("EXPLAIN %s:\n%s\nlacks %q", q, got, want)
		}
	}

	// array_has_any/all select the rows the peer's own filter selects.
	labelCases := [][2]string{
		{"array_has_any(tags, 'gift', 'zzz')", "array_has_any(tags, ['gift', 'zzz'])"},
		{"array_has_all(tags, 'new', 'sale')", "array_has_all(tags, ['new', 'sale'])"},
		{"array_has_any(tags, 'sale') AND id < 2000", "array_has_any(tags, ['sale']) AND id < 2000"},
	}
	var qs []map[string]any
	for _, c := range labelCases {
		qs = append(qs, map[string]any{"where": c[1], "columns": []string{"id"}})
	}
	var peerRes struct {
		Results []struct {
			Rows []struct {
				ID float64 `json:"id"`
			} `json:"rows"`
		} `json:"results"`
	}
	if err := peer.Op(ctx, t, "dataset.queryMany", map[string]any{"path": dir, "queries": qs}, &peerRes); err != nil {
		t.Fatal(err)
	}
	for i, c := range labelCases {
		want := []int64{}
		for _, row := range peerRes.Results[i].Rows {
			want = append(want, int64(row.ID))
		}
		sort.Slice(want, func(a, b int) bool { return want[a] < want[b] })
		got := []int64{}
		for _, row := range sessionExec(ctx, t, indexed, "SELECT id FROM t WHERE "+c[0]+" ORDER BY id").Rows {
			got = append(got, row[0].(int64))
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("WHERE %s: lancecat %d rows, the peer %d", c[0], len(got), len(want))
		}
	}

	r := rand.New(rand.NewPCG(3, 4))
	var names []string
	for _, row := range sessionExec(ctx, t, scanned, "SELECT name FROM t WHERE id < 40").Rows {
		if row[0] != nil {
			names = append(names, sqlparse.QuoteString(row[0].(string)))
		}
	}
	names = append(names, "'item-'", "''", "'zzz'", "'peer-1'")
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	idLits := func() string { return fmt.Sprint(r.IntN(5100) - 50) }
	cats := []string{"'books'", "'games'", "'music'", "'tools'", "'food'", "'none'", "''", "'peer'"}
	prefixes := []string{"item-0%", "item-12%", "item-%", "item-999%", "x%", "peer-%", "item-0001%"}
	cmps := []string{"<", "<=", ">", ">="}
	labels := []string{"'gift'", "'new'", "'sale'", "'zzz'", "NULL", "'peer'"}
	pred := func() string {
		switch r.IntN(12) {
		case 10:
			return fmt.Sprintf("array_has_any(tags, %s, %s)", pick(labels), pick(labels))
		case 11:
			return fmt.Sprintf("array_has_all(tags, %s, %s)", pick(labels), pick(labels))
		case 6:
			return fmt.Sprintf("id %s %s", pick(cmps), idLits())
		case 7:
			return fmt.Sprintf("id BETWEEN %s AND %s", idLits(), idLits())
		case 8:
			return fmt.Sprintf("name %s %s", pick(cmps), pick(names))
		case 9:
			return pick([]string{"name IS NULL", "category IS NULL", "category <=> NULL"})
		}
		switch r.IntN(6) {
		case 0:
			return "id = " + idLits()
		case 1:
			return fmt.Sprintf("id IN (%s, %s, %s)", idLits(), idLits(), idLits())
		case 2:
			return "name = " + pick(names)
		case 3:
			return fmt.Sprintf("name IN (%s, %s)", pick(names), pick(names))
		case 4:
			return fmt.Sprintf("category = %s", pick(cats))
		}
		return fmt.Sprintf("name LIKE %s", sqlparse.QuoteString(pick(prefixes)))
	}
	extras := []string{"", " AND value > 500", " AND category IS NOT NULL", " OR id = 7"}
	compare := func(rounds int) {
		t.Helper()
		for i := range rounds {
			// One to three indexable conjuncts: their indices intersect.
			where := pred()
			for range r.IntN(3) {
				where += " AND " + pred()
			}
			q := "SELECT id, name, category, value FROM t WHERE " + where + pick(extras)
			if i%4 == 0 {
				q = "SELECT COUNT(*) FROM t WHERE " + where + pick(extras)
			} else if i%4 == 1 {
				q += " ORDER BY id DESC LIMIT 9"
			}
			got := sessionExec(ctx, t, indexed, q).Rows
			want := sessionExec(ctx, t, scanned, q).Rows
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\n indexed %v\n scanned %v", q, got, want)
			}
		}
	}
	compare(80)
	if counter.served < 60 {
		t.Fatalf("only %d of 80 queries were answered through an index", counter.served)
	}
	counter.served = 0

	// The peer appends a fragment the indices do not cover, and deletes rows.
	var rows []map[string]any
	for i := range 50 {
		rows = append(rows, map[string]any{"id": 5000 + i, "name": fmt.Sprintf("peer-%d", i%7), "category": "peer", "tags": []string{"new"}, "value": float64(i)})
	}
	rows = append(rows, map[string]any{"id": 7, "name": "item-dup", "category": "books", "tags": nil, "value": 1.0})
	if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": rows}, nil); err != nil {
		t.Fatal(err)
	}
	if err := peer.Op(ctx, t, "dataset.delete", map[string]any{"path": dir, "where": "id % 3 = 0 OR id = 5010"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := explainText(ctx, t, indexed, "SELECT id FROM t WHERE id = 5"); !strings.Contains(got, "uncovered fragments scanned [1], checking every predicate") {
		t.Errorf("EXPLAIN after the peer's append:\n%s", got)
	}
	if got := sessionExec(ctx, t, indexed, "SELECT id, name FROM t WHERE id = 7 ORDER BY name").Rows; len(got) != 2 {
		t.Errorf("id = 7 after append: %v (want the fixture row and the appended one)", got)
	}
	if got := sessionExec(ctx, t, indexed, "SELECT COUNT(*) FROM t WHERE id IN (3, 6, 5010)").Rows; got[0][0] != int64(0) {
		t.Errorf("deleted rows returned: %v", got)
	}
	compare(80)
	if counter.served < 60 {
		t.Fatalf("after the append: only %d of 80 queries were answered through an index", counter.served)
	}
}

// servedLookups counts the lookups planner.ScalarIndexes served.
type servedLookups struct {
	planner.ScalarIndexes
	served int
}

func (c *servedLookups) Serve(ds *dataset.Dataset, p planner.IndexPredicate) (string, index.Query, bool) {
	name, q, ok := c.ScalarIndexes.Serve(ds, p)
	if ok {
		c.served++
	}
	return name, q, ok
}

// TestCreateIndexUsedByPeer: an index created with CREATE INDEX through
// database/sql is used by the peer (its plan names it) and the peer's
// results through it equal lancecat's.
func TestCreateIndexUsedByPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE SCHEMA s")
	exec("CREATE SCHEMA s.sub")
	exec("CREATE TABLE s.sub.t (id BIGINT NOT NULL, name VARCHAR(20), cat VARCHAR(10))")
	var vals []string
	for i := range 300 {
		vals = append(vals, fmt.Sprintf("(%d, 'n-%03d', '%s')", (i*37)%300, i, []string{"red", "green", "blue"}[i%3]))
	}
	exec("INSERT INTO s.sub.t VALUES " + strings.Join(vals, ", "))
	exec("INSERT INTO s.sub.t VALUES (1000, NULL, NULL), (?, ?, ?)", 1001, "n-x", "red")
	exec("CREATE INDEX id_idx ON s.sub.t (id) USING BTREE")
	exec("CREATE INDEX name_idx ON s.sub.t (name)")
	exec("CREATE INDEX cat_idx ON s.sub.t (cat) USING BITMAP")
	for _, tc := range []struct{ where, index, sql string }{
		{"id = 42", "id_idx", "SELECT id, name, cat FROM s.sub.t WHERE id = 42"},
		{"id IN (1, 2, 1001, 5000)", "id_idx", "SELECT id, name, cat FROM s.sub.t WHERE id IN (1, 2, 1001, 5000)"},
		{"name = 'n-007'", "name_idx", "SELECT id, name, cat FROM s.sub.t WHERE name = 'n-007'"},
		{"cat = 'green'", "cat_idx", "SELECT id, name, cat FROM s.sub.t WHERE cat = 'green'"},
	} {
		var p struct {
			Plan string `json:"plan"`
		}
		args := map[string]any{"uri": root, "namespace": []string{"s", "sub"}, "name": "t", "where": tc.where}
		if err := peer.Op(ctx, t, "explainPlan", args, &p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Plan, "ScalarIndexQuery") || !strings.Contains(p.Plan, tc.index) {
			t.Errorf("peer plan for %s does not use %s:\n%s", tc.where, tc.index, p.Plan)
		}
		var res struct {
			Rows []map[string]any `json:"rows"`
		}
		if err := peer.Op(ctx, t, "query", args, &res); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range res.Rows {
			want = append(want, fmt.Sprintf("%v|%v|%v", r["id"], r["name"], r["cat"]))
		}
		var got []string
		rows, err := db.QueryContext(ctx, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var name, cat sql.NullString
			if err := rows.Scan(&id, &name, &cat); err != nil {
				t.Fatal(err)
			}
			n, c := any(nil), any(nil)
			if name.Valid {
				n = name.String
			}
			if cat.Valid {
				c = cat.String
			}
			got = append(got, fmt.Sprintf("%v|%v|%v", id, n, c))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lancecat %v, peer %v", tc.where, got, want)
		}
		if len(got) == 0 {
			t.Errorf("%s: no rows (the test needs matches)", tc.where)
		}
	}
	// The peer lists the lancecat-built indices with the kinds lancecat wrote.
	var li struct {
		Indices []map[string]any `json:"indices"`
	}
	if err := peer.Op(ctx, t, "listIndices", map[string]any{"uri": root, "namespace": []string{"s", "sub"}, "name": "t"}, &li); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, ix := range li.Indices {
		kinds[fmt.Sprint(ix["name"])] = fmt.Sprint(ix["indexType"])
	}
	if want := map[string]string{"id_idx": "BTree", "name_idx": "BTree", "cat_idx": "Bitmap"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("peer lists indices %v, want %v", kinds, want)
	}
	// DROP INDEX commits a version the peer sees without it.
	exec("DROP INDEX name_idx ON s.sub.t")
	if err := peer.Op(ctx, t, "listIndices", map[string]any{"uri": root, "namespace": []string{"s", "sub"}, "name": "t"}, &li); err != nil {
		t.Fatal(err)
	}
	if len(li.Indices) != 2 {
		t.Errorf("after DROP INDEX the peer lists %v", li.Indices)
	}
}
