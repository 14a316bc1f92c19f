package planner

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// TestOnePipeline: a query over an information_schema view and one over
// table data go through the same pipeline, so they agree on what used to
// diverge: booleans (a computed boolean is an integer, a BOOLEAN column a
// boolean) and the row budget (ORDER BY sorts within Options.MaxRows and
// spills beyond it, or fails with NoSpill; a top-k under LIMIT and an
// unordered result are not capped).
func TestOnePipeline(t *testing.T) {
	spillDir := t.TempDir()
	f := whereTable(t, Options{MaxRows: 2, SpillDir: spillDir})
	f.exec("CREATE TABLE w2 (i INT)")
	f.exec("CREATE TABLE w3 (i INT)")
	strict := &fixture{t: t, s: NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, MaxRows: 2, NoSpill: true})}

	// Booleans.
	got := f.rows("SELECT TABLE_NAME = 'w', TABLE_NAME IS NULL FROM information_schema.tables WHERE TABLE_NAME = 'w'")
	if want := [][]any{{int64(1), int64(0)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("computed booleans over a view: %#v, want %#v", got, want)
	}
	got = f.rows("SELECT 1 = 1, TRUE")
	if want := [][]any{{int64(1), int64(1)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("computed booleans without FROM: %#v, want %#v", got, want)
	}
	got = f.rows("SELECT flag, TRUE FROM w WHERE id = 1")
	if want := [][]any{{true, int64(1)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("BOOLEAN column and TRUE over table data: %#v, want %#v", got, want)
	}

	// The row budget: three tables, six rows, MaxRows 2.
	if n := len(f.rows("SELECT TABLE_NAME FROM information_schema.tables")); n != 3 {
		t.Errorf("unordered view rows: %d, want 3 (no cap)", n)
	}
	if n := len(f.rows("SELECT id FROM w")); n != 6 {
		t.Errorf("unordered table rows: %d, want 6 (no cap)", n)
	}
	got = f.rows("SELECT TABLE_NAME FROM information_schema.tables ORDER BY TABLE_NAME DESC LIMIT 1 OFFSET 1")
	if want := [][]any{{"w2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("top-k over a view: %#v, want %#v", got, want)
	}
	if got := ids(t, f.rows("SELECT id FROM w ORDER BY id DESC LIMIT 1 OFFSET 1")); !reflect.DeepEqual(got, []int64{5}) {
		t.Errorf("top-k over table data: %v", got)
	}
	strict.fails("SELECT TABLE_NAME FROM information_schema.tables ORDER BY TABLE_NAME", catalog.CodeInvalidInput, "ORDER BY over information_schema.tables would sort more than 2 rows")
	strict.fails("SELECT id FROM w ORDER BY id", catalog.CodeInvalidInput, "would sort more than 2 rows")
	got = f.rows("SELECT TABLE_NAME FROM information_schema.tables ORDER BY TABLE_NAME DESC")
	if want := [][]any{{"w3"}, {"w2"}, {"w"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("spilled sort over a view: %#v, want %#v", got, want)
	}
	if got := ids(t, f.rows("SELECT id FROM w ORDER BY id DESC")); !reflect.DeepEqual(got, []int64{6, 5, 4, 3, 2, 1}) {
		t.Errorf("spilled sort over table data: %v", got)
	}
	if left, _ := os.ReadDir(spillDir); len(left) != 0 {
		t.Errorf("spill files left behind: %v", left)
	}

	// COUNT, WHERE and LIMIT 0 behave alike.
	if got := f.rows("SELECT COUNT(*) FROM information_schema.tables WHERE TABLE_NAME LIKE 'w_'"); got[0][0] != int64(2) {
		t.Errorf("count over a view: %v", got)
	}
	if got := f.rows("SELECT COUNT(name) FROM w WHERE id > 1"); got[0][0] != int64(4) {
		t.Errorf("count over table data: %v", got)
	}
	if n := len(f.rows("SELECT TABLE_NAME FROM information_schema.tables LIMIT 0")); n != 0 {
		t.Errorf("LIMIT 0 over a view: %d rows", n)
	}
}

// TestTopKSpillsPastByteBudget: ORDER BY ... LIMIT whose LIMIT+OFFSET rows
// pass the sort memory budget hands the heap to the spilling sort: the
// result is the same slice of the full sort, runs were written to the
// spill directory while the result streamed, and none is left after it.
func TestTopKSpillsPastByteBudget(t *testing.T) {
	mem := newDataFixture(t, Options{})
	mem.exec("CREATE TABLE wide (id INT NOT NULL, g INT, pad VARCHAR(200))")
	var rows []string
	for i := range 400 {
		rows = append(rows, fmt.Sprintf("(%d, %d, '%s')", i, (i*37)%11, strings.Repeat(string(rune('a'+i%26)), 100+i%50)))
	}
	mem.exec("INSERT INTO wide VALUES " + strings.Join(rows, ", "))
	dir := t.TempDir()
	small := NewSession(mem.s.Catalog(), Options{Store: mem.s.opts.Store, SortMemory: 8 << 10, SpillDir: dir})
	for _, q := range []string{
		"SELECT id, pad FROM wide ORDER BY g, pad DESC LIMIT 150 OFFSET 40",
		"SELECT * FROM wide WHERE id > 20 ORDER BY pad LIMIT 300",
		"SELECT id FROM wide ORDER BY g DESC LIMIT 5 OFFSET 390",
	} {
		want := mem.rows(q)
		st, err := sqlparse.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := small.Exec(context.Background(), st[0])
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if ents, _ := os.ReadDir(dir); !res.Streamed() || len(ents) == 0 {
			t.Fatalf("%s: the top-k did not spill past a budget of 8 KiB (%d files)", q, len(ents))
		}
		if err := res.Collect(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Rows, want) {
			t.Fatalf("%s:\nspilled   %v\nin memory %v", q, res.Rows, want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("%s left %d files in the spill directory", q, len(ents))
		}
	}
	ex, err := (&fixture{t: t, s: small}).try("EXPLAIN SELECT id FROM wide ORDER BY pad LIMIT 300")
	if err != nil || !strings.Contains(ex.Rows[2][0].(string), "top-k: keeps 300 rows; past 8192 bytes, sorted runs on disk") {
		t.Fatalf("EXPLAIN of the top-k: %v %v", ex, err)
	}
	// A top-k within the budget stays in memory.
	st, _ := sqlparse.Parse("SELECT id FROM wide ORDER BY pad LIMIT 3")
	if res, err := small.Exec(context.Background(), st[0]); err != nil || res.Streamed() {
		t.Fatalf("small top-k: streamed %v, %v", res != nil && res.Streamed(), err)
	}
}
