package sqltypes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// Quoting spells the names and strings that appear inside a type name (the
// field names of a STRUCT, the zone of a TIMESTAMP WITH TIME ZONE) so they
// read back; sqlparse.Quoting is lancecat's SQL.
type Quoting struct {
	Ident  func(string) string
	String func(string) string
}

// Name spells the type of a Lance/Arrow field for DESCRIBE, SHOW COLUMNS,
// SHOW CREATE TABLE and information_schema.columns.COLUMN_TYPE. Types SQL
// can spell use their SQL name (the one CREATE TABLE accepts for the same
// Arrow type, so SHOW CREATE TABLE output re-creates the same schema); the
// others use an Arrow-like spelling that CREATE TABLE does not accept:
//
//	STRUCT<name TYPE, ...>, LIST<TYPE> (a list of nullable VECTOR(n) is
//	MULTIVECTOR(n)), LARGE_LIST<TYPE>,
//	FIXED_SIZE_LIST<TYPE>[n] (item type other than FLOAT), LARGE_TEXT,
//	LARGE_BLOB, FIXED_SIZE_BINARY(n), FLOAT16, DECIMAL256(p,s),
//	DATE64, TIME32(p), DURATION(unit), TIMESTAMP(p) WITH TIME ZONE 'zone'
//	(a zone other than UTC), DICTIONARY<index, value>, NULL,
//	and as a last resort ARROW(<arrow type string>).
//
// A nullable child field of a nested type is printed as is; a child that is
// NOT NULL gets " NOT NULL" after its type.
func Name(f arrow.Field, q Quoting) string {
	if IsJSON(f) {
		return "JSON"
	}
	if n, ok := CharLength(f); ok && f.Type.ID() == arrow.STRING {
		return fmt.Sprintf("VARCHAR(%d)", n)
	}
	return q.typeName(f.Type)
}

// BaseName is the type name without its parameters, as
// driver.Rows.ColumnTypeDatabaseTypeName reports it: "DECIMAL",
// "DATETIME", "VECTOR", "BIGINT UNSIGNED", "STRUCT".
func BaseName(f arrow.Field) string {
	s := Name(f, Quoting{})
	if i := strings.IndexAny(s, "(<"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// DataTypeName is information_schema.columns.DATA_TYPE: the lower-case
// base type name without parameters or modifiers ("bigint", "decimal",
// "struct").
func DataTypeName(f arrow.Field) string {
	s := Name(f, Quoting{})
	if i := strings.IndexAny(s, "(< "); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(s)
}

func (q Quoting) ident(s string) string {
	if q.Ident == nil {
		return s
	}
	return q.Ident(s)
}

func (q Quoting) str(s string) string {
	if q.String == nil {
		return "'" + s + "'"
	}
	return q.String(s)
}

func (q Quoting) childName(f arrow.Field) string {
	s := Name(f, q)
	if !f.Nullable {
		s += " NOT NULL"
	}
	return s
}

func (q Quoting) typeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.NullType:
		return "NULL"
	case *arrow.BooleanType:
		return "BOOLEAN"
	case *arrow.Int8Type:
		return "TINYINT"
	case *arrow.Int16Type:
		return "SMALLINT"
	case *arrow.Int32Type:
		return "INT"
	case *arrow.Int64Type:
		return "BIGINT"
	case *arrow.Uint8Type:
		return "TINYINT UNSIGNED"
	case *arrow.Uint16Type:
		return "SMALLINT UNSIGNED"
	case *arrow.Uint32Type:
		return "INT UNSIGNED"
	case *arrow.Uint64Type:
		return "BIGINT UNSIGNED"
	case *arrow.Float16Type:
		return "FLOAT16"
	case *arrow.Float32Type:
		return "FLOAT"
	case *arrow.Float64Type:
		return "DOUBLE"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case *arrow.Decimal256Type:
		return fmt.Sprintf("DECIMAL256(%d,%d)", t.Precision, t.Scale)
	case *arrow.StringType:
		return "TEXT"
	case *arrow.LargeStringType:
		return "LARGE_TEXT"
	case *arrow.BinaryType:
		return "BLOB"
	case *arrow.LargeBinaryType:
		return "LARGE_BLOB"
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("FIXED_SIZE_BINARY(%d)", t.ByteWidth)
	case *arrow.Date32Type:
		return "DATE"
	case *arrow.Date64Type:
		return "DATE64"
	case *arrow.Time32Type:
		return fmt.Sprintf("TIME32(%d)", precisionOf(t.Unit))
	case *arrow.Time64Type:
		return fmt.Sprintf("TIME(%d)", precisionOf(t.Unit))
	case *arrow.TimestampType:
		p := precisionOf(t.Unit)
		switch t.TimeZone {
		case "":
			return fmt.Sprintf("DATETIME(%d)", p)
		case "UTC":
			return fmt.Sprintf("TIMESTAMP(%d)", p)
		default:
			return fmt.Sprintf("TIMESTAMP(%d) WITH TIME ZONE %s", p, q.str(t.TimeZone))
		}
	case *arrow.DurationType:
		return fmt.Sprintf("DURATION(%s)", t.Unit)
	case *arrow.FixedSizeListType:
		if t.Elem().ID() == arrow.FLOAT32 && t.ElemField().Metadata.Len() == 0 {
			return fmt.Sprintf("VECTOR(%d)", t.Len())
		}
		return fmt.Sprintf("FIXED_SIZE_LIST<%s>[%d]", q.childName(t.ElemField()), t.Len())
	case *arrow.ListType:
		if v, ok := t.Elem().(*arrow.FixedSizeListType); ok && v.Elem().ID() == arrow.FLOAT32 && v.ElemField().Metadata.Len() == 0 && t.ElemField().Metadata.Len() == 0 && t.ElemField().Nullable {
			// a multivector, as LanceDB stores one
			return fmt.Sprintf("MULTIVECTOR(%d)", v.Len())
		}
		return "LIST<" + q.childName(t.ElemField()) + ">"
	case *arrow.LargeListType:
		return "LARGE_LIST<" + q.childName(t.ElemField()) + ">"
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = q.ident(f.Name) + " " + q.childName(f)
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case *arrow.DictionaryType:
		return "DICTIONARY<" + q.typeName(t.IndexType) + ", " + q.typeName(t.ValueType) + ">"
	}
	return "ARROW(" + dt.String() + ")"
}

// precisionOf is the fractional-second digits of a time unit.
func precisionOf(u arrow.TimeUnit) int {
	switch u {
	case arrow.Second:
		return 0
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond:
		return 6
	}
	return 9
}

// NumericPrecision is information_schema.columns.NUMERIC_PRECISION and
// NUMERIC_SCALE, as MySQL reports them (decimal digits of integer types, the
// declared precision and scale of decimals); nil, nil for other types. Schema
// tools (GORM's migrator) read them to decide whether a column must change.
func NumericPrecision(dt arrow.DataType) (precision, scale any) {
	switch t := dt.(type) {
	case *arrow.Int8Type, *arrow.Uint8Type:
		return int64(3), int64(0)
	case *arrow.Int16Type, *arrow.Uint16Type:
		return int64(5), int64(0)
	case *arrow.Int32Type, *arrow.Uint32Type:
		return int64(10), int64(0)
	case *arrow.Int64Type:
		return int64(19), int64(0)
	case *arrow.Uint64Type:
		return int64(20), int64(0)
	case *arrow.Decimal128Type:
		return int64(t.Precision), int64(t.Scale)
	case *arrow.Decimal256Type:
		return int64(t.Precision), int64(t.Scale)
	}
	return nil, nil
}

// DatetimePrecision is information_schema.columns.DATETIME_PRECISION: the
// fractional-second digits of timestamp and time columns, nil otherwise.
func DatetimePrecision(dt arrow.DataType) any {
	switch t := dt.(type) {
	case *arrow.TimestampType:
		return int64(precisionOf(t.Unit))
	case *arrow.Time32Type:
		return int64(precisionOf(t.Unit))
	case *arrow.Time64Type:
		return int64(precisionOf(t.Unit))
	}
	return nil
}

// CharLength returns the declared n of a VARCHAR(n) column (CharLengthKey).
func CharLength(f arrow.Field) (int64, bool) {
	v, ok := FieldMeta(f, CharLengthKey)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// IsJSON reports whether f is Lance's JSON type (or Arrow's canonical JSON
// extension, which Lance reads as JSON too).
func IsJSON(f arrow.Field) bool {
	ext, _ := FieldMeta(f, lanceschema.ArrowExtensionNameKey)
	return ext == lanceschema.JSONExtensionName || ext == lanceschema.ArrowJSONExtensionName
}

// FieldMeta returns the value of a field metadata key.
func FieldMeta(f arrow.Field, key string) (string, bool) {
	i := f.Metadata.FindKey(key)
	if i < 0 {
		return "", false
	}
	return f.Metadata.Values()[i], true
}

// WithFieldMeta returns f with metadata key set to val.
func WithFieldMeta(f arrow.Field, key, val string) arrow.Field {
	m := map[string]string{}
	for i, k := range f.Metadata.Keys() {
		m[k] = f.Metadata.Values()[i]
	}
	m[key] = val
	f.Metadata = MetadataOf(m)
	return f
}

// MetadataOf is m as Arrow metadata, keys sorted (so equal maps give equal
// schemas).
func MetadataOf(m map[string]string) arrow.Metadata {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return arrow.NewMetadata(keys, vals)
}
