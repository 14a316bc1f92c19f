package scan

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/storage"
)

func openDataset(t testing.TB, dir string) *dataset.Dataset {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+dir, storage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ds, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// collect runs a scanner and returns column key of every row (as strings
// for utf8 keys, int64 for integer keys), checking the output schema.
func collect(t *testing.T, ds *dataset.Dataset, opts Options, key string) ([]any, *Plan) {
	t.Helper()
	ctx := context.Background()
	s, err := New(ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for rec, err := range s.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if opts.Columns != nil && int(rec.NumCols()) != len(opts.Columns) {
			t.Fatalf("batch has %d columns, asked for %v", rec.NumCols(), opts.Columns)
		}
		if rec.NumRows() > int64(s.opts.BatchSize) {
			t.Fatalf("batch of %d rows exceeds BatchSize %d", rec.NumRows(), s.opts.BatchSize)
		}
		idx := rec.Schema().FieldIndices(key)
		if len(idx) != 1 {
			t.Fatalf("no column %q in %s", key, rec.Schema())
		}
		switch c := rec.Column(idx[0]).(type) {
		case *array.Int64:
			for i := 0; i < c.Len(); i++ {
				out = append(out, c.Value(i))
			}
		case *array.String:
			for i := 0; i < c.Len(); i++ {
				out = append(out, c.Value(i))
			}
		default:
			t.Fatalf("key column type %s", c.DataType())
		}
	}
	return out, plan
}

type scanCase struct {
	name  string
	preds []Predicate
	index string // the index Plan must name
	where string // the same filter for the peer ("" to skip the peer)
}

func indexedCases() []scanCase {
	return []scanCase{
		{"eq", []Predicate{Eq("id", int64(4242))}, "id_idx", "id = 4242"},
		{"in", []Predicate{In("id", int64(5), int64(10), int64(4999), int64(100001), int64(77777))}, "id_idx", "id IN (5, 10, 4999, 100001, 77777)"},
		{"range", []Predicate{Range("id", &Bound{Value: int64(100), Inclusive: true}, &Bound{Value: int64(400)})}, "id_idx", "id >= 100 AND id < 400"},
		{"prefix", []Predicate{Prefix("name", "item-001")}, "name_idx", "name LIKE 'item-001%'"},
		{"is_null", []Predicate{IsNull("name")}, "name_idx", "name IS NULL"},
		{"bitmap_eq", []Predicate{Eq("category", "books")}, "category_idx", "category = 'books'"},
		{"bitmap_in", []Predicate{In("category", "music", "food")}, "category_idx", "category IN ('music', 'food')"},
		{"label_any", []Predicate{HasAny("tags", "gift", "zzz")}, "tags_idx", "array_has_any(tags, ['gift', 'zzz'])"},
		{"label_all", []Predicate{HasAll("tags", "new", "sale")}, "tags_idx", "array_has_all(tags, ['new', 'sale'])"},
		// The point lookup wins over the range; the range becomes residual.
		{"residual", []Predicate{Range("id", nil, &Bound{Value: int64(2500), Inclusive: true}), Eq("category", "games")}, "category_idx", "id <= 2500 AND category = 'games'"},
	}
}

// checkCases compares, for every case, the indexed scan with an unindexed
// full scan of the same dataset and, when the peer runs, with the peer's
// own query of the same filter.
func checkCases(t *testing.T, dir string, cases []scanCase) {
	ds := openDataset(t, dir)
	peerIDs := peerQueries(t, dir, cases)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, plan := collect(t, ds, Options{Columns: []string{"id", "name"}, Predicates: tc.preds}, "id")
			if plan.Index != tc.index {
				t.Fatalf("plan uses index %q, want %q (%v)", plan.Index, tc.index, plan.Lines())
			}
			want, full := collect(t, ds, Options{Columns: []string{"id"}, Predicates: tc.preds, NoIndices: true}, "id")
			if full.Index != "" {
				t.Fatalf("NoIndices plan uses %q", full.Index)
			}
			if len(want) == 0 {
				t.Fatalf("case %s matches no row: it tests nothing", tc.name)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("indexed scan: %d rows %v...; full scan: %d rows %v...", len(got), head(got), len(want), head(want))
			}
			if plan.EstimatedRows < uint64(len(got)) {
				t.Fatalf("estimated %d rows, returned %d", plan.EstimatedRows, len(got))
			}
			// Offset and limit apply to matching rows.
			if len(want) > 3 {
				page, _ := collect(t, ds, Options{Columns: []string{"id"}, Predicates: tc.preds, Offset: 1, Limit: 2}, "id")
				if !slices.Equal(page, want[1:3]) {
					t.Fatalf("offset 1 limit 2: %v, want %v", page, want[1:3])
				}
			}
			if tc.where != "" && peerIDs != nil {
				ids := peerIDs[i]
				mine := make([]int64, len(got))
				for i, v := range got {
					mine[i] = v.(int64)
				}
				slices.Sort(ids)
				slices.Sort(mine)
				if !slices.Equal(ids, mine) {
					t.Fatalf("peer %q: %d rows, lancecat %d", tc.where, len(ids), len(mine))
				}
			}
		})
	}
}

// peerQueries runs the cases' filters in the peer (one process) and returns
// the ids each selects; nil when the peer is unavailable.
func peerQueries(t *testing.T, dir string, cases []scanCase) [][]int64 {
	if peer.Available() != nil {
		return nil
	}
	var qs []map[string]any
	for _, tc := range cases {
		qs = append(qs, map[string]any{"where": tc.where, "columns": []string{"id"}})
	}
	var res struct {
		Results []struct {
			Rows []struct {
				ID float64 `json:"id"`
			} `json:"rows"`
		} `json:"results"`
	}
	if err := peer.Op(context.Background(), t, "dataset.queryMany", map[string]any{"path": dir, "queries": qs}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != len(cases) {
		t.Fatalf("peer answered %d of %d queries", len(res.Results), len(cases))
	}
	out := make([][]int64, len(cases))
	for i, r := range res.Results {
		out[i] = []int64{}
		for _, row := range r.Rows {
			out[i] = append(out[i], int64(row.ID))
		}
	}
	return out
}

func head(v []any) []any { return v[:min(len(v), 5)] }

func TestScanIndexedFixture(t *testing.T) {
	checkCases(t, peer.Fixture(t, "indexed"), indexedCases())
}

// TestScanAfterPeerDeleteAndAppend has the peer delete rows and append a
// fragment no index covers: the scanner must drop the deleted rows and
// scan the new fragment.
func TestScanAfterPeerDeleteAndAppend(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := peer.FixtureCopy(t, "indexed")
	if err := peer.Op(ctx, t, "dataset.delete", map[string]any{"path": dir, "where": "id % 7 = 3 OR category = 'tools'"}, nil); err != nil {
		t.Fatal(err)
	}
	rows := []map[string]any{
		{"id": 100001, "name": "item-00101", "category": "books", "tags": []any{"new", "zzz"}, "value": 1.5},
		{"id": 100002, "name": nil, "category": nil, "tags": nil, "value": 2.5},
		{"id": 4242, "name": "item-00102", "category": "games", "tags": []any{"gift"}, "value": 3.5},
	}
	if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": rows}, nil); err != nil {
		t.Fatal(err)
	}
	ds := openDataset(t, dir)
	if len(ds.Fragments()) != 2 || ds.Fragments()[0].Deletion == nil {
		t.Fatalf("peer did not produce a deletion file and a second fragment: %d fragments", len(ds.Fragments()))
	}
	s, err := New(ds, Options{Predicates: []Predicate{Eq("id", int64(4242))}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := ds.Fragments()[1].ID
	if !slices.Equal(plan.Scanned, []uint64{last}) || !slices.Equal(plan.Covered, []uint64{ds.Fragments()[0].ID}) {
		t.Fatalf("plan: covered %v scanned %v, want [%d] [%d]", plan.Covered, plan.Scanned, ds.Fragments()[0].ID, last)
	}
	checkCases(t, dir, indexedCases())
}

// TestScanCatalogManifest reads the peer's __manifest of a 5,000-table
// catalog through its three indices.
func TestScanCatalogManifest(t *testing.T) {
	dir := filepath.Join(peer.Fixture(t, "catalog-5000"), "__manifest")
	ds := openDataset(t, dir)
	var someID string
	{
		ids, _ := collect(t, ds, Options{Columns: []string{"object_id"}, Predicates: []Predicate{Eq("object_type", "table")}, Limit: 1, Offset: 1234, NoIndices: true}, "object_id")
		if len(ids) != 1 {
			t.Fatalf("no table at offset 1234")
		}
		someID = ids[0].(string)
	}
	ns, _, _ := cut(someID)
	for _, tc := range []scanCase{
		{"object_id", []Predicate{Eq("object_id", someID)}, "object_id_btree", ""},
		{"prefix", []Predicate{Prefix("object_id", ns+"$")}, "object_id_btree", ""},
		{"type", []Predicate{Eq("object_type", "namespace")}, "object_type_bitmap", ""},
		// Two indices: the bitmap answers the type, the BTREE's prefix
		// hits are intersected with it.
		{"type_and_prefix", []Predicate{Prefix("object_id", ns+"$"), Eq("object_type", "table")}, "object_type_bitmap", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, plan := collect(t, ds, Options{Columns: []string{"object_id", "object_type"}, Predicates: tc.preds}, "object_id")
			if tc.index != "" && plan.Index != tc.index {
				t.Fatalf("plan uses %q, want %q: %v", plan.Index, tc.index, plan.Lines())
			}
			if tc.name == "type_and_prefix" && len(plan.AlsoIndices) != 1 {
				t.Fatalf("plan intersects %v, want the object_id index too: %v", plan.AlsoIndices, plan.Lines())
			}
			want, _ := collect(t, ds, Options{Columns: []string{"object_id"}, Predicates: tc.preds, NoIndices: true}, "object_id")
			if len(want) == 0 {
				t.Fatalf("case %s matches no row", tc.name)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("indexed %d rows, full scan %d", len(got), len(want))
			}
		})
	}
}

func cut(id string) (string, string, bool) {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '$' {
			return id[:i], id[i+1:], true
		}
	}
	return id, "", false
}

func TestScanErrors(t *testing.T) {
	ds := openDataset(t, peer.Fixture(t, "indexed"))
	for _, tc := range []struct {
		name string
		opts Options
		is   error
	}{
		{"unknown column", Options{Columns: []string{"nope"}}, dataset.ErrInvalidArgument},
		{"unknown predicate column", Options{Predicates: []Predicate{Eq("nope", 1)}}, dataset.ErrInvalidArgument},
		{"prefix on a number", Options{Predicates: []Predicate{Prefix("id", "1")}}, index.ErrBadQuery},
		{"labels on a scalar", Options{Predicates: []Predicate{HasAny("id", 1)}}, index.ErrBadQuery},
		{"missing index", Options{Index: "nope", Predicates: []Predicate{Eq("id", 1)}}, index.ErrNoIndex},
		{"index answering nothing", Options{Index: "tags_idx", Predicates: []Predicate{Eq("id", 1)}}, ErrInvalid},
	} {
		_, err := New(ds, tc.opts)
		if !errors.Is(err, ErrInvalid) || !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want %v and %v", tc.name, err, ErrInvalid, tc.is)
		}
	}
}

// TestScanStopsEarly checks that breaking out of Records ends the scan
// without error and that a limit without predicates is pushed down.
func TestScanStopsEarly(t *testing.T) {
	ds := openDataset(t, peer.Fixture(t, "indexed"))
	s, err := New(ds, Options{Columns: []string{"id"}, BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rec, err := range s.Records(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
		if n >= 300 {
			break
		}
	}
	if n != 300 {
		t.Fatalf("read %d rows before stopping", n)
	}
	got, _ := collect(t, ds, Options{Columns: []string{"id"}, Offset: 4990, Limit: 50}, "id")
	if len(got) != 10 {
		t.Fatalf("offset 4990 limit 50 of 5000 rows: %d rows", len(got))
	}
	var _ arrow.RecordBatch
}

// TestScanSeveralIndicesAndRowAddress: predicates on three indexed columns
// (the peer's BITMAP, and its two BTREEs) are answered by intersecting the
// indices, return what the unindexed scan returns, and with RowAddress
// every row carries the address a Take of it reads back. A predicate
// restricted to an index that does not answer it stays residual.
func TestScanSeveralIndicesAndRowAddress(t *testing.T) {
	ctx := context.Background()
	ds := openDataset(t, peer.Fixture(t, "indexed"))
	preds := []Predicate{
		Range("id", &Bound{Value: int64(100), Inclusive: true}, &Bound{Value: int64(3000)}),
		Eq("category", "books"),
		{Column: "name", Query: index.Prefix("item-0"), Label: "name LIKE 'item-0%'"},
	}
	got, plan := collect(t, ds, Options{Columns: []string{"id", "name"}, Predicates: preds}, "id")
	if plan.Index != "category_idx" || len(plan.AlsoIndices) != 2 || len(plan.Residual) != 0 {
		t.Fatalf("plan: %v", plan.Lines())
	}
	if !slices.Contains(plan.Lines(), `intersected with index BTREE "name_idx" answers name LIKE 'item-0%'`) {
		t.Fatalf("plan lines lack the labelled predicate: %v", plan.Lines())
	}
	want, _ := collect(t, ds, Options{Columns: []string{"id"}, Predicates: preds, NoIndices: true}, "id")
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("indexed %d rows %v, scanned %d rows %v", len(got), head(got), len(want), head(want))
	}

	// Restricting the id predicate to the name index leaves it residual.
	restricted := slices.Clone(preds)
	restricted[0].Index = "name_idx"
	got2, plan2 := collect(t, ds, Options{Columns: []string{"id"}, Predicates: restricted}, "id")
	if len(plan2.AlsoIndices) != 1 || !slices.Contains(plan2.Residual, restricted[0].String()) || !slices.Equal(got2, want) {
		t.Fatalf("restricted plan %v: %d rows", plan2.Lines(), len(got2))
	}

	s, err := New(ds, Options{Columns: []string{"id"}, Predicates: preds, WithRowAddress: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rec, err := range s.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumCols() != 2 || rec.Schema().Field(1).Name != dataset.RowAddressColumn {
			t.Fatalf("schema %s", rec.Schema())
		}
		ids := rec.Column(0).(*array.Int64)
		addrs := rec.Column(1).(*array.Uint64)
		back, err := ds.Take(ctx, addrs.Values(), dataset.TakeOptions{Columns: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Column(0).(*array.Int64).Int64Values(), ids.Int64Values()) {
			t.Fatalf("addresses do not read back the rows")
		}
		back.Release()
		n += int(rec.NumRows())
	}
	if n != len(want) {
		t.Fatalf("with row addresses: %d rows, want %d", n, len(want))
	}
}

// TestScanRowAddressesAndIndexCache: WithRowAddress returns, beside the
// asked columns, the addresses of exactly the rows returned (a Take at them
// reads the same keys), equal with and without the index; a scan through a
// shared Indices answers as one that opens its own; Plan names the indices
// used and counts their hits.
func TestScanRowAddressesAndIndexCache(t *testing.T) {
	ctx := context.Background()
	ds := openDataset(t, peer.Fixture(t, "indexed"))
	cache := NewIndices(ds)
	preds := []Predicate{In("id", int64(5), int64(10), int64(4999), int64(77777)), In("category", "books", "music", "food", "games")}
	read := func(opts Options) (ids []int64, addrs []uint64, plan *Plan) {
		t.Helper()
		s, err := New(ds, opts)
		if err != nil {
			t.Fatal(err)
		}
		if plan, err = s.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		for rec, err := range s.Records(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if rec.NumCols() != 2 || rec.Schema().Field(1).Name != dataset.RowAddressColumn {
				t.Fatalf("columns %s, want id and %s", rec.Schema(), dataset.RowAddressColumn)
			}
			ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
			addrs = append(addrs, rec.Column(1).(*array.Uint64).Uint64Values()...)
		}
		return ids, addrs, plan
	}
	opts := Options{Columns: []string{"id"}, Predicates: preds, WithRowAddress: true, Indices: cache}
	ids, addrs, plan := read(opts)
	if len(ids) == 0 {
		t.Fatalf("no row matched: the test tests nothing")
	}
	if !slices.Equal(plan.Indices, []string{"id_idx", "category_idx"}) || plan.IndexHits < uint64(len(ids)) {
		t.Fatalf("plan indices %v hits %d for %d rows: %v", plan.Indices, plan.IndexHits, len(ids), plan.Lines())
	}
	again, againAddrs, _ := read(opts) // answered from the cache
	fresh, freshAddrs, _ := read(Options{Columns: []string{"id"}, Predicates: preds, WithRowAddress: true})
	full, fullAddrs, _ := read(Options{Columns: []string{"id"}, Predicates: preds, WithRowAddress: true, NoIndices: true})
	for _, o := range []struct {
		name  string
		ids   []int64
		addrs []uint64
	}{{"cached", again, againAddrs}, {"uncached", fresh, freshAddrs}, {"full scan", full, fullAddrs}} {
		if !slices.Equal(o.ids, ids) || !slices.Equal(o.addrs, addrs) {
			t.Fatalf("%s: ids %v addrs %v, indexed ids %v addrs %v", o.name, o.ids, o.addrs, ids, addrs)
		}
	}
	rec, err := ds.Take(ctx, addrs, dataset.TakeOptions{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if taken := rec.Column(0).(*array.Int64).Int64Values(); !slices.Equal(taken, ids) {
		t.Fatalf("Take at the returned addresses: %v, want %v", taken, ids)
	}
	other := openDataset(t, peer.Fixture(t, "indexed"))
	if _, err := New(other, Options{Predicates: preds, Indices: cache}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Indices of another dataset: %v, want ErrInvalid", err)
	}
}
