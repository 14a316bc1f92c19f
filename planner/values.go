package planner

import (
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/internal/arrowjson"
)

// Values of table data in result rows (and in WHERE evaluation). Every Arrow
// type maps to one Go value type, the column's DatabaseType and its scan
// type:
//
//	Arrow type                         DatabaseType          Go value (scan type; nullable)
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
//	JSON (lance.json)                  JSON                  not readable yet: Lance stores JSONB, and
//	                                                       lancecat has no JSONB codec (clear error)
//
// Timestamps before year 1 or after 9999 and other values time.Time cannot
// carry are still converted (time.Time covers them); database/sql prints
// them as it prints any time.Time.

// dataColumn describes the result column of an Arrow field.
func dataColumn(f arrow.Field, label string) Column {
	if label == "" {
		label = f.Name
	}
	c := Column{Name: label, DatabaseType: databaseTypeName(f), Nullable: f.Nullable}
	c.scan = scanTypeOf(f)
	return c
}

// databaseTypeName is the SQL type of a field without its parameters:
// "DECIMAL", "DATETIME", "VECTOR", "BIGINT UNSIGNED".
func databaseTypeName(f arrow.Field) string {
	s := SQLType(f)
	if i := strings.IndexAny(s, "(<"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func scanTypeOf(f arrow.Field) reflect.Type {
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
	if isJSONField(f) {
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

// valueReader converts element i of one column of a batch to its Go value.
type valueReader func(i int) (any, error)

// readerFor returns the converter for arr, a column of field f.
func readerFor(f arrow.Field, arr arrow.Array) (valueReader, error) {
	if isJSONField(f) {
		return nil, errorf(catalog.CodeUnsupported, "not supported: reading JSON column %s (Lance stores JSON as JSONB, which lancecat cannot decode yet); select other columns", f.Name)
	}
	null := func(conv func(i int) any) valueReader {
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
		return null(func(i int) any { return float16Value(a.Value(i).Uint16()) }), nil
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
	case *array.Decimal128, *array.Decimal256, *array.Struct, *array.Map, array.ListLike:
		// Decimals: the plain decimal text; nested values: JSON text. Both
		// follow the JSONL.md conventions of internal/arrowjson.
		_, isDec128 := a.(*array.Decimal128)
		_, isDec256 := a.(*array.Decimal256)
		unquote := isDec128 || isDec256
		var buf []byte
		return func(i int) (any, error) {
			if arr.IsNull(i) {
				return nil, nil
			}
			var err error
			buf, err = arrowjson.AppendValue(buf[:0], arr, i)
			if err != nil {
				return nil, errorf(catalog.CodeUnsupported, "not supported: reading column %s: %v", f.Name, err)
			}
			if unquote {
				s, err := strconv.Unquote(string(buf))
				if err != nil {
					return nil, fmt.Errorf("planner: decimal text %s: %w", buf, err)
				}
				return s, nil
			}
			return string(buf), nil
		}, nil
	case *array.Dictionary:
		dict, err := readerFor(arrow.Field{Name: f.Name, Type: a.Dictionary().DataType(), Nullable: true}, a.Dictionary())
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
		return readerFor(arrow.Field{Name: f.Name, Type: a.Storage().DataType(), Nullable: f.Nullable}, a.Storage())
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: reading column %s of Arrow type %s", f.Name, arr.DataType())
}

// float16Value decodes IEEE 754 half-precision bits, subnormals included
// (arrow-go's float16.Num.Float32 flushes them wrongly).
func float16Value(bits uint16) float64 {
	sign := 1.0
	if bits&0x8000 != 0 {
		sign = -1
	}
	exp := int(bits>>10) & 0x1f
	frac := float64(bits & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
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
