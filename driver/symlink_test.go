package driver_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
)

// tableDir returns the directory of the table with object id oid under root.
func tableDir(t *testing.T, root, oid string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "*_"+oid))
	if len(dirs) != 1 {
		t.Fatalf("directory of %s: %v", oid, dirs)
	}
	return dirs[0]
}

// countFiles counts the regular files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue #10 findings 3 and 4: nothing lancecat deletes lies outside the
// table's own directory, and SQL cannot make __manifest (or another table's
// data) a table. A dataset outside the root is the sentinel: its file count
// must not change after any statement.
func TestDestructiveStatementsStayInTheirDirectory(t *testing.T) {
	base := t.TempDir()
	outsideCat := filepath.Join(base, "outside")
	root := filepath.Join(base, "root")
	odb, err := sql.Open("lancecat", outsideCat)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, odb, "CREATE SCHEMA o; CREATE TABLE o.victim (a BIGINT); INSERT INTO o.victim VALUES (1), (2)")
	odb.Close()
	victim := tableDir(t, outsideCat, "o$victim")
	want := countFiles(t, outsideCat)
	intact := func(after string) {
		t.Helper()
		if got := countFiles(t, outsideCat); got != want {
			t.Fatalf("after %s: %d files outside the root, want %d", after, got, want)
		}
	}

	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE SCHEMA ns; CREATE TABLE ns.t (a BIGINT); INSERT INTO ns.t VALUES (1)")
	if err := os.Symlink(victim, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(victim), filepath.Join(root, "sub", "up")); err != nil {
		t.Fatal(err)
	}
	own := filepath.Base(tableDir(t, root, "ns$t"))

	refused := []string{
		"CALL register_table('ns.s', 'link')",                                 // a symlink to a dataset outside
		"CALL register_table('ns.s', 'sub/up/" + filepath.Base(victim) + "')", // a symlink higher on the path
		"CALL register_table('ns.m', '__manifest')",                           // the catalog itself
		"CALL register_table('ns.m', './__manifest')",
		"CALL register_table('ns.a', '" + own + "')", // an alias of ns.t
	}
	for _, q := range refused {
		if _, err := db.Exec(q); !errors.Is(err, lancecat.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want InvalidInput", q, err)
		}
	}
	// Nothing was registered, so the destructive statements that follow can
	// only reach what the catalog owns.
	for _, q := range []string{"DROP TABLE ns.s", "DROP TABLE ns.m", "DROP TABLE ns.a"} {
		if _, err := db.Exec(q); !errors.Is(err, lancecat.ErrTableNotFound) {
			t.Errorf("%s: err = %v, want TableNotFound", q, err)
		}
	}
	intact("refused registrations")

	// A symlink inside a table's directory (as a hostile writer could place
	// it) is removed at most, never followed.
	if err := os.Symlink(victim, filepath.Join(root, own, "inner")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "DROP TABLE ns.t")
	intact("DROP TABLE with an inner symlink")

	mustExec(t, db, "CREATE TABLE ns.u (a BIGINT); INSERT INTO ns.u VALUES (1)")
	if err := os.Symlink(victim, filepath.Join(tableDir(t, root, "ns$u"), "data", "inner")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "DROP SCHEMA ns CASCADE")
	intact("DROP SCHEMA CASCADE")
	mustExec(t, db, "CALL vacuum_catalog('0s')")
	intact("vacuum_catalog")
	if _, err := os.Lstat(filepath.Join(root, "link")); err != nil {
		t.Errorf("the user's own symlink in the root was removed: %v", err)
	}
}

// A registered location may contain ".." inside a segment (my..data), and
// such a table can be dropped with its directory.
func TestDottedLocationRegistersAndDrops(t *testing.T) {
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE SCHEMA ns; CREATE TABLE ns.t (a BIGINT); INSERT INTO ns.t VALUES (1); CALL deregister_table('ns.t')")
	if err := os.Rename(tableDir(t, root, "ns$t"), filepath.Join(root, "my..data")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CALL register_table('ns.d', 'my..data')")
	if got := strings1(t, db, "SELECT a FROM ns.d"); len(got) != 1 || got[0] != "1" {
		t.Fatalf("SELECT from my..data: %v", got)
	}
	mustExec(t, db, "DROP TABLE ns.d")
	if _, err := os.Stat(filepath.Join(root, "my..data")); !os.IsNotExist(err) {
		t.Fatalf("directory my..data after DROP: %v", err)
	}
}
