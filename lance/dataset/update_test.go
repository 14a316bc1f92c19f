package dataset

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
)

// seedTwoFragments makes a dataset with fragments 0 (ids 1-3) and 1 (ids 4-5).
func seedTwoFragments(t *testing.T) (*Dataset, context.Context) {
	t.Helper()
	useFakeFormat(t)
	ctx := context.Background()
	d, err := CreateWithData(ctx, memStore(t), "u", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2, 3}, []string{"a", "b", "c"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{4, 5}, []string{"d", "e"})}); err != nil {
		t.Fatal(err)
	}
	return d, ctx
}

func txOp(t *testing.T, d *Dataset) string {
	t.Helper()
	tx, err := d.Transaction(context.Background())
	if err != nil || tx == nil {
		t.Fatalf("transaction of version %d: %v %v", d.Version(), tx, err)
	}
	return tx.Operation
}

func TestUpdateAppendsAndDeletesInOneVersion(t *testing.T) {
	d, ctx := seedTwoFragments(t)
	v := d.Version()
	// Replace id 2 (fragment 0, offset 1) and remove both rows of fragment 1.
	next, err := d.Update(ctx, []arrow.RecordBatch{makeRecord(t, []int64{2}, []string{"B"})}, []uint64{1, 1 << 32, 1<<32 | 1}, RowChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if next.Version() != v+1 {
		t.Fatalf("version %d, want %d", next.Version(), v+1)
	}
	if op := txOp(t, next); op != "Update" {
		t.Errorf("operation %q, want Update", op)
	}
	up := next.manifest.Transaction.raw.GetUpdate()
	if got := up.GetRemovedFragmentIds(); len(got) != 1 || got[0] != 1 {
		t.Errorf("removed fragments %v, want [1]", got)
	}
	if len(up.GetUpdatedFragments()) != 1 || up.GetUpdatedFragments()[0].GetId() != 0 || up.GetUpdatedFragments()[0].GetDeletionFile() == nil {
		t.Errorf("updated fragments %v, want fragment 0 with a deletion file", up.GetUpdatedFragments())
	}
	if len(up.GetNewFragments()) != 1 || up.GetNewFragments()[0].GetId() != 2 {
		t.Errorf("new fragments %v, want one with id 2", up.GetNewFragments())
	}
	re, err := Open(ctx, d.Store(), "u", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rowsOf(t, re, ScanOptions{WithRowAddress: true}), ";")
	want := "id=1,name=a,_rowaddr=0;id=3,name=c,_rowaddr=2;id=2,name=B,_rowaddr=8589934592"
	if got != want {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
	// Pure appends and pure deletes keep their own operations.
	a, err := re.Update(ctx, []arrow.RecordBatch{makeRecord(t, []int64{9}, []string{"z"})}, nil, RowChangeOptions{})
	if err != nil || txOp(t, a) != "Append" {
		t.Fatalf("append-only update: %v", err)
	}
	dl, err := a.Update(ctx, nil, []uint64{0}, RowChangeOptions{})
	if err != nil || txOp(t, dl) != "Delete" {
		t.Fatalf("delete-only update: %v", err)
	}
	// An address outside the dataset is rejected before any commit.
	if _, err := dl.Update(ctx, nil, []uint64{7 << 32}, RowChangeOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("delete in a missing fragment: %v", err)
	}
}

func TestUpdateRebaseRules(t *testing.T) {
	d, ctx := seedTwoFragments(t)
	rec := func(id int64) []arrow.RecordBatch {
		return []arrow.RecordBatch{makeRecord(t, []int64{id}, []string{"n"})}
	}

	// A concurrent append: compatible, our update lands on top of it.
	if _, err := d.Append(ctx, rec(10)); err != nil {
		t.Fatal(err)
	}
	up, err := d.Update(ctx, rec(11), []uint64{0}, RowChangeOptions{})
	if err != nil {
		t.Fatalf("update over a concurrent append: %v", err)
	}
	if n, _ := up.CountRows(ctx); n != 6 { // 5 - 1 + 1 (append) + 1
		t.Errorf("rows after rebase: %d, want 6", n)
	}

	// A concurrent update of another fragment: compatible.
	base := up
	if _, err := base.Update(ctx, rec(12), []uint64{1 << 32}, RowChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := base.Update(ctx, rec(13), []uint64{1}, RowChangeOptions{}); err != nil {
		t.Errorf("update of fragment 0 over a concurrent update of fragment 1: %v", err)
	}

	// Both touching fragment 0's deletion file: conflict, staged files gone.
	latest, _ := d.Latest(ctx)
	if _, err := latest.Update(ctx, rec(14), []uint64{2}, RowChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := d.Store().List(ctx, "u/data/")
	if _, err := latest.Update(ctx, rec(15), []uint64{1<<32 | 1, 2}, RowChangeOptions{}); !errors.Is(err, ErrCommitConflict) {
		t.Errorf("update of a fragment a concurrent update touched: %v", err)
	}
	after, _ := d.Store().List(ctx, "u/data/")
	if len(after) != len(before) {
		t.Errorf("staged data files left behind: %d -> %d", len(before), len(after))
	}

	// ExactBase never rebases, even over an append.
	latest, _ = d.Latest(ctx)
	if _, err := latest.Append(ctx, rec(16)); err != nil {
		t.Fatal(err)
	}
	if _, err := latest.Update(ctx, rec(17), nil, RowChangeOptions{ExactBase: true}); !errors.Is(err, ErrCommitConflict) {
		t.Errorf("exact-base update over a concurrent append: %v", err)
	}

	// A concurrent rewrite (compaction) of a fragment the update deletes
	// from: conflict; of another fragment: rebase.
	latest, _ = d.Latest(ctx)
	frags := latest.Fragments()
	if len(frags) < 3 {
		t.Fatalf("need 3 fragments, have %d", len(frags))
	}
	if _, err := latest.RewriteFragments(ctx, []uint64{frags[1].ID}, RowChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := latest.Update(ctx, rec(20), []uint64{frags[1].ID << 32}, RowChangeOptions{}); !errors.Is(err, ErrCommitConflict) {
		t.Errorf("update of a fragment a concurrent rewrite replaced: %v", err)
	}
	if _, err := latest.Update(ctx, rec(21), []uint64{frags[2].ID << 32}, RowChangeOptions{}); err != nil {
		t.Errorf("update of a fragment a concurrent rewrite left alone: %v", err)
	}

	// A concurrent overwrite: conflict.
	latest, _ = d.Latest(ctx)
	if _, err := latest.Overwrite(ctx, rec(18), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := latest.Update(ctx, rec(19), []uint64{latest.Fragments()[0].ID << 32}, RowChangeOptions{}); !errors.Is(err, ErrCommitConflict) {
		t.Errorf("update over a concurrent overwrite: %v", err)
	}
}

func TestRewriteFragments(t *testing.T) {
	d, ctx := seedTwoFragments(t)
	d, err := d.Update(ctx, []arrow.RecordBatch{makeRecord(t, []int64{6}, []string{"f"})}, []uint64{1<<32 | 0}, RowChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Fragments: 0 (1,2,3), 1 (4 deleted, 5), 2 (6). Merge 1 and 2.
	before := strings.Join(rowsOf(t, d, ScanOptions{}), ";")
	rw, err := d.RewriteFragments(ctx, []uint64{2, 1}, RowChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if op := txOp(t, rw); op != "Rewrite" {
		t.Errorf("operation %q, want Rewrite", op)
	}
	g := rw.manifest.Transaction.raw.GetRewrite().GetGroups()
	if len(g) != 1 || len(g[0].GetOldFragments()) != 2 || len(g[0].GetNewFragments()) != 1 {
		t.Fatalf("rewrite groups %v", g)
	}
	fr := rw.Fragments()
	if len(fr) != 2 || fr[0].ID != 0 || fr[1].ID != 3 || fr[1].PhysicalRows != 2 || fr[1].Deletion != nil {
		t.Fatalf("fragments after rewrite: %+v", fr)
	}
	if after := strings.Join(rowsOf(t, rw, ScanOptions{}), ";"); after != before {
		t.Errorf("rows changed by the rewrite:\n got %s\nwant %s", after, before)
	}
	// A rewrite racing an update of one of its fragments conflicts.
	latest, _ := d.Latest(ctx)
	if _, err := latest.Update(ctx, nil, []uint64{0}, RowChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.RewriteFragments(ctx, []uint64{0, 3}, RowChangeOptions{}); !errors.Is(err, ErrCommitConflict) {
		t.Errorf("rewrite over a concurrent delete in its fragment: %v", err)
	}
	// A fragment an index covers is refused.
	latest, _ = d.Latest(ctx)
	ix := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000001", Name: "i", Fields: []int32{0}, FragmentBitmap: newBitmap()}
	ix.FragmentBitmap.Add(0)
	withIx, err := latest.CommitIndices(ctx, []*IndexMetadata{ix}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withIx.RewriteFragments(ctx, []uint64{0}, RowChangeOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("rewrite of an indexed fragment: %v", err)
	}
}

// TestUpdateRemovesFragments: RowChangeOptions.Remove drops whole fragments
// in the same Update that adds the rows the caller carried from them (a
// merge folded into a change), recorded in removed_fragment_ids; a fragment
// an index covers, or one the version lacks, is refused.
func TestUpdateRemovesFragments(t *testing.T) {
	d, ctx := seedTwoFragments(t)
	// Fragment 1 holds 4 and 5: carry 5, drop 4 with it, add 6, delete 1.
	next, err := d.Update(ctx, []arrow.RecordBatch{makeRecord(t, []int64{5, 6}, []string{"e", "f"})}, []uint64{0}, RowChangeOptions{Remove: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if op := txOp(t, next); op != "Update" {
		t.Fatalf("operation %q, want Update", op)
	}
	up := next.manifest.Transaction.raw.GetUpdate()
	if !slices.Equal(up.GetRemovedFragmentIds(), []uint64{1}) || len(up.GetNewFragments()) != 1 || len(up.GetUpdatedFragments()) != 1 {
		t.Fatalf("update removed %v, new %d, updated %d", up.GetRemovedFragmentIds(), len(up.GetNewFragments()), len(up.GetUpdatedFragments()))
	}
	if len(next.Fragments()) != 2 || next.Fragments()[0].ID != 0 || next.Fragments()[1].ID != 2 {
		t.Fatalf("fragments after the update: %+v", next.Fragments())
	}
	want := []string{"id=2,name=b", "id=3,name=c", "id=5,name=e", "id=6,name=f"}
	if got := rowsOf(t, next, ScanOptions{}); !slices.Equal(got, want) {
		t.Fatalf("rows after the update %v, want %v", got, want)
	}
	// Removing alone (nothing carried) is a Delete of the fragment.
	del, err := next.Update(ctx, nil, nil, RowChangeOptions{Remove: []uint64{next.Fragments()[1].ID}})
	if err != nil {
		t.Fatal(err)
	}
	if op := txOp(t, del); op != "Delete" || len(del.Fragments()) != 1 {
		t.Fatalf("remove-only update: %s with %d fragments", op, len(del.Fragments()))
	}
	if _, err := del.Update(ctx, nil, nil, RowChangeOptions{Remove: []uint64{99}}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("removal of a fragment the version lacks: %v", err)
	}
	ix := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000002", Name: "i", Fields: []int32{0}, FragmentBitmap: newBitmap()}
	ix.FragmentBitmap.Add(uint32(del.Fragments()[0].ID))
	withIx, err := del.CommitIndices(ctx, []*IndexMetadata{ix}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withIx.Update(ctx, nil, nil, RowChangeOptions{Remove: []uint64{del.Fragments()[0].ID}}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("removal of an indexed fragment: %v", err)
	}
}

// TestRowChangesKeepIndicesLikeLance: an Update or Delete that removes
// fragments keeps every scalar index, with its fragment bitmap as it was,
// even when the index covers none of the fragments left (a UNIQUE index
// built on an empty table, then UPDATE+UPDATE); only an empty vector index
// is dropped, and among segments of one name the ones still covering live
// fragments win (Lance's retain_relevant_indices).
func TestRowChangesKeepIndicesLikeLance(t *testing.T) {
	d, ctx := seedTwoFragments(t)
	bm := func(ids ...uint32) *roaring.Bitmap { b := newBitmap(); b.AddMany(ids); return b }
	scalarEmpty := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000001", Name: "u_idx", Fields: []int32{1}, FragmentBitmap: bm(), DetailsTypeURL: "/lance.table.BTreeIndexDetails", DatasetVersion: 1}
	scalarOld := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000002", Name: "id_idx", Fields: []int32{0}, FragmentBitmap: bm(0), DetailsTypeURL: "/lance.table.BTreeIndexDetails", DatasetVersion: 1}
	vectorEmpty := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000003", Name: "vec_idx", Fields: []int32{0}, FragmentBitmap: bm(), DetailsTypeURL: "/lance.table.VectorIndexDetails", DatasetVersion: 1}
	dupOld := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000004", Name: "dup", Fields: []int32{1}, FragmentBitmap: bm(), DatasetVersion: 1}
	dupNew := &IndexMetadata{UUID: "00000000-0000-4000-8000-000000000005", Name: "dup", Fields: []int32{1}, FragmentBitmap: bm(), DatasetVersion: 2}
	withIx, err := d.CommitIndices(ctx, []*IndexMetadata{scalarEmpty, scalarOld, vectorEmpty, dupOld, dupNew}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Update: rewrite id 1 (deletes in fragment 0) and remove fragment 1
	// whole (both its rows deleted): fragments are removed.
	next, err := withIx.Update(ctx, []arrow.RecordBatch{makeRecord(t, []int64{1}, []string{"A"})}, []uint64{0, 1 << 32, 1<<32 | 1}, RowChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Delete: empty fragment 0 (ids 2, 3 left there).
	next, err = next.Update(ctx, nil, []uint64{1, 2}, RowChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	re, err := Open(ctx, d.Store(), "u", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ix := range re.Indices() {
		got[ix.UUID] = fmt.Sprint(ix.FragmentBitmap.ToArray())
	}
	want := map[string]string{scalarEmpty.UUID: "[]", scalarOld.UUID: "[0]", dupOld.UUID: "[]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("indices after Update+Delete %v, want %v (scalar kept with its bitmap, empty vector dropped, oldest empty duplicate kept)", got, want)
	}
	if frags := re.Fragments(); len(frags) != 1 || frags[0].ID != 2 {
		t.Errorf("fragments %+v, want only the new fragment 2", frags)
	}
}
