package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// upsertOutcome is what a LOAD DATA REPLACE / IGNORE leaves: the table,
// the affected rows, the warnings and their count, or the error.
type upsertOutcome struct {
	table    string
	affected int64
	warnings string
	count    string
	err      string
	versions int
}

// upsertLoadCase is one comparison of the streamed and in-memory paths.
type upsertLoadCase struct {
	name  string
	setup []string
	file  string
	stmt  string // LOAD DATA of 'f.csv'
	query string
}

// runUpsertLoad runs c on a fresh fixture, through the in-memory path
// (loadUpsertInMemory) or the streamed one with batches of batch rows and
// a key budget of budget bytes.
func runUpsertLoad(t *testing.T, c upsertLoadCase, inMemory bool, batch int, budget int64) upsertOutcome {
	t.Helper()
	f, write := loadFixture(t)
	f.s.opts.SortMemory = budget
	f.s.opts.SpillDir = t.TempDir()
	for _, s := range c.setup {
		f.exec(s)
	}
	write("f.csv", c.file)
	defer func(rows int, mem bool) { loadBatchRows, loadUpsertInMemory = rows, mem }(loadBatchRows, loadUpsertInMemory)
	loadBatchRows, loadUpsertInMemory = batch, inMemory
	var out upsertOutcome
	res, err := f.try(c.stmt)
	if err != nil {
		out.err = err.Error()
	} else {
		out.affected = res.RowsAffected
		out.warnings = f.warnings()
		out.count = rowsText(f.rows("SHOW COUNT(*) WARNINGS"))
	}
	out.table = rowsText(f.rows(c.query))
	out.versions = versionCount(f, "t")
	if left, _ := filepath.Glob(filepath.Join(f.s.opts.SpillDir, "*")); len(left) > 0 {
		t.Fatalf("%s: spill files left: %v", c.name, left)
	}
	return out
}

// TestLoadUpsertStreamMatchesInMemory: LOAD DATA REPLACE and IGNORE
// streamed (batches of 1,000,000, 3 and 1 rows; a key budget that holds
// every key and one that spills a run every few keys) leave the table,
// affected rows and warnings the in-memory path leaves: duplicates within
// the file and against stored rows, NULLs in a UNIQUE column (they never
// clash), composite and string keys, a table without keys, and a bad row
// (the statement fails naming its line and column, nothing is committed).
func TestLoadUpsertStreamMatchesInMemory(t *testing.T) {
	pk := []string{"CREATE TABLE t (id INT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))", "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (5, 'five')"}
	pkFile := "2,a\n7,b\n7,c\n3,d\n9,e\n2,f\n7,g\n11,i\n5,j\n"
	uniq := []string{"CREATE TABLE t (id INT, e VARCHAR(10) UNIQUE, v INT)", "INSERT INTO t VALUES (1, 'x', 1), (2, NULL, 2), (3, 'y', 3)"}
	uniqFile := "10,\\N,1\n11,x,2\n12,\\N,3\n13,z,4\n14,z,5\n15,y,6\n16,\\N,7\n17,w,8\n"
	comp := []string{"CREATE TABLE t (a INT NOT NULL, b VARCHAR(10) NOT NULL, v INT, PRIMARY KEY (a, b))", "INSERT INTO t VALUES (1, 'p', 1), (1, 'q', 2), (2, 'p', 3)"}
	compFile := "1,q,10\n2,q,11\n1,p,12\n2,q,13\n3,p,14\n1,pq,15\n12,p,16\n"
	str := []string{"CREATE TABLE t (k VARCHAR(10) NOT NULL, v INT, PRIMARY KEY (k))", "INSERT INTO t VALUES ('a', 1), ('b', 2)"}
	strFile := "b,1\nc,2\nc,3\na,4\nd,5\nb,6\n"
	dated := []string{"CREATE TABLE t (d DATE NOT NULL, x DOUBLE, v INT, PRIMARY KEY (d))", "INSERT INTO t VALUES ('2024-01-02', 1.5, 1)"}
	datedFile := "2024-01-02,2.5,2\n2024-01-03,3.25,3\n2024-01-03,4,4\n"
	dbl := []string{"CREATE TABLE t (x DOUBLE NOT NULL, v INT, PRIMARY KEY (x))", "INSERT INTO t VALUES (1.5, 1), (2, 2)"}
	dblFile := "1.5,10\n2.0,20\n3.25,30\n3.25,31\n1e3,40\n1000,41\n"
	nokey := []string{"CREATE TABLE t (id INT, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'one')"}
	bad := "3,ok\n4,fine\n7,x\nseven,bad\n"
	var cases []upsertLoadCase
	for _, mode := range []string{"REPLACE", "IGNORE"} {
		stmt := fmt.Sprintf(`LOAD DATA INFILE 'f.csv' %s INTO TABLE t FIELDS TERMINATED BY ','`, mode)
		cases = append(cases,
			upsertLoadCase{mode + " primary key", pk, pkFile, stmt, "SELECT id, v FROM t ORDER BY id"},
			upsertLoadCase{mode + " indexed key", append(slices.Clone(pk), "CREATE INDEX id_idx ON t (id)", "INSERT INTO t VALUES (12, 'twelve')"), pkFile + "12,k\n", stmt, "SELECT id, v FROM t ORDER BY id"},
			upsertLoadCase{mode + " unique with NULLs", uniq, uniqFile, stmt, "SELECT id, e, v FROM t ORDER BY id"},
			upsertLoadCase{mode + " composite key", comp, compFile, stmt, "SELECT a, b, v FROM t ORDER BY a, b"},
			upsertLoadCase{mode + " string key", str, strFile, stmt, "SELECT k, v FROM t ORDER BY k"},
			upsertLoadCase{mode + " no key", nokey, pkFile, stmt, "SELECT id, v FROM t ORDER BY id, v"},
			upsertLoadCase{mode + " date key", dated, datedFile, stmt, "SELECT d, x, v FROM t ORDER BY d"},
			upsertLoadCase{mode + " double key", dbl, dblFile, stmt, "SELECT x, v FROM t ORDER BY x"},
			upsertLoadCase{mode + " every row stored", pk, "1,a\n2,b\n1,c\n", stmt, "SELECT id, v FROM t ORDER BY id"},
			upsertLoadCase{mode + " bad row", pk, bad, stmt, "SELECT id, v FROM t ORDER BY id"},
		)
	}
	for _, c := range cases {
		want := runUpsertLoad(t, c, true, 1<<20, 0)
		for _, batch := range []int{1 << 20, 3, 1} {
			for _, budget := range []int64{0, 3 * (keyEntryBytes + 4)} {
				got := runUpsertLoad(t, c, false, batch, budget)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s (batches of %d, key budget %d):\nstreamed  %+v\nin memory %+v", c.name, batch, budget, got, want)
				}
			}
		}
	}
	// The cases say something: REPLACE replaced, IGNORE warned, the bad row failed.
	got := runUpsertLoad(t, cases[0], false, 3, 0)
	if got.affected != 9+3+2 || !strings.Contains(got.table, "2|f\n3|d\n5|j\n7|g\n") {
		t.Fatalf("REPLACE: %+v", got)
	}
	got = runUpsertLoad(t, cases[10], false, 3, 0)
	if got.affected != 4 || got.count != "5\n" || !strings.Contains(got.warnings, "Warning 1062 Duplicate entry '2' for key 'PRIMARY'") || !strings.Contains(got.table, "2|two\n3|d\n5|five\n7|b\n") {
		t.Fatalf("IGNORE: %+v", got)
	}
	if got := runUpsertLoad(t, cases[9], false, 1, 0); !strings.Contains(got.err, "line 4, column 1") || got.table != "1|one\n2|two\n5|five\n" {
		t.Fatalf("bad row: %+v", got)
	}
}

// TestLoadUpsertPastMaxRows: a REPLACE and an IGNORE of 30 times MaxRows
// rows (half of them keys the table holds, a tenth repeated within the
// file) succeed within a 64 KiB key budget, spilling sorted runs, and
// leave one row per key with the right version of it; the in-memory path
// refuses the same load.
func TestLoadUpsertPastMaxRows(t *testing.T) {
	f, write := keyedLoadFixture(t, 64<<10)
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id))")
	write("a.csv", csvRows(0, 20000))
	f.exec(`LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ','`)
	var b strings.Builder
	for i := 10000; i < 40000; i++ {
		fmt.Fprintf(&b, "%d,r%d\n", i, i)
	}
	for i := 10000; i < 13000; i++ {
		fmt.Fprintf(&b, "%d,again%d\n", i, i) // repeats of the file's own rows
	}
	write("b.csv", b.String())
	t.Cleanup(func() { loadUpsertInMemory = false })
	loadUpsertInMemory = true
	f.fails(`LOAD DATA INFILE 'b.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','`, catalog.CodeInvalidInput, "split the file")
	loadUpsertInMemory = false

	runs := loadKeyRuns.Load()
	res := f.exec(`LOAD DATA INFILE 'b.csv' IGNORE INTO TABLE t FIELDS TERMINATED BY ','`)
	if res.RowsAffected != 20000 {
		t.Fatalf("IGNORE: %d rows affected, want 20000", res.RowsAffected)
	}
	if spilled := loadKeyRuns.Load() - runs; spilled < 2 {
		t.Fatalf("IGNORE spilled %d runs, want several", spilled)
	}
	if got := rowsText(f.rows("SHOW COUNT(*) WARNINGS")); got != "13000\n" {
		t.Fatalf("IGNORE: %s warnings, want 13000", got)
	}
	if got := rowsText(f.rows("SELECT COUNT(*), COUNT(DISTINCT id), SUM(name LIKE 'n%'), SUM(name LIKE 'r%'), SUM(name LIKE 'again%') FROM t")); got != "40000|40000|20000|20000|0\n" {
		t.Fatalf("after IGNORE: %s", got)
	}
	res = f.exec(`LOAD DATA INFILE 'b.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','`)
	// 33,000 rows inserted, 3,000 of them replaced by a later row, 30,000 stored rows replaced.
	if res.RowsAffected != 33000+3000+30000 {
		t.Fatalf("REPLACE: %d rows affected", res.RowsAffected)
	}
	if got := rowsText(f.rows("SELECT COUNT(*), COUNT(DISTINCT id), SUM(name LIKE 'n%'), SUM(name LIKE 'r%'), SUM(name LIKE 'again%') FROM t")); got != "40000|40000|10000|27000|3000\n" {
		t.Fatalf("after REPLACE: %s", got)
	}
	if left, _ := os.ReadDir(f.s.opts.SpillDir); len(left) > 0 {
		t.Fatalf("spill files left: %d", len(left))
	}
}

// TestLoadUpsertConcurrentCommit: a commit of another session between a
// streamed REPLACE / IGNORE's key decisions and its commit makes it decide
// the table side again on the latest version: REPLACE also replaces the
// row the other session inserted, IGNORE skips the file's row holding its
// key; each statement is one version of its own.
func TestLoadUpsertConcurrentCommit(t *testing.T) {
	for _, mode := range []string{"REPLACE", "IGNORE"} {
		f, other := twoSessions(t)
		dir := t.TempDir()
		f.s.opts.LoadDataDir = dir
		if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f.exec("CREATE TABLE t (id INT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))")
		f.exec("INSERT INTO t VALUES (1, 'one')")
		ran := false
		beforeUpsertCommit = func() {
			if !ran {
				ran = true
				other.exec("INSERT INTO t VALUES (3, 'other')")
			}
		}
		res, err := f.try(fmt.Sprintf(`LOAD DATA INFILE 'f.csv' %s INTO TABLE t FIELDS TERMINATED BY ','`, mode))
		beforeUpsertCommit = nil
		if err != nil || !ran {
			t.Fatalf("%s: %v (hook ran %v)", mode, err, ran)
		}
		got := rowsText(f.rows("SELECT id, v FROM t ORDER BY id"))
		want, affected := "1|a\n2|b\n3|c\n", int64(3+2)
		if mode == "IGNORE" {
			want, affected = "1|one\n2|b\n3|other\n", 1
		}
		if got != want || res.RowsAffected != affected {
			t.Fatalf("%s: %d rows affected\n%s\nwant %d\n%s", mode, res.RowsAffected, got, affected, want)
		}
		if n := versionCount(f, "t"); n != 4 {
			t.Fatalf("%s: %d versions, want create, insert, the other insert and the load", mode, n)
		}
	}
}

// TestLoadUpsertCancelled: a cancelled streamed REPLACE commits nothing.
func TestLoadUpsertCancelled(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE t (id INT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))")
	f.exec("INSERT INTO t VALUES (1, 'one')")
	write("f.csv", csvRows(0, 100))
	before := versionCount(f, "t")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.s.Exec(ctx, mustParse(t, `LOAD DATA INFILE 'f.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled load: %v", err)
	}
	if n := versionCount(f, "t"); n != before {
		t.Fatalf("%d versions after a cancelled load, want %d", n, before)
	}
	if got := rowsText(f.rows("SELECT id, v FROM t")); got != "1|one\n" {
		t.Fatalf("after a cancelled load:\n%s", got)
	}
}

// TestLoadUpsertGivesUp: a streamed REPLACE that loses every commit race
// fails after upsertAttempts attempts and leaves none of its data files.
func TestLoadUpsertGivesUp(t *testing.T) {
	f, other := twoSessions(t)
	dir := t.TempDir()
	f.s.opts.LoadDataDir = dir
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte("1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.exec("CREATE TABLE t (id INT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))")
	dataFiles := func() int {
		objs, err := f.s.opts.Store.List(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range objs {
			if strings.Contains(o.Path, "/data/") {
				n++
			}
		}
		return n
	}
	n := 100
	beforeUpsertCommit = func() {
		n++
		other.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, 'other')", n))
	}
	defer func() { beforeUpsertCommit = nil }()
	before := dataFiles()
	_, err := f.try(`LOAD DATA INFILE 'f.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','`)
	beforeUpsertCommit = nil
	if err == nil || n-100 != upsertAttempts {
		t.Fatalf("a load losing every race: %v after %d attempts", err, n-100)
	}
	if got, want := dataFiles(), before+upsertAttempts; got != want {
		t.Fatalf("%d data files, want %d (the other session's only)", got, want)
	}
}
