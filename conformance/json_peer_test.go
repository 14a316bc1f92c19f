package conformance

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/sqltypes/jsonb"
)

// jsonDocs are the documents both directions carry, as MySQL's normalized
// text, seeded random documents after the fixed ones.
func jsonDocs() []string {
	docs := []string{
		`{"a": 1, "b": [1, 2]}`, `null`, `true`, `false`, `0`, `-1`, `18446744073709551615`,
		`-9223372036854775808`, `1.5`, `100.0`, `-1.5e-10`, `""`, `"x\"y\\z\n"`, `"é😀"`, `[]`, `{}`,
		`{"B": 4, "a": 3, "b": 1, "aa": 2, "é": 5}`, `[[], {}, [{}], {"k": [null, true]}]`,
		`{"user": {"name": "Alice", "tags": ["x", "y"], "age": 30}}`,
	}
	r := rand.New(rand.NewSource(3140))
	for i := 0; i < 60; i++ {
		docs = append(docs, randomJSON(r, 0))
	}
	for i, d := range docs {
		v, err := jsonb.Parse(d)
		if err != nil {
			panic(err)
		}
		docs[i] = jsonb.Format(v)
	}
	return docs
}

func randomJSON(r *rand.Rand, depth int) string {
	k := r.Intn(8)
	if depth > 3 && k >= 6 {
		k = r.Intn(6)
	}
	switch k {
	case 0:
		return "null"
	case 1:
		return fmt.Sprint(r.Intn(2) == 0)
	case 2:
		return fmt.Sprint(r.Int63n(1<<40) - 1<<39)
	case 3:
		return jsonb.FormatFloat(r.NormFloat64() * 1e3)
	case 4, 5:
		return jsonb.Quote(fmt.Sprintf("s%c%d", 'a'+r.Intn(26), r.Intn(1000)))
	case 6:
		var parts []string
		for n := r.Intn(4); n > 0; n-- {
			parts = append(parts, randomJSON(r, depth+1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	o := &jsonb.Object{}
	for n := r.Intn(5); n > 0; n-- {
		v, _ := jsonb.Parse(randomJSON(r, depth+1))
		o.Set(fmt.Sprintf("%c%d", 'a'+r.Intn(26), r.Intn(100)), v)
	}
	return jsonb.Format(o)
}

// normJSON is the MySQL text of a JSON text (the peer prints compact text
// with its own key order).
func normJSON(t *testing.T, s string) string {
	t.Helper()
	v, err := jsonb.Parse(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return jsonb.Format(v)
}

func lancecatJSON(ctx context.Context, t *testing.T, db *sql.DB, q string) map[int64]*string {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]*string{}
	for rows.Next() {
		var id int64
		var j sql.NullString
		if err := rows.Scan(&id, &j); err != nil {
			t.Fatal(err)
		}
		if j.Valid {
			s := j.String
			out[id] = &s
		} else {
			out[id] = nil
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func peerJSON(ctx context.Context, t *testing.T, root, where string) map[int64]*string {
	t.Helper()
	var q struct {
		Rows []struct {
			ID int64   `json:"id"`
			J  *string `json:"j"`
		} `json:"rows"`
	}
	args := map[string]any{"uri": root, "name": "t", "columns": []string{"id", "j"}}
	if where != "" {
		args["where"] = where
	}
	if err := peer.Op(ctx, t, "query", args, &q); err != nil {
		t.Fatal(err)
	}
	out := map[int64]*string{}
	for _, r := range q.Rows {
		out[r.ID] = r.J
	}
	return out
}

// TestJSONLancecatWritesPeer: the peer reads the JSON lancecat's INSERT and
// UPDATE store (as lance.json JSONB) to the same documents, SQL NULL as
// NULL and JSON null as the text null, and its json_extract filters them.
func TestJSONLancecatWritesPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT NOT NULL, j JSON, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	docs := jsonDocs()
	var vals []string
	for i, d := range docs {
		vals = append(vals, fmt.Sprintf("(%d, '%s')", i, strings.ReplaceAll(strings.ReplaceAll(d, `\`, `\\`), "'", "''")))
	}
	vals = append(vals, fmt.Sprintf("(%d, NULL)", len(docs)))
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE t SET j = '{"updated": [1, "two"]}' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	docs[1] = `{"updated": [1, "two"]}`
	ours := lancecatJSON(ctx, t, db, "SELECT id, j FROM t")
	theirs := peerJSON(ctx, t, root, "")
	if len(theirs) != len(docs)+1 || len(ours) != len(docs)+1 {
		t.Fatalf("the peer reads %d rows, lancecat %d, want %d", len(theirs), len(ours), len(docs)+1)
	}
	for i, d := range docs {
		id := int64(i)
		if ours[id] == nil || *ours[id] != d {
			t.Errorf("lancecat reads row %d as %v, want %s", id, deref(ours[id]), d)
		}
		if theirs[id] == nil || normJSON(t, *theirs[id]) != d {
			t.Errorf("the peer reads row %d as %v, want %s", id, deref(theirs[id]), d)
		}
	}
	if j, ok := theirs[int64(len(docs))]; !ok || j != nil {
		t.Errorf("SQL NULL: the peer reads %v", j)
	}
	got := peerJSON(ctx, t, root, `json_extract(j, '$.user.name') = '"Alice"'`)
	if len(got) != 1 || got[18] == nil {
		t.Errorf("the peer's json_extract filter found %v", got)
	}
}

// TestJSONPeerWritesLancecat: lancecat reads the JSONB the peer stores for
// JSON text (an Arrow utf8 field tagged arrow.json) as MySQL's normalized
// text, and rewrites it with UPDATE.
func TestJSONPeerWritesLancecat(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	docs := jsonDocs()
	rows := []map[string]any{}
	for i, d := range docs {
		rows = append(rows, map[string]any{"id": i, "j": d})
	}
	rows = append(rows, map[string]any{"id": len(docs), "j": nil})
	args := map[string]any{
		"uri": root, "name": "t", "dataStorageVersion": "2.1",
		"schema": map[string]any{"fields": []any{
			map[string]any{"name": "id", "type": "int64", "nullable": false},
			map[string]any{"name": "j", "type": "utf8", "metadata": map[string]string{"ARROW:extension:name": "arrow.json"}},
		}},
		"rows": rows,
	}
	if err := peer.Op(ctx, t, "createTable", args, nil); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ours := lancecatJSON(ctx, t, db, "SELECT id, j FROM t")
	for i, d := range docs {
		if s := ours[int64(i)]; s == nil || *s != d {
			t.Errorf("lancecat reads the peer's row %d as %v, want %s", i, deref(s), d)
		}
	}
	if s, ok := ours[int64(len(docs))]; !ok || s != nil {
		t.Errorf("SQL NULL read as %v", s)
	}
	var typ string
	if err := db.QueryRowContext(ctx, "SELECT data_type FROM information_schema.columns WHERE table_name = 't' AND column_name = 'j'").Scan(&typ); err != nil || !strings.EqualFold(typ, "json") {
		t.Errorf("information_schema types the peer's column %q, %v", typ, err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE t SET j = '[3, {"z": null}]' WHERE id = 0`); err != nil {
		t.Fatal(err)
	}
	theirs := peerJSON(ctx, t, root, "id = 0")
	if s := theirs[0]; s == nil || normJSON(t, *s) != `[3, {"z": null}]` {
		t.Errorf("the peer reads lancecat's UPDATE as %v", s)
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}
