package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// INSERT INTO [ns.]table [(col, ...)] VALUES (literal, ...), (...)
//
// appends the rows as one new fragment through dataset.Append (one Lance
// commit on the table's dataset). Columns left out of the column list are
// NULL (an error for a NOT NULL column). Values are literals (placeholders
// are bound as literals by the driver), optionally signed, converted to the
// column's Arrow type; a value that does not fit is an error naming the
// column and row, and nothing is written:
//
//	BOOLEAN             TRUE, FALSE, 0, 1
//	integer types       integers in range
//	FLOAT, DOUBLE       numbers
//	DECIMAL(p,s)        numbers (exact digits, at most s fraction digits), numeric strings
//	TEXT                strings
//	BLOB, BINARY(n)     strings, X'..' literals (FIXED_SIZE_BINARY: exactly n bytes)
//	DATE                'YYYY-MM-DD'
//	DATETIME(p)         'YYYY-MM-DD[ HH:MM:SS[.fraction]]' (the wall clock)
//	TIMESTAMP(p)        the same, read as UTC, or RFC 3339 with a zone
//	TIME(p)             'HH:MM:SS[.fraction]'
//	VECTOR(n)           '[x, y, ...]' (JSON array of n numbers)
//
// JSON, LIST, STRUCT and other nested columns accept only NULL (JSON is
// stored as JSONB by Lance, which lancecat cannot encode yet).
//
// INSERT cannot be part of a transaction: it commits to the table's dataset,
// not to the catalog's `__manifest`.

func (s *Session) insert(ctx context.Context, n *sqlparse.Insert) (*Result, error) {
	switch {
	case n.Query != nil:
		return nil, errorf(catalog.CodeUnsupported, "not supported: INSERT ... SELECT")
	case len(n.OnDuplicate) > 0:
		return nil, errorf(catalog.CodeUnsupported, "not supported: INSERT ... ON DUPLICATE KEY UPDATE")
	}
	name := n.Table
	if len(name) >= 2 && strings.EqualFold(name[0], "information_schema") {
		return nil, errorf(catalog.CodeInvalidInput, "information_schema views are read-only")
	}
	id, ds, err := s.openTableData(ctx, name)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = Column{Name: f.Name}
	}
	env := newRowEnv(cols)
	var targets []int
	if len(n.Columns) == 0 {
		for i := range cols {
			targets = append(targets, i)
		}
	} else {
		seen := map[int]bool{}
		for _, ref := range n.Columns {
			i, err := env.column(ref)
			if err != nil {
				return nil, err
			}
			if seen[i] {
				return nil, errorf(catalog.CodeInvalidInput, "column %s given twice", sqlparse.QuoteIdent(schema.Field(i).Name))
			}
			seen[i] = true
			targets = append(targets, i)
		}
	}
	if len(n.Rows) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "INSERT needs at least one row of VALUES")
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for r, list := range n.Rows {
		if len(list) != len(targets) {
			return nil, errorf(catalog.CodeInvalidInput, "row %d has %d values for %d columns", r+1, len(list), len(targets))
		}
		given := make([]sqlparse.Expr, len(cols))
		for k, e := range list {
			given[targets[k]] = e
		}
		for i, f := range schema.Fields() {
			var v any
			if e := given[i]; e != nil {
				if _, isDefault := e.(*sqlparse.Default); !isDefault {
					if v, err = insertLiteral(e); err != nil {
						return nil, errorf(catalog.CodeInvalidInput, "row %d, column %s: %v", r+1, sqlparse.QuoteIdent(f.Name), err)
					}
				}
			}
			if v == nil && !f.Nullable {
				return nil, errorf(catalog.CodeInvalidInput, "row %d: column %s is NOT NULL and has no value", r+1, sqlparse.QuoteIdent(f.Name))
			}
			if err := appendValue(b.Field(i), f, v); err != nil {
				return nil, errorf(catalog.CodeInvalidInput, "row %d, column %s (%s): %v", r+1, sqlparse.QuoteIdent(f.Name), SQLType(f), err)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if _, err := ds.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		return nil, fmt.Errorf("insert into %s: %w", displayName(id), err)
	}
	return okResult(int64(len(n.Rows))), nil
}

// insertLiteral reads a value of VALUES: nil, int64, uint64, float64,
// sqlparse.Decimal (exact numeric text), string or []byte. TRUE and FALSE
// are the integers 1 and 0, as in MySQL.
func insertLiteral(e sqlparse.Expr) (any, error) {
	neg := false
	for {
		switch x := e.(type) {
		case *sqlparse.Paren:
			e = x.X
			continue
		case *sqlparse.Unary:
			switch x.Op {
			case sqlparse.OpNeg:
				neg = !neg
			case sqlparse.OpPlus:
			default:
				return nil, fmt.Errorf("not supported: %s (values must be literals)", e)
			}
			e = x.X
			continue
		}
		break
	}
	l, ok := e.(*sqlparse.Literal)
	if !ok {
		return nil, fmt.Errorf("not supported: %s (values must be literals)", e)
	}
	v := l.Value
	if b, ok := v.(bool); ok {
		v = int64(0)
		if b {
			v = int64(1)
		}
	}
	signErr := fmt.Errorf("a minus sign needs a number")
	switch x := v.(type) {
	case nil:
		if neg {
			return nil, signErr
		}
		return nil, nil
	case int64:
		if neg {
			if x == math.MinInt64 {
				return nil, fmt.Errorf("integer out of range")
			}
			return -x, nil
		}
		return x, nil
	case uint64:
		if neg {
			if x > 1<<63 {
				return nil, fmt.Errorf("integer -%d out of range", x)
			}
			return int64(-x), nil
		}
		return x, nil
	case float64:
		if neg {
			return -x, nil
		}
		return x, nil
	case sqlparse.Decimal:
		if neg {
			return "-" + x, nil
		}
		return x, nil
	case string:
		if neg {
			return nil, signErr
		}
		return x, nil
	case []byte:
		if neg {
			return nil, signErr
		}
		return x, nil
	}
	return nil, fmt.Errorf("not supported: literal of type %T", v)
}

func describeLiteral(v any) string {
	switch x := v.(type) {
	case string:
		return quoteString(x)
	case []byte:
		return fmt.Sprintf("X'%X'", x)
	case sqlparse.Decimal:
		return string(x)
	}
	return fmt.Sprint(v)
}

// appendValue appends v (nil: NULL) to the builder of field f.
func appendValue(fb array.Builder, f arrow.Field, v any) error {
	if v == nil {
		fb.AppendNull()
		return nil
	}
	mismatch := func(want string) error {
		return fmt.Errorf("%s is not %s", describeLiteral(v), want)
	}
	if isJSONField(f) {
		return fmt.Errorf("not supported: inserting JSON values (Lance stores JSONB, which lancecat cannot encode yet); only NULL")
	}
	switch b := fb.(type) {
	case *array.BooleanBuilder:
		i, ok := integerOf(v)
		if !ok || (i.Sign() != 0 && i.Cmp(big.NewInt(1)) != 0) {
			return mismatch("a boolean (TRUE, FALSE, 1, 0)")
		}
		b.Append(i.Sign() != 0)
	case *array.Int8Builder, *array.Int16Builder, *array.Int32Builder, *array.Int64Builder,
		*array.Uint8Builder, *array.Uint16Builder, *array.Uint32Builder, *array.Uint64Builder:
		i, ok := integerOf(v)
		if !ok {
			return mismatch("an integer")
		}
		return appendInteger(fb, i)
	case *array.Float16Builder:
		x, ok := floatOf(v)
		if !ok {
			return mismatch("a number")
		}
		b.Append(float16.New(float32(x)))
	case *array.Float32Builder:
		x, ok := floatOf(v)
		if !ok {
			return mismatch("a number")
		}
		if math.Abs(x) > math.MaxFloat32 {
			return fmt.Errorf("%s is out of the FLOAT range", describeLiteral(v))
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
		s, ok := v.(string)
		t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
		if !ok || err != nil {
			return mismatch("a date 'YYYY-MM-DD'")
		}
		b.Append(arrow.Date32FromTime(t))
	case *array.TimestampBuilder:
		s, ok := v.(string)
		if !ok {
			return mismatch("a date/time string")
		}
		t, ok := parseTimeLiteral(s)
		if !ok {
			return mismatch("a date/time 'YYYY-MM-DD HH:MM:SS[.fraction]'")
		}
		unit := f.Type.(*arrow.TimestampType).Unit
		ts, err := arrow.TimestampFromTime(t, unit)
		if err != nil {
			return err
		}
		if back := timestampValue(int64(ts), unit); !back.Equal(t) {
			return fmt.Errorf("%s has more fractional digits than %s keeps", describeLiteral(v), SQLType(f))
		}
		b.Append(ts)
	case *array.Time64Builder:
		s, ok := v.(string)
		nanos, err := parseTimeOfDay(s)
		if !ok || err != nil {
			return mismatch("a time 'HH:MM:SS[.fraction]'")
		}
		unit := f.Type.(*arrow.Time64Type).Unit
		if unit == arrow.Microsecond {
			if nanos%1000 != 0 {
				return fmt.Errorf("%s has more fractional digits than %s keeps", describeLiteral(v), SQLType(f))
			}
			nanos /= 1000
		}
		b.Append(arrow.Time64(nanos))
	case *array.FixedSizeListBuilder:
		t := f.Type.(*arrow.FixedSizeListType)
		vb, isFloat := b.ValueBuilder().(*array.Float32Builder)
		s, isString := v.(string)
		if !isFloat || !isString {
			return mismatch("a vector '[x, y, ...]'")
		}
		var xs []float64
		if err := json.Unmarshal([]byte(s), &xs); err != nil {
			return mismatch("a vector '[x, y, ...]' (JSON array of numbers)")
		}
		if len(xs) != int(t.Len()) {
			return fmt.Errorf("vector has %d elements, the column has %d", len(xs), t.Len())
		}
		b.Append(true)
		for _, x := range xs {
			vb.Append(float32(x))
		}
	default:
		return fmt.Errorf("not supported: inserting values into a column of type %s (only NULL)", SQLType(f))
	}
	return nil
}

func integerOf(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	}
	return nil, false
}

func appendInteger(fb array.Builder, i *big.Int) error {
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
	case sqlparse.Decimal:
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
	case sqlparse.Decimal:
		return string(x), true
	case string:
		s := strings.TrimSpace(x)
		if _, ok := new(big.Rat).SetString(s); ok && !strings.ContainsAny(s, "eE/") {
			return s, true
		}
	}
	return "", false
}

// decimalFromText converts plain decimal text to a decimal128 of the
// given precision and scale, refusing digits beyond the scale (no silent
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
