package planner

import (
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Runs of the columnar text load. appendRaw decides each field of each
// record on its own and appends it through a type switch on its builder;
// a profile of a 2,000,000-row CSV LOAD DATA spent 40% of the load there.
// When every column of the table comes from the file and has a fastKind
// (no DEFAULT, AUTO_INCREMENT or JSON column), split also parses each
// chunk it reads (prepareRun, on its own goroutine) into one typed slice
// per field, and as long as every field of a record parsed as appendRaw
// would have taken it without the row path, the statement's goroutine
// appends a run of such records a column at a time (appendRun): slices of
// values into the builders, one type switch per column and run. The first
// record that does not parse so ends the run; it and the rest of its chunk
// go through appendRaw as before, so errors, IGNORE's adjustments and
// their warnings are the row path's. The builders end up with the same
// values, validity and NULL slots (zero) as appending one record at a
// time gives: TestLoadRunsMatchRowPath and FuzzLoadRunsMatchRowPath
// cover both.

// loadRunRows counts the records appended in runs (tests check runs ran).
var loadRunRows atomic.Int64

// runPlan is the part of a fastPlan prepareRun reads on split's goroutine:
// set once by newFastPlan, never written afterwards.
type runPlan struct {
	ok       bool   // the statement's records may take runs
	nullable []bool // per input field: its column takes NULL
}

// runCols is a chunk's parsed fields (prepareRun): records [0, n) of the
// chunk parsed without the row path.
type runCols struct {
	n      int
	size   []int       // per record: the bytes appendRaw counts
	ints   [][]int64   // per field: fastInt, fastDate, fastBool values
	uints  [][]uint64  // per field: fastUint values
	floats [][]float64 // per field: fastFloat values
	nulls  []int       // per field: NULLs among the n records
}

// planRuns sets p.run for spec: runs need every table column to come from
// the file with a fastKind.
func (p *fastPlan) planRuns(spec *loadSpec) {
	if len(spec.slots) != spec.schema.NumFields() {
		return
	}
	p.run.nullable = make([]bool, len(spec.slots))
	for k, sl := range spec.slots {
		if p.kinds[k] == fastBoxed {
			p.run.nullable = nil
			return
		}
		p.run.nullable[k] = spec.schema.Field(sl.col).Nullable
	}
	p.run.ok = true
}

// prepareRun parses the fields of c's records, on split's goroutine, up to
// the first record appendRaw would not take without the row path.
func (p *fastPlan) prepareRun(c *rawChunk) {
	rc := &c.run
	rc.n = 0
	nk := len(p.kinds)
	if len(rc.ints) != nk {
		rc.ints, rc.uints, rc.floats, rc.nulls = make([][]int64, nk), make([][]uint64, nk), make([][]float64, nk), make([]int, nk)
	}
	rc.size = rc.size[:0]
	for k := range nk {
		rc.ints[k], rc.uints[k], rc.floats[k], rc.nulls[k] = rc.ints[k][:0], rc.uints[k][:0], rc.floats[k][:0], 0
	}
	for r := 0; r < c.n; r++ {
		rec := &c.recs[r]
		if rec.fields() != nk || !p.parseRunRecord(rc, rec) {
			// The values parsed of this record are past n: appendRun
			// reads none of them.
			return
		}
		rc.n++
	}
}

// parseRunRecord appends rec's fields to rc; false when one of them needs
// the row path (its values appended so far are then left past rc.n).
func (p *fastPlan) parseRunRecord(rc *runCols, rec *rawRecord) bool {
	size := 0
	for k, kind := range p.kinds {
		if rec.null[k] {
			if !p.run.nullable[k] {
				return false
			}
			size += 8
			rc.nulls[k]++
			switch kind {
			case fastInt, fastDate, fastBool:
				rc.ints[k] = append(rc.ints[k], 0)
			case fastUint:
				rc.uints[k] = append(rc.uints[k], 0)
			case fastFloat:
				rc.floats[k] = append(rc.floats[k], 0)
			}
			continue
		}
		text := rec.field(k)
		size += len(text)
		switch kind {
		case fastInt:
			v, ok := parseIntBytes(text)
			if !ok || v < p.lo[k] || v > p.hi[k] {
				return false
			}
			rc.ints[k] = append(rc.ints[k], v)
		case fastUint:
			v, ok := parseUintBytes(text)
			if !ok || v > p.uhi[k] {
				return false
			}
			rc.uints[k] = append(rc.uints[k], v)
		case fastFloat:
			v, ok := parseFloatBytes(text)
			if !ok || (p.f32[k] && math.IsInf(float64(float32(v)), 0)) {
				return false
			}
			rc.floats[k] = append(rc.floats[k], v)
		case fastDate:
			d, ok := parseDateBytes(text)
			if !ok {
				return false
			}
			rc.ints[k] = append(rc.ints[k], int64(d))
		case fastBool:
			if len(text) != 1 || (text[0] != '0' && text[0] != '1') {
				return false
			}
			rc.ints[k] = append(rc.ints[k], int64(text[0]-'0'))
		case fastString, fastBinary:
		default:
			return false
		}
	}
	rc.size = append(rc.size, size)
	return true
}

// runAppender is a rowAppender that can also append a run of records at
// once.
type runAppender interface {
	rowAppender
	// appendRun appends the records after the current one that it can
	// take at once, as appendCurrent would one by one: at most maxRows,
	// stopping before a record once their bytes reach maxBytes, and never
	// past what was read ahead. 0 rows: the next record is for advance and
	// appendCurrent.
	appendRun(spec *loadSpec, fill *insertFill, b *array.RecordBuilder, maxRows, maxBytes int, pt *loadTracker) (rows, size int)
}

func (t *fastTextSource) appendRun(spec *loadSpec, fill *insertFill, b *array.RecordBuilder, maxRows, maxBytes int, pt *loadTracker) (int, int) {
	c := t.cur
	if !t.plan.run.ok || fill.auto >= 0 || c == nil {
		return 0, 0
	}
	from := t.i + 1
	to, size := from, 0
	for to < c.run.n && to-from < maxRows && size < maxBytes {
		size += c.run.size[to]
		to++
	}
	rows := to - from
	if rows == 0 {
		return 0, 0
	}
	p := t.plan
	for k, sl := range spec.slots {
		p.appendRunField(b.Field(sl.col), c, k, from, to)
	}
	if fill.lenient != nil {
		fill.lenient.row += rows
	}
	pt.rowsRead(rows)
	loadRunRows.Add(int64(rows))
	t.i = to - 1
	t.rec, t.recLine = &c.recs[t.i], c.lines[t.i]
	return rows, size
}

// appendRunField appends field k of records [from, to) of c to fb, its
// column's builder.
func (p *fastPlan) appendRunField(fb array.Builder, c *rawChunk, k, from, to int) {
	rc := &c.run
	var valid []bool
	if rc.nulls[k] > 0 {
		valid = p.runValid[:0]
		for r := from; r < to; r++ {
			valid = append(valid, !c.recs[r].null[k])
		}
		p.runValid = valid
	}
	switch x := fb.(type) {
	case *array.Int64Builder:
		x.AppendValues(rc.ints[k][from:to], valid)
	case *array.Int32Builder:
		x.AppendValues(convertRun[int32](rc.ints[k][from:to]), valid)
	case *array.Int16Builder:
		x.AppendValues(convertRun[int16](rc.ints[k][from:to]), valid)
	case *array.Int8Builder:
		x.AppendValues(convertRun[int8](rc.ints[k][from:to]), valid)
	case *array.Date32Builder:
		x.AppendValues(convertRun[arrow.Date32](rc.ints[k][from:to]), valid)
	case *array.Uint64Builder:
		x.AppendValues(rc.uints[k][from:to], valid)
	case *array.Uint32Builder:
		x.AppendValues(convertRun[uint32](rc.uints[k][from:to]), valid)
	case *array.Uint16Builder:
		x.AppendValues(convertRun[uint16](rc.uints[k][from:to]), valid)
	case *array.Uint8Builder:
		x.AppendValues(convertRun[uint8](rc.uints[k][from:to]), valid)
	case *array.Float64Builder:
		x.AppendValues(rc.floats[k][from:to], valid)
	case *array.Float32Builder:
		x.AppendValues(convertRun[float32](rc.floats[k][from:to]), valid)
	case *array.BooleanBuilder:
		bools := p.runBools[:0]
		for _, v := range rc.ints[k][from:to] {
			bools = append(bools, v != 0)
		}
		p.runBools = bools
		x.AppendValues(bools, valid)
	case *array.StringBuilder:
		appendRunBytes(x.BinaryBuilder, c, k, from, to)
	case *array.LargeStringBuilder:
		appendRunBytes(x.BinaryBuilder, c, k, from, to)
	case *array.BinaryBuilder:
		appendRunBytes(x, c, k, from, to)
	}
}

// appendRunBytes appends field k of records [from, to) as they are, with
// the builder's room reserved once per run.
func appendRunBytes(bb *array.BinaryBuilder, c *rawChunk, k, from, to int) {
	data := 0
	for r := from; r < to; r++ {
		data += len(c.recs[r].field(k))
	}
	reserveBinary(bb, to-from, data)
	for r := from; r < to; r++ {
		rec := &c.recs[r]
		if rec.null[k] {
			bb.AppendNull()
		} else {
			bb.UnsafeAppend(rec.field(k)) // reserveBinary made the room
		}
	}
}

type runNumber interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// convertRun converts a run of parsed values to the builder's type; each
// value is in its range (prepareRun checked it).
func convertRun[T, S runNumber](src []S) []T {
	out := make([]T, len(src))
	for i, v := range src {
		out[i] = T(v)
	}
	return out
}
