package planner

// LOAD DATA ... REPLACE | IGNORE INTO TABLE t, streamed: the file's rows
// are written as data files batch by batch while their keys go into the
// keyed load's key set (loadkeys.go: an arena hash set within
// Options.SortMemory, sorted runs spilled past it), so the file is never
// held whole. A row that ends up not stored (IGNORE: a later copy of a key
// the file or the table already holds; REPLACE: an earlier file row a
// later one replaces) is still written, and the one commit marks it
// deleted in its new fragment; the stored rows REPLACE replaces are
// deleted in theirs. The commit is INSERT's upsert commit (one Update on
// exactly the version read, upsert.go): on a concurrent commit the table
// side is decided again on the latest version and the same data files are
// committed with the new deletions.
//
// The semantics are MySQL's for one key, applied in file order: REPLACE
// keeps the last file row of each key and deletes the stored row holding
// it (affected rows: 1 per file row plus 1 per row it deleted, file rows
// included); IGNORE keeps the first file row of a key the table does not
// hold and skips the others with warning 1062 (affected rows: the rows
// kept). A key with a NULL column matches nothing. Tables with more than
// one enforced key (where one row may replace several, and which rows
// IGNORE keeps depends on every earlier decision) and tables with an
// AUTO_INCREMENT column go through the in-memory path (loadUpsert).

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"hash/maphash"
	"io"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/planner/expr"
)

// loadUpsertInMemory, set by tests, sends every LOAD DATA REPLACE /
// IGNORE through the in-memory path, to compare the two.
var loadUpsertInMemory bool

// beforeUpsertCommit, when set (by tests), runs before each commit attempt
// of a streamed REPLACE / IGNORE load.
var beforeUpsertCommit func()

// loadUpsertStreams reports whether a REPLACE / IGNORE load into a table of
// schema streams (see the file comment).
func loadUpsertStreams(schema *arrow.Schema) bool {
	if loadUpsertInMemory || len(enforcedKeys(schema)) > 1 {
		return false
	}
	for _, f := range schema.Fields() {
		if isAutoIncrement(f) && isIntegerType(f.Type) {
			return false
		}
	}
	return true
}

// maxStreamedUpsertRows bounds a streamed REPLACE / IGNORE load: rows are
// numbered in 32 bits (the dropped rows are a roaring bitmap of them).
const maxStreamedUpsertRows = 1 << 32

// loadUpsertStream applies src as REPLACE (replace) or IGNORE, streaming.
func (s *Session) loadUpsertStream(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, spec *loadSpec, src loadSource, replace bool, pt *loadTracker) (*Result, error) {
	schema := spec.schema
	fill, err := newInsertFill(schema)
	if err != nil {
		return nil, err
	}
	fill.numbering.bulk = true // MySQL numbers a load as a bulk insert
	if !replace {
		fill.lenient = s.lenientFor(id)
		fill.lenient.load = true
	}
	kl := &keyedLoad{replace: replace, dropped: roaring.New(), warns: shownRows{max: max(s.maxErrorCount(), 0)}}
	if keys := enforcedKeys(schema); len(keys) == 1 {
		budget := s.opts.SortMemory
		if budget <= 0 {
			budget = DefaultSortMemory
		}
		kl.key = keys[0]
		kl.ks = newLoadKeySet(maphash.MakeSeed(), budget, s.opts.NoSpill, s.opts.SpillDir)
		defer kl.ks.close()
	}
	rs, err := ds.NewRowStager()
	if err != nil {
		return nil, err
	}
	done := false // rs was handed over for good
	defer func() {
		if !done {
			rs.Discard(ctx)
		}
	}()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var total uint64
	for eof := false; !eof; {
		rows, size := 0, 0
		for rows < loadBatchRows && size < loadBatchBytes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			// IGNORE reads a record at a time: its lenient values warn per
			// field (ignore.go), which a run does not.
			if ru, ok := src.(runAppender); ok && fill.lenient == nil {
				if k, n := ru.appendRun(spec, fill, b, loadBatchRows-rows, loadBatchBytes-size, pt); k > 0 {
					rows += k
					size += n
					continue
				}
			}
			n, err := spec.appendNext(ctx, src, fill, b, pt)
			if errors.Is(err, io.EOF) {
				pt.report()
				eof = true
				break
			}
			if err != nil {
				return nil, err
			}
			rows++
			size += n
		}
		if rows == 0 {
			continue
		}
		if total+uint64(rows) > maxStreamedUpsertRows {
			return nil, errorf(catalog.CodeInvalidInput, "%s REPLACE / IGNORE reads at most %d rows: split the file", spec.verb, uint64(maxStreamedUpsertRows))
		}
		rec := b.NewRecordBatch()
		err := kl.addBatch(ctx, rec, uint32(total))
		if err == nil {
			err = rs.Write(ctx, rec)
		}
		rec.Release()
		if err != nil {
			return nil, loadKeyError(spec, err)
		}
		total += uint64(rows)
	}
	if total == 0 {
		return okResult(0), nil
	}
	for attempt := 1; ; attempt++ {
		plan, err := kl.resolve(ctx, s, ds, schema)
		if err != nil {
			return nil, loadKeyError(spec, err)
		}
		if beforeUpsertCommit != nil {
			beforeUpsertCommit()
		}
		rs.DropRows(plan.drop)
		_, err = ds.UpdateStaged(ctx, rs, plan.deletes, dataset.RowChangeOptions{ExactBase: true, KeepStaged: true})
		if err == nil {
			done = true
			dropped := plan.drop.GetCardinality()
			affected := int64(total - dropped)
			if replace {
				affected = int64(total + dropped + uint64(len(plan.deletes)))
			} else {
				s.warnDuplicates(schema, kl.key, plan.warns, dropped)
			}
			return okResult(affected), nil
		}
		if !errors.Is(err, dataset.ErrCommitConflict) || attempt >= upsertAttempts {
			// The deferred Discard deletes the files a conflict kept
			// (UpdateStaged deleted them on any other failure).
			return nil, versionErr(id, err)
		}
		if ds, err = ds.Latest(ctx); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
}

// keyedLoad is the key side of a streamed REPLACE / IGNORE load. Rows are
// numbered in file order from 0 (their place among the staged rows).
type keyedLoad struct {
	replace bool
	key     tableKey
	ks      *loadKeySet // nil: the table has no key
	// dropped are the rows the file alone drops: under REPLACE the rows a
	// later row with their key replaced, under IGNORE the rows whose key
	// an earlier row held (as far as the keys held in memory tell; the
	// spilled runs are merged at the end).
	dropped *roaring.Bitmap
	warns   shownRows // IGNORE: the first rows dropped, with their keys
	keyBuf  []byte
}

// addBatch records the keys of rec, whose row i is row first+i.
func (kl *keyedLoad) addBatch(ctx context.Context, rec arrow.RecordBatch, first uint32) error {
	ks := kl.ks
	if ks == nil {
		return nil
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key, ok := appendRowKey(kl.keyBuf[:0], rec, kl.key.cols, i)
		kl.keyBuf = key
		if !ok {
			continue // a NULL in the key matches nothing
		}
		r := first + uint32(i)
		fp := loadKeyHash(ks.seed, key)
		if e := ks.findIndex(fp, key); e >= 0 {
			if kl.replace {
				kl.dropped.Add(uint32(ks.ents[e].where))
				ks.ents[e].where = int64(r)
			} else {
				kl.dropped.Add(r)
				kl.warns.add(r, key)
			}
			continue
		}
		if err := ks.insert(fp, key, int64(r)); err != nil {
			return err
		}
	}
	return nil
}

// upsertPlan is what a streamed load commits on one version.
type upsertPlan struct {
	drop    *roaring.Bitmap // staged rows not stored
	deletes []uint64        // addresses of stored rows REPLACE deletes
	warns   shownRows
}

// tableKeyWhere is the where of a stored row's key in a merge: below every
// file row's, and the row address recoverable.
func tableKeyWhere(addr uint64) int64 { return -int64(addr) - 1 }

// resolve decides, against ds, which file rows are dropped and which
// stored rows deleted, reading the key's columns of ds once (or, for at
// most keyIndexLookupMax keys of an indexed column, looking them up). It leaves kl
// as it was, so a conflict can resolve again on a later version.
func (kl *keyedLoad) resolve(ctx context.Context, s *Session, ds *dataset.Dataset, schema *arrow.Schema) (*upsertPlan, error) {
	p := &upsertPlan{drop: kl.dropped.Clone(), warns: kl.warns.clone()}
	ks := kl.ks
	if ks == nil || ks.n == 0 {
		return p, nil
	}
	names := kl.key.names(schema)
	cols := make([]int, len(names))
	for i := range cols {
		cols[i] = i
	}
	stored := func(r uint32, addr uint64, key []byte) {
		if kl.replace {
			p.deletes = append(p.deletes, addr)
		} else if p.drop.CheckedAdd(r) {
			p.warns.add(r, key)
		}
	}
	var key []byte
	if len(ks.runs.files) == 0 && ks.n <= keyIndexLookupMax {
		// A few keys and an index on the key's column: look them up
		// (col IN (...)) instead of reading the whole column.
		held := make(map[string]struct{}, len(ks.ents))
		for _, e := range ks.ents {
			held[string(ks.key(e))] = struct{}{}
		}
		if where := keyIndexLookup(ds, schema, kl.key, held); where != nil {
			env := newRowEnv(columnsOf(schema))
			env.session = s
			name := schema.Field(kl.key.cols[0]).Name
			err := s.matchingRows(ctx, ds, schema, env, where, false, func(addr uint64, rec arrow.RecordBatch, i int) error {
				c := rec.Schema().FieldIndices(name)
				if len(c) == 0 {
					return errorf(catalog.CodeInternal, "key lookup of %s returned no such column", name)
				}
				var ok bool
				if key, ok = appendRowKey(key[:0], rec, c[:1], i); ok {
					if e := ks.findIndex(loadKeyHash(ks.seed, key), key); e >= 0 {
						stored(uint32(ks.ents[e].where), addr, key)
					}
				}
				return nil
			})
			return p, err
		}
	}
	if len(ks.runs.files) == 0 {
		err := ds.Scan(ctx, dataset.ScanOptions{Columns: names, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
			addrs := rowAddresses(rec)
			for i := 0; i < int(rec.NumRows()); i++ {
				var ok bool
				if key, ok = appendRowKey(key[:0], rec, cols, i); !ok {
					continue
				}
				if e := ks.findIndex(loadKeyHash(ks.seed, key), key); e >= 0 {
					stored(uint32(ks.ents[e].where), addrs[i], key)
				}
			}
			return ctx.Err()
		})
		return p, err
	}
	// Spilled: the table's keys are gathered within the same budget and
	// merged with the runs, one key at a time.
	table := newLoadKeySet(ks.seed, ks.budget, false, ks.runs.base)
	defer table.close()
	err := ds.Scan(ctx, dataset.ScanOptions{Columns: names, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		addrs := rowAddresses(rec)
		for i := 0; i < int(rec.NumRows()); i++ {
			var ok bool
			if key, ok = appendRowKey(key[:0], rec, cols, i); !ok {
				continue
			}
			if _, _, err := table.add(key, tableKeyWhere(addrs[i])); err != nil {
				return err
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	srcs, err := ks.sources()
	if err != nil {
		return nil, err
	}
	defer ks.rehash()
	more, err := table.sources()
	if err != nil {
		return nil, err
	}
	err = mergeKeyGroups(append(srcs, more...), func(group []mergedKey) {
		// The group is in where order: the stored rows first, then the
		// file's rows in file order.
		var rows []uint32
		var addrs []uint64
		for _, k := range group {
			if k.where < 0 {
				addrs = append(addrs, uint64(-(k.where + 1)))
			} else {
				rows = append(rows, uint32(k.where))
			}
		}
		if len(rows) == 0 {
			return // only the table holds the key
		}
		if kl.replace {
			p.deletes = append(p.deletes, addrs...)
			for _, r := range rows[:len(rows)-1] {
				p.drop.Add(r)
			}
			return
		}
		if len(addrs) == 0 {
			rows = rows[1:] // the first file row is kept
		}
		for _, r := range rows {
			if p.drop.CheckedAdd(r) {
				p.warns.add(r, group[0].key)
			}
		}
	})
	return p, err
}

// mergeKeyGroups merges srcs (each in (fingerprint, key, where) order) and
// calls fn with each key's copies, in where order.
func mergeKeyGroups(srcs []keySource, fn func(group []mergedKey)) error {
	h, err := newKeyHeap(srcs)
	if err != nil {
		return err
	}
	var group []mergedKey
	for h.Len() > 0 {
		k := h.heads[0]
		if len(group) > 0 && (group[0].fp != k.fp || string(group[0].key) != string(k.key)) {
			fn(group)
			group = group[:0]
		}
		group = append(group, k)
		if err := h.advance(); err != nil {
			return err
		}
	}
	if len(group) > 0 {
		fn(group)
	}
	return nil
}

// shownRows keeps the max lowest-numbered dropped rows with their keys:
// the statement keeps only its first max warnings (@@max_error_count), so
// the rest are only counted.
type shownRows struct {
	max  int
	rows []shownRow // a max-heap by row
}

type shownRow struct {
	row uint32
	key string // appendRowKey's form
}

func (h *shownRows) Len() int           { return len(h.rows) }
func (h *shownRows) Less(i, j int) bool { return h.rows[i].row > h.rows[j].row }
func (h *shownRows) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *shownRows) Push(x any)         { h.rows = append(h.rows, x.(shownRow)) }
func (h *shownRows) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

func (h *shownRows) add(row uint32, key []byte) {
	switch {
	case h.max <= 0:
	case len(h.rows) < h.max:
		heap.Push(h, shownRow{row: row, key: string(key)})
	case row < h.rows[0].row:
		h.rows[0] = shownRow{row: row, key: string(key)}
		heap.Fix(h, 0)
	}
}

func (h shownRows) clone() shownRows {
	return shownRows{max: h.max, rows: slices.Clone(h.rows)}
}

// warnDuplicates raises IGNORE's warning 1062 once per dropped row, in file
// order: the rows in shown with their message, the others (past the
// statement's limit) only counted.
func (s *Session) warnDuplicates(schema *arrow.Schema, k tableKey, shown shownRows, dropped uint64) {
	rows := slices.SortedFunc(slices.Values(shown.rows), func(a, b shownRow) int { return cmp.Compare(a.row, b.row) })
	name := "PRIMARY"
	if !k.primary && len(k.cols) > 0 {
		name = schema.Field(k.cols[0]).Name
	}
	for _, r := range rows {
		s.warn(expr.LevelWarning, 1062, "Duplicate entry '%s' for key '%s'", shownKey([]byte(r.key), len(k.cols)), name)
	}
	for n := uint64(len(rows)); n < dropped; n++ {
		s.warn(expr.LevelWarning, 1062, "Duplicate entry")
	}
}
