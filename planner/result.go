package planner

import (
	"database/sql"
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
	// scan is the scan type of a column of table data (see values.go);
	// nil: derived from DatabaseType.
	scan reflect.Type
}

// ScanType is the Go type a value of the column scans into. Catalog
// results (SHOW, information_schema) use string, int64, bool or float64, or
// their sql.Null* wrappers for nullable columns; columns of table data use
// the types listed in values.go (time.Time, []byte, uint64, ...).
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
// Columns (possibly with no Rows); the others have no Columns and report
// RowsAffected (0 for DDL, as MySQL does).
type Result struct {
	Columns []Column
	// Rows hold values of the Go types: string, int64, bool, float64, or nil
	// for NULL; rows of table data also time.Time, []byte and uint64.
	Rows         [][]any
	RowsAffected int64
	// LastInsertID is the first AUTO_INCREMENT value an INSERT assigned (0:
	// none), as MySQL's LAST_INSERT_ID().
	LastInsertID int64
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
