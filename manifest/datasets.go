package manifest

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// Datasets implements catalog.Datasets over Lance datasets stored under the
// catalog root.
type Datasets struct {
	store storage.Store
	// DataStorageVersion is the Lance file version of new tables ("" = the
	// dataset package's default, 2.1, as the peer writes).
	DataStorageVersion string
}

// NewDatasets returns the table datasets of the catalog rooted at store.
func NewDatasets(store storage.Store) *Datasets { return &Datasets{store: store} }

var _ catalog.Datasets = (*Datasets)(nil)

func (d *Datasets) open(ctx context.Context, location string, version uint64) (*dataset.Dataset, error) {
	ds, err := dataset.Open(ctx, d.store, location, dataset.OpenOptions{Version: version})
	switch {
	case err == nil:
		return ds, nil
	case errors.Is(err, dataset.ErrNotFound):
		return nil, fmt.Errorf("%w: %w", catalog.ErrDatasetNotFound, err)
	case errors.Is(err, dataset.ErrVersionNotFound):
		return nil, fmt.Errorf("%w: %w", catalog.ErrDatasetVersionNotFound, err)
	}
	return nil, refusedSchema(err)
}

// refusedSchema marks an error about a stored schema lancecat refuses (a
// limit it breaks) so that the catalog reports it as the table's state.
func refusedSchema(err error) error {
	if errors.Is(err, lanceschema.ErrInvalidSchema) {
		return fmt.Errorf("%w: %w", catalog.ErrStoredSchemaRefused, err)
	}
	return err
}

// Dataset is an opened version of a Lance table dataset
// (catalog.Dataset).
type Dataset struct {
	location string
	ds       *dataset.Dataset
	schema   *arrow.Schema
}

var _ catalog.Dataset = (*Dataset)(nil)

// Location is the dataset directory relative to the catalog root.
func (d *Dataset) Location() string { return d.location }

// Version is the version opened.
func (d *Dataset) Version() uint64 { return d.ds.Version() }

// Schema is the version's Arrow schema.
func (d *Dataset) Schema() *arrow.Schema { return d.schema }

// Lance is the Lance dataset version, to read with lance/scan.
func (d *Dataset) Lance() *dataset.Dataset { return d.ds }

// Open opens version (0: the latest) of the dataset at location.
func (d *Datasets) Open(ctx context.Context, location string, version uint64) (catalog.Dataset, error) {
	ds, err := d.open(ctx, location, version)
	if err != nil {
		return nil, err
	}
	sc, err := ds.ArrowSchema()
	if err != nil {
		return nil, refusedSchema(err)
	}
	return &Dataset{location: location, ds: ds, schema: sc}, nil
}

// Create commits version 1 of a new dataset at location.
func (d *Datasets) Create(ctx context.Context, location string, schema *arrow.Schema, batches []arrow.RecordBatch) (catalog.DatasetInfo, error) {
	ds, err := d.create(ctx, location, schema, batches, false)
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	return info(ctx, ds)
}

var _ catalog.DatasetsUnsyncedCreator = (*Datasets)(nil)

// CreateUnsynced is Create without syncing (dataset.CreateOptions.DeferSync):
// it returns the files to make durable before anything durable refers to
// the dataset.
func (d *Datasets) CreateUnsynced(ctx context.Context, location string, schema *arrow.Schema, batches []arrow.RecordBatch) (catalog.DatasetInfo, []string, error) {
	ds, err := d.create(ctx, location, schema, batches, true)
	if err != nil {
		return catalog.DatasetInfo{}, nil, err
	}
	inf, err := info(ctx, ds)
	return inf, ds.Unsynced(), err
}

func (d *Datasets) create(ctx context.Context, location string, schema *arrow.Schema, batches []arrow.RecordBatch, deferSync bool) (*dataset.Dataset, error) {
	ds, err := dataset.CreateWithData(ctx, d.store, location, schema, batches, dataset.CreateOptions{DataStorageVersion: d.DataStorageVersion, DeferSync: deferSync})
	switch {
	case errors.Is(err, dataset.ErrAlreadyExists):
		return nil, fmt.Errorf("%w: %w", catalog.ErrDatasetExists, err)
	case errors.Is(err, dataset.ErrInvalidArgument):
		return nil, fmt.Errorf("%w: %w", catalog.ErrSchemaInvalid, err)
	}
	return ds, err
}

// Describe describes version (0: the latest) of the dataset at location.
func (d *Datasets) Describe(ctx context.Context, location string, version uint64) (catalog.DatasetInfo, error) {
	ds, err := d.open(ctx, location, version)
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	return info(ctx, ds)
}

func info(ctx context.Context, ds *dataset.Dataset) (catalog.DatasetInfo, error) {
	sc, err := ds.ArrowSchema()
	if err != nil {
		return catalog.DatasetInfo{}, refusedSchema(err)
	}
	n, err := ds.CountRows(ctx)
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	return catalog.DatasetInfo{Version: ds.Version(), Schema: sc, RowCount: int64(n)}, nil
}

// AddColumns adds nullable, all-null columns as a metadata-only change.
func (d *Datasets) AddColumns(ctx context.Context, location string, fields []arrow.Field) (uint64, error) {
	ds, err := d.open(ctx, location, 0)
	if err != nil {
		return 0, err
	}
	for _, f := range fields {
		if ds.Schema().Field(f.Name) != nil {
			return 0, fmt.Errorf("%w: %q", catalog.ErrDatasetColumnExists, f.Name)
		}
	}
	next, err := ds.AddNullableColumns(ctx, fields...)
	if err != nil {
		return 0, mapColumnErr(err)
	}
	return next.Version(), nil
}

// DropColumns removes top-level columns.
func (d *Datasets) DropColumns(ctx context.Context, location string, names []string) (uint64, error) {
	ds, err := d.open(ctx, location, 0)
	if err != nil {
		return 0, err
	}
	for _, n := range names {
		if ds.Schema().Field(n) == nil {
			return 0, fmt.Errorf("%w: %q", catalog.ErrDatasetColumnNotFound, n)
		}
	}
	next, err := ds.DropColumns(ctx, names...)
	if err != nil {
		return 0, mapColumnErr(err)
	}
	return next.Version(), nil
}

// RenameColumns renames top-level columns, one version per rename.
func (d *Datasets) RenameColumns(ctx context.Context, location string, renames []catalog.ColumnRename) (uint64, error) {
	ds, err := d.open(ctx, location, 0)
	if err != nil {
		return 0, err
	}
	for _, r := range renames {
		if ds.Schema().Field(r.From) == nil {
			return 0, fmt.Errorf("%w: %q", catalog.ErrDatasetColumnNotFound, r.From)
		}
		if ds.Schema().Field(r.To) != nil {
			return 0, fmt.Errorf("%w: %q", catalog.ErrDatasetColumnExists, r.To)
		}
	}
	for _, r := range renames {
		if ds, err = ds.RenameColumn(ctx, r.From, r.To); err != nil {
			return 0, mapColumnErr(err)
		}
	}
	return ds.Version(), nil
}

func mapColumnErr(err error) error {
	if errors.Is(err, dataset.ErrInvalidArgument) {
		return fmt.Errorf("%w: %w", catalog.ErrSchemaInvalid, err)
	}
	return err
}

// Exists reports whether location holds at least one committed version.
func (d *Datasets) Exists(ctx context.Context, location string) (bool, error) {
	_, err := dataset.ListVersions(ctx, d.store, location)
	if errors.Is(err, dataset.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// VacuumStaged deletes the data, deletion, index and transaction files under
// the dataset at location that no version of it references and that are older
// than opts.Retention: what writers that died between staging and committing
// left (catalog.StagedFileVacuumer). Every version is kept: a table's history
// is its users', not the catalog's to shorten.
func (d *Datasets) VacuumStaged(ctx context.Context, location string, opts catalog.VacuumOptions) (catalog.VacuumReport, error) {
	return vacuumDir(ctx, d.store, location, opts, nil, true)
}
