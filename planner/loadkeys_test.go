package planner

import (
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
)

// keyedLoadFixture is a load fixture whose key budget (SortMemory) is small enough that a
// load of tens of thousands of keys spills sorted runs, and whose MaxRows is far below
// the rows loaded: the key check is bounded by the budget, not by MaxRows.
func keyedLoadFixture(t *testing.T, budget int64) (*fixture, func(name, text string)) {
	t.Helper()
	f, write := loadFixture(t)
	f.s.opts.SortMemory = budget
	f.s.opts.MaxRows = 1000
	f.s.opts.SpillDir = t.TempDir()
	return f, write
}

// csvRows is rows lo..hi-1 of "id,name" (name is "n<id>").
func csvRows(lo, hi int) string {
	var b strings.Builder
	for i := lo; i < hi; i++ {
		fmt.Fprintf(&b, "%d,n%d\n", i, i)
	}
	return b.String()
}

func appendVersions(f *fixture, table string) int {
	n := 0
	for _, v := range f.rows("SHOW VERSIONS FROM " + table) {
		if v[2] == "Append" {
			n++
		}
	}
	return n
}

// failsDuplicateAtEnd loads rows lo..hi-1 of table t (id PRIMARY KEY, see csvRows) with,
// on the last line, a repeat of the file's sixth id and then of stored, an id the table
// holds: each fails naming the last line and the other place.
func failsDuplicateAtEnd(f *fixture, write func(name, text string), lo, hi, stored int) {
	f.t.Helper()
	last := hi - lo + 1
	write("dupend.csv", csvRows(lo, hi)+fmt.Sprintf("%d,again\n", lo+5))
	f.fails(`LOAD DATA INFILE 'dupend.csv' INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput,
		fmt.Sprintf("line %d: Duplicate entry '%d' for key 'PRIMARY' (also at line 6)", last, lo+5))
	write("duptable.csv", csvRows(lo, hi)+fmt.Sprintf("%d,again\n", stored))
	f.fails(`LOAD DATA INFILE 'duptable.csv' INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput,
		fmt.Sprintf("line %d: Duplicate entry '%d' for key 'PRIMARY' (the table already holds it)", last, stored))
}

// TestLoadKeysPastMaxRows: a load of 30 times MaxRows keys into a PRIMARY KEY table
// succeeds within a 64 KiB key budget by spilling sorted runs; a second load is checked
// against the rows the first wrote; a duplicate on the very last line, inside the file
// or against the table, fails naming both places and commits nothing.
func TestLoadKeysPastMaxRows(t *testing.T) {
	f, write := keyedLoadFixture(t, 64<<10)
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id))")
	write("a.csv", csvRows(0, 30000))
	runs := loadKeyRuns.Load()
	if res := f.exec(`LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`); res.RowsAffected != 30000 {
		t.Fatalf("LOAD DATA: %d rows", res.RowsAffected)
	}
	if spilled := loadKeyRuns.Load() - runs; spilled < 2 {
		t.Fatalf("30,000 keys in a 64 KiB budget spilled %d runs, want several", spilled)
	}
	write("b.csv", csvRows(30000, 60000))
	f.exec(`LOAD DATA INFILE 'b.csv' INTO TABLE t FIELDS TERMINATED BY ','`)
	if got := rowsText(f.rows("SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM t")); got != "60000|60000|0|59999\n" {
		t.Fatalf("after two loads: %s", got)
	}
	before := appendVersions(f, "t")
	failsDuplicateAtEnd(f, write, 60000, 90000, 17)
	if after := appendVersions(f, "t"); after != before {
		t.Fatalf("failed loads appended: %d Append versions, had %d", after, before)
	}
	if got := rowsText(f.rows("SELECT COUNT(*) FROM t")); got != "60000\n" {
		t.Fatalf("failed loads left rows: %s", got)
	}
}

// TestLoadKeysNoSpill: with NoSpill the key budget is a limit, named in the error.
func TestLoadKeysNoSpill(t *testing.T) {
	f, write := keyedLoadFixture(t, 64<<10)
	f.s.opts.NoSpill = true
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id))")
	write("a.csv", csvRows(0, 30000))
	f.fails(`LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput, "Options.SortMemory")
	if got := rowsText(f.rows("SELECT COUNT(*) FROM t")); got != "0\n" {
		t.Fatalf("a refused load left rows: %s", got)
	}
}

// TestLoadKeysCollisions: with a fingerprint that collides for every key of one length,
// distinct keys still load (in memory and across spilled runs) and a real duplicate still
// fails naming both lines: the key bytes decide, never the fingerprint alone.
func TestLoadKeysCollisions(t *testing.T) {
	old := loadKeyHash
	loadKeyHash = func(_ maphash.Seed, key []byte) uint64 { return uint64(len(key)) }
	t.Cleanup(func() { loadKeyHash = old })
	for _, budget := range []int64{DefaultSortMemory, 16 << 10} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			f, write := keyedLoadFixture(t, budget)
			f.exec("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id))")
			write("a.csv", csvRows(0, 3000))
			if res := f.exec(`LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`); res.RowsAffected != 3000 {
				t.Fatalf("LOAD DATA: %d rows", res.RowsAffected)
			}
			write("b.csv", csvRows(3000, 4000))
			f.exec(`LOAD DATA INFILE 'b.csv' INTO TABLE t FIELDS TERMINATED BY ','`)
			failsDuplicateAtEnd(f, write, 5000, 6000, 3999)
			if got := rowsText(f.rows("SELECT COUNT(*) FROM t")); got != "4000\n" {
				t.Fatalf("rows: %s", got)
			}
		})
	}
}

// TestLoadKeysCompositeAndNulls: a composite PRIMARY KEY repeats each column alone but
// never the pair, and a UNIQUE column takes many NULLs (MySQL's rule), within a spilling
// budget; a repeated pair at the end and a repeated non-NULL UNIQUE value fail.
func TestLoadKeysCompositeAndNulls(t *testing.T) {
	f, write := keyedLoadFixture(t, 32<<10)
	f.exec("CREATE TABLE t (a BIGINT NOT NULL, b VARCHAR(10) NOT NULL, u BIGINT UNIQUE, PRIMARY KEY (a, b))")
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		u := "\\N"
		if i%2 == 0 {
			u = fmt.Sprint(i)
		}
		fmt.Fprintf(&b, "%d,x%d,%s\n", i/4, i%4, u)
	}
	write("a.csv", b.String())
	runs := loadKeyRuns.Load()
	if res := f.exec(`LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`); res.RowsAffected != 20000 {
		t.Fatalf("LOAD DATA: %d rows", res.RowsAffected)
	}
	if loadKeyRuns.Load() == runs {
		t.Fatal("the load did not spill")
	}
	write("nulls.csv", "9000,x0,\\N\n9000,x1,\\N\n")
	f.exec(`LOAD DATA INFILE 'nulls.csv' INTO TABLE t FIELDS TERMINATED BY ','`)
	if got := rowsText(f.rows("SELECT COUNT(*), COUNT(u) FROM t")); got != "20002|10000\n" {
		t.Fatalf("rows, non-NULL u: %s", got)
	}
	write("pair.csv", "9001,x0,\\N\n9001,x1,\\N\n9001,x0,\\N\n")
	f.fails(`LOAD DATA INFILE 'pair.csv' INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput,
		"line 3: Duplicate entry '9001-x0' for key 'PRIMARY' (also at line 1)")
	write("pairt.csv", "9001,x0,\\N\n4000,x3,\\N\n")
	f.fails(`LOAD DATA INFILE 'pairt.csv' INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput,
		"line 2: Duplicate entry '4000-x3' for key 'PRIMARY' (the table already holds it)")
	write("u.csv", "9002,x0,\\N\n9002,x1,19998\n")
	f.fails(`LOAD DATA INFILE 'u.csv' INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput,
		"line 2: duplicate entry '19998' for UNIQUE column u (the table already holds it)")
	if got := rowsText(f.rows("SELECT COUNT(*) FROM t")); got != "20002\n" {
		t.Fatalf("failed loads left rows: %s", got)
	}
}

// TestShownKey: the comparable form of a composite key (keyAt's and appendRowKey's, also
// after other bytes in the buffer) turns back into MySQL's text,
// values holding the separators included.
func TestShownKey(t *testing.T) {
	for _, c := range []struct {
		vals []string
		want string
	}{{[]string{"a"}, "a"}, {[]string{"1", "x"}, "1-x"}, {[]string{"a:b", "c\x00d", ""}, "a:b-c\x00d-"}} {
		var kb strings.Builder
		for j, v := range c.vals {
			if j > 0 {
				kb.WriteByte(0)
			}
			fmt.Fprintf(&kb, "%d:%s", len(v), v)
		}
		key := kb.String()
		if len(c.vals) == 1 {
			key = c.vals[0]
		}
		if got := shownKey([]byte(key), len(c.vals)); got != c.want {
			t.Fatalf("shownKey(%q) = %q, want %q", key, got, c.want)
		}
		if ks, _, ok := keyAt(rec3(c.vals), cols3(len(c.vals)), 0); !ok || ks != key {
			t.Fatalf("keyAt = %q, want %q", ks, key)
		}
		if kb, ok := appendRowKey([]byte("junk"), rec3(c.vals), cols3(len(c.vals)), 0); !ok || string(kb) != "junk"+key {
			t.Fatalf("appendRowKey after other bytes = %q, want %q", kb, "junk"+key)
		}
	}
}

// rec3 is a one-row batch of string columns holding vals.
func rec3(vals []string) arrow.RecordBatch {
	fields := make([]arrow.Field, len(vals))
	cols := make([]arrow.Array, len(vals))
	for i, v := range vals {
		fields[i] = arrow.Field{Name: fmt.Sprint("c", i), Type: arrow.BinaryTypes.String}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Append(v)
		cols[i] = b.NewArray()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 1)
}

func cols3(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestAppendKeyMatchesKeyAt: appendRowKey, the load's allocation-free key bytes equal keyAt's for the
// types it handles itself (integers, strings) and the ones it leaves to valueKey, NULLs and
// composites included: the statement's keys and the table's must compare equal.
func TestAppendKeyMatchesKeyAt(t *testing.T) {
	mem := memory.DefaultAllocator
	i64 := array.NewInt64Builder(mem)
	i64.AppendValues([]int64{-5, 0, 1 << 62}, nil)
	i64.AppendNull()
	i32 := array.NewInt32Builder(mem)
	i32.AppendValues([]int32{7, -1, 3, 4}, nil)
	f64 := array.NewFloat64Builder(mem)
	f64.AppendValues([]float64{1.5, -0.25, 1e300, 2}, nil)
	str := array.NewStringBuilder(mem)
	str.AppendValues([]string{"a", "", "x:y", "z"}, nil)
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int32}, {Name: "c", Type: arrow.PrimitiveTypes.Float64}, {Name: "d", Type: arrow.BinaryTypes.String}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{i64.NewArray(), i32.NewArray(), f64.NewArray(), str.NewArray()}, 4)
	for _, cols := range [][]int{{0}, {1}, {2}, {3}, {0, 3}, {3, 2, 1}} {
		for i := 0; i < 4; i++ {
			want, _, wantOK := keyAt(rec, cols, i)
			got, ok := appendRowKey(nil, rec, cols, i)
			if ok != wantOK || (ok && string(got) != want) {
				t.Fatalf("cols %v row %d: appendKey %q %v, keyAt %q %v", cols, i, got, ok, want, wantOK)
			}
		}
	}
}

// TestImportParquetKeysAcrossFiles: IMPORT INTO of a glob of Parquet files into a PRIMARY KEY
// table, within a spilling budget, names both files and rows of a key given twice (the
// columnar path numbers rows per file), and loads them when the keys differ.
func TestImportParquetKeysAcrossFiles(t *testing.T) {
	f, _ := keyedLoadFixture(t, 16<<10)
	dir := f.s.opts.LoadDataDir
	ids := func(lo, hi int) (out []any, names []any, scores []any) {
		for i := lo; i < hi; i++ {
			out, names, scores = append(out, int64(i)), append(names, fmt.Sprint("n", i)), append(scores, 0.5)
		}
		return
	}
	a, an, as := ids(0, 3000)
	writeParquetGroups(t, filepath.Join(dir, "a.parquet"), a, an, as, 1000)
	b, bn, bs := ids(3000, 6000)
	b[2999] = int64(1234)
	writeParquetGroups(t, filepath.Join(dir, "b.parquet"), b, bn, bs, 1000)
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(10), PRIMARY KEY (id))")
	f.fails(`IMPORT INTO t FROM '*.parquet' FORMAT 'parquet'`, catalog.CodeInvalidInput,
		"file 'b.parquet', row 3000: Duplicate entry '1234' for key 'PRIMARY' (also at file 'a.parquet', row 1235)")
	b[2999] = int64(5999)
	writeParquetGroups(t, filepath.Join(dir, "b.parquet"), b, bn, bs, 1000)
	if res := f.exec(`IMPORT INTO t FROM '*.parquet' FORMAT 'parquet'`); res.RowsAffected != 6000 {
		t.Fatalf("IMPORT INTO: %d rows", res.RowsAffected)
	}
}

// TestLoadKeysConcurrentInsert: a load's keys, spilled, are checked against the version its
// commit lands on: another session commits between the load's table check and its commit
// (the hook); the load rebases, rechecks the rows that commit added, and fails when they
// hold one of its keys, or commits when they do not.
func TestLoadKeysConcurrentInsert(t *testing.T) {
	for _, tc := range []struct {
		other    string
		wantFail bool
	}{{"INSERT INTO p VALUES (4321, 'b')", true}, {"INSERT INTO p VALUES (99999, 'b')", false}} {
		t.Run(tc.other, func(t *testing.T) {
			a, b := twoSessions(t)
			dir := t.TempDir()
			a.s.opts.LoadDataDir, a.s.opts.SortMemory, a.s.opts.SpillDir = dir, 16<<10, t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte(csvRows(0, 5000)), 0o644); err != nil {
				t.Fatal(err)
			}
			a.exec("CREATE TABLE p (id BIGINT NOT NULL, v VARCHAR(8), PRIMARY KEY (id))")
			a.exec("INSERT INTO p VALUES (-1, 'x')")
			_, err := withOtherCommitFirst(t, b, tc.other, func() (*Result, error) {
				return a.try(`LOAD DATA INFILE 'a.csv' INTO TABLE p FIELDS TERMINATED BY ','`)
			})
			want := "2|1\n" // the first row and the other session's (4321)
			if tc.wantFail {
				if err == nil || !strings.Contains(err.Error(), "line 4322: Duplicate entry '4321' for key 'PRIMARY' (the table already holds it)") {
					t.Fatalf("load: %v, want the duplicate of the concurrent row", err)
				}
			} else {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				want = "5002|5000\n"
			}
			if got := rowsText(a.rows("SELECT COUNT(*), COUNT(CASE WHEN id BETWEEN 0 AND 4999 THEN 1 END) FROM p")); got != want {
				t.Fatalf("rows, loaded rows: %s, want %s", got, want)
			}
		})
	}
}
