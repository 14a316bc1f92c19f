package inverted

import (
	"encoding/binary"
	"testing"
)

// seedFST is a hand-assembled buffer in the fst crate's layout (header,
// an AnyTrans and a OneTrans node, footer) to start the fuzzer near real
// node encodings; the peer's real fsts are decoded by the peer tests.
func seedFST() []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, 3)
	// node for "" final at address 0 (EMPTY_ADDRESS) needs no bytes.
	// node A (after 'a'): final, output 0, one transition 'b' -> EMPTY with output 1.
	// AnyTrans: [trans out (1 byte)] [final out (1 byte)] [delta (1 byte)] [input] [pack sizes] [state]
	nodeA := len(b)
	b = append(b, 0x00 /* final output */, 0x01 /* trans output */, 0x00 /* delta: EMPTY */, 'b', 0x11 /* tsize 1, osize 1 */, 0x40|0x01 /* AnyTrans final, 1 trans */)
	stateA := uint64(len(b) - 1)
	// root: OneTrans 'a' -> nodeA with output 1.
	// [output] [delta] [pack sizes] [input] [state]
	start := uint64(len(b))
	_ = nodeA
	b = append(b, 0x01, byte(start-stateA+4), 0x11, 'a', 0x80)
	root := uint64(len(b) - 1)
	var f [24]byte
	binary.LittleEndian.PutUint64(f[0:], 2)
	binary.LittleEndian.PutUint64(f[8:], root)
	return append(b, f[:]...)
}

// FuzzDecode feeds arbitrary bytes to every decoder of the index files'
// contents: the token fst (lookup and iteration), posting blocks
// (BitPacker4x, sorted and plain), and the deleted-fragments bitmap. None
// may panic or allocate beyond its input.
func FuzzDecode(f *testing.F) {
	f.Add(seedFST(), "ab")
	f.Add([]byte{}, "")
	var blk [blockSize]uint32
	for i := range blk {
		blk[i] = uint32(i * 3)
	}
	f.Add(append([]byte{0, 0, 0, 0, 7}, pack4x(nil, &blk, 7)...), "x")
	f.Add([]byte{0x3a, 0x30, 0, 0, 0, 0, 0, 0}, "")
	f.Fuzz(func(t *testing.T, b []byte, key string) {
		if fm, err := openFST(b); err == nil {
			_, _, _ = fm.get([]byte(key))
			n := 0
			_ = fm.each([]byte(key), func([]byte, uint64) error {
				n++
				if n > 1000 {
					return ErrCorrupt
				}
				return nil
			})
		}
		var out [blockSize]uint32
		_, _ = unpackSorted(b, &out)
		if len(b) > 0 {
			_, _ = unpack4x(b[1:], int(b[0]), &out)
		}
		_, _ = decodeRoaring(b)
	})
}

// TestBitPack4xRoundTrip: pack4x and unpack4x are inverses for every width.
func TestBitPack4xRoundTrip(t *testing.T) {
	for nbits := 0; nbits <= 32; nbits++ {
		var in, out [blockSize]uint32
		for i := range in {
			v := uint64(i*2654435761) & (uint64(1)<<uint(nbits) - 1)
			in[i] = uint32(v)
		}
		b := pack4x(nil, &in, nbits)
		if len(b) != 16*nbits {
			t.Fatalf("nbits %d: %d bytes", nbits, len(b))
		}
		if _, ok := unpack4x(b, nbits, &out); !ok || out != in {
			t.Fatalf("nbits %d: round trip differs", nbits)
		}
	}
}
