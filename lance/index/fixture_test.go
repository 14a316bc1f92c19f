package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestPeerIndexedTable searches the four indices the peer built on the
// committed "indexed" table (BTREE on int64 id and utf8 name, BITMAP on
// category, LABEL_LIST on tags) and compares every answer with a full scan
// of the peer's own dump of the table.
func TestPeerIndexedTable(t *testing.T) {
	dir := peer.Fixture(t, "indexed")
	rows := rowsFromJSONL(t, filepath.Join(filepath.Dir(dir), "indexed.expected.jsonl"))
	ds := openDataset(t, dir)
	ctx := context.Background()
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
			if ix.Kind() != tc.kind || ix.Field().Name != tc.column {
				t.Fatalf("index %s is %s on %s", tc.name, ix.Kind(), ix.Field().Name)
			}
			if u := ix.Uncovered(); len(u) != 0 {
				t.Fatalf("uncovered fragments %v", u)
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			checkSearch(t, ix, rows, tc.column, randomQueries(t, rng, rows, tc.column, tc.kind, 150))
		})
	}
}

// catalogIndices are the three indices of a directory catalog's __manifest.
var catalogIndices = []struct {
	name, column string
	kind         Kind
}{
	{"object_id_btree", "object_id", KindBTree},
	{"object_type_bitmap", "object_type", KindBitmap},
	{"base_objects_label_list", "base_objects", KindLabelList},
}

func testCatalogIndices(t *testing.T, fixture string, queries int) {
	dir := peer.Fixture(t, fixture)
	ds := openDataset(t, filepath.Join(dir, "__manifest"))
	ctx := context.Background()
	for _, tc := range catalogIndices {
		t.Run(tc.name, func(t *testing.T) {
			rows := rowsFromScan(t, ds, tc.column)
			ix, err := Open(ctx, ds, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if ix.Kind() != tc.kind || ix.Field().Name != tc.column {
				t.Fatalf("index %s is %s on %s", tc.name, ix.Kind(), ix.Field().Name)
			}
			if u := ix.Uncovered(); len(u) != 0 {
				t.Fatalf("uncovered fragments %v", u)
			}
			rng := rand.New(rand.NewPCG(2, uint64(len(tc.name))))
			qs := randomQueries(t, rng, rows, tc.column, tc.kind, queries)
			minNonEmpty := len(qs) / 4
			if fixture == "catalog-3" && tc.kind == KindLabelList {
				minNonEmpty = 0 // no table of catalog-3 has base objects
			}
			checkSearchMin(t, ix, rows, tc.column, qs, minNonEmpty)
		})
	}
}

// TestPeerCatalog3 checks the indices of the committed three-level catalog.
func TestPeerCatalog3(t *testing.T) { testCatalogIndices(t, "catalog-3", 60) }

// TestPeerCatalog5000 checks the indices of the peer's 5,000-entry catalog.
func TestPeerCatalog5000(t *testing.T) { testCatalogIndices(t, "catalog-5000", 150) }

// TestPeerCatalog100000 checks the indices of the peer's 100,000-entry
// catalog (25 BTREE pages).
func TestPeerCatalog100000(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000-entry catalog skipped in -short")
	}
	testCatalogIndices(t, "catalog-100000", 60)
}

// TestConcurrentSearches runs searches of one opened index from several
// goroutines (page cache, lazily opened files) against the serial answers.
func TestConcurrentSearches(t *testing.T) {
	dir := peer.Fixture(t, "indexed")
	ds := openDataset(t, dir)
	ctx := context.Background()
	ix, err := Open(ctx, ds, "name_idx")
	if err != nil {
		t.Fatal(err)
	}
	qs := []Query{Eq("item-29633"), Prefix("item-1"), IsNull(), Prefix("item-9"), In("item-00001", "item-82762")}
	want := make([][]uint64, len(qs))
	serial, err := Open(ctx, ds, "name_idx")
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		r, err := serial.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want[i], _ = r.Rows.Values()
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for k := 0; k < 20; k++ {
				i := (g + k) % len(qs)
				r, err := ix.Search(ctx, qs[i])
				if err == nil {
					got, _ := r.Rows.Values()
					if !slices.Equal(got, want[i]) {
						err = fmt.Errorf("%s: %d rows, want %d", qs[i], len(got), len(want[i]))
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
