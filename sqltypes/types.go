// Package sqltypes is lancecat's one mapping between SQL types, the Arrow
// types Lance stores, and the Go values database/sql carries:
//
//   - SQL -> Arrow: [Resolve] turns a parsed type declaration ([Decl], which
//     sqlparse fills from the TiDB parser's field type) into a [Type], and
//     [Type.Field] into the Arrow field (with its Lance field metadata) that
//     CREATE TABLE and ADD COLUMN store.
//   - Arrow -> SQL: [Name] spells a stored field's type as DESCRIBE, SHOW
//     CREATE TABLE and information_schema show it; [BaseName] is what
//     driver.Rows.ColumnTypeDatabaseTypeName reports.
//   - Go <-> Arrow: [Reader] converts one element of an Arrow array to its Go
//     value (result rows, WHERE evaluation), [Append] appends a Go value to a
//     builder (INSERT, UPDATE, defaults); what Reader returns, Append takes
//     back unchanged.
//   - JSON: a JSON column holds Lance's JSONB (subpackage jsonb, the
//     peer's bytes exactly); Reader prints it as MySQL 8's normalized text,
//     Append parses JSON text ([ParseJSON]: MySQL's error 3140 as a
//     [JSONError]).
//
// The package knows no SQL grammar and no catalog: it imports neither the
// TiDB parser nor sqlparse (which hands it a [Decl] and a [Quoting]).
//
// The type table (README "Types"):
//
//	SQL                                     Arrow (Lance)
//	BOOLEAN                                 bool
//	TINYINT / SMALLINT / INT / BIGINT       int8 / int16 / int32 / int64 (UNSIGNED: uint8..uint64)
//	FLOAT / DOUBLE                          float32 / float64
//	DECIMAL(p,s), p <= 38 (default 10,0)    decimal128(p, s)
//	CHAR / VARCHAR / TEXT                   utf8 (CHAR(n)/VARCHAR(n) keep n in field metadata)
//	BINARY / VARBINARY / BLOB               binary
//	DATE                                    date32
//	TIME[(p)]                               time64 (us for p <= 6, else ns)
//	DATETIME[(p)]                           timestamp without zone (s / ms / us / ns for p 0 / 1-3 / 4-6 / 7-9)
//	TIMESTAMP[(p)]                          timestamp with zone "UTC" (same units)
//	JSON                                    large_binary tagged lance.json (Lance's JSON type)
//	VECTOR(n), VECTOR<FLOAT>(n)             fixed_size_list<float32>[n]
//	MULTIVECTOR(n)                          list<fixed_size_list<float32>[n]> (Lance's multivector)
package sqltypes

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// MaxVectorDimension bounds n in VECTOR(n): a row of a VECTOR(n) column
// holds n float32 values (4n bytes) even when it is NULL.
const MaxVectorDimension = 65536

// CharLengthKey is the field metadata key holding the declared n of a
// VARCHAR(n) or CHAR(n) column (the data is an unbounded Lance utf8 either
// way); DESCRIBE and information_schema.columns report it as VARCHAR(n).
const CharLengthKey = "lancecat:char_length"

// Errors of Resolve, matchable with errors.Is: a declaration that is not a
// valid type, a valid type lancecat does not store, and a type beyond a
// documented limit (MaxVectorDimension).
var (
	ErrInvalidType     = errors.New("invalid type")
	ErrUnsupportedType = errors.New("unsupported type")
	ErrTypeLimit       = errors.New("type limit exceeded")
)

// Kind is the SQL family of a column type.
type Kind int

// The SQL type families.
const (
	KindBool Kind = iota + 1
	KindInt
	KindUint
	KindFloat
	KindDecimal
	KindString
	KindBinary
	KindDate
	KindTime
	KindDatetime  // timestamp without time zone
	KindTimestamp // timestamp with time zone "UTC"
	KindJSON      // large_binary tagged lance.json
	KindVector    // fixed_size_list<float32>[n]
	// KindMultiVector is a list of vectors per row (late interaction):
	// list<fixed_size_list<float32>[n]>, as LanceDB stores a multivector.
	KindMultiVector
)

var kindNames = map[Kind]string{
	KindBool: "BOOL", KindInt: "INT", KindUint: "UINT", KindFloat: "FLOAT", KindDecimal: "DECIMAL",
	KindString: "STRING", KindBinary: "BINARY", KindDate: "DATE", KindTime: "TIME",
	KindDatetime: "DATETIME", KindTimestamp: "TIMESTAMP", KindJSON: "JSON", KindVector: "VECTOR",
	KindMultiVector: "MULTIVECTOR",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "UNKNOWN"
}

// Type is a column's SQL type mapped to Arrow.
type Type struct {
	Kind  Kind
	Arrow arrow.DataType // the stored type (large_binary for KindJSON)
	SQL   string         // the type as spelled in the statement, e.g. "VARCHAR(255)", "BIGINT UNSIGNED"
	// CharLength is the declared n of CHAR(n) and VARCHAR(n); 0 for other
	// types. Lance strings are unbounded: it is kept only so schema tools
	// (GORM's migrator) read back the size they declared.
	CharLength int
}

// Metadata is the Lance field metadata the type needs: the lance.json
// extension name of JSON, the declared length of VARCHAR(n).
func (t Type) Metadata() map[string]string {
	md := map[string]string{}
	if t.Kind == KindJSON {
		md[lanceschema.ArrowExtensionNameKey] = lanceschema.JSONExtensionName
	}
	if t.CharLength > 0 {
		md[CharLengthKey] = strconv.Itoa(t.CharLength)
	}
	return md
}

// Field is the Arrow field of a column of this type, with its Metadata.
func (t Type) Field(name string, nullable bool) arrow.Field {
	f := arrow.Field{Name: name, Type: t.Arrow, Nullable: nullable}
	if md := t.Metadata(); len(md) > 0 {
		f.Metadata = MetadataOf(md)
	}
	return f
}

// Base is the base word of a declared type, as the parser recognized it.
type Base int

// The base types a declaration can name.
const (
	BaseBool        Base = iota + 1 // BOOL, BOOLEAN
	BaseTinyInt                     // TINYINT
	BaseSmallInt                    // SMALLINT
	BaseInt                         // MEDIUMINT, INT, INTEGER
	BaseBigInt                      // BIGINT, SERIAL
	BaseFloat                       // FLOAT, REAL when single
	BaseDouble                      // DOUBLE
	BaseDecimal                     // DECIMAL, NUMERIC
	BaseChar                        // CHAR(n), VARCHAR(n): Length is n
	BaseText                        // TEXT and its TINY/MEDIUM/LONG forms
	BaseBinary                      // BINARY, VARBINARY, BLOB and its forms
	BaseDate                        // DATE
	BaseTime                        // TIME
	BaseDatetime                    // DATETIME
	BaseTimestamp                   // TIMESTAMP
	BaseJSON                        // JSON
	BaseVector                      // VECTOR(n), VECTOR<FLOAT>(n)
	BaseMultiVector                 // MULTIVECTOR(n)
)

// Unspecified marks a length or decimals the declaration does not give.
const Unspecified = -1

// Decl is a parsed type declaration, as sqlparse hands it over.
type Decl struct {
	SQL      string // the type as spelled, for messages and Type.SQL
	Base     Base   // 0: a type lancecat does not know
	Unsigned bool
	// Length is n of CHAR(n), VARCHAR(n) and VECTOR(n) and the precision
	// of DECIMAL(p,s); Unspecified when not given.
	Length int
	// Decimals is the scale of DECIMAL(p,s) and the fractional-second
	// precision of TIME, DATETIME and TIMESTAMP; Unspecified when not given.
	Decimals int
}

// Resolve maps a declaration to its Type. Precision rules: TIME(p): p <= 6
// (or none) -> time64[us], 7..9 -> time64[ns]. DATETIME(p) and
// TIMESTAMP(p): p = 0 (or none) -> s, 1..3 -> ms, 4..6 -> us, 7..9 -> ns;
// DATETIME has no zone, TIMESTAMP has zone "UTC". DECIMAL defaults to
// (10,0); a precision above 38 is refused (decimal128). The error wraps
// ErrInvalidType, ErrUnsupportedType or ErrTypeLimit and its text starts
// with the type as declared.
func Resolve(d Decl) (Type, error) {
	sql := d.SQL
	unsupported := func() (Type, error) {
		return Type{}, fmt.Errorf("%w %s", ErrUnsupportedType, sql)
	}
	invalid := func(format string, args ...any) (Type, error) {
		return Type{}, &typeError{kind: ErrInvalidType, msg: fmt.Sprintf("invalid type %s: ", sql) + fmt.Sprintf(format, args...)}
	}
	typ := func(k Kind, dt arrow.DataType) (Type, error) { return Type{Kind: k, Arrow: dt, SQL: sql}, nil }
	intType := func(signed, uns arrow.DataType) (Type, error) {
		if d.Unsigned {
			return typ(KindUint, uns)
		}
		return typ(KindInt, signed)
	}
	switch d.Base {
	case BaseBool:
		return typ(KindBool, arrow.FixedWidthTypes.Boolean)
	case BaseTinyInt:
		return intType(arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint8)
	case BaseSmallInt:
		return intType(arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Uint16)
	case BaseInt:
		return intType(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint32)
	case BaseBigInt:
		return intType(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64)
	case BaseFloat, BaseDouble:
		if d.Unsigned {
			return unsupported()
		}
		if d.Base == BaseFloat {
			return typ(KindFloat, arrow.PrimitiveTypes.Float32)
		}
		return typ(KindFloat, arrow.PrimitiveTypes.Float64)
	case BaseDecimal:
		if d.Unsigned {
			return unsupported()
		}
		p, s := d.Length, d.Decimals
		if p == Unspecified {
			p = 10
		}
		if s == Unspecified {
			s = 0
		}
		switch {
		case p < 1:
			return invalid("precision must be at least 1")
		case p > 38:
			return Type{}, &typeError{kind: ErrUnsupportedType, msg: fmt.Sprintf("unsupported type %s: precision %d exceeds 38", sql, p)}
		case s > p:
			return invalid("scale %d exceeds precision %d", s, p)
		}
		return typ(KindDecimal, &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)})
	case BaseChar, BaseText:
		t := Type{Kind: KindString, Arrow: arrow.BinaryTypes.String, SQL: sql}
		if d.Base == BaseChar && d.Length > 0 {
			t.CharLength = d.Length
		}
		return t, nil
	case BaseBinary:
		return typ(KindBinary, arrow.BinaryTypes.Binary)
	case BaseDate:
		return typ(KindDate, arrow.FixedWidthTypes.Date32)
	case BaseTime:
		switch fsp := d.Decimals; {
		case fsp <= 6:
			return typ(KindTime, arrow.FixedWidthTypes.Time64us)
		case fsp <= 9:
			return typ(KindTime, arrow.FixedWidthTypes.Time64ns)
		default:
			return invalid("fractional seconds precision %d exceeds 9", fsp)
		}
	case BaseDatetime, BaseTimestamp:
		var unit arrow.TimeUnit
		switch fsp := d.Decimals; {
		case fsp <= 0:
			unit = arrow.Second
		case fsp <= 3:
			unit = arrow.Millisecond
		case fsp <= 6:
			unit = arrow.Microsecond
		case fsp <= 9:
			unit = arrow.Nanosecond
		default:
			return invalid("fractional seconds precision %d exceeds 9", fsp)
		}
		if d.Base == BaseTimestamp {
			return typ(KindTimestamp, &arrow.TimestampType{Unit: unit, TimeZone: "UTC"})
		}
		return typ(KindDatetime, &arrow.TimestampType{Unit: unit})
	case BaseJSON:
		return typ(KindJSON, arrow.BinaryTypes.LargeBinary)
	case BaseVector, BaseMultiVector:
		n := d.Length
		word := "VECTOR"
		if d.Base == BaseMultiVector {
			word = "MULTIVECTOR"
		}
		switch {
		case n == Unspecified:
			return invalid("%s needs a dimension, e.g. %s(128)", word, word)
		case n <= 0:
			return invalid("dimension must be positive")
		case n > MaxVectorDimension:
			return Type{}, &typeError{kind: ErrTypeLimit, msg: fmt.Sprintf("invalid type %s: dimension %d exceeds the limit of %d", sql, n, MaxVectorDimension)}
		}
		vec := arrow.FixedSizeListOf(int32(n), arrow.PrimitiveTypes.Float32)
		if d.Base == BaseMultiVector {
			return typ(KindMultiVector, arrow.ListOf(vec))
		}
		return typ(KindVector, vec)
	}
	return unsupported()
}

// typeError is an error of Resolve whose message is complete on its own.
type typeError struct {
	kind error
	msg  string
}

func (e *typeError) Error() string { return e.msg }
func (e *typeError) Unwrap() error { return e.kind }
