package planner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lancecat/lancecat/catalog"
)

// writeParquet writes columns (Name, Code as int64 / string / float64 slices, nil entries
// NULL) as a Parquet file with row groups of two rows.
func writeParquet(t *testing.T, path string, ids []any, names []any, scores []any) {
	t.Helper()
	writeParquetGroups(t, path, ids, names, scores, 2)
}

// writeParquetGroups is writeParquet with row groups of groupRows rows.
func writeParquetGroups(t *testing.T, path string, ids []any, names []any, scores []any, groupRows int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ID", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "unused", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range ids {
		if ids[i] == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(ids[i].(int64))
		}
		if names[i] == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(names[i].(string))
		}
		b.Field(2).(*array.Int32Builder).Append(int32(i))
		if scores[i] == nil {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(scores[i].(float64))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(groupRows)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImportIntoCSV: IMPORT INTO reads every CSV file a glob matches (TiDB's CSV defaults:
// comma, double quotes, \N, "\r\n" or "\n"; skip_rows per file) into one Append version,
// fills AUTO_INCREMENT and SET as LOAD DATA; it refuses a table holding rows, job options
// and object-store URIs; a bad value names the file, line and column and commits nothing.
func TestImportIntoCSV(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE t (id BIGINT AUTO_INCREMENT, name VARCHAR(20), n INT, PRIMARY KEY (id))")
	write("part1.csv", "name,n\r\n\"a, quoted\",1\r\nb,\\N\r\n")
	write("part2.csv", "name,n\nc,3\n")
	write("other.txt", "not,csv\n")
	res := f.exec(`IMPORT INTO t (name, @n) SET n = @n * 2 FROM 'part*.csv' WITH skip_rows=1`)
	if res.RowsAffected != 3 {
		t.Fatalf("IMPORT INTO: %d rows", res.RowsAffected)
	}
	if got := rowsText(f.rows("SELECT id, name, n FROM t ORDER BY id")); got != "1|a, quoted|2\n2|b|NULL\n3|c|6\n" {
		t.Fatalf("rows:\n%s", got)
	}
	versions := f.rows("SHOW VERSIONS FROM t")
	if last := versions[len(versions)-1]; last[2] != "Append" || versions[len(versions)-2][2] == "Append" {
		t.Fatalf("versions %v: want one Append", versions)
	}
	f.fails(`IMPORT INTO t FROM 'part1.csv'`, catalog.CodeInvalidInput, "needs an empty table")
	f.exec("CREATE TABLE u (a INT NOT NULL, b VARCHAR(5))")
	write("u1.csv", "1|x\n")
	write("u2.csv", "2|y\nthree|z\n")
	f.fails(`IMPORT INTO u FROM 'u*.csv' WITH fields_terminated_by='|'`, catalog.CodeInvalidInput, "file 'u2.csv', line 2, column 1")
	if n := len(f.rows("SELECT a FROM u")); n != 0 || versionCount(f, "u") != 1 {
		t.Fatalf("a failed IMPORT INTO left %d rows, %d versions", n, versionCount(f, "u"))
	}
	f.fails(`IMPORT INTO u FROM 'u1.csv' WITH detached`, catalog.CodeUnsupported, "detached")
	f.fails(`IMPORT INTO u FROM 's3://bucket/u1.csv'`, catalog.CodePermissionDenied, "set the import_sources option")
	f.fails(`IMPORT INTO u FROM 'none*.csv'`, catalog.CodeInvalidInput, "no file matches")
	f.fails(`IMPORT INTO u FROM '../u1.csv'`, catalog.CodeInvalidInput, "")
	f.fails(`IMPORT INTO u FROM 'u1.csv' FORMAT 'sql'`, catalog.CodeUnsupported, "FORMAT")
}

// TestImportIntoParquet: Parquet columns are matched to the table's by name (case aside,
// unused ones not read), over several files and row groups, converted to the column types,
// into one Append version; a value out of the column's range names the file, row and column.
func TestImportIntoParquet(t *testing.T) {
	f, _ := loadFixture(t)
	dir := f.s.opts.LoadDataDir
	writeParquet(t, filepath.Join(dir, "a.parquet"), []any{int64(1), int64(2), int64(3)}, []any{"x", nil, "z"}, []any{0.5, 1.5, nil})
	writeParquet(t, filepath.Join(dir, "b.parquet"), []any{int64(4), nil}, []any{"w", "v"}, []any{2.0, 3.0})
	f.exec("CREATE TABLE t (id BIGINT, score DOUBLE, name VARCHAR(5), extra INT DEFAULT 7)")
	res := f.exec(`IMPORT INTO t FROM '*.parquet' FORMAT 'parquet'`)
	if res.RowsAffected != 5 {
		t.Fatalf("IMPORT INTO: %d rows", res.RowsAffected)
	}
	if got := rowsText(f.rows("SELECT id, score, name, extra FROM t ORDER BY name")); got != "2|1.5|NULL|7\nNULL|3|v|7\n4|2|w|7\n1|0.5|x|7\n3|NULL|z|7\n" {
		t.Fatalf("rows:\n%s", got)
	}
	f.exec("CREATE TABLE small (name VARCHAR(5), id TINYINT)")
	writeParquet(t, filepath.Join(dir, "big.parquet"), []any{int64(1), int64(2), int64(300)}, []any{"a", "b", "c"}, []any{0.0, 0.0, 0.0})
	f.fails(`IMPORT INTO small (name, id) FROM 'big.parquet' FORMAT 'parquet'`, catalog.CodeInvalidInput, "file 'big.parquet', row 3, column 2 (id)")
	if n := len(f.rows("SELECT id FROM small")); n != 0 {
		t.Fatalf("a failed IMPORT INTO left %d rows", n)
	}
	f.fails(`IMPORT INTO small (name, nope) FROM 'big.parquet' FORMAT 'parquet'`, catalog.CodeInvalidInput, "nope")
	if err := os.WriteFile(filepath.Join(dir, "bad.parquet"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.fails(`IMPORT INTO small FROM 'bad.parquet' FORMAT 'parquet'`, catalog.CodeInvalidInput, "not a Parquet file")
}

// TestImportParquetGlobOpensOneAtATime: a glob of Parquet files is read a
// file at a time, each opened when the load reaches it and closed at its
// end (one open at once, none left open); a file the load reaches that is
// not Parquet fails the statement naming it, with nothing committed.
func TestImportParquetGlobOpensOneAtATime(t *testing.T) {
	f, _ := loadFixture(t)
	dir := f.s.opts.LoadDataDir
	for i := range 4 {
		writeParquet(t, filepath.Join(dir, fmt.Sprintf("p%d.parquet", i)), []any{int64(2 * i), int64(2*i + 1)}, []any{"a", "b"}, []any{0.5, 1.5})
	}
	f.exec("CREATE TABLE t (id BIGINT, score DOUBLE, name VARCHAR(5))")
	open := parquetSourcesOpen.Load()
	parquetSourcesPeak.Store(open)
	if res := f.exec(`IMPORT INTO t FROM 'p*.parquet' FORMAT 'parquet'`); res.RowsAffected != 8 {
		t.Fatalf("IMPORT INTO: %d rows", res.RowsAffected)
	}
	if peak := parquetSourcesPeak.Load() - open; peak != 1 {
		t.Fatalf("%d Parquet files open at once, want 1", peak)
	}
	if now := parquetSourcesOpen.Load(); now != open {
		t.Fatalf("%d Parquet files left open", now-open)
	}
	if got := rowsText(f.rows("SELECT COUNT(*), SUM(id) FROM t")); got != "8|28\n" {
		t.Fatalf("rows: %s", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "p9.parquet"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.exec("CREATE TABLE u (id BIGINT, score DOUBLE, name VARCHAR(5))")
	f.fails(`IMPORT INTO u FROM 'p*.parquet' FORMAT 'parquet'`, catalog.CodeInvalidInput, "p9.parquet")
	if got := rowsText(f.rows("SELECT COUNT(*) FROM u")); got != "0\n" {
		t.Fatalf("after the failed import: %s rows", got)
	}
	if now := parquetSourcesOpen.Load(); now != open {
		t.Fatalf("%d Parquet files left open after the failure", now-open)
	}
}
