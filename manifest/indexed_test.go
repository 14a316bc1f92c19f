package manifest

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/storage"
)

func strp(s string) *string { return &s }

// seedRows commits rows through a ManifestTable (BuildIndices as given):
// nested namespaces, tables, table_version rows, base_objects lists (null,
// empty, one and two entries), odd characters in names.
func seedRows(t *testing.T, mt *ManifestTable, buildIndices bool) uint64 {
	t.Helper()
	ctx := context.Background()
	var rows []catalog.Row
	for i := 0; i < 6; i++ {
		ns := fmt.Sprintf("ns%d", i)
		rows = append(rows, catalog.Row{ObjectID: ns, ObjectType: "namespace", Metadata: strp(`{"k":"v"}`)})
		rows = append(rows, catalog.Row{ObjectID: ns + "$inner", ObjectType: "namespace"})
		for j := 0; j < 7; j++ {
			id := fmt.Sprintf("%s$t%d", ns, j)
			r := catalog.Row{ObjectID: id, ObjectType: "table", Location: strp("0000abcd_" + id)}
			switch j % 4 {
			case 1:
				r.BaseObjects = []string{}
			case 2:
				r.BaseObjects = []string{"ns0$t0"}
			case 3:
				r.BaseObjects = []string{"ns0$t0", fmt.Sprintf("ns%d$t1", i)}
			}
			rows = append(rows, r)
			rows = append(rows, catalog.Row{ObjectID: fmt.Sprintf("%s$inner$u%d", ns, j), ObjectType: "table", Location: strp("x")})
		}
		rows = append(rows, catalog.Row{ObjectID: ns + "$t0$v1", ObjectType: "table_version", Location: strp("v")})
	}
	rows = append(rows,
		catalog.Row{ObjectID: "q'uote", ObjectType: "namespace"},
		catalog.Row{ObjectID: "q'uote$t\"x", ObjectType: "table", Location: strp("y")},
		catalog.Row{ObjectID: "ünï$表", ObjectType: "table", Location: strp("z")},
	)
	snap, err := mt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := mt.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: rows, BuildIndices: buildIndices})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newTable(t *testing.T, uri string) (*ManifestTable, storage.Store) {
	t.Helper()
	return newTableWith(t, uri, WriteOptions{})
}

func newTableWith(t *testing.T, uri string, opts WriteOptions) (*ManifestTable, storage.Store) {
	t.Helper()
	store, err := storage.Open(context.Background(), uri, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	mt := NewManifestTableWith(store, opts)
	if err := mt.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	return mt, store
}

// checkManifestIndices asserts that the version has exactly the three
// indices the reference writes, built over this very version.
func checkManifestIndices(t *testing.T, ds *dataset.Dataset) {
	t.Helper()
	want := map[string]struct {
		url     string
		version int32
		field   string
		files   []string
	}{
		indexObjectID:    {index.BTreeDetailsTypeURL, 0, colObjectID, []string{"page_data.lance", "page_lookup.lance"}},
		indexObjectType:  {index.BitmapDetailsTypeURL, 0, colObjectType, []string{"bitmap_page_lookup.lance"}},
		indexBaseObjects: {index.LabelListDetailsTypeURL, 1, colBaseObjects, []string{"bitmap_page_lookup.lance"}},
	}
	if len(ds.Indices()) != len(want) {
		t.Fatalf("version %d has %d indices, want 3", ds.Version(), len(ds.Indices()))
	}
	var frags []uint32
	for _, f := range ds.Fragments() {
		frags = append(frags, uint32(f.ID))
	}
	for _, ix := range ds.Indices() {
		w, ok := want[ix.Name]
		if !ok {
			t.Fatalf("unexpected index %q", ix.Name)
		}
		if ix.DetailsTypeURL != w.url || ix.IndexVersion == nil || *ix.IndexVersion != w.version {
			t.Errorf("%s: details %q index_version %v", ix.Name, ix.DetailsTypeURL, ix.IndexVersion)
		}
		if ix.DatasetVersion != ds.Version() {
			t.Errorf("%s: dataset_version %d in version %d", ix.Name, ix.DatasetVersion, ds.Version())
		}
		if len(ix.Fields) != 1 || ds.Schema().FieldByID(ix.Fields[0]) == nil || ds.Schema().FieldByID(ix.Fields[0]).Name != w.field {
			t.Errorf("%s: fields %v", ix.Name, ix.Fields)
		}
		if ix.FragmentBitmap == nil || !slices.Equal(ix.FragmentBitmap.ToArray(), frags) {
			t.Errorf("%s: fragment bitmap %v, fragments %v", ix.Name, ix.FragmentBitmap, frags)
		}
		if ix.CreatedAt != nil {
			t.Errorf("%s: created_at %v (the reference's rewrite records none)", ix.Name, ix.CreatedAt)
		}
		var names []string
		for _, f := range ix.Files {
			names = append(names, f.Path)
			info, err := ds.Store().Stat(context.Background(), path.Join(ds.Dir(), "_indices", ix.UUID, f.Path))
			if err != nil || uint64(info.Size) != f.SizeBytes {
				t.Errorf("%s: file %s: %v (size %d, recorded %d)", ix.Name, f.Path, err, info.Size, f.SizeBytes)
			}
		}
		sort.Strings(names)
		if !slices.Equal(names, w.files) {
			t.Errorf("%s: files %v, want %v", ix.Name, names, w.files)
		}
	}
}

// TestCommitBuildsIndicesInSameVersion: with BuildIndices (the driver's
// default) every rewrite commits the three indices over its own rows in the
// same version; without it the version has none. (AlwaysRewrite: the
// incremental shape is tested in incremental_test.go.)
func TestCommitBuildsIndicesInSameVersion(t *testing.T) {
	ctx := context.Background()
	mt, store := newTableWith(t, t.TempDir(), WriteOptions{AlwaysRewrite: true})
	v := seedRows(t, mt, true)
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Version() != v {
		t.Fatalf("latest %d, committed %d", ds.Version(), v)
	}
	checkManifestIndices(t, ds)
	// The indices answer for the rows of the version they were built on.
	ix, err := index.Open(ctx, ds, indexObjectID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, index.Eq("ns3$t2"))
	if err != nil {
		t.Fatal(err)
	}
	addrs, _ := res.Rows.Values()
	if len(addrs) != 1 || len(res.Uncovered) != 0 {
		t.Fatalf("ns3$t2: rows %v uncovered %v", addrs, res.Uncovered)
	}
	rec, err := ds.Take(ctx, addrs, dataset.TakeOptions{Columns: []string{colObjectID}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if got := rec.Column(0).ValueStr(0); got != "ns3$t2" {
		t.Fatalf("row at %d is %q", addrs[0], got)
	}

	// A second commit rebuilds them for its version.
	v2, err := mt.Commit(ctx, v, &catalog.ManifestChange{Deletes: []string{"ns3$t2"}, BuildIndices: true})
	if err != nil {
		t.Fatal(err)
	}
	ds2, err := ds.Checkout(ctx, v2)
	if err != nil {
		t.Fatal(err)
	}
	checkManifestIndices(t, ds2)

	// Index building switched off: the version carries no index.
	v3, err := mt.Commit(ctx, v2, &catalog.ManifestChange{Deletes: []string{"ns3$t3"}})
	if err != nil {
		t.Fatal(err)
	}
	ds3, err := ds.Checkout(ctx, v3)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ds3.Indices()); n != 0 {
		t.Fatalf("version without index building has %d indices", n)
	}
	checkNoOrphans(t, store)
}

// filesOfAllVersions lists the data and index files some version references.
func filesOfAllVersions(t *testing.T, store storage.Store) map[string]bool {
	t.Helper()
	ctx := context.Background()
	versions, err := dataset.ListVersions(ctx, store, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string]bool{}
	for _, v := range versions {
		ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{Version: v.Version})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ds.Fragments() {
			for _, df := range f.Files {
				ref[path.Join(catalog.ManifestDir, "data", df.Path)] = true
			}
		}
		for _, ix := range ds.Indices() {
			for _, f := range ix.Files {
				ref[path.Join(catalog.ManifestDir, "_indices", ix.UUID, f.Path)] = true
			}
		}
	}
	return ref
}

// checkNoOrphans asserts every data and index file of `__manifest` is
// referenced by a version (nothing staged was left behind) and every
// referenced one exists.
func checkNoOrphans(t *testing.T, store storage.Store) {
	t.Helper()
	ref := filesOfAllVersions(t, store)
	for _, dir := range []string{"data", "_indices"} {
		objs, err := store.List(context.Background(), path.Join(catalog.ManifestDir, dir)+"/")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if !ref[o.Path] {
				t.Errorf("orphaned staged file %s", o.Path)
			}
			delete(ref, o.Path)
		}
	}
	for p := range ref {
		t.Errorf("referenced file %s is missing", p)
	}
}

// TestLostCommitDeletesStagedIndexFiles: a rewrite that loses the race for
// its version deletes its data file and its three index directories; the
// winner's files stay.
func TestLostCommitDeletesStagedIndexFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mt, store := newTableWith(t, dir, WriteOptions{AlwaysRewrite: true})
	base := seedRows(t, mt, true)
	other, _ := newTableWith(t, dir, WriteOptions{AlwaysRewrite: true})
	if _, err := other.Commit(ctx, base, &catalog.ManifestChange{Deletes: []string{"ns1$t1"}, BuildIndices: true}); err != nil {
		t.Fatal(err)
	}
	_, err := mt.Commit(ctx, base, &catalog.ManifestChange{Deletes: []string{"ns2$t1"}, BuildIndices: true})
	if err == nil || !strings.Contains(err.Error(), "conflict") {
		t.Fatalf("second commit of version %d: %v, want a conflict", base+1, err)
	}
	checkNoOrphans(t, store)
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkManifestIndices(t, ds)
}

// ------------------------------------------------------------ equivalence

// lookupCases returns the object ids and filters the equivalence checks
// ask: every id of a sample of rows, absent ids next to them, prefixes at
// every depth, each type, base objects, limits.
func lookupCases(rows []catalog.Row, sample int, rng *rand.Rand) ([]string, []catalog.RowFilter) {
	picked := rows
	if len(rows) > sample {
		picked = make([]catalog.Row, sample)
		for i := range picked {
			picked[i] = rows[rng.IntN(len(rows))]
		}
	}
	ids := []string{"", "$", "absent", "ns", "q'uote", "zzzz"}
	prefixes := map[string]bool{"": true}
	bases := map[string]bool{"absent$t": true, "": true}
	types := map[string]bool{"namespace": true, "table": true, "table_version": true, "view": true}
	for _, r := range picked {
		ids = append(ids, r.ObjectID, r.ObjectID+"x", r.ObjectID[:len(r.ObjectID)/2])
		parts := strings.Split(r.ObjectID, "$")
		for i := 1; i <= len(parts); i++ {
			prefixes[strings.Join(parts[:i], "$")+"$"] = true
		}
		prefixes[r.ObjectID[:len(r.ObjectID)/2]] = true
		for _, b := range r.BaseObjects {
			bases[b] = true
		}
		types[r.ObjectType] = true
	}
	var filters []catalog.RowFilter
	for p := range prefixes {
		filters = append(filters,
			catalog.RowFilter{IDPrefix: p},
			catalog.RowFilter{IDPrefix: p, DirectOnly: true, Types: []string{"table"}},
			catalog.RowFilter{IDPrefix: p, DirectOnly: true, Types: []string{"namespace"}},
			catalog.RowFilter{IDPrefix: p, Types: []string{"table_version"}},
			catalog.RowFilter{IDPrefix: p, Limit: 1},
			catalog.RowFilter{IDPrefix: p, Types: []string{"table"}, Limit: 3},
		)
	}
	for b := range bases {
		filters = append(filters, catalog.RowFilter{BaseObject: b}, catalog.RowFilter{BaseObject: b, Types: []string{"table"}, Limit: 2})
	}
	for ty := range types {
		filters = append(filters, catalog.RowFilter{Types: []string{ty}}, catalog.RowFilter{Types: []string{ty, "namespace"}, Limit: 5})
	}
	filters = append(filters, catalog.RowFilter{}, catalog.RowFilter{DirectOnly: true}, catalog.RowFilter{Limit: 7})
	sort.Slice(filters, func(i, j int) bool { return fmt.Sprint(filters[i]) < fmt.Sprint(filters[j]) })
	return ids, filters
}

// checkIndexedMatchesLinear compares every indexed Get and Scan on the
// latest version of store's `__manifest` with the linear answer from a full
// decode. With broad false, filters matching more than a quarter of the
// table (which production answers with a full decode anyway, see
// fullDecodeFraction) are compared on a plain snapshot, to keep the run
// short on big tables.
func checkIndexedMatchesLinear(t *testing.T, store storage.Store, sample int, broad bool) {
	t.Helper()
	ctx := context.Background()
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	linear := newSnapshot(ds)
	all, _, err := linear.all(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(len(all)), 7))
	ids, filters := lookupCases(all, sample, rng)
	lazy := newSnapshot(ds)
	lazy.pushDownOnly = true
	for _, id := range ids {
		wr, wok, werr := linear.Get(ctx, id)
		gr, gok, gerr := lazy.Get(ctx, id)
		if (werr == nil) != (gerr == nil) || wok != gok || !reflect.DeepEqual(wr, gr) {
			t.Fatalf("Get(%q): indexed (%+v, %v, %v), linear (%+v, %v, %v)", id, gr, gok, gerr, wr, wok, werr)
		}
	}
	// Filters no index applies to decode the table: give them their own
	// snapshot so the indexed one shows it never had to.
	unindexed := newSnapshot(ds)
	for _, f := range filters {
		want, werr := linear.Scan(ctx, f)
		s := lazy
		if (f.IDPrefix == "" && len(f.Types) == 0 && f.BaseObject == "") || (!broad && len(want)*fullDecodeFraction > len(all)) {
			s = unindexed
		}
		got, gerr := s.Scan(ctx, f)
		if werr != nil || gerr != nil {
			t.Fatalf("Scan(%+v): indexed error %v, linear error %v", f, gerr, werr)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("Scan(%+v): indexed %d rows, linear %d rows\nindexed %v\nlinear  %v", f, len(got), len(want), ids4(got), ids4(want))
		}
		// VisitRows (the listing's copy-free read) hands over the same
		// rows, on the decoded snapshot and on the indexed one.
		for name, v := range map[string]*snapshot{"linear": linear, "indexed": s} {
			visited, err := visitAll(ctx, v, f)
			if err != nil || !reflect.DeepEqual(visited, want) {
				t.Fatalf("VisitRows(%+v) on the %s snapshot: %d rows %v, %v; Scan %d rows %v", f, name, len(visited), ids4(visited), err, len(want), ids4(want))
			}
		}
	}
	if _, _, loaded := lazy.ifLoaded(); loaded {
		t.Fatalf("the indexed snapshot decoded the whole table")
	}
	t.Logf("%d rows, %d Gets and %d Scans equal; indexed path decoded %d rows in total", len(all), len(ids), len(filters), lazy.rowsDecoded.Load())
}

// visitAll collects the rows s.VisitRows hands over, checking the count
// it announces.
func visitAll(ctx context.Context, s *snapshot, f catalog.RowFilter) ([]catalog.Row, error) {
	var out []catalog.Row
	announced := -1
	err := s.VisitRows(ctx, f, func(n int, rows iter.Seq[*catalog.Row]) {
		announced = n
		for r := range rows {
			out = append(out, r.Clone())
		}
	})
	if err == nil && announced != len(out) {
		return out, fmt.Errorf("announced %d rows, handed over %d", announced, len(out))
	}
	return out, err
}

func ids4(rows []catalog.Row) []string {
	var out []string
	for i, r := range rows {
		if i == 4 {
			out = append(out, "...")
			break
		}
		out = append(out, r.ObjectID)
	}
	return out
}

// TestIndexedReadsMatchLinearOnLancecatCatalog: on catalogs lancecat wrote
// (with indices), indexed Get/Scan return exactly the linear answers.
func TestIndexedReadsMatchLinearOnLancecatCatalog(t *testing.T) {
	mt, store := newTable(t, t.TempDir())
	seedRows(t, mt, true)
	checkIndexedMatchesLinear(t, store, 1000, true)
}

// TestPointLookupDoesNotDecodeTable: a cold Get or a namespace listing on an
// indexed version decodes only the matching rows; without indices it falls
// back to the full decode.
func TestPointLookupDoesNotDecodeTable(t *testing.T) {
	ctx := context.Background()
	for _, build := range []bool{true, false} {
		dir := t.TempDir()
		mt, _ := newTable(t, dir)
		seedRows(t, mt, build)
		cold, _ := newTable(t, dir) // a new process: nothing cached
		snap, err := cold.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := snap.(*snapshot)
		r, ok, err := s.Get(ctx, "ns4$t5")
		if err != nil || !ok || r.ObjectID != "ns4$t5" {
			t.Fatalf("Get: %+v %v %v", r, ok, err)
		}
		_, _, loaded := s.ifLoaded()
		if build && (loaded || s.rowsDecoded.Load() != 1) {
			t.Fatalf("indexed Get: loaded=%v, decoded %d rows", loaded, s.rowsDecoded.Load())
		}
		// A listing on another cold snapshot (on a table this small the
		// first one switches to a full decode after one lookup, see
		// promoteFactor).
		cold2, _ := newTable(t, dir)
		snap2, err := cold2.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s2 := snap2.(*snapshot)
		rows, err := s2.Scan(ctx, catalog.RowFilter{Types: []string{"table"}, IDPrefix: "ns4$", DirectOnly: true})
		if err != nil || len(rows) != 7 {
			t.Fatalf("list ns4: %d rows, %v", len(rows), err)
		}
		_, _, loaded2 := s2.ifLoaded()
		if build && (loaded2 || s2.rowsDecoded.Load() > 14) {
			t.Fatalf("indexed listing: loaded=%v, decoded %d rows", loaded2, s2.rowsDecoded.Load())
		}
		if !build && !loaded {
			t.Fatalf("without indices the snapshot should have decoded the table")
		}
	}
}

// TestRepeatedLookupsSwitchToFullDecode: once the push-down work on one
// version reaches about the cost of decoding it (promoteFactor), the
// snapshot decodes the table and answers from memory, with the same
// results.
func TestRepeatedLookupsSwitchToFullDecode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mt, _ := newTable(t, dir)
	seedRows(t, mt, true)
	cold, _ := newTable(t, dir)
	snap, err := cold.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := snap.(*snapshot)
	total := int(s.liveRowsHint())
	for i := 0; ; i++ {
		_, _, loaded := s.ifLoaded()
		if loaded {
			// It switched at the first call after the push-down work (a
			// lookup plus one fetched row per Get) reached the threshold.
			w := int(s.pushedWork.Load())
			if w*promoteFactor < total || (w-2)*promoteFactor >= total || i != w/2+1 {
				t.Fatalf("switched after %d calls, push-down work %d, on %d rows", i, w, total)
			}
			break
		}
		if i > total {
			t.Fatalf("never switched to the full decode")
		}
		id := fmt.Sprintf("ns%d$t%d", i%6, i%7)
		r, ok, err := s.Get(ctx, id)
		if err != nil || !ok || r.ObjectID != id {
			t.Fatalf("Get(%s): %+v %v %v", id, r, ok, err)
		}
	}
	r, ok, err := s.Get(ctx, "ns5$inner$u6")
	if err != nil || !ok || r.ObjectID != "ns5$inner$u6" || *r.Location != "x" {
		t.Fatalf("Get from memory: %+v %v %v", r, ok, err)
	}
	if _, _, loaded := cold.snapshotOf(s.ds).ifLoaded(); !loaded {
		t.Fatalf("the cached snapshot is not the decoded one")
	}
}
