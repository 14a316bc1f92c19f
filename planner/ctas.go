package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// CREATE TABLE t [(declared columns, keys, indexes)] [AS] SELECT ...
//
// The query runs first, to the end (its rows held within MaxInsertBytes).
// The table's columns are the declared ones, then the query's columns not
// declared, in order, as in MySQL; a declared column named like a query
// column gives it its type. A query column of table data keeps its stored
// type, NOT NULL and DEFAULT (not AUTO_INCREMENT, UNIQUE or key membership,
// as MySQL); a computed column gets the type of its value (DECIMAL(p,s)
// wide enough for its values when the expression gives none).
//
// The rows are the table's first version: the table and its data are
// published in one catalog commit (catalog.CreateTableOptions.Batches), so
// no reader sees it empty and a failing statement leaves nothing. Inside a
// transaction the creation joins the transaction's atomic catalog commit,
// so `BEGIN; CREATE TABLE t_new AS SELECT ...; RENAME TABLE t TO t_old,
// t_new TO t; DROP TABLE t_old; COMMIT` swaps a table atomically.

// createTableAsSelect runs CREATE TABLE ... SELECT.
func (s *Session) createTableAsSelect(ctx context.Context, st *sqlparse.CreateTable) (*Result, error) {
	id, err := s.tableIdent(st.Name)
	if err != nil {
		return nil, err
	}
	if st.IfNotExists {
		if ok, err := s.tableExists(ctx, id); err != nil {
			return nil, err
		} else if ok {
			s.tableExistsNote(id)
			return okResult(0), nil
		}
	}
	p, err := s.planQuery(ctx, st.Query)
	if err != nil {
		return nil, err
	}
	res, err := p.run(ctx, s)
	if err != nil {
		return nil, err
	}
	rows, err := collectBounded(ctx, res, MaxInsertBytes)
	if err != nil {
		return nil, err
	}
	schema, targets, err := ctasSchema(st, res.Columns, rows, s.ctasTypes(ctx, st.Query, len(res.Columns)))
	if err != nil {
		return nil, err
	}
	schema, indexes, err := resolveIndexes(st, schema)
	if err != nil {
		return nil, err
	}
	b, _, err := buildRows(ctx, schema, targets, len(rows), func(r, k int) (any, bool, error) {
		return rows[r][k], true, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := newStatementKeys(enforcedKeys(schema)).add(schema, rec, 0, nil); err != nil {
		return nil, err
	}
	props := map[string]string{}
	if st.Comment != nil {
		props[CommentKey] = *st.Comment
	}
	opts := catalog.CreateTableOptions{Properties: props}
	if rec.NumRows() > 0 {
		opts.Batches = []arrow.RecordBatch{rec}
	}
	if s.tx != nil {
		// The batch writes the rows at COMMIT: it keeps the record (the
		// default allocator's memory is the Go heap's, so an unreleased
		// reference costs nothing once the transaction drops it).
		rec.Retain()
		s.tx.batch.CreateTable(id, schema, opts)
		if len(indexes) > 0 {
			s.tx.indexes = append(s.tx.indexes, pendingIndexes{id: id, defs: indexes})
		}
		return okResult(int64(len(rows))), nil
	}
	if _, err := s.cat.CreateTable(ctx, id, schema, opts); err != nil {
		return nil, err
	}
	if err := s.buildDeclaredIndexes(ctx, id, indexes); err != nil {
		return nil, fmt.Errorf("table %s was created with its rows, but its indices were not: %w", displayName(id), err)
	}
	return okResult(int64(len(rows))), nil
}

// ctasSchema is the schema of CREATE TABLE ... SELECT and, for each query
// column, its position in it.
// derived holds the types derived from the query's expressions (ctastype.go;
// nil: none).
func ctasSchema(st *sqlparse.CreateTable, cols []Column, rows [][]any, derived []ctasType) (*arrow.Schema, []int, error) {
	var fields []arrow.Field
	pos := map[string]int{}
	for _, cd := range st.Columns {
		if _, dup := pos[strings.ToLower(cd.Name)]; dup {
			return nil, nil, errorf(catalog.CodeInvalidInput, "duplicate column name %s", sqlparse.QuoteIdent(cd.Name))
		}
		f, err := fieldForColumn(cd)
		if err != nil {
			return nil, nil, err
		}
		pos[strings.ToLower(cd.Name)] = len(fields)
		fields = append(fields, f)
	}
	declared := len(fields)
	targets := make([]int, len(cols))
	for k, c := range cols {
		if c.Name == "" {
			return nil, nil, errorf(catalog.CodeInvalidInput, "column %d of the query has no name: give it an alias", k+1)
		}
		if i, ok := pos[strings.ToLower(c.Name)]; ok {
			if i >= declared {
				return nil, nil, errorf(catalog.CodeInvalidInput, "duplicate column name %s: give the query's columns distinct aliases", sqlparse.QuoteIdent(c.Name))
			}
			targets[k] = i
			continue
		}
		f, err := queryColumnField(c, k, rows)
		if err != nil {
			return nil, nil, err
		}
		if derived != nil {
			if df, ok := derived[k].field(c.Name); ok && c.Field.Type == nil {
				f = df
			}
			if derived[k].nullKnow {
				f.Nullable = derived[k].nullable || columnHasNull(rows, k)
			}
		}
		pos[strings.ToLower(c.Name)] = len(fields)
		targets[k] = len(fields)
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return nil, nil, errorf(catalog.CodeInvalidInput, "CREATE TABLE %s needs at least one column", sqlparse.Name(st.Name))
	}
	seen := map[string]bool{}
	for n, name := range st.PrimaryKey {
		i, ok := pos[strings.ToLower(name)]
		if !ok {
			return nil, nil, errorf(catalog.CodeInvalidInput, "primary key column %s is not a column of the table", sqlparse.QuoteIdent(name))
		}
		if seen[strings.ToLower(name)] {
			return nil, nil, errorf(catalog.CodeInvalidInput, "primary key column %s given twice", sqlparse.QuoteIdent(name))
		}
		seen[strings.ToLower(name)] = true
		f := fields[i]
		if _, isList := f.Type.(*arrow.FixedSizeListType); isList || sqltypes.IsJSON(f) {
			return nil, nil, errorf(catalog.CodeInvalidInput, "column %s of type %s cannot be part of the primary key", sqlparse.QuoteIdent(f.Name), typeName(f))
		}
		f.Nullable = false
		fields[i] = sqltypes.WithFieldMeta(f, lanceschema.PrimaryKeyPositionKey, itoa(n))
	}
	return arrow.NewSchema(fields, nil), targets, nil
}

func columnHasNull(rows [][]any, k int) bool {
	for _, r := range rows {
		if r[k] == nil {
			return true
		}
	}
	return false
}

// queryColumnField is the table column of query column k.
func queryColumnField(c Column, k int, rows [][]any) (arrow.Field, error) {
	hasNull := columnHasNull(rows, k)
	if c.Field.Type != nil {
		// A column of table data: its stored type, NOT NULL and DEFAULT.
		f := arrow.Field{Name: c.Name, Type: c.Field.Type, Nullable: c.Field.Nullable || hasNull}
		md := map[string]string{}
		for _, key := range []string{sqltypes.CharLengthKey, lanceschema.ArrowExtensionNameKey, lanceschema.ArrowExtensionMetadataKey, DefaultKey} {
			if v, ok := sqltypes.FieldMeta(c.Field, key); ok {
				md[key] = v
			}
		}
		if len(md) > 0 {
			f.Metadata = sqltypes.MetadataOf(md)
		}
		return f, nil
	}
	f := arrow.Field{Name: c.Name, Nullable: c.Nullable || hasNull}
	typ := strings.ToUpper(c.DatabaseType)
	switch {
	case typ == "BIGINT", typ == "INT", typ == "INTEGER":
		f.Type = arrow.PrimitiveTypes.Int64
	case typ == "BIGINT UNSIGNED":
		f.Type = arrow.PrimitiveTypes.Uint64
	case typ == "DOUBLE", typ == "FLOAT", typ == "REAL":
		f.Type = arrow.PrimitiveTypes.Float64
	case typ == "BOOLEAN", typ == "BOOL":
		f.Type = arrow.FixedWidthTypes.Boolean
	case strings.HasPrefix(typ, "DECIMAL"):
		p, s, ok := decimalTypeParams(typ)
		if !ok {
			p, s = decimalWidthOf(rows, k)
		}
		f.Type = &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}
	case typ == "DATE":
		f.Type = arrow.FixedWidthTypes.Date32
	case typ == "DATETIME", typ == "TIMESTAMP":
		unit := arrow.Second
		for _, r := range rows {
			if t, ok := r[k].(time.Time); ok && t.Nanosecond() != 0 {
				unit = arrow.Microsecond
				break
			}
		}
		tt := &arrow.TimestampType{Unit: unit}
		if typ == "TIMESTAMP" {
			tt.TimeZone = "UTC"
		}
		f.Type = tt
	case typ == "TIME":
		f.Type = arrow.FixedWidthTypes.Time64us
	case strings.HasPrefix(typ, "VARBINARY"), strings.HasPrefix(typ, "BINARY"), strings.HasSuffix(typ, "BLOB"):
		f.Type = arrow.BinaryTypes.Binary
	case typ == "JSON":
		// A computed JSON value (JSON_OBJECT, ->): a JSON column, as in MySQL.
		f.Type = arrow.BinaryTypes.LargeBinary
		f.Metadata = sqltypes.MetadataOf(map[string]string{lanceschema.ArrowExtensionNameKey: lanceschema.JSONExtensionName})
	default:
		// VARCHAR and every other computed value: its text.
		f.Type = arrow.BinaryTypes.String
	}
	return f, nil
}

// decimalTypeParams reads p and s of "DECIMAL(p,s)".
func decimalTypeParams(typ string) (int, int, bool) {
	open, end := strings.IndexByte(typ, '('), strings.IndexByte(typ, ')')
	if open < 0 || end < open {
		return 0, 0, false
	}
	parts := strings.Split(typ[open+1:end], ",")
	p, err := strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil || p < 1 || p > 38 {
		return 0, 0, false
	}
	s := 0
	if len(parts) == 2 {
		if s, err = strconv.Atoi(strings.TrimSpace(parts[1])); err != nil || s < 0 || s > p {
			return 0, 0, false
		}
	}
	return p, s, true
}

// decimalWidthOf is the narrowest DECIMAL(p,s) holding every value of
// column k (DECIMAL(10,0) for a column of NULLs), within decimal128's 38.
func decimalWidthOf(rows [][]any, k int) (int, int) {
	intDigits, scale := 1, 0
	for _, r := range rows {
		text, ok := r[k].(string)
		if !ok {
			if r[k] == nil {
				continue
			}
			text = toString(r[k])
		}
		text = strings.TrimLeft(text, "+-")
		whole, frac, _ := strings.Cut(text, ".")
		whole = strings.TrimLeft(whole, "0")
		intDigits = max(intDigits, len(whole))
		scale = max(scale, len(frac))
	}
	if len(rows) == 0 {
		return 10, 0
	}
	scale = min(scale, 30)
	return min(intDigits+scale, 38), scale
}
