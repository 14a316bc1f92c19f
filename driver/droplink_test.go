package driver_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
)

// TestDropTableWithLinkedDirectories: issue 19 finding 7. DROP TABLE of a
// table whose _indices or data/x is a symbolic link to a directory used to
// report OK and leave the table on disk. The links themselves are removed
// (never followed: what they point to stays) and the drop finishes.
func TestDropTableWithLinkedDirectories(t *testing.T) {
	for _, inner := range []string{"_indices", "data/x"} {
		t.Run(inner, func(t *testing.T) {
			root := t.TempDir()
			db, err := sql.Open("lancecat", root)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{"CREATE TABLE t (id INT, name VARCHAR(8))", "INSERT INTO t VALUES (1, 'a')"} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			outside := t.TempDir()
			sentinel := filepath.Join(outside, "keep.lance")
			if err := os.WriteFile(sentinel, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(root, "t.lance", inner)
			_ = os.RemoveAll(link)
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("DROP TABLE t"); err != nil {
				t.Fatalf("DROP TABLE: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(root, "t.lance")); !os.IsNotExist(err) {
				t.Errorf("DROP TABLE left t.lance (%v)", err)
			}
			if _, err := os.Stat(sentinel); err != nil {
				t.Errorf("the file the link pointed to is gone: %v", err)
			}
			if _, err := db.Exec("CREATE TABLE t (id INT)"); err != nil {
				t.Errorf("CREATE TABLE after the drop: %v", err)
			}
		})
	}
}

// TestRootTableLinkedOutOfCatalog: issue 19 finding 7. A root X.lance that
// is a symbolic link to a dataset outside the catalog was adopted as a
// compatibility-mode table, read and written through. It is refused with
// InvalidTableState (register_table refuses the same location) and its
// target is never written.
func TestRootTableLinkedOutOfCatalog(t *testing.T) {
	outsideRoot := t.TempDir()
	odb, err := sql.Open("lancecat", outsideRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE x (id INT)", "INSERT INTO x VALUES (1)"} {
		if _, err := odb.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	odb.Close()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE own (id INT)"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outsideRoot, "x.lance"), filepath.Join(root, "x.lance")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(filepath.Join(outsideRoot, "x.lance", "_versions"))
	for _, q := range []string{"SELECT * FROM x", "INSERT INTO x VALUES (2)", "DELETE FROM x WHERE id = 1"} {
		_, err := db.Exec(q)
		if !errors.Is(err, lancecat.ErrInvalidTableState) {
			t.Errorf("%s on a linked root table: %v, want InvalidTableState", q, err)
		}
	}
	after, _ := os.ReadDir(filepath.Join(outsideRoot, "x.lance", "_versions"))
	if len(after) != len(before) {
		t.Errorf("the linked dataset got %d version files written through the link", len(after)-len(before))
	}
}

// TestRootTableLinkListedAndDropped: issue 19 (left over). A root X.lance
// that is a symbolic link out of the catalog is not a usable table, so SHOW
// TABLES and information_schema.tables do not list it (its name still
// resolves, to InvalidTableState, so the user learns why), and DROP TABLE
// removes the link itself, never following it: the linked dataset stays
// whole.
func TestRootTableLinkListedAndDropped(t *testing.T) {
	outsideRoot := t.TempDir()
	odb, err := sql.Open("lancecat", outsideRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE x (id INT)", "INSERT INTO x VALUES (1)"} {
		if _, err := odb.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	odb.Close()
	countFiles := func() int {
		n := 0
		_ = filepath.WalkDir(filepath.Join(outsideRoot, "x.lance"), func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	files := countFiles()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE own (id INT)"); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "x.lance")
	if err := os.Symlink(filepath.Join(outsideRoot, "x.lance"), link); err != nil {
		t.Fatal(err)
	}
	if got := strings1(t, db, "SHOW TABLES"); len(got) != 1 || got[0] != "own" {
		t.Errorf("SHOW TABLES = %v, want [own] (the link is not a usable table)", got)
	}
	if got := strings1(t, db, "SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = '$root'"); len(got) != 1 || got[0] != "own" {
		t.Errorf("information_schema.tables = %v, want [own]", got)
	}
	if _, err := db.Exec("DROP TABLE x"); err != nil {
		t.Fatalf("DROP TABLE of the linked root table: %v", err)
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Errorf("DROP TABLE left the link (%v)", err)
	}
	if n := countFiles(); n != files {
		t.Errorf("the linked dataset has %d files after the drop, had %d", n, files)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM x").Scan(&n); err == nil {
		t.Errorf("x still readable after the drop: %d rows", n)
	}
	if _, err := db.Exec("DROP TABLE IF EXISTS x"); err != nil {
		t.Errorf("DROP TABLE IF EXISTS after the drop: %v", err)
	}
	if _, err := db.Exec("CREATE TABLE x (id INT)"); err != nil {
		t.Errorf("CREATE TABLE x after the drop: %v", err)
	}
	if n := countFiles(); n != files {
		t.Errorf("the linked dataset has %d files after the re-create, had %d", n, files)
	}
	// A dangling link is not listed either, and DROP removes it.
	dangling := filepath.Join(root, "y.lance")
	if err := os.Symlink(filepath.Join(outsideRoot, "gone.lance"), dangling); err != nil {
		t.Fatal(err)
	}
	if got := strings1(t, db, "SHOW TABLES"); len(got) != 2 || got[0] != "own" || got[1] != "x" {
		t.Errorf("SHOW TABLES = %v, want [own x]", got)
	}
	if _, err := db.Exec("DROP TABLE y"); err != nil {
		t.Errorf("DROP TABLE of a dangling root link: %v", err)
	}
	if _, err := os.Lstat(dangling); !os.IsNotExist(err) {
		t.Errorf("DROP TABLE left the dangling link (%v)", err)
	}
}
