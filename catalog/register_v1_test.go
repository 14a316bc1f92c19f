package catalog_test

import (
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
)

// TestRegisterOverV1RootTable decides register_table against a compatibility-mode (V1) root
// table that has no `__manifest` row, by the directory catalog spec: in compatibility mode such
// a table exists by its `<name>.lance` directory, and the spec's V1-to-V2 migration is "add all
// existing V1 table directory paths to the manifest table". So:
//   - registering the same name at its own directory adopts it (the migration step): one
//     manifest row, still one table, its data untouched, visible in manifest-only mode too;
//   - registering that name at another location is TableAlreadyExists;
//   - registering any other name at (or inside) the live V1 table's directory is refused the
//     way an overlap with a manifest table's location is (InvalidInput naming the table): an
//     alias would hide the V1 table and its DROP would delete the V1 table's data;
//   - a deregistered V1 directory is no table: it may be registered under any name.
func TestRegisterOverV1RootTable(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	for _, loc := range []string{"legacy.lance", "legacy.lance/nested.lance", "old.lance"} {
		if _, err := env.Datasets.Create(ctx, loc, testSchema(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Store.Put(ctx, "old.lance/"+catalog.DeregisteredMarker, nil); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{"legacy"})

	// Another name on the live V1 table's directory, or inside it: refused.
	for _, reg := range []struct {
		id  catalog.Ident
		loc string
	}{
		{catalog.Ident{"alias"}, "legacy.lance"},
		{catalog.Ident{"ns", "alias"}, "legacy.lance"},
		{catalog.Ident{"ns", "alias"}, "legacy.lance/"},
		{catalog.Ident{"ns", "inner"}, "legacy.lance/nested.lance"},
	} {
		_, err := c.RegisterTable(ctx, reg.id, reg.loc, nil)
		wantCode(t, err, catalog.ErrInvalidInput)
	}
	equal(t, listTables(t, c), []string{"legacy"})
	equal(t, listTables(t, c, "ns"), []string{})
	d, err := c.DescribeTable(ctx, catalog.Ident{"legacy"}, catalog.DescribeTableOptions{})
	if err != nil || !d.V1 || d.Location != "legacy.lance" {
		t.Fatalf("V1 table after the refused aliases: %+v, %v", d, err)
	}

	// The same name elsewhere: the table exists.
	_, err = c.RegisterTable(ctx, catalog.Ident{"legacy"}, "old.lance", nil)
	wantCode(t, err, catalog.ErrTableAlreadyExists)

	// The same name at its own directory: adopted into the manifest.
	commits := env.Manifest.Commits()
	info, err := c.RegisterTable(ctx, catalog.Ident{"legacy"}, "legacy.lance", map[string]string{"migrated": "yes"})
	if err != nil {
		t.Fatalf("adopting the V1 table: %v", err)
	}
	equal(t, info.Location, "legacy.lance")
	equal(t, env.Manifest.Commits(), commits+1)
	equal(t, listTables(t, c), []string{"legacy"})
	d, err = c.DescribeTable(ctx, catalog.Ident{"legacy"}, catalog.DescribeTableOptions{})
	if err != nil || d.V1 || d.Location != "legacy.lance" || d.Version != 1 || d.Properties["migrated"] != "yes" {
		t.Fatalf("adopted table: %+v, %v", d, err)
	}
	manifestOnly := env.Open(catalog.ModeManifestOnly)
	equal(t, listTables(t, manifestOnly), []string{"legacy"})
	// Adopting twice: the manifest row exists now.
	_, err = c.RegisterTable(ctx, catalog.Ident{"legacy"}, "legacy.lance", nil)
	wantCode(t, err, catalog.ErrTableAlreadyExists)
	// An alias of the adopted table is refused by the manifest overlap rule, as before.
	_, err = c.RegisterTable(ctx, catalog.Ident{"ns", "alias"}, "legacy.lance", nil)
	wantCode(t, err, catalog.ErrInvalidInput)

	// A deregistered V1 directory is data without a table: registrable under another name.
	if _, err := c.RegisterTable(ctx, catalog.Ident{"ns", "revived"}, "old.lance", nil); err != nil {
		t.Fatalf("registering a deregistered V1 directory: %v", err)
	}
	equal(t, listTables(t, c, "ns"), []string{"revived"})
	if ok, err := env.Datasets.Exists(ctx, "legacy.lance"); err != nil || !ok {
		t.Fatalf("the V1 table's data is gone: %v %v", ok, err)
	}
}
