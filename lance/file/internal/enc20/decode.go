package enc20

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/lancecat/lancecat/lance/file/internal/codec"
	"github.com/lancecat/lancecat/lance/internal/pb/enc20pb"
)

// maxDepth bounds the nesting of array encodings.
const maxDepth = 32

// bufferSet resolves the buffers an array encoding points at.
type bufferSet struct {
	page   [][]byte
	column func(i int) ([]byte, error)
	file   func(i int) ([]byte, error)
}

func (bs *bufferSet) get(b *enc20pb.Buffer) ([]byte, error) {
	if b == nil {
		return nil, corruptf("encoding without a buffer")
	}
	i := int(b.BufferIndex)
	switch b.BufferType {
	case enc20pb.Buffer_page:
		if i >= len(bs.page) {
			return nil, corruptf("page buffer %d of %d", i, len(bs.page))
		}
		return bs.page[i], nil
	case enc20pb.Buffer_column:
		if bs.column == nil {
			return nil, corruptf("column buffer %d unavailable", i)
		}
		return bs.column(i)
	case enc20pb.Buffer_file:
		if bs.file == nil {
			return nil, corruptf("file buffer %d unavailable", i)
		}
		return bs.file(i)
	}
	return nil, unsupportedf("buffer type %v", b.BufferType)
}

// decodeArray decodes n values of shape sh from an array encoding.
func decodeArray(bs *bufferSet, e *enc20pb.ArrayEncoding, sh *shape, n uint64, depth int) (*vals, error) {
	if depth > maxDepth {
		return nil, corruptf("array encodings nested deeper than %d", maxDepth)
	}
	if e == nil || e.ArrayEncoding == nil {
		return nil, corruptf("missing array encoding")
	}
	if n > maxPageValues {
		return nil, corruptf("%d values in one page", n)
	}
	depth++
	switch x := e.ArrayEncoding.(type) {
	case *enc20pb.ArrayEncoding_Nullable:
		return decodeNullable(bs, x.Nullable, sh, n, depth)
	case *enc20pb.ArrayEncoding_Flat:
		return decodeFlat(bs, x.Flat, sh, n)
	case *enc20pb.ArrayEncoding_Bitpacked:
		return decodeBitpacked(bs, x.Bitpacked, sh, n)
	case *enc20pb.ArrayEncoding_BitpackedForNonNeg:
		return decodeBitpackedForNonNeg(bs, x.BitpackedForNonNeg, sh, n)
	case *enc20pb.ArrayEncoding_Binary:
		return decodeBinary(bs, x.Binary, sh, n, depth)
	case *enc20pb.ArrayEncoding_Fsst:
		return decodeFsst(bs, x.Fsst, sh, n, depth)
	case *enc20pb.ArrayEncoding_Dictionary:
		return decodeDictionary(bs, x.Dictionary, sh, n, depth)
	case *enc20pb.ArrayEncoding_FixedSizeList:
		return decodeFixedSizeList(bs, x.FixedSizeList, sh, n, depth)
	case *enc20pb.ArrayEncoding_FixedSizeBinary:
		return decodeFixedSizeBinary(bs, x.FixedSizeBinary, sh, n, depth)
	}
	return nil, unsupportedf("2.0 array encoding %T for %d values", e.ArrayEncoding, n)
}

func decodeNullable(bs *bufferSet, nl *enc20pb.Nullable, sh *shape, n uint64, depth int) (*vals, error) {
	switch x := nl.GetNullability().(type) {
	case *enc20pb.Nullable_NoNulls:
		return decodeArray(bs, x.NoNulls.GetValues(), sh, n, depth)
	case *enc20pb.Nullable_AllNulls:
		return &vals{n: n, allNull: true}, nil
	case *enc20pb.Nullable_SomeNulls:
		validity, err := decodeArray(bs, x.SomeNulls.GetValidity(), bitShape, n, depth)
		if err != nil {
			return nil, err
		}
		v, err := decodeArray(bs, x.SomeNulls.GetValues(), sh, n, depth)
		if err != nil {
			return nil, err
		}
		if validity.allNull {
			return &vals{n: n, allNull: true}, nil
		}
		if validity.bits != 1 || validity.valid != nil {
			return nil, corruptf("validity is not a plain bitmap")
		}
		if v.allNull {
			return v, nil
		}
		if v.valid != nil {
			// Both the values and the wrapper carry validity: combine.
			m := make([]byte, len(validity.data))
			for i := range m {
				m[i] = validity.data[i] & v.valid[i]
			}
			v.valid = m
		} else {
			v.valid = validity.data
		}
		return v, nil
	}
	return nil, corruptf("nullable encoding without a nullability")
}

// decompress undoes the general compression of a flat buffer.
func decompress(c *enc20pb.Compression, in []byte, want uint64) ([]byte, error) {
	switch c.GetScheme() {
	case "", "none":
		return in, nil
	case "zstd":
		body := in
		if len(in) >= 4 && binary.LittleEndian.Uint32(in) == 0xFD2FB528 {
			// A bare frame (older writers).
		} else {
			if len(in) < 8 {
				return nil, corruptf("zstd buffer of %d bytes", len(in))
			}
			if n := binary.LittleEndian.Uint64(in); n > maxDecompressed {
				return nil, corruptf("zstd buffer claims %d bytes", n)
			}
			body = in[8:]
		}
		d, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecompressed))
		if err != nil {
			return nil, corruptf("zstd: %v", err)
		}
		defer d.Close()
		out, err := io.ReadAll(io.LimitReader(d, int64(min(want, maxDecompressed))+1))
		if err != nil {
			return nil, corruptf("zstd: %v", err)
		}
		return out, nil
	case "lz4":
		if len(in) < 4 {
			return nil, corruptf("lz4 buffer of %d bytes", len(in))
		}
		n := uint64(binary.LittleEndian.Uint32(in))
		if n > maxDecompressed || n > uint64(len(in))*255+16 {
			return nil, corruptf("lz4 buffer claims %d bytes", n)
		}
		out := make([]byte, n)
		m, err := lz4.UncompressBlock(in[4:], out)
		if err != nil {
			return nil, corruptf("lz4: %v", err)
		}
		return out[:m], nil
	}
	return nil, unsupportedf("compression scheme %q", c.GetScheme())
}

func decodeFlat(bs *bufferSet, f *enc20pb.Flat, sh *shape, n uint64) (*vals, error) {
	b := f.GetBitsPerValue()
	if sh.kind != fixedShape {
		return nil, corruptf("flat encoding for a non-fixed-width type")
	}
	if b == 0 {
		return nil, corruptf("flat encoding of 0 bits per value")
	}
	if b > 1<<16 || (b != 1 && b%8 != 0) {
		return nil, unsupportedf("flat encoding of %d bits per value", b)
	}
	if sh.bits != 0 && b != sh.bits {
		return nil, corruptf("flat encoding of %d bits for %d-bit values", b, sh.bits)
	}
	if n > maxItems {
		return nil, corruptf("%d values in one page", n)
	}
	need := fixedBytes(b, n)
	buf, err := bs.get(f.GetBuffer())
	if err != nil {
		return nil, err
	}
	if f.GetCompression() != nil {
		if buf, err = decompress(f.GetCompression(), buf, need); err != nil {
			return nil, err
		}
	}
	if uint64(len(buf)) < need {
		return nil, corruptf("flat buffer of %d bytes for %d values of %d bits", len(buf), n, b)
	}
	return &vals{n: n, bits: b, data: buf[:need:need]}, nil
}

func checkIntWidth(u uint64) error {
	switch u {
	case 8, 16, 32, 64:
		return nil
	}
	return unsupportedf("bit-packed values of %d bits", u)
}

func putUint(dst []byte, width, i, v uint64) {
	switch width {
	case 8:
		dst[i] = byte(v)
	case 16:
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
	case 32:
		binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(dst[8*i:], v)
	}
}

// decodeBitpacked: n values of compressed_bits_per_value bits packed back to
// back (least significant bit first), sign extended when signed.
func decodeBitpacked(bs *bufferSet, bp *enc20pb.Bitpacked, sh *shape, n uint64) (*vals, error) {
	u, w := bp.GetUncompressedBitsPerValue(), bp.GetCompressedBitsPerValue()
	if err := checkIntWidth(u); err != nil {
		return nil, err
	}
	if sh.kind != fixedShape || (sh.bits != 0 && sh.bits != u) {
		return nil, corruptf("bit-packed %d-bit values for another type", u)
	}
	if w == 0 || w > u {
		return nil, corruptf("bit-packed width %d of %d-bit values", w, u)
	}
	if n > maxItems {
		return nil, corruptf("%d values in one page", n)
	}
	buf, err := bs.get(bp.GetBuffer())
	if err != nil {
		return nil, err
	}
	if uint64(len(buf)) < fixedBytes(w, n) {
		return nil, corruptf("bit-packed buffer of %d bytes for %d values of %d bits", len(buf), n, w)
	}
	out := make([]byte, n*u/8)
	for i := uint64(0); i < n; i++ {
		var v uint64
		pos := i * w
		for got := uint64(0); got < w; {
			byt, sh := pos/8, pos%8
			take := min(8-sh, w-got)
			v |= uint64((buf[byt]>>sh)&byte(1<<take-1)) << got
			got += take
			pos += take
		}
		if bp.GetSigned() && w < 64 && v&(1<<(w-1)) != 0 {
			v |= ^uint64(0) << w
		}
		putUint(out, u, i, v)
	}
	return &vals{n: n, bits: u, data: out}, nil
}

func decodeBitpackedForNonNeg(bs *bufferSet, bp *enc20pb.BitpackedForNonNeg, sh *shape, n uint64) (*vals, error) {
	u, w := bp.GetUncompressedBitsPerValue(), bp.GetCompressedBitsPerValue()
	if err := checkIntWidth(u); err != nil {
		return nil, err
	}
	if sh.kind != fixedShape || (sh.bits != 0 && sh.bits != u) {
		return nil, corruptf("bit-packed %d-bit values for another type", u)
	}
	if w > u {
		return nil, corruptf("bit-packed width %d of %d-bit values", w, u)
	}
	if n > maxItems {
		return nil, corruptf("%d values in one page", n)
	}
	buf, err := bs.get(bp.GetBuffer())
	if err != nil {
		return nil, err
	}
	chunks := (n + 1023) / 1024
	chunkBytes := 1024 * w / 8
	if uint64(len(buf))/max(chunkBytes, 1) < chunks && w > 0 {
		return nil, corruptf("bit-packed buffer of %d bytes for %d chunks of %d bytes", len(buf), chunks, chunkBytes)
	}
	if w == 0 {
		if n > 1<<24 {
			return nil, corruptf("%d bit-packed values of width 0", n)
		}
		return &vals{n: n, bits: u, data: make([]byte, n*u/8)}, nil
	}
	out := make([]byte, n*u/8)
	var tmp [1024]uint64
	for c := uint64(0); c < chunks; c++ {
		codec.UnpackFastLanes(u, w, buf[c*chunkBytes:(c+1)*chunkBytes], tmp[:])
		for j := uint64(0); j < 1024 && c*1024+j < n; j++ {
			putUint(out, u, c*1024+j, tmp[j])
		}
	}
	return &vals{n: n, bits: u, data: out}, nil
}

// decodeInts decodes n unsigned integers (any width of 8..64 bits).
func decodeInts(bs *bufferSet, e *enc20pb.ArrayEncoding, n uint64, depth int) ([]uint64, error) {
	v, err := decodeArray(bs, e, anyIntShape, n, depth)
	if err != nil {
		return nil, err
	}
	if v.allNull || v.valid != nil {
		return nil, corruptf("integer array (offsets or indices) has nulls")
	}
	if err := checkIntWidth(v.bits); err != nil {
		return nil, corruptf("integer array of %d bits", v.bits)
	}
	out := make([]uint64, n)
	d := v.data
	for i := range out {
		switch v.bits {
		case 8:
			out[i] = uint64(d[i])
		case 16:
			out[i] = uint64(binary.LittleEndian.Uint16(d[2*i:]))
		case 32:
			out[i] = uint64(binary.LittleEndian.Uint32(d[4*i:]))
		default:
			out[i] = binary.LittleEndian.Uint64(d[8*i:])
		}
	}
	return out, nil
}

// decodeBinary: indices hold, per value, the end of its bytes (relative to
// the page), plus null_adjustment when the value is null; a value starts where
// the previous one ended.
func decodeBinary(bs *bufferSet, b *enc20pb.Binary, sh *shape, n uint64, depth int) (*vals, error) {
	if sh.kind != variableShape {
		return nil, corruptf("binary encoding for a fixed-width type")
	}
	if n > maxItems {
		return nil, corruptf("%d values in one page", n)
	}
	idx, err := decodeInts(bs, b.GetIndices(), n, depth)
	if err != nil {
		return nil, err
	}
	adj := b.GetNullAdjustment()
	out := &vals{n: n, offs: make([]uint64, n+1)}
	var valid []byte
	for i, x := range idx {
		end := x
		if x >= adj {
			end = x - adj
			if valid == nil {
				valid = make([]byte, (n+7)/8)
				setBits(valid, 0, uint64(i))
			}
		} else if valid != nil {
			valid[i>>3] |= 1 << (i & 7)
		}
		if end < out.offs[i] {
			return nil, corruptf("binary value %d ends at %d before its start %d", i, end, out.offs[i])
		}
		out.offs[i+1] = end
	}
	out.valid = valid
	total := out.offs[n]
	if n == 0 && b.GetBytes() == nil {
		return out, nil
	}
	bv, err := decodeArray(bs, b.GetBytes(), byteShape, total, depth)
	if err != nil {
		return nil, err
	}
	if bv.allNull || bv.valid != nil {
		return nil, corruptf("binary bytes have nulls")
	}
	out.data = bv.data
	return out, nil
}

func decodeFsst(bs *bufferSet, f *enc20pb.Fsst, sh *shape, n uint64, depth int) (*vals, error) {
	t, err := parseSymbolTable(f.GetSymbolTable())
	if err != nil {
		return nil, err
	}
	in, err := decodeArray(bs, f.GetBinary(), sh, n, depth)
	if err != nil {
		return nil, err
	}
	if in.allNull {
		return in, nil
	}
	if sh.kind != variableShape {
		return nil, corruptf("fsst encoding for a fixed-width type")
	}
	out := &vals{n: n, valid: in.valid, offs: make([]uint64, n+1)}
	out.data = make([]byte, 0, len(in.data)*2)
	for i := uint64(0); i < n; i++ {
		out.data, err = t.decode(out.data, in.data[in.offs[i]:in.offs[i+1]])
		if err != nil {
			return nil, err
		}
		out.offs[i+1] = uint64(len(out.data))
	}
	return out, nil
}

// symbolTable is an FSST symbol table (codec has the format).
type symbolTable struct{ t *codec.FSSTTable }

func parseSymbolTable(b []byte) (*symbolTable, error) {
	t, err := codec.ParseFSSTTable(b)
	if err != nil {
		return nil, corruptf("%v", err)
	}
	return &symbolTable{t}, nil
}

func (t *symbolTable) decode(dst, src []byte) ([]byte, error) {
	out, err := t.t.Decode(dst, src)
	if err != nil {
		return nil, corruptf("%v", err)
	}
	return out, nil
}

// decodeDictionary: index 0 is null, index i > 0 is dictionary item i-1.
func decodeDictionary(bs *bufferSet, d *enc20pb.Dictionary, sh *shape, n uint64, depth int) (*vals, error) {
	if n > maxItems {
		return nil, corruptf("%d values in one page", n)
	}
	idx, err := decodeInts(bs, d.GetIndices(), n, depth)
	if err != nil {
		return nil, err
	}
	k := uint64(d.GetNumDictionaryItems())
	items, err := decodeArray(bs, d.GetItems(), sh, k, depth)
	if err != nil {
		return nil, err
	}
	for i, x := range idx {
		if x > k {
			return nil, corruptf("dictionary index %d at %d of %d items", x, i, k)
		}
	}
	return gather(sh, items, idx)
}

// gather picks items[idx[i]-1] (idx 0: null) for every i.
func gather(sh *shape, items *vals, idx []uint64) (*vals, error) {
	n := uint64(len(idx))
	out := &vals{n: n, valid: make([]byte, (n+7)/8), bits: items.bits}
	isValid := func(x uint64) bool {
		return x != 0 && !items.allNull && (items.valid == nil || getBit(items.valid, x-1))
	}
	for i, x := range idx {
		if isValid(x) {
			out.valid[i>>3] |= 1 << (i & 7)
		}
	}
	if items.allNull {
		return &vals{n: n, allNull: true}, nil
	}
	switch sh.kind {
	case fixedShape:
		b := items.bits
		out.data = make([]byte, fixedBytes(b, n))
		for i, x := range idx {
			if x == 0 {
				continue
			}
			if b == 1 {
				if getBit(items.data, x-1) {
					out.data[i>>3] |= 1 << (i & 7)
				}
			} else {
				w := b / 8
				copy(out.data[uint64(i)*w:], items.data[(x-1)*w:x*w])
			}
		}
	case variableShape:
		out.offs = make([]uint64, n+1)
		for i, x := range idx {
			if x != 0 {
				if uint64(len(out.data))+items.offs[x]-items.offs[x-1] > maxDecompressed {
					return nil, corruptf("dictionary expands past %d bytes", maxDecompressed)
				}
				out.data = append(out.data, items.data[items.offs[x-1]:items.offs[x]]...)
			}
			out.offs[i+1] = uint64(len(out.data))
		}
	case fslShape:
		if n > maxPageValues/sh.dim {
			return nil, corruptf("%d dictionary lists of %d items", n, sh.dim)
		}
		var cidx []uint64
		for _, x := range idx {
			for j := uint64(0); j < sh.dim; j++ {
				if x == 0 {
					cidx = append(cidx, 0)
				} else {
					cidx = append(cidx, (x-1)*sh.dim+j+1)
				}
			}
		}
		c, err := gather(sh.child, items.child, cidx)
		if err != nil {
			return nil, err
		}
		out.child = c
	}
	return out, nil
}

func decodeFixedSizeList(bs *bufferSet, f *enc20pb.FixedSizeList, sh *shape, n uint64, depth int) (*vals, error) {
	if sh.kind != fslShape {
		return nil, corruptf("fixed-size list encoding for another type")
	}
	if uint64(f.GetDimension()) != sh.dim {
		return nil, corruptf("fixed-size list of dimension %d for dimension %d", f.GetDimension(), sh.dim)
	}
	if n > maxItems/sh.dim {
		return nil, corruptf("%d lists of %d items", n, sh.dim)
	}
	items, err := decodeArray(bs, f.GetItems(), sh.child, n*sh.dim, depth)
	if err != nil {
		return nil, err
	}
	return &vals{n: n, child: items}, nil
}

func decodeFixedSizeBinary(bs *bufferSet, f *enc20pb.FixedSizeBinary, sh *shape, n uint64, depth int) (*vals, error) {
	w := uint64(f.GetByteWidth())
	if w > maxDimension {
		return nil, corruptf("fixed-size binary of width %d", w)
	}
	if n > 0 && w > maxItems/n {
		return nil, corruptf("%d values of %d bytes", n, w)
	}
	switch {
	case sh.kind == fixedShape && sh.bits == 8*w:
		v, err := decodeArray(bs, f.GetBytes(), byteShape, n*w, depth)
		if err != nil {
			return nil, err
		}
		return &vals{n: n, bits: 8 * w, data: v.data}, nil
	case sh.kind == variableShape:
		v, err := decodeArray(bs, f.GetBytes(), byteShape, n*w, depth)
		if err != nil {
			return nil, err
		}
		out := &vals{n: n, data: v.data, offs: make([]uint64, n+1)}
		for i := range out.offs {
			out.offs[i] = uint64(i) * w
		}
		return out, nil
	}
	return nil, corruptf("fixed-size binary encoding for another type")
}
