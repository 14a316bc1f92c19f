package dataset

// Tests of the late-materializing row filter (ScanOptions.Filter): a
// filtered scan must return exactly the rows of a full scan that the
// filter keeps, and decode the other columns only where it keeps some.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/storage"
)

// countingFormat is the real file format, counting the rows ReadRange
// decodes per field id.
type countingFormat struct {
	fileFormat
	mu   *sync.Mutex
	rows map[int32]uint64
}

type countingReader struct {
	dataFileReader
	f countingFormat
}

func (c countingFormat) Open(ctx context.Context, store storage.Store, path string, size int64) (dataFileReader, error) {
	r, err := c.fileFormat.Open(ctx, store, path, size)
	if err != nil {
		return nil, err
	}
	return countingReader{r, c}, nil
}

func (r countingReader) ReadRange(ctx context.Context, ids []int32, start, end uint64) (arrow.RecordBatch, error) {
	r.f.mu.Lock()
	for _, id := range ids {
		r.f.rows[id] += end - start
	}
	r.f.mu.Unlock()
	return r.dataFileReader.ReadRange(ctx, ids, start, end)
}

func countDecodes(t *testing.T) countingFormat {
	old := formats
	c := countingFormat{fileFormat: old, mu: &sync.Mutex{}, rows: map[int32]uint64{}}
	formats = c
	t.Cleanup(func() { formats = old })
	return c
}

func (c countingFormat) decoded(id int32) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows[id]
}

func (c countingFormat) reset() {
	c.mu.Lock()
	clear(c.rows)
	c.mu.Unlock()
}

// rangeFixture writes the range fixture (rangeRecord rows) in fragments
// of the given sizes in one data storage version, then deletes rows at
// batch edges and scattered ones; it returns the dataset and the expected
// rows of a full scan (rangeRow strings) with their ids.
func rangeFixture(t testing.TB, version string, sizes []int64, deleteSome bool) (*Dataset, []string, []int64) {
	t.Helper()
	ctx := context.Background()
	d, err := CreateWithData(ctx, memStore(t), "", rangeSchema, []arrow.RecordBatch{rangeRecord(t, 0, sizes[0])}, CreateOptions{DataStorageVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	from := sizes[0]
	for _, n := range sizes[1:] {
		if d, err = d.Append(ctx, []arrow.RecordBatch{rangeRecord(t, from, n)}); err != nil {
			t.Fatal(err)
		}
		from += n
	}
	deleted := map[uint64]bool{}
	if deleteSome {
		var del []uint64
		for fi, f := range d.Fragments() {
			for off := uint64(fi % 3); off < uint64(sizes[fi]); off += 41 {
				del = append(del, f.ID<<32|off)
			}
			// A run across the 1,000-row batch edge.
			for off := uint64(995); off < min(1006, uint64(sizes[fi])); off++ {
				del = append(del, f.ID<<32|off)
			}
		}
		if d, err = d.Delete(ctx, del); err != nil {
			t.Fatal(err)
		}
		for _, a := range del {
			deleted[a] = true
		}
	}
	var want []string
	var ids []int64
	id := int64(0)
	for fi, n := range sizes {
		for off := uint64(0); off < uint64(n); off++ {
			if a := d.Fragments()[fi].ID<<32 | off; !deleted[a] {
				want = append(want, rangeRow(id, a))
				ids = append(ids, id)
			}
			id++
		}
	}
	return d, want, ids
}

// idFilter is a row filter on column id keeping the ids keep reports.
func idFilter(cols []string, keep func(id int64) bool) *RowFilter {
	at := 0
	for i, c := range cols {
		if c == "id" {
			at = i
		}
	}
	return &RowFilter{Columns: cols, Select: func(b arrow.RecordBatch) ([]int, error) {
		ids, ok := b.Column(at).(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("id column of type %s", b.Column(at).DataType())
		}
		var out []int
		for i := 0; i < ids.Len(); i++ {
			if keep(ids.Value(i)) {
				out = append(out, i)
			}
		}
		return out, nil
	}}
}

func TestRowFilterMatchesFilteredFullScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, version := range []string{"2.0", "2.1", "2.2"} {
		for _, del := range []bool{false, true} {
			// Fragments of several pages' worth, a one-row fragment.
			d, want, ids := rangeFixture(t, version, []int64{3000, 9000, 1, 2500}, del)
			random := map[int64]bool{}
			for _, id := range ids {
				if rng.IntN(50) == 0 {
					random[id] = true
				}
			}
			filters := []struct {
				name string
				keep func(int64) bool
			}{
				{"none", func(int64) bool { return false }},
				{"all", func(int64) bool { return true }},
				// Whole batches kept and whole batches dropped.
				{"clustered", func(id int64) bool { return id >= 2000 && id < 4100 || id >= 12990 && id < 12995 }},
				{"scattered", func(id int64) bool { return id%13 == 0 }},
				{"random", func(id int64) bool { return random[id] }},
				{"last", func(id int64) bool { return id == ids[len(ids)-1] }},
			}
			for _, f := range filters {
				var kept []string
				for i, id := range ids {
					if f.keep(id) {
						kept = append(kept, want[i])
					}
				}
				for _, batch := range []int{0, 333, 1000} {
					for _, ol := range [][2]uint64{{0, 0}, {5, 17}, {100, 0}, {0, 1}} {
						lo := min(ol[0], uint64(len(kept)))
						hi := uint64(len(kept))
						if ol[1] > 0 {
							hi = min(lo+ol[1], hi)
						}
						name := fmt.Sprintf("%s/delete=%v/%s/batch=%d/offset=%d/limit=%d", version, del, f.name, batch, ol[0], ol[1])
						got := rowsOf(t, d, ScanOptions{BatchSize: batch, Offset: ol[0], Limit: ol[1], WithRowAddress: true, Filter: idFilter([]string{"id"}, f.keep)})
						if strings.Join(got, "\n") != strings.Join(kept[lo:hi], "\n") {
							t.Fatalf("%s: %d rows, want %d; first difference %s", name, len(got), hi-lo, firstDiff(got, kept[lo:hi]))
						}
					}
				}
			}
		}
	}
}

// The filter's columns and the others keep their places in the output,
// and the filter may read a column it does not test.
func TestRowFilterColumnOrder(t *testing.T) {
	d, _, _ := rangeFixture(t, "2.1", []int64{2000}, true)
	keep := func(id int64) bool { return id%3 == 0 && id < 1500 }
	cols := []string{"tags", "id", "name"}
	got := rowsOf(t, d, ScanOptions{Columns: cols, Filter: idFilter([]string{"name", "id"}, keep)})
	var want []string
	for _, row := range rowsOf(t, d, ScanOptions{Columns: cols}) {
		var id int64
		fmt.Sscanf(row[strings.Index(row, ",id=")+4:], "%d", &id)
		if keep(id) {
			want = append(want, row)
		}
	}
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d rows, want %d; first difference %s", len(got), len(want), firstDiff(got, want))
	}
}

// Chunks without a kept row decode only the filter's columns; the others
// are decoded over the span of the kept rows of a chunk.
func TestRowFilterSkipsDecoding(t *testing.T) {
	counts := countDecodes(t)
	d, _, _ := rangeFixture(t, "2.1", []int64{10000}, false)
	nameID := d.Schema().Field("name").ID
	idID := d.Schema().Field("id").ID
	cases := []struct {
		name       string
		keep       func(int64) bool
		wantRest   uint64 // rows of name decoded, batches of 1,000
		wantFilter uint64
	}{
		{"none", func(int64) bool { return false }, 0, 10000},
		{"one batch", func(id int64) bool { return id >= 3000 && id < 4000 }, 1000, 10000},
		{"span", func(id int64) bool { return id == 5100 || id == 5199 || id == 7500 }, 100 + 1, 10000},
		{"all", func(int64) bool { return true }, 10000, 10000},
	}
	for _, tc := range cases {
		counts.reset()
		rowsOf(t, d, ScanOptions{BatchSize: 1000, Filter: idFilter([]string{"id"}, tc.keep)})
		if got := counts.decoded(nameID); got != tc.wantRest {
			t.Errorf("%s: decoded %d rows of name, want %d", tc.name, got, tc.wantRest)
		}
		if got := counts.decoded(idID); got != tc.wantFilter {
			t.Errorf("%s: decoded %d rows of id, want %d", tc.name, got, tc.wantFilter)
		}
	}
}

func TestRowFilterErrors(t *testing.T) {
	d, _, _ := rangeFixture(t, "2.1", []int64{100}, false)
	ctx := context.Background()
	nop := func(arrow.RecordBatch) error { return nil }
	bad := []struct {
		name string
		opts ScanOptions
	}{
		{"unscanned column", ScanOptions{Columns: []string{"id"}, Filter: idFilter([]string{"name"}, nil)}},
		{"twice", ScanOptions{Filter: idFilter([]string{"id", "id"}, nil)}},
		{"no select", ScanOptions{Filter: &RowFilter{Columns: []string{"id"}}}},
		{"no column", ScanOptions{Filter: &RowFilter{Select: func(arrow.RecordBatch) ([]int, error) { return nil, nil }}}},
		{"out of order", ScanOptions{Filter: &RowFilter{Columns: []string{"id"}, Select: func(arrow.RecordBatch) ([]int, error) { return []int{3, 2}, nil }}}},
		{"out of range", ScanOptions{Filter: &RowFilter{Columns: []string{"id"}, Select: func(arrow.RecordBatch) ([]int, error) { return []int{100}, nil }}}},
	}
	for _, tc := range bad {
		if err := d.Scan(ctx, tc.opts, nop); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", tc.name, err)
		}
	}
	boom := errors.New("boom")
	err := d.Scan(ctx, ScanOptions{Filter: &RowFilter{Columns: []string{"id"}, Select: func(arrow.RecordBatch) ([]int, error) { return nil, boom }}}, nop)
	if !errors.Is(err, boom) {
		t.Errorf("Select's error: got %v", err)
	}
}

// BenchmarkRowFilterClustered scans 200,000 rows keeping 1% of them, one
// run of ids (data clustered on the filtered column): with the row filter
// and with the filter applied to the batches of a full scan.
func BenchmarkRowFilterClustered(b *testing.B) {
	d, _, _ := rangeFixture(b, "2.1", []int64{100000, 100000}, false)
	keep := func(id int64) bool { return id >= 150000 && id < 152000 }
	ctx := context.Background()
	for _, late := range []bool{false, true} {
		b.Run(fmt.Sprintf("late=%v", late), func(b *testing.B) {
			for range b.N {
				opts := ScanOptions{}
				if late {
					opts.Filter = idFilter([]string{"id"}, keep)
				}
				var rows int
				err := d.Scan(ctx, opts, func(rec arrow.RecordBatch) error {
					ids := rec.Column(0).(*array.Int64)
					for i := 0; i < ids.Len(); i++ {
						if keep(ids.Value(i)) {
							rows++
						}
					}
					return nil
				})
				if err != nil || rows != 2000 {
					b.Fatal(err, rows)
				}
			}
		})
	}
}
