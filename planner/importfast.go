package planner

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/storage"
)

// The columnar Parquet import. The row path reads every value of a
// Parquet batch as a boxed Go value (sqltypes.Reader) and appends it with
// sqltypes.Append; a column whose Arrow type is the table column's own
// type needs neither: its values are copied into the column's builder a
// slice at a time. That is only done where the row path could not refuse
// or change a value: the same type (so no range or precision check
// applies), not JSON (validated), not AUTO_INCREMENT (ids), and no NULL
// in the slice when the column is NOT NULL. Every other column of the
// batch, and every column of a batch where that does not hold, goes value
// by value through the row path's own code, in its order (the file's
// values of a row, then the table's columns), so a batch fails on the
// same row, column and message. TestImportFastMatchesRowPath compares both.

// bulkAppender is a source that appends a run of its rows to the batch
// at once.
type bulkAppender interface {
	loadSource
	// appendBulk appends at most maxRows rows, stopping before a row once
	// their bytes (as appendRow counts them) reach maxBytes; io.EOF when
	// the source has no rows left.
	appendBulk(ctx context.Context, spec *loadSpec, fill *insertFill, b *array.RecordBuilder, maxRows, maxBytes int, pt *loadTracker) (rows, size int, err error)
	// whereBefore is where() of the row back rows before the last one
	// appended: key errors name the row a duplicate came from.
	whereBefore(back int) string
}

// bulkColumn reports whether column i of the table can take arr's values
// as they are.
func bulkColumn(spec *loadSpec, fill *insertFill, i int, arr arrow.Array) bool {
	f := spec.schema.Field(i)
	if i == fill.auto || sqltypes.IsJSON(f) || !arrow.TypeEqual(arr.DataType(), f.Type) {
		return false
	}
	switch f.Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.DATE32, arrow.BOOL:
		return true
	}
	return false
}

// nextBatch makes p.rec the next batch with rows left; io.EOF at the end.
func (p *parquetSource) nextBatch(ctx context.Context) error {
	for p.rec == nil || p.i >= int(p.rec.NumRows()) {
		if p.rec != nil {
			p.rec.Release()
			p.rec = nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !p.rr.Next() {
			if err := p.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
				return errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s after row %d: %v", quoteString(p.name), p.row, storage.RedactError(err))
			}
			return io.EOF
		}
		rec := p.rr.RecordBatch()
		rec.Retain()
		p.rec, p.i = rec, 0
		p.readers = p.readers[:0]
		for c := 0; c < int(rec.NumCols()); c++ {
			r, err := sqltypes.Reader(rec.Schema().Field(c), rec.Column(c))
			if err != nil {
				return errorf(catalog.CodeUnsupported, "IMPORT INTO: Parquet file %s, column %s: %v", quoteString(p.name), sqlparse.QuoteIdent(rec.ColumnName(c)), err)
			}
			p.readers = append(p.readers, r)
		}
	}
	return nil
}

func (p *parquetSource) appendBulk(ctx context.Context, spec *loadSpec, fill *insertFill, b *array.RecordBuilder, maxRows, maxBytes int, pt *loadTracker) (int, int, error) {
	rows, size := 0, 0
	for rows < maxRows && size < maxBytes {
		if err := p.nextBatch(ctx); err != nil {
			if errors.Is(err, io.EOF) && rows > 0 {
				return rows, size, nil
			}
			return rows, size, err
		}
		// The rows of this batch that fit, counted as appendRow counts.
		if p.sizes.rec != p.rec {
			p.sizes.plan(p.rec, p.order)
		}
		n := 0
		for p.i+n < int(p.rec.NumRows()) && rows+n < maxRows && size < maxBytes {
			size += p.sizes.row(p, p.i+n)
			n++
		}
		// Which table columns take their slice as it is.
		bulk := p.bulk[:0]
		for range spec.schema.Fields() {
			bulk = append(bulk, false)
		}
		for k, sl := range spec.slots {
			arr := p.rec.Column(p.order[k])
			f := spec.schema.Field(sl.col)
			if bulkColumn(spec, fill, sl.col, arr) && (f.Nullable || arr.NullN() == 0) {
				bulk[sl.col] = true
			}
		}
		p.bulk = bulk
		for k, sl := range spec.slots {
			if bulk[sl.col] {
				appendSlice(b.Field(sl.col), p.rec.Column(p.order[k]), p.i, n)
			}
		}
		// The others value by value, as next and appendRow do.
		if err := p.appendRest(spec, fill, b, n); err != nil {
			return rows, size, err
		}
		pt.rowsRead(n)
		rows += n
	}
	return rows, size, nil
}

// appendRest appends the columns p.bulk leaves out for rows [p.i, p.i+n)
// and moves past them.
func (p *parquetSource) appendRest(spec *loadSpec, fill *insertFill, b *array.RecordBuilder, n int) error {
	all := true
	for _, v := range p.bulk {
		all = all && v
	}
	if all {
		p.i += n
		p.row += int64(n)
		return nil
	}
	if cap(p.vals) < spec.schema.NumFields() {
		p.vals = make([]any, spec.schema.NumFields())
	}
	vals := p.vals[:spec.schema.NumFields()]
	for end := p.i + n; p.i < end; p.i++ {
		p.row++
		for k, sl := range spec.slots {
			if p.bulk[sl.col] {
				continue
			}
			c := p.order[k]
			v, err := p.readers[c](p.i)
			if err != nil {
				return errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s, row %d, column %s: %v", quoteString(p.name), p.row, sqlparse.QuoteIdent(p.rec.ColumnName(c)), err)
			}
			vals[sl.col] = v
		}
		for i, f := range spec.schema.Fields() {
			if p.bulk[i] {
				continue
			}
			v := vals[i]
			if !spec.given[i] {
				v = nil
			}
			if _, err := fill.appendValue(b.Field(i), f, i, spec.given[i], v); err != nil {
				return spec.appendErr(p, i, err)
			}
		}
	}
	return nil
}

// rowSizer adds up what appendRow counts for a row of a batch (valueSize
// of each of its values) without deciding each value's type again: a
// profile of a 2,000,000-row IMPORT INTO spent 8% of the load in
// valueSize.
type rowSizer struct {
	rec    arrow.RecordBatch // the batch planned for
	fixed  int               // the columns that count 8 whatever the value
	strs   []*array.String
	lstrs  []*array.LargeString
	others []int // columns left to valueSize
}

func (z *rowSizer) plan(rec arrow.RecordBatch, order []int) {
	z.rec, z.fixed, z.strs, z.lstrs, z.others = rec, 0, z.strs[:0], z.lstrs[:0], z.others[:0]
	for _, c := range order {
		switch a := rec.Column(c).(type) {
		case *array.String:
			z.strs = append(z.strs, a)
		case *array.LargeString:
			z.lstrs = append(z.lstrs, a)
		case *array.Boolean, *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32,
			*array.Uint64, *array.Float32, *array.Float64, *array.Date32, *array.Binary, *array.LargeBinary:
			z.fixed += 8 // NULL counts 8 too
		default:
			z.others = append(z.others, c)
		}
	}
}

// row is the sum of p.valueSize(c, i) over the columns of the plan.
func (z *rowSizer) row(p *parquetSource, i int) int {
	size := z.fixed
	for _, a := range z.strs {
		if a.IsNull(i) {
			size += 8
		} else {
			size += a.ValueLen(i)
		}
	}
	for _, a := range z.lstrs {
		if a.IsNull(i) {
			size += 8
		} else {
			size += a.ValueLen(i)
		}
	}
	for _, c := range z.others {
		size += p.valueSize(c, i)
	}
	return size
}

// valueSize is what appendRow counts for row i of column c: a string
// value's bytes, 8 for anything else (NULL too).
func (p *parquetSource) valueSize(c, i int) int {
	arr := p.rec.Column(c)
	if arr.IsNull(i) {
		return 8
	}
	switch a := arr.(type) {
	case *array.String:
		return a.ValueLen(i)
	case *array.LargeString:
		return a.ValueLen(i)
	case *array.Boolean, *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32,
		*array.Uint64, *array.Float32, *array.Float64, *array.Date32, *array.Binary, *array.LargeBinary:
		return 8
	}
	// Types the reader may give as text (decimals, times, nested values).
	if v, err := p.readers[c](i); err == nil {
		if s, ok := v.(string); ok {
			return len(s)
		}
	}
	return 8
}

// appendSlice appends arr[off:off+n] to fb, which builds arr's type.
func appendSlice(fb array.Builder, arr arrow.Array, off, n int) {
	var valid []bool
	if arr.NullN() > 0 {
		valid = make([]bool, n)
		for j := range valid {
			valid[j] = arr.IsValid(off + j)
		}
	}
	switch a := arr.(type) {
	case *array.Int8:
		fb.(*array.Int8Builder).AppendValues(a.Int8Values()[off:off+n], valid)
	case *array.Int16:
		fb.(*array.Int16Builder).AppendValues(a.Int16Values()[off:off+n], valid)
	case *array.Int32:
		fb.(*array.Int32Builder).AppendValues(a.Int32Values()[off:off+n], valid)
	case *array.Int64:
		fb.(*array.Int64Builder).AppendValues(a.Int64Values()[off:off+n], valid)
	case *array.Uint8:
		fb.(*array.Uint8Builder).AppendValues(a.Uint8Values()[off:off+n], valid)
	case *array.Uint16:
		fb.(*array.Uint16Builder).AppendValues(a.Uint16Values()[off:off+n], valid)
	case *array.Uint32:
		fb.(*array.Uint32Builder).AppendValues(a.Uint32Values()[off:off+n], valid)
	case *array.Uint64:
		fb.(*array.Uint64Builder).AppendValues(a.Uint64Values()[off:off+n], valid)
	case *array.Float32:
		fb.(*array.Float32Builder).AppendValues(a.Float32Values()[off:off+n], valid)
	case *array.Float64:
		fb.(*array.Float64Builder).AppendValues(a.Float64Values()[off:off+n], valid)
	case *array.Date32:
		fb.(*array.Date32Builder).AppendValues(a.Date32Values()[off:off+n], valid)
	case *array.Boolean:
		bb := fb.(*array.BooleanBuilder)
		appendEach(off, n, valid, a.Value, bb.Append, bb.AppendNull)
	case *array.String:
		appendBinarySlice(fb.(*array.StringBuilder).BinaryBuilder, a.ValueOffsets(), a.ValueBytes(), off, n, valid)
	case *array.LargeString:
		appendBinarySlice(fb.(*array.LargeStringBuilder).BinaryBuilder, a.ValueOffsets(), a.ValueBytes(), off, n, valid)
	case *array.Binary:
		appendBinarySlice(fb.(*array.BinaryBuilder), a.ValueOffsets(), a.ValueBytes(), off, n, valid)
	case *array.LargeBinary:
		appendBinarySlice(fb.(*array.BinaryBuilder), a.ValueOffsets(), a.ValueBytes(), off, n, valid)
	}
}

// appendBinarySlice appends values [off, off+n) of a variable-width array
// (its offsets and data as ValueOffsets and ValueBytes give them) to bb,
// NULL where valid says so: the builder's room is reserved once and each
// value is appended from the data as it is, not through a string.
func appendBinarySlice[O int32 | int64](bb *array.BinaryBuilder, offsets []O, data []byte, off, n int, valid []bool) {
	base := offsets[0]
	reserveBinary(bb, n, int(offsets[off+n]-offsets[off]))
	for j := off; j < off+n; j++ {
		if valid != nil && !valid[j-off] {
			bb.AppendNull()
		} else {
			bb.UnsafeAppend(data[offsets[j]-base : offsets[j+1]-base]) // reserveBinary made the room
		}
	}
}

// appendEach appends values [off, off+n) one at a time (the types whose
// builders take no slice of values), NULL where valid says so.
func appendEach[T any](off, n int, valid []bool, value func(int) T, add func(T), addNull func()) {
	for j := 0; j < n; j++ {
		if valid != nil && !valid[j] {
			addNull()
		} else {
			add(value(off + j))
		}
	}
}

// reserveBinary makes room in bb for n more values of data bytes in all.
// ReserveData grows the data to exactly what it is asked for, so called
// once per run of values it would copy a batch's data once per run:
// doubling keeps the copies linear in the batch's bytes.
func reserveBinary(bb *array.BinaryBuilder, n, data int) {
	bb.Reserve(n)
	if need := bb.DataLen() + data; need > bb.DataCap() {
		bb.ReserveData(max(need, 2*bb.DataCap()) - bb.DataLen())
	}
}
