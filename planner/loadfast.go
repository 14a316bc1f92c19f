package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// The columnar text load. The row path (textSource, loadSpec.appendRow)
// turns every field into a string, every record into a []any and every
// value into a boxed Go value before sqltypes.Append type-switches it into
// a builder; profiles of a 1,000,000-row LOAD DATA spent two thirds of
// the load there. Here a record's fields stay bytes (scanReader) and the
// common column types are parsed from them straight into the column's
// builder.
//
// It must store what the row path stores and fail where and how it fails,
// so it only parses what it can decide exactly: a field it does not take
// (spaces around a number, a sign on an unsigned column, an out-of-range
// integer, a 19-digit number, any other column type, an AUTO_INCREMENT
// value, a NULL into a NOT NULL column) is handed to the row path's own
// code for that one field (loadValue, then insertFill.appendValue, in the
// row path's order: every field's conversion in file order, then every
// column's append in table order), so errors, IGNORE's adjusted values
// and their warnings are the row path's. SET assignments, @variables and
// LINES STARTING BY keep the row path for the whole statement.
// TestLoadFastMatchesRowPath compares both on the same inputs, and
// FuzzScanReaderMatches the record splitter with the row path's reader.

// loadRowPathOnly makes every load take the row path (tests compare the
// two paths with it).
var loadRowPathOnly = false

// loadColumnarStatements counts the load statements that took the
// columnar path (tests check which path ran).
var loadColumnarStatements atomic.Int64

// fastKind is how the columnar load parses a field of a column.
type fastKind uint8

const (
	fastBoxed  fastKind = iota // the row path's conversion
	fastInt                    // signed integers: [+-]?digits, at most 18
	fastUint                   // unsigned integers: digits, at most 19
	fastFloat                  // DOUBLE / FLOAT: a plain decimal number
	fastString                 // text, as is
	fastBinary                 // bytes, as is
	fastDate                   // DATE: YYYY-MM-DD
	fastBool                   // BOOLEAN: 0 or 1
)

// fieldState says where the current record's value of a column is.
type fieldState uint8

const (
	stateOmitted fieldState = iota // not in the file: DEFAULT / AUTO_INCREMENT
	stateNull                      // \N into a nullable column
	stateInt
	stateUint
	stateFloat
	stateBytes
	stateBool
	stateBoxed // row[i], as the row path holds it
)

// fastPlan is a statement's columnar conversion, with one record's
// scratch values (reused: nothing is allocated per record).
type fastPlan struct {
	kinds  []fastKind // per input field
	lo, hi []int64    // per input field: a fastInt column's range
	uhi    []uint64   // per input field: a fastUint column's maximum
	f32    []bool     // per input field: a FLOAT column
	state  []fieldState
	ints   []int64
	uints  []uint64
	floats []float64
	bytes  [][]byte
	row    []any
	fields []arrow.Field // the table's (Schema.Fields copies them per call)

	run      runPlan // loadrun.go; read by split's goroutine
	runValid []bool  // appendRun's scratch (the statement's goroutine)
	runBools []bool
}

// newFastPlan plans the columnar conversion of spec; nil when the
// statement needs the row path (SET, @variables).
func newFastPlan(spec *loadSpec) *fastPlan {
	if loadRowPathOnly || len(spec.sets) > 0 || spec.nvars > 0 {
		return nil
	}
	n := spec.schema.NumFields()
	p := &fastPlan{
		kinds: make([]fastKind, len(spec.slots)), lo: make([]int64, len(spec.slots)), hi: make([]int64, len(spec.slots)),
		uhi: make([]uint64, len(spec.slots)), f32: make([]bool, len(spec.slots)),
		state: make([]fieldState, n), ints: make([]int64, n), uints: make([]uint64, n),
		floats: make([]float64, n), bytes: make([][]byte, n), row: make([]any, n), fields: spec.schema.Fields(),
	}
	for k, sl := range spec.slots {
		if sl.col < 0 {
			return nil
		}
		f := spec.schema.Field(sl.col)
		if (isAutoIncrement(f) && isIntegerType(f.Type)) || sqltypes.IsJSON(f) {
			continue // fastBoxed
		}
		switch f.Type.ID() {
		case arrow.INT8:
			p.kinds[k], p.lo[k], p.hi[k] = fastInt, math.MinInt8, math.MaxInt8
		case arrow.INT16:
			p.kinds[k], p.lo[k], p.hi[k] = fastInt, math.MinInt16, math.MaxInt16
		case arrow.INT32:
			p.kinds[k], p.lo[k], p.hi[k] = fastInt, math.MinInt32, math.MaxInt32
		case arrow.INT64:
			p.kinds[k], p.lo[k], p.hi[k] = fastInt, math.MinInt64, math.MaxInt64
		case arrow.UINT8:
			p.kinds[k], p.uhi[k] = fastUint, math.MaxUint8
		case arrow.UINT16:
			p.kinds[k], p.uhi[k] = fastUint, math.MaxUint16
		case arrow.UINT32:
			p.kinds[k], p.uhi[k] = fastUint, math.MaxUint32
		case arrow.UINT64:
			p.kinds[k], p.uhi[k] = fastUint, math.MaxUint64
		case arrow.FLOAT64:
			p.kinds[k] = fastFloat
		case arrow.FLOAT32:
			p.kinds[k], p.f32[k] = fastFloat, true
		case arrow.STRING, arrow.LARGE_STRING:
			p.kinds[k] = fastString
		case arrow.BINARY, arrow.LARGE_BINARY:
			p.kinds[k] = fastBinary
		case arrow.DATE32:
			p.kinds[k] = fastDate
		case arrow.BOOL:
			p.kinds[k] = fastBool
		}
	}
	p.planRuns(spec)
	return p
}

// appendRaw appends one record as spec.appendRow would append its fields
// as text (NULL for \N), returning the bytes of text it held.
func (p *fastPlan) appendRaw(spec *loadSpec, src loadSource, rec *rawRecord, fill *insertFill, b *array.RecordBuilder) (int, error) {
	if rec.fields() != len(spec.slots) {
		return 0, errorf(catalog.CodeInvalidInput, "%s %s: %d fields for %d columns", spec.verb, src.where(), rec.fields(), len(spec.slots))
	}
	if fill.lenient != nil {
		fill.lenient.row++
	}
	size := 0
	for k, sl := range spec.slots {
		i := sl.col
		if rec.null[k] {
			size += 8
			p.state[i], p.row[i] = stateNull, nil
			continue
		}
		text := rec.field(k)
		size += len(text)
		switch p.kinds[k] {
		case fastInt:
			if v, ok := parseIntBytes(text); ok && v >= p.lo[k] && v <= p.hi[k] {
				p.state[i], p.ints[i] = stateInt, v
				continue
			}
		case fastUint:
			if v, ok := parseUintBytes(text); ok && v <= p.uhi[k] {
				p.state[i], p.uints[i] = stateUint, v
				continue
			}
		case fastFloat:
			if v, ok := parseFloatBytes(text); ok && (!p.f32[k] || !math.IsInf(float64(float32(v)), 0)) {
				p.state[i], p.floats[i] = stateFloat, v
				continue
			}
		case fastString, fastBinary:
			p.state[i], p.bytes[i] = stateBytes, text
			continue
		case fastDate:
			if d, ok := parseDateBytes(text); ok {
				p.state[i], p.ints[i] = stateInt, int64(d)
				continue
			}
		case fastBool:
			if len(text) == 1 && (text[0] == '0' || text[0] == '1') {
				p.state[i], p.ints[i] = stateBool, int64(text[0]-'0')
				continue
			}
		}
		// The row path's conversion of this field (appendRow).
		f := spec.schema.Field(i)
		s := string(text)
		x, err := loadValue(f, s)
		if fill.lenient != nil {
			if err != nil {
				x, err = s, nil
			} else {
				fill.lenient.spacedNumber(f, s)
			}
		}
		if err != nil {
			return 0, errorf(catalog.CodeInvalidInput, "%s %s, column %d (%s): %v", spec.verb, src.where(), k+1, spec.names[k], err)
		}
		p.state[i], p.row[i] = stateBoxed, x
	}
	for i, f := range p.fields {
		fb := b.Field(i)
		switch p.state[i] {
		case stateNull:
			if f.Nullable && i != fill.auto {
				fb.AppendNull()
				continue
			}
		case stateInt:
			appendIntTo(fb, p.ints[i])
			continue
		case stateUint:
			appendUintTo(fb, p.uints[i])
			continue
		case stateFloat:
			if x, ok := fb.(*array.Float64Builder); ok {
				x.Append(p.floats[i])
			} else {
				fb.(*array.Float32Builder).Append(float32(p.floats[i]))
			}
			continue
		case stateBytes:
			switch x := fb.(type) {
			case *array.StringBuilder:
				x.BinaryBuilder.Append(p.bytes[i])
			case *array.LargeStringBuilder:
				x.BinaryBuilder.Append(p.bytes[i])
			case *array.BinaryBuilder:
				x.Append(p.bytes[i])
			}
			continue
		case stateBool:
			fb.(*array.BooleanBuilder).Append(p.ints[i] != 0)
			continue
		}
		if _, err := fill.appendValue(fb, f, i, spec.given[i], p.row[i]); err != nil {
			return 0, spec.appendErr(src, i, err)
		}
	}
	return size, nil
}

// appendErr is appendRow's error for column i's value.
func (spec *loadSpec) appendErr(src loadSource, i int, err error) error {
	f := spec.schema.Field(i)
	col := ""
	for k, sl := range spec.slots {
		if sl.col == i {
			col = fmt.Sprintf(", column %d", k+1)
		}
	}
	if errors.Is(err, errNoValue) {
		return errorf(catalog.CodeInvalidInput, "%s %s%s: column %s is NOT NULL", spec.verb, src.where(), col, sqlparse.QuoteIdent(f.Name))
	}
	return errorf(catalog.CodeInvalidInput, "%s %s%s (%s): %v", spec.verb, src.where(), col, sqlparse.QuoteIdent(f.Name), err)
}

func appendIntTo(fb array.Builder, v int64) {
	switch x := fb.(type) {
	case *array.Int64Builder:
		x.Append(v)
	case *array.Int32Builder:
		x.Append(int32(v))
	case *array.Int16Builder:
		x.Append(int16(v))
	case *array.Int8Builder:
		x.Append(int8(v))
	case *array.Date32Builder:
		x.Append(arrow.Date32(v))
	}
}

func appendUintTo(fb array.Builder, v uint64) {
	switch x := fb.(type) {
	case *array.Uint64Builder:
		x.Append(v)
	case *array.Uint32Builder:
		x.Append(uint32(v))
	case *array.Uint16Builder:
		x.Append(uint16(v))
	case *array.Uint8Builder:
		x.Append(uint8(v))
	}
}

// parseIntBytes reads [+-]?digits of at most 18 digits (no overflow
// possible), what strconv.ParseInt reads the same; anything else is
// left to it.
func parseIntBytes(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseUintBytes reads digits (at most 19: no overflow), as
// strconv.ParseUint does.
func parseUintBytes(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// parseFloatBytes reads a plain decimal number, [+-]?digits[.digits]
// [e[+-]digits] (or .digits), with strconv.ParseFloat, the row path's
// parser; the grammar leaves out what the row path would read otherwise
// under IGNORE (text it warns about) and spaces.
func parseFloatBytes(b []byte) (float64, bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	if v, ok := exactFloat(b); ok {
		return v, true
	}
	// The string shares b's bytes only for the call: ParseFloat keeps
	// nothing of its argument when it succeeds.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat is strconv.ParseFloat's own exact fast path (Clinger's) for
// [+-]?digits[.digits] without an exponent, which parseFloatBytes has
// checked b is: when the digits, point left out, are an integer m below
// 2^53 and there are at most 22 of them after the point, m and 10^k are
// exact float64s and one division rounds m / 10^k correctly, so the
// result is ParseFloat's to the bit. It saves most of ParseFloat's time
// on a CSV column of DOUBLEs (a profile of LOAD DATA spent a tenth of the
// load there). ok is false for anything else (exponents, long numbers).
func exactFloat(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 { // 19 digits cannot overflow m
		return 0, false
	}
	var m uint64
	frac := -1 // digits after the point; -1 before it
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			return 0, false
		}
	}
	if m >= 1<<53 || frac >= len(exactPow10) {
		return 0, false
	}
	v := float64(m)
	if frac > 0 {
		v /= exactPow10[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseDateBytes reads YYYY-MM-DD, a valid date, as days since 1970-01-01
// (what time.Parse with "2006-01-02" and arrow.Date32FromTime give).
func parseDateBytes(b []byte) (arrow.Date32, bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(b[0:4])
	m, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	if d > daysIn(m, y) {
		return 0, false
	}
	return arrow.Date32(civilDays(y, m, d)), true
}

func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// civilDays is the days from 1970-01-01 to the proleptic Gregorian date
// y-m-d (the era arithmetic of Howard Hinnant's days_from_civil).
func civilDays(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// fastTextSource is a text file read by scanReader and converted by a
// fastPlan. The records are split on a goroutine of their own (split) a
// chunk at a time, ahead of the conversion on the statement's goroutine:
// a profile of a CSV LOAD DATA spent 40% of its time splitting records,
// 55% converting them and the rest writing, so on two cores splitting
// beside converting (and the batch before being written) shortens the
// load by about the splitting. Records, their order and the errors (the
// first one ends the chunk it is met in) are what reading them in line
// gives: only the time of the reads changes.
type fastTextSource struct {
	sr      *scanReader
	rec     *rawRecord // the current record
	recLine int        // its line, for where
	plan    *fastPlan
	name    string // as textSource's
	f       io.Closer

	started bool
	full    chan *rawChunk // split's chunks, in file order
	free    chan *rawChunk // consumed chunks going back to split
	stop    chan struct{}  // closed by close: split returns
	exited  chan struct{}  // closed by split when it returns
	cur     *rawChunk
	i       int // cur.recs[i] is the current record
	closed  bool
}

// rawChunk is a run of consecutive records split read.
type rawChunk struct {
	recs  []rawRecord
	lines []int
	n     int   // records in recs[:n]
	err   error // after the n records: the reader's error, io.EOF at the end
	run   runCols
}

const (
	// splitChunkRecords / splitChunkBytes end a chunk (whichever first);
	// splitChunks chunks are in flight, so split holds at most
	// splitChunks * (splitChunkBytes + one record) of text.
	splitChunkRecords = 1024
	splitChunkBytes   = 1 << 20
	splitChunks       = 3
	// splitKeepBytes: a record buffer that grew past this is dropped when
	// its chunk comes back, so one long record does not pin its size in
	// every slot it passes through.
	splitKeepBytes = 64 << 10
)

func (t *fastTextSource) start() {
	t.started = true
	t.full = make(chan *rawChunk, splitChunks)
	t.free = make(chan *rawChunk, splitChunks)
	t.stop = make(chan struct{})
	t.exited = make(chan struct{})
	for range splitChunks {
		t.free <- &rawChunk{recs: make([]rawRecord, splitChunkRecords), lines: make([]int, splitChunkRecords)}
	}
	go t.split()
}

// split reads records into free chunks and hands them over in order,
// until the end of the input, an error or stop.
func (t *fastTextSource) split() {
	defer close(t.exited)
	for {
		var c *rawChunk
		select {
		case c = <-t.free:
		case <-t.stop:
			return
		}
		c.n, c.err = 0, nil
		bytes := 0
		for c.n < len(c.recs) && bytes < splitChunkBytes {
			rec := &c.recs[c.n]
			if cap(rec.data) > splitKeepBytes {
				rec.data = nil
			}
			if err := t.sr.record(rec); err != nil {
				c.err = err
				break
			}
			if rec.fields() == 1 && rec.ends[0] == 0 && !rec.null[0] {
				continue // an empty line
			}
			c.lines[c.n] = t.sr.recLine
			bytes += len(rec.data)
			c.n++
		}
		if t.plan.run.ok {
			t.plan.prepareRun(c)
		}
		select {
		case t.full <- c:
		case <-t.stop:
			return
		}
		if c.err != nil {
			return
		}
	}
}

// advance makes the next record that is not an empty line the current one.
func (t *fastTextSource) advance() error {
	if !t.started {
		t.start()
	}
	for {
		if t.cur != nil {
			if t.i+1 < t.cur.n {
				t.i++
				t.rec, t.recLine = &t.cur.recs[t.i], t.cur.lines[t.i]
				return nil
			}
			if t.cur.err != nil {
				return t.cur.err // again on every later call
			}
			t.free <- t.cur // never blocks: at most splitChunks exist
			t.cur = nil
		}
		t.cur, t.i = <-t.full, -1
	}
}

func (t *fastTextSource) appendCurrent(spec *loadSpec, fill *insertFill, b *array.RecordBuilder) (int, error) {
	return t.plan.appendRaw(spec, t, t.rec, fill, b)
}

// next is the row path's view of a record, for callers that want one.
func (t *fastTextSource) next(context.Context) ([]any, error) {
	if err := t.advance(); err != nil {
		return nil, err
	}
	out := make([]any, t.rec.fields())
	for k := range out {
		if !t.rec.null[k] {
			out[k] = string(t.rec.field(k))
		}
	}
	return out, nil
}

func (t *fastTextSource) where() string { return lineWhere(t.name, int64(t.recLine)) }

func (t *fastTextSource) rowNum(int) int64 { return int64(t.recLine) }

func (t *fastTextSource) whereNum(n int64) string { return lineWhere(t.name, n) }

func (t *fastTextSource) textual() bool { return true }

// close stops split (waiting for its read in progress: the file is not
// closed under it) and closes the file. It may be called more than once.
func (t *fastTextSource) close() {
	if t.closed {
		return
	}
	t.closed = true
	if t.started {
		close(t.stop)
		<-t.exited
	}
	if t.f != nil {
		t.f.Close()
	}
}

// rowAppender is a source that appends its records to the batch itself
// (the columnar load) rather than handing them out as []any.
type rowAppender interface {
	loadSource
	// advance reads the next record; io.EOF when there is none.
	advance() error
	// appendCurrent appends the record advance read, as appendRow would.
	appendCurrent(spec *loadSpec, fill *insertFill, b *array.RecordBuilder) (int, error)
}

// newTextSource is the source of a text file for spec: columnar when the
// statement allows it (see newFastPlan), the row path's otherwise. skip
// is IGNORE n LINES. f, when not nil, is closed with the source.
func newTextSource(r io.Reader, f io.Closer, lr *loadReader, name string, spec *loadSpec, skip uint64) (loadSource, error) {
	if len(lr.starting) == 0 {
		if plan := newFastPlan(spec); plan != nil {
			loadColumnarStatements.Add(1)
			src := &fastTextSource{sr: newScanReader(r, lr), plan: plan, name: name, f: f}
			var skipped rawRecord
			for i := uint64(0); i < skip; i++ {
				if err := src.sr.skipLine(&skipped); err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					return nil, err
				}
			}
			return src, nil
		}
	}
	for i := uint64(0); i < skip; i++ {
		if err := lr.skipLine(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	if f != nil {
		return &csvSource{textSource: textSource{lr: lr, name: name}, f: f}, nil
	}
	return &textSource{lr: lr, name: name}, nil
}

// appendPipelined is ds.AppendStream(ctx, next) with next called on this
// goroutine (where the progress callback and the statement's state live)
// while the batch before is written on another: the writer goroutine
// holds one batch, the channel none, so at most two batches are alive. An
// error of next cancels the write, which deletes what it wrote; an error
// of the write stops next.
func appendPipelined(ctx context.Context, ds *dataset.Dataset, next func() (arrow.RecordBatch, error)) (*dataset.Dataset, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan arrow.RecordBatch)
	type result struct {
		ds  *dataset.Dataset
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := ds.AppendStream(wctx, func() (arrow.RecordBatch, error) {
			select {
			case rec, ok := <-batches:
				if !ok {
					return nil, nil
				}
				return rec, nil
			case <-wctx.Done():
				return nil, wctx.Err()
			}
		})
		done <- result{out, err}
	}()
	for {
		rec, err := next()
		if err != nil {
			cancel()
			<-done
			return nil, err
		}
		if rec == nil {
			close(batches)
			r := <-done
			return r.ds, r.err
		}
		select {
		case batches <- rec:
		case r := <-done: // the write failed (or ended early)
			rec.Release()
			if r.err == nil {
				r.err = errors.New("load: the writer stopped before the last batch")
			}
			return nil, r.err
		}
	}
}
