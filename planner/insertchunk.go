package planner

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// insertChunkBytes is how many bytes of rows an INSERT builds (fixed-width
// parts, as MaxInsertBytes counts them, plus string and binary values)
// before it writes them as data files and starts the next chunk; a variable
// so tests can force several chunks.
var insertChunkBytes int64 = 32 << 20

// beforeKeyCommit, when set (by tests), runs between an INSERT's (or a
// load's) key checks and its commit, where a concurrent writer may commit
// first.
var beforeKeyCommit func()

// appendInsert is INSERT ... VALUES without REPLACE, IGNORE or ON
// DUPLICATE KEY UPDATE (INSERT ... SELECT arrives here as VALUES): its rows
// are built and written as data files chunk by chunk (dataset.RowStager),
// and committed as one Append version at the end. A statement holds one
// chunk of built rows, not all of them (issue 19: 1,000 NULL VECTOR(65536)
// rows, 256 MiB, peaked near 600 MB RSS when built at once and copied by
// the write). Every check of a one-batch INSERT still holds: NOT NULL and
// range while building, UNIQUE across chunks and against the table; a
// failure deletes what was staged and commits no rows.
//
// AUTO_INCREMENT values are collected for every row first and reserved in
// one commit when the first chunk is complete; as that commit must not
// happen for an INSERT that a NOT NULL or range check refuses, the rows of
// the later chunks are checked (built and dropped) before it. UNIQUE is
// checked after it, as for a one-batch INSERT: a duplicate skips the
// reserved ids, as a failed multi-row INSERT does in MySQL.
func (s *Session) appendInsert(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, schema *arrow.Schema, n *sqlparse.Insert) (*Result, error) {
	targets, value, err := insertValues(schema, n)
	if err != nil {
		return nil, err
	}
	nrows := len(n.Rows)
	if err := checkInsertBytes(schema, nrows); err != nil {
		return nil, err
	}
	fill, err := newInsertFill(schema)
	if err != nil {
		return nil, err
	}
	fill.numbering.bulk = n.FromQuery
	slot := targetSlots(schema, targets)
	// The AUTO_INCREMENT values of all rows decide the reservation, which
	// the first chunk needs: collect them before building any row.
	// An explicit value out of the column's range is refused here, before
	// the reservation commits.
	if fill.auto >= 0 {
		f := schema.Field(fill.auto)
		scratch := array.NewBuilder(memory.DefaultAllocator, f.Type)
		defer scratch.Release()
		for r := 0; r < nrows; r++ {
			var v any
			given := false
			if k := slot[fill.auto]; k > 0 {
				if v, given, err = value(r, k-1); err != nil {
					return nil, errorf(catalog.CodeInvalidInput, "row %d, column %s: %v", r+1, sqlparse.QuoteIdent(f.Name), err)
				}
			}
			if _, err := fill.appendColumn(nil, f, fill.auto, given, v); err != nil {
				return nil, errorf(catalog.CodeInvalidInput, "row %d, column %s (%s): %v", r+1, sqlparse.QuoteIdent(f.Name), typeName(f), err)
			}
			if v := fill.autoValues[r]; v != nil {
				if err := sqltypes.AppendInteger(scratch, v); err != nil {
					return nil, errorf(catalog.CodeInvalidInput, "row %d, column %s (%s): %v", r+1, sqlparse.QuoteIdent(f.Name), typeName(f), err)
				}
			}
			if r&1023 == 1023 {
				scratch.NewArray().Release()
			}
		}
	}

	stager, err := ds.NewRowStager()
	if err != nil {
		return nil, fmt.Errorf("insert into %s: %w", displayName(id), err)
	}
	committed := false
	defer func() {
		if !committed {
			stager.Discard(ctx)
		}
	}()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fixed := fixedRowBytes(schema)
	chunkRows := int(max(1, min(insertChunkBytes/fixed+1, int64(nrows))))
	reserve := func(from int) {
		for _, fb := range b.Fields() {
			reserveBuilder(fb, min(chunkRows, nrows-from))
		}
	}
	reserve(0)

	reserved := false
	var first uint64 // first assigned id, 0 if none
	allAssigned := false
	keys := newStatementKeys(enforcedKeys(schema))
	chunkStart := 0
	var chunkBytes int64
	flush := func(end int) error {
		if end == chunkStart {
			return nil
		}
		if fill.auto >= 0 {
			f := schema.Field(fill.auto)
			if !reserved {
				// Reserving commits: check the rows of the later chunks
				// first, so that a refused INSERT commits nothing.
				if end < nrows {
					if err := checkRows(ctx, schema, fill, slot, value, end, nrows); err != nil {
						return err
					}
				}
				var need int
				if ds, first, need, err = fill.reserveAuto(ctx, ds, f); err != nil {
					return err
				}
				reserved, allAssigned = true, need == nrows
			}
			if err := fill.appendAuto(b.Field(fill.auto), f, chunkStart, end); err != nil {
				return err
			}
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		// Fresh ids cannot collide: a key holding the AUTO_INCREMENT column
		// is left out when every id was assigned here.
		if err := keys.add(schema, rec, chunkStart, func(ki int) bool { return allAssigned && keys.keys[ki].has(fill.auto) }); err != nil {
			return err
		}
		if err := stager.Write(ctx, rec); err != nil {
			return fmt.Errorf("insert into %s: %w", displayName(id), err)
		}
		chunkStart, chunkBytes = end, 0
		return nil
	}
	for r := 0; r < nrows; r++ {
		if r&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		vb, err := fill.appendRow(b, schema, slot, r, value, true)
		if err != nil {
			return nil, err
		}
		if chunkBytes += fixed + vb; chunkBytes >= insertChunkBytes {
			if err := flush(r + 1); err != nil {
				return nil, err
			}
			// After flush released its record: the next chunk's buffers
			// need not live beside the last one's.
			if r+1 < nrows {
				reserve(r + 1)
			}
		}
	}
	if err := flush(nrows); err != nil {
		return nil, err
	}
	if err := s.checkKeysAgainst(ctx, ds, schema, keys, nil, nil); err != nil {
		return nil, err
	}
	if beforeKeyCommit != nil {
		beforeKeyCommit()
	}
	committed = true // UpdateStaged consumes the staged files, on failure too
	if _, err := ds.UpdateStaged(ctx, stager, nil, dataset.RowChangeOptions{Recheck: s.statementRecheck(schema, ds, keys, nil)}); err != nil {
		var ce *catalog.Error
		if errors.As(err, &ce) {
			return nil, err // a key a concurrent commit added
		}
		return nil, fmt.Errorf("insert into %s: %w", displayName(id), err)
	}
	res := okResult(int64(nrows))
	if first > 0 {
		res.LastInsertID = int64(first)
	} else if fill.auto >= 0 && len(fill.autoValues) > 0 {
		// No id generated: MySQL's insert id of the statement (the OK
		// packet's, a driver's LastInsertId) is the last row's explicit
		// value; LAST_INSERT_ID() would keep the last generated one.
		if v := fill.autoValues[len(fill.autoValues)-1]; v != nil && v.IsInt64() {
			res.LastInsertID = v.Int64()
		}
	}
	return res, nil
}

// checkRows builds rows [from, nrows) of an INSERT only to check them (NOT
// NULL, each type's range), one chunk at a time, dropping each; the
// AUTO_INCREMENT column is left out (fill.autoValues holds its values).
func checkRows(ctx context.Context, schema *arrow.Schema, fill *insertFill, slot []int, value func(r, k int) (any, bool, error), from, nrows int) error {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fixed := fixedRowBytes(schema)
	drop := func() {
		for _, fb := range b.Fields() {
			fb.NewArray().Release()
		}
	}
	var bytes int64
	for r := from; r < nrows; r++ {
		if r&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		vb, err := fill.appendRow(b, schema, slot, r, value, true)
		if err != nil {
			return err
		}
		if bytes += fixed + vb; bytes >= insertChunkBytes {
			drop()
			bytes = 0
		}
	}
	drop()
	return nil
}
