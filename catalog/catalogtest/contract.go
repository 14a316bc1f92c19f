package catalogtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
)

// Contract suites, as iceberg-go's catalog/catalogtest: the behaviour every
// implementation of catalog.ManifestTable and catalog.Datasets must show,
// run against the in-memory fakes here and the Lance-backed package
// manifest/. A fake that passes them is a faithful stand-in in catalog
// tests.

// RunManifestTableTests checks the catalog.ManifestTable contract. newTable
// returns a fresh table (nothing created yet) on its own storage.
func RunManifestTableTests(t *testing.T, newTable func(t *testing.T) catalog.ManifestTable) {
	ctx := context.Background()
	str := func(s string) *string { return &s }
	rows := []catalog.Row{
		{ObjectID: "a", ObjectType: catalog.ObjectTypeNamespace, Metadata: str(`{"owner":"ana"}`)},
		{ObjectID: "a$b", ObjectType: catalog.ObjectTypeNamespace},
		{ObjectID: "a$t1", ObjectType: catalog.ObjectTypeTable, Location: str("0a1b2c3d_a$t1"), BaseObjects: []string{}},
		{ObjectID: "a$b$t2", ObjectType: catalog.ObjectTypeTable, Location: str("1a1b2c3d_a$b$t2"), BaseObjects: []string{"a$t1", "quote'd"}},
		{ObjectID: "t3", ObjectType: catalog.ObjectTypeTable, Location: str("t3.lance")},
		{ObjectID: "a$t1$v1", ObjectType: catalog.ObjectTypeTableVersion, BaseObjects: []string{"a$t1"}},
	}
	// created returns a table with the rows committed at version 2.
	created := func(t *testing.T) catalog.ManifestTable {
		t.Helper()
		m := newTable(t)
		if err := m.Create(ctx); err != nil {
			t.Fatal(err)
		}
		snap, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		v, err := m.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: rows, SetMetadata: map[string]string{"k": "v"}})
		if err != nil {
			t.Fatal(err)
		}
		if v != snap.Version()+1 {
			t.Fatalf("Commit on %d returned version %d", snap.Version(), v)
		}
		return m
	}

	t.Run("EmptyBeforeCreate", func(t *testing.T) {
		m := newTable(t)
		snap, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Version() != 0 {
			t.Fatalf("Latest before Create: version %d, want 0", snap.Version())
		}
		got, err := snap.Scan(ctx, catalog.RowFilter{})
		if err != nil || len(got) != 0 {
			t.Fatalf("Scan of the empty snapshot: %v, %v", got, err)
		}
		if _, found, err := snap.Get(ctx, "a"); err != nil || found {
			t.Fatalf("Get on the empty snapshot: found %v, %v", found, err)
		}
	})
	t.Run("CreateIsIdempotent", func(t *testing.T) {
		m := newTable(t)
		for i := 0; i < 2; i++ {
			if err := m.Create(ctx); err != nil {
				t.Fatalf("Create #%d: %v", i+1, err)
			}
		}
		snap, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Version() == 0 {
			t.Fatal("Latest after Create is still version 0")
		}
		if got, err := snap.Scan(ctx, catalog.RowFilter{}); err != nil || len(got) != 0 {
			t.Fatalf("a new table has rows: %v, %v", got, err)
		}
	})
	t.Run("GetReturnsRowsAsWritten", func(t *testing.T) {
		m := created(t)
		snap, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Metadata()["k"] != "v" {
			t.Fatalf("metadata %v lacks k=v", snap.Metadata())
		}
		for _, want := range rows {
			got, found, err := snap.Get(ctx, want.ObjectID)
			if err != nil || !found {
				t.Fatalf("Get %q: found %v, %v", want.ObjectID, found, err)
			}
			got.Extra = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Get %q:\n got %+v\nwant %+v", want.ObjectID, got, want)
			}
		}
		if _, found, err := snap.Get(ctx, "a$"); err != nil || found {
			t.Fatalf("Get of a missing id: found %v, %v", found, err)
		}
	})
	t.Run("ScanFilters", func(t *testing.T) {
		m := created(t)
		snap, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []catalog.RowFilter{
			{},
			{Types: []string{catalog.ObjectTypeTable}},
			{Types: []string{catalog.ObjectTypeNamespace, catalog.ObjectTypeTableVersion}},
			{IDPrefix: "a$"},
			{IDPrefix: "a$", DirectOnly: true},
			{DirectOnly: true},
			{IDPrefix: "a$b$", Types: []string{catalog.ObjectTypeTable}},
			{BaseObject: "a$t1"},
			{BaseObject: "quote'd"},
			{IDPrefix: "zzz"},
		} {
			got, err := snap.Scan(ctx, f)
			if err != nil {
				t.Fatalf("Scan %+v: %v", f, err)
			}
			var want []string
			for _, r := range rows {
				if f.Match(r) {
					want = append(want, r.ObjectID)
				}
			}
			if ids := objectIDs(got); !slices.Equal(ids, sorted(want)) {
				t.Fatalf("Scan %+v: %v, want %v", f, ids, sorted(want))
			}
			if len(want) > 1 {
				f.Limit = 1
				lim, err := snap.Scan(ctx, f)
				if err != nil || len(lim) != 1 || !slices.Contains(want, lim[0].ObjectID) {
					t.Fatalf("Scan %+v: %v, %v; want one of %v", f, objectIDs(lim), err, want)
				}
			}
		}
	})
	t.Run("CommitAppliesChangeOnly", func(t *testing.T) {
		m := created(t)
		before, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		upd := catalog.Row{ObjectID: "a", ObjectType: catalog.ObjectTypeNamespace, Metadata: str(`{"owner":"bo"}`)}
		v, err := m.Commit(ctx, before.Version(), &catalog.ManifestChange{
			Upserts:       []catalog.Row{upd, {ObjectID: "c", ObjectType: catalog.ObjectTypeNamespace}},
			Deletes:       []string{"t3"},
			UnsetMetadata: []string{"k"},
			SetMetadata:   map[string]string{"k2": "v2"},
		})
		if err != nil {
			t.Fatal(err)
		}
		after, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version() != v || v != before.Version()+1 {
			t.Fatalf("versions: before %d, commit %d, latest %d", before.Version(), v, after.Version())
		}
		all, err := after.Scan(ctx, catalog.RowFilter{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"a", "a$b", "a$b$t2", "a$t1", "a$t1$v1", "c"}
		if ids := objectIDs(all); !slices.Equal(ids, want) {
			t.Fatalf("rows after commit %v, want %v", ids, want)
		}
		if got, _, _ := after.Get(ctx, "a"); *got.Metadata != *upd.Metadata {
			t.Fatalf("upsert did not replace the row: %+v", got)
		}
		if md := after.Metadata(); md["k"] != "" || md["k2"] != "v2" {
			t.Fatalf("metadata after commit %v", md)
		}
		// The earlier snapshot is immutable.
		if old, err := before.Scan(ctx, catalog.RowFilter{}); err != nil || len(old) != len(rows) {
			t.Fatalf("old snapshot changed: %d rows, %v", len(old), err)
		}
		if before.Metadata()["k"] != "v" {
			t.Fatalf("old snapshot metadata changed: %v", before.Metadata())
		}
	})
	t.Run("StaleBaseConflicts", func(t *testing.T) {
		m := created(t)
		snap, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Commit(ctx, snap.Version(), &catalog.ManifestChange{Deletes: []string{"t3"}}); err != nil {
			t.Fatal(err)
		}
		_, err = m.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: []catalog.Row{{ObjectID: "x", ObjectType: catalog.ObjectTypeNamespace}}})
		if !errors.Is(err, catalog.ErrCommitConflict) {
			t.Fatalf("commit on a stale base: %v, want ErrCommitConflict", err)
		}
		latest, err := m.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if latest.Version() != snap.Version()+1 {
			t.Fatalf("latest %d after a conflict, want %d", latest.Version(), snap.Version()+1)
		}
		if _, found, _ := latest.Get(ctx, "x"); found {
			t.Fatal("the conflicting commit landed")
		}
	})
}

// RunDatasetsTests checks the catalog.Datasets contract. newDatasets
// returns a fresh implementation on its own storage.
func RunDatasetsTests(t *testing.T, newDatasets func(t *testing.T) catalog.Datasets) {
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	batch := func(n int) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for i := 0; i < n; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("row ", i))
		}
		return b.NewRecordBatch()
	}
	names := func(s *arrow.Schema) []string {
		var out []string
		for _, f := range s.Fields() {
			out = append(out, f.Name)
		}
		return out
	}
	created := func(t *testing.T, loc string, rows int) catalog.Datasets {
		t.Helper()
		d := newDatasets(t)
		rec := batch(rows)
		defer rec.Release()
		info, err := d.Create(ctx, loc, schema, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		if info.Version != 1 || info.RowCount != int64(rows) || !slices.Equal(names(info.Schema), []string{"id", "s"}) {
			t.Fatalf("Create: %+v", info)
		}
		return d
	}

	t.Run("CreateOnce", func(t *testing.T) {
		d := created(t, "t.lance", 3)
		rec := batch(1)
		defer rec.Release()
		if _, err := d.Create(ctx, "t.lance", schema, []arrow.RecordBatch{rec}); !errors.Is(err, catalog.ErrDatasetExists) {
			t.Fatalf("second Create: %v, want ErrDatasetExists", err)
		}
		info, err := d.Describe(ctx, "t.lance", 0)
		if err != nil || info.Version != 1 || info.RowCount != 3 {
			t.Fatalf("the second Create touched the dataset: %+v, %v", info, err)
		}
		if _, err := d.Create(ctx, "e.lance", arrow.NewSchema(nil, nil), nil); !errors.Is(err, catalog.ErrSchemaInvalid) {
			t.Fatalf("Create without columns: %v, want ErrSchemaInvalid", err)
		}
	})
	t.Run("Exists", func(t *testing.T) {
		d := created(t, "ns$t", 0)
		for loc, want := range map[string]bool{"ns$t": true, "other": false} {
			got, err := d.Exists(ctx, loc)
			if err != nil || got != want {
				t.Fatalf("Exists(%q) = %v, %v; want %v", loc, got, err, want)
			}
		}
	})
	t.Run("DescribeAndOpenVersions", func(t *testing.T) {
		d := created(t, "t.lance", 2)
		v2, err := d.AddColumns(ctx, "t.lance", []arrow.Field{{Name: "extra", Type: arrow.PrimitiveTypes.Float64, Nullable: true}})
		if err != nil || v2 != 2 {
			t.Fatalf("AddColumns: %d, %v", v2, err)
		}
		for _, tc := range []struct {
			version, want uint64
			cols          []string
		}{{0, 2, []string{"id", "s", "extra"}}, {1, 1, []string{"id", "s"}}, {2, 2, []string{"id", "s", "extra"}}} {
			info, err := d.Describe(ctx, "t.lance", tc.version)
			if err != nil || info.Version != tc.want || !slices.Equal(names(info.Schema), tc.cols) || info.RowCount != 2 {
				t.Fatalf("Describe(%d): %+v, %v", tc.version, info, err)
			}
			ds, err := d.Open(ctx, "t.lance", tc.version)
			if err != nil {
				t.Fatalf("Open(%d): %v", tc.version, err)
			}
			if ds.Version() != tc.want || ds.Location() != "t.lance" || !slices.Equal(names(ds.Schema()), tc.cols) {
				t.Fatalf("Open(%d): version %d location %q columns %v", tc.version, ds.Version(), ds.Location(), names(ds.Schema()))
			}
		}
		if _, err := d.Describe(ctx, "t.lance", 9); !errors.Is(err, catalog.ErrDatasetVersionNotFound) {
			t.Fatalf("Describe of a missing version: %v", err)
		}
		if _, err := d.Open(ctx, "t.lance", 9); !errors.Is(err, catalog.ErrDatasetVersionNotFound) {
			t.Fatalf("Open of a missing version: %v", err)
		}
		if _, err := d.Describe(ctx, "nope", 0); !errors.Is(err, catalog.ErrDatasetNotFound) {
			t.Fatalf("Describe of a missing dataset: %v", err)
		}
		if _, err := d.Open(ctx, "nope", 0); !errors.Is(err, catalog.ErrDatasetNotFound) {
			t.Fatalf("Open of a missing dataset: %v", err)
		}
	})
	t.Run("ColumnChanges", func(t *testing.T) {
		d := created(t, "t.lance", 1)
		if _, err := d.DropColumns(ctx, "t.lance", []string{"nope"}); !errors.Is(err, catalog.ErrDatasetColumnNotFound) {
			t.Fatalf("DropColumns of an unknown column: %v", err)
		}
		if _, err := d.RenameColumns(ctx, "t.lance", []catalog.ColumnRename{{From: "nope", To: "x"}}); !errors.Is(err, catalog.ErrDatasetColumnNotFound) {
			t.Fatalf("RenameColumns of an unknown column: %v", err)
		}
		v, err := d.RenameColumns(ctx, "t.lance", []catalog.ColumnRename{{From: "s", To: "label"}})
		if err != nil || v != 2 {
			t.Fatalf("RenameColumns: %d, %v", v, err)
		}
		v, err = d.DropColumns(ctx, "t.lance", []string{"id"})
		if err != nil || v != 3 {
			t.Fatalf("DropColumns: %d, %v", v, err)
		}
		info, err := d.Describe(ctx, "t.lance", 0)
		if err != nil || info.Version != 3 || !slices.Equal(names(info.Schema), []string{"label"}) {
			t.Fatalf("after rename and drop: %+v, %v", info, err)
		}
	})
}

func objectIDs(rows []catalog.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ObjectID
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}
