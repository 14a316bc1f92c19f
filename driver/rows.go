package driver

import (
	"database/sql/driver"
	"io"
	"log/slog"
	"reflect"

	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
)

// Rows reads one or more result sets (one per statement of a script that
// produced rows). Rows of table data stream: Next pulls them batch by batch
// from the planner's cursor, so memory does not grow with the result.
type Rows struct {
	sets   []*planner.Result
	stmts  []sqlparse.Statement // that produced each set, for errors while streaming
	cur    int
	cursor planner.RowCursor // of sets[cur]
	batch  [][]any           // current batch of the cursor
	next   int               // next row of batch
	err    error             // sticky error of the cursor (io.EOF at its end)
	log    *slog.Logger      // for panics recovered while streaming
	// failed records an error met while streaming as the statement's
	// error condition (SHOW ERRORS); nil: not recorded.
	failed func(error)
}

var (
	_ driver.Rows                           = (*Rows)(nil)
	_ driver.RowsNextResultSet              = (*Rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*Rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*Rows)(nil)
)

func newRows(sets []*planner.Result, stmts []sqlparse.Statement, log *slog.Logger) *Rows {
	if len(sets) == 0 {
		sets = []*planner.Result{{Columns: []planner.Column{}, Rows: [][]any{}}}
		stmts = []sqlparse.Statement{nil}
	}
	return &Rows{sets: sets, stmts: stmts, cursor: sets[0].Cursor(), log: log}
}

func (r *Rows) set() *planner.Result { return r.sets[r.cur] }

// Columns returns the column names of the current result set.
func (r *Rows) Columns() []string {
	cols := r.set().Columns
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// Close releases the rows: the current cursor and the result sets not read.
func (r *Rows) Close() error {
	var first error
	if r.cursor != nil {
		first = r.cursor.Close()
		r.cursor = nil
	}
	for _, s := range r.sets[r.cur+1:] {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.sets = r.sets[:r.cur+1]
	r.batch, r.next, r.err = nil, 0, io.EOF
	return first
}

// Next fills dest with the next row.
func (r *Rows) Next(dest []driver.Value) error {
	for r.next >= len(r.batch) {
		if err := r.fill(); err != nil {
			return err
		}
	}
	row := r.batch[r.next]
	r.next++
	for i := range dest {
		if i < len(row) {
			dest[i] = row[i]
		} else {
			dest[i] = nil
		}
	}
	return nil
}

// fill reads the next batch of the cursor (r.err: sticky, io.EOF at the
// end).
func (r *Rows) fill() error {
	if r.err != nil {
		return r.err
	}
	if r.cursor == nil {
		return io.EOF
	}
	r.batch, r.err = r.pull()
	r.next = 0
	if r.err != nil {
		r.batch = nil
		if r.err != io.EOF {
			if r.failed != nil {
				r.failed(r.err)
			}
			if st := r.stmts[r.cur]; st != nil {
				r.err = newError(r.err, st.Position(), st.Text())
			} else {
				r.err = errNoPos(r.err)
			}
		}
	}
	return r.err
}

// pull reads the next batch of the cursor. Rows of table data are decoded
// here, after the statement returned: a panic in that code becomes an
// Internal error naming the statement, like one under Exec.
func (r *Rows) pull() (batch [][]any, err error) {
	var pos sqlparse.Pos
	text := ""
	if st := r.stmts[r.cur]; st != nil {
		pos, text = st.Position(), st.Text()
	}
	defer recoverAsError(&err, r.log, pos, text)
	return r.cursor.Next()
}

// HasNextResultSet reports whether another result set follows.
func (r *Rows) HasNextResultSet() bool { return r.cur+1 < len(r.sets) }

// NextResultSet advances to the next result set.
func (r *Rows) NextResultSet() error {
	if !r.HasNextResultSet() {
		return io.EOF
	}
	if r.cursor != nil {
		r.cursor.Close()
	}
	r.cur++
	r.cursor = r.set().Cursor()
	r.batch, r.next, r.err = nil, 0, nil
	return nil
}

// ColumnTypeDatabaseTypeName returns the SQL type name: VARCHAR, BIGINT,
// BOOLEAN or DOUBLE.
func (r *Rows) ColumnTypeDatabaseTypeName(i int) string { return r.set().Columns[i].DatabaseType }

// ColumnTypeNullable reports whether the column may hold NULL.
func (r *Rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	return r.set().Columns[i].Nullable, true
}

// ColumnTypeScanType returns the Go type values scan into.
func (r *Rows) ColumnTypeScanType(i int) reflect.Type { return r.set().Columns[i].ScanType() }
