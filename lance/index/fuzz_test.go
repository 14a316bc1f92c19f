package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	lancefile "github.com/lancecat/lancecat/lance/file"
	"github.com/lancecat/lancecat/storage"
)

// peerIndexFiles lists the index files of the committed peer fixtures.
func peerIndexFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{
		"../../conformance/testdata/fixtures/indexed/_indices/*/*.lance",
		"../../conformance/testdata/fixtures/catalog-3/__manifest/_indices/*/*.lance",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatal("no peer index files found")
	}
	return out
}

// peerRowSets returns every serialized row set in the peer's bitmap and
// label-list index files (bitmaps column and label-list null buffers).
func peerRowSets(t testing.TB) [][]byte {
	t.Helper()
	ctx := context.Background()
	var out [][]byte
	for _, p := range peerIndexFiles(t) {
		if filepath.Base(p) != bitmapLookupFile {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := lancefile.Open(ctx, lancefile.BytesSource(data))
		if err != nil {
			t.Fatal(err)
		}
		ids, err := fieldIDs(r.Schema(), bitmapBitmapsColumn)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.ReadRange(ctx, ids, 0, r.NumRows())
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(0).(interface{ Value(int) []byte })
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, bytes.Clone(col.Value(i)))
		}
		rec.Release()
		if v, ok := r.Schema().Metadata[labelListNullsKey]; ok && v == "1" {
			b, err := r.GlobalBuffer(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// TestRowSetRoundTripPeerBytes decodes every row set the peer wrote and
// re-encodes it: the bytes must be identical (same roaring containers, same
// group order), so bitmaps lancecat writes are the ones Lance would write.
func TestRowSetRoundTripPeerBytes(t *testing.T) {
	sets := peerRowSets(t)
	if len(sets) < 10 {
		t.Fatalf("only %d peer row sets", len(sets))
	}
	for i, b := range sets {
		s, err := DecodeRowSet(b)
		if err != nil {
			t.Fatalf("set %d: %v", i, err)
		}
		if n, ok := s.Len(); !ok || n == 0 {
			t.Fatalf("set %d: %d values (known %v)", i, n, ok)
		}
		again, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("set %d: re-encoding differs (%d vs %d bytes)", i, len(again), len(b))
		}
		// Rebuilt value by value, the encoding is still Lance's.
		vals, _ := s.Values()
		rebuilt, _ := NewRowSet(vals...).MarshalBinary()
		if !bytes.Equal(rebuilt, b) {
			t.Fatalf("set %d: encoding of the rebuilt set differs", i)
		}
	}
}

// FuzzIndexFiles loads arbitrary bytes as each index file kind (lookup and
// data pages through the Lance file reader) and searches them: errors are
// fine, panics and runaway allocations are not.
func FuzzIndexFiles(f *testing.F) {
	partners := map[string][]byte{}
	for _, p := range peerIndexFiles(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(p), data)
		if _, ok := partners[filepath.Base(p)]; !ok && filepath.Base(p) != bitmapLookupFile {
			partners[filepath.Base(p)] = data
		}
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if name != btreeLookupFile && name != btreeDataFile && name != bitmapLookupFile {
			return
		}
		ctx := context.Background()
		st, err := storage.Open(ctx, "memory://", storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// Pair the fuzzed file with a valid partner from the fixtures.
		files := map[string][]byte{name: data}
		for b, data := range partners {
			if b != name {
				files[b] = data
			}
		}
		for n, b := range files {
			if err := st.Put(ctx, "ix/"+n, b); err != nil {
				t.Fatal(err)
			}
		}
		sf := newSegmentFiles(st, "ix", nil)
		var seg segmentImpl
		if name == bitmapLookupFile {
			seg, err = loadBitmap(ctx, sf, len(data)%2 == 0)
		} else {
			seg, err = loadBTree(ctx, sf)
		}
		if err != nil {
			return
		}
		for _, q := range []Query{Eq(int64(3)), Eq("a"), IsNull(), Prefix("n"), HasAny("x"), Range(&Bound{Value: int64(0), Inclusive: true}, nil)} {
			_, _ = seg.search(ctx, q)
		}
	})
}
