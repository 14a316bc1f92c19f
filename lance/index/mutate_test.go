package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

// TestPeerIndicesAfterDeleteAndAppend has the peer delete rows from, and
// append a fragment to, a copy of the indexed table without touching its
// indices. Searches must then drop the deleted rows and report the appended
// fragment as uncovered; the answers must equal a full scan of the covered
// fragments.
func TestPeerIndicesAfterDeleteAndAppend(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := peer.FixtureCopy(t, "indexed")
	var del struct{ Deleted any }
	if err := peer.Op(ctx, t, "dataset.delete", map[string]any{"path": dir, "where": "id % 7 = 3 OR name IS NULL OR category = 'tools'"}, &del); err != nil {
		t.Fatal(err)
	}
	rows := []map[string]any{
		{"id": 100001, "name": "item-00001", "category": "books", "tags": []any{"new", "zzz"}, "value": 1.5},
		{"id": 100002, "name": nil, "category": nil, "tags": nil, "value": 2.5},
	}
	if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": rows}, nil); err != nil {
		t.Fatal(err)
	}
	ds := openDataset(t, dir)
	if len(ds.Fragments()) < 2 || ds.Fragments()[0].Deletion == nil {
		t.Fatalf("peer did not produce a deletion file and a second fragment: %d fragments", len(ds.Fragments()))
	}
	t.Run("Lookup", func(t *testing.T) { checkLookup(t, ds) })
	t.Run("Describe", func(t *testing.T) {
		infos := Describe(ds)
		if len(infos) != 4 {
			t.Fatalf("Describe listed %d indices", len(infos))
		}
		last := ds.Fragments()[len(ds.Fragments())-1].ID
		for _, in := range infos {
			if in.Kind == KindUnknown || len(in.Columns) != 1 || len(in.Segments) != 1 {
				t.Fatalf("Describe: %+v", in)
			}
			if !slices.Equal(in.Uncovered, []uint64{last}) || !slices.Equal(in.Covered, []uint64{ds.Fragments()[0].ID}) {
				t.Fatalf("%s: covered %v uncovered %v, want [%d] [%d]", in.Name, in.Covered, in.Uncovered, ds.Fragments()[0].ID, last)
			}
		}
	})
	for _, tc := range []struct {
		name, column string
		kind         Kind
	}{
		{"id_idx", "id", KindBTree},
		{"name_idx", "name", KindBTree},
		{"category_idx", "category", KindBitmap},
		{"tags_idx", "tags", KindLabelList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := Open(ctx, ds, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			covered := ix.Covered()
			var wantUncovered []uint64
			for _, f := range ds.Fragments() {
				if !slices.Contains(covered, f.ID) {
					wantUncovered = append(wantUncovered, f.ID)
				}
			}
			if len(wantUncovered) == 0 {
				t.Fatalf("the appended fragment is covered by %s; the test needs an uncovered one", tc.name)
			}
			if got := ix.Uncovered(); !slices.Equal(got, wantUncovered) {
				t.Fatalf("Uncovered() = %v, want %v", got, wantUncovered)
			}
			var ref []refRow
			for _, r := range rowsFromScan(t, ds, tc.column) {
				if slices.Contains(covered, r.addr>>32) {
					ref = append(ref, r)
				}
			}
			rng := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			qs := randomQueries(t, rng, ref, tc.column, tc.kind, 120)
			checkSearch(t, ix, ref, tc.column, qs)
			res, err := ix.Search(ctx, qs[0])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Uncovered, wantUncovered) {
				t.Fatalf("Result.Uncovered = %v, want %v", res.Uncovered, wantUncovered)
			}
		})
	}
}

// checkLookup runs Lookup (index hits plus a scan of uncovered fragments)
// and compares the ids it returns with a full scan of every fragment.
func checkLookup(t *testing.T, ds *dataset.Dataset) {
	ctx := context.Background()
	for _, tc := range []struct {
		index, column string
		flags         LookupFlags
	}{
		{"name_idx", "name", LookupFlags{Eq: "item-00001", HasEq: true}},
		{"name_idx", "name", LookupFlags{Prefix: "item-000", HasPrefix: true}},
		{"id_idx", "id", LookupFlags{In: "100001,5,10,4999,77777", HasIn: true}},
		{"category_idx", "category", LookupFlags{Eq: "books", HasEq: true}},
		{"tags_idx", "tags", LookupFlags{In: "zzz,gift", HasIn: true}},
	} {
		q, err := QueryFromFlags(ds, tc.index, tc.flags)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		err = Lookup(ctx, ds, tc.index, q, func(rec arrow.RecordBatch) error {
			if rec.Schema().Field(0).Name != "id" || int(rec.NumCols()) != len(ds.Schema().Fields) {
				return fmt.Errorf("lookup batch schema %s", rec.Schema())
			}
			got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ids := rowsFromScan(t, ds, "id")
		var want []int64
		for i, r := range rowsFromScan(t, ds, tc.column) {
			if refMatch(t, q, r.vals[tc.column]) {
				want = append(want, ids[i].vals["id"].(int64))
			}
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("lookup %s %+v: got %d ids, full scan %d", tc.index, tc.flags, len(got), len(want))
		}
	}
}
