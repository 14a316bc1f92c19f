package dataset

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// RowAddressColumn is the name of the row address column a scan adds when
// ScanOptions.WithRowAddress is set (Lance's name for it).
const RowAddressColumn = "_rowaddr"

// DefaultBatchSize is the number of physical rows a scan reads at a time.
const DefaultBatchSize = 8192

// ScanOptions selects what Scan returns.
type ScanOptions struct {
	// Columns are the top-level columns to return, in this order; nil
	// returns every column in schema order.
	Columns []string
	// Offset skips that many live rows; Limit stops after that many (0 = no
	// limit).
	Offset, Limit uint64
	// Fragments restricts the scan to these fragment ids (in manifest
	// order); nil scans all.
	Fragments []uint64
	// WithRowAddress appends a uint64 column "_rowaddr": fragment id << 32 |
	// offset of the row in the fragment.
	WithRowAddress bool
	// BatchSize is the number of physical rows read at a time (default
	// DefaultBatchSize).
	BatchSize int
	// Allocator for the arrays built by the scan (default Go allocator).
	Allocator memory.Allocator
}

// Scan reads the live rows of the dataset and calls fn with each batch, in
// manifest fragment order and row order within a fragment. The batch is
// released after fn returns: Retain it to keep it. A non-nil error from fn
// stops the scan and is returned. fn runs on the caller's goroutine; a scan
// of more than one chunk reads and decodes the next batch on a goroutine of
// its own meanwhile (scanAhead), so decoding and the caller's work share
// the cores.
//
// Deleted rows are skipped; columns a fragment's files do not carry (added
// after the fragment was written) read as nulls; columns are named and typed
// as in the dataset schema.
func (d *Dataset) Scan(ctx context.Context, opts ScanOptions, fn func(arrow.RecordBatch) error) error {
	fields, err := d.selectFields(opts.Columns)
	if err != nil {
		return err
	}
	outSchema, err := scanSchema(d.manifest.Schema, fields, opts.WithRowAddress)
	if err != nil {
		return err
	}
	frags, err := d.selectFragments(opts.Fragments)
	if err != nil {
		return err
	}
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	batch := uint64(opts.BatchSize)
	if batch == 0 {
		batch = DefaultBatchSize
	}
	s := &scanState{d: d, opts: opts, mem: mem, fields: fields, schema: outSchema, batch: batch, skip: opts.Offset, fn: fn}
	if opts.Limit > 0 {
		s.remaining = opts.Limit
		s.limited = true
	}
	if !s.readsAhead(frags) {
		return s.scanFragments(ctx, frags)
	}
	return s.scanAhead(ctx, frags, fn)
}

// scanReadAhead is how many decoded batches a scan of several chunks keeps
// ready beyond the one fn holds: the next batch is read and decoded on
// another goroutine (the second core) while fn works on this one, and
// memory stays bounded by a few batches.
const scanReadAhead = 1

// readsAhead reports whether the scan reads more than one chunk (a scan of
// one chunk, a point read or a small LIMIT, gains nothing from a second
// goroutine).
func (s *scanState) readsAhead(frags []*Fragment) bool {
	if len(frags) == 0 || s.limited && s.remaining <= s.batch {
		return false
	}
	return len(frags) > 1 || frags[0].PhysicalRows == 0 || frags[0].PhysicalRows > s.batch
}

// scanFragments reads frags in order, handing each batch to s.fn.
func (s *scanState) scanFragments(ctx context.Context, frags []*Fragment) error {
	for _, f := range frags {
		if s.limited && s.remaining == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.scanFragment(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// scanAhead is scanFragments with the reading and decoding on a goroutine
// of its own, scanReadAhead batches ahead of fn, which still runs on the
// caller's goroutine, in order. An error of fn stops the reader (the batches
// it read ahead are released); a read error reaches the caller after the
// batches read before it.
func (s *scanState) scanAhead(ctx context.Context, frags []*Fragment, fn func(arrow.RecordBatch) error) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan arrow.RecordBatch, scanReadAhead)
	done := make(chan error, 1)
	s.fn = func(rec arrow.RecordBatch) error {
		rec.Retain() // scanFragment releases its reference when this returns
		select {
		case ready <- rec:
			return nil
		case <-rctx.Done():
			rec.Release()
			return rctx.Err()
		}
	}
	go func() {
		defer close(ready)
		done <- s.scanFragments(rctx, frags)
	}()
	var fnErr error
	for rec := range ready {
		if fnErr == nil {
			if fnErr = fn(rec); fnErr != nil {
				cancel()
			}
		}
		rec.Release()
	}
	readErr := <-done
	if fnErr != nil {
		return fnErr
	}
	return readErr
}

// ScanAll is Scan collecting every batch (retained) into a slice. The
// caller releases them.
func (d *Dataset) ScanAll(ctx context.Context, opts ScanOptions) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	err := d.Scan(ctx, opts, func(rec arrow.RecordBatch) error {
		rec.Retain()
		out = append(out, rec)
		return nil
	})
	if err != nil {
		for _, r := range out {
			r.Release()
		}
		return nil, err
	}
	return out, nil
}

func (d *Dataset) selectFields(names []string) ([]*lanceschema.Field, error) {
	if names == nil {
		return slices.Clone(d.manifest.Schema.Fields), nil
	}
	out := make([]*lanceschema.Field, 0, len(names))
	for _, n := range names {
		f := d.manifest.Schema.Field(n)
		if f == nil {
			return nil, invalidf("no column %q in %s", n, d.URI())
		}
		out = append(out, f)
	}
	return out, nil
}

func (d *Dataset) selectFragments(ids []uint64) ([]*Fragment, error) {
	if ids == nil {
		return d.manifest.Fragments, nil
	}
	want := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []*Fragment
	for _, f := range d.manifest.Fragments {
		if want[f.ID] {
			out = append(out, f)
			delete(want, f.ID)
		}
	}
	for id := range want {
		return nil, invalidf("no fragment %d in version %d", id, d.Version())
	}
	return out, nil
}

func scanSchema(s *lanceschema.Schema, fields []*lanceschema.Field, rowAddr bool) (*arrow.Schema, error) {
	afs := make([]arrow.Field, 0, len(fields)+1)
	for _, f := range fields {
		af, err := f.ArrowField()
		if err != nil {
			return nil, err
		}
		afs = append(afs, af)
	}
	if rowAddr {
		afs = append(afs, arrow.Field{Name: RowAddressColumn, Type: arrow.PrimitiveTypes.Uint64})
	}
	return arrow.NewSchema(afs, nil), nil
}

type scanState struct {
	d         *Dataset
	opts      ScanOptions
	mem       memory.Allocator
	fields    []*lanceschema.Field
	schema    *arrow.Schema
	batch     uint64
	skip      uint64
	remaining uint64
	limited   bool
	fn        func(arrow.RecordBatch) error
}

// fileGroup is the set of selected fields one data file provides.
type fileGroup struct {
	file    *DataFile
	ids     []int32 // top-level field ids to read from the file
	outCols []int   // where each goes in the output
}

// subtreeIDs lists a field's id and its descendants' ids.
func subtreeIDs(f *lanceschema.Field) []int32 {
	ids := []int32{f.ID}
	for _, c := range f.Children {
		ids = append(ids, subtreeIDs(c)...)
	}
	return ids
}

// planFragment assigns each selected field to the data file that stores it
// (nil: no file does, the column reads as nulls).
func planFragment(f *Fragment, fields []*lanceschema.Field) ([]*fileGroup, error) {
	var groups []*fileGroup
	byFile := map[int]*fileGroup{}
	for col, field := range fields {
		ids := subtreeIDs(field)
		found := -1
		for i := range f.Files {
			for _, id := range f.Files[i].Fields {
				if id >= 0 && slices.Contains(ids, id) {
					found = i
					break
				}
			}
			if found >= 0 {
				break
			}
		}
		if found < 0 {
			continue
		}
		g := byFile[found]
		if g == nil {
			g = &fileGroup{file: &f.Files[found]}
			byFile[found] = g
			groups = append(groups, g)
		}
		g.ids = append(g.ids, field.ID)
		g.outCols = append(g.outCols, col)
	}
	return groups, nil
}

func (s *scanState) scanFragment(ctx context.Context, f *Fragment) error {
	if f.HasOverlays {
		return fmt.Errorf("%w: fragment %d has data overlay files", ErrUnsupported, f.ID)
	}
	groups, err := planFragment(f, s.fields)
	if err != nil {
		return err
	}
	readers := make([]dataFileReader, len(groups))
	for i, g := range groups {
		r, err := s.d.openDataFile(ctx, f, g.file)
		if err != nil {
			return err
		}
		readers[i] = r
	}
	physical := f.PhysicalRows
	if physical == 0 && len(f.Files) > 0 {
		// Old manifests may not record it: ask a file.
		if len(readers) > 0 {
			physical = readers[0].NumRows()
		} else {
			r, err := s.d.openDataFile(ctx, f, &f.Files[0])
			if err != nil {
				return err
			}
			physical = r.NumRows()
		}
	}
	for i, r := range readers {
		if n := r.NumRows(); n != physical {
			return fmt.Errorf("%w: fragment %d: data file %s has %d rows, fragment has %d", ErrCorrupt, f.ID, groups[i].file.Path, n, physical)
		}
	}
	deleted, err := readDeletionVector(ctx, s.d.store, s.d.dir, f)
	if err != nil {
		return err
	}
	for start := uint64(0); start < physical; start += s.batch {
		if s.limited && s.remaining == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+s.batch, physical)
		nDeleted := deletedIn(deleted, start, end)
		// A chunk wholly inside the offset is skipped by counting its live
		// rows: nothing is decoded or allocated for it.
		if live := end - start - nDeleted; live <= s.skip {
			s.skip -= live
			continue
		}
		// Read only the span of rows kept (an offset or limit inside the
		// chunk, or deletions at its edges, need not be decoded). keep lists
		// the live rows of the span relative to its start; nil when there
		// are none deleted in it (every row of the span is kept).
		var keep []uint32
		cs, ce := start, end
		if nDeleted == 0 {
			cs += s.skip
			s.skip = 0
			if s.limited && ce-cs > s.remaining {
				ce = cs + s.remaining
			}
		} else {
			keep = liveOffsets(deleted, start, end)
			keep = keep[s.skip:]
			s.skip = 0
			if s.limited && uint64(len(keep)) > s.remaining {
				keep = keep[:s.remaining]
			}
			lo, hi := uint64(keep[0]), uint64(keep[len(keep)-1])+1
			cs, ce = start+lo, start+hi
			for i := range keep {
				keep[i] -= uint32(lo)
			}
			if uint64(len(keep)) == ce-cs {
				keep = nil
			}
		}
		rec, err := s.readChunk(ctx, f, groups, readers, cs, ce, keep)
		if err != nil {
			return err
		}
		if s.limited {
			s.remaining -= uint64(rec.NumRows())
		}
		err = s.fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// deletedIn counts the deleted rows in [start, end).
func deletedIn(deleted *roaring.Bitmap, start, end uint64) uint64 {
	if deleted.IsEmpty() || start >= end {
		return 0
	}
	// Rank(x) counts the members <= x; row offsets fit in uint32 (a
	// fragment's deletion vector is a 32-bit bitmap).
	n := deleted.Rank(uint32(end - 1))
	if start > 0 {
		n -= deleted.Rank(uint32(start - 1))
	}
	return n
}

// liveOffsets returns the offsets in [start, end) that are not deleted,
// relative to start.
func liveOffsets(deleted *roaring.Bitmap, start, end uint64) []uint32 {
	out := make([]uint32, 0, end-start)
	for i := start; i < end; i++ {
		if !deleted.Contains(uint32(i)) {
			out = append(out, uint32(i-start))
		}
	}
	return out
}

// readChunk reads rows [start, end) of fragment f and returns those at the
// offsets keep (relative to start, ascending); nil keep returns them all.
func (s *scanState) readChunk(ctx context.Context, f *Fragment, groups []*fileGroup, readers []dataFileReader, start, end uint64, keep []uint32) (arrow.RecordBatch, error) {
	n := int(end - start)
	cols := make([]arrow.Array, len(s.schema.Fields()))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, g := range groups {
		rec, err := readers[i].ReadRange(ctx, g.ids, start, end)
		if err != nil {
			return nil, fmt.Errorf("dataset: fragment %d: read %s rows [%d, %d): %w", f.ID, g.file.Path, start, end, err)
		}
		if int(rec.NumCols()) != len(g.ids) || int(rec.NumRows()) != n {
			rec.Release()
			return nil, fmt.Errorf("%w: fragment %d: %s returned %d columns x %d rows for %d fields x %d rows", ErrCorrupt, f.ID, g.file.Path, rec.NumCols(), rec.NumRows(), len(g.ids), n)
		}
		for j, col := range g.outCols {
			arr, err := conformArray(rec.Column(j), s.schema.Field(col).Type)
			if err != nil {
				rec.Release()
				return nil, fmt.Errorf("dataset: fragment %d column %q: %w", f.ID, s.schema.Field(col).Name, err)
			}
			cols[col] = arr
		}
		rec.Release()
	}
	for i := range s.fields {
		if cols[i] == nil {
			cols[i] = array.MakeArrayOfNull(s.mem, s.schema.Field(i).Type, n)
		}
	}
	if s.opts.WithRowAddress {
		b := array.NewUint64Builder(s.mem)
		b.Reserve(n)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(f.ID<<32 | (start + uint64(i)))
		}
		cols[len(cols)-1] = b.NewArray()
		b.Release()
	}
	full := array.NewRecordBatch(s.schema, cols, int64(n))
	if keep == nil || len(keep) == n {
		return full, nil
	}
	defer full.Release()
	return takeOffsets(s.mem, full, keep)
}

// takeOffsets selects rows of rec (sorted offsets) by slicing contiguous runs
// and concatenating them.
func takeOffsets(mem memory.Allocator, rec arrow.RecordBatch, keep []uint32) (arrow.RecordBatch, error) {
	type run struct{ lo, hi int64 }
	var runs []run
	for _, k := range keep {
		if len(runs) > 0 && runs[len(runs)-1].hi == int64(k) {
			runs[len(runs)-1].hi++
			continue
		}
		runs = append(runs, run{int64(k), int64(k) + 1})
	}
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		parts := make([]arrow.Array, 0, len(runs))
		for _, r := range runs {
			parts = append(parts, array.NewSlice(rec.Column(c), r.lo, r.hi))
		}
		var err error
		if len(parts) == 1 {
			cols[c] = parts[0]
			continue
		}
		cols[c], err = array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			for _, done := range cols[:c] {
				done.Release()
			}
			return nil, err
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(keep)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// conformArray returns arr typed exactly as want (same physical layout,
// possibly different child field names or metadata). The result is a new
// reference the caller releases.
func conformArray(arr arrow.Array, want arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), want) {
		arr.Retain()
		return arr, nil
	}
	data, err := conformData(arr.Data(), want)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

func conformData(d arrow.ArrayData, want arrow.DataType) (arrow.ArrayData, error) {
	got := d.DataType()
	if got.ID() != want.ID() {
		return nil, fmt.Errorf("%w: data file has type %s, schema says %s", ErrCorrupt, got, want)
	}
	var wantChildren []arrow.DataType
	switch t := want.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			wantChildren = append(wantChildren, f.Type)
		}
	case arrow.ListLikeType:
		wantChildren = []arrow.DataType{t.Elem()}
	default:
		if !arrow.TypeEqual(got, want) {
			if fw, ok := want.(arrow.FixedWidthDataType); ok {
				if gw, ok := got.(arrow.FixedWidthDataType); !ok || gw.BitWidth() != fw.BitWidth() {
					return nil, fmt.Errorf("%w: data file has type %s, schema says %s", ErrCorrupt, got, want)
				}
			}
		}
	}
	if len(wantChildren) != len(d.Children()) {
		return nil, fmt.Errorf("%w: data file type %s has %d children, schema type %s has %d", ErrCorrupt, got, len(d.Children()), want, len(wantChildren))
	}
	children := make([]arrow.ArrayData, len(wantChildren))
	for i, c := range d.Children() {
		cd, err := conformData(c, wantChildren[i])
		if err != nil {
			for _, done := range children[:i] {
				done.Release()
			}
			return nil, err
		}
		children[i] = cd
	}
	out := array.NewData(want, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out, nil
}

// CountRows counts the live rows: from the manifest when every fragment
// records its counts, otherwise reading deletion files (and, for manifests
// of very old writers, data file footers).
func (d *Dataset) CountRows(ctx context.Context) (uint64, error) {
	var total uint64
	for _, f := range d.manifest.Fragments {
		n, err := d.FragmentLiveRows(ctx, f)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// FragmentLiveRows counts the live rows of one fragment of this version.
func (d *Dataset) FragmentLiveRows(ctx context.Context, f *Fragment) (uint64, error) {
	if n, known := f.LiveRows(); known && (f.PhysicalRows > 0 || len(f.Files) == 0) {
		return n, nil
	}
	physical := f.PhysicalRows
	if physical == 0 && len(f.Files) > 0 {
		r, err := d.openDataFile(ctx, f, &f.Files[0])
		if err != nil {
			return 0, err
		}
		physical = r.NumRows()
	}
	deleted, err := readDeletionVector(ctx, d.store, d.dir, f)
	if err != nil {
		return 0, err
	}
	if n := deleted.GetCardinality(); n <= physical {
		return physical - n, nil
	}
	return 0, corruptf("fragment %d deletes more rows than it has", f.ID)
}

// DeletionFilePath is the store path of a fragment's deletion file ("" when
// it has none).
func (d *Dataset) DeletionFilePath(f *Fragment) string {
	if f.Deletion == nil {
		return ""
	}
	return deletionFilePath(d.dir, f.ID, f.Deletion)
}
