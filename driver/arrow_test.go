package driver_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	lancecat "github.com/lancecat/lancecat/driver"
)

// arrowQuery runs q through NewArrowFromConn on one connection of db and
// returns the values of every row (nil for null), and the schema.
func arrowQuery(t *testing.T, db *sql.DB, q string, args ...any) ([][]any, *arrow.Schema) {
	t.Helper()
	rows, schema, _ := arrowRead(t, db, q, args...)
	return rows, schema
}

// arrowRead is arrowQuery, also reporting whether the reader handed on the
// scan's batches (lancecat.PassesBatches).
func arrowRead(t *testing.T, db *sql.DB, q string, args ...any) ([][]any, *arrow.Schema, bool) {
	t.Helper()
	var passes bool
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var rows [][]any
	var schema *arrow.Schema
	err = conn.Raw(func(dc any) error {
		a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
		if err != nil {
			return err
		}
		rdr, err := a.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rdr.Release()
		schema = rdr.Schema()
		passes = lancecat.PassesBatches(rdr)
		for rdr.Next() {
			rec := rdr.RecordBatch()
			if !rec.Schema().Equal(schema) {
				return fmt.Errorf("batch schema %s, reader schema %s", rec.Schema(), schema)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				row := make([]any, rec.NumCols())
				for c := range row {
					if col := rec.Column(c); !col.IsNull(i) {
						row[c] = col.GetOneForMarshal(i)
					}
				}
				rows = append(rows, row)
			}
		}
		return rdr.Err()
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows, schema, passes
}

// sqlQuery is the same query through database/sql.
func sqlQuery(t *testing.T, db *sql.DB, q string, args ...any) [][]any {
	t.Helper()
	rs, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestArrowFromConn reads the same queries through the Arrow escape hatch
// and through database/sql: same rows, Arrow types from the driver's value
// types.
func TestArrowFromConn(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT NOT NULL, s TEXT, f DOUBLE, b BOOLEAN)")
	var vals []string
	for i := 0; i < 50; i++ {
		s := fmt.Sprintf("'row %d'", i)
		if i%7 == 0 {
			s = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, %d.5, %v)", i, s, i, i%2 == 0))
	}
	mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))

	got, schema := arrowQuery(t, db, "SELECT id, s, f, b FROM t WHERE id >= ? ORDER BY id", 10)
	wantTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Boolean}
	for i, f := range schema.Fields() {
		if !arrow.TypeEqual(f.Type, wantTypes[i]) {
			t.Fatalf("column %s is %s, want %s", f.Name, f.Type, wantTypes[i])
		}
	}
	want := sqlQuery(t, db, "SELECT id, s, f, b FROM t WHERE id >= ? ORDER BY id", 10)
	if len(got) != 40 || len(want) != 40 {
		t.Fatalf("arrow %d rows, database/sql %d rows, want 40", len(got), len(want))
	}
	for i := range want {
		for c := range want[i] {
			w := want[i][c]
			if w != nil && !(reflect.TypeOf(w) == reflect.TypeOf(got[i][c]) && w == got[i][c]) {
				t.Fatalf("row %d column %d: arrow %#v, database/sql %#v", i, c, got[i][c], w)
			}
			if w == nil && got[i][c] != nil {
				t.Fatalf("row %d column %d: arrow %#v, database/sql NULL", i, c, got[i][c])
			}
		}
	}

	// A materialized result (SHOW) reads the same way.
	tables, _ := arrowQuery(t, db, "SHOW TABLES")
	if len(tables) != 1 || tables[0][0] != "t" {
		t.Fatalf("SHOW TABLES through Arrow: %v", tables)
	}
}

func TestArrowFromConnErrors(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT)")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
		if err != nil {
			return err
		}
		if _, err := a.QueryContext(ctx, "SELECT id FROM t; SELECT id FROM t"); driverError(t, err).Code != catalog.CodeInvalidInput {
			t.Fatalf("two result sets: %v", err)
		}
		if _, err := a.QueryContext(ctx, "SELECT nope FROM t"); err == nil {
			t.Fatal("unknown column: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lancecat.NewArrowFromConn(nil); err == nil {
		t.Fatal("NewArrowFromConn(nil): no error")
	}
}

// TestRowsStream reads a data SELECT of several cursor batches in full and
// stops another one early: the connection is usable again after Close.
func TestRowsStream(t *testing.T) {
	db := openDB(t, "")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE t (id BIGINT NOT NULL)")
	for chunk := 0; chunk < 3; chunk++ {
		var vals []string
		for i := 0; i < 1000; i++ {
			vals = append(vals, fmt.Sprintf("(%d)", chunk*1000+i))
		}
		mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	rows := sqlQuery(t, db, "SELECT id FROM t")
	if len(rows) != 3000 {
		t.Fatalf("%d rows, want 3000", len(rows))
	}
	for i, r := range rows {
		if r[0] != int64(i) {
			t.Fatalf("row %d: %v", i, r[0])
		}
	}
	rs, err := db.Query("SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5 && rs.Next(); i++ {
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sqlQuery(t, db, "SELECT id FROM t ORDER BY id DESC LIMIT 2"); len(got) != 2 || got[0][0] != int64(2999) {
		t.Fatalf("after an early Close: %v", got)
	}
}

// TestArrowNativeTypes: stored types come back as they are (DECIMAL as
// decimal128, TIME as time64, VECTOR as fixed_size_list<float32>,
// DATETIME(3) as timestamp[ms]); computed columns keep the scan-type
// mapping (COUNT(*) is int64, a string expression utf8).
func TestArrowNativeTypes(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT NOT NULL, d DECIMAL(10,2), tm TIME, dt DATETIME(3), v VECTOR(2))")
	mustExec(t, db, "INSERT INTO t VALUES (1, 12.30, '01:02:03.000004', '2024-02-29 12:00:00.123', '[0.5,-1]'), (2, NULL, NULL, NULL, NULL)")
	got, schema := arrowQuery(t, db, "SELECT id, d, tm, dt, v FROM t ORDER BY id")
	want := []arrow.DataType{
		arrow.PrimitiveTypes.Int64,
		&arrow.Decimal128Type{Precision: 10, Scale: 2},
		arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Millisecond},
		arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32),
	}
	for i, f := range schema.Fields() {
		if !arrow.TypeEqual(f.Type, want[i]) {
			t.Errorf("column %s is %s, want %s", f.Name, f.Type, want[i])
		}
	}
	if len(got) != 2 || fmt.Sprint(got[0][1]) != "12.3" || got[0][2] != "01:02:03.000004" || fmt.Sprintf("%s", got[0][4]) != "[0.5,-1]" {
		t.Errorf("rows %v", got)
	}
	for c := 1; c < len(got[1]); c++ {
		if got[1][c] != nil {
			t.Errorf("row 2 column %d = %v, want NULL", c, got[1][c])
		}
	}
	_, schema = arrowQuery(t, db, "SELECT COUNT(*) AS n FROM t")
	if !arrow.TypeEqual(schema.Field(0).Type, arrow.PrimitiveTypes.Int64) {
		t.Errorf("COUNT(*) is %s, want int64", schema.Field(0).Type)
	}
}

// TestArrowPassesScanBatches: a SELECT of plain columns, filtered and
// limited, hands on the scan's record batches in their stored types (no
// row round trip) with the rows database/sql returns; ordered, aggregated
// and computed results are rebuilt from rows, in the same types.
func TestArrowPassesScanBatches(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT NOT NULL, s TEXT, d DECIMAL(10,2), v VECTOR(2), ts DATETIME(3))")
	for chunk := 0; chunk < 3; chunk++ { // three fragments
		var vals []string
		for i := chunk * 1000; i < chunk*1000+1000; i++ {
			s := fmt.Sprintf("'s%d'", i)
			if i%5 == 0 {
				s = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%d, %s, %d.%02d, '[%d,0.1]', '2024-01-01 00:00:%02d.%03d')", i, s, i, i%100, i, i%60, i%1000))
		}
		mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	stored := map[string]arrow.DataType{
		"id": arrow.PrimitiveTypes.Int64,
		"s":  arrow.BinaryTypes.String,
		"d":  &arrow.Decimal128Type{Precision: 10, Scale: 2},
		"v":  arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32),
		"ts": &arrow.TimestampType{Unit: arrow.Millisecond},
		"k":  arrow.PrimitiveTypes.Int64, // id AS k
	}
	for _, c := range []struct {
		q      string
		passes bool
	}{
		{"SELECT * FROM t", true},
		{"SELECT v, id AS k, d FROM t WHERE id % 7 = 3 AND s IS NOT NULL LIMIT 50 OFFSET 100", true},
		{"SELECT s, ts FROM t WHERE d > 1500 AND id < 2100", true},
		{"SELECT id, s FROM t LIMIT 5 OFFSET 1998", true},
		{"SELECT id FROM t WHERE id = -1", true},
		{"SELECT id, v, d FROM t WHERE id < 30 ORDER BY id DESC LIMIT 20", false},
		{"SELECT id + 1, d FROM t WHERE id < 10", false},
	} {
		got, schema, passes := arrowRead(t, db, c.q)
		if passes != c.passes {
			t.Errorf("%s: passes the scan's batches %v, want %v", c.q, passes, c.passes)
		}
		for _, f := range schema.Fields() {
			if want, ok := stored[f.Name]; ok && !arrow.TypeEqual(f.Type, want) {
				t.Errorf("%s: column %s is %s, stored %s", c.q, f.Name, f.Type, want)
			}
		}
		want := sqlQuery(t, db, c.q)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows through Arrow, %d through database/sql", c.q, len(got), len(want))
		}
		for i := range want {
			for j := range want[i] {
				if g, w := arrowText(got[i][j]), arrowText(want[i][j]); g != w && !sameNumber(g, w) {
					t.Fatalf("%s: row %d column %s: Arrow %s, database/sql %s", c.q, i, schema.Field(j).Name, g, w)
				}
			}
		}
	}
}

// arrowText spells a value of either read for comparison: a decimal or
// vector as its text, a time as a zoneless wall clock, a number as %v.
func arrowText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time: // arrow-go marshals a zoneless timestamp as its wall clock
		return x.UTC().Format("2006-01-02T15:04:05.999999999")
	case []any, []float32:
		b, _ := json.Marshal(x)
		return string(b)
	case json.RawMessage:
		return string(x)
	}
	return fmt.Sprint(v)
}

// sameNumber reports whether two texts are the same decimal number (a
// decimal's Arrow text drops trailing zeros).
func sameNumber(a, b string) bool {
	x, okA := new(big.Rat).SetString(a)
	y, okB := new(big.Rat).SetString(b)
	return okA && okB && x.Cmp(y) == 0
}

// TestArrowPassThroughCancel: cancelling the query's context while the
// scan's batches are handed on ends the reader with the context's error.
func TestArrowPassThroughCancel(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT NOT NULL)")
	for chunk := 0; chunk < 3; chunk++ { // three fragments: three batches at least
		var vals []string
		for i := 0; i < 100; i++ {
			vals = append(vals, fmt.Sprintf("(%d)", chunk*100+i))
		}
		mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = conn.Raw(func(dc any) error {
		a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
		if err != nil {
			return err
		}
		rdr, err := a.QueryContext(ctx, "SELECT id FROM t WHERE id >= 0")
		if err != nil {
			return err
		}
		defer rdr.Release()
		if !lancecat.PassesBatches(rdr) || !rdr.Next() {
			return fmt.Errorf("no first batch (passes %v): %v", lancecat.PassesBatches(rdr), rdr.Err())
		}
		cancel()
		for rdr.Next() {
		}
		return rdr.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v, want context.Canceled", err)
	}
}
