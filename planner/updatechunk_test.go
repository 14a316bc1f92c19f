package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestUpdateWritesInChunks: issue 19 finding 6. An UPDATE built every
// replacement row in memory before writing any (SET v = NULL on 1,000 rows
// of 2 x VECTOR(65536): 2 GB peak RSS). It now writes its rows in chunks of
// updateChunkBytes as data files, committed as one Update version; forced
// here to one row per chunk. The answers are those of one batch: the rows,
// one new version, UNIQUE duplicates between chunks refused with nothing
// left behind, and the AUTO_INCREMENT counter moved past the largest value
// of any chunk.
func TestUpdateWritesInChunks(t *testing.T) {
	saved := updateChunkBytes
	updateChunkBytes = 1
	t.Cleanup(func() { updateChunkBytes = saved })

	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE u (id BIGINT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(20), k INT UNIQUE, v VECTOR(2))")
	var vals []string
	for i := 1; i <= 6; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 'r%d', %d, '[%d, 0]')", i, i, i, i))
	}
	f.exec("INSERT INTO u VALUES " + strings.Join(vals, ", "))
	loc := f.describe("u").Location
	dataFiles := func() int {
		t.Helper()
		objs, err := f.s.opts.Store.List(context.Background(), loc+"/data/")
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}
	versions := func() int { return len(f.rows("SHOW VERSIONS FROM u")) }
	files0, versions0 := dataFiles(), versions()

	f.exec("UPDATE u SET s = CONCAT(s, '!'), k = k + 10 WHERE id > 2")
	if got, want := dataFiles()-files0, 4; got != want {
		t.Errorf("UPDATE of 4 rows with one row per chunk wrote %d data files, want %d", got, want)
	}
	if got := versions() - versions0; got != 1 {
		t.Errorf("UPDATE committed %d versions, want 1", got)
	}
	got := fmt.Sprint(f.rows("SELECT id, s, k, v FROM u ORDER BY id"))
	want := "[[1 r1 1 [1,0]] [2 r2 2 [2,0]] [3 r3! 13 [3,0]] [4 r4! 14 [4,0]] [5 r5! 15 [5,0]] [6 r6! 16 [6,0]]]"
	if got != want {
		t.Errorf("rows after the chunked UPDATE:\n got %s\nwant %s", got, want)
	}

	// Rows 3 and 4 get the same k in different chunks.
	files1, versions1 := dataFiles(), versions()
	f.fails("UPDATE u SET k = 7 WHERE id IN (3, 4)", catalog.CodeInvalidInput, "duplicate entry")
	// Row 5's new k collides with row 1, which the UPDATE does not change.
	f.fails("UPDATE u SET k = 1 WHERE id = 5", catalog.CodeInvalidInput, "duplicate entry")
	if dataFiles() != files1 || versions() != versions1 {
		t.Errorf("a refused UPDATE left %d data files and %d versions behind", dataFiles()-files1, versions()-versions1)
	}

	// The counter moves past the largest id any chunk writes.
	f.exec("UPDATE u SET id = id + 100 WHERE id IN (1, 6)")
	f.exec("INSERT INTO u (s) VALUES ('new')")
	if got := fmt.Sprint(f.rows("SELECT id FROM u WHERE s = 'new'")); got != "[[107]]" {
		t.Errorf("id after UPDATE to 106 and an INSERT: %s, want [[107]]", got)
	}
}
