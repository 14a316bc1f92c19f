package manifest

import (
	"context"
	"fmt"
	"path"
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
	ti, err := cat.CreateTable(ctx, ns.Child("t"), eventsSchema(), catalog.CreateTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := checkAll(ti.Location); n != 1 {
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
