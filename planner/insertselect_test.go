package planner

import (
	"reflect"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestInsertSelect: INSERT ... SELECT takes its rows from any query
// (computed columns, joins, aggregates, the target table itself read as it
// was before the statement), with the checks and upsert forms of INSERT ...
// VALUES, and writes nothing when a row fails.
func TestInsertSelect(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE src (id BIGINT NOT NULL, name VARCHAR(10), grp INT)`)
	f.exec(`INSERT INTO src VALUES (1, 'a', 1), (2, 'b', 1), (3, NULL, 2)`)
	f.exec(`CREATE TABLE dst (id BIGINT NOT NULL, name VARCHAR(10) NOT NULL DEFAULT 'none', n BIGINT, UNIQUE KEY (id))`)

	if res := f.exec(`INSERT INTO dst (id, n) SELECT id * 10, grp FROM src WHERE id < 3`); res.RowsAffected != 2 {
		t.Fatalf("INSERT ... SELECT affected %d rows, want 2", res.RowsAffected)
	}
	// The same table as the source reads its rows before the statement: once, not forever.
	f.exec(`CREATE TABLE twice (v INT)`)
	f.exec(`INSERT INTO twice VALUES (1), (2)`)
	f.exec(`INSERT INTO twice SELECT v + 10 FROM twice`)
	if got := f.rows(`SELECT v FROM twice ORDER BY v`); !reflect.DeepEqual(got, [][]any{{int64(1)}, {int64(2)}, {int64(11)}, {int64(12)}}) {
		t.Fatalf("self INSERT ... SELECT: %v", got)
	}
	// Aggregates and a join.
	f.exec(`INSERT INTO dst SELECT s.grp + 100, COALESCE(MAX(s2.name), 'z'), COUNT(*) FROM src s JOIN src s2 ON s.grp = s2.grp GROUP BY s.grp`)
	want := [][]any{{int64(10), "none", int64(1)}, {int64(20), "none", int64(1)}, {int64(101), "b", int64(4)}, {int64(102), "z", int64(1)}}
	if got := f.rows(`SELECT id, name, n FROM dst ORDER BY id`); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows after INSERT ... SELECT:\n got %v\nwant %v", got, want)
	}

	// Errors: nothing is written.
	before := f.rows(`SELECT COUNT(*) FROM dst`)
	f.fails(`INSERT INTO dst (id, name) SELECT id + 500, name FROM src`, catalog.CodeInvalidInput, "NOT NULL")
	f.fails(`INSERT INTO dst (id) SELECT 10 FROM src WHERE id = 1`, catalog.CodeInvalidInput, "duplicate entry")
	f.fails(`INSERT INTO dst (id) SELECT id, name FROM src`, catalog.CodeInvalidInput, "2 values for 1 columns")
	f.fails(`INSERT INTO dst SELECT * FROM nosuch`, catalog.CodeTableNotFound, "")
	if got := f.rows(`SELECT COUNT(*) FROM dst`); !reflect.DeepEqual(got, before) {
		t.Fatalf("a failed INSERT ... SELECT changed the row count: %v -> %v", before, got)
	}
	// An empty query inserts nothing.
	if res := f.exec(`INSERT INTO dst (id) SELECT id FROM src WHERE id > 99`); res.RowsAffected != 0 {
		t.Fatalf("empty INSERT ... SELECT affected %d", res.RowsAffected)
	}
	// IGNORE skips the taken key; ON DUPLICATE KEY UPDATE updates it.
	if res := f.exec(`INSERT IGNORE INTO dst (id, n) SELECT id * 10, 7 FROM src`); res.RowsAffected != 1 {
		t.Fatalf("INSERT IGNORE ... SELECT affected %d, want 1 (only 30 is new)", res.RowsAffected)
	}
	f.exec(`INSERT INTO dst (id, n) SELECT id * 10, 99 FROM src WHERE id = 1 ON DUPLICATE KEY UPDATE n = VALUES(n) + 1`)
	if got := f.rows(`SELECT n FROM dst WHERE id IN (10, 30) ORDER BY id`); !reflect.DeepEqual(got, [][]any{{int64(100)}, {int64(7)}}) {
		t.Fatalf("upserts from SELECT: %v", got)
	}

	// Into a table the transaction creates: deferred to COMMIT like VALUES.
	f.exec(`BEGIN`)
	f.exec(`CREATE TABLE fresh (id BIGINT, name VARCHAR(10))`)
	if res := f.exec(`INSERT INTO fresh SELECT id, name FROM src`); res.RowsAffected != 3 {
		t.Fatalf("deferred INSERT ... SELECT reported %d rows", res.RowsAffected)
	}
	f.exec(`COMMIT`)
	if got := f.rows(`SELECT COUNT(*), COUNT(name) FROM fresh`); !reflect.DeepEqual(got, [][]any{{int64(3), int64(2)}}) {
		t.Fatalf("after COMMIT: %v", got)
	}
}
