package manifest

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// TestPrimaryKeyMigration: a `__manifest` without the primary-key metadata
// on object_id (as older writers made it) gets it with the first write, and
// keeps its rows and table metadata.
func TestPrimaryKeyMigration(t *testing.T) {
	ctx := context.Background()
	uri := "memory://lancestore-migrate"
	st, err := storage.Open(ctx, uri, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := ManifestSchema()
	fields := old.Fields()
	fields[0].Metadata = arrow.Metadata{}
	if _, err := dataset.Create(ctx, st, catalog.ManifestDir, arrow.NewSchema(fields, nil), dataset.CreateOptions{TableMetadata: map[string]string{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	c := open(t, uri)
	if err := c.CreateNamespace(ctx, catalog.Ident{"n1"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, catalog.Ident{"n2"}, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(ctx, st, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := ds.Schema().Field("object_id")
	if pos, ok := f.PrimaryKeyPosition(); !ok || pos != 0 {
		t.Fatalf("object_id primary key after migration: pos=%d ok=%v metadata=%v", pos, ok, f.Metadata)
	}
	if pk := ds.Schema().PrimaryKey(); len(pk) != 1 || pk[0] != "object_id" {
		t.Fatalf("primary key %v", pk)
	}
	if ds.Manifest().TableMetadata["k"] != "v" {
		t.Fatalf("table metadata lost: %v", ds.Manifest().TableMetadata)
	}
	page, err := c.ListNamespaces(ctx, nil, catalog.ListOptions{})
	if err != nil || len(page.Names) != 2 {
		t.Fatalf("namespaces %v %v", page.Names, err)
	}
}
