package dataset

import (
	"context"
	"fmt"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// UpdateFieldMetadata sets and removes keys of one field's metadata (an
// UpdateConfig transaction with field_metadata_updates, as Lance's
// replace_field_metadata commits).
func (d *Dataset) UpdateFieldMetadata(ctx context.Context, fieldID int32, set map[string]string, remove []string) (*Dataset, error) {
	u := &mapUpdate{set: set, remove: remove}
	req := commitRequest{op: "UpdateConfig", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		f := next.Schema.FieldByID(fieldID)
		if f == nil {
			return nil, nil, fmt.Errorf("%w: no field with id %d", ErrInvalidArgument, fieldID)
		}
		f.Metadata = u.apply(f.Metadata)
		uc := &tablepb.Transaction_UpdateConfig{FieldMetadataUpdates: map[int32]*tablepb.Transaction_UpdateMap{fieldID: u.proto()}}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_UpdateConfig_{UpdateConfig: uc}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// UpdateTableMetadataFunc commits table metadata computed from the metadata
// of the version it commits on: change receives that version's table
// metadata (do not modify it) and returns the keys to set. When another
// writer commits first, change runs again on the newer version (after a
// concurrent Append, Delete or index change) or the commit fails with
// ErrCommitConflict (after a concurrent UpdateConfig, which may have changed
// the same keys). So a value derived from the current one, such as a
// counter, is never handed out twice by two commits.
func (d *Dataset) UpdateTableMetadataFunc(ctx context.Context, change func(current map[string]string) (map[string]string, error)) (*Dataset, error) {
	req := commitRequest{op: "UpdateConfig", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		set, err := change(base.TableMetadata)
		if err != nil {
			return nil, nil, err
		}
		u := &mapUpdate{set: set}
		next := nextFrom(base)
		next.TableMetadata = u.apply(next.TableMetadata)
		uc := &tablepb.Transaction_UpdateConfig{TableMetadataUpdates: u.proto()}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_UpdateConfig_{UpdateConfig: uc}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// FieldMetadataChange sets and removes keys of one field's metadata.
type FieldMetadataChange struct {
	Set    map[string]string
	Remove []string
}

// UpdateFieldsMetadata changes the metadata of several fields, by field id,
// in one UpdateConfig commit (so a change that spans fields, such as moving
// the primary key, lands whole or not at all).
func (d *Dataset) UpdateFieldsMetadata(ctx context.Context, changes map[int32]FieldMetadataChange) (*Dataset, error) {
	req := commitRequest{op: "UpdateConfig", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		uc := &tablepb.Transaction_UpdateConfig{FieldMetadataUpdates: map[int32]*tablepb.Transaction_UpdateMap{}}
		for id, ch := range changes {
			f := next.Schema.FieldByID(id)
			if f == nil {
				return nil, nil, fmt.Errorf("%w: no field with id %d", ErrInvalidArgument, id)
			}
			u := &mapUpdate{set: ch.Set, remove: ch.Remove}
			f.Metadata = u.apply(f.Metadata)
			uc.FieldMetadataUpdates[id] = u.proto()
		}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_UpdateConfig_{UpdateConfig: uc}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}
