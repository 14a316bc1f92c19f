package planner

import (
	"database/sql"
	"errors"
	"github.com/apache/arrow-go/v18/arrow"
	"io"
	"iter"
	"reflect"
)

// Column describes one column of a result set.
type Column struct {
	// Name is the column label.
	Name string
	// DatabaseType is the SQL type name of the column as a database/sql
	// driver reports it: "VARCHAR", "BIGINT", "BOOLEAN", "DOUBLE".
	DatabaseType string
	// Nullable reports whether values may be NULL.
	Nullable bool
	// Field is the stored Arrow field of a column of table data, whose
	// values are its sqltypes Go values; a zero Field (Type nil) for other
	// columns (catalog results, computed values).
	Field arrow.Field
	// scan is the scan type of a column of table data (sqltypes.ScanType);
	// nil: derived from DatabaseType.
	scan reflect.Type
}

// ScanType is the Go type a value of the column scans into. Catalog
// results (SHOW, information_schema) use string, int64, bool or float64, or
// their sql.Null* wrappers for nullable columns; columns of table data use
// the types listed in package sqltypes (time.Time, []byte, uint64, ...).
func (c Column) ScanType() reflect.Type {
	if c.scan != nil {
		return c.scan
	}
	switch c.DatabaseType {
	case "BIGINT":
		if c.Nullable {
			return reflect.TypeOf(sql.NullInt64{})
		}
		return reflect.TypeOf(int64(0))
	case "BOOLEAN":
		if c.Nullable {
			return reflect.TypeOf(sql.NullBool{})
		}
		return reflect.TypeOf(false)
	case "DOUBLE":
		if c.Nullable {
			return reflect.TypeOf(sql.NullFloat64{})
		}
		return reflect.TypeOf(float64(0))
	default:
		if c.Nullable {
			return reflect.TypeOf(sql.NullString{})
		}
		return reflect.TypeOf("")
	}
}

// Result is the outcome of one statement. Statements that return rows have
// Columns (possibly with no rows); the others have no Columns and report
// RowsAffected (0 for DDL, as MySQL does).
//
// A result's rows are either materialized in Rows (SHOW, DESCRIBE,
// information_schema, aggregates) or streamed (SELECT over table data: the
// rows are read as the caller pulls them). Cursor reads both the same way;
// Collect materializes a streamed result.
type Result struct {
	Columns []Column
	// Rows hold values of the Go types: string, int64, bool, float64, or nil
	// for NULL; rows of table data also time.Time, []byte and uint64. Nil
	// for a streamed result until Collect.
	Rows         [][]any
	RowsAffected int64
	// LastInsertID is the first AUTO_INCREMENT value an INSERT assigned,
	// or when it assigned none the last row's explicit value (0: no
	// AUTO_INCREMENT column), as MySQL's OK packet carries it.
	LastInsertID int64
	// stream is the cursor of a streamed result (nil: materialized).
	stream RowCursor
	// batches, when set, opens the same rows as record batches in their
	// stored types (batches.go): Batches takes it instead of stream.
	batches func() BatchCursor
}

// RowCursor streams the rows of a result set in batches, as the consumer
// pulls them. A cursor is used by one goroutine.
type RowCursor interface {
	// Next returns the next rows (at least one) or io.EOF after the last.
	// The batch is valid until the next call.
	Next() ([][]any, error)
	// Close releases what the cursor holds (open files, buffered rows);
	// Next then returns io.EOF. Close is idempotent.
	Close() error
}

// Cursor returns the cursor of the result's rows: the stream of a streamed
// result (handed over once: the caller closes it) or a cursor over Rows.
func (r *Result) Cursor() RowCursor {
	if r.stream != nil {
		c := r.stream
		r.stream, r.batches = nil, nil
		return c
	}
	return &sliceCursor{rows: r.Rows}
}

// Streamed reports whether the rows are read lazily (Rows is nil until
// Collect).
func (r *Result) Streamed() bool { return r.stream != nil }

// Collect reads a streamed result to the end into Rows and closes its
// cursor; on a materialized result it does nothing.
func (r *Result) Collect() error {
	if r.stream == nil {
		return nil
	}
	c := r.Cursor()
	defer c.Close()
	rows := [][]any{}
	for {
		batch, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		rows = append(rows, batch...)
	}
	r.Rows = rows
	return nil
}

// Close releases a streamed result that will not be read.
func (r *Result) Close() error {
	if r.stream == nil {
		return nil
	}
	return r.Cursor().Close()
}

// sliceCursor is the cursor of a materialized result: one batch.
type sliceCursor struct {
	rows [][]any
	done bool
}

func (c *sliceCursor) Next() ([][]any, error) {
	if c.done || len(c.rows) == 0 {
		c.done = true
		return nil, io.EOF
	}
	c.done = true
	return c.rows, nil
}

func (c *sliceCursor) Close() error { c.done = true; return nil }

// pullCursor pulls batches from an iterator (iter.Pull2: no goroutine),
// skipping empty ones. An error ends the sequence. The row pipeline (B =
// [][]any) and the Arrow pass-through (B = arrow.RecordBatch) share it.
type pullCursor[B any] struct {
	next func() (B, error, bool)
	stop func()
	// skip reports an empty batch to pass over (and releases it if it must).
	skip func(B) bool
	err  error
}

func newPullCursor[B any](seq iter.Seq2[B, error], skip func(B) bool) pullCursor[B] {
	next, stop := iter.Pull2(seq)
	return pullCursor[B]{next: next, stop: stop, skip: skip}
}

func (c *pullCursor[B]) Next() (B, error) {
	var zero B
	if c.err != nil {
		return zero, c.err
	}
	for {
		batch, err, ok := c.next()
		switch {
		case !ok:
			c.err = io.EOF
		case err != nil:
			c.err = err
			c.stop()
		case c.skip(batch):
			continue
		default:
			return batch, nil
		}
		return zero, c.err
	}
}

func (c *pullCursor[B]) Close() error {
	c.stop()
	if c.err == nil {
		c.err = io.EOF
	}
	return nil
}

// seqCursor is a cursor over a row iterator, which yields batches until it
// ends or yields an error.
type seqCursor struct{ pullCursor[[][]any] }

func newSeqCursor(seq iter.Seq2[[][]any, error]) *seqCursor {
	return &seqCursor{newPullCursor(seq, func(b [][]any) bool { return len(b) == 0 })}
}

// streamResult is a streamed result reading seq.
func streamResult(cols []Column, seq iter.Seq2[[][]any, error]) *Result {
	return &Result{Columns: cols, stream: newSeqCursor(seq)}
}

// HasRows reports whether the statement produces a result set.
func (r *Result) HasRows() bool { return r != nil && r.Columns != nil }

func varchar(name string) Column { return Column{Name: name, DatabaseType: "VARCHAR"} }
func varcharNull(name string) Column {
	return Column{Name: name, DatabaseType: "VARCHAR", Nullable: true}
}
func bigint(name string) Column { return Column{Name: name, DatabaseType: "BIGINT"} }
func bigintNull(name string) Column {
	return Column{Name: name, DatabaseType: "BIGINT", Nullable: true}
}

func rowsResult(cols []Column, rows [][]any) *Result {
	if rows == nil {
		rows = [][]any{}
	}
	return &Result{Columns: cols, Rows: rows}
}

func okResult(n int64) *Result { return &Result{RowsAffected: n} }
