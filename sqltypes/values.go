package sqltypes

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/lancecat/lancecat/internal/arrowjson"
)

// Go values of table data in result rows (and in WHERE evaluation). Every
// Arrow type maps to one Go value type, the column's BaseName and its scan
// type:
//
//	Arrow type                         BaseName              Go value (scan type; nullable)
//	bool                               BOOLEAN               bool (bool; sql.NullBool)
//	int8, int16, int32, int64          TINYINT..BIGINT       int64 (int64; sql.NullInt64)
//	uint8, uint16, uint32              TINYINT..INT UNSIGNED int64 (int64; sql.NullInt64)
//	uint64                             BIGINT UNSIGNED       uint64 (uint64; sql.Null[uint64])
//	float16, float32, float64          FLOAT16, FLOAT, DOUBLE float64 (float64; sql.NullFloat64);
//	                                                       a float32 is the shortest decimal that
//	                                                       round-trips in float32 (0.1, not 0.10000000149)
//	decimal128, decimal256             DECIMAL, DECIMAL256   string, exactly scale fraction digits
//	                                                       ("-12.30") (string; sql.NullString)
//	utf8, large_utf8                   TEXT, LARGE_TEXT      string
//	binary, large_binary, fixed_size_binary BLOB, ...        []byte ([]byte)
//	date32, date64                     DATE, DATE64          time.Time at 00:00 UTC (time.Time; sql.NullTime)
//	timestamp without zone             DATETIME              time.Time, the wall clock in UTC
//	timestamp with zone                TIMESTAMP             time.Time, the instant in UTC
//	time32, time64                     TIME                  string "15:04:05[.fraction]"
//	duration                           DURATION              int64 in the type's unit
//	fixed_size_list<float32> (VECTOR), list, large_list, fixed_size_list, struct, map
//	                                   VECTOR, LIST, ...     string: JSON text (conformance/peer/JSONL.md
//	                                                       conventions: [0.5,1,2], {"a":1})
//	dictionary                         the value type's      as the value type
//	JSON (lance.json JSONB, arrow.json) JSON                 string: MySQL 8's normalized JSON text
//	                                                       ({"a": 1, "b": [1, 2]}); JSON null is
//	                                                       the text null, SQL NULL is nil
//
// Timestamps before year 1 or after 9999 and other values time.Time cannot
// carry are still converted (time.Time covers them); database/sql prints
// them as it prints any time.Time.

// ErrUnsupportedValue marks a value Reader cannot read or Append cannot
// write (JSON, types without a conversion), matchable with errors.Is.
var ErrUnsupportedValue = errors.New("not supported")

// Decimal is an exact numeric literal (e.g. 1.50), kept as its text.
type Decimal string

// ScanType is the Go type a value of field f scans into (the table above).
func ScanType(f arrow.Field) reflect.Type {
	nullable := f.Nullable
	pick := func(plain, null any) reflect.Type {
		if nullable {
			return reflect.TypeOf(null)
		}
		return reflect.TypeOf(plain)
	}
	dt := f.Type
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType
	}
	if IsJSON(f) {
		return pick("", sql.NullString{})
	}
	switch dt.ID() {
	case arrow.BOOL:
		return pick(false, sql.NullBool{})
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.DURATION:
		return pick(int64(0), sql.NullInt64{})
	case arrow.UINT64:
		return pick(uint64(0), sql.Null[uint64]{})
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return pick(float64(0), sql.NullFloat64{})
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY, arrow.BINARY_VIEW:
		return reflect.TypeOf([]byte(nil))
	case arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
		return pick(time.Time{}, sql.NullTime{})
	}
	return pick("", sql.NullString{})
}

// ValueReader converts element i of one column of a batch to its Go value
// (nil for NULL).
type ValueReader func(i int) (any, error)

// Reader returns the converter for arr, a column of field f. Its errors
// wrap ErrUnsupportedValue.
func Reader(f arrow.Field, arr arrow.Array) (ValueReader, error) {
	if IsJSON(f) {
		return jsonReader(f, arr)
	}
	null := func(conv func(i int) any) ValueReader {
		return func(i int) (any, error) {
			if arr.IsNull(i) {
				return nil, nil
			}
			return conv(i), nil
		}
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.Int8:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Int16:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Int32:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Int64:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.Uint8:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Uint16:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Uint32:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Uint64:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.Float16:
		return null(func(i int) any { return arrowjson.Float16(a.Value(i).Uint16()) }), nil
	case *array.Float32:
		return null(func(i int) any { return float32Value(a.Value(i)) }), nil
	case *array.Float64:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.String:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.LargeString:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.StringView:
		return null(func(i int) any { return a.Value(i) }), nil
	case *array.Binary:
		return null(func(i int) any { return append([]byte{}, a.Value(i)...) }), nil
	case *array.LargeBinary:
		return null(func(i int) any { return append([]byte{}, a.Value(i)...) }), nil
	case *array.BinaryView:
		return null(func(i int) any { return append([]byte{}, a.Value(i)...) }), nil
	case *array.FixedSizeBinary:
		return null(func(i int) any { return append([]byte{}, a.Value(i)...) }), nil
	case *array.Date32:
		return null(func(i int) any { return time.Unix(int64(a.Value(i))*86400, 0).UTC() }), nil
	case *array.Date64:
		return null(func(i int) any { return time.UnixMilli(int64(a.Value(i))).UTC() }), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return null(func(i int) any { return timestampValue(int64(a.Value(i)), unit) }), nil
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return null(func(i int) any { return timeOfDayText(int64(a.Value(i)), unit) }), nil
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return null(func(i int) any { return timeOfDayText(int64(a.Value(i)), unit) }), nil
	case *array.Duration:
		return null(func(i int) any { return int64(a.Value(i)) }), nil
	case *array.Decimal128:
		if t := a.DataType().(*arrow.Decimal128Type); t.Scale >= 0 && t.Scale <= t.Precision && t.Precision <= 38 {
			// Most DECIMAL values fit an int64 unscaled: their text is
			// printed directly, not through big.Int and quoted JSON.
			scale := int(t.Scale)
			var buf []byte
			return func(i int) (any, error) {
				if a.IsNull(i) {
					return nil, nil
				}
				v := a.Value(i)
				if hi, lo := v.HighBits(), v.LowBits(); (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
					buf = AppendDecimalText(buf[:0], int64(lo), scale)
					return string(buf), nil
				}
				return decimalBigText(v.BigInt(), scale), nil
			}, nil
		}
		return jsonTextReader(f, arr, true), nil
	case *array.Decimal256, *array.Struct, *array.Map, array.ListLike:
		// Decimals: the plain decimal text; nested values: JSON text. Both
		// follow the JSONL.md conventions of internal/arrowjson.
		_, isDec256 := a.(*array.Decimal256)
		return jsonTextReader(f, arr, isDec256), nil
	case *array.Dictionary:
		dict, err := Reader(arrow.Field{Name: f.Name, Type: a.Dictionary().DataType(), Nullable: true}, a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(i int) (any, error) {
			if arr.IsNull(i) {
				return nil, nil
			}
			return dict(a.GetValueIndex(i))
		}, nil
	case *array.Null:
		return func(int) (any, error) { return nil, nil }, nil
	case array.ExtensionArray:
		return Reader(arrow.Field{Name: f.Name, Type: a.Storage().DataType(), Nullable: f.Nullable}, a.Storage())
	}
	return nil, fmt.Errorf("%w: reading column %s of Arrow type %s", ErrUnsupportedValue, f.Name, arr.DataType())
}

// jsonTextReader reads values as internal/arrowjson's text of them,
// unquoted for decimals (their plain decimal text).
func jsonTextReader(f arrow.Field, arr arrow.Array, unquote bool) ValueReader {
	var buf []byte
	return func(i int) (any, error) {
		if arr.IsNull(i) {
			return nil, nil
		}
		var err error
		buf, err = arrowjson.AppendValue(buf[:0], arr, i)
		if err != nil {
			return nil, fmt.Errorf("%w: reading column %s: %v", ErrUnsupportedValue, f.Name, err)
		}
		if unquote {
			s, err := strconv.Unquote(string(buf))
			if err != nil {
				return nil, fmt.Errorf("sqltypes: decimal text %s: %w", buf, err)
			}
			return s, nil
		}
		return string(buf), nil
	}
}

// AppendDecimalText appends the plain decimal text of unscaled / 10^scale
// (scale >= 0): exactly scale fraction digits, a leading "0" before the
// point, "-" only for a value below zero. It is internal/arrowjson's
// decimal text, without big.Int.
func AppendDecimalText(dst []byte, unscaled int64, scale int) []byte {
	var tmp [64]byte
	mag := uint64(unscaled)
	if unscaled < 0 {
		dst = append(dst, '-')
		mag = -mag
	}
	d := strconv.AppendUint(tmp[:0], mag, 10)
	if scale <= 0 {
		return append(dst, d...)
	}
	if len(d) <= scale { // 0.00ddd
		dst = append(dst, '0', '.')
		for n := len(d); n < scale; n++ {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	}
	dst = append(dst, d[:len(d)-scale]...)
	return append(append(dst, '.'), d[len(d)-scale:]...)
}

// decimalBigText is the plain decimal text of unscaled / 10^scale.
func decimalBigText(n *big.Int, scale int) string {
	neg := n.Sign() < 0
	s := new(big.Int).Abs(n).String()
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	if scale > 0 {
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// float32Value is the float64 whose shortest decimal is the float32's, so
// that 0.1f reads (and compares) as 0.1.
func float32Value(v float32) float64 {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return float64(v)
	}
	f, err := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	if err != nil {
		return float64(v)
	}
	return f
}

// timestampValue is the time.Time (UTC) of a timestamp of the given unit.
func timestampValue(v int64, unit arrow.TimeUnit) time.Time {
	switch unit {
	case arrow.Second:
		return time.Unix(v, 0).UTC()
	case arrow.Millisecond:
		return time.UnixMilli(v).UTC()
	case arrow.Microsecond:
		return time.UnixMicro(v).UTC()
	}
	return time.Unix(0, v).UTC()
}

func timeOfDayText(v int64, unit arrow.TimeUnit) string {
	var nanos int64
	digits := 0
	switch unit {
	case arrow.Second:
		nanos = v * 1e9
	case arrow.Millisecond:
		nanos, digits = v*1e6, 3
	case arrow.Microsecond:
		nanos, digits = v*1e3, 6
	default:
		nanos, digits = v, 9
	}
	neg := nanos < 0
	if neg {
		nanos = -nanos
	}
	sec := nanos / 1e9
	frac := nanos % 1e9
	s := fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if digits > 0 {
		f := fmt.Sprintf("%09d", frac)
		s += "." + f[:digits]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Append appends v (nil: NULL) to fb, the builder of field f, converting
// it to the field's type; a value that does not fit is an error and appends
// nothing to a scalar builder. It takes the literals of SQL (nil, int64,
// uint64, float64, Decimal, string, []byte) and every value Reader returns
// (bool, time.Time, and the texts of decimals, times, vectors, lists and
// structs), so what Reader reads, Append writes back unchanged:
//
//	BOOLEAN             bool, TRUE, FALSE, 0, 1
//	integer types       integers in range
//	FLOAT, DOUBLE       numbers
//	DECIMAL(p,s)        numbers (exact digits, at most s fraction digits), numeric strings
//	TEXT                strings
//	BLOB, BINARY(n)     strings, []byte (FIXED_SIZE_BINARY: exactly n bytes)
//	DATE                time.Time (its UTC date), 'YYYY-MM-DD'
//	DATETIME(p)         time.Time, 'YYYY-MM-DD[ HH:MM:SS[.fraction]]' (the wall clock)
//	TIMESTAMP(p)        time.Time, the same text read as UTC, or RFC 3339 with a zone
//	TIME(p)             'HH:MM:SS[.fraction]'
//	DURATION            integers (in the type's unit)
//	VECTOR(n)           '[x, y, ...]' (JSON array of n numbers)
//	LIST, STRUCT, ...   JSON text as Reader prints it ('[1,2]', '{"a":1}')
//
//	JSON                JSON text (strings, []byte), stored as JSONB
//	                    (lance.json) or text (arrow.json); invalid text, and a
//	                    number or boolean (MySQL wants CAST(x AS JSON)), is
//	                    MySQL's error 3140 (*JSONError, ErrInvalidJSON)
func Append(fb array.Builder, f arrow.Field, v any) error {
	if v == nil {
		fb.AppendNull()
		return nil
	}
	mismatch := func(want string) error {
		return fmt.Errorf("%s is not %s", Describe(v), want)
	}
	tooPrecise := func() error {
		return fmt.Errorf("%s has more fractional digits than %s keeps", Describe(v), Name(f, Quoting{}))
	}
	if IsJSON(f) {
		return appendJSONColumn(fb, f, v)
	}
	switch b := fb.(type) {
	case *array.BooleanBuilder:
		if x, ok := v.(bool); ok {
			b.Append(x)
			return nil
		}
		i, ok := IntegerOf(v)
		if !ok || (i.Sign() != 0 && i.Cmp(big.NewInt(1)) != 0) {
			return mismatch("a boolean (TRUE, FALSE, 1, 0)")
		}
		b.Append(i.Sign() != 0)
	case *array.Int8Builder, *array.Int16Builder, *array.Int32Builder, *array.Int64Builder,
		*array.Uint8Builder, *array.Uint16Builder, *array.Uint32Builder, *array.Uint64Builder:
		i, ok := IntegerOf(v)
		if !ok {
			return mismatch("an integer")
		}
		return AppendInteger(fb, i)
	case *array.DurationBuilder:
		i, ok := IntegerOf(v)
		if !ok || !i.IsInt64() {
			return mismatch("a duration (an integer)")
		}
		b.Append(arrow.Duration(i.Int64()))
	case *array.Float16Builder:
		x, ok := floatOf(v)
		if !ok {
			return mismatch("a number")
		}
		if math.IsNaN(x) {
			b.Append(float16.NaN())
			break
		}
		b.Append(float16.FromBits(arrowjson.Float16Bits(x)))
	case *array.Float32Builder:
		x, ok := floatOf(v)
		if !ok {
			return mismatch("a number")
		}
		if outOfFloat32(x) {
			return fmt.Errorf("%s is out of the FLOAT range", Describe(v))
		}
		b.Append(float32(x))
	case *array.Float64Builder:
		x, ok := floatOf(v)
		if !ok {
			return mismatch("a number")
		}
		b.Append(x)
	case *array.Decimal128Builder:
		t := f.Type.(*arrow.Decimal128Type)
		text, ok := decimalTextOf(v)
		if !ok {
			return mismatch("a decimal number")
		}
		d, err := decimalFromText(text, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		b.Append(d)
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			return mismatch("a string")
		}
		b.Append(s)
	case *array.LargeStringBuilder:
		s, ok := v.(string)
		if !ok {
			return mismatch("a string")
		}
		b.Append(s)
	case *array.BinaryBuilder: // binary and large_binary
		bs, ok := bytesOf(v)
		if !ok {
			return mismatch("a string or X'..' literal")
		}
		b.Append(bs)
	case *array.FixedSizeBinaryBuilder:
		bs, ok := bytesOf(v)
		w := f.Type.(*arrow.FixedSizeBinaryType).ByteWidth
		if !ok || len(bs) != w {
			return mismatch(fmt.Sprintf("%d bytes", w))
		}
		b.Append(bs)
	case *array.Date32Builder:
		t, ok := v.(time.Time)
		if s, isText := v.(string); isText {
			var err error
			t, err = time.Parse("2006-01-02", strings.TrimSpace(s))
			ok = err == nil
		}
		if !ok {
			return mismatch("a date 'YYYY-MM-DD'")
		}
		// A time.Time (a DATETIME value assigned to a DATE column) keeps
		// its UTC date, as MySQL truncates DATETIME to DATE.
		b.Append(arrow.Date32FromTime(t))
	case *array.TimestampBuilder:
		t, ok := v.(time.Time)
		if s, isText := v.(string); isText {
			t, ok = ParseTime(s)
		}
		if !ok {
			return mismatch("a date/time 'YYYY-MM-DD HH:MM:SS[.fraction]'")
		}
		// More fractional digits than the column keeps round half up, as
		// MySQL rounds a value stored into DATETIME(p) / TIMESTAMP(p)
		// (clients send time.Now() with nanoseconds).
		unit := f.Type.(*arrow.TimestampType).Unit
		t = t.Round(unit.Multiplier())
		ts, err := arrow.TimestampFromTime(t, unit)
		if err != nil {
			return err
		}
		if back := timestampValue(int64(ts), unit); !back.Equal(t) {
			return tooPrecise()
		}
		b.Append(ts)
	case *array.Time64Builder:
		s, ok := v.(string)
		nanos, err := parseTimeOfDay(s)
		if !ok || err != nil {
			return mismatch("a time 'HH:MM:SS[.fraction]'")
		}
		if f.Type.(*arrow.Time64Type).Unit == arrow.Microsecond {
			// Rounded half up (away from zero), as MySQL rounds TIME(p).
			if nanos >= 0 {
				nanos = (nanos + 500) / 1000
			} else {
				nanos = (nanos - 500) / 1000
			}
		}
		b.Append(arrow.Time64(nanos))
	case *array.FixedSizeListBuilder:
		t := f.Type.(*arrow.FixedSizeListType)
		s, isString := v.(string)
		if vb, isFloat := b.ValueBuilder().(*array.Float32Builder); isFloat && t.Elem().ID() == arrow.FLOAT32 {
			if !isString {
				return mismatch("a vector '[x, y, ...]'")
			}
			xs, err := vectorElems(s)
			if err != nil {
				return mismatch("a vector '[x, y, ...]' (JSON array of numbers)")
			}
			if len(xs) != int(t.Len()) {
				return fmt.Errorf("vector has %d elements, the column has %d", len(xs), t.Len())
			}
			for _, x := range xs {
				if x != nil && outOfFloat32(*x) {
					return fmt.Errorf("vector element %v is out of the FLOAT range", *x)
				}
			}
			b.Append(true)
			for _, x := range xs {
				if x == nil {
					vb.AppendNull()
				} else {
					vb.Append(float32(*x))
				}
			}
			return nil
		}
		return appendJSON(b, f, v)
	case *array.ListBuilder, *array.LargeListBuilder, *array.StructBuilder:
		return appendJSON(b, f, v)
	default:
		return fmt.Errorf("%w: inserting values into a column of type %s (only NULL)", ErrUnsupportedValue, Name(f, Quoting{}))
	}
	return nil
}

// appendJSON appends a nested value given as JSON text, the text Reader
// prints (conformance/peer/JSONL.md conventions): arrays for lists,
// objects for structs, and at the leaves what Append takes, spelled as
// internal/arrowjson prints it (decimals and times as strings, binary as
// base64, "NaN"/"Infinity"/"-Infinity" for non-finite floats), so that
// every type Append writes at the top level also round-trips inside a
// list or struct. Numbers are decoded as json.Number so that integers
// beyond 2^53 keep every digit and fractions in integer fields are
// refused. A value that fails to decode is an error; the builder may then
// hold part of it, so the caller discards the batch being built.
func appendJSON(b array.Builder, f arrow.Field, v any) error {
	s, ok := v.(string)
	if !ok || !json.Valid([]byte(s)) {
		return fmt.Errorf("%s is not a %s value (JSON text)", Describe(v), BaseName(f))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return fmt.Errorf("%s is not a %s value: %v", Describe(v), Name(f, Quoting{}), err)
	}
	if x == nil {
		return fmt.Errorf("%s is not a %s value (JSON null: use NULL)", Describe(v), Name(f, Quoting{}))
	}
	if err := appendNested(b, f, x, 0); err != nil {
		return fmt.Errorf("%s is not a %s value: %v", Describe(v), Name(f, Quoting{}), err)
	}
	return nil
}

// maxNesting bounds the depth appendNested descends (a hostile value
// cannot be deeper than its type, but the bound keeps the recursion
// obviously finite).
const maxNesting = 64

// appendNested appends x, a JSON value decoded with UseNumber, to b, the
// builder of field f.
func appendNested(b array.Builder, f arrow.Field, x any, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("nested deeper than %d levels", maxNesting)
	}
	if x == nil {
		b.AppendNull()
		return nil
	}
	items := func(want string) ([]any, error) {
		xs, ok := x.([]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a JSON array (%s)", jsonText(x), want)
		}
		return xs, nil
	}
	switch bb := b.(type) {
	case *array.ListBuilder:
		xs, err := items("a list")
		if err != nil {
			return err
		}
		bb.Append(true)
		elem := f.Type.(*arrow.ListType).ElemField()
		for _, e := range xs {
			if err := appendNested(bb.ValueBuilder(), elem, e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *array.LargeListBuilder:
		xs, err := items("a list")
		if err != nil {
			return err
		}
		bb.Append(true)
		elem := f.Type.(*arrow.LargeListType).ElemField()
		for _, e := range xs {
			if err := appendNested(bb.ValueBuilder(), elem, e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *array.FixedSizeListBuilder:
		t := f.Type.(*arrow.FixedSizeListType)
		xs, err := items(fmt.Sprintf("%d items", t.Len()))
		if err != nil {
			return err
		}
		if len(xs) != int(t.Len()) {
			return fmt.Errorf("%d items, the type has %d", len(xs), t.Len())
		}
		bb.Append(true)
		for _, e := range xs {
			if err := appendNested(bb.ValueBuilder(), t.ElemField(), e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *array.StructBuilder:
		m, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a JSON object (a struct)", jsonText(x))
		}
		st := f.Type.(*arrow.StructType)
		for k := range m {
			if _, ok := st.FieldIdx(k); !ok {
				return fmt.Errorf("the struct has no field %q", k)
			}
		}
		bb.Append(true)
		for i, cf := range st.Fields() {
			if err := appendNested(bb.FieldBuilder(i), cf, m[cf.Name], depth+1); err != nil {
				return fmt.Errorf("field %s: %w", cf.Name, err)
			}
		}
		return nil
	}
	v, err := leafValue(b, x)
	if err != nil {
		return err
	}
	return Append(b, f, v)
}

// leafValue converts a decoded JSON scalar to the value Append takes for
// builder b: numbers to int64, uint64, float64 or Decimal, base64 text to
// bytes for binary builders, the non-finite float spellings to floats.
func leafValue(b array.Builder, x any) (any, error) {
	switch x := x.(type) {
	case bool:
		return x, nil
	case json.Number:
		switch b.(type) {
		case *array.Float16Builder, *array.Float32Builder, *array.Float64Builder:
			f, err := x.Float64()
			if err != nil {
				return nil, fmt.Errorf("number %s: %v", x, err)
			}
			return f, nil
		case *array.Decimal128Builder:
			return Decimal(x), nil
		}
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return u, nil
		}
		return nil, fmt.Errorf("number %s is not an integer in range", x)
	case string:
		switch b.(type) {
		case *array.BinaryBuilder, *array.FixedSizeBinaryBuilder:
			bs, err := base64.StdEncoding.DecodeString(x)
			if err != nil {
				return nil, fmt.Errorf("binary %q is not base64: %v", x, err)
			}
			return bs, nil
		case *array.Float16Builder, *array.Float32Builder, *array.Float64Builder:
			switch x {
			case "NaN":
				return math.NaN(), nil
			case "Infinity":
				return math.Inf(1), nil
			case "-Infinity":
				return math.Inf(-1), nil
			}
		}
		return x, nil
	}
	return nil, fmt.Errorf("%s is not a scalar", jsonText(x))
}

// jsonText spells a decoded JSON value for an error message.
func jsonText(x any) string {
	b, err := json.Marshal(x)
	if err != nil || len(b) > 64 {
		return fmt.Sprintf("%T", x)
	}
	return string(b)
}

// vectorElems reads a vector's JSON text: numbers, null and the JSONL.md
// spellings of non-finite floats ("NaN", "Infinity", "-Infinity"), which
// Reader prints for what the peer stores.
func vectorElems(s string) ([]*float64, error) {
	var raw []any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, fmt.Errorf("not a JSON array")
	}
	xs := make([]*float64, len(raw))
	for i, e := range raw {
		var x float64
		switch e := e.(type) {
		case nil:
			continue
		case json.Number:
			var err error
			if x, err = e.Float64(); err != nil {
				return nil, err
			}
		case string:
			switch e {
			case "NaN":
				x = math.NaN()
			case "Infinity":
				x = math.Inf(1)
			case "-Infinity":
				x = math.Inf(-1)
			default:
				return nil, fmt.Errorf("element %q", e)
			}
		default:
			return nil, fmt.Errorf("element %v", e)
		}
		xs[i] = &x
	}
	return xs, nil
}

// outOfFloat32 reports a finite x that float32 cannot hold (it would
// become an infinity).
func outOfFloat32(x float64) bool {
	return !math.IsInf(x, 0) && math.IsInf(float64(float32(x)), 0)
}

// Describe spells a value for an error message: strings quoted, bytes as
// X'..', times in RFC 3339.
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case []byte:
		return fmt.Sprintf("X'%X'", x)
	case Decimal:
		return string(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// IntegerOf is the integer value of an int64 or uint64.
func IntegerOf(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	}
	return nil, false
}

// AppendInteger appends i to an integer builder, refusing a value outside
// the builder's type.
func AppendInteger(fb array.Builder, i *big.Int) error {
	var lo, hi *big.Int
	switch fb.(type) {
	case *array.Int8Builder:
		lo, hi = big.NewInt(math.MinInt8), big.NewInt(math.MaxInt8)
	case *array.Int16Builder:
		lo, hi = big.NewInt(math.MinInt16), big.NewInt(math.MaxInt16)
	case *array.Int32Builder:
		lo, hi = big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	case *array.Int64Builder:
		lo, hi = big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	case *array.Uint8Builder:
		lo, hi = big.NewInt(0), big.NewInt(math.MaxUint8)
	case *array.Uint16Builder:
		lo, hi = big.NewInt(0), big.NewInt(math.MaxUint16)
	case *array.Uint32Builder:
		lo, hi = big.NewInt(0), big.NewInt(math.MaxUint32)
	default:
		lo, hi = big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)
	}
	if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
		return fmt.Errorf("%s is out of range [%s, %s]", i, lo, hi)
	}
	switch b := fb.(type) {
	case *array.Int8Builder:
		b.Append(int8(i.Int64()))
	case *array.Int16Builder:
		b.Append(int16(i.Int64()))
	case *array.Int32Builder:
		b.Append(int32(i.Int64()))
	case *array.Int64Builder:
		b.Append(i.Int64())
	case *array.Uint8Builder:
		b.Append(uint8(i.Uint64()))
	case *array.Uint16Builder:
		b.Append(uint16(i.Uint64()))
	case *array.Uint32Builder:
		b.Append(uint32(i.Uint64()))
	case *array.Uint64Builder:
		b.Append(i.Uint64())
	}
	return nil
}

func floatOf(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case Decimal:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

func bytesOf(v any) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return []byte(x), true
	case []byte:
		return x, true
	}
	return nil, false
}

// decimalTextOf returns exact decimal text for integers, decimals and
// numeric strings (floats are refused: their binary value is inexact).
func decimalTextOf(v any) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case Decimal:
		return string(x), true
	case string:
		s := strings.TrimSpace(x)
		if _, ok := new(big.Rat).SetString(s); ok && !strings.ContainsAny(s, "eE/") {
			return s, true
		}
	}
	return "", false
}

// decimalFromText converts plain decimal text to a decimal128 of the given
// precision and scale, refusing digits beyond the scale (no silent
// rounding) and values beyond the precision.
func decimalFromText(text string, prec, scale int32) (decimal128.Num, error) {
	s := strings.TrimSpace(text)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	if int32(len(frac)) > scale {
		return decimal128.Num{}, fmt.Errorf("%s has more than %d fraction digits", text, scale)
	}
	digits := intPart + frac + strings.Repeat("0", int(scale)-len(frac))
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return decimal128.Num{}, fmt.Errorf("%s is not a decimal number", text)
	}
	if len(strings.TrimLeft(n.String(), "0")) > int(prec) {
		return decimal128.Num{}, fmt.Errorf("%s does not fit DECIMAL(%d,%d)", text, prec, scale)
	}
	if neg {
		n.Neg(n)
	}
	return decimal128.FromBigInt(n), nil
}

// parseTimeOfDay reads 'HH:MM:SS[.fraction]' as nanoseconds since midnight.
func parseTimeOfDay(s string) (int64, error) {
	s = strings.TrimSpace(s)
	main, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(main, ":")
	if len(parts) != 3 || len(frac) > 9 {
		return 0, fmt.Errorf("bad time")
	}
	var hms [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad time")
		}
		hms[i] = n
	}
	if hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return 0, fmt.Errorf("bad time")
	}
	var fn int64
	if frac != "" {
		n, err := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad time")
		}
		fn = n
	}
	return ((hms[0]*60+hms[1])*60+hms[2])*1e9 + fn, nil
}

// ParseTime reads a date or datetime literal: "2006-01-02",
// "2006-01-02 15:04:05[.fraction]", "2006-01-02T15:04:05[.fraction]" and
// RFC 3339 with a zone. Times without a zone are UTC.
func ParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
