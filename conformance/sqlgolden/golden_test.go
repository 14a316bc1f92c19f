package sqlgolden

import (
	"context"
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/lancecat/lancecat/driver"
)

var update = flag.Bool("update", false, "rewrite the expected transcripts (testdata/*.out)")

// TestGolden runs every testdata/*.sql script against a fresh catalog, on
// memory:// and in a local directory (file://), and compares both
// transcripts with testdata/*.out (catalog root URIs masked as <root>).
func TestGolden(t *testing.T) {
	scripts, err := filepath.Glob("testdata/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) == 0 {
		t.Fatal("no testdata/*.sql scripts")
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		outPath := strings.TrimSuffix(path, ".sql") + ".out"
		for _, storage := range []string{"memory", "file"} {
			t.Run(name+"/"+storage, func(t *testing.T) {
				dsn, root := "memory://golden-"+name, "memory://golden-"+name
				if storage == "file" {
					dir := t.TempDir()
					dsn, root = dir, "file://"+filepath.ToSlash(dir)
				}
				db, err := sql.Open("lancecat", dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				ctx := context.Background()
				conn, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				got, err := Run(ctx, conn, string(src), root)
				if err != nil {
					t.Fatal(err)
				}
				if *update && storage == "memory" {
					if err := os.WriteFile(outPath, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(outPath)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("transcript of %s on %s differs from %s (run with -update to accept):\n%s", path, storage, outPath, diff(string(want), got))
				}
			})
		}
	}
}

// diff shows the first differing lines.
func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 20; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g + "\n")
			shown++
		}
	}
	return b.String()
}

func TestSplit(t *testing.T) {
	items, err := Split("-- c\n\nSELECT 1;\nSHOW\n  TABLES;\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Comment != "-- c" || items[1].Stmt.Line != 3 || items[2].Stmt.Line != 4 || items[2].Stmt.Text != "SHOW\n  TABLES;" {
		t.Fatalf("unexpected split: %+v", items)
	}
	if _, err := Split("SELECT 1"); err == nil {
		t.Fatal("unterminated statement accepted")
	}
}
