package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/sqlparse"
)

// Field metadata keys the planner writes and reads.
const (
	// CommentKey holds a column comment (field metadata) or a table or
	// namespace comment (property).
	CommentKey = "comment"
	// CharLengthKey holds the declared n of a VARCHAR(n) or CHAR(n) column
	// (the data is an unbounded Lance utf8 either way);
	// information_schema.columns reports it as VARCHAR(n).
	CharLengthKey = "lancecat:char_length"
)

// fieldForColumn maps a SQL column definition to the Arrow field stored in the
// Lance schema. JSON becomes large_binary tagged with the lance.json
// extension name, the way Lance (and so LanceDB) stores its JSON type.
func fieldForColumn(cd sqlparse.ColumnDef) (arrow.Field, error) {
	md := map[string]string{}
	var dt arrow.DataType
	switch {
	case cd.Type.Kind == sqlparse.KindJSON:
		dt = arrow.BinaryTypes.LargeBinary
		md[lanceschema.ArrowExtensionNameKey] = lanceschema.JSONExtensionName
	case cd.Type.Arrow != nil:
		dt = cd.Type.Arrow
	default:
		return arrow.Field{}, errorf(catalog.CodeUnsupported, "not supported: column type %s", cd.Type.SQL)
	}
	if cd.Comment != nil {
		md[CommentKey] = *cd.Comment
	}
	if cd.Type.CharLength > 0 {
		md[CharLengthKey] = strconv.Itoa(cd.Type.CharLength)
	}
	opts, err := columnOptionMeta(cd, arrow.Field{Name: cd.Name, Type: dt, Nullable: cd.Nullable, Metadata: metadataOf(md)})
	if err != nil {
		return arrow.Field{}, err
	}
	for k, v := range opts {
		md[k] = v
	}
	f := arrow.Field{Name: cd.Name, Type: dt, Nullable: cd.Nullable}
	if len(md) > 0 {
		f.Metadata = metadataOf(md)
	}
	return f, nil
}

func metadataOf(m map[string]string) arrow.Metadata {
	keys := make([]string, 0, len(m))
	vals := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		keys = append(keys, k)
		vals = append(vals, m[k])
	}
	return arrow.NewMetadata(keys, vals)
}

func fieldMeta(f arrow.Field, key string) (string, bool) {
	i := f.Metadata.FindKey(key)
	if i < 0 {
		return "", false
	}
	return f.Metadata.Values()[i], true
}

func withFieldMeta(f arrow.Field, key, val string) arrow.Field {
	m := map[string]string{}
	for i, k := range f.Metadata.Keys() {
		m[k] = f.Metadata.Values()[i]
	}
	m[key] = val
	f.Metadata = metadataOf(m)
	return f
}

// isJSONField reports whether f is Lance's JSON type (or Arrow's canonical
// JSON extension, which Lance reads as JSON too).
func isJSONField(f arrow.Field) bool {
	ext, _ := fieldMeta(f, lanceschema.ArrowExtensionNameKey)
	return ext == lanceschema.JSONExtensionName || ext == lanceschema.ArrowJSONExtensionName
}

// primaryKeyPosition returns the field's position in the unenforced primary
// key, if it is part of it.
func primaryKeyPosition(f arrow.Field) (int, bool) {
	if v, ok := fieldMeta(f, lanceschema.PrimaryKeyPositionKey); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, true
		}
		return -1, true
	}
	if v, ok := fieldMeta(f, lanceschema.PrimaryKeyKey); ok {
		switch strings.ToLower(v) {
		case "true", "1", "yes":
			return -1, true
		}
	}
	return 0, false
}

// primaryKeyOf lists the primary-key columns of schema in key order.
func primaryKeyOf(schema *arrow.Schema) []string {
	type pk struct {
		name string
		pos  int
	}
	var keys []pk
	for i, f := range schema.Fields() {
		pos, ok := primaryKeyPosition(f)
		if !ok {
			continue
		}
		if pos < 0 {
			pos = 1<<30 + i
		}
		keys = append(keys, pk{f.Name, pos})
	}
	for i := 1; i < len(keys); i++ { // insertion sort: stable and tiny
		for j := i; j > 0 && keys[j].pos < keys[j-1].pos; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}

// SQLType spells the type of a Lance/Arrow field for DESCRIBE, SHOW COLUMNS
// and SHOW CREATE TABLE. Types SQL can spell use their SQL name (the one
// CREATE TABLE accepts for the same Arrow type, so SHOW CREATE TABLE output
// re-creates the same schema); the others use an Arrow-like spelling that
// CREATE TABLE does not accept:
//
//	STRUCT<name TYPE, ...>, LIST<TYPE>, LARGE_LIST<TYPE>,
//	FIXED_SIZE_LIST<TYPE>[n] (item type other than FLOAT), LARGE_TEXT,
//	LARGE_BLOB, FIXED_SIZE_BINARY(n), FLOAT16, DECIMAL256(p,s),
//	DATE64, TIME32(p), DURATION(unit), TIMESTAMP(p) WITH TIME ZONE 'zone'
//	(a zone other than UTC), DICTIONARY<index, value>, NULL,
//	and as a last resort ARROW(<arrow type string>).
//
// A nullable child field of a nested type is printed as is; a child that is
// NOT NULL gets " NOT NULL" after its type.
func SQLType(f arrow.Field) string {
	if isJSONField(f) {
		return "JSON"
	}
	if n, ok := charLength(f); ok && f.Type.ID() == arrow.STRING {
		return fmt.Sprintf("VARCHAR(%d)", n)
	}
	return sqlTypeOf(f.Type)
}

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

func childType(f arrow.Field) string {
	s := SQLType(f)
	if !f.Nullable {
		s += " NOT NULL"
	}
	return s
}

func sqlTypeOf(dt arrow.DataType) string {
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
			return fmt.Sprintf("TIMESTAMP(%d) WITH TIME ZONE %s", p, quoteString(t.TimeZone))
		}
	case *arrow.DurationType:
		return fmt.Sprintf("DURATION(%s)", t.Unit)
	case *arrow.FixedSizeListType:
		if t.Elem().ID() == arrow.FLOAT32 && t.ElemField().Metadata.Len() == 0 {
			return fmt.Sprintf("VECTOR(%d)", t.Len())
		}
		return fmt.Sprintf("FIXED_SIZE_LIST<%s>[%d]", childType(t.ElemField()), t.Len())
	case *arrow.ListType:
		return "LIST<" + childType(t.ElemField()) + ">"
	case *arrow.LargeListType:
		return "LARGE_LIST<" + childType(t.ElemField()) + ">"
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = sqlparse.QuoteIdent(f.Name) + " " + childType(f)
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case *arrow.DictionaryType:
		return "DICTIONARY<" + sqlTypeOf(t.IndexType) + ", " + sqlTypeOf(t.ValueType) + ">"
	}
	return "ARROW(" + dt.String() + ")"
}

// dataTypeName is information_schema.columns.DATA_TYPE: the lower-case base
// type name without parameters ("bigint", "decimal", "struct").
func dataTypeName(f arrow.Field) string {
	s := SQLType(f)
	if i := strings.IndexAny(s, "(< "); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(s)
}

// numericPrecision is information_schema.columns.NUMERIC_PRECISION and
// NUMERIC_SCALE, as MySQL reports them (decimal digits of integer types, the
// declared precision and scale of decimals); nil, nil for other types. Schema
// tools (GORM's migrator) read them to decide whether a column must change.
func numericPrecision(dt arrow.DataType) (precision, scale any) {
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

// charLength returns the declared n of a VARCHAR(n) column (CharLengthKey).
func charLength(f arrow.Field) (int64, bool) {
	v, ok := fieldMeta(f, CharLengthKey)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// datetimePrecision is information_schema.columns.DATETIME_PRECISION: the
// fractional-second digits of timestamp and time columns, nil otherwise.
func datetimePrecision(dt arrow.DataType) any {
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

// quoteString renders s as a single-quoted SQL string literal.
func quoteString(s string) string { return sqlparse.QuoteString(s) }
