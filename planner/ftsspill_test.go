package planner

// The spills of a full-text index build go to the session's spill
// directory and leave nothing there.

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/index/inverted"
)

// TestFullTextBuildSpillsToSpillDir: with a build budget of a few KiB,
// CREATE FULLTEXT INDEX spills to Options.SpillDir (one that cannot be
// made fails the build), leaves nothing there, and its index answers as
// the one built in memory.
func TestFullTextBuildSpillsToSpillDir(t *testing.T) {
	f := newDataFixture(t, Options{})
	var vals []string
	words := strings.Fields("red green blue cyan magenta yellow black white gray brown")
	for i := 0; i < 400; i++ {
		vals = append(vals, fmt.Sprintf("(%d, '%s %s %s w%d')", i, words[i%10], words[(i/10)%10], words[(i*7)%10], i%37))
	}
	for _, tb := range []string{"mem", "spilled"} {
		f.exec("CREATE TABLE " + tb + " (id BIGINT NOT NULL, body TEXT, PRIMARY KEY (id))")
		f.exec("INSERT INTO " + tb + " VALUES " + strings.Join(vals, ", "))
	}
	f.exec("CREATE FULLTEXT INDEX ft ON mem (body)")
	dir := t.TempDir()
	spilling := &fixture{t: t, s: NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, SpillDir: dir})}
	defer func(old int) { inverted.BuildMemoryBytes = old }(inverted.BuildMemoryBytes)
	inverted.BuildMemoryBytes = 4 << 10
	// A spill directory that cannot be made (its base is a file) fails
	// the build: it spills there.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	broken := &fixture{t: t, s: NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, SpillDir: notDir})}
	broken.fails("CREATE FULLTEXT INDEX ft ON spilled (body)", catalog.CodeInvalidInput, "spill")
	spilling.exec("CREATE FULLTEXT INDEX ft ON spilled (body)")
	left, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(left) != 0 {
		t.Fatalf("left in the spill directory: %v %v", left, err)
	}
	for _, q := range []string{"red", "blue w3", "+green -cyan"} {
		mode := ""
		if strings.ContainsAny(q, "+-") {
			mode = " IN BOOLEAN MODE"
		}
		sql := func(tb string) string {
			return fmt.Sprintf("SELECT id, MATCH (body) AGAINST ('%s'%s) AS s FROM %s WHERE MATCH (body) AGAINST ('%s'%s) ORDER BY s DESC, id LIMIT 20", q, mode, tb, q, mode)
		}
		want, got := f.rows(sql("mem")), spilling.rows(sql("spilled"))
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: spilled build %v, in memory %v", q, got, want)
		}
	}
}
