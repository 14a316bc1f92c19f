package driver

import (
	"database/sql/driver"
	"io"
	"reflect"

	"github.com/lancecat/lancecat/planner"
)

// Rows is a materialized result: one or more result sets (one per
// statement of a script that produced rows).
type Rows struct {
	sets []*planner.Result
	cur  int
	next int // next row of sets[cur]
}

var (
	_ driver.Rows                           = (*Rows)(nil)
	_ driver.RowsNextResultSet              = (*Rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*Rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*Rows)(nil)
)

func newRows(sets []*planner.Result) *Rows {
	if len(sets) == 0 {
		sets = []*planner.Result{{Columns: []planner.Column{}, Rows: [][]any{}}}
	}
	return &Rows{sets: sets}
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

// Close releases the rows.
func (r *Rows) Close() error {
	r.sets = r.sets[:r.cur+1]
	r.next = len(r.set().Rows)
	return nil
}

// Next fills dest with the next row.
func (r *Rows) Next(dest []driver.Value) error {
	s := r.set()
	if r.next >= len(s.Rows) {
		return io.EOF
	}
	row := s.Rows[r.next]
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

// HasNextResultSet reports whether another result set follows.
func (r *Rows) HasNextResultSet() bool { return r.cur+1 < len(r.sets) }

// NextResultSet advances to the next result set.
func (r *Rows) NextResultSet() error {
	if !r.HasNextResultSet() {
		return io.EOF
	}
	r.cur++
	r.next = 0
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
