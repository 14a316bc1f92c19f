package planner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

func loadOpts() *sqlparse.LoadData {
	return &sqlparse.LoadData{FieldsTerminated: ",", FieldsTerminatedSet: true, Enclosed: `"`, EnclosedSet: true}
}

// TestLoadReader: fields, enclosed fields (doubled quotes, separators and newlines inside),
// escapes, \N, and the line a record starts on.
func TestLoadReader(t *testing.T) {
	lr := newLoadReader(bytes.NewReader([]byte("a,\"b,\"\"c\"\"\"\n\\N,\"x\ny\"\n1\\t2,\n")), loadOpts())
	var got [][]loadField
	var lines []int
	for {
		rec, err := lr.record()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
		lines = append(lines, lr.recLine)
	}
	want := [][]loadField{{{text: "a"}, {text: `b,"c"`}}, {{null: true}, {text: "x\ny"}}, {{text: "1\t2"}, {text: ""}}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(lines, []int{1, 2, 4}) {
		t.Fatalf("records %+v lines %v", got, lines)
	}
	if _, err := newLoadReader(bytes.NewReader([]byte("\"open")), loadOpts()).record(); err == nil {
		t.Fatal("an unclosed quote parsed")
	}
}

// FuzzLoadReader: any bytes split into records or fail with an error, never a panic or a
// record past the length bound (also with LINES STARTING BY and "\r\n" line ends).
func FuzzLoadReader(f *testing.F) {
	f.Add([]byte("a,\"b,\"\"c\"\"\"\n\\N,\"x\ny\"\n"))
	f.Add([]byte("\"\"\"\n\\"))
	f.Add([]byte("x\nabq,\"r\"\nab"))
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := loadOpts()
		if len(b) > 0 && b[0]&1 == 1 { // LINES STARTING BY and "\r\n" too
			opts.LinesStarting, opts.LinesStartingSet = "ab", true
		}
		lr := newLoadReader(bytes.NewReader(b), opts)
		lr.crlf = len(b) > 1 && b[1]&1 == 1
		for i := 0; i <= len(b)+1; i++ {
			rec, err := lr.record()
			if err != nil {
				return
			}
			n := 0
			for _, f := range rec {
				n += len(f.text)
			}
			if n > len(b) {
				t.Fatalf("record of %d bytes from %d", n, len(b))
			}
		}
		t.Fatal("more records than bytes")
	})
}

// loadFixture is a data fixture whose LOAD DATA / IMPORT INTO reads dir.
func loadFixture(t *testing.T) (*fixture, func(name, text string)) {
	t.Helper()
	dir := t.TempDir()
	f := newDataFixture(t, Options{LoadDataDir: dir})
	return f, func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func versionCount(f *fixture, table string) int { return len(f.rows("SHOW VERSIONS FROM " + table)) }

func rowsText(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte('|')
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				fmt.Fprint(&b, v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestLoadDataAutoIncrementUnique: LOAD DATA assigns AUTO_INCREMENT ids as INSERT does
// (NULL, 0 and an omitted column get one, an explicit value is kept and moves the counter,
// the next INSERT continues after), and a duplicate of a UNIQUE column, inside the file or
// against the table, fails the statement naming the line and commits nothing.
func TestLoadDataAutoIncrementUnique(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE t (id BIGINT AUTO_INCREMENT, code VARCHAR(10) UNIQUE, n INT, PRIMARY KEY (id))")
	write("a.csv", "\\N,a,1\n0,b,2\n10,c,3\n\\N,d,4\n")
	if res := f.exec(`LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`); res.RowsAffected != 4 || res.LastInsertID == 0 {
		t.Fatalf("LOAD DATA: %d rows, last insert id %d", res.RowsAffected, res.LastInsertID)
	}
	f.exec("INSERT INTO t (code, n) VALUES ('e', 5)")
	got := rowsText(f.rows("SELECT code, id FROM t ORDER BY code"))
	// As MariaDB: rows are numbered in order, the explicit 10 moves the next id past it; a load
	// reserves ids in intervals of 1, 2, 4, ... (1; 2-3; 11-14), so the INSERT after it gets 15.
	if got != "a|1\nb|2\nc|10\nd|11\ne|15\n" {
		t.Fatalf("rows:\n%s", got)
	}
	write("b.csv", "x,1\ny,2\n")
	f.exec(`LOAD DATA INFILE 'b.csv' INTO TABLE t FIELDS TERMINATED BY ',' (code, n)`)
	if got := rowsText(f.rows("SELECT code, id FROM t WHERE code IN ('x', 'y') ORDER BY code")); got != "x|16\ny|17\n" {
		t.Fatalf("omitted AUTO_INCREMENT column:\n%s", got)
	}
	before := versionCount(f, "t")
	write("dup.csv", "p,1\nq,2\np,3\n")
	f.fails(`LOAD DATA INFILE 'dup.csv' INTO TABLE t FIELDS TERMINATED BY ',' (code, n)`, catalog.CodeInvalidInput, "line 3: duplicate entry 'p' for UNIQUE column code (also at line 1)")
	write("dup2.csv", "p,1\nc,2\n")
	f.fails(`LOAD DATA INFILE 'dup2.csv' INTO TABLE t FIELDS TERMINATED BY ',' (code, n)`, catalog.CodeInvalidInput, "the table already holds it")
	// SERIAL is UNIQUE: an explicit id the table holds is refused.
	f.exec("CREATE TABLE s (id SERIAL, n INT)")
	write("s.csv", "\\N,1\n\\N,2\n")
	f.exec(`LOAD DATA INFILE 's.csv' INTO TABLE s FIELDS TERMINATED BY ','`)
	write("dup3.csv", "\\N,3\n2,4\n")
	f.fails(`LOAD DATA INFILE 'dup3.csv' INTO TABLE s FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput, "duplicate entry '2' for UNIQUE column id (the table already holds it)")
	if n := len(f.rows("SELECT id FROM t")); n != 7 {
		t.Fatalf("failed loads left %d rows, want 7", n)
	}
	// Reservations of ids may commit (UpdateConfig, as INSERT's), never rows.
	for _, v := range f.rows("SHOW VERSIONS FROM t")[before:] {
		if v[2] == "Append" {
			t.Fatalf("a failed LOAD DATA appended: %v", v)
		}
	}
}

// TestLoadDataStartingByVarsSet: LINES STARTING BY skips to the prefix and drops lines
// without it (MySQL's manual example), and user variables of the column list feed SET.
func TestLoadDataStartingByVarsSet(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE t (s VARCHAR(10), n INT)")
	write("p.txt", "xxx\"abc\",1\nsomething xxx\"def\",2\n\"ghi\",3\n")
	res := f.exec(`LOAD DATA INFILE 'p.txt' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"' LINES STARTING BY 'xxx'`)
	if got := rowsText(f.rows("SELECT s, n FROM t ORDER BY n")); res.RowsAffected != 2 || got != "abc|1\ndef|2\n" {
		t.Fatalf("STARTING BY: %d rows\n%s", res.RowsAffected, got)
	}
	f.exec("CREATE TABLE u (a INT, b INT, c VARCHAR(20), d INT DEFAULT 9)")
	write("v.csv", "1,skip,2,x\n3,skip,4,\\N\n")
	f.exec(`LOAD DATA INFILE 'v.csv' INTO TABLE u FIELDS TERMINATED BY ',' (a, @skip, @b, @c) SET b = @b * 10 + a, c = CONCAT(COALESCE(@c, 'none'), '-', a)`)
	if got := rowsText(f.rows("SELECT a, b, c, d FROM u ORDER BY a")); got != "1|21|x-1|9\n3|43|none-3|9\n" {
		t.Fatalf("@vars and SET:\n%s", got)
	}
	f.fails(`LOAD DATA INFILE 'v.csv' INTO TABLE u FIELDS TERMINATED BY ',' (a, @x, @y, @z) SET b = @w`, catalog.CodeUnsupported, "@w")
	f.fails(`LOAD DATA INFILE 'v.csv' INTO TABLE u FIELDS TERMINATED BY ',' (a, @x, @y, @z) SET nope = 1`, catalog.CodeInvalidInput, "nope")
}

// TestLoadDataReplaceIgnore: REPLACE replaces the row holding a UNIQUE or PRIMARY KEY value
// (affected rows count the deleted rows too, as MySQL's), IGNORE keeps the stored row and
// skips the file's; without either a duplicate fails.
func TestLoadDataReplaceIgnore(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE t (id INT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))")
	f.exec("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
	write("r.csv", "2,TWO\n3,three\n3,THREE\n")
	res := f.exec(`LOAD DATA INFILE 'r.csv' IGNORE INTO TABLE t FIELDS TERMINATED BY ','`)
	if got := rowsText(f.rows("SELECT id, v FROM t ORDER BY id")); res.RowsAffected != 1 || got != "1|one\n2|two\n3|three\n" {
		t.Fatalf("IGNORE: %d rows\n%s", res.RowsAffected, got)
	}
	res = f.exec(`LOAD DATA INFILE 'r.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','`)
	if got := rowsText(f.rows("SELECT id, v FROM t ORDER BY id")); res.RowsAffected != 6 || got != "1|one\n2|TWO\n3|THREE\n" {
		t.Fatalf("REPLACE: %d rows\n%s", res.RowsAffected, got)
	}
}
