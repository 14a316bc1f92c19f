package dataset

import (
	"os"
	"runtime"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// arrowDeletionSeed is an Arrow deletion file as lancecat writes it (zstd
// buffers) for offsets 0, 5, 17, ... of a 4,000-row fragment.
func arrowDeletionSeed(t testing.TB) []byte {
	bm := roaring.New()
	for i := uint32(0); i < 200; i++ {
		bm.Add(i * 17 % 4000)
	}
	typ, b, err := encodeDeletionVector(bm)
	if err != nil || typ != DeletionArrow {
		t.Fatalf("encode: %v %v", typ, err)
	}
	return b
}

// TestHostileArrowDeletionFile: issue 19 finding 2. Eight 0xff bytes
// anywhere in a deletion file (a compressed buffer's uncompressed size
// among them) made arrow-go allocate hundreds of GB, a fatal runtime
// error. Every variant now decodes or fails with an error, and no decode
// allocates more than the file's budget.
func TestHostileArrowDeletionFile(t *testing.T) {
	seed := arrowDeletionSeed(t)
	if bm, err := decodeArrowDeletions(seed, 4000); err != nil || bm.GetCardinality() != 200 {
		t.Fatalf("the seed itself: %v", err)
	}
	// The peer's (uncompressed) deletion file decodes too.
	peerFile, err := os.ReadFile("../../conformance/testdata/fixtures/deleted-rows/_deletions/0-1-6181292907670150783.arrow")
	if err != nil {
		t.Fatal(err)
	}
	if bm, err := decodeArrowDeletions(peerFile, 1<<32); err != nil || bm.IsEmpty() {
		t.Fatalf("the peer's deletion file: %v %v", bm, err)
	}
	var ms runtime.MemStats
	overBudget := 0
	for off := 0; off < len(seed); off++ {
		for _, mut := range []func([]byte){
			func(b []byte) { copy(b[off:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) },
			func(b []byte) { copy(b[off:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}) },
			func(b []byte) { b[off] ^= 0x40 },
		} {
			b := append([]byte(nil), seed...)
			mut(b)
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			_, err := decodeArrowDeletions(b, 4000)
			runtime.ReadMemStats(&ms)
			if grew := ms.TotalAlloc - before; grew > 64<<20 {
				t.Fatalf("offset %d: decoding allocated %d bytes", off, grew)
			}
			if err != nil {
				overBudget++
			}
		}
	}
	if overBudget == 0 {
		t.Errorf("no variant was refused: the test no longer covers hostile bytes")
	}
	t.Logf("%d variants of %d bytes, %d refused", 3*len(seed), len(seed), overBudget)
}

// FuzzDecodeDeletionFile feeds arbitrary bytes to both deletion-file
// decoders: they return offsets or an error, never panic or allocate
// beyond the file's budget.
func FuzzDecodeDeletionFile(f *testing.F) {
	f.Add(arrowDeletionSeed(f))
	if b, err := os.ReadFile("../../conformance/testdata/fixtures/deleted-rows/_deletions/0-1-6181292907670150783.arrow"); err == nil {
		f.Add(b)
	}
	bm := roaring.BitmapOf(1, 2, 3, 70000)
	if b, err := bm.ToBytes(); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if bm, err := decodeArrowDeletions(b, 1<<20); err == nil && bm == nil {
			t.Fatal("nil offsets without error")
		}
		if bm, err := decodeRoaring(b); err == nil {
			_ = bm.GetCardinality()
			it := bm.Iterator()
			for i := 0; i < 1000 && it.HasNext(); i++ {
				it.Next()
			}
		}
	})
}
