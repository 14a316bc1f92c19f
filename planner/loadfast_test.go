package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// loadOutcome is everything a load statement leaves behind that the
// columnar and the row path must agree on.
type loadOutcome struct {
	err      string // code and message of a failure
	affected int64
	lastID   int64
	rows     string
	warnings string
	appends  int // Append versions the statement committed
}

// runLoad runs setup, then stmt over files, on a fresh catalog, through
// the row path only (rowOnly) or letting the columnar path take it, and
// reports the outcome and whether the columnar path ran.
func runLoad(t *testing.T, rowOnly bool, setup []string, files map[string]string, stmt, query string) (loadOutcome, bool) {
	t.Helper()
	f, write := loadFixture(t)
	for _, s := range setup {
		f.exec(s)
	}
	for name, text := range files {
		write(name, text)
	}
	table := "t"
	before := len(f.rows("SHOW VERSIONS FROM " + table))
	loadRowPathOnly = rowOnly
	defer func() { loadRowPathOnly = false }()
	columnar := loadColumnarStatements.Load()
	res, err := f.try(stmt)
	ran := loadColumnarStatements.Load() > columnar
	var out loadOutcome
	if err != nil {
		code, _ := catalog.CodeOf(err)
		out.err = fmt.Sprintf("%v: %v", code, err)
	} else {
		out.affected, out.lastID = res.RowsAffected, res.LastInsertID
		out.warnings = f.warnings()
	}
	out.rows = rowsText(f.rows(query))
	for _, v := range f.rows("SHOW VERSIONS FROM " + table)[before:] {
		if v[2] == "Append" {
			out.appends++
		}
	}
	return out, ran
}

// loadCase is one statement run both ways.
type loadCase struct {
	name     string
	setup    []string
	files    map[string]string
	stmt     string
	query    string
	columnar bool // the columnar path must take it (else: must not)
	ok       bool // the statement must succeed
}

func checkLoadCase(t *testing.T, c loadCase) {
	t.Helper()
	row, ranRow := runLoad(t, true, c.setup, c.files, c.stmt, c.query)
	fast, ranFast := runLoad(t, false, c.setup, c.files, c.stmt, c.query)
	if ranRow {
		t.Fatalf("%s: the columnar path ran with loadRowPathOnly", c.name)
	}
	if ranFast != c.columnar {
		t.Fatalf("%s: columnar path taken %v, want %v", c.name, ranFast, c.columnar)
	}
	if !reflect.DeepEqual(row, fast) {
		t.Fatalf("%s: the paths differ\nrow path: %+v\ncolumnar: %+v", c.name, row, fast)
	}
	if c.ok && (fast.err != "" || fast.affected == 0) {
		t.Fatalf("%s: %+v, want rows loaded", c.name, fast)
	}
	if testing.Verbose() {
		t.Logf("%s: %+v", c.name, fast)
	}
}

// loadTypesDDL is a table of every column type the columnar path parses
// itself, and some it hands to the row path's conversion.
const loadTypesDDL = "CREATE TABLE t (k INT NOT NULL, i INT, b BIGINT, u INT UNSIGNED, ti TINYINT, ub BIGINT UNSIGNED, d DOUBLE, fl FLOAT, s VARCHAR(40), dt DATE, bo BOOLEAN, de DECIMAL(10,2), ts DATETIME, bl BLOB, j JSON)"

const loadTypesQuery = "SELECT k, i, b, u, ti, ub, d, fl, s, dt, bo, de, ts, bl, j FROM t ORDER BY k"

// TestLoadFastMatchesRowPath: on the same files the columnar load stores
// exactly what the row path stores (values, NULLs, DEFAULTs, AUTO_INCREMENT
// ids), fails with the same error naming the same line and column, and
// under IGNORE stores the same adjusted values with the same warnings:
// quoted fields with separators, doubled quotes and newlines inside,
// escapes, \N, empty fields, CRLF, multi-byte terminators, IGNORE n LINES,
// numbers with spaces, signs, exponents and out of range, bad dates.
// The plain LOAD DATA / IMPORT INTO statements take the columnar path;
// SET, @variables and LINES STARTING BY keep the row path.
func TestLoadFastMatchesRowPath(t *testing.T) {
	good := strings.Join([]string{
		`1,2,3,4,5,6,1.5,2.5,plain,2024-02-29,1,1.25,2024-01-02 03:04:05,blob,"{""a"":1}"`,
		`2,-2,-9223372036854775808,4294967295,-128,18446744073709551615,-1e3,.5,"quoted, with comma",1970-01-01,0,-3.5,2024-01-02,x,[1]`,
		`3,+7,007,0,127,0,5.,1E-2,"dq ""inside"" and` + "\n" + `newline",0001-01-01,true,0,2000-01-01 00:00:00.5,,null`,
		`4,\N,\N,\N,\N,\N,\N,\N,\N,\N,\N,\N,\N,\N,\N`,
		`5,0,0,0,0,0,0,0,,2024-01-01,0,0,2024-01-01,,1`,
		`6, 8 ,9 , 10,  1, 2 ,  3.5 ,4 ,esc\ttab\\back\,comma\Nn,2024-12-31,FALSE,7,2024-01-02T03:04:05,\0\Z,{}`,
		`7,"12","-5","1","2","3","4.5","6","",` + `"2023-03-01","1","2.50","2024-05-05 05:05:05","q","""s"""`,
		`8,000000000000000012,123456789012345678,4294967295,0,1234567890123456789,1e308,3.4e38,üñí,2024-06-30,1,99999999.99,2024-01-01,é,1`,
		``,
		`9,-0,+0,0,-0,0,-0.0,+0.0,"",2024-01-31,0,0.00,2024-01-01 00:00:00,"",2`,
	}, "\n") + "\n"
	cases := []loadCase{
		{name: "types", ok: true, setup: []string{loadTypesDDL}, files: map[string]string{"a.csv": good},
			stmt: `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`, query: loadTypesQuery, columnar: true},
		{name: "types crlf import", ok: true, setup: []string{loadTypesDDL}, files: map[string]string{"a.csv": "header\r\n" + strings.ReplaceAll(good, "\n", "\r\n")},
			stmt: `IMPORT INTO t FROM 'a.csv' WITH skip_rows=1`, query: loadTypesQuery, columnar: true},
		{name: "types ignore", ok: true, setup: []string{loadTypesDDL}, files: map[string]string{"a.csv": good},
			stmt: `LOAD DATA INFILE 'a.csv' IGNORE INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`, query: loadTypesQuery, columnar: true},
		{name: "tabs default", ok: true, setup: []string{"CREATE TABLE t (k INT, s VARCHAR(20), d DOUBLE)"},
			files: map[string]string{"a.tsv": "skip\tme\n1\ta b\t1.5\n2\t\\N\t\\N\n3\t\"q\"\t2\r\n"},
			stmt:  `LOAD DATA INFILE 'a.tsv' INTO TABLE t IGNORE 1 LINES`, query: "SELECT k, s, d FROM t ORDER BY k", columnar: true},
		{name: "multi-byte terminators, no escape", ok: true, setup: []string{"CREATE TABLE t (k INT, s VARCHAR(20), d DATE)"},
			files: map[string]string{"a.txt": "1::a\\b::2024-01-01||2::\\N::2024-01-02||3:::x::2024-01-03||4::y:z::2024-01-04||"},
			stmt:  `LOAD DATA INFILE 'a.txt' INTO TABLE t FIELDS TERMINATED BY '::' ESCAPED BY '' LINES TERMINATED BY '||'`, query: "SELECT k, s, d FROM t ORDER BY k", columnar: true},
		{name: "defaults, not null, auto_increment", ok: true, setup: []string{"CREATE TABLE t (id BIGINT AUTO_INCREMENT, n INT NOT NULL, d INT DEFAULT 7, s VARCHAR(5) NOT NULL DEFAULT 'x', PRIMARY KEY (id))"},
			files: map[string]string{"a.csv": "1,a\n2,b\n3,c\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' (n, s)`, query: "SELECT id, n, d, s FROM t ORDER BY id", columnar: true},
		{name: "auto_increment given", ok: true, setup: []string{"CREATE TABLE t (id BIGINT AUTO_INCREMENT, n INT NOT NULL, d INT DEFAULT 7, PRIMARY KEY (id))"},
			files: map[string]string{"a.csv": "\\N,1,\\N\n0,2,3\n10,3,4\n\\N,4,5\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`, query: "SELECT id, n, d FROM t ORDER BY id", columnar: true},
		{name: "null into not null", setup: []string{"CREATE TABLE t (n INT NOT NULL, s VARCHAR(5) NOT NULL)"},
			files: map[string]string{"a.csv": "1,a\n2,\\N\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`, query: "SELECT n, s FROM t ORDER BY n", columnar: true},
		{name: "null into not null ignore", ok: true, setup: []string{"CREATE TABLE t (n INT NOT NULL, s VARCHAR(5) NOT NULL)"},
			files: map[string]string{"a.csv": "1,a\n\\N,\\N\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' IGNORE INTO TABLE t FIELDS TERMINATED BY ','`, query: "SELECT n, s FROM t ORDER BY n", columnar: true},
		{name: "unique duplicate", setup: []string{"CREATE TABLE t (code VARCHAR(10) UNIQUE, n INT)"},
			files: map[string]string{"a.csv": "p,1\nq,2\np,3\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`, query: "SELECT code, n FROM t ORDER BY n", columnar: true},
		{name: "wrong field count", setup: []string{"CREATE TABLE t (a INT, b INT)"},
			files: map[string]string{"a.csv": "1,2\n3\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`, query: "SELECT a, b FROM t", columnar: true},
		{name: "unclosed quote", setup: []string{"CREATE TABLE t (a INT, b VARCHAR(5))"},
			files: map[string]string{"a.csv": "1,\"ok\"\n2,\"open\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`, query: "SELECT a, b FROM t", columnar: true},
		{name: "text after closing quote", setup: []string{"CREATE TABLE t (a INT, b VARCHAR(5))"},
			files: map[string]string{"a.csv": "1,\"ok\"x\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`, query: "SELECT a, b FROM t", columnar: true},
		{name: "set and vars keep the row path", setup: []string{"CREATE TABLE t (a INT, b INT)"},
			files: map[string]string{"a.csv": "1,2\n3,4\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' (a, @x) SET b = @x * 2`, query: "SELECT a, b FROM t ORDER BY a", columnar: false},
		{name: "starting by keeps the row path", setup: []string{"CREATE TABLE t (a INT, b INT)"},
			files: map[string]string{"a.csv": "x1,2\nno\nx3,4\n"},
			stmt:  `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' LINES STARTING BY 'x'`, query: "SELECT a, b FROM t ORDER BY a", columnar: false},
	}
	// One bad value per file, at line 2, in strict mode (fails naming the
	// line and column) and under IGNORE (adjusted, with warnings).
	bad := []struct{ col, ddl, value string }{
		{"i", "INT", "abc"}, {"i", "INT", "12abc"}, {"i", "INT", "99999999999"}, {"i", "INT", " 7 "},
		{"i", "INT", "1.5"}, {"i", "INT", "1e3"}, {"i", "INT", ""}, {"i", "INT", "-"}, {"i", "INT", "+"},
		{"b", "BIGINT", "9223372036854775808"}, {"b", "BIGINT", "-9223372036854775809"}, {"b", "BIGINT", "1234567890123456789"},
		{"u", "INT UNSIGNED", "-1"}, {"u", "INT UNSIGNED", "+1"}, {"u", "INT UNSIGNED", "4294967296"},
		{"ti", "TINYINT", "128"}, {"ti", "TINYINT", "-129"}, {"ub", "BIGINT UNSIGNED", "18446744073709551616"},
		{"d", "DOUBLE", "abc"}, {"d", "DOUBLE", "1e400"}, {"d", "DOUBLE", "1e"}, {"d", "DOUBLE", "inf"}, {"d", "DOUBLE", "0x10"},
		{"d", "DOUBLE", "1_000"}, {"d", "DOUBLE", ""}, {"d", "DOUBLE", ". "}, {"d", "DOUBLE", "3 x"},
		{"fl", "FLOAT", "3.5e38"}, {"fl", "FLOAT", "1e-50"},
		{"dt", "DATE", "2023-02-29"}, {"dt", "DATE", "2023-13-01"}, {"dt", "DATE", "2023-1-01"}, {"dt", "DATE", "20230101"},
		{"dt", "DATE", " 2023-01-01"}, {"dt", "DATE", "2023-00-10"}, {"dt", "DATE", "2023-04-31"}, {"dt", "DATE", ""},
		{"bo", "BOOLEAN", "2"}, {"bo", "BOOLEAN", "yes"}, {"bo", "BOOLEAN", " 1"},
		{"de", "DECIMAL(10,2)", "1.234"}, {"j", "JSON", "{bad"},
	}
	for _, b := range bad {
		ddl := fmt.Sprintf("CREATE TABLE t (k INT NOT NULL, %s %s, s VARCHAR(5))", b.col, b.ddl)
		file := fmt.Sprintf("1,1,a\n2,%s,b\n3,0,c\n", b.value)
		if b.col == "dt" {
			file = fmt.Sprintf("1,2024-01-01,a\n2,%s,b\n3,2024-01-01,c\n", b.value)
		}
		if b.col == "j" {
			file = fmt.Sprintf("1,1,a\n2,%s,b\n3,2,c\n", b.value)
		}
		query := fmt.Sprintf("SELECT k, %s, s FROM t ORDER BY k", b.col)
		for _, ignore := range []string{"", "IGNORE "} {
			cases = append(cases, loadCase{name: fmt.Sprintf("%s%s %q", ignore, b.ddl, b.value), setup: []string{ddl},
				files: map[string]string{"a.csv": file}, query: query, columnar: true,
				stmt: fmt.Sprintf(`LOAD DATA INFILE 'a.csv' %sINTO TABLE t FIELDS TERMINATED BY ','`, ignore)})
		}
	}
	for _, c := range cases {
		checkLoadCase(t, c)
	}
	// The statements the bench runs take the columnar path and succeed.
	ok, ran := runLoad(t, false, []string{"CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(64), score DOUBLE, category VARCHAR(16), day DATE)"},
		map[string]string{"i.csv": "id,name,score,category,day\n1,Ann Lee,12.5,books,2024-01-01\n"},
		`LOAD DATA INFILE 'i.csv' INTO TABLE t FIELDS TERMINATED BY ',' IGNORE 1 LINES`, "SELECT * FROM t")
	if !ran || ok.err != "" || ok.affected != 1 || !strings.HasPrefix(ok.rows, "1|Ann Lee|12.5|books|2024-01-01") {
		t.Fatalf("bench statement: columnar %v, %+v", ran, ok)
	}
}

// scanRecords splits b with the row path's reader and with scanReader and
// returns both as text: one line per record (fields and NULLs, the line
// it started on) and the error that ended it.
func scanRecords(b []byte, opts *sqlparse.LoadData, crlf bool) (row, fast string) {
	var rb, fb strings.Builder
	lr := newLoadReader(bytes.NewReader(b), opts)
	lr.crlf = crlf
	for i := 0; i <= len(b)+1; i++ {
		rec, err := lr.record()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(&rb, "error %v\n", err)
			}
			break
		}
		fmt.Fprintf(&rb, "%d:", lr.recLine)
		for _, f := range rec {
			fmt.Fprintf(&rb, " %q/%v", f.text, f.null)
		}
		rb.WriteByte('\n')
	}
	// A 3-byte window is refilled mid-field and mid-terminator; the
	// default one holds whole lines, which fastRecord splits.
	small := scanRecordsWindow(b, opts, crlf, 3)
	if whole := scanRecordsWindow(b, opts, crlf, scanWindow); whole != small {
		fmt.Fprintf(&fb, "windows of 3 bytes:\n%s\nwindows of %d bytes:\n%s", small, scanWindow, whole)
	}
	fb.WriteString(small)
	return rb.String(), fb.String()
}

// scanRecordsWindow is scanRecords' scanReader side with a window of
// window bytes.
func scanRecordsWindow(b []byte, opts *sqlparse.LoadData, crlf bool, window int) string {
	var fb strings.Builder
	sr := newScanReader(bytes.NewReader(b), newLoadReaderOpts(opts, crlf))
	sr.buf = make([]byte, window)
	var rec rawRecord
	for i := 0; i <= len(b)+1; i++ {
		err := sr.record(&rec)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(&fb, "error %v\n", err)
			}
			break
		}
		fmt.Fprintf(&fb, "%d:", sr.recLine)
		for k := 0; k < rec.fields(); k++ {
			fmt.Fprintf(&fb, " %q/%v", rec.field(k), rec.null[k])
		}
		fb.WriteByte('\n')
	}
	return fb.String()
}

func newLoadReaderOpts(opts *sqlparse.LoadData, crlf bool) *loadReader {
	lr := newLoadReader(bytes.NewReader(nil), opts)
	lr.crlf = crlf
	return lr
}

// FuzzScanReaderMatches: scanReader splits any bytes into the same
// records, fields, NULLs and line numbers as the row path's loadReader,
// and fails with the same error, under several FIELDS / LINES options.
func FuzzScanReaderMatches(f *testing.F) {
	f.Add([]byte("a,\"b,\"\"c\"\"\"\n\\N,\"x\ny\"\n1\\t2,\n"), uint8(0))
	f.Add([]byte("\"\"\"\n\\"), uint8(1))
	f.Add([]byte("1::a||2::\\N:::x||"), uint8(2))
	f.Add([]byte("a\r\nb,\"c\r\n\"\r\n\\N\\N,\\"), uint8(5))
	f.Add([]byte("\"a\"b,\"\"\n\"\n"), uint8(0))
	// Whole plain lines (fastRecord): empty fields and lines, a line of
	// one field, then lines fastRecord leaves to record (an escape, a
	// quote, a '\r' with and without "\r\n" ending lines, no final
	// newline).
	f.Add([]byte("1,ab,2.5\n\n,x,\n,\nq\n3,\\N,\"z\"\na\rb,c\r\nlast,"), uint8(0))
	f.Add([]byte("1,ab,2.5\n\n,x,\n,\nq\n3,\\N,\"z\"\na\rb,c\r\nlast,"), uint8(4))
	f.Add([]byte("a\tb\t\n\tc\r\n\\N\td\n"), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, mode uint8) {
		opts := loadOpts()
		switch mode % 4 {
		case 1: // MySQL's defaults
			opts = &sqlparse.LoadData{}
		case 2:
			opts.FieldsTerminated, opts.LinesTerminated, opts.LinesTermSet = "::", "||", true
		case 3:
			opts.Escaped, opts.EscapedSet = "", true
			opts.Enclosed = "'"
		}
		if mode&8 != 0 {
			opts.Escaped, opts.EscapedSet = `"`, true // escape and enclosure alike
		}
		row, fast := scanRecords(b, opts, mode&4 != 0)
		if row != fast {
			t.Fatalf("records differ on %q (mode %d)\nloadReader:\n%s\nscanReader:\n%s", b, mode, row, fast)
		}
	})
}

// fragmentCount is the number of fragments of table name.
func fragmentCount(t *testing.T, f *fixture, name string) int {
	t.Helper()
	_, ds, err := f.s.openTableData(context.Background(), sqlparse.Name{name})
	if err != nil {
		t.Fatal(err)
	}
	return len(ds.Manifest().Fragments)
}

// TestImportFastMatchesRowPath: IMPORT INTO from Parquet stores what the
// row path stores, batch by batch the same (the same fragments, byte for
// byte the same data files), and fails on the same row and column,
// whether its columns are copied whole (the table column's own type) or
// value by value (another type, DEFAULTs, AUTO_INCREMENT, NULL in a NOT
// NULL column, UNIQUE).
func TestImportFastMatchesRowPath(t *testing.T) {
	n := 5000
	ids, names, scores := make([]any, n), make([]any, n), make([]any, n)
	for i := range ids {
		ids[i], names[i], scores[i] = int64(i+1), fmt.Sprintf("n%d", i%37), float64(i)/4
		if i%11 == 3 {
			names[i] = nil
		}
		if i%13 == 5 {
			scores[i] = nil
		}
	}
	idsNull := append([]any{}, ids...)
	idsNull[4321] = nil
	big := append([]any{}, ids...)
	big[3000] = int64(300)
	write := func(dir string, groups int64, cols ...[]any) {
		writeParquetGroups(t, filepath.Join(dir, "a.parquet"), cols[0], cols[1], cols[2], groups)
		writeParquetGroups(t, filepath.Join(dir, "b.parquet"), cols[0][:7], cols[1][:7], cols[2][:7], 3)
	}
	cases := []struct {
		name, ddl, stmt, query string
		cols                   [][]any
		ok                     bool
	}{
		{"same types, default", "CREATE TABLE t (id BIGINT NOT NULL, score DOUBLE, name VARCHAR(5), extra INT DEFAULT 7)",
			`IMPORT INTO t FROM '*.parquet' FORMAT 'parquet'`, "SELECT id, score, name, extra FROM t ORDER BY id, name", [][]any{ids, names, scores}, true},
		{"column list", "CREATE TABLE t (id BIGINT, score DOUBLE, name VARCHAR(5))",
			`IMPORT INTO t (name, id) FROM 'a.parquet' FORMAT 'parquet'`, "SELECT id, score, name FROM t ORDER BY id", [][]any{ids, names, scores}, true},
		{"null into not null", "CREATE TABLE t (id BIGINT NOT NULL, score DOUBLE, name VARCHAR(5))",
			`IMPORT INTO t FROM 'a.parquet' FORMAT 'parquet'`, "SELECT id FROM t", [][]any{idsNull, names, scores}, false},
		{"narrower type", "CREATE TABLE t (id INT, score FLOAT, name VARCHAR(5))",
			`IMPORT INTO t FROM '*.parquet' FORMAT 'parquet'`, "SELECT id, score, name FROM t ORDER BY id, name", [][]any{ids, names, scores}, true},
		{"out of range", "CREATE TABLE t (id TINYINT UNSIGNED, score DOUBLE, name VARCHAR(5))",
			`IMPORT INTO t FROM 'a.parquet' FORMAT 'parquet'`, "SELECT id FROM t", [][]any{big, names, scores}, false},
		{"auto_increment", "CREATE TABLE t (id BIGINT AUTO_INCREMENT, score DOUBLE, name VARCHAR(5), PRIMARY KEY (id))",
			`IMPORT INTO t (score, name) FROM '*.parquet' FORMAT 'parquet'`, "SELECT id, score, name FROM t ORDER BY id", [][]any{ids, names, scores}, true},
		{"unique", "CREATE TABLE t (id BIGINT UNIQUE, score DOUBLE, name VARCHAR(5))",
			`IMPORT INTO t FROM '*.parquet' FORMAT 'parquet'`, "SELECT id FROM t", [][]any{ids, names, scores}, false},
	}
	defer func(rows int) { loadBatchRows = rows }(loadBatchRows)
	for _, batch := range []int{1 << 20, 1000, 7} {
		loadBatchRows = batch
		for _, c := range cases {
			var outs [2]loadOutcome
			var frags [2]int
			var sums [2][]string
			for k, rowOnly := range []bool{true, false} {
				f, _ := loadFixture(t)
				write(f.s.opts.LoadDataDir, 700, c.cols...)
				f.exec(c.ddl)
				loadRowPathOnly = rowOnly
				before := loadColumnarStatements.Load()
				res, err := f.try(c.stmt)
				loadRowPathOnly = false
				ran := loadColumnarStatements.Load() > before
				if want := !rowOnly; ran != want {
					t.Fatalf("%s: columnar path ran %v (row path only %v)", c.name, ran, rowOnly)
				}
				if err != nil {
					code, _ := catalog.CodeOf(err)
					outs[k].err = fmt.Sprintf("%v: %v", code, err)
				} else {
					outs[k].affected, outs[k].lastID = res.RowsAffected, res.LastInsertID
				}
				outs[k].rows = rowsText(f.rows(c.query))
				frags[k] = fragmentCount(t, f, "t")
				sums[k] = dataFileSums(t, f, "t")
			}
			if !reflect.DeepEqual(sums[0], sums[1]) {
				t.Fatalf("%s, batches of %d: data files differ: row path %v, columnar %v", c.name, batch, sums[0], sums[1])
			}
			if outs[0] != outs[1] || frags[0] != frags[1] {
				t.Fatalf("%s, batches of %d: the paths differ\nrow path: %+v, %d fragments\ncolumnar: %+v, %d fragments", c.name, batch, outs[0], frags[0], outs[1], frags[1])
			}
			if (outs[1].err == "") != c.ok {
				t.Fatalf("%s: %+v", c.name, outs[1])
			}
			if testing.Verbose() {
				t.Logf("%s, batches of %d: %d fragments, err %q, %d rows", c.name, batch, frags[1], outs[1].err, strings.Count(outs[1].rows, "\n"))
			}
		}
	}
}

// TestParseDateBytes: every valid YYYY-MM-DD of years 0000-9999 (sampled
// days of each month, every month end) reads as time.Parse and
// arrow.Date32FromTime read it, and invalid ones are left to the row path.
func TestParseDateBytes(t *testing.T) {
	for y := 0; y <= 9999; y += 7 {
		for m := 1; m <= 12; m++ {
			for _, d := range []int{1, 15, 28, 29, 30, 31, 32} {
				text := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
				got, ok := parseDateBytes([]byte(text))
				want, err := time.Parse("2006-01-02", text)
				if ok != (err == nil) || ok && got != arrow.Date32FromTime(want) {
					t.Fatalf("%s: got %v %v, time.Parse %v %v", text, got, ok, want, err)
				}
			}
		}
	}
	for _, text := range []string{"2024-00-01", "2024-13-01", "2024-01-00", "2024-1-01", "+024-01-01", "2024/01/01", " 2024-01-01"} {
		if _, ok := parseDateBytes([]byte(text)); ok {
			t.Fatalf("%q parsed", text)
		}
	}
}

// TestParseFloatBytesMatchesParseFloat: the exact fast path (exactFloat)
// and the fallback give strconv.ParseFloat's bits on numbers of every
// length around the fast path's limits (2^53, 19 digits, 22 decimals),
// signs, zeros and points at either end.
func TestParseFloatBytesMatchesParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	texts := []string{"0", "-0", "+0", "0.0", "-0.0", ".5", "5.", "-.5", "9007199254740992", "9007199254740993",
		"9007199254740991.5", "900719925474099.3", "1234567890123456789", "12345678901234567890", "0.1", "0.3",
		"1.0000000000000000000001", "0.0000000000000000000001", "0.00000000000000000000001", "123.456e2"}
	for range 200000 {
		var b strings.Builder
		switch rng.IntN(3) {
		case 0:
			b.WriteByte('-')
		case 1:
			b.WriteByte('+')
		}
		intDigits, fracDigits := rng.IntN(18), rng.IntN(24)
		for range intDigits {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if fracDigits > 0 || intDigits == 0 {
			b.WriteByte('.')
			for range max(fracDigits, 1) {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		texts = append(texts, b.String())
	}
	fast := 0
	for _, text := range texts {
		want, err := strconv.ParseFloat(text, 64)
		got, ok := parseFloatBytes([]byte(text))
		if err != nil || !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: got %v (%x) %v, ParseFloat %v (%x) %v", text, got, math.Float64bits(got), ok, want, math.Float64bits(want), err)
		}
		if _, ok := exactFloat([]byte(text)); ok {
			fast++
		}
	}
	if fast < len(texts)/4 {
		t.Fatalf("the fast path took %d of %d numbers", fast, len(texts))
	}
}

// TestLoadSplitChunksMatchRowPath: records are split a chunk at a time on
// a goroutine of their own (fastTextSource.split); over files of several
// chunks (splitChunkRecords records, splitChunkBytes bytes) with empty
// lines, multi-line quoted fields and a bad record deep in the file, the
// columnar load stores and fails exactly as the row path (same rows, same
// error naming the same line), under plain LOAD DATA and REPLACE.
func TestLoadSplitChunksMatchRowPath(t *testing.T) {
	var good strings.Builder
	line := 1
	badLine := 0
	var withBad strings.Builder
	for k := 1; k <= 3*splitChunkRecords+17; k++ {
		row := fmt.Sprintf("%d,name %d,%d.25\n", k, k, k)
		switch {
		case k%500 == 0:
			row = "\n" + row // an empty line, skipped
		case k%777 == 0:
			row = fmt.Sprintf("%d,\"two\nlines %d\",%d.5\n", k, k, k)
		case k%2000 == 0:
			row = fmt.Sprintf("%d,%s,1\n", k, strings.Repeat("w", 600)) // a long one
		}
		good.WriteString(row)
		if k == 2*splitChunkRecords+5 {
			badLine = line + strings.Count(row, "\n") - 1
			withBad.WriteString(fmt.Sprintf("%d,bad,notanumber\n", k))
		} else {
			withBad.WriteString(row)
		}
		line += strings.Count(row, "\n")
	}
	ddl := "CREATE TABLE t (k INT NOT NULL, s VARCHAR(700), d DOUBLE, PRIMARY KEY (k))"
	query := "SELECT COUNT(*), SUM(k), SUM(d), MAX(s), MIN(s) FROM t"
	stmt := `LOAD DATA INFILE 'a.csv' %sINTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`
	for _, c := range []loadCase{
		{name: "chunks", ok: true, setup: []string{ddl}, files: map[string]string{"a.csv": good.String()}, stmt: fmt.Sprintf(stmt, ""), query: query, columnar: true},
		{name: "chunks replace", ok: true, setup: []string{ddl}, files: map[string]string{"a.csv": good.String()}, stmt: fmt.Sprintf(stmt, "REPLACE "), query: query, columnar: true},
		{name: "chunks bad record", setup: []string{ddl}, files: map[string]string{"a.csv": withBad.String()}, stmt: fmt.Sprintf(stmt, ""), query: query, columnar: true},
		{name: "chunks bad record replace", setup: []string{ddl}, files: map[string]string{"a.csv": withBad.String()}, stmt: fmt.Sprintf(stmt, "REPLACE "), query: query, columnar: true},
	} {
		checkLoadCase(t, c)
	}
	bad, _ := runLoad(t, false, []string{ddl}, map[string]string{"a.csv": withBad.String()}, fmt.Sprintf(stmt, ""), query)
	if want := fmt.Sprintf("line %d, column 3", badLine); !strings.Contains(bad.err, want) {
		t.Fatalf("bad record: %q, want it to name %s", bad.err, want)
	}
}
