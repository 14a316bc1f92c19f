package dataset_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

// scanColumns reads a scan into one array per column (batches
// concatenated). The caller releases them.
func scanColumns(t *testing.T, d *dataset.Dataset, opts dataset.ScanOptions) []arrow.Array {
	t.Helper()
	recs, err := d.ScanAll(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if len(recs) == 0 {
		return nil
	}
	cols := make([]arrow.Array, recs[0].NumCols())
	for c := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		if cols[c], err = array.Concatenate(parts, memory.DefaultAllocator); err != nil {
			t.Fatal(err)
		}
	}
	return cols
}

// sameSlice fails unless got equals rows [off, off+len) of full, column by
// column. Rows array.Equal finds different (NaN is never equal to itself)
// are compared by their exact text (floats print in shortest round-trip
// form, NaN as NaN).
func sameSlice(t *testing.T, what string, got, full []arrow.Array, off uint64) {
	t.Helper()
	for c, g := range got {
		want := array.NewSlice(full[c], int64(off), int64(off)+int64(g.Len()))
		defer want.Release()
		if array.Equal(g, want) {
			continue
		}
		for i := 0; i < g.Len(); i++ {
			if array.SliceEqual(g, int64(i), int64(i+1), want, int64(i), int64(i+1)) {
				continue
			}
			if g.IsNull(i) != want.IsNull(i) || g.ValueStr(i) != want.ValueStr(i) {
				t.Fatalf("%s: column %d row %d is %s, full scan has %s", what, c, off+uint64(i), g.ValueStr(i), want.ValueStr(i))
			}
		}
	}
}

// TestPeerRangesMatchFullScan: on peer-written 100,000-row datasets (the
// catalog's `__manifest`: FSST, dictionary, list and all-null pages; and a
// table of every common type), a read of rows [offset, offset+limit) equals
// that slice of a full scan, at mini-block chunk (powers of two), scan
// batch (8,192) and file boundaries.
func TestPeerRangesMatchFullScan(t *testing.T) {
	peer.Require(t)
	all := []uint64{0, 1, 255, 256, 1023, 1024, 4095, 4097, 8191, 8192, 8193, 50000, 65535, 65536}
	for _, fx := range []struct {
		fixture, dir string
		offsets      []uint64 // and the last row and the end
		limits       []uint64
	}{
		{"catalog-100000", "__manifest", all, []uint64{1, 1000, 8193}},
		// Wide rows (vectors, structs, lists of every type): fewer reads.
		{"types-100000", "", []uint64{0, 1023, 8191, 8193, 65536}, []uint64{1000}},
	} {
		t.Run(fx.fixture, func(t *testing.T) {
			dir := filepath.Join(peer.Fixture(t, fx.fixture), fx.dir)
			if fx.dir == "" {
				dirs := datasetDirs(t, dir)
				if len(dirs) == 0 {
					t.Fatalf("no dataset in %s", dir)
				}
				dir = dirs[0]
			}
			d, err := dataset.Open(context.Background(), openDir(t, dir), "", dataset.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			full := scanColumns(t, d, dataset.ScanOptions{WithRowAddress: true})
			defer func() {
				for _, c := range full {
					c.Release()
				}
			}()
			n := uint64(full[0].Len())
			if n < 100000 {
				t.Fatalf("full scan: %d rows", n)
			}
			for _, off := range append(fx.offsets, n-1, n) {
				for _, lim := range fx.limits {
					got := scanColumns(t, d, dataset.ScanOptions{Offset: off, Limit: lim, WithRowAddress: true})
					if want := min(off+lim, n) - min(off, n); want == 0 && got != nil || want > 0 && (len(got) != len(full) || uint64(got[0].Len()) != want) {
						t.Fatalf("offset %d limit %d: %d columns, want %d rows", off, lim, len(got), want)
					}
					sameSlice(t, fmt.Sprintf("offset %d limit %d", off, lim), got, full, off)
					for _, c := range got {
						c.Release()
					}
				}
			}
			// One column read alone equals the same column of the full scan.
			col := d.Schema().Fields[len(d.Schema().Fields)-1].Name
			one := scanColumns(t, d, dataset.ScanOptions{Columns: []string{col}, Offset: 49999, Limit: 1002})
			if len(one) != 1 || one[0].Len() != 1002 {
				t.Fatalf("column %s: %d columns", col, len(one))
			}
			sameSlice(t, "column "+col, one, full[len(full)-2:len(full)-1], 49999)
			one[0].Release()
		})
	}
}
