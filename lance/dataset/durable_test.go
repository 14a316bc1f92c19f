package dataset

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/storage"
	"github.com/lancecat/lancecat/storage/storagetest"
)

// referencedPaths lists the store paths version d refers to.
func referencedPaths(d *Dataset) []string {
	var out []string
	m := d.Manifest()
	for _, f := range m.Fragments {
		for _, df := range f.Files {
			out = append(out, joinPath(d.dir, dataDir, df.Path))
		}
		if f.Deletion != nil {
			out = append(out, d.DeletionFilePath(f))
		}
	}
	for _, ix := range m.Indices {
		for _, f := range ix.Files {
			out = append(out, joinPath(d.dir, indicesDir, ix.UUID, f.Path))
		}
	}
	if m.TransactionFile != "" {
		out = append(out, joinPath(d.dir, transactionsDir, m.TransactionFile))
	}
	return out
}

// TestCommitSyncsFilesBeforePublishing checks the crash-safety rule of a
// deferred-sync store: every file a version refers to is durable before the
// version file is published, for each kind of write (create with data and a
// transaction file, append, delete with a deletion file, index commit).
func TestCommitSyncsFilesBeforePublishing(t *testing.T) {
	useFakeFormat(t)
	ctx := context.Background()
	rec := storagetest.NewRecorder(memStore(t))
	check := func(d *Dataset, what string) {
		t.Helper()
		files := referencedPaths(d)
		if len(files) == 0 {
			t.Fatalf("%s: version %d refers to no file", what, d.Version())
		}
		if err := rec.CheckDurableBefore(d.loc.Path, files); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	d, err := CreateWithData(ctx, rec, "t", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2, 3}, []string{"a", "b", "c"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check(d, "create")
	if d, err = d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{4}, []string{"d"})}); err != nil {
		t.Fatal(err)
	}
	check(d, "append")
	if d, err = d.Delete(ctx, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	check(d, "delete")
	id := "0cdc6513-03b6-4045-ae0d-85ee2de65b37"
	if err := storage.PutDeferred(ctx, rec, joinPath("t", indicesDir, id, "page_lookup.lance"), []byte("index")); err != nil {
		t.Fatal(err)
	}
	bm := newBitmap()
	bm.Add(0)
	ix := &IndexMetadata{UUID: id, Name: "id_idx", Fields: []int32{0}, DatasetVersion: d.Version(), FragmentBitmap: bm,
		DetailsTypeURL: "type.googleapis.com/lance.table.BTreeIndexDetails", IndexVersion: ptr(int32(0)),
		Files: []IndexFile{{Path: "page_lookup.lance", SizeBytes: 5}}}
	if d, err = d.CommitIndices(ctx, []*IndexMetadata{ix}, nil); err != nil {
		t.Fatal(err)
	}
	check(d, "create index")
	// The data, deletion, index and transaction files all went through the
	// deferred path: nothing but the version files was synced on its own.
	if n := rec.Count(storagetest.Write); n != 0 {
		t.Errorf("%d files written with a synchronous Put, want 0 (events %v)", n, rec.Events())
	}
	if n := rec.Count(storagetest.Publish); n != 4 {
		t.Errorf("%d publishes, want one per version (4)", n)
	}
}

// TestCreateDeferSync: with CreateOptions.DeferSync version 1 is created
// atomically but nothing is synced; Unsynced lists every file the version
// refers to plus the version file, and a second create still fails.
func TestCreateDeferSync(t *testing.T) {
	useFakeFormat(t)
	ctx := context.Background()
	rec := storagetest.NewRecorder(memStore(t))
	d, err := CreateWithData(ctx, rec, "t", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2}, []string{"a", "b"})}, CreateOptions{DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := rec.Count(storagetest.Sync) + rec.Count(storagetest.Publish) + rec.Count(storagetest.Write); n != 0 {
		t.Fatalf("a deferred create made %d writes durable (events %v)", n, rec.Events())
	}
	if n := rec.Count(storagetest.PublishDeferred); n != 1 {
		t.Fatalf("%d deferred publishes, want 1 (events %v)", n, rec.Events())
	}
	want := append(referencedPaths(d), d.loc.Path)
	got := d.Unsynced()
	slices.Sort(want)
	slices.Sort(got)
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Fatalf("Unsynced() = %v, want %v (data, transaction and version files)", got, want)
	}
	if _, err := CreateWithData(ctx, rec, "t", testSchema, nil, CreateOptions{DeferSync: true}); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second create: %v, want ErrAlreadyExists", err)
	}
	if next, err := d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{3}, []string{"c"})}); err != nil || next.Unsynced() != nil {
		t.Fatalf("append after a deferred create: unsynced %v, %v; want a durable commit", next.Unsynced(), err)
	}
}
