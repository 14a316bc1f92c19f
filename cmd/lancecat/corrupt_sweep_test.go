package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/driver"
)

// sweepTable builds the sweep's table under root: fragments covered and not
// covered by a BTREE and a BITMAP index, and Arrow deletion files.
func sweepTable(t *testing.T, root string) {
	t.Helper()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var vals []string
	for i := range 120 {
		vals = append(vals, fmt.Sprintf("(%d, 'n-%03d', '%s')", i, i, []string{"red", "green", "blue"}[i%3]))
	}
	for _, q := range []string{
		"CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(16), cat VARCHAR(8), PRIMARY KEY (id))",
		"INSERT INTO t VALUES " + strings.Join(vals, ", "),
		"CREATE INDEX name_idx ON t (name)",
		"CREATE INDEX cat_idx ON t (cat) USING BITMAP",
		"INSERT INTO t VALUES (500, 'n-500', 'red'), (501, 'n-501', 'blue'), (502, NULL, NULL)",
		"DELETE FROM t WHERE id IN (3, 4, 50, 501)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// sweepOps are the statements run on every corrupted variant.
var sweepOps = []string{
	"SELECT COUNT(*), SUM(id) FROM t",
	"SELECT id, name FROM t WHERE name = 'n-007'",
	"SELECT id FROM t WHERE cat = 'green' ORDER BY id LIMIT 3",
	"SHOW INDEX FROM t",
	"UPDATE t SET cat = 'x' WHERE id = 7",
	"DELETE FROM t WHERE id = 8",
}

// TestCorruptedTableSweep: issue 19. Every file of a small table with
// scalar indices and deletion files is damaged at many offsets (a bit
// flip, eight 0xff bytes, truncation); SELECT, SHOW INDEX, UPDATE, DELETE
// and `dataset cat` each return an answer or a typed error - never a
// crash, never Internal (corruption is InvalidTableState) - within a
// bounded time and allocation. (Lance files carry no checksums, so a
// flipped value byte can read as another value: answers are not compared.)
func TestCorruptedTableSweep(t *testing.T) {
	tmpl := t.TempDir()
	sweepTable(t, tmpl)
	tableDir := filepath.Join(tmpl, "t.lance")
	var files []string
	err := filepath.WalkDir(tableDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(tmpl, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	perFile := 6
	if testing.Short() {
		perFile = 3
	}
	type mutation struct {
		name  string
		apply func(b []byte, off int) []byte
	}
	muts := []mutation{
		{"flip", func(b []byte, off int) []byte { b[off] ^= 0x10; return b }},
		{"ff8", func(b []byte, off int) []byte {
			copy(b[off:], bytes.Repeat([]byte{0xff}, 8))
			return b
		}},
		{"truncate", func(b []byte, off int) []byte { return b[:off] }},
	}
	var ms runtime.MemStats
	variants, typed := 0, map[string]int{}
	start := time.Now()
	for _, rel := range files {
		orig, err := os.ReadFile(filepath.Join(tmpl, rel))
		if err != nil {
			t.Fatal(err)
		}
		if len(orig) == 0 {
			continue
		}
		// Offsets spread over the file plus its last bytes (footers).
		offs := []int{}
		for i := range perFile {
			offs = append(offs, i*len(orig)/perFile)
		}
		offs = append(offs, max(0, len(orig)-12), max(0, len(orig)-6))
		for _, off := range slices.Compact(offs) {
			for _, m := range muts {
				variants++
				dir := t.TempDir()
				if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
					t.Fatal(err)
				}
				b := m.apply(slices.Clone(orig), off)
				p := filepath.Join(dir, rel)
				_ = os.Chmod(p, 0o644)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				label := fmt.Sprintf("%s %s@%d", rel, m.name, off)
				runtime.ReadMemStats(&ms)
				alloc0 := ms.TotalAlloc
				sweepVariant(t, dir, label, typed)
				runtime.ReadMemStats(&ms)
				if grew := ms.TotalAlloc - alloc0; grew > 512<<20 {
					t.Errorf("%s: the statements allocated %d MB", label, grew>>20)
				}
			}
		}
	}
	t.Logf("%d files, %d variants in %v; error codes: %v", len(files), variants, time.Since(start).Round(time.Millisecond), typed)
}

func sweepVariant(t *testing.T, dir, label string, codes map[string]int) {
	t.Helper()
	db, err := sql.Open("lancecat", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range sweepOps {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		t0 := time.Now()
		err := func() error {
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		}()
		cancel()
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("%s: %s took %v", label, q, d)
		}
		if err == nil {
			continue
		}
		var de *driver.Error
		if !errors.As(err, &de) {
			t.Errorf("%s: %s: untyped error %v", label, q, err)
			continue
		}
		codes[de.Code.String()]++
		if errors.Is(de, driver.ErrInternal) {
			t.Errorf("%s: %s: %v", label, q, err)
		}
	}
	code, _, stderr := runCLI("dataset", "cat", filepath.Join(dir, "t.lance"))
	if code != 0 && (code != 1 || !strings.HasPrefix(stderr, "lancecat: ")) {
		t.Errorf("%s: dataset cat exit %d: %q", label, code, stderr)
	}
}
