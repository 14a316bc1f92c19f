package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestInsertWritesInChunks: issue 19 finding 6. An INSERT built every row
// in memory before one write (1,000 NULL VECTOR(65536) rows: about 600 MB
// peak RSS for 256 MiB of rows). It now writes its rows in chunks of
// insertChunkBytes as data files, committed as one Append version; forced
// here to one row per chunk. The answers are those of one batch: the rows,
// one Append version, and a refused INSERT (NOT NULL, range, UNIQUE within
// the statement across chunks and against the table, an AUTO_INCREMENT
// value out of range) leaves no data file and no version behind, even when
// it is refused after earlier chunks were written.
func TestInsertWritesInChunks(t *testing.T) {
	saved := insertChunkBytes
	insertChunkBytes = 1
	t.Cleanup(func() { insertChunkBytes = saved })

	f := newDataFixture(t, Options{})
	dataFiles := func(table string) int {
		t.Helper()
		objs, err := f.s.opts.Store.List(context.Background(), f.describe(table).Location+"/data/")
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}
	ops := func(table string, from int) []any {
		var out []any
		for _, v := range f.rows("SHOW VERSIONS FROM " + table)[from:] {
			out = append(out, v[2])
		}
		return out
	}
	versions := func(table string) int { return len(f.rows("SHOW VERSIONS FROM " + table)) }

	f.exec("CREATE TABLE c (s VARCHAR(20) NOT NULL, k INT UNIQUE, n TINYINT, v VECTOR(2))")
	files0, versions0 := dataFiles("c"), versions("c")
	f.exec("INSERT INTO c VALUES ('a', 1, 10, '[1, 0]'), ('b', NULL, NULL, NULL), ('c', 3, 30, '[3, 0]'), ('d', 4, -40, '[4, 0]')")
	if got, want := dataFiles("c")-files0, 4; got != want {
		t.Errorf("INSERT of 4 rows with one row per chunk wrote %d data files, want %d", got, want)
	}
	if got := fmt.Sprint(ops("c", versions0)); got != "[Append]" {
		t.Errorf("INSERT committed the versions %s, want one Append", got)
	}
	got := fmt.Sprint(f.rows("SELECT s, k, n, v FROM c ORDER BY s"))
	if want := "[[a 1 10 [1,0]] [b <nil> <nil> <nil>] [c 3 30 [3,0]] [d 4 -40 [4,0]]]"; got != want {
		t.Errorf("rows after the chunked INSERT:\n got %s\nwant %s", got, want)
	}

	// Each is refused in its last row, after three chunks were staged.
	files1, versions1 := dataFiles("c"), versions("c")
	f.fails("INSERT INTO c VALUES ('e', 5, 1, NULL), ('f', 6, 1, NULL), ('g', 7, 1, NULL), (NULL, 8, 1, NULL)", catalog.CodeInvalidInput, "row 4: column s is NOT NULL")
	f.fails("INSERT INTO c VALUES ('e', 5, 1, NULL), ('f', 6, 1, NULL), ('g', 7, 1, NULL), ('h', 8, 128, NULL)", catalog.CodeInvalidInput, "row 4, column n")
	f.fails("INSERT INTO c VALUES ('e', 5, 1, NULL), ('f', 6, 1, NULL), ('g', 7, 1, NULL), ('h', 5, 1, NULL)", catalog.CodeInvalidInput, "duplicate entry '5' for UNIQUE column k (rows 1 and 4)")
	f.fails("INSERT INTO c VALUES ('e', 5, 1, NULL), ('f', 6, 1, NULL), ('g', 7, 1, NULL), ('h', 3, 1, NULL)", catalog.CodeInvalidInput, "the table already holds it")
	if dataFiles("c") != files1 || versions("c") != versions1 {
		t.Errorf("refused INSERTs left %d data files and %d versions behind", dataFiles("c")-files1, versions("c")-versions1)
	}

	// INSERT ... SELECT takes the same path.
	files2, versions2 := dataFiles("c"), versions("c")
	f.exec("INSERT INTO c SELECT CONCAT(s, '2'), k + 100, n, v FROM c WHERE k IS NOT NULL")
	if got, want := dataFiles("c")-files2, 3; got != want {
		t.Errorf("INSERT ... SELECT of 3 rows with one row per chunk wrote %d data files, want %d", got, want)
	}
	if got := fmt.Sprint(ops("c", versions2)); got != "[Append]" {
		t.Errorf("INSERT ... SELECT committed the versions %s, want one Append", got)
	}
	got = fmt.Sprint(f.rows("SELECT s, k, n, v FROM c WHERE k > 100 ORDER BY s"))
	if want := "[[a2 101 10 [1,0]] [c2 103 30 [3,0]] [d2 104 -40 [4,0]]]"; got != want {
		t.Errorf("rows of the chunked INSERT ... SELECT:\n got %s\nwant %s", got, want)
	}

	// AUTO_INCREMENT: ids are reserved once (one UpdateConfig) and handed
	// out across chunks; a value out of the column's range in a late chunk
	// is refused before the reservation commits.
	f.exec("CREATE TABLE a (id TINYINT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(20) NOT NULL)")
	versionsA := versions("a")
	res := f.exec("INSERT INTO a (s) VALUES ('x'), ('y'), ('z')")
	if res.LastInsertID != 1 {
		t.Errorf("LastInsertID %d, want 1", res.LastInsertID)
	}
	if got := fmt.Sprint(ops("a", versionsA)); got != "[UpdateConfig Append]" {
		t.Errorf("INSERT with ids committed the versions %s, want one UpdateConfig and one Append", got)
	}
	if got := fmt.Sprint(f.rows("SELECT id, s FROM a ORDER BY id")); got != "[[1 x] [2 y] [3 z]]" {
		t.Errorf("ids across chunks: %s", got)
	}
	files3, versions3 := dataFiles("a"), versions("a")
	f.fails("INSERT INTO a VALUES (NULL, 'p'), (NULL, 'q'), (200, 'r')", catalog.CodeInvalidInput, "row 3, column id")
	f.fails("INSERT INTO a (s) VALUES ('p'), ('q'), (NULL)", catalog.CodeInvalidInput, "row 3: column s is NOT NULL")
	if dataFiles("a") != files3 || versions("a") != versions3 {
		t.Errorf("refused INSERTs with ids left %d data files and %d versions behind", dataFiles("a")-files3, versions("a")-versions3)
	}
}
