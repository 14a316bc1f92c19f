package lancefile

// Value and level compression for the 2.1 writer, chosen per page the way
// Lance's default compression strategy chooses (rust/lance-encoding,
// compression.rs and the primitive structural encoder):
//
//   - fixed-width mini-block values of 8/16/32/64 bits: RLE when the page has
//     long runs (estimated pairs of value + u8 run length beat the raw bytes
//     and the bit-packed estimate), else inline FastLanes bit-packing when the
//     per-1024-value bit widths make it smaller than the raw bytes, else flat;
//   - variable-width and 128-bit values: a dictionary when the page has few
//     distinct values (its indices then go through the fixed-width choice
//     above), else variable-width values get the compression of each chunk
//     chosen in chooseVariableChunks;
//   - rep/def levels of mini-block chunks: one block compressor chosen from
//     the whole page's levels (inline bit-packing up to 1024 levels,
//     out-of-line bit-packing at the page's widest width beyond, flat when
//     some 1024 levels are all zero), applied to each chunk's levels.

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"

	"github.com/lancecat/lancecat/lance/file/internal/codec"
	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

const (
	// dictMinValues: pages with fewer values are never dictionary encoded.
	dictMinValues = 100
	// dictDivisor and dictMaxCardinality bound the distinct values a
	// dictionary may hold: fewer than min(values/2, 100000).
	dictDivisor        = 2
	dictMaxCardinality = 100000
	// dictSizeRatio: the dictionary-encoded estimate must stay below this
	// share of the plain bytes.
	dictSizeRatio = 0.8
	// rleMaxChunkValues caps an RLE chunk at the mini-block maximum.
	rleMaxChunkValues = miniBlockMaxValues
	// rleMaxChunkBytes bounds the values + run lengths of one RLE chunk.
	rleMaxChunkBytes = miniBlockFlatTarget
)

type fixedCompression int

const (
	fixedFlat fixedCompression = iota
	fixedBitpack
	fixedRLE
)

func (c fixedCompression) String() string {
	switch c {
	case fixedBitpack:
		return "inline_bitpacking"
	case fixedRLE:
		return "rle"
	}
	return "flat"
}

// loadUints reads the len(dst) w-byte values of data from value start on
// into dst and returns their OR. One loop per width: a profile of a
// 2,000,000-row load spent a tenth of the writer's time deciding the
// width once per value.
func loadUints(dst []uint64, data []byte, w, start int) uint64 {
	var or uint64
	switch w {
	case 1:
		for i, b := range data[start : start+len(dst)] {
			dst[i] = uint64(b)
			or |= dst[i]
		}
	case 2:
		src := data[2*start : 2*(start+len(dst))]
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint16(src[2*i:]))
			or |= dst[i]
		}
	case 4:
		src := data[4*start : 4*(start+len(dst))]
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint32(src[4*i:]))
			or |= dst[i]
		}
	default:
		src := data[8*start : 8*(start+len(dst))]
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint64(src[8*i:])
			or |= dst[i]
		}
	}
	return or
}

// chunkWidths returns, for every 1024 values of data (n values of w bytes),
// the bits needed by the widest value (values read as unsigned, so a
// negative integer needs all bits), the statistic bit-packing is sized by.
func chunkWidths(data []byte, w, n int) []int {
	out := make([]int, 0, (n+codec.FastLanesChunk-1)/codec.FastLanesChunk)
	var vals [codec.FastLanesChunk]uint64
	for s := 0; s < n; s += codec.FastLanesChunk {
		e := min(n, s+codec.FastLanesChunk)
		out = append(out, bits.Len64(loadUints(vals[:e-s], data, w, s)))
	}
	return out
}

// runCount is the number of runs of equal values in data (n values of w
// bytes, w one of 1, 2, 4, 8), compared as integers a chunk at a time.
func runCount(data []byte, w, n int) int {
	if n == 0 {
		return 0
	}
	var vals [codec.FastLanesChunk]uint64
	loadUints(vals[:1], data, w, 0)
	runs, prev := 1, vals[0]
	for s := 0; s < n; s += len(vals) {
		m := min(n-s, len(vals))
		loadUints(vals[:m], data, w, s)
		for _, v := range vals[:m] {
			if v != prev {
				runs++
			}
			prev = v
		}
	}
	return runs
}

// inlineBitpackBytes estimates inline bit-packing: every 1024 values cost
// one header word plus 1024*width bits. ok is false when that is not
// smaller than the raw values.
func inlineBitpackBytes(widths []int, bitsPer, n int) (size int, ok bool) {
	words := 0
	for _, w := range widths {
		words += 1 + codec.FastLanesChunk*w/bitsPer
	}
	size = words * bitsPer / 8
	return size, size < n*bitsPer/8
}

// chooseFixed picks the mini-block compression of a page of n fixed-width
// values of bitsPer bits.
func chooseFixed(data []byte, bitsPer, n int) fixedCompression {
	if n == 0 || bitsPer != 8 && bitsPer != 16 && bitsPer != 32 && bitsPer != 64 {
		return fixedFlat
	}
	w := bitsPer / 8
	raw := n * w
	bp, bpOK := inlineBitpackBytes(chunkWidths(data, w, n), bitsPer, n)
	// RLE stores a value and a u8 length per run; runs over 255 split, which
	// the estimate allows for with one extra pair per 255 values.
	pairs := min(runCount(data, w, n)+n/255, n)
	if rle := pairs * (w + 1); rle < raw {
		if bpOK && bp < rle {
			return fixedBitpack
		}
		return fixedRLE
	}
	if bpOK {
		return fixedBitpack
	}
	return fixedFlat
}

func inlineBitpackingEncoding(bitsPer int) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_InlineBitpacking{
		InlineBitpacking: &enc21pb.InlineBitpacking{UncompressedBitsPerValue: uint64(bitsPer)},
	}}
}

func outOfLineBitpackingEncoding(bitsPer, width int) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_OutOfLineBitpacking{
		OutOfLineBitpacking: &enc21pb.OutOfLineBitpacking{UncompressedBitsPerValue: uint64(bitsPer), Values: flatEncoding(uint64(width))},
	}}
}

func rleEncoding(bitsPer int) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Rle{
		Rle: &enc21pb.Rle{Values: flatEncoding(uint64(bitsPer)), RunLengths: flatEncoding(8)},
	}}
}

// appendInlineChunk bit-packs up to 1024 values (padded with zeros) as one
// inline chunk: the width as one value-sized word, then the packed words.
func appendInlineChunk(dst []byte, data []byte, w, start, n int) []byte {
	var vals [codec.FastLanesChunk]uint64
	width := bits.Len64(loadUints(vals[:n], data, w, start))
	switch w {
	case 1:
		dst = append(dst, byte(width))
	case 2:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(width))
	case 4:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(width))
	default:
		dst = binary.LittleEndian.AppendUint64(dst, uint64(width))
	}
	return codec.PackFastLanes(dst, uint64(w*8), uint64(width), vals[:])
}

// bitpackChunks cuts a page's values into inline bit-packed mini-block
// chunks of 1024 values each.
func bitpackChunks(data []byte, bitsPer, total int) []valueChunk {
	w := bitsPer / 8
	var chunks []valueChunk
	for start := 0; start < total; start += codec.FastLanesChunk {
		n := min(codec.FastLanesChunk, total-start)
		chunks = append(chunks, valueChunk{numValues: n, buffers: [][]byte{appendInlineChunk(nil, data, w, start, n)}})
	}
	return chunks
}

// rleRuns appends the runs of values [start, start+n) to vals and lens,
// splitting runs longer than 255.
func rleRuns(vals, lens []byte, data []byte, w, start, n int) ([]byte, []byte) {
	i := start
	end := start + n
	for i < end {
		j := i + 1
		for j < end && j-i < 255 && string(data[j*w:(j+1)*w]) == string(data[i*w:(i+1)*w]) {
			j++
		}
		vals = append(vals, data[i*w:(i+1)*w]...)
		lens = append(lens, byte(j-i))
		i = j
	}
	return vals, lens
}

// rleSize is the bytes of values + lengths RLE needs for [start, start+n).
func rleSize(data []byte, w, start, n int) int {
	pairs := 0
	i, end := start, start+n
	for i < end {
		j := i + 1
		for j < end && j-i < 255 && string(data[j*w:(j+1)*w]) == string(data[i*w:(i+1)*w]) {
			j++
		}
		pairs++
		i = j
	}
	return pairs * (w + 1)
}

// rleChunks cuts a page's values into RLE mini-block chunks: the rest of
// the page when it fits, else the largest power of two of values whose runs
// fit a chunk.
func rleChunks(data []byte, bitsPer, total, maxPer int) []valueChunk {
	w := bitsPer / 8
	maxPer = min(maxPer, rleMaxChunkValues)
	var chunks []valueChunk
	for start := 0; start < total; {
		remaining := total - start
		n := remaining
		if remaining > maxPer || rleSize(data, w, start, remaining) > rleMaxChunkBytes {
			n = 1 << (bits.Len(uint(min(remaining, maxPer))) - 1)
			for n > 2 && rleSize(data, w, start, n) > rleMaxChunkBytes {
				n /= 2
			}
		}
		vals, lens := rleRuns(nil, nil, data, w, start, n)
		chunks = append(chunks, valueChunk{numValues: n, buffers: [][]byte{vals, lens}})
		start += n
	}
	return chunks
}

// ---------------------------------------------------------------- levels

// levelCodec is how the rep or def levels of every chunk of a page are
// compressed.
type levelCodec struct {
	kind  fixedCompression // fixedFlat or fixedBitpack
	width int              // > 0: out-of-line bit-packing at this width
}

// chooseLevels picks the block compression of a page's levels, as Lance's
// block compressor does for u16 data: no bit-packing when some 1024 levels
// are all zero or a lone short chunk would not shrink; inline bit-packing
// for at most 1024 levels, out-of-line at the widest width beyond.
func chooseLevels(levels []uint16) levelCodec {
	if len(levels) == 0 {
		return levelCodec{}
	}
	maxW := 0
	nChunks := 0
	for s := 0; s < len(levels); s += codec.FastLanesChunk {
		var or uint16
		for _, v := range levels[s:min(len(levels), s+codec.FastLanesChunk)] {
			or |= v
		}
		w := bits.Len16(or)
		if w == 0 {
			return levelCodec{}
		}
		maxW = max(maxW, w)
		nChunks++
	}
	if nChunks == 1 && codec.FastLanesChunk*maxW/8 >= 2*len(levels) {
		return levelCodec{}
	}
	if len(levels) <= codec.FastLanesChunk {
		return levelCodec{kind: fixedBitpack}
	}
	return levelCodec{kind: fixedBitpack, width: maxW}
}

func (lc levelCodec) encoding() *enc21pb.CompressiveEncoding {
	switch {
	case lc.kind == fixedFlat:
		return flatEncoding(16)
	case lc.width == 0:
		return inlineBitpackingEncoding(16)
	}
	return outOfLineBitpackingEncoding(16, lc.width)
}

// encode compresses the levels of one chunk.
func (lc levelCodec) encode(levels []uint16) []byte {
	if lc.kind == fixedFlat || len(levels) == 0 {
		return u16Bytes(levels)
	}
	raw := u16Bytes(levels)
	if lc.width == 0 {
		var out []byte
		for s := 0; s < len(levels); s += codec.FastLanesChunk {
			out = appendInlineChunk(out, raw, 2, s, min(codec.FastLanesChunk, len(levels)-s))
		}
		return out
	}
	// Out-of-line: whole 1024-level chunks packed at the fixed width; the
	// tail is packed (zero padded) only when padding costs fewer bits than
	// packing saves, else stored raw (readers tell the two apart by size).
	var out []byte
	var vals [codec.FastLanesChunk]uint64
	whole := len(levels) / codec.FastLanesChunk
	for c := 0; c < whole; c++ {
		for i := range vals {
			vals[i] = uint64(levels[c*codec.FastLanesChunk+i])
		}
		out = codec.PackFastLanes(out, 16, uint64(lc.width), vals[:])
	}
	tail := levels[whole*codec.FastLanesChunk:]
	if len(tail) == 0 {
		return out
	}
	padCost := lc.width * (codec.FastLanesChunk - len(tail))
	saving := (16 - lc.width) * len(tail)
	if padCost < saving {
		vals = [codec.FastLanesChunk]uint64{}
		for i, v := range tail {
			vals[i] = uint64(v)
		}
		return codec.PackFastLanes(out, 16, uint64(lc.width), vals[:])
	}
	return append(out, u16Bytes(tail)...)
}

// ---------------------------------------------------------------- dictionary

// pageDictionary is a dictionary-encoded page: the distinct values in
// first-seen order and one index per value slot.
type pageDictionary struct {
	fixedBits int      // > 0: fixed-width values of this many bits, in data
	offsets   []uint64 // variable width: len(distinct)+1
	data      []byte
	card      int
	indices   []byte // little-endian, 4 bytes (8 with 64-bit offsets) each
}

// dictionaryFits applies Lance's dictionary rules to a page of n values
// with card distinct ones: at least dictMinValues values, fewer distinct
// ones than min(n/dictDivisor, dictMaxCardinality), and an estimated encoded
// size (distinct values with their offsets, plus an i32 index per value)
// below dictSizeRatio of the plain size (values with their offsets). The
// estimate keeps 1-byte strings plain, as the reference does.
func dictionaryFits(n, card, dictBytes, plainBytes int) bool {
	if card >= min(n/dictDivisor, dictMaxCardinality) {
		return false
	}
	return float64(dictBytes+4*n) < dictSizeRatio*float64(plainBytes)
}

// tryDictionary dictionary-encodes a variable-width page when
// dictionaryFits says so. Null slots are empty values and take part like
// any other.
func tryDictionary(leaf *leafSpec, acc *leafAccum) *pageDictionary {
	n := acc.numValues
	if n < dictMinValues {
		return nil
	}
	limit := min(n/dictDivisor, dictMaxCardinality)
	ow := 4
	if leaf.largeOffsets {
		ow = 8
	}
	d := &pageDictionary{offsets: []uint64{0}, indices: make([]byte, 0, n*ow)}
	seen := newValueSet(d)
	off := acc.offsets
	for i := 0; i < n; i++ {
		v := acc.data[off[i]:off[i+1]]
		k, ok := seen.find(v)
		if !ok {
			if len(d.offsets) >= limit { // k would be len(d.offsets)-1
				return nil
			}
			k = seen.add(v)
		}
		if ow == 4 {
			d.indices = binary.LittleEndian.AppendUint32(d.indices, uint32(k))
		} else {
			d.indices = binary.LittleEndian.AppendUint64(d.indices, k)
		}
	}
	d.card = len(d.offsets) - 1
	if !dictionaryFits(n, d.card, len(d.data)+ow*(d.card+1), len(acc.data)+ow*(n+1)) {
		return nil
	}
	return d
}

// valueSet finds the distinct values of a dictionary being built: an
// open-addressing table of their indices, the values themselves being
// the dictionary's data. A Go map keyed by string copied each distinct
// value into a string of its own and spent an eighth of a 10,000,000-row
// load's CPU in its lookups; here a lookup hashes the value once and
// compares bytes only on an equal hash.
type valueSet struct {
	d      *pageDictionary
	slots  []uint32 // index + 1 of the value whose hash lands there; 0: empty
	hashes []uint64 // per dictionary index: its value's hash
	seed   maphash.Seed
	last   int // the slot find stopped at: add fills it
	lastH  uint64
}

func newValueSet(d *pageDictionary) *valueSet {
	return &valueSet{d: d, slots: make([]uint32, 256), seed: maphash.MakeSeed()}
}

// find returns v's index in the dictionary.
func (s *valueSet) find(v []byte) (uint64, bool) {
	h := maphash.Bytes(s.seed, v)
	mask := uint64(len(s.slots) - 1)
	i := h & mask
	for {
		e := s.slots[i]
		if e == 0 {
			s.last, s.lastH = int(i), h
			return 0, false
		}
		k := uint64(e - 1)
		if s.hashes[k] == h && string(s.d.data[s.d.offsets[k]:s.d.offsets[k+1]]) == string(v) {
			return k, true
		}
		i = (i + 1) & mask
	}
}

// add appends v, which the last find did not find, to the dictionary and
// returns its index.
func (s *valueSet) add(v []byte) uint64 {
	d := s.d
	k := uint64(len(d.offsets) - 1)
	d.data = append(d.data, v...)
	d.offsets = append(d.offsets, uint64(len(d.data)))
	s.hashes = append(s.hashes, s.lastH)
	s.slots[s.last] = uint32(k + 1)
	if 4*len(s.hashes) >= 3*len(s.slots) { // over 3/4 full: double
		s.slots = make([]uint32, 2*len(s.slots))
		mask := uint64(len(s.slots) - 1)
		for j, h := range s.hashes {
			i := h & mask
			for s.slots[i] != 0 {
				i = (i + 1) & mask
			}
			s.slots[i] = uint32(j + 1)
		}
	}
	return k
}

// tryFixedDictionary dictionary-encodes a page of 128-bit values (decimals)
// under the same rules; the reference dictionary-encodes no narrower
// fixed-width values (it bit-packs them).
func tryFixedDictionary(leaf *leafSpec, acc *leafAccum) *pageDictionary {
	n := acc.numValues
	if leaf.bitsPerValue != 128 || n < dictMinValues {
		return nil
	}
	limit := min(n/dictDivisor, dictMaxCardinality)
	seen := make(map[[16]byte]uint32, 64)
	d := &pageDictionary{fixedBits: 128, indices: make([]byte, 0, n*4)}
	for i := 0; i < n; i++ {
		v := [16]byte(acc.fixed[16*i : 16*i+16])
		k, ok := seen[v]
		if !ok {
			k = uint32(len(seen))
			if int(k)+1 >= limit {
				return nil
			}
			seen[v] = k
			d.data = append(d.data, v[:]...)
		}
		d.indices = binary.LittleEndian.AppendUint32(d.indices, k)
	}
	d.card = len(seen)
	if !dictionaryFits(n, d.card, len(d.data), len(acc.fixed)) {
		return nil
	}
	return d
}

// block encodes the dictionary values as a variable block: the offset
// width and the start of the data (4 bytes each for 32-bit offsets, 8 for
// 64-bit), the offsets, then the data.
func (d *pageDictionary) block(large bool) []byte {
	if d.fixedBits > 0 {
		return d.data
	}
	ow := 4
	if large {
		ow = 8
	}
	start := 2*ow + ow*len(d.offsets)
	out := make([]byte, 0, start+len(d.data))
	if ow == 4 {
		out = binary.LittleEndian.AppendUint32(out, 32)
		out = binary.LittleEndian.AppendUint32(out, uint32(start))
		for _, o := range d.offsets {
			out = binary.LittleEndian.AppendUint32(out, uint32(o))
		}
	} else {
		out = binary.LittleEndian.AppendUint64(out, 64)
		out = binary.LittleEndian.AppendUint64(out, uint64(start))
		for _, o := range d.offsets {
			out = binary.LittleEndian.AppendUint64(out, o)
		}
	}
	return append(out, d.data...)
}

// encodeDictionaryPage writes a page as dictionary indices
// in a mini-block layout, the dictionary in the page's third buffer.
func encodeDictionaryPage(leaf *leafSpec, acc *leafAccum, pl *pageLevels, d *pageDictionary) (encodedPage, error) {
	idxBits := 32
	if leaf.largeOffsets && d.fixedBits == 0 {
		idxBits = 64
	}
	idxLeaf := *leaf
	idxLeaf.kind, idxLeaf.bitsPerValue, idxLeaf.largeOffsets = valuesFixed, idxBits, false
	idxAcc := *acc
	idxAcc.fixed, idxAcc.offsets, idxAcc.data = d.indices, nil, nil
	p, err := encodeMiniBlock(&idxLeaf, &idxAcc, pl)
	if err != nil {
		return p, err
	}
	mb := p.layout.GetMiniBlockLayout()
	if d.fixedBits > 0 {
		mb.Dictionary = flatEncoding(uint64(d.fixedBits))
	} else {
		mb.Dictionary = variableEncoding(uint64(idxBits))
	}
	mb.NumDictionaryItems = uint64(d.card)
	// Buffers: chunk metadata, chunk data, dictionary, [repetition index].
	bufs := append([][]byte{}, p.buffers[:2]...)
	bufs = append(bufs, d.block(leaf.largeOffsets))
	p.buffers = append(bufs, p.buffers[2:]...)
	return p, nil
}
