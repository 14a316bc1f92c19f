package conformance

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// openLancecatConn opens the catalog at root through database/sql and
// returns one connection of it (session variables stay on it), both
// closed when the test ends.
func openLancecatConn(ctx context.Context, t *testing.T, root string) *sql.Conn {
	t.Helper()
	db, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
