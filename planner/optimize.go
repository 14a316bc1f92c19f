package planner

import (
	"context"
	"fmt"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/sqlparse"
)

// OPTIMIZE TABLE t [, ...] does what the reference's optimize does, per
// table:
//
//  1. compaction (dataset.PlanCompaction / StageCompaction): small
//     fragments and fragments with many deletions are rewritten into
//     fragments of up to 1,048,576 rows, deletions materialized; the new
//     fragment ids are reserved first (a ReserveFragments version) and
//     every index covering a rewritten fragment is rebuilt for the new
//     rows and swapped in by the Rewrite version itself (rewritten_indices),
//     so no version has an index pointing at rows that moved;
//  2. index optimization: every scalar index that does not cover every
//     fragment (rows appended since it was built) is rebuilt over all of
//     them under the same name (a CreateIndex version).
//
// Old versions are not pruned here (the reference's optimize prunes those
// older than seven days): CALL vacuum_table('t', '7d') does that.

func (s *Session) optimizeTables(ctx context.Context, st *sqlparse.OptimizeTable) (*Result, error) {
	cols := []Column{varchar("Table"), varchar("Op"), varchar("Msg_type"), varchar("Msg_text")}
	// Every table is resolved before any is changed: a missing one fails
	// the statement with nothing done.
	ids := make([]catalog.Ident, len(st.Tables))
	for i, name := range st.Tables {
		id, _, err := s.openTableData(ctx, name)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	var rows [][]any
	for _, id := range ids {
		ds, err := s.openLatest(ctx, id)
		if err != nil {
			return nil, err
		}
		msg, err := s.optimizeTable(ctx, id, ds)
		if err != nil {
			return nil, err
		}
		rows = append(rows, []any{displayName(id), "optimize", "status", msg})
	}
	return rowsResult(cols, rows), nil
}

func (s *Session) optimizeTable(ctx context.Context, id catalog.Ident, ds *dataset.Dataset) (string, error) {
	groups, err := ds.PlanCompaction(ctx, dataset.CompactOptions{})
	if err != nil {
		return "", versionErr(id, err)
	}
	groups = withoutFixedIndices(ds, groups)
	removed, added, remapped := 0, 0, 0
	if len(groups) > 0 {
		staged, err := ds.StageCompaction(ctx, groups)
		if err != nil {
			return "", versionErr(id, err)
		}
		view := staged.View()
		rebuilt := map[string]*dataset.IndexMetadata{}
		rewritten := map[uint64]bool{}
		for _, g := range groups {
			for _, f := range g {
				rewritten[f] = true
			}
		}
		for _, ix := range ds.Indices() {
			covers := ix.FragmentBitmap == nil
			for f := range rewritten {
				if ix.FragmentBitmap != nil && f <= uint64(^uint32(0)) && ix.FragmentBitmap.Contains(uint32(f)) {
					covers = true
				}
			}
			if !covers {
				continue
			}
			meta, err := rebuildIndex(ctx, view, ix)
			if err != nil {
				staged.Abort(ctx)
				return "", err
			}
			rebuilt[ix.UUID] = meta
		}
		if ds, err = staged.Commit(ctx, rebuilt); err != nil {
			return "", versionErr(id, err)
		}
		for _, g := range groups {
			removed += len(g)
		}
		added = staged.NewFragments()
		remapped = len(rebuilt)
	}
	// Bring every index up to date with the fragments it does not cover.
	var fresh []*dataset.IndexMetadata
	for _, ix := range ds.Indices() {
		if ix.FragmentBitmap == nil || !rebuildable(ix) {
			continue // vector and full-text indices: not rebuilt here
		}
		stale := false
		for _, f := range ds.Fragments() {
			if f.ID > uint64(^uint32(0)) || !ix.FragmentBitmap.Contains(uint32(f.ID)) {
				stale = true
				break
			}
		}
		if !stale || len(ds.Fragments()) == 0 {
			continue
		}
		meta, err := rebuildIndex(ctx, ds, ix)
		if err != nil {
			return "", err
		}
		fresh = append(fresh, meta)
	}
	if len(fresh) > 0 {
		if _, err := ds.CommitIndices(ctx, fresh, nil); err != nil {
			return "", versionErr(id, err)
		}
	}
	if removed == 0 && len(fresh) == 0 {
		return "Table is already up to date", nil
	}
	return fmt.Sprintf("OK: %d fragments compacted into %d, %d indices updated", removed, added, remapped+len(fresh)), nil
}

// rebuildIndex builds ix again over every fragment of ds (a new UUID, the
// same name, kind and column).
func rebuildIndex(ctx context.Context, ds *dataset.Dataset, ix *dataset.IndexMetadata) (*dataset.IndexMetadata, error) {
	kind := index.KindOf(ix)
	if len(ix.Fields) != 1 {
		return nil, errorf(catalog.CodeUnsupported, "not supported: optimizing index %s on %d columns", sqlparse.QuoteIdent(ix.Name), len(ix.Fields))
	}
	f := ds.Schema().FieldByID(ix.Fields[0])
	if f == nil {
		return nil, errorf(catalog.CodeInvalidTableState, "index %s names field id %d, which the schema lacks", sqlparse.QuoteIdent(ix.Name), ix.Fields[0])
	}
	meta, err := index.Build(ctx, ds, f.Name, kind, index.BuildOptions{Name: ix.Name})
	if err != nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: rebuilding index %s (%s): %v", sqlparse.QuoteIdent(ix.Name), kind, err)
	}
	return meta, nil
}

// rebuildable reports whether lancecat can build ix again: a scalar index
// of one column.
func rebuildable(ix *dataset.IndexMetadata) bool {
	switch index.KindOf(ix) {
	case index.KindBTree, index.KindBitmap, index.KindLabelList:
		return len(ix.Fields) == 1
	}
	return false
}

// withoutFixedIndices drops from the compaction groups the fragments an
// index lancecat cannot rebuild covers (a vector or full-text index the
// reference built): moving their rows would invalidate it. Groups left with
// one fragment without deletions are dropped.
func withoutFixedIndices(ds *dataset.Dataset, groups [][]uint64) [][]uint64 {
	fixed := func(id uint64) bool {
		for _, ix := range ds.Indices() {
			if rebuildable(ix) {
				continue
			}
			if ix.FragmentBitmap == nil || (id <= uint64(^uint32(0)) && ix.FragmentBitmap.Contains(uint32(id))) {
				return true
			}
		}
		return false
	}
	hasDeletions := map[uint64]bool{}
	for _, f := range ds.Fragments() {
		hasDeletions[f.ID] = f.Deletion != nil
	}
	var out [][]uint64
	for _, g := range groups {
		var keep []uint64
		for _, id := range g {
			if !fixed(id) {
				keep = append(keep, id)
			}
		}
		if len(keep) > 1 || (len(keep) == 1 && hasDeletions[keep[0]]) {
			out = append(out, keep)
		}
	}
	return out
}
