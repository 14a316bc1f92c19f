package driver_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/lance/dataset"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// rewriteSchema replaces the logical type of column col in the newest
// manifest of the table directory dir, as a hostile or broken writer would.
func rewriteSchema(t *testing.T, dir, col, logicalType string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "_versions", "*.manifest"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifest under %s: %v", dir, err)
	}
	sort.Strings(files) // V2 names: the newest version sorts first
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := dataset.DecodeManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Schema.Field(col)
	if f == nil {
		t.Fatalf("no column %s", col)
	}
	f.LogicalType = logicalType
	out, err := dataset.EncodeManifest(m, m.HasIndexSection, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A schema nested deeper than lanceschema.MaxNestingDepth (3,000 levels took
// 30 s and 340 MB to inspect) is refused when the table is opened.
func TestDeepSchemaOnDiskRefused(t *testing.T) {
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE SCHEMA ns; CREATE TABLE ns.t (id BIGINT)")
	dirs, _ := filepath.Glob(filepath.Join(root, "*_ns$t"))
	if len(dirs) != 1 {
		t.Fatalf("table directory: %v", dirs)
	}
	files, _ := filepath.Glob(filepath.Join(dirs[0], "_versions", "*.manifest"))
	sort.Strings(files)
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := dataset.DecodeManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	parent := &lanceschema.Field{ID: 1, ParentID: -1, Name: "deep", LogicalType: "struct", Nullable: true}
	m.Schema.Fields = append(m.Schema.Fields, parent)
	for i := 2; i <= 3000; i++ {
		c := &lanceschema.Field{ID: int32(i), ParentID: parent.ID, Name: "s", LogicalType: "struct", Nullable: true}
		parent.Children = []*lanceschema.Field{c}
		parent = c
	}
	parent.LogicalType = "int32"
	out, err := dataset.EncodeManifest(m, m.HasIndexSection, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], out, 0o644); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DESCRIBE ns.t", "SELECT * FROM ns.t", "SHOW CREATE TABLE ns.t"} {
		_, err := db.Exec(q)
		if !errors.Is(err, lancecat.ErrInvalidTableState) {
			t.Errorf("%s: %v, want InvalidTableState", q, err)
		}
	}
}

// A table whose schema on disk breaks a limit (vector dimension 0 or one
// that disagrees with the data file, decimal scale beyond precision) must
// give typed errors on DESCRIBE, SELECT and information_schema scans: these
// panicked the host program.
func TestHostileSchemaOnDisk(t *testing.T) {
	for _, c := range []struct{ col, lt string }{
		{"v", "fixed_size_list:float:0"},
		{"v", "fixed_size_list:float:8"}, // the file holds 4 per row
		{"d", "decimal:128:5:2147483647"},
		{"d", "decimal:128:5:-2147483648"},
	} {
		t.Run(c.lt, func(t *testing.T) {
			root := t.TempDir()
			db, err := sql.Open("lancecat", root)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			mustExec(t, db, "CREATE SCHEMA ns; CREATE TABLE ns.t (id BIGINT, v VECTOR(4), d DECIMAL(5,2)); INSERT INTO ns.t VALUES (1, '[1,2,3,4]', 1.25)")
			dirs, _ := filepath.Glob(filepath.Join(root, "*_ns$t"))
			if len(dirs) != 1 {
				t.Fatalf("table directory: %v", dirs)
			}
			rewriteSchema(t, dirs[0], c.col, c.lt)
			db.Close()
			db, err = sql.Open("lancecat", root)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				"DESCRIBE ns.t",
				"SELECT * FROM ns.t",
				"SHOW CREATE TABLE ns.t",
			} {
				rows, err := db.Query(q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
					rows.Close()
				}
				if c.lt == "fixed_size_list:float:8" && q != "SELECT * FROM ns.t" {
					continue // the schema itself is legal; only the data disagrees
				}
				var de *lancecat.Error
				if !errors.As(err, &de) || errors.Is(err, lancecat.ErrInternal) {
					t.Errorf("%s: err = %v, want a typed error other than Internal", q, err)
				}
			}
			// A catalog-wide scan skips or reports the table but does not crash.
			rows, err := db.Query("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.columns")
			if err == nil {
				for rows.Next() {
				}
				rows.Close()
			}
		})
	}
}
