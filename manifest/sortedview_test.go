package manifest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// locRow is a table row at an explicit location.
func locRow(id, loc string) catalog.Row {
	return catalog.Row{ObjectID: id, ObjectType: "table", Location: strp(loc)}
}

// TestSortedViewReadsMatchPlain: on random chains of commits (creates,
// drops, replacements, version rows, aliases sharing or nesting
// directories), the writer's prefix reads through the root's sorted ids and
// its location overlap answers equal a full decode of the same version,
// whether the chain starts at rows in memory or at a lazily read version.
func TestSortedViewReadsMatchPlain(t *testing.T) {
	ctx := context.Background()
	for _, cold := range []bool{false, true} {
		t.Run(fmt.Sprintf("lazy-root=%v", cold), func(t *testing.T) {
			dir := t.TempDir()
			mt, store := newTable(t, dir)
			seedRows(t, mt, true)
			if cold {
				mt, store = newTable(t, dir)
			}
			rng := rand.New(rand.NewPCG(3, uint64(len(dir))))
			locs := []string{".", "d1", "d1/sub", "d1-x", "d1.x", "d1/sub/deeper", "./d2/", "d2/a", `d3\b`, "d3", "a/b/c", "a"}
			live := map[string]bool{}
			indexed := 0
			for i := 0; i < maxDeriveDepth+10; i++ {
				var ups []catalog.Row
				var dels []string
				id := fmt.Sprintf("ns%d$s%d", rng.IntN(3), rng.IntN(12))
				switch k := rng.IntN(4); {
				case k < 2 || !live[id]: // create or replace, with version rows
					ups = append(ups, locRow(id, locs[rng.IntN(len(locs))]))
					for v := range rng.IntN(3) {
						ups = append(ups, catalog.Row{ObjectID: fmt.Sprintf("%s$%d", id, v+1), ObjectType: "table_version", Location: strp("v")})
					}
					live[id] = true
				case k == 2: // drop
					dels = append(dels, id, id+"$1", id+"$2")
					delete(live, id)
				default: // move to another id (a rename)
					to := id + "r"
					ups = append(ups, locRow(to, locs[rng.IntN(len(locs))]))
					dels = append(dels, id)
					delete(live, id)
					live[to] = true
				}
				if i%7 == 3 {
					dels = append(dels, fmt.Sprintf("ns%d$t%d", rng.IntN(6), rng.IntN(7)))
				}
				upsert(t, mt, ups, dels...)
				indexed += checkSortedViews(t, mt, store, locs, i == maxDeriveDepth+9)
			}
			if indexed == 0 {
				t.Fatal("no prefix read went through the sorted ids")
			}
			snap, err := mt.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d prefix reads answered from the sorted ids; latest chain depth %d", indexed, snap.(*snapshot).depth)
		})
	}
}

// checkSortedViews compares the writer's latest snapshot with a full
// decode of that version and returns how many prefix reads went through
// the sorted ids. Reads the sorted ids cannot answer (broad prefixes)
// materialize the writer's chain of deltas, so they are made only when
// broad is set.
func checkSortedViews(t *testing.T, mt *ManifestTable, store storage.Store, locs []string, broad bool) int {
	t.Helper()
	ctx := context.Background()
	latest, err := mt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap := latest.(*snapshot)
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	linear := newSnapshot(ds)
	all, _, err := linear.all(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wasDerived := snap.derived()
	checkCarriedViews(t, snap)
	var filters []catalog.RowFilter
	for i, r := range all {
		if i%4 != 0 && !strings.Contains(r.ObjectID, "$s") {
			continue // a sample of the seeded rows, all the churned ones
		}
		// A table's version rows (DROP and RENAME read them) must go
		// through the sorted ids.
		f := catalog.RowFilter{IDPrefix: r.ObjectID + "$", Types: []string{"table_version"}}
		if _, lazy := snap.root(); lazy {
			// A cold writer reads through the version's indices until a
			// location check decodes the root.
		} else if _, ok := snap.prefixRows(f); !ok && r.ObjectType == "table" {
			t.Fatalf("version %d: %+v is not answered from the sorted ids", snap.Version(), f)
		}
		filters = append(filters, f, catalog.RowFilter{IDPrefix: r.ObjectID + "$"}, catalog.RowFilter{IDPrefix: r.ObjectID})
	}
	filters = append(filters,
		catalog.RowFilter{IDPrefix: "ns0$s", Limit: 2},
		catalog.RowFilter{IDPrefix: "ns2$s1", Types: []string{"table"}, Limit: 1},
		catalog.RowFilter{IDPrefix: "absent$"},
		catalog.RowFilter{IDPrefix: "ns1$", DirectOnly: true},
		catalog.RowFilter{IDPrefix: "ns", Limit: 3})
	// Broad prefixes (a namespace listing) materialize the rows: read them
	// last, and check that the selective ones did not.
	slices.SortStableFunc(filters, func(a, b catalog.RowFilter) int {
		_, oka := snap.prefixRows(a)
		_, okb := snap.prefixRows(b)
		switch {
		case oka == okb:
			return 0
		case oka:
			return -1
		}
		return 1
	})
	if !broad {
		filters = slices.DeleteFunc(filters, func(f catalog.RowFilter) bool { _, ok := snap.prefixRows(f); return !ok })
	}
	checkOverlaps(t, snap, all, locs)
	if wasDerived && !snap.derived() {
		t.Fatalf("version %d: TablesOverlapping materialized the writer's derived snapshot", snap.Version())
	}
	indexed, fallback := 0, false
	for _, f := range filters {
		if _, ok := snap.prefixRows(f); ok {
			indexed++
		} else if !fallback {
			fallback = true
			if wasDerived && !snap.derived() {
				t.Fatalf("version %d: selective reads materialized the writer's derived snapshot (before %+v)", snap.Version(), f)
			}
		}
		got, err := snap.Scan(ctx, f)
		want, werr := linear.Scan(ctx, f)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("version %d Scan(%+v): %v %v (%v), full decode %v (%v)", snap.Version(), f, ids4(got), len(got), err, ids4(want), werr)
		}
		visited, err := visitAll(ctx, snap, f)
		if err != nil || !reflect.DeepEqual(visited, want) {
			t.Fatalf("version %d VisitRows(%+v): %v (%v), full decode %v", snap.Version(), f, ids4(visited), err, ids4(want))
		}
	}
	return indexed
}

// checkOverlaps compares snap.TablesOverlapping with the overlapping table
// rows among all (a full decode of snap's version).
func checkOverlaps(t *testing.T, snap *snapshot, all []catalog.Row, locs []string) {
	t.Helper()
	ctx := context.Background()
	for _, loc := range append(slices.Clone(locs), "", ".", "d1/", "d1/sub/x", "d", "a/b", "x/y", "v") {
		got, err := snap.TablesOverlapping(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		var want []catalog.Row
		for _, r := range all {
			if r.ObjectType == "table" && r.Location != nil && catalog.LocationsOverlap(*r.Location, loc) {
				want = append(want, r)
			}
		}
		slices.SortFunc(want, func(a, b catalog.Row) int { return strings.Compare(a.ObjectID, b.ObjectID) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("version %d TablesOverlapping(%q): %d rows %v, full decode %d rows %v", snap.Version(), loc, len(got), ids4(got), len(want), ids4(want))
		}
	}
}

// TestDropKeepsAliasedData: on a `__manifest` catalog (whose snapshots
// answer the overlap check from sorted locations, catalog.LocationFinder),
// dropping a table another writer registered at, below or above a table's
// directory deletes none of that table's files, both on a version read
// from disk and on the writer's own derived versions after it; once no
// alias is left, dropping the table removes its directory.
func TestDropKeepsAliasedData(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := open(t, dir)
	var tableLoc string
	for i := range 20 {
		info, err := c.CreateTable(ctx, catalog.Ident{fmt.Sprintf("t%02d", i)}, eventsSchema(), catalog.CreateTableOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 7 {
			tableLoc = info.Location
		}
	}
	files := func(loc string) int {
		objs, err := c.Store.List(ctx, loc+"/")
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}
	before := files(tableLoc)
	if before == 0 {
		t.Fatalf("table t07 at %s has no files", tableLoc)
	}
	// Another writer registers the aliases.
	other := NewManifestTable(c.Store)
	snap, err := other.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	aliases := []catalog.Row{
		locRow("same", tableLoc),
		locRow("dotted", "./"+tableLoc+"/"),
		locRow("below", tableLoc+"/data"),
		locRow("above", "."),
	}
	if _, err := other.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: aliases, BuildIndices: true}); err != nil {
		t.Fatal(err)
	}
	for _, a := range aliases {
		if err := c.DropTable(ctx, catalog.Ident{a.ObjectID}); err != nil {
			t.Fatalf("DropTable %s: %v", a.ObjectID, err)
		}
		if got := files(tableLoc); got != before {
			t.Fatalf("dropping alias %s (%s) left %d of t07's %d files", a.ObjectID, *a.Location, got, before)
		}
	}
	if err := c.DropTable(ctx, catalog.Ident{"t07"}); err != nil {
		t.Fatal(err)
	}
	if got := files(tableLoc); got != 0 {
		t.Fatalf("dropping t07 without aliases left %d files in %s", got, tableLoc)
	}

	// DROP SCHEMA CASCADE drops many tables in one commit: a table inside
	// keeps its files while a table outside the schema aliases them, and
	// two tables dropped together do not protect each other.
	if err := c.CreateNamespace(ctx, catalog.Ident{"s"}, nil); err != nil {
		t.Fatal(err)
	}
	var inner []string
	for _, name := range []string{"kept", "gone"} {
		info, err := c.CreateTable(ctx, catalog.Ident{"s", name}, eventsSchema(), catalog.CreateTableOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inner = append(inner, info.Location)
	}
	if snap, err = other.Latest(ctx); err != nil {
		t.Fatal(err)
	}
	outsideAndInside := []catalog.Row{locRow("outside", inner[0]), locRow("s$twin", inner[1])}
	if _, err := other.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: outsideAndInside, BuildIndices: true}); err != nil {
		t.Fatal(err)
	}
	keptFiles := files(inner[0])
	if err := c.DropNamespace(ctx, catalog.Ident{"s"}, catalog.DropNamespaceOptions{Cascade: true}); err != nil {
		t.Fatal(err)
	}
	if got := files(inner[0]); got != keptFiles || got == 0 {
		t.Fatalf("DROP SCHEMA CASCADE left %d of %d files of a table aliased from outside", got, keptFiles)
	}
	if got := files(inner[1]); got != 0 {
		t.Fatalf("DROP SCHEMA CASCADE left %d files of a table aliased only inside the schema", got)
	}
}

// checkCarriedViews: sorted views a materialized snapshot carried over
// from its root equal views built from its rows.
func checkCarriedViews(t *testing.T, snap *snapshot) {
	t.Helper()
	snap.mu.Lock()
	defer snap.mu.Unlock()
	if !snap.loaded {
		return
	}
	fresh := &snapshot{rows: snap.rows}
	if snap.idOrder != nil && !slices.Equal(snap.idOrder, fresh.sortedIDsLocked()) {
		t.Fatalf("version %d: carried id order differs from a sort of its rows", snap.Version())
	}
	if snap.locOrder != nil && !slices.Equal(snap.locOrder, fresh.locationsLocked()) {
		t.Fatalf("version %d: carried location order differs from a sort of its rows", snap.Version())
	}
}
