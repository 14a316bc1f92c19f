package manifest

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
	"github.com/lancecat/lancecat/storage/storagetest"
)

// versionFiles lists the store paths version ds refers to, index files one
// by one.
func versionFiles(ds *dataset.Dataset) []string {
	var out []string
	for _, p := range referencedFiles(ds, ds.Dir()) {
		if path.Base(path.Dir(p)) != "_indices" {
			out = append(out, p)
		}
	}
	for _, ix := range ds.Indices() {
		for _, f := range ix.Files {
			out = append(out, path.Join(ds.Dir(), "_indices", ix.UUID, f.Path))
		}
	}
	return out
}

// TestCatalogCommitsSyncBeforePublishing runs catalog DDL (namespace,
// table with its dataset, drop) on a store that logs writes, syncs and
// publishes: every `__manifest` version and every table version is published
// only after the data, index and transaction files it refers to were synced,
// and those files were written without a sync of their own.
func TestCatalogCommitsSyncBeforePublishing(t *testing.T) {
	ctx := context.Background()
	inner, err := storage.Open(ctx, "memory://", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := storagetest.NewRecorder(inner)
	cat, err := catalog.Open(ctx, catalog.Options{
		Root: catalog.StoreDir(rec), Manifest: NewManifestTable(rec), Datasets: NewDatasets(rec),
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAll := func(dir string) int {
		t.Helper()
		latest, err := dataset.Open(ctx, rec, dir, dataset.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for v := uint64(1); v <= latest.Version(); v++ {
			ds, err := latest.Checkout(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			if err := rec.CheckDurableBefore(ds.ManifestPath(), versionFiles(ds)); err != nil {
				t.Errorf("%s version %d: %v", dir, v, err)
			}
		}
		return int(latest.Version())
	}
	ns := catalog.Ident{"ns"}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, ns.Child("t"), eventsSchema(), catalog.CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	// A root table in compatibility mode is visible to a directory
	// listing before any `__manifest` commit: its dataset is made durable
	// on its own, before its version is published. (A table only the
	// `__manifest` reaches is synced by that commit:
	// TestCreateTableSyncsDatasetWithManifestCommit.)
	root, err := cat.CreateTable(ctx, catalog.Ident{"r"}, eventsSchema(), catalog.CreateTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := checkAll(root.Location); n != 1 {
		t.Fatalf("table dataset has %d versions, want 1", n)
	}
	if err := cat.DropTable(ctx, ns.Child("t")); err != nil {
		t.Fatal(err)
	}
	if n := checkAll(catalog.ManifestDir); n < 3 {
		t.Fatalf("__manifest has %d versions, want >= 3", n)
	}
	indexed := false
	for _, e := range rec.Events() {
		if e.Kind == storagetest.Defer && path.Base(e.Path) == "page_lookup.lance" {
			indexed = true
		}
	}
	if !indexed {
		t.Error("no index file was written: the commits did not build the indices")
	}
	if n := rec.Count(storagetest.Write); n != 0 {
		t.Errorf("%d files written with a synchronous Put, want 0", n)
	}
}

// TestCreateTableSyncsDatasetWithManifestCommit: a table in a namespace is
// reachable only through `__manifest`, so its dataset is written without a
// sync of its own (version file included) and made durable in the same
// round of syncs as the files of the `__manifest` version that names it,
// before that version is published.
func TestCreateTableSyncsDatasetWithManifestCommit(t *testing.T) {
	ctx := context.Background()
	inner, err := storage.Open(ctx, "memory://", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := storagetest.NewRecorder(inner)
	cat, err := catalog.Open(ctx, catalog.Options{
		Root: catalog.StoreDir(rec), Manifest: NewManifestTable(rec), Datasets: NewDatasets(rec),
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := catalog.Ident{"ns"}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	// Two creates: the first may be a full rewrite (no index yet), the
	// second is incremental.
	for _, name := range []string{"a", "b"} {
		ti, err := cat.CreateTable(ctx, ns.Child(name), eventsSchema(), catalog.CreateTableOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tds, err := dataset.Open(ctx, rec, ti.Location, dataset.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tableFiles := append(versionFiles(tds), tds.ManifestPath())
		ev := rec.Events()
		// The table's version was created without a sync.
		at := slices.Index(ev, storagetest.Event{Kind: storagetest.PublishDeferred, Path: tds.ManifestPath()})
		if at < 0 {
			t.Fatalf("%s: version file %s was not published deferred (log %v)", name, tds.ManifestPath(), ev)
		}
		// The next publish is the `__manifest` version naming the table.
		pub := -1
		for i := at + 1; i < len(ev); i++ {
			if ev[i].Kind == storagetest.Publish {
				pub = i
				break
			}
		}
		if pub < 0 || !strings.HasPrefix(ev[pub].Path, catalog.ManifestDir+"/_versions/") {
			t.Fatalf("%s: no __manifest version published after the table (log %v)", name, ev[at:])
		}
		mds := manifestVersionAt(t, rec, ev[pub].Path)
		if _, found, err := newSnapshot(mds).Get(ctx, ns.Child(name).ObjectID()); err != nil || !found {
			t.Fatalf("%s: __manifest version %d does not name the table (%v, %v)", name, mds.Version(), found, err)
		}
		if err := rec.CheckDurableBefore(ev[pub].Path, tableFiles); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// One round: the table's files are synced by the same call as the
		// `__manifest` version's own files, not before.
		round := pub
		for round > 0 && ev[round-1].Kind == storagetest.Sync {
			round--
		}
		synced := map[string]bool{}
		for _, e := range ev[round:pub] {
			synced[e.Path] = true
		}
		prev, err := mds.Checkout(ctx, mds.Version()-1)
		if err != nil {
			t.Fatal(err)
		}
		newFiles := slices.DeleteFunc(versionFiles(mds), func(f string) bool { return slices.Contains(versionFiles(prev), f) })
		if len(newFiles) == 0 {
			t.Fatalf("%s: __manifest version %d refers to no new file", name, mds.Version())
		}
		for _, f := range append(tableFiles, newFiles...) {
			if !synced[f] {
				t.Errorf("%s: %s not synced in the round that publishes __manifest version %d", name, f, mds.Version())
			}
		}
		for _, e := range ev[at:round] {
			if e.Kind == storagetest.Sync && strings.HasPrefix(e.Path, ti.Location+"/") {
				t.Errorf("%s: %s synced in a round of its own", name, e.Path)
			}
		}
	}
}

// manifestVersionAt opens the `__manifest` version whose file is at p.
func manifestVersionAt(t *testing.T, st storage.Store, p string) *dataset.Dataset {
	t.Helper()
	ctx := context.Background()
	versions, err := dataset.ListVersions(ctx, st, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if v.Path == p {
			ds, err := dataset.Open(ctx, st, catalog.ManifestDir, dataset.OpenOptions{Version: v.Version})
			if err != nil {
				t.Fatal(err)
			}
			return ds
		}
	}
	t.Fatalf("no __manifest version file %s", p)
	return nil
}

// TestVacuumMemoFollowsTheWindow: the files each version refers to are
// memoized across vacuums for the versions still kept, and forgotten with
// them, while what the latest version needs stays readable.
func TestVacuumMemoFollowsTheWindow(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "memory://", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mt := NewManifestTable(st)
	cat, err := catalog.Open(ctx, catalog.Options{Root: catalog.StoreDir(st), Manifest: mt, Datasets: NewDatasets(st), AutoVacuumEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	create := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := cat.CreateNamespace(ctx, catalog.Ident{fmt.Sprintf("ns%02d", i)}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	memo := func() int {
		mt.refs.mu.Lock()
		defer mt.refs.mu.Unlock()
		return len(mt.refs.files)
	}
	create(0, 10)
	rep, err := mt.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Hour, KeepVersionFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	versions, err := dataset.ListVersions(ctx, st, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 0 || memo() != len(versions) {
		t.Fatalf("inside the window: %+v, memo of %d versions, want all %d", rep, memo(), len(versions))
	}
	create(10, 15)
	// Incremental commits add tier-merge versions: count what is there.
	all, err := dataset.ListVersions(ctx, st, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = mt.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Minute, Now: time.Now().Add(time.Hour), KeepVersionFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved == 0 || rep.VersionsRemoved != 0 || memo() != 1 {
		t.Fatalf("past the window: %+v, memo of %d versions, want 1 (the latest)", rep, memo())
	}
	if versions, _ = dataset.ListVersions(ctx, st, catalog.ManifestDir); len(versions) != len(all) {
		t.Fatalf("%d version files left, want all %d kept", len(versions), len(all))
	}
	page, err := cat.ListNamespaces(ctx, nil, catalog.ListOptions{})
	if err != nil || len(page.Names) != 15 {
		t.Fatalf("after vacuum: %v %v", page.Names, err)
	}
}
