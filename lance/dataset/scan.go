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
	// Filter, when set, drops rows by the values of some columns before
	// the other columns are decoded (see RowFilter). Offset and Limit
	// count the rows it keeps.
	Filter *RowFilter
}

// RowFilter is a scan's selection of rows by some of its columns (late
// materialization): per chunk the scan decodes Columns first, asks Select
// which rows to keep, skips the chunk when none is kept and otherwise
// decodes the other columns only over the span of the kept rows. The
// predicate itself is the caller's (lance/ knows no SQL).
type RowFilter struct {
	// Columns are the columns Select reads: distinct names of columns the
	// scan returns.
	Columns []string
	// Select returns the positions (ascending, distinct) of the rows of
	// batch to keep; batch holds Columns, in that order, for the live rows
	// of one chunk. The scan does not keep the slice past the call. It runs
	// on the goroutine that reads the scan, not necessarily fn's.
	Select func(batch arrow.RecordBatch) ([]int, error)
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
	if opts.Filter != nil {
		if err := s.planFilter(opts.Filter); err != nil {
			return err
		}
	}
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
	// With a Filter: the positions among fields of its columns (in its
	// order) and of the other columns, with their schemas (no row address).
	filterCols, restCols     []int
	filterSchema, restSchema *arrow.Schema
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

// chunkPart is some of a scan's columns as one fragment stores them: the
// fields, their output schema, the data files holding them and readers.
type chunkPart struct {
	fields  []*lanceschema.Field
	schema  *arrow.Schema
	groups  []*fileGroup
	readers []dataFileReader
}

// openPart plans and opens the reading of fields from fragment f.
func (s *scanState) openPart(ctx context.Context, f *Fragment, fields []*lanceschema.Field, schema *arrow.Schema) (*chunkPart, error) {
	groups, err := planFragment(f, fields)
	if err != nil {
		return nil, err
	}
	p := &chunkPart{fields: fields, schema: schema, groups: groups, readers: make([]dataFileReader, len(groups))}
	for i, g := range groups {
		r, err := s.d.openDataFile(ctx, f, g.file)
		if err != nil {
			return nil, err
		}
		p.readers[i] = r
	}
	return p, nil
}

// planFilter checks the filter's columns against the scan's and splits the
// scan's columns into the filter's and the others.
func (s *scanState) planFilter(rf *RowFilter) error {
	if rf.Select == nil {
		return invalidf("row filter without Select")
	}
	if len(rf.Columns) == 0 {
		return invalidf("row filter reads no column")
	}
	isFilter := make([]bool, len(s.fields))
	for _, name := range rf.Columns {
		at := -1
		for i, f := range s.fields {
			if f.Name == name {
				at = i
				break
			}
		}
		if at < 0 {
			return invalidf("row filter column %q is not scanned", name)
		}
		if isFilter[at] {
			return invalidf("row filter column %q named twice", name)
		}
		isFilter[at] = true
		s.filterCols = append(s.filterCols, at)
	}
	for i := range s.fields {
		if !isFilter[i] {
			s.restCols = append(s.restCols, i)
		}
	}
	s.filterSchema = s.subSchema(s.filterCols)
	s.restSchema = s.subSchema(s.restCols)
	return nil
}

func (s *scanState) subSchema(cols []int) *arrow.Schema {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = s.schema.Field(c)
	}
	return arrow.NewSchema(fs, nil)
}

func (s *scanState) subFields(cols []int) []*lanceschema.Field {
	out := make([]*lanceschema.Field, len(cols))
	for i, c := range cols {
		out[i] = s.fields[c]
	}
	return out
}

func (s *scanState) scanFragment(ctx context.Context, f *Fragment) error {
	if f.HasOverlays {
		return fmt.Errorf("%w: fragment %d has data overlay files", ErrUnsupported, f.ID)
	}
	all, err := s.openPart(ctx, f, s.fields, s.schema)
	if err != nil {
		return err
	}
	groups, readers := all.groups, all.readers
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
	var filterPart, restPart *chunkPart
	if s.opts.Filter != nil {
		if filterPart, err = s.openPart(ctx, f, s.subFields(s.filterCols), s.filterSchema); err != nil {
			return err
		}
		if restPart, err = s.openPart(ctx, f, s.subFields(s.restCols), s.restSchema); err != nil {
			return err
		}
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
		if s.opts.Filter != nil {
			if end-start == nDeleted {
				continue
			}
			var live []uint32
			if nDeleted > 0 {
				live = liveOffsets(deleted, start, end)
			}
			rec, err := s.readFiltered(ctx, f, filterPart, restPart, start, end, live)
			if err != nil {
				return err
			}
			if rec == nil {
				continue
			}
			if s.limited {
				s.remaining -= uint64(rec.NumRows())
			}
			err = s.fn(rec)
			rec.Release()
			if err != nil {
				return err
			}
			continue
		}
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
		rec, err := s.readChunk(ctx, f, all, cs, ce, keep)
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

// readFiltered reads chunk [start, end) of fragment f through the row
// filter: its columns for the live rows (offsets relative to start; nil:
// every row), then, unless Select keeps none of them (nil batch), the
// other columns over the span of the rows kept, and returns the kept rows
// (within the offset and limit left) of every column.
func (s *scanState) readFiltered(ctx context.Context, f *Fragment, filterPart, restPart *chunkPart, start, end uint64, live []uint32) (arrow.RecordBatch, error) {
	fcols, err := s.readPart(ctx, f, filterPart, start, end)
	if err != nil {
		return nil, err
	}
	frec := array.NewRecordBatch(filterPart.schema, fcols, int64(end-start))
	releaseAll(fcols)
	defer frec.Release()
	n := int(end - start)
	if live != nil {
		n = len(live)
		if n < int(end-start) {
			taken, err := takeOffsets(s.mem, frec, live)
			if err != nil {
				return nil, err
			}
			frec.Release()
			frec = taken
		}
	}
	sel, err := s.opts.Filter.Select(frec)
	if err != nil {
		return nil, err
	}
	for i, r := range sel {
		if r < 0 || r >= n || i > 0 && r <= sel[i-1] {
			return nil, invalidf("row filter selected row %d of %d out of order", r, n)
		}
	}
	if uint64(len(sel)) <= s.skip {
		s.skip -= uint64(len(sel))
		return nil, nil
	}
	if len(sel) == n && s.skip == 0 && (!s.limited || uint64(n) <= s.remaining) {
		// Every live row kept: the chunk as a plain scan reads it.
		return s.keepAll(ctx, f, frec, restPart, start, end, live)
	}
	sel = sel[s.skip:]
	s.skip = 0
	if s.limited && uint64(len(sel)) > s.remaining {
		sel = sel[:s.remaining]
	}
	// The kept rows' offsets in the chunk, and the span holding them: the
	// only rows of the other columns decoded.
	phys := make([]uint32, len(sel))
	for i, r := range sel {
		phys[i] = uint32(r)
		if live != nil {
			phys[i] = live[r]
		}
	}
	lo, hi := uint64(phys[0]), uint64(phys[len(phys)-1])+1
	cols := make([]arrow.Array, len(s.schema.Fields()))
	defer releaseAll(cols)
	keptFilter, err := takeOffsets(s.mem, frec, toOffsets(sel))
	if err != nil {
		return nil, err
	}
	for j, c := range s.filterCols {
		cols[c] = keptFilter.Column(j)
		cols[c].Retain()
	}
	keptFilter.Release()
	if len(s.restCols) > 0 {
		rcols, err := s.readPart(ctx, f, restPart, start+lo, start+hi)
		if err != nil {
			return nil, err
		}
		rrec := array.NewRecordBatch(restPart.schema, rcols, int64(hi-lo))
		releaseAll(rcols)
		if uint64(len(phys)) < hi-lo {
			rel := make([]uint32, len(phys))
			for i, p := range phys {
				rel[i] = p - uint32(lo)
			}
			taken, err := takeOffsets(s.mem, rrec, rel)
			rrec.Release()
			if err != nil {
				return nil, err
			}
			rrec = taken
		}
		for j, c := range s.restCols {
			cols[c] = rrec.Column(j)
			cols[c].Retain()
		}
		rrec.Release()
	}
	if s.opts.WithRowAddress {
		b := array.NewUint64Builder(s.mem)
		b.Reserve(len(phys))
		for _, p := range phys {
			b.UnsafeAppend(f.ID<<32 | (start + uint64(p)))
		}
		cols[len(cols)-1] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(s.schema, cols, int64(len(phys))), nil
}

// keepAll is readFiltered's result when Select keeps every live row of
// the chunk: the filter's columns as read, the others read over the chunk.
func (s *scanState) keepAll(ctx context.Context, f *Fragment, frec arrow.RecordBatch, restPart *chunkPart, start, end uint64, live []uint32) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(s.schema.Fields()))
	defer releaseAll(cols)
	for j, c := range s.filterCols {
		cols[c] = frec.Column(j)
		cols[c].Retain()
	}
	n := int(frec.NumRows())
	if len(s.restCols) > 0 {
		rcols, err := s.readPart(ctx, f, restPart, start, end)
		if err != nil {
			return nil, err
		}
		rrec := array.NewRecordBatch(restPart.schema, rcols, int64(end-start))
		releaseAll(rcols)
		if live != nil && len(live) < int(end-start) {
			taken, err := takeOffsets(s.mem, rrec, live)
			rrec.Release()
			if err != nil {
				return nil, err
			}
			rrec = taken
		}
		for j, c := range s.restCols {
			cols[c] = rrec.Column(j)
			cols[c].Retain()
		}
		rrec.Release()
	}
	if s.opts.WithRowAddress {
		b := array.NewUint64Builder(s.mem)
		b.Reserve(n)
		for i := 0; i < n; i++ {
			off := uint64(i)
			if live != nil {
				off = uint64(live[i])
			}
			b.UnsafeAppend(f.ID<<32 | (start + off))
		}
		cols[len(cols)-1] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(s.schema, cols, int64(n)), nil
}

func toOffsets(rows []int) []uint32 {
	out := make([]uint32, len(rows))
	for i, r := range rows {
		out[i] = uint32(r)
	}
	return out
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
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
func (s *scanState) readChunk(ctx context.Context, f *Fragment, all *chunkPart, start, end uint64, keep []uint32) (arrow.RecordBatch, error) {
	n := int(end - start)
	cols, err := s.readPart(ctx, f, all, start, end)
	if err != nil {
		return nil, err
	}
	cols = append(cols, nil)[:len(s.schema.Fields())]
	defer releaseAll(cols)
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

// readPart decodes the part's columns for rows [start, end) of fragment f
// (a column no file of f stores reads as nulls), typed as its schema says.
// The caller releases the arrays.
func (s *scanState) readPart(ctx context.Context, f *Fragment, p *chunkPart, start, end uint64) ([]arrow.Array, error) {
	n := int(end - start)
	cols := make([]arrow.Array, len(p.fields))
	ok := false
	defer func() {
		if !ok {
			releaseAll(cols)
		}
	}()
	for i, g := range p.groups {
		rec, err := p.readers[i].ReadRange(ctx, g.ids, start, end)
		if err != nil {
			return nil, fmt.Errorf("dataset: fragment %d: read %s rows [%d, %d): %w", f.ID, g.file.Path, start, end, err)
		}
		if int(rec.NumCols()) != len(g.ids) || int(rec.NumRows()) != n {
			rec.Release()
			return nil, fmt.Errorf("%w: fragment %d: %s returned %d columns x %d rows for %d fields x %d rows", ErrCorrupt, f.ID, g.file.Path, rec.NumCols(), rec.NumRows(), len(g.ids), n)
		}
		for j, col := range g.outCols {
			arr, err := conformArray(rec.Column(j), p.schema.Field(col).Type)
			if err != nil {
				rec.Release()
				return nil, fmt.Errorf("dataset: fragment %d column %q: %w", f.ID, p.schema.Field(col).Name, err)
			}
			cols[col] = arr
		}
		rec.Release()
	}
	for i := range p.fields {
		if cols[i] == nil {
			cols[i] = array.MakeArrayOfNull(s.mem, p.schema.Field(i).Type, n)
		}
	}
	ok = true
	return cols, nil
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
