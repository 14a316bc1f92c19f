package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/storage"
)

// useFakeFormat swaps in the test file format for the duration of a test.
func useFakeFormat(t *testing.T) {
	t.Helper()
	old := formats
	formats = fakeFormat{}
	t.Cleanup(func() { formats = old })
}

var memSeq int
var memMu sync.Mutex

func memStore(t testing.TB) storage.Store {
	t.Helper()
	memMu.Lock()
	memSeq++
	name := fmt.Sprintf("memory://dstest%d", memSeq)
	memMu.Unlock()
	s, err := storage.Open(context.Background(), name, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func makeRecord(t *testing.T, ids []int64, names []string) arrow.RecordBatch {
	t.Helper()
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues(ids, nil)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, n := range names {
		if n == "" {
			sb.AppendNull()
		} else {
			sb.Append(n)
		}
	}
	a, b := ib.NewArray(), sb.NewArray()
	rec := array.NewRecordBatch(testSchema, []arrow.Array{a, b}, int64(len(ids)))
	a.Release()
	b.Release()
	t.Cleanup(rec.Release)
	return rec
}

// rowsOf scans a dataset into "col=value" strings per row.
func rowsOf(t *testing.T, d *Dataset, opts ScanOptions) []string {
	t.Helper()
	var out []string
	err := d.Scan(context.Background(), opts, func(rec arrow.RecordBatch) error {
		for r := 0; r < int(rec.NumRows()); r++ {
			var parts []string
			for c := 0; c < int(rec.NumCols()); c++ {
				col := rec.Column(c)
				v := "null"
				if !col.IsNull(r) {
					v = col.ValueStr(r)
				}
				parts = append(parts, rec.Schema().Field(c).Name+"="+v)
			}
			out = append(out, strings.Join(parts, ","))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestManifestFileNames(t *testing.T) {
	cases := []struct {
		s    NamingScheme
		v    uint64
		name string
	}{
		{NamingV2, 1, "18446744073709551614.manifest"},
		{NamingV2, 4, "18446744073709551611.manifest"},
		{NamingV1, 1, "1.manifest"},
		{NamingV1, 123, "123.manifest"},
		{NamingV2, math.MaxUint64 - 1, "00000000000000000001.manifest"},
	}
	for _, c := range cases {
		if got := manifestFileName(c.s, c.v); got != c.name {
			t.Errorf("manifestFileName(%v, %d) = %q, want %q", c.s, c.v, got, c.name)
		}
		v, s, ok := parseManifestFileName(c.name)
		if !ok || v != c.v || s != c.s {
			t.Errorf("parse(%q) = %d %v %v", c.name, v, s, ok)
		}
	}
	for _, bad := range []string{"latest_version_hint.json", "d123.manifest", ".manifest", "12a.manifest", "0.manifest", "18446744073709551615.manifest", "1.manifest-uuid", "99999999999999999999999.manifest"} {
		if _, _, ok := parseManifestFileName(bad); ok {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

func TestCreateEmptyAndReopen(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, err := Create(ctx, st, "t.lance", testSchema, CreateOptions{TableMetadata: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Version() != 1 {
		t.Fatalf("version %d", d.Version())
	}
	objs, _ := st.List(ctx, "t.lance/")
	var names []string
	for _, o := range objs {
		names = append(names, o.Path)
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"t.lance/_versions/18446744073709551614.manifest", "t.lance/_versions/latest_version_hint.json", "t.lance/_transactions/0-"} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %s in %v", want, names)
		}
	}
	hint, _ := st.Read(ctx, "t.lance/_versions/latest_version_hint.json")
	if string(hint) != `{"version":1}` {
		t.Errorf("hint %s", hint)
	}
	r, err := Open(ctx, st, "t.lance", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Manifest()
	if m.Version != 1 || len(m.Fragments) != 0 || m.DataFormat.Version != "2.1" || m.DataFormat.FileFormat != "lance" {
		t.Errorf("manifest %+v", m)
	}
	if m.WriterVersion == nil || m.WriterVersion.Library != WriterLibrary {
		t.Errorf("writer version %+v", m.WriterVersion)
	}
	if m.TableMetadata["k"] != "v" {
		t.Errorf("table metadata %v", m.TableMetadata)
	}
	if m.Transaction == nil || m.Transaction.Operation != "Overwrite" || m.TransactionFile == "" {
		t.Errorf("transaction %+v file %q", m.Transaction, m.TransactionFile)
	}
	tx, err := r.Transaction(ctx)
	if err != nil || tx.Operation != "Overwrite" {
		t.Errorf("tx %+v %v", tx, err)
	}
	f := m.Schema.Fields
	if len(f) != 2 || f[0].Name != "id" || f[0].ID != 0 || f[0].Nullable || f[1].ID != 1 || !f[1].Nullable || f[1].LogicalType != "string" {
		t.Errorf("schema %+v %+v", f[0], f[1])
	}
	n, err := r.CountRows(ctx)
	if err != nil || n != 0 {
		t.Errorf("count %d %v", n, err)
	}
	if _, err := Create(ctx, st, "t.lance", testSchema, CreateOptions{}); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("second create: %v", err)
	}
}

func TestOpenMissing(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	if _, err := Open(ctx, st, "nope", OpenOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing dataset: %v", err)
	}
	if _, err := Create(ctx, st, "t", testSchema, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, st, "t", OpenOptions{Version: 7})
	if !errors.Is(err, ErrVersionNotFound) || errors.Is(err, ErrNotFound) {
		t.Errorf("missing version: %v", err)
	}
	if _, err := Open(ctx, st, "nope", OpenOptions{Version: 7}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing dataset, explicit version: %v", err)
	}
}

func TestAppendScanDeleteCount(t *testing.T) {
	useFakeFormat(t)
	ctx := context.Background()
	st := memStore(t)
	d, err := CreateWithData(ctx, st, "", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2, 3}, []string{"a", "", "c"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{4, 5}, []string{"d", "e"})})
	if err != nil {
		t.Fatal(err)
	}
	if d.Version() != 2 || len(d.Fragments()) != 2 || d.Fragments()[1].ID != 1 {
		t.Fatalf("after append: v%d %d fragments", d.Version(), len(d.Fragments()))
	}
	got := rowsOf(t, d, ScanOptions{WithRowAddress: true})
	want := []string{
		"id=1,name=a,_rowaddr=0", "id=2,name=null,_rowaddr=1", "id=3,name=c,_rowaddr=2",
		"id=4,name=d,_rowaddr=4294967296", "id=5,name=e,_rowaddr=4294967297",
	}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("scan:\n got %v\nwant %v", got, want)
	}
	d, err = d.Delete(ctx, []uint64{1, 1<<32 | 0})
	if err != nil {
		t.Fatal(err)
	}
	if d.Manifest().ReaderFlags&FlagDeletionFiles == 0 {
		t.Error("deletion flag not set")
	}
	re, err := Open(ctx, st, "", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got = rowsOf(t, re, ScanOptions{Columns: []string{"name", "id"}})
	want = []string{"name=a,id=1", "name=c,id=3", "name=e,id=5"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("after delete:\n got %v\nwant %v", got, want)
	}
	if n, err := re.CountRows(ctx); err != nil || n != 3 {
		t.Errorf("count %d %v", n, err)
	}
	if tx, _ := re.Transaction(ctx); tx == nil || tx.Operation != "Delete" {
		t.Errorf("tx %+v", tx)
	}
	// Limit/offset over live rows, fragment subset.
	got = rowsOf(t, re, ScanOptions{Columns: []string{"id"}, Offset: 1, Limit: 1})
	if strings.Join(got, ";") != "id=3" {
		t.Errorf("offset/limit: %v", got)
	}
	got = rowsOf(t, re, ScanOptions{Columns: []string{"id"}, Fragments: []uint64{1}})
	if strings.Join(got, ";") != "id=5" {
		t.Errorf("fragment subset: %v", got)
	}
	// Deleting every remaining row of fragment 1 removes the fragment.
	re, err = re.Delete(ctx, []uint64{1<<32 | 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(re.Fragments()) != 1 {
		t.Errorf("fragments after full delete: %d", len(re.Fragments()))
	}
	// Old versions stay readable.
	v2, err := re.Checkout(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := v2.CountRows(ctx); n != 5 {
		t.Errorf("v2 count %d", n)
	}
	// Bad addresses are rejected without a new version.
	if _, err := re.Delete(ctx, []uint64{7 << 32}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bad fragment: %v", err)
	}
	if _, err := re.Delete(ctx, []uint64{99}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bad offset: %v", err)
	}
	if l, _ := re.Latest(ctx); l.Version() != re.Version() {
		t.Errorf("failed deletes committed: %d", l.Version())
	}
}

func TestDeletionVectorEncodings(t *testing.T) {
	for _, n := range []int{1, 10, bitmapThreshold + 1, 20000} {
		bm := newBitmap()
		for i := 0; i < n; i++ {
			bm.Add(uint32(i * 3))
		}
		typ, b, err := encodeDeletionVector(bm.Clone())
		if err != nil {
			t.Fatal(err)
		}
		wantType := DeletionArrow
		if n > bitmapThreshold {
			wantType = DeletionBitmap
		}
		if typ != wantType {
			t.Errorf("n=%d type %v", n, typ)
		}
		var back interface{ GetCardinality() uint64 }
		if typ == DeletionArrow {
			back, err = decodeArrowDeletions(b, 1<<32)
		} else {
			back, err = decodeRoaring(b)
		}
		if err != nil || back.GetCardinality() != uint64(n) {
			t.Errorf("n=%d roundtrip %v %v", n, back, err)
		}
	}
	if _, err := decodeArrowDeletions([]byte("garbage"), 0); err == nil {
		t.Error("garbage arrow accepted")
	}
	if _, err := decodeRoaring([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}); err == nil {
		t.Error("garbage bitmap accepted")
	}
}

func TestSchemaChanges(t *testing.T) {
	useFakeFormat(t)
	ctx := context.Background()
	st := memStore(t)
	d, err := CreateWithData(ctx, st, "x", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2}, []string{"a", "b"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.AddNullableColumns(ctx, arrow.Field{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true})
	if err != nil {
		t.Fatal(err)
	}
	if tx, _ := d.Transaction(ctx); tx.Operation != "Merge" {
		t.Errorf("add columns op %s", tx.Operation)
	}
	s := d.Schema()
	if s.Field("score").ID != 2 || s.Field("tags").ID != 3 || s.Field("tags").Children[0].ID != 4 {
		t.Errorf("new ids: %d %d", s.Field("score").ID, s.Field("tags").ID)
	}
	if got := rowsOf(t, d, ScanOptions{}); strings.Join(got, ";") != "id=1,name=a,score=null,tags=null;id=2,name=b,score=null,tags=null" {
		t.Errorf("null fill: %v", got)
	}
	if _, err := d.AddNullableColumns(ctx, arrow.Field{Name: "nn", Type: arrow.PrimitiveTypes.Int8}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("non-nullable add: %v", err)
	}
	if _, err := d.AddNullableColumns(ctx, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int8, Nullable: true}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("duplicate add: %v", err)
	}
	d, err = d.RenameColumn(ctx, "name", "label")
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.DropColumns(ctx, "score")
	if err != nil {
		t.Fatal(err)
	}
	if tx, _ := d.Transaction(ctx); tx.Operation != "Project" {
		t.Errorf("drop op %s", tx.Operation)
	}
	// Appending after schema changes writes the new schema's fields.
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.Append(3)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.Append("c")
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.BinaryTypes.String)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).Append("t1")
	as, _ := d.ArrowSchema()
	cols := []arrow.Array{ib.NewArray(), sb.NewArray(), lb.NewArray()}
	rec := array.NewRecordBatch(as, cols, 1)
	d, err = d.Append(ctx, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	got := rowsOf(t, d, ScanOptions{})
	want := "id=1,label=a,tags=null;id=2,label=b,tags=null;id=3,label=c,tags=[\"t1\"]"
	if strings.Join(got, ";") != want {
		t.Errorf("after changes:\n got %v\nwant %v", got, want)
	}
	if _, err := d.DropColumns(ctx, "id", "label", "tags"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("drop all: %v", err)
	}
	if _, err := d.RenameColumn(ctx, "id", "label"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("rename onto existing: %v", err)
	}
	// A re-added column must not reuse the dropped column's id.
	d, err = d.AddNullableColumns(ctx, arrow.Field{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	if err != nil {
		t.Fatal(err)
	}
	if id := d.Schema().Field("score").ID; id != 5 {
		t.Errorf("re-added score id %d, want 5", id)
	}
	if got := rowsOf(t, d, ScanOptions{Columns: []string{"score"}, Limit: 1}); got[0] != "score=null" {
		t.Errorf("re-added column reads old data: %v", got)
	}
}

func TestUpdateMetadataAndConfig(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, err := Create(ctx, st, "m", testSchema, CreateOptions{TableMetadata: map[string]string{"a": "1", "b": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.UpdateTableMetadata(ctx, map[string]string{"c": "3", "a": "9"}, []string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.UpdateConfig(ctx, map[string]string{"lance.x": "y"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	re, err := Open(ctx, st, "m", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := re.Manifest()
	if fmt.Sprint(m.TableMetadata) != "map[a:9 c:3]" || fmt.Sprint(m.Config) != "map[lance.x:y]" {
		t.Errorf("metadata %v config %v", m.TableMetadata, m.Config)
	}
	if m.WriterFlags&FlagTableConfig == 0 {
		t.Error("table config flag not set")
	}
	if m.Transaction.Operation != "UpdateConfig" || m.TransactionFile != "" {
		t.Errorf("tx %+v file %q", m.Transaction, m.TransactionFile)
	}
}

func TestCommitConflict(t *testing.T) {
	useFakeFormat(t)
	ctx := context.Background()
	st := memStore(t)
	d, err := Create(ctx, st, "c", testSchema, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Two writers from the same snapshot: a schema change and an append.
	if _, err := d.RenameColumn(ctx, "name", "n2"); err != nil {
		t.Fatal(err)
	}
	before, _ := st.List(ctx, "c/data/")
	_, err = d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{1}, []string{"x"})})
	if !errors.Is(err, ErrCommitConflict) {
		t.Fatalf("append after concurrent rename: %v", err)
	}
	after, _ := st.List(ctx, "c/data/")
	if len(after) != len(before) {
		t.Errorf("staged data files left behind: %d -> %d", len(before), len(after))
	}
	// Metadata-only ops do not rebase over a schema change either.
	if _, err := d.DropColumns(ctx, "name"); !errors.Is(err, ErrCommitConflict) {
		t.Errorf("stale drop: %v", err)
	}
	// Appends rebase over appends.
	l, err := Create(ctx, st, "c2", testSchema, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = l.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{int64(i)}, []string{"r"})})
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			t.Fatal(e)
		}
	}
	final, _ := l.Latest(ctx)
	if n, _ := final.CountRows(ctx); n != 8 || final.Version() != 9 {
		t.Errorf("after concurrent appends: %d rows, version %d", n, final.Version())
	}
	ids := map[uint64]bool{}
	for _, f := range final.Fragments() {
		if ids[f.ID] {
			t.Errorf("duplicate fragment id %d", f.ID)
		}
		ids[f.ID] = true
	}
}

func TestV1NamingKept(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, err := Create(ctx, st, "v1", testSchema, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Rename the version file to V1 naming, as an old dataset would have.
	b, _ := st.Read(ctx, d.ManifestPath())
	st.Delete(ctx, d.ManifestPath())
	st.Delete(ctx, "v1/_versions/latest_version_hint.json")
	st.Put(ctx, "v1/_versions/1.manifest", b)
	o, err := Open(ctx, st, "v1", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.NamingScheme() != NamingV1 {
		t.Fatalf("scheme %v", o.NamingScheme())
	}
	o, err = o.UpdateTableMetadata(ctx, map[string]string{"a": "b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.ManifestPath() != "v1/_versions/2.manifest" {
		t.Errorf("path %s", o.ManifestPath())
	}
	if _, err := st.Stat(ctx, "v1/_versions/2.manifest"); err != nil {
		t.Error(err)
	}
	vs, err := ListVersions(ctx, st, "v1")
	if err != nil || len(vs) != 2 || vs[1].Version != 2 {
		t.Errorf("versions %v %v", vs, err)
	}
}

func TestVersionHintIsOnlyAHint(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, _ := Create(ctx, st, "h", testSchema, CreateOptions{})
	d, _ = d.UpdateTableMetadata(ctx, map[string]string{"a": "1"}, nil)
	d, _ = d.UpdateTableMetadata(ctx, map[string]string{"a": "2"}, nil)
	for _, hint := range []string{`{"version":1}`, `{"version":99}`, `garbage`, `{"version":0}`} {
		st.Put(ctx, "h/_versions/latest_version_hint.json", []byte(hint))
		o, err := Open(ctx, st, "h", OpenOptions{})
		if err != nil || o.Version() != 3 {
			t.Errorf("hint %s: version %v err %v", hint, o, err)
		}
	}
	st.Delete(ctx, "h/_versions/latest_version_hint.json")
	if o, err := Open(ctx, st, "h", OpenOptions{}); err != nil || o.Version() != 3 {
		t.Errorf("no hint: %v", err)
	}
}

func TestFeatureFlags(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, _ := Create(ctx, st, "f", testSchema, CreateOptions{})
	m := d.Manifest()
	write := func(reader, writer uint64) {
		m2 := *m
		m2.Version = 2
		m2.ReaderFlags, m2.WriterFlags = reader, writer
		b, err := EncodeManifest(&m2, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		st.Delete(ctx, "f/_versions/"+manifestFileName(NamingV2, 2))
		st.Put(ctx, "f/_versions/"+manifestFileName(NamingV2, 2), b)
	}
	write(64, 0)
	if _, err := Open(ctx, st, "f", OpenOptions{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown reader flag: %v", err)
	}
	write(0, 128)
	o, err := Open(ctx, st, "f", OpenOptions{})
	if err != nil {
		t.Fatalf("unknown writer flag must still read: %v", err)
	}
	before, _ := st.List(ctx, "f/")
	if _, err := o.UpdateTableMetadata(ctx, map[string]string{"a": "b"}, nil); !errors.Is(err, ErrReadOnlyFeature) {
		t.Errorf("write with unknown writer flag: %v", err)
	}
	after, _ := st.List(ctx, "f/")
	if len(after) != len(before) {
		t.Errorf("refused write left files: %d -> %d", len(before), len(after))
	}
}

func TestDecodeManifestRejectsCorruption(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, _ := Create(ctx, st, "z", testSchema, CreateOptions{})
	good, _ := st.Read(ctx, d.ManifestPath())
	if _, err := DecodeManifest(good); err != nil {
		t.Fatal(err)
	}
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string][]byte{
		"empty":     {},
		"short":     good[:10],
		"magic":     mut(func(b []byte) []byte { b[len(b)-1] = 'X'; return b }),
		"pos":       mut(func(b []byte) []byte { b[len(b)-16] = 0xff; b[len(b)-9] = 0x7f; return b }),
		"len":       mut(func(b []byte) []byte { b[len(b)-16]++; return b }),
		"truncated": append(append([]byte(nil), good[:len(good)-20]...), good[len(good)-16:]...),
	}
	for name, b := range cases {
		if _, err := DecodeManifest(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A corrupt latest version fails Open with ErrCorrupt.
	st.Put(ctx, "z/_versions/"+manifestFileName(NamingV2, 2), cases["magic"])
	if _, err := Open(ctx, st, "z", OpenOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("open corrupt: %v", err)
	}
}

func TestCommitIndices(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	d, _ := Create(ctx, st, "i", testSchema, CreateOptions{})
	bm := newBitmap()
	bm.Add(0)
	ix := &IndexMetadata{UUID: "0cdc6513-03b6-4045-ae0d-85ee2de65b37", Name: "id_idx", Fields: []int32{0}, DatasetVersion: 1,
		FragmentBitmap: bm, DetailsTypeURL: "type.googleapis.com/lance.table.BTreeIndexDetails", IndexVersion: ptr(int32(0))}
	d, err := d.CommitIndices(ctx, []*IndexMetadata{ix}, nil)
	if err != nil {
		t.Fatal(err)
	}
	re, _ := Open(ctx, st, "i", OpenOptions{})
	got := re.Indices()
	if len(got) != 1 || got[0].Name != "id_idx" || got[0].UUID != ix.UUID || got[0].Type() != "BTree" || !got[0].FragmentBitmap.Contains(0) {
		t.Fatalf("indices %+v", got)
	}
	if re.Manifest().Transaction.Operation != "CreateIndex" {
		t.Error(re.Manifest().Transaction.Operation)
	}
	// Replacing by name; dropping the column drops the index.
	ix2 := *ix
	ix2.UUID = "957e2522-3c2a-4253-aba3-c66f04e5746d"
	d, _ = d.CommitIndices(ctx, []*IndexMetadata{&ix2}, nil)
	if len(d.Indices()) != 1 || d.Indices()[0].UUID != ix2.UUID {
		t.Errorf("replace: %+v", d.Indices())
	}
	d, _ = d.DropColumns(ctx, "id")
	if len(d.Indices()) != 0 {
		t.Errorf("index on dropped column kept")
	}
}

func ptr[T any](v T) *T { return &v }

func newBitmap() *roaring.Bitmap { return roaring.New() }

func TestOverwrite(t *testing.T) {
	useFakeFormat(t)
	ctx := context.Background()
	st := memStore(t)
	d, err := CreateWithData(ctx, st, "o", testSchema, []arrow.RecordBatch{makeRecord(t, []int64{1, 2}, []string{"a", "b"})}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.Overwrite(ctx, []arrow.RecordBatch{makeRecord(t, []int64{9}, []string{"z"})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, d, ScanOptions{}); strings.Join(got, ";") != "id=9,name=z" || d.Version() != 2 {
		t.Errorf("after overwrite v%d: %v", d.Version(), got)
	}
	if tx, _ := d.Transaction(ctx); tx.Operation != "Overwrite" {
		t.Errorf("op %s", tx.Operation)
	}
	ns := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Append("only")
	col := b.NewArray()
	rec := array.NewRecordBatch(ns, []arrow.Array{col}, 1)
	d, err = d.Overwrite(ctx, []arrow.RecordBatch{rec}, ns)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, d, ScanOptions{}); strings.Join(got, ";") != "k=only" || d.Schema().Fields[0].ID != 0 {
		t.Errorf("overwrite with new schema: %v", got)
	}
	if _, err := d.Append(ctx, []arrow.RecordBatch{makeRecord(t, []int64{1}, []string{"x"})}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("append with the old schema: %v", err)
	}
}
