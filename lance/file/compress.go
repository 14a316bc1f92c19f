package lancefile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

// maxDecompressed bounds the output of one general (LZ4/zstd) decompression.
const maxDecompressed = 1 << 30

func flatOf(e *enc21pb.CompressiveEncoding) *enc21pb.Flat {
	if e == nil {
		return nil
	}
	if f, ok := e.Compression.(*enc21pb.CompressiveEncoding_Flat); ok {
		return f.Flat
	}
	return nil
}

func encName(e *enc21pb.CompressiveEncoding) string {
	if e == nil || e.Compression == nil {
		return "<none>"
	}
	return fmt.Sprintf("%T", e.Compression)
}

// decompressGeneral undoes LZ4 (block format with a u32 LE size prefix) or
// zstd (a frame, or a u64 LE size prefix followed by a frame).
func decompressGeneral(bc *enc21pb.BufferCompression, in []byte) ([]byte, error) {
	if bc == nil {
		return nil, corruptf("general compression without a scheme")
	}
	switch bc.Scheme {
	case enc21pb.CompressionScheme_COMPRESSION_ALGORITHM_LZ4:
		if len(in) < 4 {
			return nil, corruptf("lz4 buffer of %d bytes", len(in))
		}
		n := binary.LittleEndian.Uint32(in)
		// LZ4 expands at most ~255x.
		if uint64(n) > maxDecompressed || uint64(n) > uint64(len(in))*255+16 {
			return nil, corruptf("lz4 buffer claims %d bytes", n)
		}
		out := make([]byte, n)
		m, err := lz4.UncompressBlock(in[4:], out)
		if err != nil {
			return nil, corruptf("lz4: %v", err)
		}
		if m != int(n) {
			return nil, corruptf("lz4: %d bytes, header says %d", m, n)
		}
		return out, nil
	case enc21pb.CompressionScheme_COMPRESSION_ALGORITHM_ZSTD:
		if len(in) == 0 {
			return nil, nil
		}
		raw := len(in) < 8 || (binary.LittleEndian.Uint32(in) == 0xFD2FB528 && in[4]&0x10 == 0)
		body := in
		var want uint64
		if !raw {
			want = binary.LittleEndian.Uint64(in)
			body = in[8:]
			if want > maxDecompressed {
				return nil, corruptf("zstd buffer claims %d bytes", want)
			}
		}
		d, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecompressed))
		if err != nil {
			return nil, corruptf("zstd: %v", err)
		}
		defer d.Close()
		out, err := io.ReadAll(io.LimitReader(d, maxDecompressed+1))
		if err != nil {
			return nil, corruptf("zstd: %v", err)
		}
		if !raw && uint64(len(out)) != want {
			return nil, corruptf("zstd: %d bytes, header says %d", len(out), want)
		}
		return out, nil
	}
	return nil, unsupportedf("general compression scheme %v", bc.Scheme)
}

// fsstTables are the FSST symbol tables of one page's encoding, parsed once
// when the page is loaded instead of once per chunk (a table is 2 KiB and a
// chunk often holds a few hundred short strings). Read-only once built, so
// concurrent reads of the page may share it.
type fsstTables map[*enc21pb.Fsst]*fsstTable

// collectFSST parses the symbol tables of every FSST layer of e into into.
func collectFSST(e *enc21pb.CompressiveEncoding, into fsstTables) error {
	for e != nil {
		switch c := e.Compression.(type) {
		case *enc21pb.CompressiveEncoding_Fsst:
			t, err := parseFSSTTable(c.Fsst.SymbolTable)
			if err != nil {
				return err
			}
			into[c.Fsst] = t
			e = c.Fsst.Values
		case *enc21pb.CompressiveEncoding_General:
			e = c.General.Values
		default:
			return nil
		}
	}
	return nil
}

// decodeMiniBlock decodes the value buffers of one mini-block chunk holding
// n values. fsst holds the page's parsed FSST tables (nil: parse them here).
func decodeMiniBlock(e *enc21pb.CompressiveEncoding, bufs [][]byte, n uint64, fsst fsstTables) (*block, error) {
	if e == nil {
		return nil, corruptf("mini-block without value compression")
	}
	if n > maxItems {
		return nil, corruptf("mini-block of %d values", n)
	}
	switch c := e.Compression.(type) {
	case *enc21pb.CompressiveEncoding_Flat:
		if len(bufs) != 1 {
			return nil, corruptf("flat mini-block with %d buffers", len(bufs))
		}
		if err := checkFlat(c.Flat); err != nil {
			return nil, err
		}
		return newFixed(c.Flat.BitsPerValue, n, bufs[0])
	case *enc21pb.CompressiveEncoding_InlineBitpacking:
		if len(bufs) != 1 || c.InlineBitpacking.Values != nil {
			return nil, unsupportedf("inline bitpacking with %d buffers / buffer compression", len(bufs))
		}
		return decodeInlineBitpacking(c.InlineBitpacking.UncompressedBitsPerValue, bufs[0], n)
	case *enc21pb.CompressiveEncoding_Variable:
		if len(bufs) != 1 {
			return nil, corruptf("variable mini-block with %d buffers", len(bufs))
		}
		off := flatOf(c.Variable.Offsets)
		if off == nil || c.Variable.Values != nil {
			return nil, unsupportedf("variable mini-block offsets %s", encName(c.Variable.Offsets))
		}
		return decodeVariableMiniBlock(off.BitsPerValue, bufs[0], n)
	case *enc21pb.CompressiveEncoding_Fsst:
		t := fsst[c.Fsst]
		if t == nil {
			var err error
			if t, err = parseFSSTTable(c.Fsst.SymbolTable); err != nil {
				return nil, err
			}
		}
		inner, err := decodeMiniBlock(c.Fsst.Values, bufs, n, fsst)
		if err != nil {
			return nil, err
		}
		if !inner.variable {
			return nil, corruptf("fsst over fixed-width values")
		}
		return t.decodeBlock(inner)
	case *enc21pb.CompressiveEncoding_FixedSizeList:
		return decodeFSLMiniBlock(c.FixedSizeList, bufs, n)
	case *enc21pb.CompressiveEncoding_Rle:
		vf, lf := flatOf(c.Rle.Values), flatOf(c.Rle.RunLengths)
		if vf == nil || lf == nil || lf.BitsPerValue != 8 {
			return nil, unsupportedf("rle values %s, run lengths %s", encName(c.Rle.Values), encName(c.Rle.RunLengths))
		}
		if len(bufs) != 2 {
			return nil, corruptf("rle mini-block with %d buffers", len(bufs))
		}
		return decodeRLE(vf.BitsPerValue, bufs[0], bufs[1], n)
	case *enc21pb.CompressiveEncoding_ByteStreamSplit:
		vf := flatOf(c.ByteStreamSplit.Values)
		if vf == nil || len(bufs) != 1 {
			return nil, unsupportedf("byte stream split over %s", encName(c.ByteStreamSplit.Values))
		}
		return decodeBSS(vf.BitsPerValue, bufs[0], n)
	case *enc21pb.CompressiveEncoding_General:
		if len(bufs) == 0 {
			return nil, corruptf("general mini-block without buffers")
		}
		first, err := decompressGeneral(c.General.Compression, bufs[0])
		if err != nil {
			return nil, err
		}
		nb := append([][]byte{first}, bufs[1:]...)
		return decodeMiniBlock(c.General.Values, nb, n, fsst)
	case *enc21pb.CompressiveEncoding_Constant:
		return constantBlock(c.Constant.Value, n)
	}
	return nil, unsupportedf("mini-block compression %s", encName(e))
}

func checkFlat(f *enc21pb.Flat) error {
	if f.Data != nil {
		return unsupportedf("flat with buffer compression")
	}
	return nil
}

func constantBlock(v []byte, n uint64) (*block, error) {
	if len(v) == 0 {
		return nil, unsupportedf("constant without a value")
	}
	if n > maxItems || n*uint64(len(v)) > maxDecompressed {
		return nil, corruptf("constant of %d values", n)
	}
	data := bytes.Repeat(v, int(n))
	return &block{n: n, bits: uint64(len(v)) * 8, data: data}, nil
}

func decodeVariableMiniBlock(bpo uint64, buf []byte, n uint64) (*block, error) {
	if bpo != 32 && bpo != 64 {
		return nil, corruptf("variable offsets of %d bits", bpo)
	}
	w := bpo / 8
	if (n+1)*w > uint64(len(buf)) {
		return nil, corruptf("variable mini-block: %d offsets in %d bytes", n+1, len(buf))
	}
	offs := make([]uint64, n+1)
	for i := range offs {
		if w == 4 {
			offs[i] = uint64(le32(buf[uint64(i)*4:]))
		} else {
			offs[i] = le64(buf[uint64(i)*8:])
		}
	}
	base := offs[0]
	for i := range offs {
		if offs[i] < base || offs[i] > uint64(len(buf)) || (i > 0 && offs[i] < offs[i-1]) {
			return nil, corruptf("variable mini-block: bad offset %d", offs[i])
		}
		offs[i] -= base
	}
	return &block{n: n, variable: true, offsets: offs, data: buf[base : base+offs[n]]}, nil
}

// decodeFSLMiniBlock: buffers are the validity bitmaps of each layer that has
// one (outermost first) followed by the flat item data.
func decodeFSLMiniBlock(fsl *enc21pb.FixedSizeList, bufs [][]byte, n uint64) (*block, error) {
	dim := fsl.ItemsPerValue
	if dim == 0 || dim > 1<<20 {
		return nil, corruptf("fixed-size list of %d items", dim)
	}
	if _, nested := fsl.Values.GetCompression().(*enc21pb.CompressiveEncoding_FixedSizeList); nested {
		return nil, unsupportedf("nested fixed-size lists")
	}
	f := flatOf(fsl.Values)
	if f == nil {
		return nil, unsupportedf("fixed-size list over %s", encName(fsl.Values))
	}
	want := 1
	if fsl.HasValidity {
		want = 2
	}
	if len(bufs) != want {
		return nil, corruptf("fixed-size list mini-block with %d buffers, want %d", len(bufs), want)
	}
	if n > maxItems/dim {
		return nil, corruptf("fixed-size list of %d values", n)
	}
	items, err := newFixed(f.BitsPerValue, n*dim, bufs[len(bufs)-1])
	if err != nil {
		return nil, err
	}
	b := &block{n: n, bits: f.BitsPerValue, dim: dim, data: items.data}
	if fsl.HasValidity {
		if uint64(len(bufs[0])) < (n*dim+7)/8 {
			return nil, corruptf("fixed-size list validity too short")
		}
		b.itemValid = bufs[0][:(n*dim+7)/8]
	}
	return b, nil
}

func decodeRLE(bits uint64, vals, lens []byte, n uint64) (*block, error) {
	if bits%8 != 0 || bits == 0 || bits > 64 {
		return nil, unsupportedf("rle of %d-bit values", bits)
	}
	w := bits / 8
	runs := uint64(len(lens))
	if runs*w > uint64(len(vals)) {
		return nil, corruptf("rle: %d runs, %d value bytes", runs, len(vals))
	}
	var total uint64
	for _, l := range lens {
		total += uint64(l)
	}
	if total < n {
		return nil, corruptf("rle: runs cover %d of %d values", total, n)
	}
	out := make([]byte, 0, n*w)
	for i := uint64(0); i < runs && uint64(len(out)) < n*w; i++ {
		v := vals[i*w : (i+1)*w]
		for j := 0; j < int(lens[i]) && uint64(len(out)) < n*w; j++ {
			out = append(out, v...)
		}
	}
	return &block{n: n, bits: bits, data: out}, nil
}

func decodeBSS(bits uint64, buf []byte, n uint64) (*block, error) {
	if bits%8 != 0 || bits == 0 || bits > 64 {
		return nil, unsupportedf("byte stream split of %d-bit values", bits)
	}
	w := bits / 8
	if n*w > uint64(len(buf)) {
		return nil, corruptf("byte stream split: %d values in %d bytes", n, len(buf))
	}
	out := make([]byte, n*w)
	for j := uint64(0); j < w; j++ {
		for i := uint64(0); i < n; i++ {
			out[i*w+j] = buf[j*n+i]
		}
	}
	return &block{n: n, bits: bits, data: out}, nil
}

// decodeBlockBuf decodes a whole buffer holding n values (the "block"
// decompressors: rep/def levels, dictionaries).
func decodeBlockBuf(e *enc21pb.CompressiveEncoding, buf []byte, n uint64) (*block, error) {
	if e == nil {
		return nil, corruptf("missing block compression")
	}
	if n > maxItems {
		return nil, corruptf("block of %d values", n)
	}
	switch c := e.Compression.(type) {
	case *enc21pb.CompressiveEncoding_Flat:
		if err := checkFlat(c.Flat); err != nil {
			return nil, err
		}
		return newFixed(c.Flat.BitsPerValue, n, buf)
	case *enc21pb.CompressiveEncoding_InlineBitpacking:
		return decodeInlineBitpacking(c.InlineBitpacking.UncompressedBitsPerValue, buf, n)
	case *enc21pb.CompressiveEncoding_OutOfLineBitpacking:
		f := flatOf(c.OutOfLineBitpacking.Values)
		if f == nil {
			return nil, unsupportedf("out-of-line bitpacking over %s", encName(c.OutOfLineBitpacking.Values))
		}
		return decodeOutOfLineBitpacking(c.OutOfLineBitpacking.UncompressedBitsPerValue, f.BitsPerValue, buf, n)
	case *enc21pb.CompressiveEncoding_Constant:
		return constantBlock(c.Constant.Value, n)
	case *enc21pb.CompressiveEncoding_Variable:
		return decodeVariableBlock(buf, n)
	case *enc21pb.CompressiveEncoding_FixedSizeList:
		return decodeFSLMiniBlock(c.FixedSizeList, [][]byte{buf}, n)
	case *enc21pb.CompressiveEncoding_General:
		raw, err := decompressGeneral(c.General.Compression, buf)
		if err != nil {
			return nil, err
		}
		return decodeBlockBuf(c.General.Values, raw, n)
	case *enc21pb.CompressiveEncoding_Rle:
		// Block RLE (2.2 levels): [u64 size of the run values][run values][u8 run lengths].
		vf, lf := flatOf(c.Rle.Values), flatOf(c.Rle.RunLengths)
		if vf == nil || lf == nil || lf.BitsPerValue != 8 {
			return nil, unsupportedf("rle values %s, run lengths %s", encName(c.Rle.Values), encName(c.Rle.RunLengths))
		}
		if len(buf) < 8 {
			return nil, corruptf("rle block of %d bytes", len(buf))
		}
		vs := le64(buf)
		if vs > uint64(len(buf))-8 {
			return nil, corruptf("rle block: %d bytes of run values in %d", vs, len(buf)-8)
		}
		return decodeRLE(vf.BitsPerValue, buf[8:8+vs], buf[8+vs:], n)
	}
	return nil, unsupportedf("block compression %s", encName(e))
}

// decodeVariableBlock: [bits per offset][start of data][offsets...][data], the
// two header fields being 4 bytes each for 32-bit offsets, 8 for 64-bit.
func decodeVariableBlock(buf []byte, n uint64) (*block, error) {
	if len(buf) < 8 {
		return nil, corruptf("variable block of %d bytes", len(buf))
	}
	var bpo, start, hdr uint64
	if buf[1] != 0 || buf[2] != 0 || buf[3] != 0 {
		return nil, unsupportedf("legacy variable block header")
	}
	bpo = uint64(le32(buf))
	switch bpo {
	case 32:
		start, hdr = uint64(le32(buf[4:])), 8
	case 64:
		if len(buf) < 16 {
			return nil, corruptf("variable block of %d bytes", len(buf))
		}
		start, hdr = le64(buf[8:]), 16
	default:
		return nil, corruptf("variable block with %d-bit offsets", bpo)
	}
	w := bpo / 8
	if n > maxItems || hdr+(n+1)*w > uint64(len(buf)) || start > uint64(len(buf)) || start < hdr {
		return nil, corruptf("variable block: %d values in %d bytes", n, len(buf))
	}
	offs := make([]uint64, n+1)
	for i := range offs {
		p := hdr + uint64(i)*w
		if w == 4 {
			offs[i] = uint64(le32(buf[p:]))
		} else {
			offs[i] = le64(buf[p:])
		}
	}
	data := buf[start:]
	base := offs[0]
	for i := range offs {
		if offs[i] < base || offs[i]-base > uint64(len(data)) || (i > 0 && offs[i] < offs[i-1]) {
			return nil, corruptf("variable block: bad offset %d", offs[i])
		}
	}
	for i := range offs {
		offs[i] -= base
	}
	return &block{n: n, variable: true, offsets: offs, data: data[base : base+offs[n]]}, nil
}
