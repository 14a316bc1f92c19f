package driver_test

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/lancecat/lancecat/driver"
)

// TestWarningsOnOneConn: the warnings of a statement are read with SHOW
// WARNINGS on the same *sql.Conn, a query's once its rows are read, and a
// parse error is SHOW ERRORS' 1064.
func TestWarningsOnOneConn(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("lancecat", "memory://")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var v sql.NullFloat64
	if err := conn.QueryRowContext(ctx, "SELECT 1/0").Scan(&v); err != nil || v.Valid {
		t.Fatalf("SELECT 1/0: %v %v", v, err)
	}
	var level, msg string
	var code int
	if err := conn.QueryRowContext(ctx, "SHOW WARNINGS").Scan(&level, &code, &msg); err != nil {
		t.Fatal(err)
	}
	if level != "Warning" || code != 1365 || msg != "Division by 0" {
		t.Errorf("SHOW WARNINGS: %s %d %s", level, code, msg)
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&n); err != nil || n != 1 {
		t.Errorf("@@warning_count = %d, %v", n, err)
	}
	if _, err := conn.ExecContext(ctx, "SELEC 1"); err == nil {
		t.Fatal("no syntax error")
	}
	if err := conn.QueryRowContext(ctx, "SHOW ERRORS").Scan(&level, &code, &msg); err != nil {
		t.Fatal(err)
	}
	if level != "Error" || code != 1064 {
		t.Errorf("SHOW ERRORS: %s %d %s", level, code, msg)
	}
}
