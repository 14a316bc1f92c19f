package driver_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/lancecat/lancecat/driver"
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
