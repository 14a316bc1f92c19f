package manifest

import (
	"context"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/storage"
)

// Options configures OpenCatalog. Catalog holds the catalog options; its
// Root, Manifest and Datasets are filled in from the store.
type Options struct {
	Catalog catalog.Options
	Storage storage.Options
	// DataStorageVersion is the Lance file version of tables created
	// through the catalog ("" = 2.1, the peer's default).
	DataStorageVersion string
	// Write shapes the `__manifest` commits (incremental by default).
	Write WriteOptions
}

// Catalog is an open Lance directory catalog and the store under it.
type Catalog struct {
	*catalog.Catalog
	Store storage.Store
}

// OpenCatalog opens the directory catalog at uri (a path, file://,
// memory://name, s3://, gs://, az://).
func OpenCatalog(ctx context.Context, uri string, opts Options) (*Catalog, error) {
	store, err := storage.Open(ctx, uri, opts.Storage)
	if err != nil {
		return nil, err
	}
	co := opts.Catalog
	co.Root = catalog.StoreDir(store)
	co.Manifest = NewManifestTableWith(store, opts.Write)
	ds := NewDatasets(store)
	ds.DataStorageVersion = opts.DataStorageVersion
	co.Datasets = ds
	if opts.Storage.ReadOnly {
		co.ReadOnly = true
	}
	c, err := catalog.Open(ctx, co)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &Catalog{Catalog: c, Store: store}, nil
}

// Close releases the store.
func (c *Catalog) Close() error { return c.Store.Close() }
