package inverted_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	_ "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/lance/index/inverted"
)

type scored struct {
	id    int64
	score float64
}

func matchRows(t *testing.T, db *sql.DB, table, q string) []scored {
	t.Helper()
	m := "MATCH (body) AGAINST ('" + q + "')"
	rows, err := db.Query("SELECT id, " + m + " AS s FROM " + table + " WHERE " + m + " ORDER BY s DESC LIMIT 10")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []scored
	for rows.Next() {
		var s scored
		if err := rows.Scan(&s.id, &s.score); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCachedIndexFollowsVersions: statements reuse an index loaded by an
// earlier one, and still answer as a freshly loaded index does after rows
// are deleted and appended (new dataset versions, same index files); the
// cache holds at most KeptSegments indices.
func TestCachedIndexFollowsVersions(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("lancecat", "memory://fts-cache-test/lake")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	words := []string{"red", "green", "blue", "apple", "pear", "plum", "fig"}
	insert := func(table string, from, to int) {
		var vals []string
		for i := from; i < to; i++ {
			body := fmt.Sprintf("%s %s %s", words[i%7], words[(i/7)%7], strings.Repeat("filler ", i%5))
			vals = append(vals, fmt.Sprintf("(%d, '%s')", i, body))
		}
		exec("INSERT INTO " + table + " VALUES " + strings.Join(vals, ", "))
	}
	exec("CREATE TABLE docs (id BIGINT NOT NULL, body TEXT, PRIMARY KEY (id))")
	insert("docs", 0, 400)
	exec("CREATE FULLTEXT INDEX body_idx ON docs (body)")

	inverted.DropCachedSegments()
	fresh := matchRows(t, db, "docs", "apple green")
	if len(fresh) != 10 {
		t.Fatalf("%d hits, want 10", len(fresh))
	}
	if n := inverted.CachedSegments(); n != 1 {
		t.Fatalf("%d cached segments after one search, want 1", n)
	}
	if again := matchRows(t, db, "docs", "apple green"); !slices.Equal(again, fresh) {
		t.Fatalf("from the cache: %v, freshly loaded: %v", again, fresh)
	}

	// A new version: the best hit deleted, rows the index does not cover
	// appended (some scoring high: short documents with both words).
	exec(fmt.Sprintf("DELETE FROM docs WHERE id = %d", fresh[0].id))
	exec("INSERT INTO docs VALUES (1000, 'apple green'), (1001, 'green apple apple'), (1002, 'pear')")
	cached := matchRows(t, db, "docs", "apple green")
	inverted.DropCachedSegments()
	reloaded := matchRows(t, db, "docs", "apple green")
	if !slices.Equal(cached, reloaded) {
		t.Fatalf("after DELETE and INSERT: cached index %v, freshly loaded %v", cached, reloaded)
	}
	for _, h := range cached {
		if h.id == fresh[0].id {
			t.Errorf("deleted row %d returned: %v", h.id, cached)
		}
	}
	if !slices.ContainsFunc(cached, func(s scored) bool { return s.id == 1000 }) {
		t.Errorf("appended row 1000 missing: %v", cached)
	}

	// More indexed tables than the cache keeps: it stays bounded, and each
	// still answers as when loaded fresh.
	for i := 0; i < inverted.KeptSegments+3; i++ {
		name := fmt.Sprintf("t%d", i)
		exec("CREATE TABLE " + name + " (id BIGINT NOT NULL, body TEXT, PRIMARY KEY (id))")
		insert(name, 0, 50+i)
		exec("CREATE FULLTEXT INDEX body_idx ON " + name + " (body)")
		if got := matchRows(t, db, name, "plum"); len(got) == 0 {
			t.Fatalf("%s: no hits", name)
		}
		if n := inverted.CachedSegments(); n > inverted.KeptSegments {
			t.Fatalf("%d cached segments, bound %d", n, inverted.KeptSegments)
		}
	}
	if got := matchRows(t, db, "docs", "apple green"); !slices.Equal(got, reloaded) {
		t.Errorf("after eviction: %v, want %v", got, reloaded)
	}
}

// TestClosedDBLeavesNoCachedSegments: sql.DB.Close drops the segments read
// through that catalog's store, and only those: another open catalog's
// segment stays cached and answers.
func TestClosedDBLeavesNoCachedSegments(t *testing.T) {
	ctx := context.Background()
	open := func(name string) *sql.DB {
		t.Helper()
		db, err := sql.Open("lancecat", "memory://fts-close-test/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"CREATE TABLE docs (id BIGINT NOT NULL, body TEXT, PRIMARY KEY (id))",
			"INSERT INTO docs VALUES (1, 'red apple'), (2, 'green pear'), (3, 'red plum')",
			"CREATE FULLTEXT INDEX body_idx ON docs (body)",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return db
	}
	inverted.DropCachedSegments()
	kept, closed := open("kept"), open("closed")
	defer kept.Close()
	if got := matchRows(t, kept, "docs", "red"); len(got) != 2 {
		t.Fatalf("kept: %v, want 2 hits", got)
	}
	if got := matchRows(t, closed, "docs", "red"); len(got) != 2 {
		t.Fatalf("closed: %v, want 2 hits", got)
	}
	if n := inverted.CachedSegments(); n != 2 {
		t.Fatalf("%d cached segments after searching two catalogs, want 2", n)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if n := inverted.CachedSegments(); n != 1 {
		t.Fatalf("%d cached segments after closing one catalog, want 1", n)
	}
	if got := matchRows(t, kept, "docs", "red"); len(got) != 2 {
		t.Fatalf("kept after the other closed: %v, want 2 hits", got)
	}
	if n := inverted.CachedSegments(); n != 1 {
		t.Fatalf("%d cached segments, want the kept catalog's 1 still cached", n)
	}
}
