package dataset

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/manifest/internal/pb/tablepb"
	"github.com/lancecat/lancecat/manifest/lanceschema"
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
}

// OverwriteWith replaces every row with records in one commit on top of
// exactly this version: a concurrent commit of the next version is an
// ErrCommitConflict (an overwrite never rebases).
func (d *Dataset) OverwriteWith(ctx context.Context, records []arrow.RecordBatch, opts OverwriteOptions) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	version := d.manifest.DataFormat.Version
	if err := checkWriteFormat(version); err != nil {
		return nil, err
	}
	ls := d.manifest.Schema
	if !opts.KeepSchema {
		if len(records) == 0 {
			return nil, invalidf("overwrite with a new schema needs at least one record batch")
		}
		var err error
		if ls, err = lanceschema.FromArrow(records[0].Schema()); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		if err := checkSchema(ls); err != nil {
			return nil, err
		}
	}
	frags, staged, err := writeFragments(ctx, d.store, d.dir, ls, version, records)
	if err != nil {
		return nil, err
	}
	tableMD := &mapUpdate{set: opts.SetTableMetadata, remove: opts.UnsetTableMetadata}
	req := commitRequest{op: "Overwrite", staged: staged, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		next.Schema = ls.Clone()
		next.Indices = opts.Indices
		next.TableMetadata = tableMD.apply(next.TableMetadata)
		assignIDs(frags, 0)
		next.Fragments = frags
		return next, overwriteTx(next, nil), nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}
