package dataset

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TakeOptions selects the columns Take returns.
type TakeOptions struct {
	// Columns are the top-level columns to return, in this order; nil
	// returns every column in schema order.
	Columns []string
	// WithRowAddress appends the "_rowaddr" column.
	WithRowAddress bool
	// Allocator for the arrays built (default Go allocator).
	Allocator memory.Allocator
}

// Take reads the rows at the given row addresses (fragment id << 32 |
// offset), for example the hits of a scalar index search. The result holds
// one row per distinct address, in ascending address order, named and typed
// as Scan returns them. Only the data files of the fragments involved are
// opened, and only the pages holding the rows decoded. Deletion vectors are not consulted: pass live addresses (an index
// search already excludes deleted rows; see DeletedOffsets). An address of a
// fragment the version does not have, or past a fragment's rows, fails with
// ErrInvalidArgument.
func (d *Dataset) Take(ctx context.Context, rowAddresses []uint64, opts TakeOptions) (arrow.RecordBatch, error) {
	fields, err := d.selectFields(opts.Columns)
	if err != nil {
		return nil, err
	}
	schema, err := scanSchema(d.manifest.Schema, fields, opts.WithRowAddress)
	if err != nil {
		return nil, err
	}
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	addrs := slices.Clone(rowAddresses)
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	byID := make(map[uint64]*Fragment, len(d.manifest.Fragments))
	for _, f := range d.manifest.Fragments {
		byID[f.ID] = f
	}
	s := &scanState{d: d, mem: mem, fields: fields, schema: schema, opts: ScanOptions{WithRowAddress: opts.WithRowAddress}}
	var parts []arrow.RecordBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for start := 0; start < len(addrs); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := addrs[start] >> 32
		end := start
		for end < len(addrs) && addrs[end]>>32 == id {
			end++
		}
		f := byID[id]
		if f == nil {
			return nil, invalidf("row address %d: version %d has no fragment %d", addrs[start], d.Version(), id)
		}
		offsets := make([]uint64, end-start)
		for i, a := range addrs[start:end] {
			offsets[i] = a & 0xffffffff
		}
		rec, err := s.takeFragment(ctx, f, offsets)
		if err != nil {
			return nil, err
		}
		parts = append(parts, rec)
		start = end
	}
	switch len(parts) {
	case 0:
		cols := make([]arrow.Array, len(schema.Fields()))
		for i, fld := range schema.Fields() {
			cols[i] = array.MakeArrayOfNull(mem, fld.Type, 0)
		}
		out := array.NewRecordBatch(schema, cols, 0)
		for _, c := range cols {
			c.Release()
		}
		return out, nil
	case 1:
		parts[0].Retain()
		return parts[0], nil
	}
	return concatBatches(mem, schema, parts)
}

// takeFragment reads the rows at offsets (ascending, distinct) of f.
func (s *scanState) takeFragment(ctx context.Context, f *Fragment, offsets []uint64) (arrow.RecordBatch, error) {
	if f.HasOverlays {
		return nil, fmt.Errorf("%w: fragment %d has data overlay files", ErrUnsupported, f.ID)
	}
	groups, err := planFragment(f, s.fields)
	if err != nil {
		return nil, err
	}
	n := len(offsets)
	cols := make([]arrow.Array, len(s.schema.Fields()))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	physical := f.PhysicalRows
	for i, g := range groups {
		r, err := s.d.openDataFile(ctx, f, g.file)
		if err != nil {
			return nil, err
		}
		if i == 0 && physical == 0 {
			physical = r.NumRows()
		}
		if r.NumRows() != physical {
			return nil, fmt.Errorf("%w: fragment %d: data file %s has %d rows, fragment has %d", ErrCorrupt, f.ID, g.file.Path, r.NumRows(), physical)
		}
		if last := offsets[n-1]; last >= physical {
			return nil, invalidf("row address %d is past the %d rows of fragment %d", f.ID<<32|last, physical, f.ID)
		}
		rec, err := takeRows(ctx, r, g.ids, offsets)
		if err != nil {
			return nil, fmt.Errorf("dataset: fragment %d: take from %s: %w", f.ID, g.file.Path, err)
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
	if len(groups) == 0 && physical > 0 && offsets[n-1] >= physical {
		return nil, invalidf("row address %d is past the %d rows of fragment %d", f.ID<<32|offsets[n-1], physical, f.ID)
	}
	for i := range s.fields {
		if cols[i] == nil {
			cols[i] = array.MakeArrayOfNull(s.mem, s.schema.Field(i).Type, n)
		}
	}
	if s.opts.WithRowAddress {
		b := array.NewUint64Builder(s.mem)
		b.Reserve(n)
		for _, o := range offsets {
			b.UnsafeAppend(f.ID<<32 | o)
		}
		cols[len(cols)-1] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(s.schema, cols, int64(n)), nil
}

// takeSpanGap: for columns decoded in chunks (mini-block pages), rows
// closer than this are read as one range and the wanted ones selected from
// it, so a chunk holding several wanted rows is decoded once, not once per
// row.
const takeSpanGap = 256

// TakeGapBytes: for columns read by byte position (every page a packed
// full-zip page, as a vector column without nulls), Take reads two wanted
// rows as one range only when the rows between them hold fewer bytes than
// this (about what one more read call costs); a selective take of 768-float
// vectors then reads the wanted rows' bytes and not the whole column.
const TakeGapBytes = 16 << 10

// rangesReader is a data file that reads several row ranges in one call and
// tells when its rows are fixed-width by position (lance/file.Reader).
type rangesReader interface {
	ReadRanges(ctx context.Context, fieldIDs []int32, ranges [][2]uint64) (arrow.RecordBatch, error)
	FixedRowBytes(ctx context.Context, fieldIDs []int32) (uint64, bool, error)
}

// takeRows reads rows (ascending, distinct) of the fields from one data
// file: nearby rows as one range read, isolated rows alone. How near is near
// depends on the columns (takeSpanGap, TakeGapBytes).
func takeRows(ctx context.Context, r dataFileReader, ids []int32, rows []uint64) (arrow.RecordBatch, error) {
	gap := uint64(takeSpanGap)
	rr, ranged := r.(rangesReader)
	if ranged {
		rowBytes, fixed, err := rr.FixedRowBytes(ctx, ids)
		if err != nil {
			return nil, err
		}
		if fixed {
			gap = 1 + TakeGapBytes/rowBytes
		}
	}
	var spans [][2]uint64
	for s := 0; s < len(rows); {
		e := s + 1
		for e < len(rows) && rows[e]-rows[e-1] < gap {
			e++
		}
		spans = append(spans, [2]uint64{rows[s], rows[e-1] + 1})
		s = e
	}
	if !ranged {
		return takeSpans(ctx, r, ids, rows, spans)
	}
	rec, err := rr.ReadRanges(ctx, ids, spans)
	if err != nil {
		return nil, err
	}
	var read uint64
	for _, sp := range spans {
		read += sp[1] - sp[0]
	}
	if read == uint64(len(rows)) {
		return rec, nil
	}
	// the wanted rows' positions in the spans read back to back
	keep := make([]uint32, 0, len(rows))
	base, si := uint64(0), 0
	for _, row := range rows {
		for row >= spans[si][1] {
			base += spans[si][1] - spans[si][0]
			si++
		}
		keep = append(keep, uint32(base+row-spans[si][0]))
	}
	sel, err := takeOffsets(memory.DefaultAllocator, rec, keep)
	rec.Release()
	return sel, err
}

// takeSpans reads the spans one ReadRange each and selects the wanted rows
// from each.
func takeSpans(ctx context.Context, r dataFileReader, ids []int32, rows []uint64, spans [][2]uint64) (arrow.RecordBatch, error) {
	var parts []arrow.RecordBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	s := 0
	for _, sp := range spans {
		lo, hi := sp[0], sp[1]
		e := s
		for e < len(rows) && rows[e] < hi {
			e++
		}
		rec, err := r.ReadRange(ctx, ids, lo, hi)
		if err != nil {
			return nil, err
		}
		if uint64(e-s) != hi-lo {
			keep := make([]uint32, e-s)
			for i, row := range rows[s:e] {
				keep[i] = uint32(row - lo)
			}
			sel, err := takeOffsets(memory.DefaultAllocator, rec, keep)
			rec.Release()
			if err != nil {
				return nil, err
			}
			rec = sel
		}
		parts = append(parts, rec)
		s = e
	}
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	return concatBatches(memory.DefaultAllocator, parts[0].Schema(), parts)
}

// concatBatches concatenates batches of one schema into one.
func concatBatches(mem memory.Allocator, schema *arrow.Schema, parts []arrow.RecordBatch) (arrow.RecordBatch, error) {
	ncols := len(schema.Fields())
	cols := make([]arrow.Array, ncols)
	var rows int64
	for _, p := range parts {
		rows += p.NumRows()
	}
	for c := 0; c < ncols; c++ {
		pieces := make([]arrow.Array, len(parts))
		for i, p := range parts {
			pieces[i] = p.Column(c)
		}
		a, err := array.Concatenate(pieces, mem)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// DeletedOffsets returns the deleted row offsets of fragment fragmentID of
// this version (empty when it has no deletion file). The bitmap is the
// caller's.
func (d *Dataset) DeletedOffsets(ctx context.Context, fragmentID uint64) (*roaring.Bitmap, error) {
	for _, f := range d.manifest.Fragments {
		if f.ID == fragmentID {
			return readDeletionVector(ctx, d.store, d.dir, f)
		}
	}
	return nil, invalidf("version %d has no fragment %d", d.Version(), fragmentID)
}
