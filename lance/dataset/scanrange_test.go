package dataset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/storage"
)

var rangeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
}, nil)

// rangeRow is the text form of row id of the range fixture, as rowsOf
// prints it (a pure function of id, so expectations need no decoding).
func rangeRow(id int64, addr uint64) string {
	name := "null"
	if id%7 != 3 {
		name = fmt.Sprintf("name-%d-%s", id, strings.Repeat("x", int(id%23)))
	}
	tags := "null"
	if id%11 != 5 {
		var ts []string
		for j := int64(0); j < id%4; j++ {
			ts = append(ts, fmt.Sprintf("%q", fmt.Sprintf("t%d", (id+j)%9)))
		}
		tags = "[" + strings.Join(ts, ",") + "]"
	}
	return fmt.Sprintf("id=%d,name=%s,tags=%s,_rowaddr=%d", id, name, tags, addr)
}

func rangeRecord(t testing.TB, from, n int64) arrow.RecordBatch {
	t.Helper()
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for id := from; id < from+n; id++ {
		ib.Append(id)
		if id%7 == 3 {
			sb.AppendNull()
		} else {
			sb.Append(fmt.Sprintf("name-%d-%s", id, strings.Repeat("x", int(id%23))))
		}
		if id%11 == 5 {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for j := int64(0); j < id%4; j++ {
			vb.Append(fmt.Sprintf("t%d", (id+j)%9))
		}
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray(), lb.NewArray()}
	rec := array.NewRecordBatch(rangeSchema, cols, n)
	for _, c := range cols {
		c.Release()
	}
	t.Cleanup(rec.Release)
	return rec
}

// TestScanRangesMatchFullDecode checks Offset and Limit against the rows
// written, at chunk, batch and fragment boundaries, with deletions at those
// boundaries, for several batch sizes: every range read must equal the
// same slice of the whole table. Data files are real Lance 2.1 files
// (mini-block chunks, list columns).
func TestScanRangesMatchFullDecode(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	// Fragments of 3,000, 5,000, 1 and 2,500 rows; ids are global row
	// numbers.
	sizes := []int64{3000, 5000, 1, 2500}
	d, err := CreateWithData(ctx, st, "", rangeSchema, []arrow.RecordBatch{rangeRecord(t, 0, sizes[0])}, CreateOptions{})
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
	if len(d.Fragments()) != len(sizes) {
		t.Fatalf("%d fragments, want %d", len(d.Fragments()), len(sizes))
	}
	// Delete a fragment's first rows, rows at batch (1,000 / 8,192-aligned)
	// edges, a run across one, scattered rows and the last row.
	var del []uint64
	addr := func(frag int, off uint64) uint64 { return uint64(d.Fragments()[frag].ID)<<32 | off }
	for _, off := range []uint64{0, 1, 999, 1000, 1001, 2999} {
		del = append(del, addr(0, off))
	}
	for off := uint64(990); off < 1010; off++ {
		del = append(del, addr(1, off))
	}
	for off := uint64(7); off < 5000; off += 97 {
		del = append(del, addr(1, off))
	}
	del = append(del, addr(3, 0), addr(3, 2499))
	if d, err = d.Delete(ctx, del); err != nil {
		t.Fatal(err)
	}
	deleted := map[uint64]bool{}
	for _, a := range del {
		deleted[a] = true
	}
	var want, frag1 []string
	id := int64(0)
	for fi, n := range sizes {
		for off := uint64(0); off < uint64(n); off++ {
			a := uint64(d.Fragments()[fi].ID)<<32 | off
			if !deleted[a] {
				want = append(want, rangeRow(id, a))
				if fi == 1 {
					frag1 = append(frag1, want[len(want)-1])
				}
			}
			id++
		}
	}
	if got := rowsOf(t, d, ScanOptions{WithRowAddress: true}); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("full scan: %d rows, want %d; first difference %s", len(got), len(want), firstDiff(got, want))
	}
	live := uint64(len(want))
	offsets := []uint64{0, 1, 993, 994, 995, 1000, 2993, 2994, 2995, 8191, 8192, live - 1, live, live + 3}
	limits := []uint64{0, 1, 7, 1001, 8192}
	for _, batch := range []int{0, 333} {
		for _, off := range offsets {
			for _, lim := range limits {
				lo := min(off, live)
				hi := live
				if lim > 0 {
					hi = min(lo+lim, live)
				}
				got := rowsOf(t, d, ScanOptions{Offset: off, Limit: lim, BatchSize: batch, WithRowAddress: true})
				if strings.Join(got, "\n") != strings.Join(want[lo:hi], "\n") {
					t.Fatalf("batch %d offset %d limit %d: %d rows, want %d; first difference %s", batch, off, lim, len(got), hi-lo, firstDiff(got, want[lo:hi]))
				}
			}
		}
	}
	// One column, and a fragment subset, through the same paths.
	got := rowsOf(t, d, ScanOptions{Columns: []string{"tags"}, Fragments: []uint64{d.Fragments()[1].ID}, Offset: 980, Limit: 40})
	var wantTags []string
	for _, w := range frag1[980:1020] {
		w = w[strings.Index(w, "tags="):]
		wantTags = append(wantTags, w[:strings.Index(w, ",_rowaddr")])
	}
	if strings.Join(got, "\n") != strings.Join(wantTags, "\n") {
		t.Fatalf("tags of fragment 1 from 980: first difference %s", firstDiff(got, wantTags))
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: got %q, want %q", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// failingStore fails data file reads while fail is set.
type failingStore struct {
	storage.Store
	fail atomic.Bool
}

var errInjected = errors.New("injected read failure")

func (s *failingStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	if s.fail.Load() && strings.Contains(path, "/data/") {
		return nil, errInjected
	}
	return s.Store.ReadRange(ctx, path, off, n)
}

// TestScanRecoversFromFailedRead: a Dataset keeps its data file readers
// across scans; a read that fails while a reader loads page metadata must
// not make later scans of the same Dataset fail.
func TestScanRecoversFromFailedRead(t *testing.T) {
	ctx := context.Background()
	fs := &failingStore{Store: memStore(t)}
	if _, err := CreateWithData(ctx, fs, "t", rangeSchema, []arrow.RecordBatch{rangeRecord(t, 0, 3000)}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := Open(ctx, fs, "t", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Open and cache the reader (its footer and schema) with one column,
	// then fail the first read of another column: its page metadata.
	if got := rowsOf(t, d, ScanOptions{Columns: []string{"id"}, Limit: 1}); len(got) != 1 {
		t.Fatalf("first scan: %v", got)
	}
	fs.fail.Store(true)
	err = d.Scan(ctx, ScanOptions{Columns: []string{"name", "tags"}}, func(arrow.RecordBatch) error { return nil })
	if !errors.Is(err, errInjected) {
		t.Fatalf("scan with failing reads: %v, want the injected error", err)
	}
	fs.fail.Store(false)
	got := rowsOf(t, d, ScanOptions{WithRowAddress: true, Offset: 1500, Limit: 3})
	want := []string{rangeRow(1500, 1500), rangeRow(1501, 1501), rangeRow(1502, 1502)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("scan after the failure: %v, want %v", got, want)
	}
}
