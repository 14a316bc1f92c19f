package catalog

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Column alterations act on the table dataset, not on __manifest.

func (c *Catalog) tableForWrite(ctx context.Context, id Ident) (tableRef, error) {
	if err := c.checkWritable(); err != nil {
		return tableRef{}, err
	}
	snap, err := c.readSnapshot(ctx)
	if err != nil {
		return tableRef{}, err
	}
	if snap != nil {
		if err := checkFeatureFlags(snap.Metadata(), WriterFeatureFlagsKey, "modify"); err != nil {
			return tableRef{}, err
		}
	}
	return c.resolveTable(ctx, snap, id)
}

// AddColumns adds nullable columns to table id and returns the new dataset
// version.
func (c *Catalog) AddColumns(ctx context.Context, id Ident, fields []arrow.Field) (uint64, error) {
	if len(fields) == 0 {
		return 0, newErr(CodeInvalidInput, nil, "add columns: no column given")
	}
	for _, f := range fields {
		if f.Name == "" {
			return 0, newErr(CodeInvalidInput, nil, "add columns: empty column name")
		}
		if !f.Nullable {
			return 0, newErr(CodeTableSchemaValidationError, nil, "add columns: new column %q must be nullable (existing rows get nulls)", f.Name)
		}
	}
	ref, err := c.tableForWrite(ctx, id)
	if err != nil {
		return 0, err
	}
	v, err := c.opts.Datasets.AddColumns(ctx, ref.location, fields)
	return v, mapDatasetErr(err, id, ref.location)
}

// DropColumns drops columns of table id.
func (c *Catalog) DropColumns(ctx context.Context, id Ident, names []string) (uint64, error) {
	if len(names) == 0 {
		return 0, newErr(CodeInvalidInput, nil, "drop columns: no column given")
	}
	ref, err := c.tableForWrite(ctx, id)
	if err != nil {
		return 0, err
	}
	v, err := c.opts.Datasets.DropColumns(ctx, ref.location, names)
	return v, mapDatasetErr(err, id, ref.location)
}

// RenameColumns renames columns of table id.
func (c *Catalog) RenameColumns(ctx context.Context, id Ident, renames []ColumnRename) (uint64, error) {
	if len(renames) == 0 {
		return 0, newErr(CodeInvalidInput, nil, "rename columns: no column given")
	}
	for _, r := range renames {
		if r.From == "" || r.To == "" {
			return 0, newErr(CodeInvalidInput, nil, "rename columns: empty column name")
		}
	}
	ref, err := c.tableForWrite(ctx, id)
	if err != nil {
		return 0, err
	}
	v, err := c.opts.Datasets.RenameColumns(ctx, ref.location, renames)
	return v, mapDatasetErr(err, id, ref.location)
}
