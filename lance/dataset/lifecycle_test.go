package dataset

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/storage"
)

// FuzzDecodeTag feeds arbitrary bytes to the tag file decoder: a tag or an
// error, never a panic; a decoded tag re-encodes to one that decodes the same.
func FuzzDecodeTag(f *testing.F) {
	f.Add([]byte(`{"branch": null, "version": 2, "createdAt": "2026-12-02T01:07:09.460998455Z", "updatedAt": "2026-12-02T01:07:09.460998455Z", "manifestSize": 462, "metadata": {}}`))
	f.Add([]byte(`{"version": 1, "manifestSize": 3}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tag, err := decodeTag("x", b)
		if err != nil {
			return
		}
		out, err := encodeTag(tag)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeTag("x", out)
		if err != nil || again.Version != tag.Version || again.ManifestSize != tag.ManifestSize {
			t.Fatalf("re-encode: %+v %v", again, err)
		}
	})
}

func lifecycleDataset(t *testing.T) (storage.Store, *Dataset) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "memory://"+t.Name(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	ds, err := Create(ctx, st, "t", schema, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 4; i++ {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues([]int64{2 * i, 2*i + 1}, nil)
		arr := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{arr}, 2)
		if ds, err = ds.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
	}
	return st, ds
}

// TestTagsAndRestore: tags follow Lance's name rules and put-if-absent, point at a version,
// update and delete; Restore commits the old content as a new Restore version.
func TestTagsAndRestore(t *testing.T) {
	ctx := context.Background()
	st, ds := lifecycleDataset(t) // versions 1..5
	for _, bad := range []string{"", ".a", "a.", "a..b", "a.lock", "a/b", "a b"} {
		if _, err := CreateTag(ctx, st, "t", bad, 2); !errors.Is(err, ErrInvalidTag) {
			t.Errorf("tag %q: %v", bad, err)
		}
	}
	if _, err := CreateTag(ctx, st, "t", "v1.0-rc_1", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateTag(ctx, st, "t", "v1.0-rc_1", 4); !errors.Is(err, ErrTagExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, err := CreateTag(ctx, st, "t", "nope", 99); !errors.Is(err, ErrVersionNotFound) {
		t.Fatalf("tag of a missing version: %v", err)
	}
	if _, err := UpdateTag(ctx, st, "t", "v1.0-rc_1", 2); err != nil {
		t.Fatal(err)
	}
	old, err := OpenTag(ctx, st, "t", "v1.0-rc_1")
	if err != nil || old.Version() != 2 {
		t.Fatalf("open tag: %v %v", old, err)
	}
	restored, err := old.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := restored.CountRows(ctx)
	if restored.Version() != ds.Version()+1 || n != 2 {
		t.Fatalf("restore: version %d rows %d", restored.Version(), n)
	}
	if tx, _ := restored.Transaction(ctx); tx == nil || tx.Operation != "Restore" {
		t.Fatalf("restore transaction: %+v", tx)
	}
	if err := DeleteTag(ctx, st, "t", "v1.0-rc_1"); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTag(ctx, st, "t", "v1.0-rc_1"); !errors.Is(err, ErrTagNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

// TestCompactionPlanAndCleanup: four 2-row fragments form one group and compact into one
// fragment (ReserveFragments, then Rewrite); Cleanup then keeps the latest and the tagged
// version and reports the others removed (OpenVersion: ErrVersionRemoved).
func TestCompactionPlanAndCleanup(t *testing.T) {
	ctx := context.Background()
	st, ds := lifecycleDataset(t)
	groups, err := ds.PlanCompaction(ctx, CompactOptions{})
	if err != nil || len(groups) != 1 || len(groups[0]) != 4 {
		t.Fatalf("plan: %v %v", groups, err)
	}
	if g, _ := ds.PlanCompaction(ctx, CompactOptions{TargetRowsPerFragment: 2}); len(g) != 0 {
		t.Fatalf("fragments at the target are not candidates: %v", g)
	}
	staged, err := ds.StageCompaction(ctx, groups)
	if err != nil {
		t.Fatal(err)
	}
	out, err := staged.Commit(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Fragments()) != 1 || out.Fragments()[0].PhysicalRows != 8 || out.Fragments()[0].ID != 4 {
		t.Fatalf("after compaction: %+v", out.Fragments())
	}
	if tx, _ := out.Transaction(ctx); tx.Operation != "Rewrite" {
		t.Fatalf("op %s", tx.Operation)
	}
	if _, err := CreateTag(ctx, st, "t", "keep", 3); err != nil {
		t.Fatal(err)
	}
	rep, err := Cleanup(ctx, st, "t", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := ListVersions(ctx, st, "t")
	if len(vs) != 2 || vs[0].Version != 3 || vs[1].Version != out.Version() || rep.VersionsRemoved != int(out.Version())-2 {
		t.Fatalf("after cleanup: %v, report %+v", vs, rep)
	}
	if _, err := OpenVersion(ctx, st, "t", 2); !errors.Is(err, ErrVersionRemoved) {
		t.Fatalf("removed version: %v", err)
	}
	kept, err := OpenVersion(ctx, st, "t", 3)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := kept.CountRows(ctx); err != nil || n != 4 {
		t.Fatalf("tagged version after cleanup: %d rows, %v", n, err)
	}
	if n, _ := out.CountRows(ctx); n != 8 {
		t.Fatalf("latest after cleanup: %d rows", n)
	}
}
