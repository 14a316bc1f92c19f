package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Arrow runs queries on one lancecat connection and returns their rows as
// Arrow record batches instead of database/sql rows, as go-duckdb's
// NewArrowFromConn does. Reach the connection through sql.Conn.Raw:
//
//	conn, _ := db.Conn(ctx)
//	defer conn.Close()
//	err := conn.Raw(func(dc any) error {
//		a, err := driver.NewArrowFromConn(dc.(sqldriver.Conn))
//		if err != nil {
//			return err
//		}
//		rdr, err := a.QueryContext(ctx, "SELECT id, s FROM t WHERE id > ?", 10)
//		if err != nil {
//			return err
//		}
//		defer rdr.Release()
//		for rdr.Next() {
//			use(rdr.RecordBatch())
//		}
//		return rdr.Err()
//	})
//
// The reader streams; read it inside Raw's function (the connection is not
// to be used once Raw returns). A SELECT of plain columns of one table,
// filtered by WHERE and cut by LIMIT/OFFSET (the common case), hands on the
// scan's record batches as they are decoded, in the stored Arrow types,
// converting no value (planner.Result.Batches). Other results (ORDER BY,
// aggregates, computed items, SHOW, information_schema) are rebuilt from
// the cursor database/sql rows use: a column of table data keeps its stored
// Arrow type (nativeType: decimal128, time64, timestamp with its unit and
// zone, fixed_size_list<float32> (VECTOR), and lists and structs of such
// types), its values put back by sqltypes.Append, which writes what
// sqltypes.Reader read unchanged; other columns (computed values, and
// stored types outside nativeType) follow their database/sql scan type:
// int64, uint64, float64, bool, timestamp[us, UTC], binary, else utf8.
type Arrow struct {
	c   *Conn
	mem memory.Allocator
}

// NewArrowFromConn returns the Arrow interface of a lancecat driver
// connection (the value sql.Conn.Raw passes).
func NewArrowFromConn(c driver.Conn) (*Arrow, error) {
	lc, ok := c.(*Conn)
	if !ok {
		return nil, invalidf("NewArrowFromConn: not a lancecat connection (%T)", c)
	}
	if err := lc.usable(); err != nil {
		return nil, err
	}
	return &Arrow{c: lc, mem: memory.DefaultAllocator}, nil
}

// QueryContext runs query, one statement that returns rows, with args
// bound as database/sql binds them, and returns a reader of its rows. The
// caller releases the reader.
func (a *Arrow) QueryContext(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	nvs := make([]driver.NamedValue, len(args))
	for i, v := range args {
		if n, ok := v.(sql.NamedArg); ok {
			nvs[i].Name, v = n.Name, n.Value
		}
		cv, err := driver.DefaultParameterConverter.ConvertValue(v)
		if err != nil {
			return nil, invalidf("argument $%d: %v", i+1, err)
		}
		nvs[i].Ordinal, nvs[i].Value = i+1, cv
		if err := a.c.CheckNamedValue(&nvs[i]); err != nil {
			return nil, err
		}
	}
	sets, stmts, _, err := a.c.run(ctx, query, nvs)
	if err != nil {
		return nil, err
	}
	if len(sets) != 1 {
		for _, s := range sets {
			s.Close()
		}
		return nil, invalidf("Arrow.QueryContext: the query returned %d result sets, want 1", len(sets))
	}
	log := a.c.connector.logger()
	if bc, ok := sets[0].Batches(); ok {
		r := &batchReader{refs: 1, cursor: bc, log: log}
		if st := stmts[0]; st != nil {
			r.pos, r.text = st.Position(), st.Text()
		}
		return r, nil
	}
	schema, conv, err := arrowSchema(sets[0].Columns)
	if err != nil {
		sets[0].Close()
		return nil, err
	}
	return &recordReader{refs: 1, schema: schema, conv: conv, mem: a.mem, rows: newRows(sets, stmts, log)}, nil
}

// appender appends one Go value (non-nil) of a result column to a builder.
type appender func(b array.Builder, v any) error

// arrowSchema maps result columns to Arrow fields by their scan type.
func arrowSchema(cols []planner.Column) (*arrow.Schema, []appender, error) {
	fields := make([]arrow.Field, len(cols))
	conv := make([]appender, len(cols))
	for i, c := range cols {
		if c.Field.Type != nil && nativeType(c.Field.Type) {
			f := arrow.Field{Name: c.Name, Type: c.Field.Type, Nullable: c.Nullable, Metadata: c.Field.Metadata}
			fields[i] = f
			conv[i] = func(b array.Builder, v any) error { return sqltypes.Append(b, f, v) }
			continue
		}
		t := c.ScanType()
		if t.Kind() == reflect.Struct && t.NumField() > 0 && t.Name() != "Time" { // sql.Null*
			t = t.Field(0).Type
		}
		var dt arrow.DataType
		switch t {
		case reflect.TypeOf(int64(0)):
			dt, conv[i] = arrow.PrimitiveTypes.Int64, appendAs[int64, *array.Int64Builder]("a BIGINT", nil)
		case reflect.TypeOf(uint64(0)):
			dt, conv[i] = arrow.PrimitiveTypes.Uint64, appendAs[uint64, *array.Uint64Builder]("an unsigned", nil)
		case reflect.TypeOf(float64(0)):
			dt, conv[i] = arrow.PrimitiveTypes.Float64, appendAs[float64, *array.Float64Builder]("a float", nil)
		case reflect.TypeOf(false):
			dt, conv[i] = arrow.FixedWidthTypes.Boolean, appendAs[bool, *array.BooleanBuilder]("a BOOLEAN", nil)
		case reflect.TypeOf(time.Time{}):
			dt = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
			conv[i] = appendAs[time.Time, *array.TimestampBuilder]("a time", func(t time.Time) arrow.Timestamp { return arrow.Timestamp(t.UnixMicro()) })
		case reflect.TypeOf([]byte(nil)):
			dt, conv[i] = arrow.BinaryTypes.Binary, appendAs[[]byte, *array.BinaryBuilder]("a binary", nil)
		default:
			dt = arrow.BinaryTypes.String
			conv[i] = func(b array.Builder, v any) error {
				if x, ok := v.(string); ok {
					b.(*array.StringBuilder).Append(x)
				} else {
					b.(*array.StringBuilder).Append(fmt.Sprint(v))
				}
				return nil
			}
		}
		fields[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: c.Nullable}
	}
	return arrow.NewSchema(fields, nil), conv, nil
}

// appendAs returns the appender of a column whose values are Go type T,
// appended to builder B as they are (to nil) or converted by to; what names
// the column's kind in the error for a value of another type.
func appendAs[T any, B interface{ Append(V) }, V any](what string, to func(T) V) appender {
	return func(b array.Builder, v any) error {
		x, ok := v.(T)
		if !ok {
			return fmt.Errorf("value %T in %s column", v, what)
		}
		if to == nil {
			b.(B).Append(any(x).(V))
		} else {
			b.(B).Append(to(x))
		}
		return nil
	}
}

// nativeType reports whether values of dt read by sqltypes.Reader append
// back to a dt builder with sqltypes.Append: the scalar types Append
// writes, and lists, large lists, fixed-size lists and structs of them
// (whose JSON text Append reads back leaf by leaf).
func nativeType(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float16Type, *arrow.Float32Type, *arrow.Float64Type, *arrow.StringType, *arrow.LargeStringType,
		*arrow.Decimal128Type, *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType,
		*arrow.Date32Type, *arrow.TimestampType, *arrow.Time64Type, *arrow.DurationType:
		return true
	case *arrow.FixedSizeListType:
		return nativeType(t.Elem())
	case *arrow.ListType:
		return nativeType(t.Elem())
	case *arrow.LargeListType:
		return nativeType(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if !nativeType(f.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// recordReader builds one record batch per cursor batch of the rows.
type recordReader struct {
	refs   int64
	schema *arrow.Schema
	conv   []appender
	mem    memory.Allocator
	rows   *Rows
	cur    arrow.RecordBatch
	err    error
}

var _ array.RecordReader = (*recordReader)(nil)

func (r *recordReader) Retain() { atomic.AddInt64(&r.refs, 1) }

func (r *recordReader) Release() {
	if atomic.AddInt64(&r.refs, -1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.rows.Close()
	}
}

func (r *recordReader) Schema() *arrow.Schema { return r.schema }

// Next reads the next batch of the cursor into a record batch.
func (r *recordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	rows := r.rows
	for rows.next >= len(rows.batch) {
		if rows.err != nil {
			return false
		}
		if err := rows.fill(); err != nil {
			if !errors.Is(err, io.EOF) {
				r.err = err
			}
			return false
		}
	}
	batch := rows.batch[rows.next:]
	rows.next = len(rows.batch)
	b := array.NewRecordBuilder(r.mem, r.schema)
	defer b.Release()
	for _, row := range batch {
		for c, conv := range r.conv {
			fb := b.Field(c)
			if c >= len(row) || row[c] == nil {
				fb.AppendNull()
				continue
			}
			if err := conv(fb, row[c]); err != nil {
				r.err = invalidf("column %s: %v", r.schema.Field(c).Name, err)
				return false
			}
		}
	}
	r.cur = b.NewRecordBatch()
	return true
}

func (r *recordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch (the older name arrow-go still requires).
func (r *recordReader) Record() arrow.RecordBatch { return r.cur }

func (r *recordReader) Err() error { return r.err }

// batchReader hands on the record batches of a result that can be read as
// the scan's batches (planner.Result.Batches: plain columns of one table,
// filtered and limited, not ordered or computed): no value is converted.
type batchReader struct {
	refs   int64
	cursor planner.BatchCursor
	pos    sqlparse.Pos // of the statement, for errors
	text   string
	log    *slog.Logger
	cur    arrow.RecordBatch
	err    error
	done   bool
}

var _ array.RecordReader = (*batchReader)(nil)

func (r *batchReader) Retain() { atomic.AddInt64(&r.refs, 1) }

func (r *batchReader) Release() {
	if atomic.AddInt64(&r.refs, -1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.cursor.Close()
	}
}

func (r *batchReader) Schema() *arrow.Schema { return r.cursor.Schema() }

// Next reads the next batch of the cursor.
func (r *batchReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.done {
		return false
	}
	b, err := r.pull()
	switch {
	case errors.Is(err, io.EOF):
		r.done = true
		return false
	case err != nil:
		r.err = newError(err, r.pos, r.text)
		return false
	}
	r.cur = b
	return true
}

// pull reads the next batch; a panic while reading becomes an Internal
// error naming the statement, as under Rows.Next.
func (r *batchReader) pull() (b arrow.RecordBatch, err error) {
	defer recoverAsError(&err, r.log, r.pos, r.text)
	return r.cursor.Next()
}

func (r *batchReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch (the older name arrow-go still requires).
func (r *batchReader) Record() arrow.RecordBatch { return r.cur }

func (r *batchReader) Err() error { return r.err }
