package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/prose"
)

type ftsHit struct {
	ID    int64   `json:"id"`
	Score float64 `json:"score"`
}

func ftsWriteRows(t *testing.T, path string, first int, texts []string) {
	t.Helper()
	var b strings.Builder
	for i, s := range texts {
		j, _ := json.Marshal(map[string]any{"id": first + i, "text": s})
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ftsPeerSearch(ctx context.Context, t *testing.T, root, table string, qs []map[string]any) [][]ftsHit {
	t.Helper()
	qf := filepath.Join(t.TempDir(), "q.json")
	b, _ := json.Marshal(qs)
	if err := os.WriteFile(qf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := peer.Run(ctx, t, "fts.mjs", "search", root, table, qf)
	if err != nil {
		t.Fatal(err)
	}
	var res [][]ftsHit
	if err := json.Unmarshal(lastLine(out), &res); err != nil {
		t.Fatalf("peer search: %v: %.300s", err, out)
	}
	return res
}

func ftsQuery(ctx context.Context, t *testing.T, db *sql.DB, q string) []ftsHit {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []ftsHit
	for rows.Next() {
		var h ftsHit
		if err := rows.Scan(&h.ID, &h.Score); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func ftsClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-4*math.Max(math.Abs(a), math.Abs(b))
}

// ftsSame: equal scores position by position (1e-4 relative) and equal ids
// except among rows tied at the last score.
func ftsSame(t *testing.T, label string, got, want []ftsHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, peer %d\n got %v\npeer %v", label, len(got), len(want), got, want)
		return
	}
	for i := range got {
		if !ftsClose(got[i].Score, want[i].Score) {
			t.Errorf("%s: row %d score %v, peer %v\n got %v\npeer %v", label, i, got[i].Score, want[i].Score, got, want)
			return
		}
	}
	if len(got) == 0 {
		return
	}
	last := want[len(want)-1].Score
	ids := map[int64]bool{}
	for _, h := range want {
		ids[h.ID] = true
	}
	for _, h := range got {
		if !ftsClose(h.Score, last) && !ids[h.ID] {
			t.Errorf("%s: id %d not in the peer's answer\n got %v\npeer %v", label, h.ID, got, want)
			return
		}
	}
}

// TestPeerFTSThroughSQL: over 6,000 real paragraphs in a table the peer
// wrote and indexed, MATCH ... AGAINST and FTS_MATCH_WORD in WHERE, the
// select list and ORDER BY ... DESC LIMIT 10 return the peer's top 10 and
// BM25 scores; so do a prefilter beside MATCH (10 rows when 10 match),
// boolean mode (+must -not "phrase"), and, after the peer deletes rows and
// appends a fragment its index does not cover, the same queries (deleted
// rows never return, appended rows are scored as the peer scores them).
// Without an index, the error names CREATE FULLTEXT INDEX; EXPLAIN names
// the index, the query and the fragments.
func TestPeerFTSThroughSQL(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	paras, err := prose.Paragraphs(6500, 8)
	if err != nil || len(paras) < 6500 {
		t.Fatalf("corpus: %d paragraphs, %v", len(paras), err)
	}
	root := t.TempDir()
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows.jsonl")
	ftsWriteRows(t, rows, 0, paras[:6000])
	opts := filepath.Join(dir, "opts.json")
	if err := os.WriteFile(opts, []byte(`{"withPosition": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := peer.Run(ctx, t, "fts.mjs", "create", root, "docs", rows, opts); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if out, err := peer.Run(ctx, t, "fts.mjs", "table", root, "plain", rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	db, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	type sqlCase struct {
		label string
		sql   string
		peer  map[string]any
	}
	match := func(q string) map[string]any { return map[string]any{"kind": "match", "q": q, "limit": 10} }
	cases := []sqlCase{
		{"one word", "SELECT id, MATCH (text) AGAINST ('goroutine') AS s FROM docs WHERE MATCH (text) AGAINST ('goroutine') ORDER BY s DESC LIMIT 10", match("goroutine")},
		{"multi-word", "SELECT id, MATCH (text) AGAINST ('concurrent use by multiple goroutines' IN NATURAL LANGUAGE MODE) FROM docs WHERE MATCH (text) AGAINST ('concurrent use by multiple goroutines' IN NATURAL LANGUAGE MODE) ORDER BY MATCH (text) AGAINST ('concurrent use by multiple goroutines' IN NATURAL LANGUAGE MODE) DESC LIMIT 10", match("concurrent use by multiple goroutines")},
		{"fts_match_word", "SELECT id, FTS_MATCH_WORD('zero value', text) AS s FROM docs WHERE FTS_MATCH_WORD('zero value', text) ORDER BY s DESC LIMIT 10", match("zero value")},
		{"where only (rows by relevance)", "SELECT id, MATCH (text) AGAINST ('pointer') FROM docs WHERE MATCH (text) AGAINST ('pointer') LIMIT 10", match("pointer")},
		{"prefilter", "SELECT id, MATCH (text) AGAINST ('file') AS s FROM docs WHERE MATCH (text) AGAINST ('file') AND id >= 3000 ORDER BY s DESC LIMIT 10",
			map[string]any{"kind": "match", "q": "file", "limit": 10, "where": "id >= 3000"}},
		{"boolean must/must_not", "SELECT id, MATCH (text) AGAINST ('+buffer -read' IN BOOLEAN MODE) AS s FROM docs WHERE MATCH (text) AGAINST ('+buffer -read' IN BOOLEAN MODE) ORDER BY s DESC LIMIT 10",
			map[string]any{"kind": "bool", "limit": 10, "clauses": []any{[]any{"MUST", map[string]any{"kind": "match", "q": "buffer"}}, []any{"MUST_NOT", map[string]any{"kind": "match", "q": "read"}}}}},
		{"boolean should", "SELECT id, MATCH (text) AGAINST ('directory symlink' IN BOOLEAN MODE) AS s FROM docs WHERE MATCH (text) AGAINST ('directory symlink' IN BOOLEAN MODE) ORDER BY s DESC LIMIT 10",
			map[string]any{"kind": "bool", "limit": 10, "clauses": []any{[]any{"SHOULD", map[string]any{"kind": "match", "q": "directory"}}, []any{"SHOULD", map[string]any{"kind": "match", "q": "symlink"}}}}},
		{"boolean phrase", `SELECT id, MATCH (text) AGAINST ('"returns an error"' IN BOOLEAN MODE) AS s FROM docs WHERE MATCH (text) AGAINST ('"returns an error"' IN BOOLEAN MODE) ORDER BY s DESC LIMIT 10`,
			map[string]any{"kind": "bool", "limit": 10, "clauses": []any{[]any{"SHOULD", map[string]any{"kind": "phrase", "q": "returns an error"}}}}},
	}
	check := func(stage string) {
		var qs []map[string]any
		for _, c := range cases {
			qs = append(qs, c.peer)
		}
		want := ftsPeerSearch(ctx, t, root, "docs", qs)
		for i, c := range cases {
			got := ftsQuery(ctx, t, db, c.sql)
			if len(want[i]) == 0 {
				t.Errorf("%s %s: the peer found nothing: the case tests nothing", stage, c.label)
			}
			ftsSame(t, stage+" "+c.label, got, want[i])
		}
	}
	check("peer-built")

	// Without an index the error names the fix; CREATE FULLTEXT INDEX builds
	// one the peer searches as its own.
	_, err = db.QueryContext(ctx, "SELECT id FROM plain WHERE MATCH (text) AGAINST ('puppy')")
	if err == nil || !strings.Contains(err.Error(), "CREATE FULLTEXT INDEX") {
		t.Errorf("MATCH without an index: %v, want an error naming CREATE FULLTEXT INDEX", err)
	}
	if _, err := db.ExecContext(ctx, "CREATE FULLTEXT INDEX text_idx ON plain (text) WITH PROPERTIES (with_position = true)"); err != nil {
		t.Fatal(err)
	}
	{
		var qs []map[string]any
		for _, c := range cases {
			qs = append(qs, c.peer)
		}
		want := ftsPeerSearch(ctx, t, root, "docs", qs)
		got := ftsPeerSearch(ctx, t, root, "plain", qs)
		for i, c := range cases {
			ftsSame(t, "peer over lancecat-built index: "+c.label, got[i], want[i])
			ftsSame(t, "lancecat over lancecat-built index: "+c.label, ftsQuery(ctx, t, db, strings.ReplaceAll(c.sql, "FROM docs", "FROM plain")), want[i])
		}
	}

	// Prefilter: k rows when k match.
	got := ftsQuery(ctx, t, db, "SELECT id, MATCH (text) AGAINST ('the buffer') FROM docs WHERE MATCH (text) AGAINST ('the buffer') AND id < 2000 ORDER BY 2 DESC LIMIT 10")
	if len(got) != 10 {
		t.Errorf("prefilter: %d rows, want 10", len(got))
	}
	for _, h := range got {
		if h.ID >= 2000 {
			t.Errorf("prefilter: id %d", h.ID)
		}
	}

	// The peer deletes rows and appends a fragment its index does not cover.
	if out, err := peer.Run(ctx, t, "fts.mjs", "delete", root, "docs", "id < 1500"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	more := filepath.Join(dir, "more.jsonl")
	ftsWriteRows(t, more, 6000, paras[6000:6500])
	if out, err := peer.Run(ctx, t, "fts.mjs", "add", root, "docs", more); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	check("after delete+append")
	for _, h := range ftsQuery(ctx, t, db, "SELECT id, MATCH (text) AGAINST ('file') FROM docs WHERE MATCH (text) AGAINST ('file')") {
		if h.ID < 1500 {
			t.Fatalf("deleted row %d returned", h.ID)
		}
	}

	// EXPLAIN.
	text := explainSQL(ctx, t, db, "SELECT id FROM docs WHERE MATCH (text) AGAINST ('file') AND id > 5 ORDER BY MATCH (text) AGAINST ('file') DESC LIMIT 3")
	for _, want := range []string{"FullTextSearch", "text_idx", "INVERTED", `match("file", OR)`, "prefilter: id > 5", "fragments covered [0], scanned [1]"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}

	// FULLTEXT KEY in CREATE TABLE: an index built with the table (empty),
	// then rows INSERTed into fragments it does not cover; lancecat and the
	// peer score them alike.
	if _, err := db.ExecContext(ctx, "CREATE TABLE notes (id BIGINT NOT NULL, `text` VARCHAR(400), PRIMARY KEY (id), FULLTEXT KEY text_ft (`text`))"); err != nil {
		t.Fatal(err)
	}
	var vals []string
	for i := 0; i < 40; i++ {
		vals = append(vals, "("+strings.TrimSpace(strings.Repeat(" ", 0))+itoa(i)+", '"+strings.ReplaceAll(paras[i*7], "'", "''")+"')")
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO notes (id, `text`) VALUES "+strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	// The same rows match as in the peer. Their scores are not compared:
	// over an index of no documents the peer's flat scoring of appended rows
	// differs from the one it uses beside a non-empty index (see the report).
	all := func(q string) map[string]any { return map[string]any{"kind": "match", "q": q, "limit": 1000} }
	nwant := ftsPeerSearch(ctx, t, root, "notes", []map[string]any{all("file"), all("the tar format")})
	for i, q := range []string{"file", "the tar format"} {
		got := ftsQuery(ctx, t, db, "SELECT id, MATCH (`text`) AGAINST ('"+q+"') FROM notes WHERE MATCH (`text`) AGAINST ('"+q+"')")
		ids := map[int64]bool{}
		for _, h := range got {
			ids[h.ID] = true
		}
		if len(nwant[i]) == 0 || len(got) != len(nwant[i]) {
			t.Errorf("FULLTEXT KEY %q: %d rows, peer %d", q, len(got), len(nwant[i]))
		}
		for _, h := range nwant[i] {
			if !ids[h.ID] {
				t.Errorf("FULLTEXT KEY %q: peer's row %d missing", q, h.ID)
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestPeerFTSLargeIndex: over 30,000 real paragraphs (index files of many
// pages) the peer builds an index with positions — which on a 2-core
// machine needs conformance/peer/lance-env.mjs (LANCE_CPU_THREADS >= 2;
// with Lance's default of one thread there its createIndex deadlocks from
// a few thousand documents) — and lancecat's MATCH, FTS_MATCH_WORD and
// phrase queries over it return the peer's top 10 and BM25 scores.
func TestPeerFTSLargeIndex(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const n = 30000
	paras, err := prose.Paragraphs(n, 8)
	if err != nil || len(paras) < n {
		t.Fatalf("corpus: %d paragraphs, %v", len(paras), err)
	}
	root, dir := t.TempDir(), t.TempDir()
	rows := filepath.Join(dir, "rows.jsonl")
	ftsWriteRows(t, rows, 0, paras)
	opts := filepath.Join(dir, "opts.json")
	if err := os.WriteFile(opts, []byte(`{"withPosition": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := peer.Run(ctx, t, "fts.mjs", "create", root, "docs", rows, opts); err != nil {
		t.Fatalf("peer createIndex over %d documents: %v: %s", n, err, out)
	}
	db, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	match := func(q string) map[string]any { return map[string]any{"kind": "match", "q": q, "limit": 10} }
	phrase := func(q string) map[string]any {
		return map[string]any{"kind": "bool", "limit": 10, "clauses": []any{[]any{"SHOULD", map[string]any{"kind": "phrase", "q": q}}}}
	}
	cases := []struct {
		label, sql string
		peer       map[string]any
	}{
		{"one word", "SELECT id, MATCH (text) AGAINST ('goroutine') AS s FROM docs WHERE MATCH (text) AGAINST ('goroutine') ORDER BY s DESC LIMIT 10", match("goroutine")},
		{"frequent word", "SELECT id, MATCH (text) AGAINST ('value') AS s FROM docs WHERE MATCH (text) AGAINST ('value') ORDER BY s DESC LIMIT 10", match("value")},
		{"multi-word", "SELECT id, FTS_MATCH_WORD('concurrent use by multiple goroutines', text) AS s FROM docs WHERE FTS_MATCH_WORD('concurrent use by multiple goroutines', text) ORDER BY s DESC LIMIT 10", match("concurrent use by multiple goroutines")},
		{"phrase", `SELECT id, MATCH (text) AGAINST ('"returns an error"' IN BOOLEAN MODE) AS s FROM docs WHERE MATCH (text) AGAINST ('"returns an error"' IN BOOLEAN MODE) ORDER BY s DESC LIMIT 10`, phrase("returns an error")},
		{"phrase of frequent words", `SELECT id, MATCH (text) AGAINST ('"zero value"' IN BOOLEAN MODE) AS s FROM docs WHERE MATCH (text) AGAINST ('"zero value"' IN BOOLEAN MODE) ORDER BY s DESC LIMIT 10`, phrase("zero value")},
	}
	var qs []map[string]any
	for _, c := range cases {
		qs = append(qs, c.peer)
	}
	want := ftsPeerSearch(ctx, t, root, "docs", qs)
	for i, c := range cases {
		if len(want[i]) == 0 {
			t.Errorf("%s: the peer found nothing: the case tests nothing", c.label)
		}
		ftsSame(t, c.label, ftsQuery(ctx, t, db, c.sql), want[i])
	}
}
