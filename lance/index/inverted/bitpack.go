package inverted

import "encoding/binary"

// blockSize is the number of postings in one compressed block (the
// bitpacking crate's BitPacker4x::BLOCK_LEN); the reference writes it
// into no file: it is fixed by its format.
const blockSize = 128

// unpack4x decodes one BitPacker4x block of 128 values of nbits bits each
// from src into out and returns the bytes it used (16*nbits). The layout
// is the SIMD one: four interleaved 32-bit lanes, lane l holding values l,
// l+4, l+8, ... packed from the low bits up, its k-th word at u32 index
// 4k+l.
func unpack4x(src []byte, nbits int, out *[blockSize]uint32) (int, bool) {
	n := 16 * nbits
	if nbits < 0 || nbits > 32 || len(src) < n {
		return 0, false
	}
	if nbits == 0 {
		*out = [blockSize]uint32{}
		return 0, true
	}
	mask := uint64(1)<<uint(nbits) - 1
	for lane := 0; lane < 4; lane++ {
		for j := 0; j < 32; j++ {
			bit := j * nbits
			w, sh := bit/32, uint(bit%32)
			lo := uint64(binary.LittleEndian.Uint32(src[4*(4*w+lane):]))
			v := lo >> sh
			if int(sh)+nbits > 32 {
				hi := uint64(binary.LittleEndian.Uint32(src[4*(4*(w+1)+lane):]))
				v |= hi << (32 - sh)
			}
			out[4*j+lane] = uint32(v & mask)
		}
	}
	return n, true
}

// unpackSorted decodes a delta-coded sorted block: [initial u32][nbits u8]
// [packed deltas]; value i is initial plus the deltas 0..i.
func unpackSorted(src []byte, out *[blockSize]uint32) (int, bool) {
	if len(src) < 5 {
		return 0, false
	}
	initial := binary.LittleEndian.Uint32(src)
	n, ok := unpack4x(src[5:], int(src[4]), out)
	if !ok {
		return 0, false
	}
	acc := initial
	for i := range out {
		acc += out[i]
		out[i] = acc
	}
	return 5 + n, true
}

// pack4x is the inverse of unpack4x: it appends the 16*nbits bytes of
// values packed with nbits bits each.
func pack4x(dst []byte, vals *[blockSize]uint32, nbits int) []byte {
	if nbits == 0 {
		return dst
	}
	start := len(dst)
	dst = append(dst, make([]byte, 16*nbits)...)
	words := dst[start:]
	for lane := 0; lane < 4; lane++ {
		for j := 0; j < 32; j++ {
			v := uint64(vals[4*j+lane])
			bit := j * nbits
			w, sh := bit/32, uint(bit%32)
			p := words[4*(4*w+lane):]
			binary.LittleEndian.PutUint32(p, binary.LittleEndian.Uint32(p)|uint32(v<<sh))
			if int(sh)+nbits > 32 {
				q := words[4*(4*(w+1)+lane):]
				binary.LittleEndian.PutUint32(q, binary.LittleEndian.Uint32(q)|uint32(v>>(32-sh)))
			}
		}
	}
	return dst
}

// bitsFor is the number of bits of the largest value (0 for all zeros).
func bitsFor(vals []uint32) int {
	var m uint32
	for _, v := range vals {
		m |= v
	}
	n := 0
	for m != 0 {
		n++
		m >>= 1
	}
	return n
}
