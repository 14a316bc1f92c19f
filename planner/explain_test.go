package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/manifest"
)

// TestExplainNamesManifestIndex: EXPLAIN over information_schema says which
// `__manifest` index the catalog read would search, as decided by the
// snapshot itself. The catalog is written by one process (AlwaysRewrite:
// every commit rebuilds the three indices, as the reference does) and read
// by a fresh one, so no rows are in memory yet.
func TestExplainNamesManifestIndex(t *testing.T) {
	ctx := context.Background()
	uri := fmt.Sprintf("memory://planner-explain-%d/lake", dataSeq.Add(1))
	w, err := manifest.OpenCatalog(ctx, uri, manifest.Options{Write: manifest.WriteOptions{AlwaysRewrite: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = w.Store.DeletePrefix(context.Background(), "")
		w.Close()
	})
	wf := &fixture{t: t, s: NewSession(w.Catalog, Options{Store: w.Store})}
	// 2 namespaces and 22 tables: a namespace's 2 tables or a 'p%' prefix
	// are well under a quarter of the rows; all tables are not.
	var b strings.Builder
	b.WriteString("CREATE SCHEMA s1; CREATE SCHEMA s2; CREATE TABLE s1.pa (i INT); CREATE TABLE s1.qb (i INT);")
	for i := range 20 {
		fmt.Fprintf(&b, "CREATE TABLE s2.t%02d (i INT);", i)
	}
	wf.exec(b.String())

	r, err := manifest.OpenCatalog(ctx, uri, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f := &fixture{t: t, s: NewSession(r.Catalog, Options{Store: r.Store})}
	scanLine := func(q string) string {
		t.Helper()
		rows := f.rows("EXPLAIN " + q)
		return rows[len(rows)-1][0].(string)
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME = 'pa'",
			"look up tables 'pa' in namespaces ['s1']; no per-object describe; __manifest read: index object_id_btree"},
		{"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1'",
			"list tables of namespaces ['s1']; no per-object describe; __manifest read: indices object_id_btree, object_type_bitmap"},
		{"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME LIKE 'p%'",
			"list tables of namespaces ['s1'] with names starting 'p'; no per-object describe; __manifest read: indices object_id_btree, object_type_bitmap"},
		{"SELECT SCHEMA_NAME FROM information_schema.schemata WHERE SCHEMA_NAME = 's2'",
			"look up namespaces ['s2']; no per-object describe; __manifest read: index object_id_btree"},
		// Not a name predicate: every table is listed, and the BITMAP
		// would match more than a quarter of the rows, so it decodes all.
		{"SELECT TABLE_NAME FROM information_schema.tables WHERE LENGTH(TABLE_NAME) > 2",
			"list all tables; no per-object describe; __manifest read: scan (full decode)"},
	} {
		if got := scanLine(c.q); !strings.HasSuffix(got, c.want) {
			t.Errorf("EXPLAIN %s:\n got %s\nwant ...%s", c.q, got, c.want)
		}
	}
	// The LIKE push-down lists the same rows as the unpushed filter.
	got := f.rows("SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME LIKE 'p%'")
	if len(got) != 1 || got[0][0] != "pa" {
		t.Errorf("LIKE 'p%%' in s1: %v, want [[pa]]", got)
	}

	// SHOW TABLES LIKE 'prefix%' lists through the same prefix.
	if got := f.rows("SHOW TABLES FROM s1 LIKE 'p%'"); len(got) != 1 || got[0][0] != "pa" {
		t.Errorf("SHOW TABLES FROM s1 LIKE 'p%%': %v, want [[pa]]", got)
	}
	if got := f.rows("SHOW TABLES FROM s2 LIKE 't1%'"); len(got) != 10 {
		t.Errorf("SHOW TABLES FROM s2 LIKE 't1%%': %d rows, want 10", len(got))
	}

	// The writer's snapshot derives from its own commits: in memory.
	if got := wf.rows("EXPLAIN SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1'"); !strings.HasSuffix(got[len(got)-1][0].(string), "__manifest read: scan (rows in memory)") {
		t.Errorf("writer's EXPLAIN: %v", got)
	}
}
