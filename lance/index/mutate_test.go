package index

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

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
	t.Run("LookupFlags", func(t *testing.T) { checkLookupFlags(t, ds) })
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

// checkLookupFlags checks that the flags of `lancecat dataset lookup`
// parse as the indexed column's type (lance/scan runs the query; its tests
// compare the rows with a full scan and the peer).
func checkLookupFlags(t *testing.T, ds *dataset.Dataset) {
	for _, tc := range []struct {
		index string
		flags LookupFlags
		want  Query
	}{
		{"name_idx", LookupFlags{Eq: "item-00001", HasEq: true}, Eq("item-00001")},
		{"name_idx", LookupFlags{Prefix: "item-000", HasPrefix: true}, Prefix("item-000")},
		{"id_idx", LookupFlags{In: "100001,5,10", HasIn: true}, In(int64(100001), int64(5), int64(10))},
		{"category_idx", LookupFlags{Eq: "books", HasEq: true}, Eq("books")},
		{"tags_idx", LookupFlags{In: "zzz,gift", HasIn: true}, HasAny("zzz", "gift")},
	} {
		q, err := QueryFromFlags(ds, tc.index, tc.flags)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(q, tc.want) {
			t.Fatalf("%s %+v: query %v, want %v", tc.index, tc.flags, q, tc.want)
		}
	}
	if _, err := QueryFromFlags(ds, "tags_idx", LookupFlags{Prefix: "x", HasPrefix: true}); !errors.Is(err, ErrBadQuery) {
		t.Fatalf("--prefix on a label list: %v", err)
	}
}
