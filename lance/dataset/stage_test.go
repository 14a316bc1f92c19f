package dataset

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/storage"
)

// stageIndex writes a (content-free) index file under the view's
// _indices/<uuid>/ and returns its metadata over the view's fragments.
func stageIndex(t *testing.T, s *StagedOverwrite, id, name string) *IndexMetadata {
	t.Helper()
	view := s.View()
	s.TrackIndexDir(id)
	p := joinPath(view.Dir(), indicesDir, id, "page_lookup.lance")
	if err := view.Store().Put(context.Background(), p, []byte("index bytes")); err != nil {
		t.Fatal(err)
	}
	bm := newBitmap()
	for _, f := range view.Fragments() {
		bm.Add(uint32(f.ID))
	}
	return &IndexMetadata{UUID: id, Name: name, Fields: []int32{0}, DatasetVersion: view.Version(), FragmentBitmap: bm,
		DetailsTypeURL: "/lance.table.BTreeIndexDetails", IndexVersion: ptr(int32(0)),
		Files: []IndexFile{{Path: "page_lookup.lance", SizeBytes: 11}}}
}

func objects(t *testing.T, st storage.Store, prefix string) []string {
	t.Helper()
	objs, err := st.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Path)
	}
	return out
}

// TestStageOverwriteViewThenCommitWithIndices: the view reads the staged
// rows as version base+1 while the committed latest is still base; it
// refuses writes; Commit lands the rows and the index in that one version.
func TestStageOverwriteViewThenCommitWithIndices(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, err := CreateWithData(ctx, st, "s", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2}, []string{"a", "b"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	staged, err := d.StageOverwrite(ctx, []arrow.RecordBatch{makeRecord(t, []int64{7, 8, 9}, []string{"x", "", "z"})}, OverwriteOptions{KeepSchema: true, SetTableMetadata: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	view := staged.View()
	if view.Version() != d.Version()+1 {
		t.Fatalf("view version %d, base %d", view.Version(), d.Version())
	}
	if got := rowsOf(t, view, ScanOptions{WithRowAddress: true}); !slices.Equal(got, []string{"id=7,name=x,_rowaddr=0", "id=8,name=null,_rowaddr=1", "id=9,name=z,_rowaddr=2"}) {
		t.Fatalf("view rows %v", got)
	}
	if latest, err := Open(ctx, st, "s", OpenOptions{}); err != nil || latest.Version() != d.Version() {
		t.Fatalf("latest before commit: %v %v", latest, err)
	}
	if _, err := view.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{1}, []string{"q"})}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("append on the staged view: %v", err)
	}
	if _, err := view.UpdateTableMetadata(ctx, map[string]string{"a": "b"}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("metadata update on the staged view: %v", err)
	}
	ix := stageIndex(t, staged, "0cdc6513-03b6-4045-ae0d-85ee2de65b37", "id_idx")
	next, err := staged.Commit(ctx, []*IndexMetadata{ix})
	if err != nil {
		t.Fatal(err)
	}
	re, err := Open(ctx, st, "s", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if re.Version() != view.Version() || next.Version() != view.Version() {
		t.Fatalf("committed %d, reopened %d, view %d", next.Version(), re.Version(), view.Version())
	}
	if got := rowsOf(t, re, ScanOptions{}); !slices.Equal(got, []string{"id=7,name=x", "id=8,name=null", "id=9,name=z"}) {
		t.Fatalf("committed rows %v", got)
	}
	if len(re.Indices()) != 1 || re.Indices()[0].UUID != ix.UUID || re.Indices()[0].DatasetVersion != re.Version() || re.Manifest().TableMetadata["k"] != "v" {
		t.Fatalf("indices %+v metadata %v", re.Indices(), re.Manifest().TableMetadata)
	}
	if op := re.Manifest().Transaction.Operation; op != "Overwrite" {
		t.Fatalf("operation %s", op)
	}
	if _, err := staged.Commit(ctx, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("second commit: %v", err)
	}
	if _, err := staged.View().Delete(ctx, []uint64{0}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("delete on the view after commit: %v", err)
	}
}

// TestStageOverwriteAbortAndLostRace: an aborted overwrite, and one whose
// version another writer took, leave none of their data or index files;
// the winner's files stay.
func TestStageOverwriteAbortAndLostRace(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, err := CreateWithData(ctx, st, "s", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1}, []string{"a"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := objects(t, st, "s/")

	aborted, err := d.StageOverwrite(ctx, []arrow.RecordBatch{makeRecord(t, []int64{2}, []string{"b"})}, OverwriteOptions{KeepSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	stageIndex(t, aborted, "957e2522-3c2a-4253-aba3-c66f04e5746d", "id_idx")
	if err := aborted.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if after := objects(t, st, "s/"); !slices.Equal(after, before) {
		t.Fatalf("after abort: %v, before %v", after, before)
	}

	lost, err := d.StageOverwrite(ctx, []arrow.RecordBatch{makeRecord(t, []int64{3}, []string{"c"})}, OverwriteOptions{KeepSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	ix := stageIndex(t, lost, "5b6f0f2e-8a2f-4a39-9a5e-0c1f6b1e2d3c", "id_idx")
	// A half-written index directory that never made it into the metadata.
	lost.TrackIndexDir("7d9c2a4e-1b3f-4c5d-8e6f-a0b1c2d3e4f5")
	if err := st.Put(ctx, "s/_indices/7d9c2a4e-1b3f-4c5d-8e6f-a0b1c2d3e4f5/part.lance", []byte("x")); err != nil {
		t.Fatal(err)
	}
	winner, err := d.UpdateTableMetadata(ctx, map[string]string{"w": "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lost.Commit(ctx, []*IndexMetadata{ix}); !errors.Is(err, ErrCommitConflict) {
		t.Fatalf("commit of a taken version: %v", err)
	}
	for _, p := range objects(t, st, "s/") {
		if strings.HasPrefix(p, "s/_indices/") || (strings.HasPrefix(p, "s/data/") && !slices.Contains(before, p)) {
			t.Errorf("staged file left behind: %s", p)
		}
	}
	if latest, _ := Open(ctx, st, "s", OpenOptions{}); latest.Version() != winner.Version() {
		t.Fatalf("latest %d, winner %d", latest.Version(), winner.Version())
	}
	if got := rowsOf(t, winner, ScanOptions{}); !slices.Equal(got, []string{"id=1,name=a"}) {
		t.Fatalf("winner rows %v", got)
	}
}

// TestStageOverwriteRejectsBadIndexMetadata: index entries naming a
// missing field or a path outside their directory fail before anything is
// committed, and the staged files go.
func TestStageOverwriteRejectsBadIndexMetadata(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, _ := CreateWithData(ctx, st, "s", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1}, []string{"a"})}, CreateOptions{})
	before := objects(t, st, "s/")
	for _, bad := range []func(*IndexMetadata){
		func(ix *IndexMetadata) { ix.Fields = []int32{42} },
		func(ix *IndexMetadata) { ix.Files[0].Path = "../../data/x.lance" },
		func(ix *IndexMetadata) { ix.UUID = "not-a-uuid" },
	} {
		s, err := d.StageOverwrite(ctx, []arrow.RecordBatch{makeRecord(t, []int64{2}, []string{"b"})}, OverwriteOptions{KeepSchema: true})
		if err != nil {
			t.Fatal(err)
		}
		ix := stageIndex(t, s, "0cdc6513-03b6-4045-ae0d-85ee2de65b37", "id_idx")
		bad(ix)
		if _, err := s.Commit(ctx, []*IndexMetadata{ix}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("bad index metadata: %v", err)
		}
		if after := objects(t, st, "s/"); !slices.Equal(after, before) {
			t.Fatalf("after a refused commit: %v", after)
		}
	}
}

// TestTakeByRowAddress: Take returns exactly the rows a scan returns at
// those addresses, across fragments, in address order, once each; bad
// addresses are refused; DeletedOffsets reports a fragment's deletions.
func TestTakeByRowAddress(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	var ids []int64
	var names []string
	for i := int64(0); i < 1000; i++ {
		ids = append(ids, i)
		n := ""
		if i%7 != 0 {
			n = "n" + strings.Repeat("x", int(i%5))
		}
		names = append(names, n)
	}
	d, err := CreateWithData(ctx, st, "t", testSchema, []arrow.RecordBatch{makeRecord(t, ids, names)}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{5000, 5001, 5002}, []string{"p", "", "r"})}); err != nil {
		t.Fatal(err)
	}
	all := map[uint64]string{}
	for _, r := range rowsOf(t, d, ScanOptions{WithRowAddress: true}) {
		i := strings.LastIndex(r, ",_rowaddr=")
		var a uint64
		for _, c := range r[i+len(",_rowaddr="):] {
			a = a*10 + uint64(c-'0')
		}
		all[a] = r
	}
	addrs := []uint64{1<<32 | 2, 999, 0, 3, 3, 500, 1 << 32, 4, 300, 301, 302, 998}
	rec, err := d.Take(ctx, addrs, TakeOptions{WithRowAddress: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	want := slices.Clone(addrs)
	slices.Sort(want)
	want = slices.Compact(want)
	if int(rec.NumRows()) != len(want) {
		t.Fatalf("took %d rows, want %d", rec.NumRows(), len(want))
	}
	for i, a := range want {
		var parts []string
		for c := 0; c < int(rec.NumCols()); c++ {
			v := "null"
			if !rec.Column(c).IsNull(i) {
				v = rec.Column(c).ValueStr(i)
			}
			parts = append(parts, rec.Schema().Field(c).Name+"="+v)
		}
		if got := strings.Join(parts, ","); got != all[a] {
			t.Fatalf("row %d: took %q, scan has %q", a, got, all[a])
		}
	}
	// Projection.
	one, err := d.Take(ctx, []uint64{1<<32 | 1}, TakeOptions{Columns: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	if one.NumCols() != 1 || !one.Column(0).IsNull(0) {
		t.Fatalf("projected take: %v", one)
	}
	one.Release()
	if empty, err := d.Take(ctx, nil, TakeOptions{}); err != nil || empty.NumRows() != 0 || empty.NumCols() != 2 {
		t.Fatalf("empty take: %v %v", empty, err)
	}
	for _, bad := range []uint64{1000, 1<<32 | 3, 7 << 32} {
		if _, err := d.Take(ctx, []uint64{bad}, TakeOptions{}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Take(%d): %v", bad, err)
		}
	}
	if d, err = d.Delete(ctx, []uint64{3, 500}); err != nil {
		t.Fatal(err)
	}
	del, err := d.DeletedOffsets(ctx, 0)
	if err != nil || !slices.Equal(del.ToArray(), []uint32{3, 500}) {
		t.Fatalf("deleted offsets %v %v", del, err)
	}
	if del, err := d.DeletedOffsets(ctx, 1); err != nil || !del.IsEmpty() {
		t.Fatalf("fragment 1 deleted offsets %v %v", del, err)
	}
	if _, err := d.DeletedOffsets(ctx, 9); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("missing fragment: %v", err)
	}
}
