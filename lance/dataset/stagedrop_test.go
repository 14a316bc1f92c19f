package dataset_test

// Tests of RowStager.DropRows and RowChangeOptions.KeepStaged: the commit
// shape of a streamed LOAD DATA REPLACE / IGNORE (new fragments that carry
// deletion files from their first version, deletions of stored rows, one
// Update), read back by lancecat and by the peer.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

var dropSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)

// dropBatch is rows lo..hi-1 of (id, name "<prefix><id>").
func dropBatch(prefix string, lo, hi int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, dropSchema)
	defer b.Release()
	for i := lo; i < hi; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%s%d", prefix, i))
	}
	return b.NewRecordBatch()
}

// stageDropped stages three batches of new rows (ids 100..129, one batch
// per fragment) and drops staged rows 3 and 5 of the first, all of the
// second and the last of the third.
func stageDropped(t *testing.T, d *dataset.Dataset) *dataset.RowStager {
	t.Helper()
	rs, err := d.NewRowStager()
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		rec := dropBatch("new", 100+10*k, 100+10*k+10)
		err := rs.Write(context.Background(), rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	drop := roaring.BitmapOf(3, 5, 29)
	drop.AddRange(10, 20)
	rs.DropRows(drop)
	return rs
}

// wantAfterDrop is the rows after stageDropped's commit on a table of
// old0..old9 that deleted old rows 0 and 4.
func wantAfterDrop() map[int64]string {
	want := map[int64]string{}
	for i := 0; i < 10; i++ {
		if i != 0 && i != 4 {
			want[int64(i)] = fmt.Sprintf("old%d", i)
		}
	}
	for i := 0; i < 30; i++ {
		if i != 3 && i != 5 && (i < 10 || i >= 20) && i != 29 {
			want[int64(100+i)] = fmt.Sprintf("new%d", 100+i)
		}
	}
	return want
}

func scanDropRows(t *testing.T, d *dataset.Dataset) map[int64]string {
	t.Helper()
	got := map[int64]string{}
	err := d.Scan(context.Background(), dataset.ScanOptions{}, func(rec arrow.RecordBatch) error {
		ids, names := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			got[ids.Value(i)] = names.Value(i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// newDropTable creates the rows old0..old9 in dir.
func newDropTable(t *testing.T, dir string) *dataset.Dataset {
	t.Helper()
	rec := dropBatch("old", 0, 10)
	defer rec.Release()
	d, err := dataset.CreateWithData(context.Background(), openDir(t, dir), "", dropSchema, []arrow.RecordBatch{rec}, dataset.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func dataFiles(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestUpdateStagedDropRows: the dropped staged rows are not visible, a
// fragment whose rows are all dropped is neither committed nor left on
// disk, and the version is one Update; with KeepStaged a conflict keeps
// the staged rows and the same stager commits on the latest version.
func TestUpdateStagedDropRows(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t.lance")
	d := newDropTable(t, dir)
	rs := stageDropped(t, d)
	// A concurrent commit between the read and the commit.
	extra := dropBatch("extra", 50, 51)
	if _, err := d.Append(ctx, []arrow.RecordBatch{extra}); err != nil {
		t.Fatal(err)
	}
	extra.Release()
	old := d.Fragments()[0].ID
	_, err := d.UpdateStaged(ctx, rs, []uint64{old << 32, old<<32 | 4}, dataset.RowChangeOptions{ExactBase: true, KeepStaged: true})
	if !errors.Is(err, dataset.ErrCommitConflict) {
		t.Fatalf("commit on a stale version: %v, want a conflict", err)
	}
	if n := dataFiles(t, dir); n != 1+1+3 {
		t.Fatalf("after the conflict %d data files, want the 3 staged kept", n)
	}
	latest, err := d.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err = latest.UpdateStaged(ctx, rs, []uint64{old << 32, old<<32 | 4}, dataset.RowChangeOptions{ExactBase: true, KeepStaged: true})
	if err != nil {
		t.Fatal(err)
	}
	if op := d.Manifest().Transaction.Operation; op != "Update" {
		t.Fatalf("operation %s, want Update", op)
	}
	if n := len(d.Fragments()); n != 1+1+2 {
		t.Fatalf("%d fragments, want the old, the concurrent one and 2 new (the third dropped whole)", n)
	}
	if n := dataFiles(t, dir); n != 1+1+2 {
		t.Fatalf("%d data files, want the dropped fragment's deleted", n)
	}
	got := scanDropRows(t, d)
	want := wantAfterDrop()
	want[50] = "extra50"
	if !sameIDs(got, want) {
		t.Fatalf("rows %v\nwant %v", got, want)
	}
	if n, _ := d.CountRows(ctx); n != uint64(len(want)) {
		t.Fatalf("CountRows %d, want %d", n, len(want))
	}
}

func sameIDs(got, want map[int64]string) bool {
	if len(got) != len(want) {
		return false
	}
	for id, name := range got {
		if w, ok := want[id]; !ok || w != name {
			return false
		}
	}
	return true
}

// TestPeerReadsDroppedStagedRows: the peer reads the Update with dropped
// staged rows and deleted stored rows as lancecat does: same version, same
// row count, no dropped or deleted row visible.
func TestPeerReadsDroppedStagedRows(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t.lance")
	d := newDropTable(t, dir)
	rs := stageDropped(t, d)
	old := d.Fragments()[0].ID
	d, err := d.UpdateStaged(ctx, rs, []uint64{old << 32, old<<32 | 4}, dataset.RowChangeOptions{ExactBase: true, KeepStaged: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPeerAgrees(t, dir, d)
	if got := scanDropRows(t, d); !sameIDs(got, wantAfterDrop()) {
		t.Fatalf("rows %v", got)
	}
}
