package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// Dataset is an immutable snapshot of one version of a Lance dataset.
type Dataset struct {
	store    storage.Store
	dir      string
	manifest *Manifest
	loc      VersionInfo
	// unsynced are the files this process wrote for this version without
	// syncing them (CreateOptions.DeferSync).
	unsynced []string
	// files keeps the data file readers scans and takes opened.
	files openFiles
}

// Unsynced lists the store paths of the files this process wrote for this
// version and left unsynced (CreateOptions.DeferSync): the data and
// transaction files and the version file. It is nil for every other
// version. Make them durable (storage.SyncAll) before anything durable
// refers to the version.
func (d *Dataset) Unsynced() []string { return slices.Clone(d.unsynced) }

// OpenOptions selects what Open loads.
type OpenOptions struct {
	// Version to open; 0 opens the latest.
	Version uint64
}

// Open opens the dataset stored under dir of store ("" for the store root).
// A location without version files fails with an error wrapping ErrNotFound;
// a missing version with ErrVersionNotFound; a dataset using reader features
// this package does not know with ErrUnsupported.
func Open(ctx context.Context, store storage.Store, dir string, opts OpenOptions) (*Dataset, error) {
	var loc VersionInfo
	var err error
	if opts.Version == 0 {
		loc, err = latestVersion(ctx, store, dir)
	} else {
		loc, err = findVersion(ctx, store, dir, opts.Version)
	}
	if err != nil {
		return nil, err
	}
	return openLocation(ctx, store, dir, loc)
}

func openLocation(ctx context.Context, store storage.Store, dir string, loc VersionInfo) (*Dataset, error) {
	m, err := readManifest(ctx, store, loc)
	if err != nil {
		return nil, err
	}
	if err := m.checkReadable(); err != nil {
		return nil, fmt.Errorf("%s: %w", store.Location(loc.Path), err)
	}
	return &Dataset{store: store, dir: dir, manifest: m, loc: loc}, nil
}

func readManifest(ctx context.Context, store storage.Store, loc VersionInfo) (*Manifest, error) {
	if loc.Size > maxManifestFileSize {
		return nil, fmt.Errorf("%s: %w", store.Location(loc.Path), corruptf("manifest file of %d bytes exceeds the limit", loc.Size))
	}
	b, err := store.Read(ctx, loc.Path)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s disappeared (version %d)", ErrVersionNotFound, store.Location(loc.Path), loc.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: read %s: %w", store.Location(loc.Path), err)
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", store.Location(loc.Path), err)
	}
	if m.Version != loc.Version {
		return nil, fmt.Errorf("%s: %w", store.Location(loc.Path), corruptf("file name says version %d, manifest says %d", loc.Version, m.Version))
	}
	return m, nil
}

// Version is the version number of this snapshot.
func (d *Dataset) Version() uint64 { return d.manifest.Version }

// Manifest is the decoded manifest. Treat it as read-only.
func (d *Dataset) Manifest() *Manifest { return d.manifest }

// Schema is the dataset's Lance schema. Treat it as read-only.
func (d *Dataset) Schema() *lanceschema.Schema { return d.manifest.Schema }

// ArrowSchema is the dataset schema as Arrow.
func (d *Dataset) ArrowSchema() (*arrow.Schema, error) { return d.manifest.Schema.ToArrow() }

// Store is the store the dataset lives in; Dir its directory in the store.
func (d *Dataset) Store() storage.Store { return d.store }

// Dir is the dataset's directory within its store ("" for the root).
func (d *Dataset) Dir() string { return d.dir }

// URI is the dataset's full location.
func (d *Dataset) URI() string { return d.store.Location(d.dir) }

// NamingScheme is the manifest naming scheme the dataset uses.
func (d *Dataset) NamingScheme() NamingScheme { return d.loc.Scheme }

// ManifestPath is the store path of this version's manifest file.
func (d *Dataset) ManifestPath() string { return d.loc.Path }

// Fragments lists the fragments of this version. Treat them as read-only.
func (d *Dataset) Fragments() []*Fragment { return d.manifest.Fragments }

// Indices lists the index metadata of this version. Treat it as read-only.
func (d *Dataset) Indices() []*IndexMetadata { return d.manifest.Indices }

// Checkout opens another version of the same dataset (0: the latest).
func (d *Dataset) Checkout(ctx context.Context, version uint64) (*Dataset, error) {
	return Open(ctx, d.store, d.dir, OpenOptions{Version: version})
}

// Latest opens the newest version of the same dataset.
func (d *Dataset) Latest(ctx context.Context) (*Dataset, error) { return d.Checkout(ctx, 0) }

// Transaction returns the transaction that produced this version: the
// inline section or, failing that, the _transactions file. It returns nil
// without error when the manifest records neither.
func (d *Dataset) Transaction(ctx context.Context) (*Transaction, error) {
	return transactionOf(ctx, d.store, d.dir, d.manifest)
}

// maxTransactionFileSize bounds a transaction file we load.
const maxTransactionFileSize = 256 << 20

func transactionOf(ctx context.Context, store storage.Store, dir string, m *Manifest) (*Transaction, error) {
	if m.Transaction != nil {
		return m.Transaction, nil
	}
	if m.TransactionFile == "" {
		return nil, nil
	}
	p := joinPath(dir, transactionsDir, m.TransactionFile)
	info, err := store.Stat(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("dataset: transaction file of version %d: %w", m.Version, err)
	}
	if info.Size > maxTransactionFileSize {
		return nil, corruptf("transaction file %s of %d bytes exceeds the limit", p, info.Size)
	}
	b, err := store.Read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("dataset: transaction file of version %d: %w", m.Version, err)
	}
	tx, err := DecodeTransaction(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", store.Location(p), err)
	}
	return tx, nil
}

// dataFilePath resolves a data file's store path.
func (d *Dataset) dataFilePath(df *DataFile) (string, error) {
	if df.BaseID != nil {
		return "", fmt.Errorf("%w: data file %s lives in base path %d", ErrUnsupported, df.Path, *df.BaseID)
	}
	return joinPath(d.dir, dataDir, df.Path), nil
}
