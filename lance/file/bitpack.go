package lancefile

import (
	"encoding/binary"

	"github.com/lancecat/lancecat/lance/file/internal/codec"
	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

// flChunk is the number of values of one FastLanes chunk (codec has the
// layout).
const flChunk = codec.FastLanesChunk

// unpackFastLanes decodes one 1024-value chunk of width w from packed (words
// of t bits, little endian) into out.
func unpackFastLanes(t, w uint64, packed []byte, out *[flChunk]uint64) {
	codec.UnpackFastLanes(t, w, packed, out[:])
}

// unpackFastLanesN decodes the first n values of such a chunk into out[:n].
func unpackFastLanesN(t, w uint64, packed []byte, out *[flChunk]uint64, n uint64) {
	codec.UnpackFastLanesN(t, w, packed, out[:], n)
}

func putUint(dst []byte, bits uint64, i uint64, v uint64) {
	switch bits {
	case 8:
		dst[i] = byte(v)
	case 16:
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
	case 32:
		binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
	case 64:
		binary.LittleEndian.PutUint64(dst[8*i:], v)
	}
}

// putUints stores vals as t-bit little-endian values from index i of dst
// (one loop per width: this runs for every bit-packed value read).
func putUints(dst []byte, t, i uint64, vals []uint64) {
	switch t {
	case 8:
		d := dst[i : i+uint64(len(vals))]
		for j, v := range vals {
			d[j] = byte(v)
		}
	case 16:
		d := dst[2*i : 2*(i+uint64(len(vals)))]
		for j, v := range vals {
			binary.LittleEndian.PutUint16(d[2*j:], uint16(v))
		}
	case 32:
		d := dst[4*i : 4*(i+uint64(len(vals)))]
		for j, v := range vals {
			binary.LittleEndian.PutUint32(d[4*j:], uint32(v))
		}
	case 64:
		d := dst[8*i : 8*(i+uint64(len(vals)))]
		for j, v := range vals {
			binary.LittleEndian.PutUint64(d[8*j:], v)
		}
	}
}

// decodeInlineBitpacking decodes n values of t bits from chunks of
// [bit width as one t-bit word][1024*w/t packed words].
func decodeInlineBitpacking(t uint64, buf []byte, n uint64) (*block, error) {
	if t != 8 && t != 16 && t != 32 && t != 64 {
		return nil, corruptf("inline bitpacking of %d-bit values", t)
	}
	bytesPer := t / 8
	if n > maxItems || (n+flChunk-1)/flChunk*bytesPer > uint64(len(buf)) {
		return nil, corruptf("inline bitpacking: %d values in %d bytes", n, len(buf))
	}
	out := make([]byte, n*bytesPer)
	if err := unpackInlineBitpacking(t, buf, n, out); err != nil {
		return nil, err
	}
	return &block{n: n, bits: t, data: out}, nil
}

// unpackInlineBitpacking decodes n t-bit values of inline bitpacking from
// buf into out (n*t/8 bytes), so a caller can decode several mini-block
// chunks into one buffer. t and n are checked by the caller.
func unpackInlineBitpacking(t uint64, buf []byte, n uint64, out []byte) error {
	bytesPer := t / 8
	if uint64(len(out)) != n*bytesPer {
		return corruptf("inline bitpacking: %d values into %d bytes", n, len(out))
	}
	var tmp [flChunk]uint64
	var done uint64
	for done < n {
		if uint64(len(buf)) < bytesPer {
			return corruptf("inline bitpacking: truncated chunk header")
		}
		w := uintAt(buf, t, 0)
		if w > t {
			return corruptf("inline bitpacking: width %d > %d", w, t)
		}
		size := flChunk * w / 8
		buf = buf[bytesPer:]
		if uint64(len(buf)) < size {
			return corruptf("inline bitpacking: chunk needs %d bytes, has %d", size, len(buf))
		}
		m := min(n-done, flChunk)
		unpackFastLanesN(t, w, buf[:size], &tmp, m)
		buf = buf[size:]
		putUints(out, t, done, tmp[:m])
		done += m
	}
	return nil
}

// decodeOutOfLineBitpacking decodes n t-bit values packed at width w in
// 1024-value chunks; the tail is either packed (padded) or stored raw.
func decodeOutOfLineBitpacking(t, w uint64, buf []byte, n uint64) (*block, error) {
	if t != 8 && t != 16 && t != 32 && t != 64 || w > t {
		return nil, corruptf("out-of-line bitpacking %d of %d bits", w, t)
	}
	bytesPer := t / 8
	wordsPerChunk := (flChunk*w + t - 1) / t
	whole := n / flChunk
	tail := n % flChunk
	words := uint64(len(buf)) / bytesPer
	if n > maxItems || whole*wordsPerChunk > words {
		return nil, corruptf("out-of-line bitpacking: %d values in %d bytes", n, len(buf))
	}
	tailRaw := tail > 0 && words == whole*wordsPerChunk+tail
	if tail > 0 && !tailRaw && words < (whole+1)*wordsPerChunk {
		return nil, corruptf("out-of-line bitpacking: %d values in %d bytes", n, len(buf))
	}
	out := make([]byte, n*bytesPer)
	var tmp [flChunk]uint64
	for c := uint64(0); c < whole; c++ {
		unpackFastLanes(t, w, buf[c*wordsPerChunk*bytesPer:(c+1)*wordsPerChunk*bytesPer], &tmp)
		for i := uint64(0); i < flChunk; i++ {
			putUint(out, t, c*flChunk+i, tmp[i])
		}
	}
	if tail > 0 {
		start := whole * wordsPerChunk * bytesPer
		if tailRaw {
			copy(out[whole*flChunk*bytesPer:], buf[start:start+tail*bytesPer])
		} else {
			unpackFastLanesN(t, w, buf[start:start+wordsPerChunk*bytesPer], &tmp, tail)
			for i := uint64(0); i < tail; i++ {
				putUint(out, t, whole*flChunk+i, tmp[i])
			}
		}
	}
	return &block{n: n, bits: t, data: out}, nil
}

// decodeInlineBitpackingInto decodes a mini-block chunk of n inline
// bit-packed t-bit values (bufs, as decodeMiniBlock takes them) into out,
// which holds exactly n values: readMini decodes a range's chunks
// side by side into one buffer instead of one buffer per chunk that it then
// concatenated.
func decodeInlineBitpackingInto(e *enc21pb.InlineBitpacking, bufs [][]byte, n uint64, out []byte) (*block, error) {
	if len(bufs) != 1 || e.Values != nil {
		return nil, unsupportedf("inline bitpacking with %d buffers / buffer compression", len(bufs))
	}
	t := e.UncompressedBitsPerValue
	if t != 8 && t != 16 && t != 32 && t != 64 {
		return nil, corruptf("inline bitpacking of %d-bit values", t)
	}
	if n > maxItems || (n+flChunk-1)/flChunk*(t/8) > uint64(len(bufs[0])) {
		return nil, corruptf("inline bitpacking: %d values in %d bytes", n, len(bufs[0]))
	}
	if err := unpackInlineBitpacking(t, bufs[0], n, out); err != nil {
		return nil, err
	}
	return &block{n: n, bits: t, data: out}, nil
}
