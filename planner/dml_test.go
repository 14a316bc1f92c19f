package planner

import (
	"reflect"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestDeleteUpdate: DELETE and UPDATE with WHERE change exactly the
// matching rows, report RowsAffected, keep the other columns' values and
// enforce UNIQUE; the table's versions record Delete and Update.
func TestDeleteUpdate(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id INT AUTO_INCREMENT, name VARCHAR(9) UNIQUE, n INT DEFAULT 7, at DATETIME(3), ok BOOLEAN, PRIMARY KEY (id))")
	f.exec("INSERT INTO t (name, n, at, ok) VALUES ('a', 1, '2024-01-02 03:04:05.678', TRUE), ('b', 2, NULL, FALSE), ('c', 3, NULL, NULL), ('d', 4, NULL, TRUE)")
	if res := f.exec("DELETE FROM t WHERE n = 2 OR name = 'zz'"); res.RowsAffected != 1 {
		t.Errorf("DELETE affected %d, want 1", res.RowsAffected)
	}
	f.fails("UPDATE t SET n = 30, name = 'cc' WHERE id >= 3", catalog.CodeInvalidInput, "duplicate entry 'cc' for UNIQUE column name (rows 1 and 2)")
	if res := f.exec("UPDATE t SET n = 30 WHERE id >= 3"); res.RowsAffected != 2 {
		t.Errorf("UPDATE affected %d, want 2", res.RowsAffected)
	}
	f.exec("UPDATE t SET name = 'cc', at = '2025-05-05 05:05:05' WHERE name = 'c'")
	f.exec("UPDATE t SET n = DEFAULT, ok = FALSE WHERE name = 'a'")
	if res := f.exec("UPDATE t SET n = 5 WHERE id = 99"); res.RowsAffected != 0 {
		t.Errorf("UPDATE of nothing affected %d", res.RowsAffected)
	}
	got := f.rows("SELECT id, name, n, at, ok FROM t ORDER BY id")
	want := [][]any{
		{int64(1), "a", int64(7), ts("2024-01-02 03:04:05.678"), false},
		{int64(3), "cc", int64(30), ts("2025-05-05 05:05:05"), nil},
		{int64(4), "d", int64(30), nil, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
	f.fails("UPDATE t SET name = 'a' WHERE id = 3", catalog.CodeInvalidInput, "duplicate entry 'a'")
	f.exec("UPDATE t SET name = 'a' WHERE id = 1") // its own value: no collision
	f.fails("UPDATE t SET nosuch = 1", catalog.CodeInvalidInput, "unknown column nosuch")
	f.fails("DELETE FROM t WHERE nosuch = 1", catalog.CodeInvalidInput, "unknown column nosuch")
	f.fails("UPDATE t SET n = 1, n = 2", catalog.CodeInvalidInput, "assigned twice")
	f.fails("UPDATE t SET name = NULL, id = NULL WHERE id = 1", catalog.CodeInvalidInput, "NOT NULL")
	f.exec("START TRANSACTION READ ONLY")
	f.fails("DELETE FROM t", catalog.CodeInvalidInput, "READ ONLY")
	f.exec("ROLLBACK")

	if res := f.exec("DELETE FROM t"); res.RowsAffected != 3 {
		t.Errorf("DELETE all affected %d", res.RowsAffected)
	}
	if got := f.rows("SELECT COUNT(*) FROM t"); got[0][0] != int64(0) {
		t.Errorf("after DELETE all: %v", got)
	}
}
