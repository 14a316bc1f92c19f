package dataset

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrCommitOutcomeUnknown: the version file write failed in a way that
// leaves open whether it landed, and reading it back could not settle it.
// The staged files are kept (deleting files of a landed commit would corrupt
// it).
var ErrCommitOutcomeUnknown = errors.New("dataset: commit outcome unknown")

// OverwriteOptions configures OverwriteWith.
type OverwriteOptions struct {
	// KeepSchema keeps the dataset's schema and field ids; the records must
	// match it. Otherwise the records' schema replaces it with fresh ids.
	KeepSchema bool
	// SetTableMetadata / UnsetTableMetadata change the table metadata in
	// the same commit (the catalog keeps root namespace properties there).
	SetTableMetadata   map[string]string
	UnsetTableMetadata []string
	// Indices are the index entries of the new version (their files staged
	// by the caller under _indices/); nil drops every index, as an
	// overwrite in Lance does.
	Indices []*IndexMetadata
	// Sync lists files outside this commit that must be durable before the
	// new version is published (see RowChangeOptions.Sync).
	Sync []string
}

// OverwriteWith replaces every row with records in one commit on top of
// exactly this version: a concurrent commit of the next version is an
// ErrCommitConflict (an overwrite never rebases).
func (d *Dataset) OverwriteWith(ctx context.Context, records []arrow.RecordBatch, opts OverwriteOptions) (*Dataset, error) {
	indices := opts.Indices
	staged, err := d.StageOverwrite(ctx, records, opts)
	if err != nil {
		return nil, err
	}
	return staged.Commit(ctx, indices)
}
