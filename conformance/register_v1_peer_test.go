package conformance

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// TestRegisterOverPeerV1Table: a root table the reference writes as a V1 directory (no
// `__manifest`) cannot be aliased by CALL register_table under another name (InvalidInput), and
// registering it under its own name adopts it (the spec's V1-to-V2 migration): the reference
// then lists it once and reads its rows, and a manifest-only lancecat sees it.
func TestRegisterOverPeerV1Table(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	root := t.TempDir()
	if err := peer.Op(ctx, t, "createTable", map[string]any{"uri": root, "manifestEnabled": false, "name": "legacy",
		"schema": ptSchema, "rows": []map[string]any{{"id": 1, "name": "a"}, {"id": 2, "name": "b"}}}, nil); err != nil {
		t.Fatalf("peer writes a V1 table: %v", err)
	}
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA ns"); err != nil {
		t.Fatal(err)
	}
	for _, alias := range []string{"CALL register_table('ns.alias', 'legacy.lance')", "CALL register_table('alias', 'legacy.lance/')"} {
		_, err := db.ExecContext(ctx, alias)
		if err == nil || !strings.Contains(err.Error(), "InvalidInput") {
			t.Fatalf("%s: %v, want InvalidInput", alias, err)
		}
	}
	if _, err := db.ExecContext(ctx, "CALL register_table('legacy', 'legacy.lance')"); err != nil {
		t.Fatalf("adopting the V1 table: %v", err)
	}
	res, err := peer.Batch(ctx, t,
		peer.BatchOp{Op: "tableNames", Args: map[string]any{"uri": root}},
		peer.BatchOp{Op: "tableNames", Args: map[string]any{"uri": root, "namespace": []string{"ns"}}},
		peer.BatchOp{Op: "countRows", Args: map[string]any{"uri": root, "name": "legacy"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	var rootTables, nsTables struct {
		Tables []string `json:"tables"`
	}
	var count struct {
		Rows int64 `json:"rows"`
	}
	for i, out := range []any{&rootTables, &nsTables, &count} {
		if err := res[i].Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(rootTables.Tables, []string{"legacy"}) || len(nsTables.Tables) != 0 || count.Rows != 2 {
		t.Fatalf("peer after the adoption: root %v, ns %v, legacy has %d rows; want [legacy], [], 2",
			rootTables.Tables, nsTables.Tables, count.Rows)
	}
	mdb, err := sql.Open("lancecat", root+"?mode=manifest")
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	if got := column0(t, mdb, "SHOW TABLES"); !slices.Equal(got, []string{"legacy"}) {
		t.Fatalf("manifest-only lancecat lists %v, want [legacy]", got)
	}
}
