package lancefile

// Page encoding for the 2.1 structural layouts: mini-block (flat, variable
// and fixed-size-list value compression, 16-bit flat rep/def levels, a
// repetition index when there are lists), full-zip (values wider than a
// mini-block likes, control words zipped with the values) and all-null
// (simple, or with stored rep/def levels).

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/lancecat/lancecat/lance/file/internal/codec"
	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

const (
	// miniBlockMaxChunkBytes: a chunk's size is stored as 12 bits of 8-byte words.
	miniBlockMaxChunkBytes = 32 * 1024
	// miniBlockMaxValues: log2 of the values in a chunk is at most 12.
	miniBlockMaxValues = 4096
	// miniBlockFlatTarget: flat chunks stay under this many value bytes (Lance's rule).
	miniBlockFlatTarget = 8*1024 - 6
	// miniBlockVariableTarget: variable chunks aim at this many bytes (offsets + data).
	miniBlockVariableTarget = 4 * 1024
	// fullZipThreshold: values of this many bytes or more go to the full-zip layout.
	fullZipThreshold = 256
	// miniBlockFill pads chunks (any byte does; Lance uses 0xFE).
	miniBlockFill = 0xFE
)

// encodedPage is one page ready to be written.
type encodedPage struct {
	buffers [][]byte
	layout  *enc21pb.PageLayout
	numRows uint64
}

// pageLevels holds the final (renumbered) levels of a page.
type pageLevels struct {
	rep        []uint16 // nil without lists
	def        []uint16 // nil when every layer is all-valid
	layers     []enc21pb.RepDefLayer
	maxRep     uint16
	maxDef     uint16
	maxVisible uint16 // highest def level that still has a value slot
}

// computeLevels renumbers the raw definition codes of acc into Lance's levels
// and works out the meaning of each layer (innermost first).
func computeLevels(leaf *leafSpec, acc *leafAccum) pageLevels {
	n := leaf.numLayers()
	hasNull := make([]bool, n)
	hasEmpty := make([]bool, n)
	if acc.anyDef {
		for _, c := range acc.def {
			if c == 0 {
				continue
			}
			k := int(c-1) / 2
			if (c-1)%2 == 0 {
				hasNull[k] = true
			} else {
				hasEmpty[k] = true
			}
		}
	}
	pl := pageLevels{maxRep: leaf.maxRep}
	// level[code] for every raw code.
	level := make([]uint16, 2*n+1)
	cur := uint16(1)
	seenList := false
	for k := 0; k < n; k++ {
		li := n - 1 - k
		if leaf.layers[li] == layerList {
			if !seenList {
				pl.maxVisible = cur - 1
				seenList = true
			}
			switch {
			case hasNull[k] && hasEmpty[k]:
				level[1+2*k], level[2+2*k] = cur, cur+1
				cur += 2
				pl.layers = append(pl.layers, enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST)
			case hasNull[k]:
				level[1+2*k] = cur
				cur++
				pl.layers = append(pl.layers, enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST)
			case hasEmpty[k]:
				level[2+2*k] = cur
				cur++
				pl.layers = append(pl.layers, enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST)
			default:
				pl.layers = append(pl.layers, enc21pb.RepDefLayer_REPDEF_ALL_VALID_LIST)
			}
			continue
		}
		if hasNull[k] {
			level[1+2*k] = cur
			cur++
			pl.layers = append(pl.layers, enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM)
		} else {
			pl.layers = append(pl.layers, enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM)
		}
	}
	pl.maxDef = cur - 1
	if !seenList {
		pl.maxVisible = pl.maxDef
	}
	if pl.maxDef > 0 {
		pl.def = make([]uint16, len(acc.def))
		for i, c := range acc.def {
			pl.def[i] = level[c]
		}
	}
	if leaf.maxRep > 0 {
		pl.rep = acc.rep
	}
	return pl
}

func (pl *pageLevels) visible(i int) bool {
	return pl.def == nil || pl.def[i] <= pl.maxVisible
}

func (pl *pageLevels) numItems(acc *leafAccum) int { return len(acc.def) }

func u16Bytes(v []uint16) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], x)
	}
	return out
}

func flatEncoding(bits uint64) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Flat{Flat: &enc21pb.Flat{BitsPerValue: bits}}}
}

func variableEncoding(bitsPerOffset uint64) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Variable{Variable: &enc21pb.Variable{Offsets: flatEncoding(bitsPerOffset)}}}
}

func fslEncoding(dim uint64, hasValidity bool, inner *enc21pb.CompressiveEncoding) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_FixedSizeList{FixedSizeList: &enc21pb.FixedSizeList{ItemsPerValue: dim, HasValidity: hasValidity, Values: inner}}}
}

// encodePage encodes the accumulated page of a leaf.
func encodePage(leaf *leafSpec, acc *leafAccum) (encodedPage, error) {
	pl := computeLevels(leaf, acc)
	if acc.numValues == 0 || acc.nullValues == acc.numValues {
		return encodeAllNull(leaf, acc, &pl), nil
	}
	switch leaf.kind {
	case valuesFixed:
		if d := tryFixedDictionary(leaf, acc); d != nil {
			return encodeDictionaryPage(leaf, acc, &pl, d)
		}
		if leaf.bitsPerValue/8 < fullZipThreshold {
			p, err := encodeMiniBlock(leaf, acc, &pl)
			if err == nil || leaf.bitsPerValue%8 != 0 || !errors.Is(err, errChunkTooLarge) {
				return p, err
			}
		}
		return encodeFullZip(leaf, acc, &pl)
	case valuesFSL:
		if fslRowBytes(leaf, acc) < fullZipThreshold {
			p, err := encodeMiniBlock(leaf, acc, &pl)
			if err == nil || !errors.Is(err, errChunkTooLarge) {
				return p, err
			}
		}
		return encodeFullZip(leaf, acc, &pl)
	case valuesVariable:
		if d := tryDictionary(leaf, acc); d != nil {
			return encodeDictionaryPage(leaf, acc, &pl, d)
		}
		if acc.maxLen < fullZipThreshold {
			p, err := encodeMiniBlock(leaf, acc, &pl)
			if err == nil || !errors.Is(err, errChunkTooLarge) {
				return p, err
			}
		}
		return encodeFullZip(leaf, acc, &pl)
	}
	return encodedPage{}, fmt.Errorf("%w: column %q: no encoding for its values", ErrInvalidArgument, leaf.name)
}

func fslRowBytes(leaf *leafSpec, acc *leafAccum) int {
	n := leaf.bitsPerValue / 8 * leaf.fslDim
	if acc.fslAnyNull {
		n += (leaf.fslDim + 7) / 8
	}
	return n
}

// encodeAllNull writes an all-null page: no buffers when the leaf is a bare
// nullable top-level column, otherwise the rep/def levels as flat u16 buffers.
func encodeAllNull(leaf *leafSpec, acc *leafAccum, pl *pageLevels) encodedPage {
	if leaf.numLayers() == 1 {
		return encodedPage{
			layout: &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_ConstantLayout{ConstantLayout: &enc21pb.ConstantLayout{
				Layers: []enc21pb.RepDefLayer{enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM},
			}}},
			numRows: acc.numRows,
		}
	}
	var rep, def []byte
	if pl.rep != nil {
		rep = u16Bytes(pl.rep)
	}
	if pl.def != nil {
		def = u16Bytes(pl.def)
	}
	return encodedPage{
		buffers: [][]byte{rep, def},
		layout:  &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_ConstantLayout{ConstantLayout: &enc21pb.ConstantLayout{Layers: pl.layers}}},
		numRows: acc.numRows,
	}
}

// ---------------------------------------------------------------- mini-block

var errChunkTooLarge = errors.New("mini-block chunk too large")

// valueChunk is one mini-block chunk's worth of values.
type valueChunk struct {
	numValues int
	buffers   [][]byte
}

// log2Exact returns log2(n) for a power of two.
func log2Exact(n int) uint16 {
	var l uint16
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}

// flatValuesPerChunk follows Lance's rule: the largest power of two of values
// whose bytes stay under miniBlockFlatTarget, at most 4096.
func flatValuesPerChunk(bytesPerWord, valuesPerWord int) int {
	size, num := 2*bytesPerWord, 2
	if valuesPerWord == 8 {
		num = 8
	}
	for 2*size < miniBlockFlatTarget && 2*num <= miniBlockMaxValues {
		size *= 2
		num *= 2
	}
	return num
}

// chunkValues splits the page's values into chunks of at most maxPerChunk values.
func chunkValues(leaf *leafSpec, acc *leafAccum, maxPerChunk int) ([]valueChunk, *enc21pb.CompressiveEncoding) {
	var chunks []valueChunk
	total := acc.numValues
	switch leaf.kind {
	case valuesFixed:
		switch chooseFixed(acc.fixed, leaf.bitsPerValue, total) {
		case fixedBitpack:
			// Inline bit-packed chunks hold 1024 values each; a retry with
			// smaller chunks (levels too large) falls back to flat.
			if maxPerChunk >= codec.FastLanesChunk {
				return bitpackChunks(acc.fixed, leaf.bitsPerValue, total), inlineBitpackingEncoding(leaf.bitsPerValue)
			}
		case fixedRLE:
			return rleChunks(acc.fixed, leaf.bitsPerValue, total, maxPerChunk), rleEncoding(leaf.bitsPerValue)
		}
		per := 0
		if leaf.bitsPerValue == 1 {
			per = flatValuesPerChunk(1, 8)
		} else {
			per = flatValuesPerChunk(leaf.bitsPerValue/8, 1)
		}
		per = min(per, maxPerChunk)
		for start := 0; start < total; start += per {
			n := min(per, total-start)
			var buf []byte
			if leaf.bitsPerValue == 1 {
				buf = bitSlice(acc.fixed, start, n)
			} else {
				w := leaf.bitsPerValue / 8
				buf = acc.fixed[start*w : (start+n)*w]
			}
			chunks = append(chunks, valueChunk{numValues: n, buffers: [][]byte{buf}})
		}
		return chunks, flatEncoding(uint64(leaf.bitsPerValue))
	case valuesFSL:
		itemBytes := leaf.bitsPerValue / 8
		rowData := itemBytes * leaf.fslDim
		est := rowData
		if acc.fslAnyNull {
			est += (leaf.fslDim + 7) / 8
		}
		per := min(flatValuesPerChunk(est, 1), maxPerChunk)
		for start := 0; start < total; start += per {
			n := min(per, total-start)
			var bufs [][]byte
			if acc.fslAnyNull {
				bufs = append(bufs, bitSlice(acc.fslValidity, start*leaf.fslDim, n*leaf.fslDim))
			}
			bufs = append(bufs, acc.fixed[start*rowData:(start+n)*rowData])
			chunks = append(chunks, valueChunk{numValues: n, buffers: bufs})
		}
		return chunks, fslEncoding(uint64(leaf.fslDim), acc.fslAnyNull, flatEncoding(uint64(leaf.bitsPerValue)))
	}
	return chooseVariableChunks(leaf, acc, maxPerChunk)
}

// chooseVariableChunks is where the value compression of the chunks of a
// variable-width (string / binary) page that is not dictionary encoded is
// chosen. Today every chunk is "variable" (offsets + data); an FSST
// encoder plugs in here.
func chooseVariableChunks(leaf *leafSpec, acc *leafAccum, maxPerChunk int) ([]valueChunk, *enc21pb.CompressiveEncoding) {
	return variableChunks(leaf, acc, maxPerChunk)
}

// variableChunks cuts a variable-width page into chunks of offsets + data
// of about miniBlockVariableTarget bytes.
func variableChunks(leaf *leafSpec, acc *leafAccum, maxPerChunk int) ([]valueChunk, *enc21pb.CompressiveEncoding) {
	var chunks []valueChunk
	total := acc.numValues
	ow := 4
	if leaf.largeOffsets {
		ow = 8
	}
	off := acc.offsets
	size := func(start, n int) int { return (n+1)*ow + int(off[start+n]-off[start]) }
	for start := 0; start < total; {
		remaining := total - start
		var n int
		if remaining <= maxPerChunk && size(start, remaining) <= miniBlockVariableTarget {
			n = remaining
		} else {
			n = 1
			for 2*n <= maxPerChunk && 2*n <= remaining && size(start, 2*n) <= miniBlockVariableTarget {
				n *= 2
			}
			if n == 1 && remaining > 1 {
				n = 2 // a non-final chunk holds at least two values
			}
		}
		base := uint64((n + 1) * ow)
		buf := make([]byte, 0, size(start, n)+ow)
		for j := 0; j <= n; j++ {
			o := off[start+j] - off[start] + base
			if ow == 4 {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(o))
			} else {
				buf = binary.LittleEndian.AppendUint64(buf, o)
			}
		}
		buf = append(buf, acc.data[off[start]:off[start+n]]...)
		for len(buf)%ow != 0 {
			buf = append(buf, 72)
		}
		chunks = append(chunks, valueChunk{numValues: n, buffers: [][]byte{buf}})
		start += n
	}
	return chunks, variableEncoding(uint64(ow * 8))
}

// bitSlice copies n bits starting at bit start into a new LSB-first buffer.
func bitSlice(bits []byte, start, n int) []byte {
	out := make([]byte, (n+7)/8)
	if start%8 == 0 {
		copy(out, bits[start/8:])
		if n%8 != 0 {
			out[len(out)-1] &= byte(1<<(n%8)) - 1
		}
		return out
	}
	for i := 0; i < n; i++ {
		b := start + i
		if bits[b/8]&(1<<(b%8)) != 0 {
			out[i/8] |= 1 << (i % 8)
		}
	}
	return out
}

func encodeMiniBlock(leaf *leafSpec, acc *leafAccum, pl *pageLevels) (encodedPage, error) {
	maxPer := miniBlockMaxValues
	minPer := 2
	if leaf.kind == valuesFixed && leaf.bitsPerValue == 1 {
		minPer = 8
	}
	acc, fsst := fsstValues(leaf, acc)
	for {
		p, err := tryMiniBlock(leaf, acc, pl, maxPer)
		if mb := p.layout.GetMiniBlockLayout(); err == nil && mb != nil {
			mb.ValueCompression = fsst.over(mb.ValueCompression)
		}
		if err == nil || !errors.Is(err, errChunkTooLarge) || maxPer/2 < minPer {
			return p, err
		}
		maxPer /= 2
	}
}

func tryMiniBlock(leaf *leafSpec, acc *leafAccum, pl *pageLevels, maxPer int) (encodedPage, error) {
	chunks, valueEnc := chunkValues(leaf, acc, maxPer)
	numItems := pl.numItems(acc)
	hasLevels := pl.rep != nil || pl.def != nil
	var repCodec, defCodec levelCodec
	if pl.rep != nil {
		repCodec = chooseLevels(pl.rep)
	}
	if pl.def != nil {
		defCodec = chooseLevels(pl.def)
	}

	// Size the chunk data once: growing it chunk by chunk copied it over
	// and over (a page holds hundreds of chunks).
	est := 0
	for _, ch := range chunks {
		est += 8 + 2*len(ch.buffers) + 8*len(ch.buffers)
		for _, b := range ch.buffers {
			est += len(b)
		}
	}
	est += 2*(len(pl.rep)+len(pl.def)) + 24*len(chunks)
	data := make([]byte, 0, est)
	metaWord := 2
	if leaf.largeChunks {
		metaWord = 4
	}
	meta := make([]byte, 0, metaWord*len(chunks))
	var repIndex []uint64
	item := 0 // next level to slice
	for ci, ch := range chunks {
		last := ci == len(chunks)-1
		// Slice the levels that belong to this chunk: up to and including its
		// last visible item (trailing invisible items go to the next chunk),
		// everything that is left for the final chunk.
		lo := item
		if hasLevels {
			if last {
				item = numItems
			} else {
				taken := 0
				for taken < ch.numValues {
					if pl.visible(item) {
						taken++
					}
					item++
				}
			}
		}
		hi := item
		if hasLevels && hi-lo > 0xFFFF {
			return encodedPage{}, fmt.Errorf("%w: %d levels", errChunkTooLarge, hi-lo)
		}
		if pl.rep != nil {
			repIndex = appendRepIndex(repIndex, pl.rep[lo:hi], pl.maxRep, ci, last)
		}
		start := len(data)
		numLevels := 0
		if hasLevels {
			numLevels = hi - lo
		}
		data = binary.LittleEndian.AppendUint16(data, uint16(numLevels))
		var levelBufs [][]byte
		if pl.rep != nil {
			levelBufs = append(levelBufs, repCodec.encode(pl.rep[lo:hi]))
		}
		if pl.def != nil {
			levelBufs = append(levelBufs, defCodec.encode(pl.def[lo:hi]))
		}
		for i, b := range append(append([][]byte{}, levelBufs...), ch.buffers...) {
			if leaf.largeChunks && i >= len(levelBufs) {
				// 2.2's large chunks: value buffer sizes are u32 (level sizes stay u16).
				if uint64(len(b)) > 0xFFFFFFFF {
					return encodedPage{}, fmt.Errorf("%w: buffer of %d bytes", errChunkTooLarge, len(b))
				}
				data = binary.LittleEndian.AppendUint32(data, uint32(len(b)))
				continue
			}
			if len(b) > 0xFFFF {
				return encodedPage{}, fmt.Errorf("%w: buffer of %d bytes", errChunkTooLarge, len(b))
			}
			data = binary.LittleEndian.AppendUint16(data, uint16(len(b)))
		}
		data = padTo8(data)
		for _, b := range levelBufs {
			data = padTo8(append(data, b...))
		}
		for _, b := range ch.buffers {
			data = padTo8(append(data, b...))
		}
		size := len(data) - start
		if size > miniBlockMaxChunkBytes {
			return encodedPage{}, fmt.Errorf("%w: %d bytes", errChunkTooLarge, size)
		}
		logN := uint16(0)
		if !last {
			logN = log2Exact(ch.numValues)
		}
		if leaf.largeChunks {
			meta = binary.LittleEndian.AppendUint32(meta, uint32(size/8-1)<<4|uint32(logN))
		} else {
			meta = binary.LittleEndian.AppendUint16(meta, uint16((size/8-1)<<4)|logN)
		}
	}

	layout := &enc21pb.MiniBlockLayout{
		ValueCompression: valueEnc,
		Layers:           pl.layers,
		NumBuffers:       uint64(len(chunks[0].buffers)),
		NumItems:         uint64(acc.numValues),
		HasLargeChunk:    leaf.largeChunks,
	}
	if pl.rep != nil {
		layout.RepCompression = repCodec.encoding()
		layout.RepetitionIndexDepth = 1
	}
	if pl.def != nil {
		layout.DefCompression = defCodec.encoding()
	}
	buffers := [][]byte{meta, data}
	if pl.rep != nil {
		ri := make([]byte, 0, 8*len(repIndex))
		for _, v := range repIndex {
			ri = binary.LittleEndian.AppendUint64(ri, v)
		}
		buffers = append(buffers, ri)
	}
	return encodedPage{
		buffers: buffers,
		layout:  &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_MiniBlockLayout{MiniBlockLayout: layout}},
		numRows: acc.numRows,
	}, nil
}

func padTo8(b []byte) []byte {
	for len(b)%MiniBlockAlignment != 0 {
		b = append(b, miniBlockFill)
	}
	return b
}

// appendRepIndex adds the (rows finished, leftover items) pair of one chunk
// to the mini-block repetition index, as Lance computes it.
func appendRepIndex(idx []uint64, rep []uint16, maxRep uint16, chunk int, last bool) []uint64 {
	rows := 0
	for _, r := range rep[min(1, len(rep)):] {
		if r == maxRep {
			rows++
		}
	}
	leftovers := 0
	if !last {
		leftovers = len(rep)
		for i := len(rep) - 1; i >= 0; i-- {
			if rep[i] == maxRep {
				leftovers = len(rep) - i
				break
			}
		}
	}
	if chunk != 0 && len(rep) > 0 && rep[0] == maxRep {
		n := len(idx)
		if idx[n-1] != 0 {
			idx[n-2]++
			idx[n-1] = 0
		}
	}
	if last {
		rows++
	}
	return append(idx, uint64(rows), uint64(leftovers))
}

// ---------------------------------------------------------------- full-zip

// bitsNeeded is the number of bits needed to store v (0 for 0).
func bitsNeeded(v uint16) int {
	n := 0
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}

func maxOf(v []uint16) uint16 {
	var m uint16
	for _, x := range v {
		if x > m {
			m = x
		}
	}
	return m
}

func encodeFullZip(leaf *leafSpec, acc *leafAccum, pl *pageLevels) (encodedPage, error) {
	numItems := pl.numItems(acc)
	if numItems > 1<<32-1 {
		return encodedPage{}, fmt.Errorf("%w: column %q: page of %d items", ErrInvalidArgument, leaf.name, numItems)
	}
	// Control words: (rep << defBits) | def, 1, 2 or 4 bytes.
	var maxRep, maxDef uint16
	if pl.rep != nil {
		maxRep = maxOf(pl.rep)
	}
	if pl.def != nil {
		maxDef = maxOf(pl.def)
	}
	repBits, defBits := bitsNeeded(maxRep), bitsNeeded(maxDef)
	wordBytes := 0
	hasRep, hasDef := pl.rep != nil, pl.def != nil
	if hasRep || hasDef {
		switch total := repBits + defBits; {
		case total <= 8:
			wordBytes = 1
		case total <= 16:
			wordBytes = 2
		default:
			wordBytes = 4
		}
	}
	word := func(buf []byte, i int) []byte {
		var w uint32
		if hasRep {
			w = uint32(pl.rep[i]) << defBits
		}
		if hasDef {
			w |= uint32(pl.def[i])
		}
		switch wordBytes {
		case 1:
			buf = append(buf, byte(w))
		case 2:
			buf = binary.LittleEndian.AppendUint16(buf, uint16(w))
		case 4:
			buf = binary.LittleEndian.AppendUint32(buf, w)
		}
		return buf
	}
	newRow := func(i int) bool {
		if !hasRep {
			return true
		}
		return pl.rep[i] == maxRep
	}
	visibleAt := func(i int) bool {
		if hasRep && hasDef {
			return pl.def[i] <= pl.maxVisible
		}
		return true
	}
	validAt := func(i int) bool { return !hasDef || pl.def[i] == 0 }

	layout := &enc21pb.FullZipLayout{
		BitsRep:         uint32(repBits),
		BitsDef:         uint32(defBits),
		NumItems:        uint32(numItems),
		NumVisibleItems: uint32(acc.numValues),
		Layers:          pl.layers,
	}
	var zipped []byte
	var rowStarts []uint64
	var upperBound int
	switch leaf.kind {
	case valuesFixed, valuesFSL:
		var rowBytes int
		var validityBytes int
		if leaf.kind == valuesFixed {
			if leaf.bitsPerValue%8 != 0 {
				return encodedPage{}, fmt.Errorf("%w: column %q: bit-packed values in full-zip", ErrInvalidArgument, leaf.name)
			}
			rowBytes = leaf.bitsPerValue / 8
			layout.ValueCompression = flatEncoding(uint64(leaf.bitsPerValue))
		} else {
			rowBytes = leaf.bitsPerValue / 8 * leaf.fslDim
			if acc.fslAnyNull {
				validityBytes = (leaf.fslDim + 7) / 8
			}
			layout.ValueCompression = fslEncoding(uint64(leaf.fslDim), acc.fslAnyNull, flatEncoding(uint64(leaf.bitsPerValue)))
		}
		layout.Details = &enc21pb.FullZipLayout_BitsPerValue{BitsPerValue: uint32((rowBytes + validityBytes) * 8)}
		upperBound = (rowBytes+validityBytes)*acc.numValues + wordBytes*numItems
		zipped = make([]byte, 0, upperBound)
		v := 0
		for i := 0; i < numItems; i++ {
			if newRow(i) && hasRep {
				rowStarts = append(rowStarts, uint64(len(zipped)))
			}
			zipped = word(zipped, i)
			if visibleAt(i) {
				if validityBytes > 0 {
					zipped = append(zipped, bitSlice(acc.fslValidity, v*leaf.fslDim, leaf.fslDim)...)
				}
				zipped = append(zipped, acc.fixed[v*rowBytes:(v+1)*rowBytes]...)
				v++
			}
		}
		if !hasRep {
			rowStarts = nil // fixed width without lists needs no repetition index
		} else {
			rowStarts = append(rowStarts, uint64(len(zipped)))
		}
	case valuesVariable:
		ow := 4
		if leaf.largeOffsets {
			ow = 8
		}
		var fsst *fsstPage
		acc, fsst = fsstValues(leaf, acc)
		layout.Details = &enc21pb.FullZipLayout_BitsPerOffset{BitsPerOffset: uint32(ow * 8)}
		layout.ValueCompression = fsst.over(variableEncoding(uint64(ow * 8)))
		upperBound = len(acc.data) + wordBytes*numItems + ow*acc.numValues
		zipped = make([]byte, 0, upperBound)
		v := 0
		for i := 0; i < numItems; i++ {
			if newRow(i) {
				rowStarts = append(rowStarts, uint64(len(zipped)))
			}
			zipped = word(zipped, i)
			if visibleAt(i) {
				if validAt(i) {
					n := acc.offsets[v+1] - acc.offsets[v]
					if ow == 4 {
						zipped = binary.LittleEndian.AppendUint32(zipped, uint32(n))
					} else {
						zipped = binary.LittleEndian.AppendUint64(zipped, n)
					}
					zipped = append(zipped, acc.data[acc.offsets[v]:acc.offsets[v+1]]...)
				}
				v++
			}
		}
		rowStarts = append(rowStarts, uint64(len(zipped)))
	default:
		return encodedPage{}, fmt.Errorf("%w: column %q: no full-zip encoding", ErrInvalidArgument, leaf.name)
	}
	if rowStarts != nil && uint64(len(rowStarts)) != acc.numRows+1 {
		return encodedPage{}, fmt.Errorf("lancefile: internal error: column %q: %d row starts for %d rows", leaf.name, len(rowStarts)-1, acc.numRows)
	}
	buffers := [][]byte{zipped}
	if rowStarts != nil {
		buffers = append(buffers, bytePack(rowStarts, uint64(upperBound)))
	}
	return encodedPage{
		buffers: buffers,
		layout:  &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_FullZipLayout{FullZipLayout: layout}},
		numRows: acc.numRows,
	}, nil
}

// bytePack stores values as 1, 2, 4 or 8-byte little-endian integers, the
// width chosen by maxValue.
func bytePack(values []uint64, maxValue uint64) []byte {
	w := 8
	switch {
	case maxValue <= 0xFF:
		w = 1
	case maxValue <= 0xFFFF:
		w = 2
	case maxValue <= 0xFFFFFFFF:
		w = 4
	}
	out := make([]byte, 0, w*len(values))
	for _, v := range values {
		switch w {
		case 1:
			out = append(out, byte(v))
		case 2:
			out = binary.LittleEndian.AppendUint16(out, uint16(v))
		case 4:
			out = binary.LittleEndian.AppendUint32(out, uint32(v))
		default:
			out = binary.LittleEndian.AppendUint64(out, v)
		}
	}
	return out
}
