// Tests of the read path's held file (one open file per ReadRange/Take
// call) and of dictionary decoding over several mini-block chunks.
package lancefile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/storage"
)

// countingStore counts the store's per-call range reads and its file opens
// for range reads (storage.RangeOpener), passing both to a local store.
type countingStore struct {
	storage.Store
	readRanges, opens atomic.Int64
}

func (c *countingStore) ReadRange(ctx context.Context, path string, offset, length int64) ([]byte, error) {
	c.readRanges.Add(1)
	return c.Store.ReadRange(ctx, path, offset, length)
}

func (c *countingStore) OpenRange(ctx context.Context, path string) (storage.RangeFile, error) {
	c.opens.Add(1)
	o, _ := storage.RangeOpenerOf(c.Store)
	return o.OpenRange(ctx, path)
}

// TestReadRangeHoldsFileOpen reads many columns of a lineitem-like file
// (bit-packed ints, dictionary decimals and strings, FSST strings, dates)
// through a store that can hold files open and checks that each ReadRange
// and Take opens the file once and reads every page part through it,
// instead of one store ReadRange (open, stat, pread, close) per page part,
// and that the rows equal those read from memory.
func TestReadRangeHoldsFileOpen(t *testing.T) {
	raw := syntheticLineitem(t, 20000)
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "l.lance"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	local, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	st := &countingStore{Store: local}
	src, err := NewStoreSource(ctx, st, "l.lance", int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := Open(ctx, BytesSource(raw))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int32
	for _, f := range stored.Schema().Fields {
		ids = append(ids, f.ID)
	}
	check := func(what string, read func(r *Reader) (arrow.Record, error)) {
		t.Helper()
		reads0, opens0 := st.readRanges.Load(), st.opens.Load()
		got, err := read(stored)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer got.Release()
		if n := st.opens.Load() - opens0; n != 1 {
			t.Errorf("%s opened the file %d times, want 1", what, n)
		}
		if n := st.readRanges.Load() - reads0; n != 0 {
			t.Errorf("%s made %d store ReadRange calls, want 0 (all through the held file)", what, n)
		}
		want, err := read(mem)
		if err != nil {
			t.Fatal(err)
		}
		defer want.Release()
		if !array.RecordEqual(got, want) {
			t.Errorf("%s: rows through the store differ from those read from memory", what)
		}
	}
	check("ReadRange", func(r *Reader) (arrow.Record, error) { return r.ReadRange(ctx, ids, 1234, 17000) })
	check("Take", func(r *Reader) (arrow.Record, error) {
		return r.Take(ctx, ids, []uint64{3, 4, 5, 9000, 19999})
	})
	// A cancelled context stops the reads through the held file too.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := stored.ReadRange(cctx, ids, 0, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadRange with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestApplyDictionaryChunks maps the indices of several chunks (of
// different index widths) through fixed-width and variable-width
// dictionaries into one block, and rejects an out-of-range index in a later
// chunk.
func TestApplyDictionaryChunks(t *testing.T) {
	idx8 := &block{n: 3, bits: 8, data: []byte{2, 0, 1}}
	idx16 := &block{n: 2, bits: 16, data: []byte{1, 0, 2, 0}}
	fixed := &block{n: 3, bits: 32, data: []byte{10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0}}
	out, err := applyDictionary([]*block{idx8, idx16}, fixed)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{30, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0}
	if out.n != 5 || out.bits != 32 || !bytes.Equal(out.data, want) {
		t.Fatalf("fixed dictionary: n=%d bits=%d data=%v, want 5 32 %v", out.n, out.bits, out.data, want)
	}
	strs := &block{n: 3, variable: true, offsets: []uint64{0, 1, 3, 6}, data: []byte("abbccc")}
	out, err = applyDictionary([]*block{idx8, idx16}, strs)
	if err != nil {
		t.Fatal(err)
	}
	if out.n != 5 || string(out.data) != "cccabbbbccc" || out.offsets[5] != uint64(len(out.data)) || out.offsets[1] != 3 || out.offsets[4] != 8 {
		t.Fatalf("variable dictionary: n=%d data=%q offsets=%v", out.n, out.data, out.offsets)
	}
	bad := &block{n: 1, bits: 8, data: []byte{3}}
	for _, dict := range []*block{fixed, strs} {
		if _, err := applyDictionary([]*block{idx8, bad}, dict); !errors.Is(err, ErrCorrupt) {
			t.Errorf("index 3 of 3 in the second chunk: %v, want ErrCorrupt", err)
		}
	}
}

// TestReadRangeJointChunks reads a lineitem-like file in one range (its
// inline bit-packed columns, dictionary indices included, decoded chunk
// after chunk into one buffer) and every other row as one-row ranges
// (each decoded from its single chunk), and checks that the rows agree.
func TestReadRangeJointChunks(t *testing.T) {
	const n = 6000
	raw := syntheticLineitem(t, n)
	ctx := context.Background()
	r, err := Open(ctx, BytesSource(raw))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int32
	for _, f := range r.Schema().Fields {
		ids = append(ids, f.ID)
	}
	all, err := r.ReadRange(ctx, ids, 0, n)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	var rows []uint64
	for i := uint64(0); i < n; i += 2 {
		rows = append(rows, i)
	}
	even, err := r.Take(ctx, ids, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer even.Release()
	if r.Stats().ChunksDecoded == 0 {
		t.Fatal("no mini-block chunks decoded")
	}
	for j := range ids {
		a, e := all.Column(j), even.Column(j)
		for i, row := range rows {
			if !array.SliceEqual(a, int64(row), int64(row)+1, e, int64(i), int64(i)+1) {
				t.Fatalf("column %s row %d: %v in the whole range, %v as a one-row range",
					all.ColumnName(j), row, a.ValueStr(int(row)), e.ValueStr(i))
			}
		}
	}
}
