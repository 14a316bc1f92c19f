package lancefile

import (
	"bytes"
	"context"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

// ---------------------------------------------------------------- full-zip

type fullZipState struct {
	l           *enc21pb.FullZipLayout
	dm          *defMapping
	repIdxBytes uint64 // bytes per repetition index entry, 0: none
	cwBytes     uint64
	fixed       bool
	valueBytes  uint64 // fixed: bytes per value (incl. zipped validity)
	lenBytes    uint64 // variable: bytes of the length prefix
	fsl         *enc21pb.FixedSizeList
	itemBits    uint64
}

func (r *Reader) loadFullZip(pg *pageInfo, spec *readLeaf) (*fullZipState, error) {
	l := pg.layout.GetFullZipLayout()
	if len(pg.bufs) < 1 {
		return nil, corruptf("full-zip page without buffers")
	}
	dm, err := newDefMapping(l.Layers, spec)
	if err != nil {
		return nil, err
	}
	st := &fullZipState{l: l, dm: dm}
	if l.BitsRep > 16 || l.BitsDef > 16 {
		return nil, corruptf("full-zip control word of %d+%d bits", l.BitsRep, l.BitsDef)
	}
	switch tb := l.BitsRep + l.BitsDef; {
	case tb == 0:
	case tb <= 8:
		st.cwBytes = 1
	case tb <= 16:
		st.cwBytes = 2
	default:
		st.cwBytes = 4
	}
	if len(pg.bufs) > 1 {
		n := pg.numRows + 1
		sz := pg.bufs[1].Size
		if sz%n != 0 {
			return nil, corruptf("full-zip repetition index of %d bytes for %d rows", sz, pg.numRows)
		}
		st.repIdxBytes = sz / n
		switch st.repIdxBytes {
		case 1, 2, 4, 8:
		default:
			return nil, corruptf("full-zip repetition index of %d-byte entries", st.repIdxBytes)
		}
	}
	switch d := l.Details.(type) {
	case *enc21pb.FullZipLayout_BitsPerValue:
		st.fixed = true
		if d.BitsPerValue%8 != 0 || d.BitsPerValue == 0 || d.BitsPerValue > 1<<24 {
			return nil, unsupportedf("full-zip values of %d bits", d.BitsPerValue)
		}
		st.valueBytes = uint64(d.BitsPerValue / 8)
		switch c := l.ValueCompression.GetCompression().(type) {
		case *enc21pb.CompressiveEncoding_Flat:
			st.itemBits = c.Flat.BitsPerValue
		case *enc21pb.CompressiveEncoding_FixedSizeList:
			st.fsl = c.FixedSizeList
			f := flatOf(c.FixedSizeList.Values)
			if f == nil || c.FixedSizeList.ItemsPerValue == 0 {
				return nil, unsupportedf("full-zip fixed-size list over %s", encName(c.FixedSizeList.Values))
			}
			st.itemBits = f.BitsPerValue
		default:
			return nil, unsupportedf("full-zip fixed compression %s", encName(l.ValueCompression))
		}
	case *enc21pb.FullZipLayout_BitsPerOffset:
		if d.BitsPerOffset != 32 && d.BitsPerOffset != 64 {
			return nil, corruptf("full-zip lengths of %d bits", d.BitsPerOffset)
		}
		st.lenBytes = uint64(d.BitsPerOffset / 8)
		if st.repIdxBytes == 0 {
			return nil, corruptf("variable full-zip page without a repetition index")
		}
	default:
		return nil, corruptf("full-zip layout without value details")
	}
	return st, nil
}

func (r *Reader) readFullZip(ctx context.Context, fr *fileReads, pg *pageInfo, st *fullZipState, spec *readLeaf, a, b uint64) (*leafPiece, error) {
	data := pg.bufs[0]
	var start, end uint64
	if st.repIdxBytes > 0 {
		w := st.repIdxBytes
		ri, err := fr.read(ctx, pg.bufs[1].Position+a*w, (b-a+1)*w)
		if err != nil {
			return nil, err
		}
		start, end = uintAt(ri, w*8, 0), uintAt(ri, w*8, b-a)
	} else {
		if st.cwBytes > 0 && spec.maxRep() > 0 {
			return nil, corruptf("full-zip list page without a repetition index")
		}
		per := st.cwBytes + st.valueBytes
		start, end = a*per, b*per
	}
	if start > end || end > data.Size {
		return nil, corruptf("full-zip rows %d..%d at bytes %d..%d of %d", a, b, start, end, data.Size)
	}
	buf, err := fr.read(ctx, data.Position+start, end-start)
	if err != nil {
		return nil, err
	}
	if st.packed() {
		// No control words and no zipped validity: the bytes read are the
		// values back to back, so the block keeps them as they are (a
		// 768-float vector page was copied value by value before).
		blk, err := st.packedValues(buf)
		if err != nil {
			return nil, err
		}
		if blk.n != b-a {
			return nil, corruptf("full-zip page gave %d rows, want %d", blk.n, b-a)
		}
		return cut(nil, nil, blk, 0, blk.n, 0, blk.n)
	}
	hasRep, hasDef := st.l.BitsRep > 0, st.l.BitsDef > 0
	var rep, def []uint16
	var vals [][]byte
	var valid []bool
	var p uint64
	for p < uint64(len(buf)) {
		var word uint64
		if st.cwBytes > 0 {
			if p+st.cwBytes > uint64(len(buf)) {
				return nil, corruptf("full-zip control word truncated")
			}
			word = uintAt(buf[p:], st.cwBytes*8, 0)
			p += st.cwBytes
		}
		var d uint16
		if hasRep && hasDef {
			rep = append(rep, uint16(word>>st.l.BitsDef))
			d = uint16(word & (1<<st.l.BitsDef - 1))
			def = append(def, d)
		} else if hasRep {
			rep = append(rep, uint16(word))
		} else if hasDef {
			d = uint16(word)
			def = append(def, d)
		}
		if d > st.dm.maxVisFZ {
			continue
		}
		if st.fixed {
			if p+st.valueBytes > uint64(len(buf)) {
				return nil, corruptf("full-zip value truncated")
			}
			vals = append(vals, buf[p:p+st.valueBytes])
			p += st.valueBytes
			continue
		}
		if d != 0 {
			vals = append(vals, nil)
			valid = append(valid, false)
			continue
		}
		if p+st.lenBytes > uint64(len(buf)) {
			return nil, corruptf("full-zip length truncated")
		}
		n := uintAt(buf[p:], st.lenBytes*8, 0)
		p += st.lenBytes
		if n > uint64(len(buf))-p {
			return nil, corruptf("full-zip value of %d bytes past the page", n)
		}
		vals = append(vals, buf[p:p+n])
		valid = append(valid, true)
		p += n
	}
	nLevels := uint64(len(vals))
	if hasRep {
		nLevels = uint64(len(rep))
	} else if hasDef {
		nLevels = uint64(len(def))
	}
	blk, err := st.decodeValues(vals)
	if err != nil {
		return nil, err
	}
	if !hasRep && nLevels != b-a {
		return nil, corruptf("full-zip page gave %d rows, want %d", nLevels, b-a)
	}
	cdef, err := st.dm.mapLevels(def)
	if err != nil {
		return nil, err
	}
	vis := func(i uint64) bool { return def == nil || def[i] <= st.dm.maxVisFZ }
	l0, l1, v0, v1, err := rowSpan(rep, nLevels, blk.n, vis, spec.maxRep(), a, a, b, false)
	if err != nil {
		return nil, err
	}
	return cut(rep, cdef, blk, l0, l1, v0, v1)
}

// packed reports whether the page's values are fixed-width, with neither
// control words nor per-item validity between them.
func (st *fullZipState) packed() bool {
	return st.fixed && st.cwBytes == 0 && (st.fsl == nil || !st.fsl.HasValidity)
}

// packedValues is the block over buf, whole values of a packed page,
// sharing buf's bytes.
func (st *fullZipState) packedValues(buf []byte) (*block, error) {
	if uint64(len(buf))%st.valueBytes != 0 {
		return nil, corruptf("full-zip page of %d bytes, values of %d", len(buf), st.valueBytes)
	}
	n := uint64(len(buf)) / st.valueBytes
	if st.fsl == nil {
		return newFixed(st.itemBits, n, buf)
	}
	dim := st.fsl.ItemsPerValue
	if (dim*st.itemBits+7)/8 != st.valueBytes || st.itemBits%8 != 0 {
		return nil, corruptf("full-zip fixed-size list value of %d bytes", st.valueBytes)
	}
	return &block{n: n, bits: st.itemBits, dim: dim, data: buf}, nil
}

func (st *fullZipState) decodeValues(vals [][]byte) (*block, error) {
	n := uint64(len(vals))
	if st.fixed {
		if st.fsl == nil {
			data := make([]byte, 0, n*st.valueBytes)
			for _, v := range vals {
				data = append(data, v...)
			}
			return newFixed(st.itemBits, n, data)
		}
		dim := st.fsl.ItemsPerValue
		vb := uint64(0)
		if st.fsl.HasValidity {
			vb = (dim + 7) / 8
		}
		if vb+(dim*st.itemBits+7)/8 != st.valueBytes || st.itemBits%8 != 0 {
			return nil, corruptf("full-zip fixed-size list value of %d bytes", st.valueBytes)
		}
		out := &block{n: n, bits: st.itemBits, dim: dim, data: make([]byte, 0, n*(st.valueBytes-vb))}
		if st.fsl.HasValidity {
			out.itemValid = make([]byte, (n*dim+7)/8)
		}
		for i, v := range vals {
			if vb > 0 {
				copyBits(out.itemValid, uint64(i)*dim, v[:vb], 0, dim)
			}
			out.data = append(out.data, v[vb:]...)
		}
		return out, nil
	}
	out := &block{n: n, variable: true, offsets: make([]uint64, n+1)}
	var fs *fsstTable
	var gen *enc21pb.BufferCompression
	switch c := st.l.ValueCompression.GetCompression().(type) {
	case *enc21pb.CompressiveEncoding_Variable:
	case *enc21pb.CompressiveEncoding_Fsst:
		t, err := parseFSSTTable(c.Fsst.SymbolTable)
		if err != nil {
			return nil, err
		}
		fs = t
	case *enc21pb.CompressiveEncoding_General:
		gen = c.General.Compression
	default:
		return nil, unsupportedf("full-zip variable compression %s", encName(st.l.ValueCompression))
	}
	var err error
	for i, v := range vals {
		switch {
		case v == nil:
		case fs != nil:
			if out.data, err = fs.decode(out.data, v); err != nil {
				return nil, err
			}
		case gen != nil:
			d, err := decompressGeneral(gen, v)
			if err != nil {
				return nil, err
			}
			out.data = append(out.data, d...)
		default:
			out.data = append(out.data, v...)
		}
		out.offsets[i+1] = uint64(len(out.data))
	}
	return out, nil
}

// ---------------------------------------------------------------- all-null / constant

type allNullState struct {
	dm       *defMapping
	simple   bool
	rep, def []uint16
	// value is Lance 2.2's constant: every visible item of the page holds
	// these bytes (one fixed-width value, or with variable one string or
	// binary value); nil for an all-null page.
	value    []byte
	variable bool
}

// maxConstantBytes bounds a constant page's value buffer before it is read.
const maxConstantBytes = 64 << 20

// constantValue parses a 2.2 constant page's value buffer: [u32 n][u32
// size]*n followed by the n buffers of a one-element Arrow array.
func constantValue(b []byte, spec *readLeaf) ([]byte, bool, error) {
	if len(b) < 4 {
		return nil, false, corruptf("constant value of %d bytes", len(b))
	}
	n := uint64(le32(b))
	if n == 0 || n > 4 || 4+4*n > uint64(len(b)) {
		return nil, false, corruptf("constant value with %d buffers in %d bytes", n, len(b))
	}
	bufs := make([][]byte, n)
	p := 4 + 4*n
	for i := range bufs {
		sz := uint64(le32(b[4+4*i:]))
		if sz > uint64(len(b))-p {
			return nil, false, corruptf("constant value buffer %d of %d bytes runs past the page", i, sz)
		}
		bufs[i] = b[p : p+sz]
		p += sz
	}
	if spec.variable {
		if n != 2 {
			return nil, false, corruptf("variable-width constant with %d buffers", n)
		}
		var lo, hi uint64
		switch len(bufs[0]) {
		case 8:
			lo, hi = uint64(le32(bufs[0])), uint64(le32(bufs[0][4:]))
		case 16:
			lo, hi = le64(bufs[0]), le64(bufs[0][8:])
		default:
			return nil, false, corruptf("variable-width constant with %d offset bytes", len(bufs[0]))
		}
		if lo > hi || hi > uint64(len(bufs[1])) {
			return nil, false, corruptf("variable-width constant offsets %d..%d of %d bytes", lo, hi, len(bufs[1]))
		}
		return bufs[1][lo:hi], true, nil
	}
	per := spec.bits * max(spec.dim, 1)
	if n != 1 || per%8 != 0 || uint64(len(bufs[0])) != per/8 {
		return nil, false, corruptf("constant value: %d buffers, %d bytes for a %d-bit field", n, len(bufs[0]), per)
	}
	return bufs[0], false, nil
}

// maxInlineValue is the spec's bound on a constant page's inline value.
const maxInlineValue = 32

func (r *Reader) loadAllNull(ctx context.Context, fr *fileReads, pg *pageInfo, spec *readLeaf) (*allNullState, error) {
	l := pg.layout.GetConstantLayout()
	dm, err := newDefMapping(l.Layers, spec)
	if err != nil {
		return nil, err
	}
	st := &allNullState{dm: dm}
	if l.InlineValue != nil {
		// 2.2: one non-null value for the whole page, as raw bytes of the
		// field's fixed width.
		if len(l.InlineValue) > maxInlineValue {
			return nil, corruptf("constant page with a %d-byte inline value", len(l.InlineValue))
		}
		if spec.variable {
			return nil, corruptf("constant page with an inline value for a variable-width field")
		}
		per := spec.bits * max(spec.dim, 1)
		if per == 1 && len(l.InlineValue) == 1 {
			// A boolean: the value is bit 0 of its one byte.
		} else if per%8 != 0 || per/8 != uint64(len(l.InlineValue)) {
			return nil, corruptf("constant page: %d-byte inline value for a %d-bit field", len(l.InlineValue), per)
		}
		st.value = l.InlineValue
	}
	if l.InlineValue == nil && (len(pg.bufs) == 1 || len(pg.bufs) == 3) {
		// 2.2: a constant too wide or variable for inline_value sits in the
		// page's first buffer (before the rep and def buffers) as one Arrow
		// value ([u32 buffer count][u32 size per buffer][buffers]): for
		// strings/binary its offsets and bytes.
		ref := pg.bufs[0]
		if ref.Size > maxConstantBytes {
			return nil, corruptf("constant page value of %d bytes", ref.Size)
		}
		b, err := fr.read(ctx, ref.Position, ref.Size)
		if err != nil {
			return nil, err
		}
		if st.value, st.variable, err = constantValue(b, spec); err != nil {
			return nil, err
		}
	}
	onlyItem := len(l.Layers) == 1 && (l.Layers[0] == enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM || l.Layers[0] == enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM)
	if onlyItem && (st.value == nil) == (l.Layers[0] == enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM) {
		// All null, or all the inline value: no levels needed.
		st.simple = true
		return st, nil
	}
	levelBufs := pg.bufs
	if l.InlineValue == nil && st.value != nil {
		levelBufs = pg.bufs[1:]
	}
	if len(levelBufs) < 2 {
		return nil, corruptf("constant page with %d buffers", len(pg.bufs))
	}
	// Levels are raw u16 values, or (2.2) block-compressed to num_*_values.
	levels := func(ref BufferRef, enc *enc21pb.CompressiveEncoding, n uint64) ([]uint16, error) {
		if ref.Size == 0 {
			return nil, nil
		}
		b, err := fr.read(ctx, ref.Position, ref.Size)
		if err != nil {
			return nil, err
		}
		if enc != nil {
			if n > maxItems {
				return nil, corruptf("constant page with %d levels", n)
			}
			blk, err := decodeBlockBuf(enc, b, n)
			if err != nil {
				return nil, err
			}
			return blk.levels()
		}
		if len(b)%2 != 0 {
			return nil, corruptf("constant page levels of odd size")
		}
		out := make([]uint16, len(b)/2)
		for i := range out {
			out[i] = le16(b[2*i:])
		}
		return out, nil
	}
	if st.rep, err = levels(levelBufs[0], l.RepCompression, l.NumRepValues); err != nil {
		return nil, err
	}
	if st.def, err = levels(levelBufs[1], l.DefCompression, l.NumDefValues); err != nil {
		return nil, err
	}
	if st.rep != nil && st.def != nil && len(st.rep) != len(st.def) {
		return nil, corruptf("constant page: %d rep and %d def levels", len(st.rep), len(st.def))
	}
	return st, nil
}

// values returns n items: the inline value repeated, or null placeholders.
func (st *allNullState) values(spec *readLeaf, n uint64) (*block, error) {
	vals, err := spec.placeholder(n)
	if err != nil || st.value == nil {
		return vals, err
	}
	if st.variable {
		w := uint64(len(st.value))
		if w > 0 && n > maxItems*4/w {
			return nil, corruptf("constant page expands to more than %d bytes", maxItems*4)
		}
		vals.data = bytes.Repeat(st.value, int(n))
		for i := range vals.offsets {
			vals.offsets[i] = uint64(i) * w
		}
		return vals, nil
	}
	if spec.bits == 1 && max(spec.dim, 1) == 1 {
		if st.value[0]&1 != 0 {
			for i := range vals.data {
				vals.data[i] = 0xff
			}
		}
		return vals, nil
	}
	w := uint64(len(st.value))
	for i := uint64(0); i < n; i++ {
		copy(vals.data[i*w:], st.value)
	}
	return vals, nil
}

func (st *allNullState) read(pg *pageInfo, spec *readLeaf, a, b uint64) (*leafPiece, error) {
	if st.simple {
		n := b - a
		vals, err := st.values(spec, n)
		if err != nil {
			return nil, err
		}
		if st.value != nil {
			return &leafPiece{nLevels: n, vals: vals}, nil
		}
		def := make([]uint16, n)
		for i := range def {
			def[i] = 1
		}
		return &leafPiece{def: def, nLevels: n, vals: vals}, nil
	}
	nLevels := uint64(max(len(st.rep), len(st.def)))
	if st.rep == nil && st.def == nil {
		nLevels = pg.numRows
	}
	vis := func(i uint64) bool { return st.def == nil || st.def[i] <= st.dm.maxVisible }
	var nVals uint64
	for i := uint64(0); i < nLevels; i++ {
		if vis(i) {
			nVals++
		}
	}
	vals, err := st.values(spec, nVals)
	if err != nil {
		return nil, err
	}
	cdef, err := st.dm.mapLevels(st.def)
	if err != nil {
		return nil, err
	}
	if st.rep == nil && spec.maxRep() > 0 {
		return nil, corruptf("all-null list page without repetition levels")
	}
	l0, l1, v0, v1, err := rowSpan(st.rep, nLevels, nVals, vis, spec.maxRep(), 0, a, b, false)
	if err != nil {
		return nil, err
	}
	return cut(st.rep, cdef, vals, l0, l1, v0, v1)
}
