package catalog_test

import (
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
)

// TestOpenTable opens table data through the catalog: by identifier, at
// the latest or a given version, with the catalog's errors for missing
// tables, versions and declared-only tables.
func TestOpenTable(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := catalogtest.NewEnv(t).Open(mode)
			id := catalog.Ident{"t"}
			if mode != catalog.ModeDirectoryOnly {
				if err := c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil); err != nil {
					t.Fatal(err)
				}
				id = catalog.Ident{"ns", "t"}
			}
			info, err := c.CreateTable(ctx, id, testSchema(), catalog.CreateTableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ds, err := c.OpenTable(ctx, id, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ds.Location() != info.Location || ds.Version() != 1 || !ds.Schema().Equal(testSchema()) {
				t.Fatalf("OpenTable: location %q version %d schema %s; created at %q", ds.Location(), ds.Version(), ds.Schema(), info.Location)
			}
			_, err = c.OpenTable(ctx, id, 7)
			wantCode(t, err, catalog.ErrTableVersionNotFound)
			_, err = c.OpenTable(ctx, catalog.Ident{"nope"}, 0)
			wantCode(t, err, catalog.ErrTableNotFound)
			if _, err := c.DeclareTable(ctx, catalog.Ident{"d"}, nil); err != nil {
				t.Fatal(err)
			}
			_, err = c.OpenTable(ctx, catalog.Ident{"d"}, 0)
			wantCode(t, err, catalog.ErrInvalidTableState)
		})
	}
}
