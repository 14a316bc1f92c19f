package planner

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Upserts:
//
//	INSERT INTO t ... VALUES ... ON DUPLICATE KEY UPDATE c = expr, ...   (expr may use VALUES(col))
//	REPLACE INTO t ... VALUES ...
//	INSERT IGNORE INTO t ... VALUES ...
//
// The keys are the table's PRIMARY KEY (Lance's unenforced primary key, all
// its columns together) and each UNIQUE column; a row whose key is NULL in
// some column matches nothing. Rows are applied in order, as MySQL does (a
// later row may update one an earlier row inserted). Affected rows are
// MySQL's: 1 per inserted row, 2 per updated row, 0 for a row left
// unchanged or ignored, and for REPLACE 1 plus the rows it deleted.
//
// The statement is one Lance version of the shape the reference's
// merge_insert writes: an Update (deletion files for the replaced rows, a
// new fragment with their new values and the inserted rows), or an Append
// when it only inserts. It commits on exactly the version it read (the
// decision which rows exist depends on all of it): a concurrent commit
// makes it read the latest version and decide again (up to
// upsertAttempts times, then ConcurrentModification), so two racing upserts
// of one key never both insert it.
//
// Lookup: a one-column integer or string key is found with `col IN (the
// statement's values)` through the DML scan (a scalar index on the column
// answers it); other keys scan their columns into a map (bounded by
// Options.MaxRows keys). Only the matched rows are read whole.

const upsertAttempts = 20

// upsertKey is one key: column positions.
type upsertKey []int

func upsertKeys(schema *arrow.Schema) []upsertKey {
	var keys []upsertKey
	if pk := primaryKeyOf(schema); len(pk) > 0 {
		var k upsertKey
		for _, name := range pk {
			if i := schema.FieldIndices(name); len(i) > 0 {
				k = append(k, i[0])
			}
		}
		keys = append(keys, k)
	}
	for i, f := range schema.Fields() {
		if isUnique(f) {
			if len(keys) > 0 && len(keys[0]) == 1 && keys[0][0] == i {
				continue
			}
			keys = append(keys, upsertKey{i})
		}
	}
	return keys
}

// keyString renders the key of vals, ok false when a key column is NULL.
func keyString(k upsertKey, ki int, vals []any) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", ki)
	for _, c := range k {
		v := vals[c]
		if v == nil {
			return "", false
		}
		if t, ok := v.(time.Time); ok {
			v = t.UTC().Format(time.RFC3339Nano)
		}
		fmt.Fprintf(&b, "\x00%T\x00%v", v, v)
	}
	return b.String(), true
}

// upsertRow is a row of the statement's view of the table.
type upsertRow struct {
	vals    []any
	addr    uint64 // row address of a stored row
	stored  bool
	changed bool
	deleted bool
}

func recordValues(schema *arrow.Schema, rec arrow.RecordBatch, ncols int) ([][]any, []uint64, error) {
	readers := make([]sqltypes.ValueReader, ncols)
	for c := 0; c < ncols; c++ {
		r, err := sqltypes.Reader(schema.Field(c), rec.Column(c))
		if err != nil {
			return nil, nil, err
		}
		readers[c] = r
	}
	addrs := rowAddresses(rec)
	rows := make([][]any, rec.NumRows())
	for i := range rows {
		row := make([]any, ncols)
		for c := range readers {
			v, err := readers[c](i)
			if err != nil {
				return nil, nil, err
			}
			row[c] = v
		}
		rows[i] = row
	}
	return rows, addrs, nil
}

// upsertRows applies the rows built in b (defaults and AUTO_INCREMENT
// filled) as REPLACE, IGNORE or ON DUPLICATE KEY UPDATE.
func (s *Session) upsertRows(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, schema *arrow.Schema, b *array.RecordBuilder, fill *insertFill, n *sqlparse.Insert) (*Result, error) {
	ds, first, _, err := fill.finishAuto(ctx, ds, b, schema)
	if err != nil {
		return nil, err
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	incoming, _, err := recordValues(schema, rec, schema.NumFields())
	if err != nil {
		return nil, err
	}
	// ON DUPLICATE KEY UPDATE: the columns, and VALUES(col) as a column of
	// the incoming row (positions after the table's).
	cols := make([]Column, 0, 2*schema.NumFields())
	for _, f := range schema.Fields() {
		cols = append(cols, Column{Name: f.Name})
	}
	for _, f := range schema.Fields() {
		cols = append(cols, Column{Name: valuesColumn(f.Name)})
	}
	env := newRowEnv(cols)
	env.session = s
	type assign struct {
		col  int
		expr sqlparse.Expr
	}
	var assigns []assign
	for _, a := range n.OnDuplicate {
		c, err := env.column(a.Column)
		if err != nil {
			return nil, err
		}
		if a.Column.Qualifier != nil && !strings.EqualFold(sqlparse.Name(a.Column.Qualifier).String(), id.Name()) {
			return nil, errorf(catalog.CodeUnsupported, "not supported: ON DUPLICATE KEY UPDATE of %s", a.Column)
		}
		e, err := replaceValuesCalls(a.Value)
		if err != nil {
			return nil, err
		}
		var badRef error
		sqlparse.Inspect(e, func(x sqlparse.Expr) bool {
			if ref, ok := x.(*sqlparse.ColumnRef); ok && ref.Qualifier != nil && !strings.EqualFold(ref.Qualifier[len(ref.Qualifier)-1], id.Name()) {
				badRef = errorf(catalog.CodeInvalidInput, "unknown column %s in ON DUPLICATE KEY UPDATE", ref)
			}
			return badRef == nil
		})
		if badRef != nil {
			return nil, badRef
		}
		if err := env.check(e); err != nil {
			return nil, err
		}
		assigns = append(assigns, assign{c, e})
	}
	keys := upsertKeys(schema)
	maxKeys := s.opts.MaxRows
	if maxKeys <= 0 {
		maxKeys = DefaultMaxRows
	}
	for attempt := 1; ; attempt++ {
		affected, records, deletes, err := s.planUpsert(ctx, ds, schema, keys, incoming, n, func(row, in []any) ([]any, error) {
			both := append(append(make([]any, 0, len(row)*2), row...), in...)
			out := append([]any(nil), row...)
			for _, a := range assigns {
				v, err := env.eval(a.expr, both)
				if err != nil {
					return nil, err
				}
				out[a.col] = v
				both[a.col] = v // MySQL: later assignments see earlier ones
			}
			return out, nil
		}, maxKeys)
		if err != nil {
			return nil, err
		}
		if records == nil && len(deletes) == 0 {
			return okResult(affected), nil
		}
		var recs []arrow.RecordBatch
		if records != nil {
			recs = []arrow.RecordBatch{records}
		}
		_, err = ds.Update(ctx, recs, deletes, dataset.RowChangeOptions{ExactBase: true})
		if records != nil {
			records.Release()
		}
		if err == nil {
			res := okResult(affected)
			if first > 0 {
				res.LastInsertID = int64(first)
			}
			return res, nil
		}
		if !errors.Is(err, dataset.ErrCommitConflict) || attempt >= upsertAttempts {
			return nil, versionErr(id, err)
		}
		if ds, err = ds.Latest(ctx); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
}

// planUpsert decides, against ds, what the statement writes: the affected
// row count, the rows to append and the row addresses to delete.
func (s *Session) planUpsert(ctx context.Context, ds *dataset.Dataset, schema *arrow.Schema, keys []upsertKey, incoming [][]any, n *sqlparse.Insert,
	update func(row, in []any) ([]any, error), maxKeys int) (int64, arrow.RecordBatch, []uint64, error) {
	// Stored keys: key string -> row address; rowsAt: the stored rows the
	// statement may touch, whole. A one-column integer or string key is
	// looked up with col IN (the statement's values), which a scalar index
	// on it answers (as DELETE's WHERE); other keys scan their columns.
	stored := map[string]uint64{}
	rowsAt := map[uint64]*upsertRow{}
	tableEnv := newRowEnv(columnsOf(schema))
	tableEnv.session = s
	want := map[uint64]bool{}
	for ki, k := range keys {
		if where := keyLookup(schema, k, incoming); where != nil {
			err := s.matchingRows(ctx, ds, schema, tableEnv, where, true, func(addr uint64, rec arrow.RecordBatch, i int) error {
				if _, ok := rowsAt[addr]; ok {
					return nil
				}
				one := rec.NewSlice(int64(i), int64(i+1))
				defer one.Release()
				rows, _, err := recordValues(schema, one, schema.NumFields())
				if err != nil {
					return err
				}
				rowsAt[addr] = &upsertRow{vals: rows[0], addr: addr, stored: true}
				return nil
			})
			if err != nil {
				return 0, nil, nil, err
			}
			continue
		}
		var cols []string
		for _, c := range k {
			cols = append(cols, schema.Field(c).Name)
		}
		sub := arrow.NewSchema(schemaFieldsNamed(schema, cols), nil)
		found := map[string]uint64{}
		err := ds.Scan(ctx, dataset.ScanOptions{Columns: cols, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
			rows, addrs, err := recordValues(sub, rec, len(cols))
			if err != nil {
				return err
			}
			full := make([]any, schema.NumFields())
			for i, r := range rows {
				for j, c := range k {
					full[c] = r[j]
				}
				if ks, ok := keyString(k, ki, full); ok {
					found[ks] = addrs[i]
				}
				if len(found) > maxKeys {
					return errorf(catalog.CodeInvalidInput, "upsert: the table has more than %d keys (planner.Options.MaxRows)", maxKeys)
				}
			}
			return nil
		})
		if err != nil {
			return 0, nil, nil, err
		}
		for _, in := range incoming {
			if ks, ok := keyString(k, ki, in); ok {
				if a, hit := found[ks]; hit {
					want[a] = true
				}
			}
		}
	}
	for a := range rowsAt {
		delete(want, a)
	}
	if len(want) > 0 {
		addrs := make([]uint64, 0, len(want))
		for a := range want {
			addrs = append(addrs, a)
		}
		rec, err := ds.Take(ctx, addrs, dataset.TakeOptions{WithRowAddress: true})
		if err != nil {
			return 0, nil, nil, err
		}
		rows, raddrs, err := recordValues(schema, rec, schema.NumFields())
		rec.Release()
		if err != nil {
			return 0, nil, nil, err
		}
		for i, r := range rows {
			rowsAt[raddrs[i]] = &upsertRow{vals: r, addr: raddrs[i], stored: true}
		}
	}
	for a, r := range rowsAt {
		for ki, k := range keys {
			if ks, ok := keyString(k, ki, r.vals); ok {
				stored[ks] = a
			}
		}
	}
	// The statement's view: key -> row (stored rows first, then its own).
	view := map[string]*upsertRow{}
	for ks, a := range stored {
		if r, ok := rowsAt[a]; ok {
			view[ks] = r
		}
	}
	var order []*upsertRow
	register := func(r *upsertRow) {
		for ki, k := range keys {
			if ks, ok := keyString(k, ki, r.vals); ok {
				view[ks] = r
			}
		}
	}
	unregister := func(r *upsertRow) {
		for ki, k := range keys {
			if ks, ok := keyString(k, ki, r.vals); ok && view[ks] == r {
				delete(view, ks)
			}
		}
	}
	conflicts := func(vals []any) []*upsertRow {
		var out []*upsertRow
		for ki, k := range keys {
			if ks, ok := keyString(k, ki, vals); ok {
				if r := view[ks]; r != nil && !r.deleted && !containsRow(out, r) {
					out = append(out, r)
				}
			}
		}
		return out
	}
	var affected int64
	for i, in := range incoming {
		if err := ctx.Err(); err != nil {
			return 0, nil, nil, err
		}
		hit := conflicts(in)
		switch {
		case len(hit) == 0:
			r := &upsertRow{vals: in, changed: true}
			register(r)
			order = append(order, r)
			affected++
		case n.Replace:
			for _, old := range hit {
				unregister(old)
				old.deleted = true
				affected++
			}
			r := &upsertRow{vals: in, changed: true}
			register(r)
			order = append(order, r)
			affected++
		case len(n.OnDuplicate) > 0:
			old := hit[0]
			nv, err := update(old.vals, in)
			if err != nil {
				return 0, nil, nil, errorf(catalog.CodeInvalidInput, "row %d: ON DUPLICATE KEY UPDATE: %v", i+1, err)
			}
			if reflect.DeepEqual(nv, old.vals) {
				continue // unchanged: 0 affected rows
			}
			unregister(old)
			for _, other := range conflicts(nv) {
				if other != old {
					register(old)
					return 0, nil, nil, errorf(catalog.CodeInvalidInput, "row %d: ON DUPLICATE KEY UPDATE makes a duplicate key", i+1)
				}
			}
			old.vals, old.changed = nv, true
			register(old)
			if !containsRow(order, old) {
				order = append(order, old)
			}
			affected += 2
		default: // INSERT IGNORE: the row is skipped, with MariaDB's warning
			for ki, k := range keys {
				if ks, ok := keyString(k, ki, in); ok && view[ks] != nil && !view[ks].deleted {
					s.warn(expr.LevelWarning, 1062, "%s", duplicateKeyMessage(schema, k, ki, in))
					break
				}
			}
		}
	}
	// What to write: stored rows deleted or changed are deleted; changed
	// and new rows are appended with their final values.
	var deletes []uint64
	for _, r := range rowsAt {
		if r.deleted || r.changed {
			deletes = append(deletes, r.addr)
		}
	}
	var out [][]any
	for _, r := range order {
		if !r.deleted && r.changed {
			out = append(out, r.vals)
		}
	}
	if len(out) == 0 {
		return affected, nil, deletes, nil
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for ri, row := range out {
		for c, f := range schema.Fields() {
			if row[c] == nil && !f.Nullable {
				return 0, nil, nil, errorf(catalog.CodeInvalidInput, "row %d: column %s is NOT NULL", ri+1, sqlparse.QuoteIdent(f.Name))
			}
			if err := sqltypes.Append(b.Field(c), f, row[c]); err != nil {
				return 0, nil, nil, errorf(catalog.CodeInvalidInput, "column %s: %v", sqlparse.QuoteIdent(f.Name), err)
			}
		}
	}
	return affected, b.NewRecordBatch(), deletes, nil
}

func containsRow(rows []*upsertRow, r *upsertRow) bool {
	for _, x := range rows {
		if x == r {
			return true
		}
	}
	return false
}

func schemaFieldsNamed(schema *arrow.Schema, names []string) []arrow.Field {
	out := make([]arrow.Field, len(names))
	for i, n := range names {
		out[i] = schema.Field(schema.FieldIndices(n)[0])
	}
	return out
}

// valuesColumn names the hidden column VALUES(col) reads.
func valuesColumn(name string) string { return "\x00values." + name }

// replaceValuesCalls returns e with every VALUES(col) replaced by a
// reference to the incoming row's column.
func replaceValuesCalls(e sqlparse.Expr) (sqlparse.Expr, error) {
	var err error
	sub := func(x sqlparse.Expr) sqlparse.Expr {
		fc, ok := x.(*sqlparse.FuncCall)
		if !ok || !strings.EqualFold(fc.Name, "values") {
			return x
		}
		if len(fc.Args) != 1 {
			err = errorf(catalog.CodeInvalidInput, "VALUES() takes one column")
			return x
		}
		ref, ok := fc.Args[0].(*sqlparse.ColumnRef)
		if !ok {
			err = errorf(catalog.CodeInvalidInput, "VALUES() takes a column name")
			return x
		}
		return &sqlparse.ColumnRef{Column: valuesColumn(ref.Column)}
	}
	e = sub(e)
	sqlparse.Inspect(e, func(x sqlparse.Expr) bool {
		switch n := x.(type) {
		case *sqlparse.Paren:
			n.X = sub(n.X)
		case *sqlparse.Unary:
			n.X = sub(n.X)
		case *sqlparse.Binary:
			n.L, n.R = sub(n.L), sub(n.R)
		case *sqlparse.IsNull:
			n.X = sub(n.X)
		case *sqlparse.Between:
			n.X, n.Lo, n.Hi = sub(n.X), sub(n.Lo), sub(n.Hi)
		case *sqlparse.InList:
			n.X = sub(n.X)
			for i := range n.List {
				n.List[i] = sub(n.List[i])
			}
		case *sqlparse.FuncCall:
			for i := range n.Args {
				n.Args[i] = sub(n.Args[i])
			}
		}
		return true
	})
	return e, err
}

func columnsOf(schema *arrow.Schema) []Column {
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = Column{Name: f.Name}
	}
	return cols
}

// keyLookup is `col IN (values)` for a one-column integer or string key
// (nil for other keys): the statement's non-NULL values of that column.
func keyLookup(schema *arrow.Schema, k upsertKey, incoming [][]any) sqlparse.Expr {
	if len(k) != 1 {
		return nil
	}
	c := k[0]
	switch schema.Field(c).Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.STRING:
	default:
		return nil
	}
	in := &sqlparse.InList{X: &sqlparse.ColumnRef{Column: schema.Field(c).Name}}
	for _, row := range incoming {
		switch v := row[c].(type) {
		case int64:
			in.List = append(in.List, &sqlparse.Literal{Kind: sqlparse.LitInt, Value: v})
		case string:
			in.List = append(in.List, &sqlparse.Literal{Kind: sqlparse.LitString, Value: v})
		case nil:
		default:
			return nil
		}
	}
	if len(in.List) == 0 {
		in.List = []sqlparse.Expr{&sqlparse.Literal{Kind: sqlparse.LitNull}}
	}
	return in
}
