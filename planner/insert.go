package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// INSERT INTO [ns.]table [(col, ...)] VALUES (literal, ...), (...)
//
// appends the rows as one new fragment through dataset.Append (one Lance
// commit on the table's dataset). Columns left out of the column list, or
// given as DEFAULT, take the column's DEFAULT, or NULL (an error for a NOT
// NULL column); AUTO_INCREMENT columns get fresh values (see autoinc.go) and
// UNIQUE columns are checked (unique.go). Values are literals (placeholders
// are bound as literals by the driver), optionally signed, converted to the
// column's Arrow type by sqltypes.Append (its doc lists what each type
// takes; LIST and STRUCT take JSON text, JSON only NULL); a value that does
// not fit is an error naming the column and row, and nothing is written.
//
// INSERT cannot be part of a transaction: it commits to the table's dataset,
// not to the catalog's `__manifest`.

func (s *Session) insert(ctx context.Context, n *sqlparse.Insert) (*Result, error) {
	if n.Query != nil {
		// Exec turns the query into VALUES first (insertselect.go).
		return nil, errorf(catalog.CodeInternal, "INSERT ... SELECT reached insert unexpanded")
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
	if !n.Replace && !n.Ignore && len(n.OnDuplicate) == 0 {
		return s.appendInsert(ctx, id, ds, schema, n)
	}
	var lenient *lenientValues
	if n.Ignore {
		lenient = s.lenientFor(id)
	}
	b, fill, err := buildInsertRows(ctx, schema, n, lenient)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	fill.numbering.bulk = n.FromQuery
	return s.upsertRows(ctx, id, ds, schema, b, fill, n)
}

// buildInsertRows converts the VALUES rows of n to the columns of schema
// (DEFAULTs filled in, NOT NULL and each type's range checked), without
// writing anything; the caller releases the builder. Inside a transaction
// it also checks an INSERT deferred to COMMIT at statement time.
//
// lenient (INSERT IGNORE; nil otherwise) adjusts the values a column
// refuses, with their warnings (ignore.go).
func buildInsertRows(ctx context.Context, schema *arrow.Schema, n *sqlparse.Insert, lenient *lenientValues) (*array.RecordBuilder, *insertFill, error) {
	targets, value, err := insertValues(schema, n)
	if err != nil {
		return nil, nil, err
	}
	return buildRows(ctx, schema, targets, len(n.Rows), value, lenient)
}

// insertValues checks the shape of n's VALUES rows and returns the columns
// they give and their row r's k-th value (given false: DEFAULT).
func insertValues(schema *arrow.Schema, n *sqlparse.Insert) ([]int, func(r, k int) (any, bool, error), error) {
	targets, err := insertTargets(schema, n.Columns)
	if err != nil {
		return nil, nil, err
	}
	if len(n.Rows) == 0 {
		return nil, nil, errorf(catalog.CodeInvalidInput, "INSERT needs at least one row of VALUES")
	}
	for r, list := range n.Rows {
		if len(list) != len(targets) {
			return nil, nil, errorf(catalog.CodeInvalidInput, "row %d has %d values for %d columns", r+1, len(list), len(targets))
		}
	}
	return targets, func(r, k int) (any, bool, error) {
		e := n.Rows[r][k]
		if _, isDefault := e.(*sqlparse.Default); isDefault {
			return nil, false, nil
		}
		v, err := insertLiteral(e)
		return v, true, err
	}, nil
}

// insertTargets resolves INSERT's column list to positions in schema
// (every column in order without one).
func insertTargets(schema *arrow.Schema, list []*sqlparse.ColumnRef) ([]int, error) {
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = Column{Name: f.Name}
	}
	env := newRowEnv(cols)
	var targets []int
	if len(list) == 0 {
		for i := range cols {
			targets = append(targets, i)
		}
		return targets, nil
	}
	seen := map[int]bool{}
	for _, ref := range list {
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
	return targets, nil
}

// buildRows converts nrows rows to the columns of schema: value(r, k) is
// row r's k-th given value, for column targets[k] (given false: DEFAULT).
// Columns not in targets, and DEFAULT, take the column's DEFAULT (NULL
// without one); NOT NULL and each type's range are checked and nothing is
// written. The caller releases the builder.
func buildRows(ctx context.Context, schema *arrow.Schema, targets []int, nrows int, value func(r, k int) (any, bool, error), lenient *lenientValues) (*array.RecordBuilder, *insertFill, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	ok := false
	defer func() {
		if !ok {
			b.Release()
		}
	}()
	fill, err := newInsertFill(schema)
	if err != nil {
		return nil, nil, err
	}
	fill.lenient = lenient
	if err := checkInsertBytes(schema, nrows); err != nil {
		return nil, nil, err
	}
	for _, fb := range b.Fields() {
		reserveBuilder(fb, nrows)
	}
	slot := targetSlots(schema, targets)
	for r := 0; r < nrows; r++ {
		if r&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if _, err := fill.appendRow(b, schema, slot, r, value, false); err != nil {
			return nil, nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ok = true
	return b, fill, nil
}

// targetSlots maps each column of schema to k+1, k its position in
// targets (0: not given).
func targetSlots(schema *arrow.Schema, targets []int) []int {
	slot := make([]int, schema.NumFields())
	for k, i := range targets {
		slot[i] = k + 1
	}
	return slot
}

// appendRow appends row r (value(r, k) is its k-th given value, for the
// column slot maps to k+1) to b: omitted columns and DEFAULT take the
// column's DEFAULT (NULL without one), NOT NULL and each type's range are
// checked. The AUTO_INCREMENT value goes to fill.autoValues (appended to b
// later) unless skipAuto (the caller collected them before). It returns the
// bytes of the row's string and binary values, which fixedRowBytes does not
// count.
func (fill *insertFill) appendRow(b *array.RecordBuilder, schema *arrow.Schema, slot []int, r int, value func(r, k int) (any, bool, error), skipAuto bool) (int64, error) {
	var varBytes int64
	for i, f := range schema.Fields() {
		if skipAuto && i == fill.auto {
			continue
		}
		var v any
		given := false
		if k := slot[i]; k > 0 {
			var err error
			if v, given, err = value(r, k-1); err != nil {
				return 0, errorf(catalog.CodeInvalidInput, "row %d, column %s: %v", r+1, sqlparse.QuoteIdent(f.Name), err)
			}
			switch x := v.(type) {
			case string:
				varBytes += int64(len(x))
			case []byte:
				varBytes += int64(len(x))
			}
		}
		if fill.lenient != nil {
			fill.lenient.row = r + 1
		}
		if _, err := fill.appendValue(b.Field(i), f, i, given, v); err != nil {
			if errors.Is(err, errNoValue) {
				return 0, errorf(catalog.CodeInvalidInput, "row %d: column %s is NOT NULL and has no value", r+1, sqlparse.QuoteIdent(f.Name))
			}
			return 0, errorf(catalog.CodeInvalidInput, "row %d, column %s (%s): %v", r+1, sqlparse.QuoteIdent(f.Name), typeName(f), err)
		}
	}
	return varBytes, nil
}

// reserveBuilder reserves room for rows values in b, and in the items
// builder of a fixed-size list (a VECTOR), whose buffer otherwise grows by
// reallocation, value by value, keeping old and new copies alive.
func reserveBuilder(b array.Builder, rows int) {
	b.Reserve(rows)
	switch x := b.(type) {
	case *array.FixedSizeListBuilder:
		if t, ok := x.Type().(*arrow.FixedSizeListType); ok {
			reserveBuilder(x.ValueBuilder(), rows*int(t.Len()))
		}
	case *array.StructBuilder:
		for i := 0; i < x.NumField(); i++ {
			reserveBuilder(x.FieldBuilder(i), rows)
		}
	}
}

// MaxInsertBytes is the memory budget of one INSERT statement: the
// fixed-width part of its rows (a VECTOR(n) value is 4n bytes, NULL or
// not). Variable-width values are bounded by the statement's text
// (sqlparse.MaxStatementBytes).
const MaxInsertBytes = 256 << 20

// checkInsertBytes bounds the memory of a statement before any of its
// nrows rows is built: a NULL in a VECTOR(n) still takes 4n bytes.
func checkInsertBytes(schema *arrow.Schema, nrows int) error {
	fixed := fixedRowBytes(schema)
	if int64(nrows) > MaxInsertBytes/fixed {
		return errorf(catalog.CodeInvalidInput, "INSERT of %d rows of %d bytes each exceeds the limit of %d MiB per statement: split it into several statements", nrows, fixed, MaxInsertBytes>>20)
	}
	return nil
}

// fixedRowBytes is what one row of schema takes in its fixed-width buffers
// (at least one byte per leaf: validity and offsets are not free either).
func fixedRowBytes(schema *arrow.Schema) int64 {
	n := int64(1)
	for _, f := range schema.Fields() {
		n += fixedBytes(f.Type)
	}
	return n
}

func fixedBytes(dt arrow.DataType) int64 {
	switch t := dt.(type) {
	case *arrow.FixedSizeListType:
		return min(int64(t.Len())*fixedBytes(t.Elem()), 1<<40) // nested lists must not overflow
	case *arrow.StructType:
		var n int64
		for _, f := range t.Fields() {
			n = min(n+fixedBytes(f.Type), 1<<40)
		}
		return n + 1
	case arrow.FixedWidthDataType:
		return max(int64(t.BitWidth()/8), 1)
	}
	return 8 // offsets of a variable-width value
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
