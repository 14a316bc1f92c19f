package planner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/sqlparse"
)

var dataSeq atomic.Int64

// newDataFixture is a session on a Lance-backed catalog in memory (real
// Lance datasets, so SELECT and INSERT run through lance/dataset).
func newDataFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	uri := fmt.Sprintf("memory://planner-data-%d/lake", dataSeq.Add(1))
	lc, err := manifest.OpenCatalog(context.Background(), uri, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = lc.Store.DeletePrefix(context.Background(), "")
		lc.Close()
	})
	opts.Store = lc.Store
	return &fixture{t: t, s: NewSession(lc.Catalog, opts)}
}

func (f *fixture) rows(sql string) [][]any {
	f.t.Helper()
	return f.exec(sql).Rows
}

func (f *fixture) fails(sql string, code catalog.Code, contains string) {
	f.t.Helper()
	_, err := f.try(sql)
	if err == nil {
		f.t.Fatalf("%s: no error", sql)
	}
	if c, _ := catalog.CodeOf(err); c != code || !strings.Contains(err.Error(), contains) {
		f.t.Fatalf("%s: got %v (code %v), want code %v containing %q", sql, err, c, code, contains)
	}
}

func ts(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestInsertSelectEveryType: INSERT converts SQL literals to every mapped
// type that accepts values, and SELECT returns them with the documented Go
// value, database type name and scan type.
func TestInsertSelectEveryType(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (
		id BIGINT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, u8 TINYINT UNSIGNED, u16 SMALLINT UNSIGNED,
		u32 INT UNSIGNED, u64 BIGINT UNSIGNED, f32 FLOAT, f64 DOUBLE, d DECIMAL(10,2), d38 DECIMAL(38,10), s VARCHAR(20),
		bin VARBINARY(8), day DATE, tm TIME(6), dt DATETIME(3), tsz TIMESTAMP(6), v VECTOR(3), j JSON, PRIMARY KEY (id))`)
	res := f.exec(`INSERT INTO s.t VALUES
		(1, TRUE, -128, -32768, -2147483648, 255, 65535, 4294967295, 18446744073709551615, 0.1, -2.5, -12.3, 1234567890123456789012345678.0123456789,
		 'héllo', X'00FF', '2024-02-29', '23:59:59.123456', '2024-01-02 03:04:05.678', '1969-12-31 23:59:59.999999', '[0.5, -1, 2]', NULL),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)
	if res.RowsAffected != 2 {
		t.Fatalf("RowsAffected %d", res.RowsAffected)
	}
	f.fails(`INSERT INTO s.t (id, j) VALUES (3, '{"a":')`, catalog.CodeInvalidInput, "MySQL error 3140")
	res = f.exec(`SELECT id, b, i8, i16, i32, u8, u16, u32, u64, f32, f64, d, d38, s, bin, day, tm, dt, tsz, v FROM s.t ORDER BY id`)
	want := []any{int64(1), true, int64(-128), int64(-32768), int64(-2147483648), int64(255), int64(65535), int64(4294967295),
		uint64(18446744073709551615), 0.1, -2.5, "-12.30", "1234567890123456789012345678.0123456789", "héllo", []byte{0, 0xff},
		ts("2024-02-29 00:00:00"), "23:59:59.123456", ts("2024-01-02 03:04:05.678"), ts("1969-12-31 23:59:59.999999"), "[0.5,-1,2]"}
	if len(res.Rows) != 2 || !reflect.DeepEqual(res.Rows[0], want) {
		t.Fatalf("row 1:\n got %#v\nwant %#v", res.Rows[0], want)
	}
	for i, v := range res.Rows[1] {
		if i > 0 && v != nil {
			t.Fatalf("row 2 column %s: %#v, want NULL", res.Columns[i].Name, v)
		}
	}
	wantTypes := []string{"BIGINT", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "TINYINT UNSIGNED", "SMALLINT UNSIGNED", "INT UNSIGNED",
		"BIGINT UNSIGNED", "FLOAT", "DOUBLE", "DECIMAL", "DECIMAL", "VARCHAR", "BLOB", "DATE", "TIME", "DATETIME", "TIMESTAMP", "VECTOR"}
	wantScan := []any{int64(0), sql.NullBool{}, sql.NullInt64{}, sql.NullInt64{}, sql.NullInt64{}, sql.NullInt64{}, sql.NullInt64{}, sql.NullInt64{},
		sql.Null[uint64]{}, sql.NullFloat64{}, sql.NullFloat64{}, sql.NullString{}, sql.NullString{}, sql.NullString{}, []byte(nil),
		sql.NullTime{}, sql.NullString{}, sql.NullTime{}, sql.NullTime{}, sql.NullString{}}
	for i, c := range res.Columns {
		if c.DatabaseType != wantTypes[i] || c.ScanType() != reflect.TypeOf(wantScan[i]) || c.Nullable != (i != 0) {
			t.Errorf("column %s: type %s scan %v nullable %v; want %s %v", c.Name, c.DatabaseType, c.ScanType(), c.Nullable, wantTypes[i], reflect.TypeOf(wantScan[i]))
		}
	}
	// Values scan into their scan types through database/sql's conversions.
	var u sql.Null[uint64]
	if err := u.Scan(res.Rows[0][8]); err != nil || u.V != 18446744073709551615 {
		t.Fatalf("uint64 scan: %v %v", u, err)
	}
	// JSON: stored as JSONB, read as MySQL's normalized text; SQL NULL and
	// JSON null apart.
	f.exec(`INSERT INTO s.t (id, j) VALUES (3, '{"b":[1, 2.0],"a":null}'), (4, 'null')`)
	res = f.exec(`SELECT id, j FROM s.t ORDER BY id`)
	wantJ := []any{nil, nil, `{"a": null, "b": [1, 2.0]}`, "null"}
	for i, r := range res.Rows {
		if r[1] != wantJ[i] {
			t.Errorf("JSON row %d: %#v, want %#v", i, r[1], wantJ[i])
		}
	}
	if c := res.Columns[1]; c.DatabaseType != "JSON" || c.ScanType() != reflect.TypeOf(sql.NullString{}) {
		t.Errorf("JSON column: type %s scan %v", c.DatabaseType, c.ScanType())
	}
}

// TestInsertErrors: type mismatches, ranges, NOT NULL and arity are
// reported with the row and column, and nothing is written.
func TestInsertErrors(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE t (id INT NOT NULL, s TEXT, d DECIMAL(5,2), u TINYINT UNSIGNED, day DATE, dt DATETIME, v VECTOR(2), fb BINARY(2))`)
	for _, c := range []struct{ sql, contains string }{
		{`INSERT INTO t (id, s) VALUES (1, 5)`, "row 1, column s (TEXT): 5 is not a string"},
		{`INSERT INTO t (id, s) VALUES (1, 'a'), ('x', 'b')`, "row 2, column id (INT): 'x' is not an integer"},
		{`INSERT INTO t (id, u) VALUES (1, 256)`, "256 is out of range [0, 255]"},
		{`INSERT INTO t (id, u) VALUES (1, -1)`, "-1 is out of range [0, 255]"},
		{`INSERT INTO t (id, d) VALUES (1, 1.234)`, "more than 2 fraction digits"},
		{`INSERT INTO t (id, d) VALUES (1, 1234.5)`, "does not fit DECIMAL(5,2)"},
		{`INSERT INTO t (id, d) VALUES (1, 1.5e0)`, "is not a decimal number"},
		{`INSERT INTO t (id, day) VALUES (1, '2024-13-01')`, "is not a date"},
		{`INSERT INTO t (id, v) VALUES (1, '[1,2,3]')`, "vector has 3 elements, the column has 2"},
		{`INSERT INTO t (s) VALUES ('no id')`, "column id is NOT NULL"},
		{`INSERT INTO t (id, s) VALUES (1)`, "row 1 has 1 values for 2 columns"},
		{`INSERT INTO t (id, nosuch) VALUES (1, 2)`, "unknown column"},
		{`INSERT INTO t (id, s) VALUES (1, CONCAT('a', 'b'))`, "values must be literals"},
	} {
		f.fails(c.sql, catalog.CodeInvalidInput, c.contains)
	}
	if res := f.exec(`INSERT INTO t SELECT * FROM t`); res.RowsAffected != 0 { // t is empty: nothing to copy
		t.Fatalf("INSERT ... SELECT from an empty table affected %d rows", res.RowsAffected)
	}
	f.fails(`INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE nope = 'x'`, catalog.CodeInvalidInput, "unknown column")
	f.fails(`REPLACE INTO t (nope) VALUES (1)`, catalog.CodeInvalidInput, "unknown column")
	f.fails(`INSERT INTO nosuch VALUES (1)`, catalog.CodeTableNotFound, "")
	if got := f.rows(`SELECT COUNT(*) FROM t`); got[0][0] != int64(0) {
		t.Fatalf("failed INSERTs wrote rows: %v", got)
	}
	// Inside a transaction INSERT applies at once (ROLLBACK cannot undo it),
	// except on a table the transaction creates (then at COMMIT: ROLLBACK
	// drops it; an INSERT ... SELECT there runs its query at once and is
	// deferred like VALUES), and it is refused in READ ONLY ones.
	f.exec(`BEGIN`)
	f.exec(`INSERT INTO t (id) VALUES (1)`)
	f.exec(`CREATE TABLE fresh (id INT)`)
	f.exec(`INSERT INTO fresh (id) VALUES (1)`)
	f.exec(`INSERT INTO fresh SELECT 2`)
	f.exec(`ROLLBACK`)
	if got := f.rows(`SHOW TABLES LIKE 'fresh'`); len(got) != 0 {
		t.Fatalf("ROLLBACK kept the created table: %v", got)
	}
	f.exec(`BEGIN`)
	f.exec(`CREATE TABLE fresh (id INT)`)
	f.exec(`INSERT INTO fresh (id) VALUES (3), (4)`)
	f.exec(`COMMIT`)
	if got := f.rows(`SELECT id FROM fresh`); len(got) != 2 || fmt.Sprint(got) != "[[3] [4]]" {
		t.Fatalf("INSERT deferred to COMMIT wrote %v, want rows 3 and 4", got)
	}
	f.exec(`START TRANSACTION READ ONLY`)
	f.fails(`INSERT INTO t (id) VALUES (2)`, catalog.CodeInvalidInput, "READ ONLY")
	f.exec(`ROLLBACK`)
	if got := f.rows(`SELECT id FROM t`); len(got) != 1 || got[0][0] != int64(1) {
		t.Fatalf("INSERT in a rolled-back transaction: %v", got)
	}
	f.exec(`DELETE FROM t`)
	// Declared tables have no data to append to.
	f.exec(`CALL declare_table('decl')`)
	f.fails(`INSERT INTO decl VALUES (1)`, catalog.CodeInvalidTableState, "declared")
	f.fails(`SELECT * FROM decl`, catalog.CodeInvalidTableState, "declared")
}

// whereTable is a small table for WHERE, ORDER BY and LIMIT tests.
func whereTable(t *testing.T, opts Options) *fixture {
	f := newDataFixture(t, opts)
	f.exec(`CREATE TABLE w (id INT NOT NULL, name VARCHAR(10), score DOUBLE, big BIGINT UNSIGNED, day DATE, flag BOOLEAN)`)
	// Three INSERTs: three fragments.
	f.exec(`INSERT INTO w VALUES (1, 'alpha', 1.5, 1, '2024-01-01', TRUE), (2, 'beta', NULL, 18446744073709551615, '2024-02-01', FALSE)`)
	f.exec(`INSERT INTO w VALUES (3, NULL, 3.5, 9223372036854775808, NULL, NULL), (4, 'alp_ha', -1, 0, '2023-12-31', TRUE)`)
	f.exec(`INSERT INTO w (id, name, score) VALUES (5, 'Alpha', 1.5), (6, '100%', 100)`)
	return f
}

func ids(t *testing.T, rows [][]any) []int64 {
	t.Helper()
	out := []int64{}
	for _, r := range rows {
		out = append(out, r[0].(int64))
	}
	return out
}

// TestSelectWhere: every supported predicate form over Arrow batches, with
// SQL NULL semantics.
func TestSelectWhere(t *testing.T) {
	f := whereTable(t, Options{})
	for _, c := range []struct {
		where string
		want  []int64
	}{
		{"id = 3", []int64{3}},
		{"3 = id", []int64{3}},
		{"id <> 3", []int64{1, 2, 4, 5, 6}},
		{"id != 3", []int64{1, 2, 4, 5, 6}},
		{"id < 3", []int64{1, 2}},
		{"id <= 3", []int64{1, 2, 3}},
		{"id > 4", []int64{5, 6}},
		{"id >= 4", []int64{4, 5, 6}},
		{"score = 1.5", []int64{1, 5}},
		{"score > 1", []int64{1, 3, 5, 6}},
		{"name = 'alpha'", []int64{1}},
		{"name < 'b'", []int64{1, 4, 5, 6}},
		{"name IN ('beta', 'alpha', NULL)", []int64{1, 2}},
		{"name NOT IN ('beta', 'alpha')", []int64{4, 5, 6}},
		{"id IN (1, 6)", []int64{1, 6}},
		{"id BETWEEN 2 AND 4", []int64{2, 3, 4}},
		{"id NOT BETWEEN 2 AND 4", []int64{1, 5, 6}},
		{"name IS NULL", []int64{3}},
		{"name IS NOT NULL", []int64{1, 2, 4, 5, 6}},
		{"score IS NULL", []int64{2}},
		{"name LIKE 'alp%'", []int64{1, 4}},
		{"name LIKE 'alp_ha'", []int64{4}},
		{`name LIKE 'alp\\_ha'`, []int64{4}},
		{"name LIKE '100!%' ESCAPE '!'", []int64{6}},
		{"name NOT LIKE '%a'", []int64{6}},
		{"id > 1 AND score > 1", []int64{3, 5, 6}},
		{"id = 1 OR name IS NULL", []int64{1, 3}},
		{"NOT (id > 2)", []int64{1, 2}},
		{"NOT (score > 1)", []int64{4}},
		{"(id = 1 OR id = 2) AND NOT name = 'beta'", []int64{1}},
		{"big = 18446744073709551615", []int64{2}},
		{"big > 9223372036854775807", []int64{2, 3}},
		{"big < 1", []int64{4}},
		{"day = '2024-01-01'", []int64{1}},
		{"day >= '2024-01-01'", []int64{1, 2}},
		{"day BETWEEN '2023-12-01' AND '2024-01-15'", []int64{1, 4}},
		{"flag", []int64{1, 4}},
		{"flag = FALSE", []int64{2}},
		{"flag IS NOT TRUE", []int64{2, 3, 5, 6}},
		{"score <=> NULL", []int64{2}},
		{"id = -1 XOR id = 2", []int64{2}},
		{"id IN (SELECT id FROM w WHERE id <= 2)", []int64{1, 2}},
		{"id NOT IN (SELECT id FROM w WHERE id > 2) AND EXISTS (SELECT 1 FROM w)", []int64{1, 2}},
		{"id = (SELECT MAX(id) FROM w)", []int64{6}},
		{"id + 1 = 2", []int64{1}},
		{"id * 2 - 1 >= 9 OR -id = -2", []int64{2, 5, 6}},
		{"id % 2 = 0 AND id DIV 2 <= 2", []int64{2, 4}},
		{"id / 4 = 0.5", []int64{2}},
		{"LOWER(name) = 'alpha'", []int64{1, 5}},
		{"name REGEXP '^a.p'", []int64{1, 4}},
		// A call beside a literal in arithmetic is no constant (it once
		// was, and evaluated on a nil row: index out of range).
		{"LENGTH(name) * -1 < id", []int64{1, 2, 4, 5, 6}},
		{"name NOT REGEXP 'a'", []int64{6}},
		{"SUBSTRING(name FROM 2 FOR 2) = 'lp'", []int64{1, 4, 5}},
		{"CASE WHEN score > 2 THEN 'hi' ELSE 'lo' END = 'hi'", []int64{3, 6}},
	} {
		got := ids(t, f.rows("SELECT id FROM w WHERE "+c.where))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("WHERE %s: got %v, want %v", c.where, got, c.want)
		}
	}
	for _, c := range []struct{ where, contains string }{
		{"SOUNDEX(name) = 'A410'", "in WHERE over table data"},
	} {
		f.fails("SELECT id FROM w WHERE "+c.where, catalog.CodeUnsupported, c.contains)
	}
	f.fails("SELECT id FROM w WHERE EXISTS (SELECT 1 FROM w AS x WHERE x.id = nosuch)", catalog.CodeInvalidInput, "unknown column nosuch in a subquery")
	f.fails("SELECT id FROM w WHERE nosuch = 1", catalog.CodeInvalidInput, "unknown column")
}

// TestSelectOrderLimitCount: ORDER BY (several keys, NULLs first), LIMIT
// and OFFSET with and without push-down, COUNT from metadata and by scan.
func TestSelectOrderLimitCount(t *testing.T) {
	f := whereTable(t, Options{})
	for _, c := range []struct {
		sql  string
		want []int64
	}{
		{"SELECT id FROM w", []int64{1, 2, 3, 4, 5, 6}},
		{"SELECT id FROM w LIMIT 2", []int64{1, 2}},
		{"SELECT id FROM w LIMIT 2 OFFSET 3", []int64{4, 5}},
		{"SELECT id FROM w LIMIT 3, 10", []int64{4, 5, 6}},
		{"SELECT id FROM w LIMIT 0", []int64{}},
		{"SELECT id FROM w LIMIT 5 OFFSET 10", []int64{}},
		{"SELECT id FROM w WHERE id > 1 LIMIT 2", []int64{2, 3}},
		{"SELECT id FROM w WHERE id > 1 LIMIT 2 OFFSET 2", []int64{4, 5}},
		{"SELECT id FROM w ORDER BY id DESC", []int64{6, 5, 4, 3, 2, 1}},
		{"SELECT id FROM w ORDER BY score, id DESC", []int64{2, 4, 5, 1, 3, 6}},
		{"SELECT id FROM w ORDER BY score DESC, id", []int64{6, 3, 1, 5, 4, 2}},
		{"SELECT id FROM w ORDER BY name LIMIT 3", []int64{3, 6, 5}},
		{"SELECT id AS k FROM w ORDER BY k DESC LIMIT 2", []int64{6, 5}},
		{"SELECT id, name FROM w ORDER BY 2 DESC LIMIT 1", []int64{2}},
		{"SELECT id FROM w WHERE flag ORDER BY day DESC LIMIT 1 OFFSET 1", []int64{4}},
		{"SELECT id FROM w ORDER BY big DESC LIMIT 2", []int64{2, 3}},
	} {
		if got := ids(t, f.rows(c.sql)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.sql, got, c.want)
		}
	}
	for _, c := range []struct {
		sql  string
		want int64
	}{
		{"SELECT COUNT(*) FROM w", 6},
		{"SELECT COUNT(*) FROM w WHERE score > 1", 4},
		{"SELECT COUNT(name) FROM w", 5},
		{"SELECT COUNT(1) AS n FROM w WHERE name IS NULL", 1},
	} {
		res := f.exec(c.sql)
		if len(res.Rows) != 1 || res.Rows[0][0] != c.want || res.Columns[0].DatabaseType != "BIGINT" {
			t.Errorf("%s: %v (%v), want %d", c.sql, res.Rows, res.Columns, c.want)
		}
	}
	res := f.exec("SELECT name AS n, 42, id FROM w WHERE id = 1")
	if !reflect.DeepEqual(res.Rows, [][]any{{"alpha", int64(42), int64(1)}}) || res.Columns[0].Name != "n" || res.Columns[1].Name != "42" {
		t.Fatalf("%v %v", res.Columns, res.Rows)
	}
	f.fails("SELECT APPROX_COUNT_DISTINCT(id) FROM w", catalog.CodeUnsupported, "APPROX_COUNT_DISTINCT")
	f.fails("SELECT COUNT(*), id FROM w", catalog.CodeInvalidInput, "neither aggregated nor named in GROUP BY")
	res = f.exec("SELECT id * 10 + 1 AS x, id / 2, score > 1 FROM w WHERE id = 3")
	if !reflect.DeepEqual(res.Rows, [][]any{{int64(31), 1.5, res.Rows[0][2]}}) || res.Columns[0].DatabaseType != "BIGINT" || res.Columns[1].DatabaseType != "DOUBLE" {
		t.Fatalf("computed items: %v %v", res.Columns, res.Rows)
	}
	if got := f.rows("SELECT UPPER(name), LENGTH(name) FROM w WHERE id = 1"); fmt.Sprint(got) != "[[ALPHA 5]]" {
		t.Errorf("SELECT UPPER(name), LENGTH(name): %v", got)
	}
	f.fails("SELECT id FROM w ORDER BY id + 1", catalog.CodeUnsupported, "ORDER BY id + 1")
	// Joins were refused here before the join engine (join_test.go); a
	// cross join of w with itself has 6 × 6 rows.
	if got := f.rows("SELECT COUNT(w.id) FROM w JOIN w AS x"); fmt.Sprint(got) != "[[36]]" {
		t.Errorf("self cross join: %v", got)
	}
	if got := f.rows("SELECT DISTINCT * FROM (SELECT score FROM w) AS s ORDER BY score"); fmt.Sprint(got) != "[[<nil>] [-1] [1.5] [3.5] [100]]" {
		t.Errorf("SELECT DISTINCT *: %v", got)
	}
	f.fails("SELECT DISTINCT name FROM w ORDER BY id", catalog.CodeInvalidInput, "not in the select list")
	// The table's own qualifier names the same column over the derived
	// table (DISTINCT *) and in the GROUP BY (DISTINCT columns).
	if got := f.rows("SELECT DISTINCT * FROM (SELECT score FROM w) AS s ORDER BY s.score DESC LIMIT 2"); fmt.Sprint(got) != "[[100] [3.5]]" {
		t.Errorf("SELECT DISTINCT * ORDER BY s.score: %v", got)
	}
	if got := f.rows("SELECT DISTINCT name FROM w WHERE id <= 2 ORDER BY w.name DESC"); fmt.Sprint(got) != "[[beta] [alpha]]" {
		t.Errorf("SELECT DISTINCT name ORDER BY w.name: %v", got)
	}
	if got := f.rows("SELECT DISTINCT w.name FROM w WHERE id <= 2 ORDER BY name"); fmt.Sprint(got) != "[[alpha] [beta]]" {
		t.Errorf("SELECT DISTINCT w.name ORDER BY name: %v", got)
	}
	f.fails("SELECT DISTINCT name FROM w ORDER BY w.id", catalog.CodeInvalidInput, "not in the select list")
	if got := f.rows("SELECT DISTINCT name AS n FROM w WHERE id <= 2 ORDER BY n"); fmt.Sprint(got) != "[[alpha] [beta]]" {
		t.Errorf("SELECT DISTINCT name: %v", got)
	}
}

// TestSelectMaxRows: with NoSpill, a full ORDER BY sorts within the sort
// budget (MaxRows) or fails; scans stream without a cap and ORDER BY ... LIMIT keeps only
// LIMIT+OFFSET rows (a top-k), so neither is bounded by it.
func TestSelectMaxRows(t *testing.T) {
	f := whereTable(t, Options{MaxRows: 4, NoSpill: true})
	f.fails("SELECT id FROM w ORDER BY id", catalog.CodeInvalidInput, "more than 4 rows")
	f.fails("SELECT id FROM w ORDER BY id LIMIT 3 OFFSET 2", catalog.CodeInvalidInput, "more than 4 rows")
	if got := ids(t, f.rows("SELECT id FROM w")); len(got) != 6 {
		t.Fatal(got)
	}
	if got := ids(t, f.rows("SELECT id FROM w ORDER BY id DESC LIMIT 2 OFFSET 1")); !reflect.DeepEqual(got, []int64{5, 4}) {
		t.Fatal(got)
	}
	if got := ids(t, f.rows("SELECT id FROM w LIMIT 4")); len(got) != 4 {
		t.Fatal(got)
	}
	if got := f.rows("SELECT COUNT(*) FROM w WHERE id > 0"); got[0][0] != int64(6) {
		t.Fatal(got)
	}
}

// TestExplainDataSelect: EXPLAIN shows the columns read, the filter, where
// LIMIT runs and which conjuncts an index could serve.
func TestExplainDataSelect(t *testing.T) {
	f := whereTable(t, Options{})
	explain := func(q string) string {
		var lines []string
		for _, r := range f.rows("EXPLAIN " + q) {
			lines = append(lines, r[0].(string))
		}
		return strings.Join(lines, "\n")
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT name FROM w LIMIT 2 OFFSET 1", "Project name\n  TableScan w (version 4): columns [name]; limit 2; offset 1 pushed down\n" +
			"    full scan of fragments [0 1 2]\n    estimated rows 2"},
		{"SELECT COUNT(*) FROM w", "Count from the manifest's fragment row counts (no data read)"},
		{"SELECT id FROM w WHERE name = 'a' AND score > 1 LIMIT 3",
			"Project id\n  Limit 3\n    Filter name = 'a' AND score > 1\n      TableScan w (version 4): columns [id, name, score]; stops after 3 matching rows\n" +
				"        full scan of fragments [0 1 2]\n        estimated rows 6\n" +
				"        not pushed: name = 'a' (no scalar index on name)\n        not pushed: score > 1 (no scalar index on score)"},
		{"SELECT id FROM w WHERE id IN (1, 2) OR name LIKE 'x%' ORDER BY day DESC",
			"Project id\n  Sort day DESC (in memory within 1000000 rows and 33554432 bytes, then sorted runs on disk)\n    Filter id IN (1,2) OR name LIKE 'x%'\n      TableScan w (version 4): columns [id, name, day]\n" +
				"        full scan of fragments [0 1 2]\n        estimated rows 6\n" +
				"        no conjunct of WHERE can use an index (column compared with a literal: =, <=>, <, <=, >, >=, IN, BETWEEN, IS NULL, LIKE 'prefix%', array_has_any/all)"},
		{"SELECT id FROM w WHERE id IN (1, 2) AND name LIKE 'x%'",
			"Project id\n  Filter id IN (1,2) AND name LIKE 'x%'\n    TableScan w (version 4): columns [id, name]\n" +
				"      full scan of fragments [0 1 2]\n      estimated rows 6\n" +
				"      not pushed: id IN (1, 2) (no scalar index on id)\n      not pushed: name LIKE prefix 'x' (no scalar index on name)"},
	} {
		if got := explain(c.sql); got != c.want {
			t.Errorf("EXPLAIN %s:\n got:\n%s\nwant:\n%s", c.sql, got, c.want)
		}
	}
}

// fakeIndex serves fixed index queries for predicates (by their text) and
// records what it was asked.
type fakeIndex struct {
	answers map[string]index.Query
	asked   []string
}

func (x *fakeIndex) Choose(_ *dataset.Dataset, p IndexPredicate) string {
	if _, ok := x.answers[p.String()]; ok {
		return "FAKE 'fake'"
	}
	return ""
}

func (x *fakeIndex) Serve(_ *dataset.Dataset, p IndexPredicate) (string, index.Query, bool) {
	x.asked = append(x.asked, p.String())
	q, ok := x.answers[p.String()]
	return "", q, ok
}

// TestIndexLookupHook: the planner asks the hook about indexable
// conjuncts, reads only the rows the served predicate selects, and still
// applies the WHERE.
func TestIndexLookupHook(t *testing.T) {
	ix := &fakeIndex{answers: map[string]index.Query{
		// A narrower predicate than the conjunct (id 1 is left out), so
		// that the result shows the scan used it; id > 1 then drops nothing
		// more, and WHERE is still applied.
		"id IN (3, 4, 1)": index.In(int64(3), int64(4)),
		"name = 'none'":   index.Eq("none"),
	}}
	f := whereTable(t, Options{Indexes: ix})
	if got := ids(t, f.rows("SELECT id FROM w WHERE id IN (3, 4, 1) AND id > 1")); !reflect.DeepEqual(got, []int64{3, 4}) {
		t.Fatalf("got %v", got)
	}
	if got := ids(t, f.rows("SELECT id FROM w WHERE id IN (3, 4, 1)")); !reflect.DeepEqual(got, []int64{3, 4}) {
		t.Fatalf("the served predicate did not narrow the scan: got %v", got)
	}
	if got := f.rows("SELECT COUNT(*) FROM w WHERE name = 'none'"); got[0][0] != int64(0) {
		t.Fatalf("got %v", got)
	}
	// Unserved predicates scan as usual.
	if got := ids(t, f.rows("SELECT id FROM w WHERE name LIKE 'al%'")); !reflect.DeepEqual(got, []int64{1, 4}) {
		t.Fatalf("got %v", got)
	}
	want := []string{"id IN (3, 4, 1)", "id > 1", "id IN (3, 4, 1)", "name = 'none'", "name LIKE prefix 'al'"}
	if !reflect.DeepEqual(ix.asked, want) {
		t.Fatalf("asked %q, want %q", ix.asked, want)
	}
}

// TestSelectSeesConcurrentAppend: each SELECT reads the latest version.
func TestSelectSeesLatestVersion(t *testing.T) {
	f := whereTable(t, Options{})
	st, err := sqlparse.Parse("SELECT COUNT(*) FROM w")
	if err != nil {
		t.Fatal(err)
	}
	f.exec("INSERT INTO w (id) VALUES (7)")
	res, err := f.s.Exec(context.Background(), st[0])
	if err != nil || res.Rows[0][0] != int64(7) {
		t.Fatalf("%v %v", res, err)
	}
	if _, err := NewSession(f.s.Catalog(), Options{}).Exec(context.Background(), st[0]); err == nil || !errors.Is(err, catalog.ErrUnsupported) && !strings.Contains(err.Error(), "Options.Store") {
		t.Fatalf("no store: %v", err)
	}
}

// TestTopKMatchesFullSort: ORDER BY ... LIMIT (a top-k heap) returns the
// slice of the full sort (with its tie order) for every LIMIT and OFFSET;
// results without ORDER BY stream.
func TestTopKMatchesFullSort(t *testing.T) {
	f := whereTable(t, Options{})
	for _, order := range []string{"score, name", "name DESC", "flag, day DESC", "big"} {
		all := ids(t, f.rows("SELECT id FROM w ORDER BY "+order))
		for limit := 0; limit <= 7; limit++ {
			for offset := 0; offset <= 7; offset++ {
				q := fmt.Sprintf("SELECT id FROM w ORDER BY %s LIMIT %d OFFSET %d", order, limit, offset)
				want := all[min(offset, len(all)):]
				want = want[:min(limit, len(want))]
				if got := ids(t, f.rows(q)); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
					t.Fatalf("%s: %v, want %v (full sort %v)", q, got, want, all)
				}
			}
		}
	}
	st, err := sqlparse.Parse("SELECT id FROM w WHERE id > 2")
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.s.Exec(context.Background(), st[0])
	if err != nil {
		t.Fatal(err)
	}
	if !res.Streamed() || res.Rows != nil {
		t.Fatal("a data SELECT without ORDER BY is materialized")
	}
	if err := res.Collect(); err != nil || len(res.Rows) != 4 {
		t.Fatalf("Collect: %v %v", res.Rows, err)
	}
}

// TestSortSpills: beyond the sort budget a full ORDER BY sorts runs on
// disk and merges them: the same rows as the in-memory sort, for every
// OFFSET and LIMIT, and no file left behind.
func TestSortSpills(t *testing.T) {
	mem := whereTable(t, Options{})
	dir := t.TempDir()
	spill := &fixture{t: t, s: NewSession(mem.s.Catalog(), Options{Store: mem.s.opts.Store, MaxRows: 2, SpillDir: dir})}
	byBytes := &fixture{t: t, s: NewSession(mem.s.Catalog(), Options{Store: mem.s.opts.Store, SortMemory: 300, SpillDir: dir})}
	for _, q := range []string{
		"SELECT id, name, day, big FROM w ORDER BY score, name",
		"SELECT * FROM w ORDER BY name DESC",
		"SELECT id FROM w ORDER BY flag, day DESC LIMIT 4 OFFSET 1",
		"SELECT id FROM w WHERE id > 1 ORDER BY big LIMIT 10",
		"SELECT id FROM w ORDER BY id LIMIT 1 OFFSET 5",
	} {
		want, got := mem.rows(q), spill.rows(q)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\nspilled   %v\nin memory %v", q, got, want)
		}
		if got := byBytes.rows(q); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (byte budget):\nspilled   %v\nin memory %v", q, got, want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("%s left %d files in the spill directory", q, len(ents))
		}
	}
	// A result closed before its end removes its runs too.
	st, err := sqlparse.Parse("SELECT id FROM w ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	res, err := spill.s.Exec(context.Background(), st[0])
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); !res.Streamed() || len(ents) == 0 {
		t.Fatalf("sorting 6 rows with a budget of 2 did not spill (%d files)", len(ents))
	}
	c := res.Cursor()
	if _, err := c.Next(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Close left %d files in the spill directory", len(ents))
	}
}
