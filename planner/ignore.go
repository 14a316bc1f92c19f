package planner

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqltypes"
)

// INSERT IGNORE and LOAD DATA ... IGNORE turn a value the column cannot
// take into the column's adjusted value and a warning, as MariaDB does
// (its IGNORE downgrades the errors of STRICT_TRANS_TABLES): NULL into a
// NOT NULL column is the type's zero (1048; 1364 for an omitted column
// without a default), an integer beyond the column's range its nearest
// bound (1264), text in a numeric column its leading number (1265, a Note
// when only spaces follow it) or 0 when it has none (1366). Other values a
// column refuses (a bad date, JSON) still fail the statement. Without
// IGNORE, nothing changes: a bad value fails the statement and writes
// nothing.

// lenientValues is what an IGNORE statement needs to adjust values: where
// its warnings go and the table's name for MariaDB's 1366 message.
type lenientValues struct {
	warn  func(level expr.Level, code int, format string, args ...any)
	table string // `schema`.`table`
	row   int    // the 1-based row being appended ("at row N")
	load  bool   // LOAD DATA: a NULL into NOT NULL is its 1263
}

// lenientFor is the lenientValues of an IGNORE statement on table id.
func (s *Session) lenientFor(id catalog.Ident) *lenientValues {
	return &lenientValues{warn: s.warnf, table: backquoted(schemaName(id[:len(id)-1])) + "." + backquoted(id[len(id)-1])}
}

// appendValue appends v to column i as appendColumn does; under IGNORE
// (fill.lenient set) a value the column refuses is adjusted, with its
// warning, and appended instead.
func (fill *insertFill) appendValue(fb array.Builder, f arrow.Field, i int, given bool, v any) (bool, error) {
	ok, err := fill.appendColumn(fb, f, i, given, v)
	if err == nil || fill.lenient == nil {
		return ok, err
	}
	adj, warned := fill.lenient.adjust(f, given, v, err)
	if !warned {
		return ok, err
	}
	if ok2, err2 := fill.appendColumn(fb, f, i, true, adj); err2 == nil {
		return ok2, nil
	}
	return ok, err
}

// adjust returns the value MariaDB stores under IGNORE for v, which column
// f refused with err, and raises its warning; warned is false when there
// is no such value (the statement fails).
func (l *lenientValues) adjust(f arrow.Field, given bool, v any, err error) (any, bool) {
	id := f.Type.ID()
	if errors.Is(err, errNoValue) {
		zero, ok := zeroValue(f.Type)
		if !ok {
			return nil, false
		}
		switch {
		case given && l.load:
			l.warn(expr.LevelWarning, 1263, "Column set to default value; NULL supplied to NOT NULL column '%s' at row %d", f.Name, l.row)
		case given:
			l.warn(expr.LevelWarning, 1048, "Column '%s' cannot be null", f.Name)
		default:
			l.warn(expr.LevelWarning, 1364, "Field '%s' doesn't have a default value", f.Name)
		}
		return zero, true
	}
	switch {
	case isIntegerID(id):
		n, ok := l.integerOf(f, v)
		if !ok {
			return nil, false
		}
		lo, hi := integerRange(id)
		switch {
		case n.Cmp(lo) < 0:
			n = lo
		case n.Cmp(hi) > 0:
			n = hi
		default:
			return intValue(n), true
		}
		l.warn(expr.LevelWarning, 1264, "Out of range value for column '%s' at row %d", f.Name, l.row)
		return intValue(n), true
	case id == arrow.FLOAT32 || id == arrow.FLOAT64:
		text, ok := textOf(v)
		if !ok {
			return nil, false
		}
		return l.leadingNumber(f, text, "double"), true
	}
	return nil, false
}

// spacedNumber raises MariaDB's Note 1265 for a number with trailing
// spaces that LOAD DATA read into a numeric column (which takes it).
func (l *lenientValues) spacedNumber(f arrow.Field, text string) {
	id := f.Type.ID()
	if !isIntegerID(id) && id != arrow.FLOAT32 && id != arrow.FLOAT64 {
		return
	}
	if level, bad := numericTextLevel(text); bad && level == expr.LevelNote {
		l.warn(expr.LevelNote, 1265, "Data truncated for column '%s' at row %d", f.Name, l.row)
	}
}

// integerOf reads v as an integer for column f: numbers rounded half away
// from zero (as MariaDB stores 1.5 as 2), text by its leading number with
// its warning.
func (l *lenientValues) integerOf(f arrow.Field, v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case float64:
		return roundToBig(x), true
	case sqltypes.Decimal:
		f, err := strconv.ParseFloat(string(x), 64)
		return roundToBig(f), err == nil
	}
	text, ok := textOf(v)
	if !ok {
		return nil, false
	}
	return roundToBig(l.leadingNumber(f, text, "integer")), true
}

// leadingNumber is text's leading number, with MariaDB's warning when text
// is more than a number: 1366 when it has none (the value is 0), else
// 1265.
func (l *lenientValues) leadingNumber(f arrow.Field, text, typ string) float64 {
	level, bad := numericTextLevel(text)
	if !bad {
		n, _ := strconv.ParseFloat(strings.TrimSpace(text), 64)
		return n
	}
	n := leadingNumber(text)
	if n == 0 && !hasDigit(text) {
		l.warn(expr.LevelWarning, 1366, "Incorrect %s value: '%s' for column %s.`%s` at row %d", typ, text, l.table, f.Name, l.row)
		return 0
	}
	l.warn(level, 1265, "Data truncated for column '%s' at row %d", f.Name, l.row)
	return n
}

// backquoted quotes a name as MariaDB's messages do, always.
func backquoted(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

func roundToBig(f float64) *big.Int {
	r := math.Round(f) // half away from zero, as MariaDB stores a fraction
	if math.IsInf(r, 0) || math.IsNaN(r) {
		r = math.Copysign(math.MaxFloat64, f)
	}
	n, _ := new(big.Float).SetFloat64(r).Int(nil)
	return n
}

func intValue(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return n.Uint64()
}

func isIntegerID(id arrow.Type) bool {
	switch id {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// integerRange is the range of an integer column type.
func integerRange(id arrow.Type) (lo, hi *big.Int) {
	switch id {
	case arrow.INT8:
		return big.NewInt(math.MinInt8), big.NewInt(math.MaxInt8)
	case arrow.INT16:
		return big.NewInt(math.MinInt16), big.NewInt(math.MaxInt16)
	case arrow.INT32:
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	case arrow.INT64:
		return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	case arrow.UINT8:
		return big.NewInt(0), big.NewInt(math.MaxUint8)
	case arrow.UINT16:
		return big.NewInt(0), big.NewInt(math.MaxUint16)
	case arrow.UINT32:
		return big.NewInt(0), big.NewInt(math.MaxUint32)
	}
	return big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)
}

// zeroValue is the value MariaDB stores for NULL in a NOT NULL column
// under IGNORE: 0, ” (ok false for types without one lancecat stores:
// MariaDB's zero date, JSON).
func zeroValue(t arrow.DataType) (any, bool) {
	id := t.ID()
	switch {
	case isIntegerID(id):
		return int64(0), true
	case id == arrow.FLOAT32 || id == arrow.FLOAT64:
		return float64(0), true
	case id == arrow.STRING || id == arrow.LARGE_STRING:
		return "", true
	case id == arrow.BINARY || id == arrow.LARGE_BINARY:
		return []byte{}, true
	case id == arrow.BOOL:
		return false, true
	case id == arrow.DECIMAL128 || id == arrow.DECIMAL256:
		return sqltypes.Decimal("0"), true
	}
	return nil, false
}

// duplicateKeyMessage is MariaDB's 1062 for a row INSERT IGNORE skips,
// whose key k (the ki-th of upsertKeys) is taken: the key's values joined
// by '-', the key named PRIMARY or by its column.
func duplicateKeyMessage(schema *arrow.Schema, k upsertKey, ki int, vals []any) string {
	name := schema.Field(k[0]).Name
	if ki == 0 && len(primaryKeyOf(schema)) > 0 {
		name = "PRIMARY"
	}
	parts := make([]string, len(k))
	for i, c := range k {
		parts[i] = toString(vals[c])
	}
	return fmt.Sprintf("Duplicate entry '%s' for key '%s'", strings.Join(parts, "-"), name)
}
