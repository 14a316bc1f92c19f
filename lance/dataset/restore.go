package dataset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// maxRestoreAttempts bounds how often Restore and Truncate retry on top of
// a newer latest version.
const maxRestoreAttempts = 20

// Restore commits the content of this (older) version as the next version
// of the dataset: its schema, fragments, indices, config and metadata, with
// a Restore transaction naming the version, as Lance's restore does. The
// fragment id counter keeps growing from the latest version (ids are never
// reused). A concurrent commit makes it retry on the new latest version: a
// restore does not depend on what it replaces.
func (d *Dataset) Restore(ctx context.Context) (*Dataset, error) {
	target := d.manifest
	if err := target.checkWritable(); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		latest, err := d.Latest(ctx)
		if err != nil {
			return nil, err
		}
		if err := latest.manifest.checkWritable(); err != nil {
			return nil, err
		}
		req := commitRequest{op: "Restore", exact: true, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
			next := nextFrom(target)
			if base.MaxFragmentID != nil && (next.MaxFragmentID == nil || *next.MaxFragmentID < *base.MaxFragmentID) {
				next.MaxFragmentID = proto.Uint32(*base.MaxFragmentID)
			}
			if next.MaxFragmentID == nil {
				var top uint32
				for _, f := range base.Fragments {
					top = max(top, uint32(f.ID))
				}
				if len(base.Fragments) > 0 {
					next.MaxFragmentID = proto.Uint32(top)
				}
			}
			next.NextRowID = max(next.NextRowID, base.NextRowID)
			return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Restore_{Restore: &tablepb.Transaction_Restore{Version: target.Version}}}, nil
		}}
		ds, err := commit(ctx, latest.store, latest.dir, latest.loc.Scheme, latest.manifest, req)
		if err == nil || !errors.Is(err, ErrCommitConflict) || attempt >= maxRestoreAttempts {
			return ds, err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
}

// Truncate deletes every row of this version in one Delete version that
// removes all its fragments, keeping the index section as it is (the
// indices then cover no live fragment; rows appended later are scanned
// until an index is rebuilt), as Lance's delete of every row writes it. It
// rebases over concurrent appends (their rows stay, as with Lance) and
// conflicts with a concurrent change of the fragments it removes.
func (d *Dataset) Truncate(ctx context.Context) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	ids := make([]uint64, 0, len(d.manifest.Fragments))
	for _, f := range d.manifest.Fragments {
		ids = append(ids, f.ID)
	}
	req := commitRequest{op: "Delete", modified: ids, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		kept := next.Fragments[:0:0]
		found := 0
		for _, f := range next.Fragments {
			if containsID(ids, f.ID) {
				found++
				continue
			}
			kept = append(kept, f)
		}
		if found != len(ids) {
			return nil, nil, fmt.Errorf("%w: fragments of the truncate were removed concurrently", ErrCommitConflict)
		}
		next.Fragments = kept
		del := &tablepb.Transaction_Delete{DeletedFragmentIds: ids, Predicate: "true"}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Delete_{Delete: del}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

func containsID(ids []uint64, id uint64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
