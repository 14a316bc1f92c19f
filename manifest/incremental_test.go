package manifest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// checkIncrementalOn asserts that next is an incremental commit on prev:
// an Append, Delete or Update transaction, prev's indices kept unchanged
// (same segments, same fragment bitmaps), prev's fragments kept (some with
// new deletion files) plus at most one new fragment no index covers.
func checkIncrementalOn(t *testing.T, prev, next *dataset.Dataset) {
	t.Helper()
	tx, err := next.Transaction(context.Background())
	if err != nil || tx == nil {
		t.Fatalf("transaction of version %d: %v", next.Version(), err)
	}
	if !slices.Contains([]string{"Append", "Delete", "Update"}, tx.Operation) {
		t.Fatalf("version %d is a %s, want an incremental commit", next.Version(), tx.Operation)
	}
	uuids := func(d *dataset.Dataset) []string {
		var out []string
		for _, ix := range d.Indices() {
			out = append(out, ix.UUID+ix.FragmentBitmap.String())
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(uuids(prev), uuids(next)) {
		t.Fatalf("indices changed by an incremental commit: %v -> %v", uuids(prev), uuids(next))
	}
	added := 0
	for _, f := range next.Fragments() {
		if slices.ContainsFunc(prev.Fragments(), func(p *dataset.Fragment) bool { return p.ID == f.ID }) {
			continue
		}
		added++
		for _, ix := range next.Indices() {
			if ix.FragmentBitmap.Contains(uint32(f.ID)) {
				t.Fatalf("new fragment %d is covered by %s", f.ID, ix.Name)
			}
		}
	}
	if added > 1 {
		t.Fatalf("incremental commit added %d fragments", added)
	}
}

// opOf returns the operation of the latest version.
func opOf(t *testing.T, store storage.Store) (string, *dataset.Dataset) {
	t.Helper()
	ctx := context.Background()
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ds.Transaction(ctx)
	if err != nil || tx == nil {
		t.Fatalf("transaction: %v", err)
	}
	return tx.Operation, ds
}

// checkWriterMatchesLinear compares the writer's own (derived) snapshot of
// the latest version with a full decode of it.
func checkWriterMatchesLinear(t *testing.T, mt *ManifestTable, store storage.Store) {
	t.Helper()
	ctx := context.Background()
	snap, err := mt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	linear := newSnapshot(ds)
	all, _, err := linear.all(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		for _, id := range []string{r.ObjectID, r.ObjectID + "~absent"} {
			w, wok, _ := linear.Get(ctx, id)
			g, gok, err := snap.Get(ctx, id)
			if err != nil || wok != gok || !reflect.DeepEqual(w, g) {
				t.Fatalf("writer Get(%q) = %+v %v %v, linear %+v %v", id, g, gok, err, w, wok)
			}
		}
	}
	for _, f := range []catalog.RowFilter{{}, {Types: []string{"table"}}, {IDPrefix: "ns1$", DirectOnly: true}, {Limit: 5}} {
		want, _ := linear.Scan(ctx, f)
		got, err := snap.Scan(ctx, f)
		if err != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("writer Scan(%+v): %d rows %v, linear %d rows", f, len(got), err, len(want))
		}
	}
}

func upsert(t *testing.T, mt *ManifestTable, rows []catalog.Row, deletes ...string) uint64 {
	t.Helper()
	ctx := context.Background()
	snap, err := mt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := mt.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: rows, Deletes: deletes, BuildIndices: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tableRow(id string) catalog.Row {
	return catalog.Row{ObjectID: id, ObjectType: "table", Location: strp("0000abcd_" + id)}
}

// TestIncrementalCommitShape: after the first (indexed) rewrite, a change
// is one small version: the new row in a new fragment, the replaced and
// deleted rows in deletion files, the indices untouched.
func TestIncrementalCommitShape(t *testing.T) {
	ctx := context.Background()
	mt, store := newTable(t, t.TempDir())
	seedRows(t, mt, true)
	_, prev := opOf(t, store)
	replaced := tableRow("ns1$t1")
	replaced.Metadata = strp(`{"new":"props"}`)
	upsert(t, mt, []catalog.Row{tableRow("ns1$fresh"), replaced}, "ns2$t2")
	op, next := opOf(t, store)
	if op != "Update" {
		t.Fatalf("operation %s, want Update", op)
	}
	checkIncrementalOn(t, prev, next)
	if next.Fragments()[0].Deletion == nil || next.Fragments()[0].Deletion.NumDeleted != 2 {
		t.Fatalf("seeded fragment's deletion file: %+v", next.Fragments()[0].Deletion)
	}
	if last := next.Fragments()[len(next.Fragments())-1]; last.PhysicalRows != 2 {
		t.Fatalf("new fragment holds %d rows, want 2", last.PhysicalRows)
	}
	// A pure delete stays a Delete, a pure insert an Append.
	upsert(t, mt, nil, "ns3$t3")
	if op, _ := opOf(t, store); op != "Delete" {
		t.Errorf("delete-only commit is a %s", op)
	}
	upsert(t, mt, []catalog.Row{tableRow("ns1$other")})
	if op, _ := opOf(t, store); op != "Append" {
		t.Errorf("insert-only commit is a %s", op)
	}
	cold, _ := newTable(t, store.Location(""))
	snap, err := cold.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok, err := snap.Get(ctx, "ns1$t1"); err != nil || !ok || r.Metadata == nil || *r.Metadata != `{"new":"props"}` {
		t.Fatalf("replaced row read cold: %+v %v %v", r, ok, err)
	}
	for _, gone := range []string{"ns2$t2", "ns3$t3"} {
		if _, ok, err := snap.Get(ctx, gone); err != nil || ok {
			t.Fatalf("deleted row %s read cold: %v %v", gone, ok, err)
		}
	}
	checkWriterMatchesLinear(t, mt, store)
}

// TestIndexedReadsMatchLinearOnIncrementalLayouts: on each layout the
// incremental write path goes through (small uncovered fragments,
// deletions in covered and uncovered fragments, just tier-merged, just
// fully rewritten) indexed reads of a cold process and the writer's own
// derived snapshot both equal a full decode.
func TestIndexedReadsMatchLinearOnIncrementalLayouts(t *testing.T) {
	dir := t.TempDir()
	mt, store := newTableWith(t, dir, WriteOptions{RewriteMinRows: 40, RewriteDivisor: 1 << 20, MergeFanout: 3})
	seedRows(t, mt, true) // 99 rows in one indexed fragment
	check := func(stage, wantOp string) {
		t.Helper()
		op, ds := opOf(t, store)
		if wantOp != "" && op != wantOp {
			t.Fatalf("%s: latest operation %s, want %s (fragments %d)", stage, op, wantOp, len(ds.Fragments()))
		}
		t.Run(stage, func(t *testing.T) {
			checkIndexedMatchesLinear(t, openStore(t, dir), 150, true)
			checkWriterMatchesLinear(t, mt, store)
		})
	}
	upsert(t, mt, []catalog.Row{tableRow("ns1$a")})
	upsert(t, mt, []catalog.Row{tableRow("ns1$b"), tableRow("ns0$t1")}, "ns4$t4")
	check("small-fragments-and-deletions", "Update")
	// Delete a row of an uncovered fragment, replace another.
	upsert(t, mt, []catalog.Row{tableRow("ns1$a")}, "ns1$b")
	check("deletions-in-uncovered", "Update")
	_, beforeMerge := opOf(t, store)
	upsert(t, mt, []catalog.Row{tableRow("ns1$c")})
	// Three 1-row fragments (the new one among them) fill tier 0: the merge
	// rides on the change's own version, which removes the merged
	// fragments.
	check("just-merged", "Update")
	_, ds := opOf(t, store)
	if n := len(coverageOf(ds).uncovered); n != 1 {
		t.Fatalf("after the tier merge %d uncovered fragments, want 1", n)
	}
	if ds.Version() != beforeMerge.Version()+1 {
		t.Fatalf("the change and its merge took versions %d..%d, want one", beforeMerge.Version()+1, ds.Version())
	}
	for _, f := range coverageOf(beforeMerge).uncovered {
		if slices.ContainsFunc(ds.Fragments(), func(g *dataset.Fragment) bool { return g.ID == f.ID }) {
			t.Fatalf("uncovered fragment %d survived the merge", f.ID)
		}
	}
	for i := 0; i < 8; i++ {
		upsert(t, mt, []catalog.Row{tableRow(fmt.Sprintf("ns2$n%d", i))}, fmt.Sprintf("ns5$inner$u%d", i%7))
	}
	_, ds = opOf(t, store)
	c := coverageOf(ds)
	if len(c.uncovered) > 2*3 {
		t.Fatalf("%d uncovered fragments after tiered merges (fanout 3)", len(c.uncovered))
	}
	check("tiered", "")
	// Past 40 rows outside coverage plus deleted: a full rewrite.
	var big []catalog.Row
	for i := 0; i < 30; i++ {
		big = append(big, tableRow(fmt.Sprintf("ns3$big%02d", i)))
	}
	upsert(t, mt, big)
	check("just-compacted", "Overwrite")
	_, ds = opOf(t, store)
	checkManifestIndices(t, ds)
	if len(ds.Fragments()) != 1 || ds.Fragments()[0].Deletion != nil {
		t.Fatalf("full rewrite left %d fragments", len(ds.Fragments()))
	}
}

// TestMergeCandidates: tiers by live rows in powers of the fanout; the
// lowest full tier is merged with everything below it.
func TestMergeCandidates(t *testing.T) {
	frag := func(id, rows uint64) *dataset.Fragment { return &dataset.Fragment{ID: id, PhysicalRows: rows} }
	for _, tc := range []struct {
		frags []*dataset.Fragment
		want  []uint64
	}{
		{[]*dataset.Fragment{frag(1, 1), frag(2, 2), frag(3, 3)}, nil},
		{[]*dataset.Fragment{frag(1, 1), frag(2, 2), frag(3, 3), frag(4, 1)}, []uint64{1, 2, 3, 4}},
		{[]*dataset.Fragment{frag(1, 4), frag(2, 5), frag(3, 1), frag(4, 7)}, nil},
		{[]*dataset.Fragment{frag(1, 4), frag(2, 5), frag(3, 1), frag(4, 7), frag(5, 15)}, []uint64{1, 2, 3, 4, 5}},
		{[]*dataset.Fragment{frag(1, 100), frag(2, 1), frag(3, 1), frag(4, 1), frag(5, 1), frag(9, 20)}, []uint64{2, 3, 4, 5}},
	} {
		if got := mergeCandidates(tc.frags, 4); !slices.Equal(got, tc.want) {
			t.Errorf("mergeCandidates(%v) = %v, want %v", tc.frags, got, tc.want)
		}
	}
}

// TestDerivedSnapshotChains: the writer answers from the previous
// snapshot plus deltas, whether that chain starts at rows in memory (the
// writer's own rewrite) or at a version read lazily through its indices (a
// writer that did not write the base), across more commits than a chain
// holds (maxDeriveDepth) and across tier merges; every answer equals a
// full decode, and the catalog itself sees every change.
func TestDerivedSnapshotChains(t *testing.T) {
	ctx := context.Background()
	for _, cold := range []bool{false, true} {
		t.Run(fmt.Sprintf("lazy-root=%v", cold), func(t *testing.T) {
			dir := t.TempDir()
			mt, store := newTable(t, dir)
			seedRows(t, mt, true)
			if cold {
				mt, store = newTable(t, dir)
			}
			for i := 0; i < maxDeriveDepth+8; i++ {
				var dels []string
				if i%5 == 0 {
					dels = []string{fmt.Sprintf("ns%d$t%d", i%6, i%7)}
				}
				upsert(t, mt, []catalog.Row{tableRow(fmt.Sprintf("ns0$c%02d", i))}, dels...)
				if i == 3 || i == maxDeriveDepth+7 {
					checkWriterMatchesLinear(t, mt, store)
				}
			}
			snap, err := mt.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := snap.Get(ctx, "ns0$c00"); err != nil || !ok {
				t.Fatalf("first created row: %v %v", ok, err)
			}
		})
	}
}

// TestVacuumUnderDerivedSnapshot: a writer whose snapshot chain starts at
// a lazily read version keeps answering after a vacuum removed that
// version's files.
func TestVacuumUnderDerivedSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	seed, _ := newTable(t, dir)
	seedRows(t, seed, true)
	// The version the next writer starts from has a deletion file and an
	// uncovered fragment, both superseded by its own commits.
	upsert(t, seed, []catalog.Row{tableRow("ns0$root")}, "ns3$t3")
	mt, store := newTable(t, dir)
	for i := 0; i < 6; i++ { // deletions in the seeded fragment, a tier merge
		upsert(t, mt, []catalog.Row{tableRow(fmt.Sprintf("ns0$v%d", i))}, fmt.Sprintf("ns1$t%d", i))
	}
	rep, err := mt.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Minute, Now: time.Now().Add(time.Hour)})
	if err != nil || rep.FilesRemoved == 0 {
		t.Fatalf("vacuum: %+v %v", rep, err)
	}
	snap, err := mt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ns2$t2", "ns0$root", "ns0$v0", "ns0$v5"} {
		if _, ok, err := snap.Get(ctx, id); err != nil || !ok {
			t.Fatalf("Get(%s) after vacuum: %v %v", id, ok, err)
		}
	}
	upsert(t, mt, []catalog.Row{tableRow("ns0$after")}, "ns2$t2")
	checkWriterMatchesLinear(t, mt, store)
}

// TestBatchIsOneIncrementalVersion: an atomic batch on an indexed catalog
// lands as one incremental version holding all of its changes.
func TestBatchIsOneIncrementalVersion(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	c, err := OpenCatalog(ctx, root, Options{Write: WriteOptions{MergeFanout: 64}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, ns := range []string{"a", "b"} {
		if err := c.CreateNamespace(ctx, catalog.Ident{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, before := opOf(t, c.Store)
	b := c.NewBatch()
	b.CreateNamespace(catalog.Ident{"a", "x"}, nil)
	b.CreateTable(catalog.Ident{"a", "t"}, eventsSchema(), catalog.CreateTableOptions{})
	b.DropNamespace(catalog.Ident{"b"}, catalog.DropNamespaceOptions{})
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	op, after := opOf(t, c.Store)
	if op != "Update" || after.Version() != before.Version()+1 {
		t.Fatalf("batch landed as %s, versions %d -> %d", op, before.Version(), after.Version())
	}
	checkIncrementalOn(t, before, after)
	if got := lancecatList(t, c, nil); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("root namespaces after the batch: %v", got)
	}
	if got := lancecatList(t, c, catalog.Ident{"a"}); !slices.Equal(got, []string{"t"}) {
		t.Fatalf("tables of a after the batch: %v", got)
	}
}

// readCounter counts whole and ranged reads per path.
type readCounter struct {
	storage.Store
	mu    sync.Mutex
	reads map[string]int
}

func (r *readCounter) count(p string) {
	r.mu.Lock()
	r.reads[p]++
	r.mu.Unlock()
}

func (r *readCounter) Read(ctx context.Context, p string) ([]byte, error) {
	r.count(p)
	return r.Store.Read(ctx, p)
}

func (r *readCounter) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	r.count(p)
	return r.Store.ReadRange(ctx, p, off, n)
}

// TestTierMergeCarriesRowsFromMemory: the writer that wrote the small
// fragments folds their merge into its next change without reading them
// back, and a writer that did not (its snapshot starts at a version read
// lazily) reads them from storage; both land one version whose rows equal
// a full decode.
func TestTierMergeCarriesRowsFromMemory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	inner := openStore(t, dir)
	rc := &readCounter{Store: inner, reads: map[string]int{}}
	mt := NewManifestTableWith(rc, WriteOptions{MergeFanout: 4})
	if err := mt.Create(ctx); err != nil {
		t.Fatal(err)
	}
	seedRows(t, mt, true)
	for i := 0; i < 3; i++ {
		upsert(t, mt, []catalog.Row{tableRow(fmt.Sprintf("ns0$m%d", i))})
	}
	_, before := opOf(t, inner)
	small := coverageOf(before).uncovered
	if len(small) != 3 {
		t.Fatalf("%d uncovered fragments before the merge, want 3", len(small))
	}
	rc.mu.Lock()
	clear(rc.reads)
	rc.mu.Unlock()
	upsert(t, mt, []catalog.Row{tableRow("ns0$m3")}, "ns0$t1")
	op, after := opOf(t, inner)
	if op != "Update" || after.Version() != before.Version()+1 || len(coverageOf(after).uncovered) != 1 {
		t.Fatalf("merge: %s, versions %d -> %d, %d uncovered", op, before.Version(), after.Version(), len(coverageOf(after).uncovered))
	}
	if got := coverageOf(after).uncovered[0].PhysicalRows; got != 4 {
		t.Fatalf("merged fragment holds %d rows, want 4 (m0..m3)", got)
	}
	for _, f := range small {
		for _, df := range f.Files {
			if n := rc.reads["__manifest/data/"+df.Path]; n != 0 {
				t.Errorf("the writer read merged fragment %d's data file %d times, want 0", f.ID, n)
			}
		}
	}
	checkWriterMatchesLinear(t, mt, inner)
	// A second writer starts from a lazily read version.
	other, store := newTable(t, dir)
	for i := 4; i < 8; i++ {
		upsert(t, other, []catalog.Row{tableRow(fmt.Sprintf("ns1$m%d", i))})
	}
	if n := len(coverageOf(mustLatest(t, store)).uncovered); n > 3 {
		t.Fatalf("%d uncovered fragments after the second writer's merges", n)
	}
	checkWriterMatchesLinear(t, other, store)
	checkIndexedMatchesLinear(t, openStore(t, dir), 150, true)
}

func mustLatest(t *testing.T, st storage.Store) *dataset.Dataset {
	t.Helper()
	_, ds := opOf(t, st)
	return ds
}

// TestFoldCandidates: the new fragment of a change counts in its tier; a
// full tier is folded into it, and so is the tier the grown fragment then
// fills.
func TestFoldCandidates(t *testing.T) {
	frag := func(id, rows uint64) *dataset.Fragment { return &dataset.Fragment{ID: id, PhysicalRows: rows} }
	for _, tc := range []struct {
		name   string
		frags  []*dataset.Fragment
		adding uint64
		want   []uint64
	}{
		{"tier not full", []*dataset.Fragment{frag(1, 1), frag(2, 1)}, 1, nil},
		{"new fragment fills tier 0", []*dataset.Fragment{frag(1, 1), frag(2, 2), frag(3, 1)}, 1, []uint64{1, 2, 3}},
		{"cascade into tier 1", []*dataset.Fragment{frag(1, 4), frag(2, 5), frag(3, 6), frag(4, 1), frag(5, 1), frag(6, 1)}, 1, []uint64{4, 5, 6, 1, 2, 3}},
		{"bigger tiers left alone", []*dataset.Fragment{frag(1, 20), frag(2, 1), frag(3, 1), frag(4, 1)}, 1, []uint64{2, 3, 4}},
		{"delete-only change", []*dataset.Fragment{frag(1, 1), frag(2, 1), frag(3, 1), frag(4, 1)}, 0, []uint64{1, 2, 3, 4}},
		{"delete-only, no full tier", []*dataset.Fragment{frag(1, 1), frag(2, 1), frag(3, 1)}, 0, nil},
	} {
		if got := foldCandidates(tc.frags, tc.adding, 4); !slices.Equal(got, tc.want) {
			t.Errorf("%s: foldCandidates = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Tiers count the rows a change leaves: a fragment it empties is gone,
	// one it shrinks drops a tier.
	left := afterDeletes([]*dataset.Fragment{frag(1, 1), frag(2, 4), frag(3, 2)}, []uint64{1 << 32, 2<<32 | 0, 2<<32 | 3})
	if len(left) != 2 || left[0].ID != 2 || left[0].PhysicalRows != 2 || left[1].ID != 3 || left[1].PhysicalRows != 2 {
		t.Fatalf("afterDeletes = %v", left)
	}
}
