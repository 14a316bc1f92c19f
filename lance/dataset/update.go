package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	"github.com/lancecat/lancecat/storage"
)

// RowChangeOptions configures Update and RewriteFragments.
type RowChangeOptions struct {
	// ExactBase commits on top of exactly this version: a concurrent commit
	// of the next version is an ErrCommitConflict instead of a rebase. A
	// caller whose change was decided by reading this version (a catalog
	// checking that a name is free) needs it: Lance's rebase rules only
	// protect the rows a commit touches, not what it read.
	ExactBase bool
	// Sync lists files outside this commit (written without syncing, e.g.
	// a new table's dataset, Dataset.Unsynced) that must be durable before
	// this version is published: they are synced in the same round as the
	// version's own files. They are never deleted, whatever the outcome.
	Sync []string
	// Remove lists fragments (of Update only) that the version drops whole:
	// the caller carries the live rows it keeps into the records, so a
	// merge of small fragments rides on the change instead of being a
	// version of its own (Lance records it as an Update with these ids in
	// removed_fragment_ids: rows rewritten into the new fragment). No index
	// may cover them (their rows would need remapping): ErrInvalidArgument.
	Remove []uint64
	// Recheck, when set, is called with the latest version before the
	// commit is rebased onto it (never for the version the change was
	// made on, which the caller checked itself): an error ends the commit.
	// An insert that checked its keys against this version checks the
	// rows concurrent commits added, so the check always holds for the
	// version the commit lands on.
	Recheck func(ctx context.Context, latest *Dataset) error
	// KeepStaged (UpdateStaged with ExactBase) keeps the staged rows when
	// the commit fails with ErrCommitConflict: the caller decides its
	// deletions again on the latest version and passes the same RowStager
	// to UpdateStaged once more, instead of writing its rows again. The
	// caller Discards the stager when it gives up.
	KeepStaged bool
}

// Append adds records as new fragments. It rebases over concurrent commits
// that do not conflict with an append.
func (d *Dataset) Append(ctx context.Context, records []arrow.RecordBatch) (*Dataset, error) {
	return d.Update(ctx, records, nil, RowChangeOptions{})
}

// Delete marks rows deleted by their row addresses (fragment id << 32 |
// offset), writing new deletion files; a fragment left with no live rows is
// removed. Deleting an already deleted row is not an error; an address
// outside the dataset is. It rebases over concurrent appends and deletes.
func (d *Dataset) Delete(ctx context.Context, rowAddresses []uint64) (*Dataset, error) {
	return d.Update(ctx, nil, rowAddresses, RowChangeOptions{})
}

// Update appends records as new fragments and deletes the rows at
// rowAddresses (new or extended deletion files; a fragment left without
// live rows is removed) in one version. The transaction is the one Lance
// records for that shape: Append when nothing is deleted, Delete when
// nothing is added, otherwise Update {removed_fragment_ids,
// updated_fragments, new_fragments} in REWRITE_ROWS mode. Indices are kept
// as they are: their fragment bitmaps do not cover the new fragments
// (readers scan those) and deleted rows are filtered by the deletion files;
// an index left covering no live fragment is kept unless it is a vector
// index, as Lance does (retainRelevantIndices).
//
// Unless opts.ExactBase, it rebases on a concurrent commit as Lance's
// conflict resolver allows: an Update over Append, CreateIndex,
// UpdateConfig, ReserveFragments and Project, and over Update, Delete,
// Rewrite and DataReplacement commits that touched none of the fragments it
// modifies; anything else (Overwrite, Restore, Merge, a shared fragment) is
// an ErrCommitConflict.
func (d *Dataset) Update(ctx context.Context, records []arrow.RecordBatch, rowAddresses []uint64, opts RowChangeOptions) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	var rs *RowStager
	if len(records) > 0 {
		var err error
		if rs, err = d.NewRowStager(); err != nil {
			return nil, err
		}
		for _, rec := range records {
			if err := rs.Write(ctx, rec); err != nil {
				rs.Discard(ctx)
				return nil, err
			}
		}
	}
	return d.UpdateStaged(ctx, rs, rowAddresses, opts)
}

// RowStager writes the new rows of a later UpdateStaged as data files batch
// by batch, so that a caller can build and release its rows in bounded
// chunks instead of holding all of them for one Update.
type RowStager struct {
	d      *Dataset
	frags  []*Fragment
	staged []string
	used   bool
	rows   uint64          // rows written
	drop   *roaring.Bitmap // staged rows the commit marks deleted (DropRows)
}

// NewRowStager starts staging rows for an UpdateStaged of d (or of a later
// version of the same table with the same schema).
func (d *Dataset) NewRowStager() (*RowStager, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	if err := checkWriteFormat(d.manifest.DataFormat.Version); err != nil {
		return nil, err
	}
	return &RowStager{d: d}, nil
}

// Write writes rec as data files (one or more fragments); the caller may
// release rec when it returns. A failed Write leaves the stager's earlier
// files staged (Discard removes them).
func (s *RowStager) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := s.d
	frags, staged, err := writeFragments(ctx, d.store, d.dir, d.manifest.Schema, d.manifest.DataFormat.Version, []arrow.RecordBatch{rec})
	if err != nil {
		return err
	}
	s.frags = append(s.frags, frags...)
	s.staged = append(s.staged, staged...)
	for _, f := range frags {
		s.rows += f.PhysicalRows
	}
	return nil
}

// Rows is the number of rows written so far.
func (s *RowStager) Rows() uint64 { return s.rows }

// DropRows makes the commit mark the staged rows in rows deleted: rows are
// numbered from 0 in the order Write wrote them (so below 2^32). A loader
// that learns only after writing a row that a later one supersedes it
// writes the row anyway and drops it here; the new fragments then carry
// deletion files from their first version, and a fragment left without
// live rows is not committed at all (its files are deleted once the
// version lands). It replaces the rows of an earlier call.
func (s *RowStager) DropRows(rows *roaring.Bitmap) { s.drop = rows }

// liveFragments splits the staged fragments by s.drop: the fragments to
// commit with the rows each drops (nil: none), and the data files of the
// fragments that drop every row.
func (s *RowStager) liveFragments() (frags []*Fragment, drops []*roaring.Bitmap, dead []string) {
	if s.drop == nil || s.drop.IsEmpty() {
		return s.frags, make([]*roaring.Bitmap, len(s.frags)), nil
	}
	it := s.drop.Iterator()
	start := uint64(0)
	for _, f := range s.frags {
		end := start + f.PhysicalRows
		var del *roaring.Bitmap
		if start <= uint64(^uint32(0)) {
			it.AdvanceIfNeeded(uint32(start))
			for it.HasNext() && uint64(it.PeekNext()) < end {
				if del == nil {
					del = roaring.New()
				}
				del.Add(it.Next() - uint32(start))
			}
		}
		start = end
		if del != nil && del.GetCardinality() >= f.PhysicalRows {
			for _, df := range f.Files {
				dead = append(dead, joinPath(s.d.dir, dataDir, df.Path))
			}
			continue
		}
		frags = append(frags, f)
		drops = append(drops, del)
	}
	return frags, drops, dead
}

// Discard deletes the files written so far (the rows will not be
// committed). It is a no-op after UpdateStaged used them.
func (s *RowStager) Discard(ctx context.Context) {
	if s == nil || s.used {
		return
	}
	s.used = true
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, p := range s.staged {
		_ = s.d.store.Delete(cctx, p)
	}
}

// UpdateStaged is Update with the new rows already written by rs (nil: no
// new rows). rs must stage rows of this table's schema; it is consumed: on
// a failure before the commit its files are deleted.
func (d *Dataset) UpdateStaged(ctx context.Context, rs *RowStager, rowAddresses []uint64, opts RowChangeOptions) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		rs.Discard(ctx)
		return nil, err
	}
	var frags []*Fragment
	var freshDrops []*roaring.Bitmap // per fragment of frags: rows deleted from the start
	var staged, dead []string
	if rs != nil {
		if rs.used {
			return nil, fmt.Errorf("dataset: row stager used twice")
		}
		if rs.d.dir != d.dir {
			rs.Discard(ctx)
			return nil, fmt.Errorf("dataset: rows staged for %s, committed to %s", rs.d.dir, d.dir)
		}
		rs.used = true
		staged = rs.staged
		frags, freshDrops, dead = rs.liveFragments()
	}
	byFrag := map[uint64]*roaring.Bitmap{}
	for _, a := range rowAddresses {
		id := a >> 32
		bm := byFrag[id]
		if bm == nil {
			bm = roaring.New()
			byFrag[id] = bm
		}
		bm.Add(uint32(a))
	}
	remove := map[uint64]bool{}
	for _, id := range opts.Remove {
		remove[id] = true
	}
	for _, ix := range d.manifest.Indices {
		for id := range remove {
			if ix.FragmentBitmap == nil || (id <= uint64(^uint32(0)) && ix.FragmentBitmap.Contains(uint32(id))) {
				if rs != nil {
					rs.used = false
					rs.Discard(ctx)
				}
				return nil, invalidf("removal of fragment %d: index %q covers it", id, ix.Name)
			}
		}
	}
	if len(frags) == 0 && len(byFrag) == 0 && len(remove) == 0 {
		if rs != nil {
			// Every staged row was dropped: its files go.
			rs.used = false
			rs.Discard(ctx)
		}
		// No version to publish: the files to sync are still made durable,
		// as promised.
		if err := storage.SyncAll(ctx, d.store, opts.Sync); err != nil {
			return nil, err
		}
		return d, nil
	}
	op := "Update"
	switch {
	case len(byFrag) == 0 && len(remove) == 0:
		op = "Append"
	case len(frags) == 0:
		op = "Delete"
	}
	req := commitRequest{op: op, staged: staged, exact: opts.ExactBase, keepOnConflict: opts.KeepStaged && rs != nil, written: opts.Sync, recheck: opts.Recheck, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		var removed []uint64
		var updated []*Fragment
		kept := next.Fragments[:0:0]
		found := 0
		gone := 0
		for _, f := range next.Fragments {
			if remove[f.ID] {
				removed = append(removed, f.ID)
				gone++
				continue
			}
			rows := byFrag[f.ID]
			if rows == nil {
				kept = append(kept, f)
				continue
			}
			found++
			if f.PhysicalRows == 0 || uint64(rows.Maximum()) >= f.PhysicalRows {
				return nil, nil, invalidf("row address %d is outside fragment %d (%d rows)", f.ID<<32|uint64(rows.Maximum()), f.ID, f.PhysicalRows)
			}
			old, err := readDeletionVector(ctx, d.store, d.dir, f)
			if err != nil {
				return nil, nil, err
			}
			merged := roaring.Or(old, rows)
			if merged.GetCardinality() == old.GetCardinality() {
				kept = append(kept, f) // nothing new to delete here
				continue
			}
			if merged.GetCardinality() >= f.PhysicalRows {
				removed = append(removed, f.ID)
				continue
			}
			typ, b, err := encodeDeletionVector(merged)
			if err != nil {
				return nil, nil, err
			}
			f.Deletion = &DeletionFile{Type: typ, ReadVersion: base.Version, ID: randomU64(), NumDeleted: merged.GetCardinality()}
			p := deletionFilePath(d.dir, f.ID, f.Deletion)
			if err := storage.PutDeferred(ctx, d.store, p, b); err != nil {
				return nil, nil, fmt.Errorf("dataset: write deletion file: %w", err)
			}
			stage(p)
			updated = append(updated, f)
			kept = append(kept, f)
		}
		if gone != len(remove) {
			return nil, nil, invalidf("removal of fragments %v: version %d lacks some", opts.Remove, base.Version)
		}
		if found != len(byFrag) {
			for id := range byFrag {
				if !slices.ContainsFunc(next.Fragments, func(f *Fragment) bool { return f.ID == id }) {
					return nil, nil, invalidf("row address in fragment %d, which version %d does not have", id, base.Version)
				}
			}
		}
		fresh := make([]*Fragment, len(frags))
		for i, f := range frags {
			fresh[i] = f.clone()
		}
		assignIDs(fresh, base.NextFragmentID())
		for i, f := range fresh {
			del := freshDrops[i]
			if del == nil {
				continue
			}
			// The fragment's id is only known now: its deletion file is
			// named after it, so it is written for each attempt.
			typ, b, err := encodeDeletionVector(del)
			if err != nil {
				return nil, nil, err
			}
			f.Deletion = &DeletionFile{Type: typ, ReadVersion: base.Version, ID: randomU64(), NumDeleted: del.GetCardinality()}
			p := deletionFilePath(d.dir, f.ID, f.Deletion)
			if err := storage.PutDeferred(ctx, d.store, p, b); err != nil {
				return nil, nil, fmt.Errorf("dataset: write deletion file: %w", err)
			}
			stage(p)
		}
		next.Fragments = append(kept, fresh...)
		if len(removed) > 0 {
			next.Indices = retainRelevantIndices(next.Indices, next.Fragments)
		}
		var tx *tablepb.Transaction
		switch op {
		case "Append":
			ap := &tablepb.Transaction_Append{}
			for _, f := range fresh {
				pf := f.proto()
				pf.Id = 0 // ids are assigned when the manifest is built
				ap.Fragments = append(ap.Fragments, pf)
			}
			tx = &tablepb.Transaction{Operation: &tablepb.Transaction_Append_{Append: ap}}
		case "Delete":
			del := &tablepb.Transaction_Delete{DeletedFragmentIds: removed}
			for _, f := range updated {
				del.UpdatedFragments = append(del.UpdatedFragments, f.proto())
			}
			tx = &tablepb.Transaction{Operation: &tablepb.Transaction_Delete_{Delete: del}}
		default:
			up := &tablepb.Transaction_Update{RemovedFragmentIds: removed, UpdateMode: tablepb.Transaction_REWRITE_ROWS}
			for _, f := range updated {
				up.UpdatedFragments = append(up.UpdatedFragments, f.proto())
			}
			for _, f := range fresh {
				up.NewFragments = append(up.NewFragments, f.proto())
			}
			tx = &tablepb.Transaction{Operation: &tablepb.Transaction_Update_{Update: up}}
		}
		return next, tx, nil
	}}
	if op == "Update" {
		// Lance rebases an Update only over commits that left the fragments
		// it modifies alone (it would have to merge deletion vectors
		// otherwise).
		for id := range byFrag {
			req.modified = append(req.modified, id)
		}
	}
	// Removed fragments must be exactly as read: their rows were carried.
	for id := range remove {
		if !slices.Contains(req.modified, id) {
			req.modified = append(req.modified, id)
		}
	}
	out, err := commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
	if err != nil {
		if req.keepOnConflict && errors.Is(err, ErrCommitConflict) {
			rs.used = false // staged files kept: the caller may try again
		}
		return nil, err
	}
	if len(dead) > 0 {
		// Fragments whose rows were all dropped: their files were staged
		// (and synced) but the version does not refer to them.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for _, p := range dead {
			_ = d.store.Delete(cctx, p)
		}
	}
	return out, nil
}

// retainRelevantIndices applies Lance's retention rule after fragments were
// removed (Transaction::retain_relevant_indices): fragment bitmaps are kept
// as they are (they record what the index holds row ids for; readers
// intersect them with the live fragments), and an index is dropped only
// when it is a vector index left covering no live fragment, or when
// another segment of the same name still covers some (among segments that
// all cover nothing, the oldest scalar one stays). A scalar index over an
// emptied table - a UNIQUE index created with an empty table - is kept, so
// SHOW INDEX, the peer's listIndices and the column's unique flag agree.
func retainRelevantIndices(ixs []*IndexMetadata, frags []*Fragment) []*IndexMetadata {
	live := roaring.New()
	for _, f := range frags {
		if f.ID <= uint64(^uint32(0)) {
			live.Add(uint32(f.ID))
		}
	}
	empty := func(ix *IndexMetadata) bool {
		return ix.FragmentBitmap == nil || !ix.FragmentBitmap.Intersects(live)
	}
	byName := map[string][]*IndexMetadata{}
	for _, ix := range ixs {
		byName[ix.Name] = append(byName[ix.Name], ix)
	}
	keep := map[*IndexMetadata]bool{}
	for name, group := range byName {
		if name == fragReuseIndexName {
			for _, ix := range group {
				keep[ix] = true
			}
			continue
		}
		var nonEmpty []*IndexMetadata
		for _, ix := range group {
			if !empty(ix) {
				nonEmpty = append(nonEmpty, ix)
			}
		}
		switch {
		case len(nonEmpty) > 0:
			for _, ix := range nonEmpty {
				keep[ix] = true
			}
		default:
			oldest := group[0]
			for _, ix := range group[1:] {
				if ix.DatasetVersion < oldest.DatasetVersion {
					oldest = ix
				}
			}
			if !oldest.isVector() {
				keep[oldest] = true
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(ixs), func(ix *IndexMetadata) bool { return !keep[ix] })
}

// fragReuseIndexName is the system index Lance always keeps.
const fragReuseIndexName = "__lance_frag_reuse"

// RewriteFragments compacts the live rows of the given fragments into one
// new fragment, placed where the first of them was (a Rewrite transaction
// with one group, as Lance's compaction commits). Deleted rows are dropped,
// so the new fragment has no deletion file. No index may cover the
// fragments (the rewrite would need remapped indices); that is an
// ErrInvalidArgument. Unless opts.ExactBase it rebases over concurrent
// commits that left those fragments alone (Append, Delete, Update, Rewrite,
// UpdateConfig, ReserveFragments).
func (d *Dataset) RewriteFragments(ctx context.Context, ids []uint64, opts RowChangeOptions) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	if err := checkWriteFormat(d.manifest.DataFormat.Version); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return d, nil
	}
	order := make([]uint64, 0, len(ids)) // ids in manifest order
	for _, f := range d.manifest.Fragments {
		if slices.Contains(ids, f.ID) && !slices.Contains(order, f.ID) {
			order = append(order, f.ID)
		}
	}
	if len(order) != len(slices.Compact(slices.Sorted(slices.Values(ids)))) {
		return nil, invalidf("rewrite of fragments %v: version %d lacks some", ids, d.manifest.Version)
	}
	for _, ix := range d.manifest.Indices {
		for _, id := range order {
			if ix.FragmentBitmap == nil || (id <= uint64(^uint32(0)) && ix.FragmentBitmap.Contains(uint32(id))) {
				return nil, invalidf("rewrite of fragment %d: index %q covers it", id, ix.Name)
			}
		}
	}
	recs, err := d.ScanAll(ctx, ScanOptions{Fragments: order})
	if err != nil {
		return nil, err
	}
	frags, staged, err := writeFragments(ctx, d.store, d.dir, d.manifest.Schema, d.manifest.DataFormat.Version, recs)
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		return nil, err
	}
	req := commitRequest{op: "Rewrite", staged: staged, exact: opts.ExactBase, modified: order, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		fresh := make([]*Fragment, len(frags))
		for i, f := range frags {
			fresh[i] = f.clone()
		}
		assignIDs(fresh, base.NextFragmentID())
		group := &tablepb.Transaction_Rewrite_RewriteGroup{}
		var out []*Fragment
		placed := false
		for _, f := range next.Fragments {
			if !slices.Contains(order, f.ID) {
				out = append(out, f)
				continue
			}
			group.OldFragments = append(group.OldFragments, f.proto())
			if !placed {
				out = append(out, fresh...)
				placed = true
			}
		}
		if len(group.OldFragments) != len(order) {
			return nil, nil, fmt.Errorf("%w: fragments of the rewrite were removed concurrently", ErrCommitConflict)
		}
		for _, f := range fresh {
			group.NewFragments = append(group.NewFragments, f.proto())
		}
		next.Fragments = out
		rw := &tablepb.Transaction_Rewrite{Groups: []*tablepb.Transaction_Rewrite_RewriteGroup{group}}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Rewrite_{Rewrite: rw}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// touchedFragments lists the existing fragments a transaction modified or
// removed (deletion files, rewrites, replaced data), for the rebase rules
// that depend on fragment overlap.
func touchedFragments(tx *Transaction) []uint64 {
	if tx == nil || tx.raw == nil {
		return nil
	}
	var ids []uint64
	switch op := tx.raw.GetOperation().(type) {
	case *tablepb.Transaction_Delete_:
		for _, f := range op.Delete.GetUpdatedFragments() {
			ids = append(ids, f.GetId())
		}
		ids = append(ids, op.Delete.GetDeletedFragmentIds()...)
	case *tablepb.Transaction_Update_:
		for _, f := range op.Update.GetUpdatedFragments() {
			ids = append(ids, f.GetId())
		}
		ids = append(ids, op.Update.GetRemovedFragmentIds()...)
	case *tablepb.Transaction_Rewrite_:
		for _, f := range op.Rewrite.GetOldFragments() {
			ids = append(ids, f.GetId())
		}
		for _, g := range op.Rewrite.GetGroups() {
			for _, f := range g.GetOldFragments() {
				ids = append(ids, f.GetId())
			}
		}
	case *tablepb.Transaction_DataReplacement_:
		for _, r := range op.DataReplacement.GetReplacements() {
			ids = append(ids, r.GetFragmentId())
		}
	}
	return ids
}
