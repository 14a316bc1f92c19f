package catalog_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
)

// Issue #10 finding 4: rows another writer registered at `__manifest` (or at
// another table's location) cannot be used to write to the catalog itself,
// and dropping them deletes neither `__manifest` nor the other table's data.
func TestManifestAndAliasRowsAreNotWritableTables(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeManifestOnly)
	if _, err := c.CreateTable(ctx, catalog.Ident{"t"}, testSchema(), catalog.CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Manifest.Insert(
		catalog.Row{ObjectID: "m", ObjectType: catalog.ObjectTypeTable, Location: ptr(catalog.ManifestDir)},
		catalog.Row{ObjectID: "m2", ObjectType: catalog.ObjectTypeTable, Location: ptr("./__manifest/")},
		catalog.Row{ObjectID: "alias", ObjectType: catalog.ObjectTypeTable, Location: ptr(d.Location)},
	); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m", "m2"} {
		if _, err := c.DropColumns(ctx, catalog.Ident{name}, []string{"object_type"}); !errors.Is(err, catalog.ErrInvalidTableState) {
			t.Errorf("DropColumns on %s: %v, want InvalidTableState", name, err)
		}
		if _, err := c.DescribeTable(ctx, catalog.Ident{name}, catalog.DescribeTableOptions{}); !errors.Is(err, catalog.ErrInvalidTableState) {
			t.Errorf("DescribeTable %s: %v, want InvalidTableState", name, err)
		}
	}
	before := env.Paths()
	for _, name := range []string{"m", "m2", "alias"} {
		if err := c.DropTable(ctx, catalog.Ident{name}); err != nil {
			t.Fatalf("DropTable %s: %v", name, err)
		}
	}
	after := env.Paths()
	for _, p := range before {
		if !slices.Contains(after, p) {
			t.Errorf("%s was deleted by dropping the aliases", p)
		}
	}
	if _, err := c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{}); err != nil {
		t.Fatalf("t after dropping its alias: %v", err)
	}
}

// Names lancecat refuses to create (invisible characters, NFD, over-long)
// but another writer stored still list, describe and drop.
func TestForeignNamesStillWork(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeManifestOnly)
	names := []string{"a\u200bb", "cafe\u0301", "my..data"}
	for i, n := range names {
		loc := "0000000" + string(rune('0'+i)) + "_x"
		if err := env.Manifest.Insert(catalog.Row{ObjectID: n, ObjectType: catalog.ObjectTypeTable, Location: ptr(loc)}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Datasets.Create(ctx, loc, testSchema(), nil); err != nil {
			t.Fatal(err)
		}
	}
	got := listTables(t, c)
	for _, n := range names {
		if !slices.Contains(got, n) {
			t.Errorf("%+q not listed: %q", n, got)
		}
		if _, err := c.DescribeTable(ctx, catalog.Ident{n}, catalog.DescribeTableOptions{}); err != nil {
			t.Errorf("describe %+q: %v", n, err)
		}
		if err := c.DropTable(ctx, catalog.Ident{n}); err != nil {
			t.Errorf("drop %+q: %v", n, err)
		}
	}
	if got := listTables(t, c); len(got) != 0 {
		t.Errorf("after dropping: %q", got)
	}
}
