package manifest_test

import (
	"context"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
)

// TestRenamedRootTableDirIsNotAV1Table: in compatibility mode a root
// table's directory <name>.lance is a V1 table unless a `__manifest` row
// owns it. After RENAME a -> b the table b keeps its directory a.lance:
// "a" must not resolve to it (the ownership check goes through the
// snapshot's LocationFinder on the Lance-backed catalog), in a read and
// inside a transaction's view.
func TestRenamedRootTableDirIsNotAV1Table(t *testing.T) {
	ctx := context.Background()
	c, err := manifest.OpenCatalog(ctx, t.TempDir(), manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.CreateTable(ctx, catalog.Ident{"a"}, benchSchema(), catalog.CreateTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RenameTable(ctx, catalog.Ident{"a"}, catalog.Ident{"b"}); err != nil {
		t.Fatal(err)
	}
	moved, err := c.DescribeTable(ctx, catalog.Ident{"b"}, catalog.DescribeTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if moved.Location != info.Location {
		t.Fatalf("renamed table at %q, created at %q: the test needs the directory kept", moved.Location, info.Location)
	}
	if ok, err := c.TableExists(ctx, catalog.Ident{"a"}); err != nil || ok {
		t.Fatalf("TableExists(a) after the rename = %v, %v; want false (a.lance belongs to b)", ok, err)
	}
	// DROP TABLE IF EXISTS a inside a transaction finds no table a and
	// leaves b (and its directory a.lance) alone.
	b := c.NewBatch()
	b.DropTable(catalog.Ident{"a"}, true)
	if err := b.Commit(ctx); err != nil {
		t.Fatalf("DROP TABLE IF EXISTS a: %v", err)
	}
	if ok, err := c.TableExists(ctx, catalog.Ident{"b"}); err != nil || !ok {
		t.Fatalf("b after DROP IF EXISTS a: %v, %v", ok, err)
	}
}
