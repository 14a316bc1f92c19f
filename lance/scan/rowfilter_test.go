package scan

// Late-materialized scans (Options.Filter) against full scans filtered
// afterwards, on the peer's fixtures: Lance 2.0, 2.1 and 2.2 files of
// every type, deletion vectors, indexed fragments.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

// rowStrings renders every row the scanner returns, with its id.
func rowStrings(t *testing.T, ds *dataset.Dataset, opts Options) (rows []string, ids []int64) {
	t.Helper()
	ctx := context.Background()
	s, err := New(ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range s.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		idCol, ok := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		if !ok {
			t.Fatalf("id column of type %s", rec.Column(rec.Schema().FieldIndices("id")[0]).DataType())
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var b strings.Builder
			for c := 0; c < int(rec.NumCols()); c++ {
				v := "null"
				if col := rec.Column(c); !col.IsNull(r) {
					v = col.ValueStr(r)
				}
				fmt.Fprintf(&b, "%s=%s,", rec.Schema().Field(c).Name, v)
			}
			rows = append(rows, b.String())
			ids = append(ids, idCol.Value(r))
		}
	}
	return rows, ids
}

func idRowFilter(keep func(int64) bool) *RowFilter {
	return &RowFilter{Columns: []string{"id"}, Select: func(b arrow.RecordBatch) ([]int, error) {
		ids := b.Column(0).(*array.Int64)
		var out []int
		for i := 0; i < ids.Len(); i++ {
			if !ids.IsNull(i) && keep(ids.Value(i)) {
				out = append(out, i)
			}
		}
		return out, nil
	}}
}

func TestRowFilterMatchesFullScanOnFixtures(t *testing.T) {
	fixtures := []string{"types-1000", "types-v2.0", "deleted-rows", "indexed"}
	// The 100,000-row fixtures pick other encodings. Rendering every
	// row as text dominates the test's time, so on them the filters
	// keep few rows and one batch size is tried; the small fixtures
	// cover the rest.
	large := map[string]bool{"types-100000": true, "types-v2.2-100000": true}
	if peer.Available() == nil {
		fixtures = append(fixtures, "types-100000", "types-v2.2-100000")
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			ds := openDataset(t, peer.Fixture(t, name))
			all, ids := rowStrings(t, ds, Options{})
			random := map[int64]bool{}
			for _, id := range ids {
				if rng.IntN(40) == 0 {
					random[id] = true
				}
			}
			mid := ids[len(ids)/2]
			filters := map[string]func(int64) bool{
				"none":      func(int64) bool { return false },
				"all":       func(int64) bool { return true },
				"first":     func(id int64) bool { return id < mid },
				"scattered": func(id int64) bool { return id%17 == 0 },
				"random":    func(id int64) bool { return random[id] },
			}
			batches := []int{0, 100}
			if large[name] {
				// A leading tenth: whole chunks kept, then whole chunks
				// skipped.
				tenth := ids[len(ids)/10]
				filters["first"] = func(id int64) bool { return id < tenth }
				delete(filters, "all")
				batches = []int{0}
			}
			for fname, keep := range filters {
				var want []string
				for i, id := range ids {
					if keep(id) {
						want = append(want, all[i])
					}
				}
				for _, batch := range batches {
					got, _ := rowStrings(t, ds, Options{BatchSize: batch, Filter: idRowFilter(keep)})
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s batch %d: %d rows, want %d", fname, batch, len(got), len(want))
					}
				}
				// Offset and limit count the rows the filter keeps.
				got, _ := rowStrings(t, ds, Options{Offset: 3, Limit: 10, Filter: idRowFilter(keep)})
				lo := min(3, len(want))
				hi := min(lo+10, len(want))
				if strings.Join(got, "\n") != strings.Join(want[lo:hi], "\n") {
					t.Fatalf("%s offset 3 limit 10: %d rows, want %d", fname, len(got), hi-lo)
				}
			}
		})
	}
}

// With predicates the filter holds on every path: fragments an index
// covers (rows taken one by one or scanned), uncovered ones, no index.
func TestRowFilterWithPredicates(t *testing.T) {
	ds := openDataset(t, peer.Fixture(t, "indexed"))
	keep := func(id int64) bool { return id%3 != 1 }
	for _, tc := range indexedCases() {
		for _, noIdx := range []bool{false, true} {
			cols := []string{"id", "name", "category"}
			all, ids := rowStrings(t, ds, Options{Columns: cols, Predicates: tc.preds, NoIndices: noIdx})
			var want []string
			for i, id := range ids {
				if keep(id) {
					want = append(want, all[i])
				}
			}
			if len(want) == 0 {
				t.Fatalf("%s: no row kept: the case tests nothing", tc.name)
			}
			got, _ := rowStrings(t, ds, Options{Columns: cols, Predicates: tc.preds, NoIndices: noIdx, Filter: idRowFilter(keep)})
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s (no indices %v): %d rows, want %d", tc.name, noIdx, len(got), len(want))
			}
		}
	}
	if _, err := New(ds, Options{Columns: []string{"name"}, Filter: idRowFilter(keep)}); err == nil {
		t.Fatal("a filter on a column not returned was accepted")
	}
}
