package driver_test

import (
	"context"
	"testing"
)

// TestInsertResultAndLimitPlaceholder: Exec of an INSERT reports
// RowsAffected and the first AUTO_INCREMENT id it assigned (LastInsertId,
// as MySQL); LIMIT takes a placeholder; SELECT DATABASE() and VERSION()
// answer.
func TestInsertResultAndLimitPlaceholder(t *testing.T) {
	db := openDB(t, "")
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id BIGINT AUTO_INCREMENT, v VARCHAR(5), PRIMARY KEY (id))")
	for i, want := range []int64{1, 4} {
		res, err := db.ExecContext(ctx, "INSERT INTO t (v) VALUES (?), (?), (?)", "a", "b", "c")
		if err != nil {
			t.Fatal(err)
		}
		id, err := res.LastInsertId()
		n, err2 := res.RowsAffected()
		if err != nil || err2 != nil || id != want || n != 3 {
			t.Errorf("INSERT %d: LastInsertId %d (%v), RowsAffected %d (%v); want %d, 3", i, id, err, n, err2, want)
		}
	}
	res, err := db.ExecContext(ctx, "SET NAMES utf8mb4")
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id != 0 {
		t.Errorf("SET: LastInsertId %d", id)
	}
	rows, err := db.QueryContext(ctx, "SELECT id FROM t ORDER BY id LIMIT ?", 2)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if rows.Close(); len(ids) != 2 || ids[0] != 1 || ids[1] != 2 {
		t.Errorf("LIMIT ?: %v", ids)
	}
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil || v == "" {
		t.Errorf("SELECT VERSION(): %q %v", v, err)
	}
}
