package manifest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

func dirBytes(t *testing.T, c *Catalog, prefix string) (files int, bytes int64) {
	t.Helper()
	objs, err := c.Store.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		files++
		bytes += o.Size
	}
	return files, bytes
}

// TestVacuumFreesOldManifestVersions: after many DDL commits, vacuum with a
// zero-length window (Now in the future) keeps only what the latest version
// needs, the catalog still answers, and the peer still lists it.
func TestVacuumFreesOldManifestVersions(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	c := open(t, root)
	for i := 0; i < 20; i++ {
		if err := c.CreateNamespace(ctx, catalog.Ident{fmt.Sprintf("ns%02d", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	filesBefore, bytesBefore := dirBytes(t, c, catalog.ManifestDir+"/")
	// Incremental commits add tier-merge versions: count what is there.
	versionsBefore, err := dataset.ListVersions(ctx, c.Store, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}

	// A window that has not passed frees nothing.
	rep, err := c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 0 {
		t.Fatalf("vacuum inside the retention window removed %d files", rep.FilesRemoved)
	}

	rep, err = c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Minute, Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	filesAfter, bytesAfter := dirBytes(t, c, catalog.ManifestDir+"/")
	if rep.FilesRemoved == 0 || rep.BytesRemoved == 0 || rep.VersionsRemoved != len(versionsBefore)-1 {
		t.Fatalf("report %+v", rep)
	}
	if int64(filesBefore-filesAfter) != int64(rep.FilesRemoved) || bytesBefore-bytesAfter != rep.BytesRemoved {
		t.Fatalf("report %+v does not match the store: %d->%d files, %d->%d bytes", rep, filesBefore, filesAfter, bytesBefore, bytesAfter)
	}
	versions, err := dataset.ListVersions(ctx, c.Store, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 1 || rep.OldestKept != versions[0].Version {
		t.Fatalf("versions left %v, oldest kept %d", versions, rep.OldestKept)
	}
	// Only the latest version's data files are left under data/.
	objs, _ := c.Store.List(ctx, catalog.ManifestDir+"/data/")
	latest, err := dataset.Open(ctx, c.Store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(latest.Fragments()) {
		t.Fatalf("data files left: %v, the latest version has %d fragments", objs, len(latest.Fragments()))
	}
	page, err := c.ListNamespaces(ctx, nil, catalog.ListOptions{})
	if err != nil || len(page.Names) != 20 {
		t.Fatalf("after vacuum: %v %v", page.Names, err)
	}
	if err := c.CreateNamespace(ctx, catalog.Ident{"after"}, nil); err != nil {
		t.Fatal(err)
	}
	// The reference must still read the vacuumed catalog; a subtest so that a missing peer
	// shows as a skip (or, under testenv.Strict, a failure) instead of passing silently.
	t.Run("peer", func(t *testing.T) {
		peer.Require(t)
		nss, _ := peerList(ctx, t, root, nil)
		if len(nss) != 21 || !strings.HasPrefix(nss[0], "after") {
			t.Fatalf("peer after vacuum lists %v", nss)
		}
	})
}

// TestVacuumRemovesStagedTableFiles: files a write staged inside a table's
// directory and never committed (a kill -9 between staging and the version)
// are removed by Catalog.Vacuum once older than the window; every version of
// the table, the files they reference and younger staged files stay.
func TestVacuumRemovesStagedTableFiles(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	c := open(t, root)
	if err := c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	info, err := c.CreateTable(ctx, catalog.Ident{"ns", "t"}, schema, catalog.CreateTableOptions{Batches: []arrow.RecordBatch{rec}})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(ctx, c.Store, info.Location, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	versionsBefore, err := dataset.ListVersions(ctx, c.Store, info.Location)
	if err != nil || len(versionsBefore) < 2 {
		t.Fatalf("versions %v, %v", versionsBefore, err)
	}
	_, referenced := dirBytes(t, c, info.Location+"/data/")

	staged := []string{"data/0-staged.lance", "_deletions/0-1-1.arrow", "_transactions/9-staged.txn", "_indices/0c5e2f0a-staged/index.idx"}
	for _, p := range staged {
		if err := c.Store.Put(ctx, info.Location+"/"+p, []byte("staged by a writer that died")); err != nil {
			t.Fatal(err)
		}
	}
	// A staged file younger than the window belongs to a write in flight.
	young := info.Location + "/data/1-in-flight.lance"
	if err := c.Store.Put(ctx, young, []byte("in flight")); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(2 * time.Hour)
	if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(young)), now, now); err != nil {
		t.Fatal(err)
	}

	rep, err := c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if rep.StagedFilesRemoved != len(staged) {
		t.Errorf("staged files removed %d, want %d (report %+v)", rep.StagedFilesRemoved, len(staged), rep)
	}
	for _, p := range staged {
		if _, err := c.Store.Stat(ctx, info.Location+"/"+p); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s still there after vacuum (%v)", p, err)
		}
	}
	if _, err := c.Store.Stat(ctx, young); err != nil {
		t.Errorf("vacuum removed the young staged file %s (%v)", young, err)
	}
	versionsAfter, err := dataset.ListVersions(ctx, c.Store, info.Location)
	if err != nil || len(versionsAfter) != len(versionsBefore) {
		t.Fatalf("table versions %d -> %d (%v): vacuum must keep a table's history", len(versionsBefore), len(versionsAfter), err)
	}
	for _, v := range versionsAfter {
		old, err := dataset.Open(ctx, c.Store, info.Location, dataset.OpenOptions{Version: v.Version})
		if err != nil {
			t.Fatalf("version %d after vacuum: %v", v.Version, err)
		}
		n := 0
		if err := old.Scan(ctx, dataset.ScanOptions{}, func(r arrow.RecordBatch) error { n += int(r.NumRows()); return nil }); err != nil {
			t.Fatalf("scan version %d after vacuum: %v", v.Version, err)
		}
		if want := 3 * int(v.Version); n != want {
			t.Errorf("version %d reads %d rows, want %d", v.Version, n, want)
		}
	}
	if _, after := dirBytes(t, c, info.Location+"/data/"); after != referenced+int64(len("in flight")) {
		t.Errorf("data/ holds %d bytes after vacuum, want the referenced %d plus the young file", after, referenced)
	}
}
