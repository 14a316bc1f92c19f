package lancefile

import (
	"context"
	"encoding/binary"
	"sort"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

// leafPiece is the decoded part of one leaf column for a row range:
// repetition levels (nil: no lists), canonical definition levels (nil: all
// valid) and the visible values.
type leafPiece struct {
	rep     []uint16
	def     []uint16
	nLevels uint64
	vals    *block
}

// readLeaf describes a leaf column: its layers (inner to outer, true = list)
// and the shape of its values.
type readLeaf struct {
	col      int
	isList   []bool
	variable bool
	bits     uint64
	dim      uint64
}

func (s *readLeaf) maxRep() uint16 {
	var n uint16
	for _, l := range s.isList {
		if l {
			n++
		}
	}
	return n
}

// placeholder returns n null-slot values of the leaf's shape.
func (s *readLeaf) placeholder(n uint64) (*block, error) {
	if n > maxItems {
		return nil, corruptf("%d null values", n)
	}
	if s.variable {
		return &block{n: n, variable: true, offsets: make([]uint64, n+1)}, nil
	}
	b := &block{n: n, bits: s.bits, dim: s.dim}
	b.data = make([]byte, b.fixedBytes(n))
	return b, nil
}

// canonical definition levels: every item layer owns one level (null), every
// list layer two (null, empty), counted from the innermost layer starting at 1.
// defMapping maps a page's definition levels (given its RepDefLayers) to them.
type defMapping struct {
	m          []uint16 // page level -> canonical level
	maxVisible uint16   // page levels <= this carry a value (mini-block rule)
	maxVisFZ   uint16   // full-zip rule: sum of the item layers' levels
}

func newDefMapping(layers []enc21pb.RepDefLayer, spec *readLeaf) (*defMapping, error) {
	if len(layers) != len(spec.isList) {
		return nil, corruptf("page has %d rep/def layers, field has %d", len(layers), len(spec.isList))
	}
	dm := &defMapping{m: []uint16{0}}
	var c uint16 = 1
	seenList := false
	for i, l := range layers {
		isList := spec.isList[i]
		switch l {
		case enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM, enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM:
			if isList {
				return nil, corruptf("item layer %d where the field has a list", i)
			}
			if l == enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM {
				dm.m = append(dm.m, c)
				if !seenList {
					dm.maxVisible++
				}
				dm.maxVisFZ++
			}
			c++
		case enc21pb.RepDefLayer_REPDEF_ALL_VALID_LIST, enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST,
			enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST, enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST:
			if !isList {
				return nil, corruptf("list layer %d where the field has no list", i)
			}
			seenList = true
			switch l {
			case enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST:
				dm.m = append(dm.m, c)
			case enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST:
				dm.m = append(dm.m, c+1)
			case enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST:
				dm.m = append(dm.m, c, c+1)
			}
			c += 2
		default:
			return nil, corruptf("unknown rep/def layer %v", l)
		}
	}
	return dm, nil
}

func (dm *defMapping) mapLevels(def []uint16) ([]uint16, error) {
	if def == nil {
		return nil, nil
	}
	out := make([]uint16, len(def))
	for i, d := range def {
		if int(d) >= len(dm.m) {
			return nil, corruptf("definition level %d beyond %d", d, len(dm.m)-1)
		}
		out[i] = dm.m[d]
	}
	return out, nil
}

// rowSpan locates rows [a, b) in decoded levels whose first row start
// (rep == maxRep) is row first: the level range and the value range. With
// skipPreamble the levels before the first row start are skipped. Without
// repetition every level is a row and a value. visible reports whether a
// level carries a value.
func rowSpan(rep []uint16, nLevels, nVals uint64, visible func(uint64) bool, maxRep uint16, first, a, b uint64, skipPreamble bool) (l0, l1, v0, v1 uint64, err error) {
	if rep == nil {
		if a < first || b < a || b-first > nLevels || nVals != nLevels {
			return 0, 0, 0, 0, corruptf("rows %d..%d not in decoded levels (%d from row %d, %d values)", a, b, nLevels, first, nVals)
		}
		return a - first, b - first, a - first, b - first, nil
	}
	var i, items uint64
	if skipPreamble {
		for i < nLevels && rep[i] != maxRep {
			if visible(i) {
				items++
			}
			i++
		}
	}
	row := first
	started := false
	for ; i < nLevels; i++ {
		if rep[i] == maxRep {
			if row == b {
				break
			}
			if row == a {
				started = true
				l0, v0 = i, items
			}
			row++
		}
		if visible(i) {
			items++
		}
	}
	if !started || row != b {
		return 0, 0, 0, 0, corruptf("rows %d..%d not found in decoded levels", a, b)
	}
	if items > nVals {
		return 0, 0, 0, 0, corruptf("levels need %d values, have %d", items, nVals)
	}
	return l0, i, v0, items, nil
}

// cut builds the piece for a level range and value range.
func cut(rep, def []uint16, vals *block, l0, l1, v0, v1 uint64) (*leafPiece, error) {
	if err := vals.check(); err != nil {
		return nil, err
	}
	if v0 > v1 || v1 > vals.n || l0 > l1 || (rep != nil && l1 > uint64(len(rep))) || (def != nil && l1 > uint64(len(def))) {
		return nil, corruptf("levels %d..%d / values %d..%d out of range", l0, l1, v0, v1)
	}
	p := &leafPiece{nLevels: l1 - l0, vals: vals.slice(v0, v1)}
	if rep != nil {
		p.rep = rep[l0:l1]
	}
	if def != nil {
		p.def = def[l0:l1]
	}
	return p, nil
}

// ---------------------------------------------------------------- mini-block

type miniChunk struct {
	off, size, items  uint64
	firstRow, starts  uint64
	preamble, trailer bool
}

type miniState struct {
	l      *enc21pb.MiniBlockLayout
	chunks []miniChunk
	dict   *block
	dm     *defMapping
	fsst   fsstTables
}

func (r *Reader) loadMini(ctx context.Context, pg *pageInfo, spec *readLeaf) (*miniState, error) {
	l := pg.layout.GetMiniBlockLayout()
	if len(pg.bufs) < 2 {
		return nil, corruptf("mini-block page with %d buffers", len(pg.bufs))
	}
	dm, err := newDefMapping(l.Layers, spec)
	if err != nil {
		return nil, err
	}
	st := &miniState{l: l, dm: dm, fsst: fsstTables{}}
	if err := collectFSST(l.ValueCompression, st.fsst); err != nil {
		return nil, err
	}
	meta, err := r.read(ctx, pg.bufs[0].Position, pg.bufs[0].Size)
	if err != nil {
		return nil, err
	}
	// Lance 2.2 pages with large chunks keep one u32 per chunk (28 bits of
	// 8-byte words minus one, 4 bits of log2 values) instead of 2.1's u16
	// (12 + 4 bits), so a chunk may exceed 32 KiB.
	word := 2
	if l.HasLargeChunk {
		word = 4
	}
	if len(meta)%word != 0 {
		return nil, corruptf("mini-block metadata of size %d is not a multiple of %d", len(meta), word)
	}
	nch := len(meta) / word
	off := pg.bufs[1].Position
	end := pg.bufs[1].Position + pg.bufs[1].Size
	var counted uint64
	st.chunks = make([]miniChunk, nch)
	for i := 0; i < nch; i++ {
		var w uint32
		if word == 4 {
			w = le32(meta[4*i:])
		} else {
			w = uint32(le16(meta[2*i:]))
		}
		size := (uint64(w>>4) + 1) * MiniBlockAlignment
		var items uint64
		if i < nch-1 {
			items = 1 << (w & 0xF)
		} else {
			if l.NumItems < counted {
				return nil, corruptf("mini-block chunks hold more than %d items", l.NumItems)
			}
			items = l.NumItems - counted
		}
		counted += items
		if off+size > end {
			return nil, corruptf("mini-block chunk %d runs past its buffer", i)
		}
		st.chunks[i] = miniChunk{off: off, size: size, items: items}
		off += size
	}
	if l.NumItems > counted || (nch == 0 && l.NumItems > 0) {
		return nil, corruptf("mini-block chunks hold %d of %d items", counted, l.NumItems)
	}
	next := 2
	if l.Dictionary != nil {
		if len(pg.bufs) < 3 {
			return nil, corruptf("dictionary page without a dictionary buffer")
		}
		db, err := r.read(ctx, pg.bufs[2].Position, pg.bufs[2].Size)
		if err != nil {
			return nil, err
		}
		if l.NumDictionaryItems > uint64(len(db))*8+1 {
			return nil, corruptf("dictionary of %d items in %d bytes", l.NumDictionaryItems, len(db))
		}
		st.dict, err = decodeBlockBuf(l.Dictionary, db, l.NumDictionaryItems)
		if err != nil {
			return nil, err
		}
		next = 3
	}
	if l.RepetitionIndexDepth > 0 {
		if len(pg.bufs) <= next {
			return nil, corruptf("repetition index buffer missing")
		}
		ref := pg.bufs[len(pg.bufs)-1]
		ri, err := r.read(ctx, ref.Position, ref.Size)
		if err != nil {
			return nil, err
		}
		stride := uint64(l.RepetitionIndexDepth) + 1
		if uint64(len(ri)) != uint64(nch)*stride*8 {
			return nil, corruptf("repetition index of %d bytes for %d chunks", len(ri), nch)
		}
		var row uint64
		pre := false
		for i := range st.chunks {
			ends := le64(ri[uint64(i)*stride*8:])
			partial := le64(ri[uint64(i)*stride*8+8:])
			tr := partial > 0
			starts := ends
			if tr {
				starts++
			}
			if pre {
				if starts == 0 {
					return nil, corruptf("repetition index: chunk %d", i)
				}
				starts--
			}
			st.chunks[i].firstRow, st.chunks[i].starts = row, starts
			st.chunks[i].preamble, st.chunks[i].trailer = pre, tr
			row += starts
			pre = tr
		}
		if row != pg.numRows {
			return nil, corruptf("repetition index covers %d of %d rows", row, pg.numRows)
		}
	} else {
		if l.RepCompression != nil {
			return nil, unsupportedf("mini-block lists without a repetition index")
		}
		var row uint64
		for i := range st.chunks {
			st.chunks[i].firstRow, st.chunks[i].starts = row, st.chunks[i].items
			row += st.chunks[i].items
		}
		if row != pg.numRows {
			return nil, corruptf("mini-block chunks hold %d of %d rows", row, pg.numRows)
		}
	}
	return st, nil
}

// findChunk returns the chunk in which row starts.
func (st *miniState) findChunk(row uint64) int {
	return sort.Search(len(st.chunks), func(i int) bool {
		c := st.chunks[i]
		return c.starts > 0 && c.firstRow+c.starts > row || c.firstRow > row
	})
}

func (r *Reader) readMini(ctx context.Context, st *miniState, spec *readLeaf, a, b uint64) (*leafPiece, error) {
	c0 := st.findChunk(a)
	c1 := st.findChunk(b - 1)
	if c0 >= len(st.chunks) || c1 >= len(st.chunks) {
		return nil, corruptf("rows %d..%d not in mini-block chunks", a, b)
	}
	for c1+1 < len(st.chunks) && st.chunks[c1].trailer {
		c1++
		if st.chunks[c1].starts > 0 || !st.chunks[c1].trailer {
			break
		}
	}
	start := st.chunks[c0].off
	endOff := st.chunks[c1].off + st.chunks[c1].size
	raw, err := r.read(ctx, start, endOff-start)
	if err != nil {
		return nil, err
	}
	var rep, def []uint16
	var nLevels uint64
	hasRep, hasDef := st.l.RepCompression != nil, st.l.DefCompression != nil
	// Decode every chunk first, then concatenate into buffers sized once:
	// appending chunk by chunk regrew them (a 1,000-row range spans tens of
	// chunks per column).
	type decoded struct {
		rep, def []uint16
		vals     *block
	}
	parts := make([]decoded, 0, c1-c0+1)
	blocks := make([]*block, 0, c1-c0+1)
	// Inline bit-packed values (TPC-H's integers, dates, dictionary
	// indices) of several chunks are decoded side by side into one buffer:
	// it is the range's values, with no per-chunk buffers to concatenate.
	var joint []byte
	var jointBytes, jointN uint64
	if ib := st.l.ValueCompression.GetInlineBitpacking(); ib != nil && c1 > c0 {
		if t := ib.UncompressedBitsPerValue; t == 8 || t == 16 || t == 32 || t == 64 {
			jointBytes = t / 8
			for ci := c0; ci <= c1; ci++ {
				jointN += st.chunks[ci].items
			}
			if jointN > maxItems {
				return nil, corruptf("mini-block chunks of %d values", jointN)
			}
			joint = make([]byte, jointN*jointBytes)
		}
	}
	var at uint64
	for ci := c0; ci <= c1; ci++ {
		ch := st.chunks[ci]
		var into []byte
		if joint != nil {
			into = joint[at*jointBytes : (at+ch.items)*jointBytes]
			at += ch.items
		}
		cr, cd, n, vals, err := st.decodeChunk(raw[ch.off-start:ch.off-start+ch.size], ch.items, into)
		if err != nil {
			return nil, err
		}
		r.stats.chunks.Add(1)
		parts = append(parts, decoded{cr, cd, vals})
		blocks = append(blocks, vals)
		nLevels += n
	}
	if len(parts) == 1 {
		rep, def = parts[0].rep, parts[0].def
	} else {
		if hasRep {
			rep = make([]uint16, 0, nLevels)
		}
		if hasDef {
			def = make([]uint16, 0, nLevels)
		}
		for _, p := range parts {
			if hasRep {
				rep = append(rep, p.rep...)
			}
			if hasDef {
				def = append(def, p.def...)
			}
		}
	}
	if !hasRep {
		rep = nil
	}
	if !hasDef {
		def = nil
	}
	var vals *block
	if joint != nil {
		blocks = []*block{{n: jointN, bits: jointBytes * 8, data: joint}}
	}
	if st.dict != nil {
		vals, err = applyDictionary(blocks, st.dict)
	} else {
		vals, err = concatBlocks(blocks)
	}
	if err != nil {
		return nil, err
	}
	cdef, err := st.dm.mapLevels(def)
	if err != nil {
		return nil, err
	}
	if hasRep && uint64(len(rep)) != nLevels || hasDef && uint64(len(def)) != nLevels {
		return nil, corruptf("mini-block level counts disagree")
	}
	if !hasRep && spec.maxRep() > 0 {
		return nil, corruptf("list column without repetition levels")
	}
	vis := func(i uint64) bool { return def == nil || def[i] <= st.dm.maxVisible }
	l0, l1, v0, v1, err := rowSpan(rep, nLevels, vals.n, vis, spec.maxRep(), st.chunks[c0].firstRow, a, b, st.chunks[c0].preamble)
	if err != nil {
		return nil, err
	}
	return cut(rep, cdef, vals, l0, l1, v0, v1)
}

// decodeChunk decodes one chunk of items values; into, when set, is where
// its inline bit-packed values go (items values wide).
func (st *miniState) decodeChunk(buf []byte, items uint64, into []byte) (rep, def []uint16, nLevels uint64, vals *block, err error) {
	hasRep, hasDef := st.l.RepCompression != nil, st.l.DefCompression != nil
	nb := st.l.NumBuffers
	if nb > 64 {
		return nil, nil, 0, nil, corruptf("mini-block with %d buffers", nb)
	}
	hdr := uint64(2)
	if hasRep {
		hdr += 2
	}
	if hasDef {
		hdr += 2
	}
	// The buffer sizes after the level sizes are u16 in 2.1 and u32 in
	// 2.2's large chunks; the level count and level sizes stay u16.
	sizeWidth := uint64(2)
	if st.l.HasLargeChunk {
		sizeWidth = 4
	}
	hdr += sizeWidth * nb
	if uint64(len(buf)) < hdr {
		return nil, nil, 0, nil, corruptf("mini-block chunk header truncated")
	}
	nLevels = uint64(le16(buf))
	p := uint64(2)
	var repSize, defSize uint64
	if hasRep {
		repSize = uint64(le16(buf[p:]))
		p += 2
	}
	if hasDef {
		defSize = uint64(le16(buf[p:]))
		p += 2
	}
	sizes := make([]uint64, nb)
	for i := range sizes {
		if sizeWidth == 4 {
			sizes[i] = uint64(le32(buf[p:]))
		} else {
			sizes[i] = uint64(le16(buf[p:]))
		}
		p += sizeWidth
	}
	pad := func() { p = (p + MiniBlockAlignment - 1) &^ (MiniBlockAlignment - 1) }
	take := func(n uint64) ([]byte, error) {
		pad()
		if p > uint64(len(buf)) || n > uint64(len(buf))-p {
			return nil, corruptf("mini-block chunk buffer runs past the chunk")
		}
		b := buf[p : p+n]
		p += n
		return b, nil
	}
	var repBuf, defBuf []byte
	if hasRep {
		if repBuf, err = take(repSize); err != nil {
			return
		}
	}
	if hasDef {
		if defBuf, err = take(defSize); err != nil {
			return
		}
	}
	bufs := make([][]byte, nb)
	for i := range bufs {
		if bufs[i], err = take(sizes[i]); err != nil {
			return
		}
	}
	if !hasRep && !hasDef {
		nLevels = items
	}
	if hasRep {
		blk, e := decodeBlockBuf(st.l.RepCompression, repBuf, nLevels)
		if e != nil {
			return nil, nil, 0, nil, e
		}
		if rep, err = blk.levels(); err != nil {
			return
		}
	}
	if hasDef {
		blk, e := decodeBlockBuf(st.l.DefCompression, defBuf, nLevels)
		if e != nil {
			return nil, nil, 0, nil, e
		}
		if def, err = blk.levels(); err != nil {
			return
		}
	}
	if into != nil {
		vals, err = decodeInlineBitpackingInto(st.l.ValueCompression.GetInlineBitpacking(), bufs, items, into)
		return
	}
	vals, err = decodeMiniBlock(st.l.ValueCompression, bufs, items, st.fsst)
	return
}

// applyDictionary maps the dictionary indices of one or more chunks (idxs,
// in order) to their values, written straight into one output block: the
// chunks' indices are not concatenated first, and each chunk's keys go
// through a fixed scratch array (a range-wide key slice was a buffer the
// size of the output, zeroed and then filled).
func applyDictionary(idxs []*block, dict *block) (*block, error) {
	if err := dict.check(); err != nil {
		return nil, err
	}
	var n uint64
	for _, idx := range idxs {
		if err := idx.check(); err != nil {
			return nil, err
		}
		if idx.variable || idx.itemsPerValue() != 1 {
			return nil, corruptf("dictionary indices are not fixed width")
		}
		switch idx.bits {
		case 8, 16, 32, 64:
		default:
			return nil, corruptf("dictionary indices of %d bits", idx.bits)
		}
		n += idx.n
	}
	if dict.variable {
		// Size the output once: a first pass checks the indices and sums
		// the lengths.
		var size uint64
		for _, idx := range idxs {
			for i := uint64(0); i < idx.n; i++ {
				k := uintAt(idx.data, idx.bits, i)
				if k >= dict.n {
					return nil, corruptf("dictionary index %d of %d", k, dict.n)
				}
				size += dict.offsets[k+1] - dict.offsets[k]
				if size > maxItems*4 {
					return nil, corruptf("dictionary expands to more than %d bytes", maxItems*4)
				}
			}
		}
		out := &block{n: n, variable: true, offsets: make([]uint64, n+1), data: make([]byte, 0, size)}
		j := uint64(0)
		for _, idx := range idxs {
			for i := uint64(0); i < idx.n; i++ {
				k := uintAt(idx.data, idx.bits, i) // checked above
				out.data = append(out.data, dict.data[dict.offsets[k]:dict.offsets[k+1]]...)
				j++
				out.offsets[j] = uint64(len(out.data))
			}
		}
		return out, nil
	}
	per := dict.itemsPerValue() * dict.bits
	if per%8 != 0 {
		return nil, unsupportedf("dictionary of %d-bit values", per)
	}
	w := per / 8
	out := &block{n: n, bits: dict.bits, dim: dict.dim, data: make([]byte, n*w)}
	// The indices are read 1,024 at a time into keys (checked against the
	// dictionary there), then gathered with the value width fixed: this
	// runs for every value of a dictionary page (TPC-H's DECIMAL columns of
	// few values).
	var keyBuf [1024]uint32
	dst := out.data
	for _, idx := range idxs {
		for at := uint64(0); at < idx.n; at += uint64(len(keyBuf)) {
			keys := keyBuf[:min(uint64(len(keyBuf)), idx.n-at)]
			for i := range keys {
				k := uintAt(idx.data, idx.bits, at+uint64(i))
				if k >= dict.n {
					return nil, corruptf("dictionary index %d of %d", k, dict.n)
				}
				keys[i] = uint32(k) // dict.n <= maxItems fits
			}
			gatherFixed(dst, dict.data, w, keys)
			dst = dst[uint64(len(keys))*w:]
		}
	}
	return out, nil
}

// gatherFixed sets value i of dst to value keys[i] of src, values being w
// bytes wide (keys are in range: checked by the caller).
func gatherFixed(dst, src []byte, w uint64, keys []uint32) {
	switch w {
	case 4:
		for i, k := range keys {
			binary.LittleEndian.PutUint32(dst[4*i:], binary.LittleEndian.Uint32(src[4*uint64(k):]))
		}
	case 8:
		for i, k := range keys {
			binary.LittleEndian.PutUint64(dst[8*i:], binary.LittleEndian.Uint64(src[8*uint64(k):]))
		}
	case 16:
		for i, k := range keys {
			d, s := dst[16*i:16*i+16], src[16*uint64(k):16*uint64(k)+16]
			binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
			binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
		}
	default:
		for i, k := range keys {
			copy(dst[uint64(i)*w:], src[uint64(k)*w:(uint64(k)+1)*w])
		}
	}
}
