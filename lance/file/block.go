package lancefile

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxItems bounds any count taken from a file before it is used to size an
// allocation that the input bytes do not already justify.
const maxItems = 1 << 28

// block is a decoded run of values: fixed width (bits per item, possibly
// fixed-size-list of dim items with optional inner validity) or variable
// width (offsets into data).
type block struct {
	n        uint64 // number of values
	variable bool
	// fixed width
	bits      uint64 // bits per item
	dim       uint64 // items per value for fixed-size lists (0 or 1: plain)
	itemValid []byte // fixed-size-list item validity, n*dim bits; nil: all valid
	// variable width
	offsets []uint64 // n+1 offsets into data
	data    []byte
	// owner, when set, allocated data (a recycled buffer of a packed read,
	// WithRecycledBuffers): the array built over data frees it to owner
	// when released. A slice of the block does not inherit it.
	owner memory.Allocator
}

func (b *block) itemsPerValue() uint64 {
	if b.dim == 0 {
		return 1
	}
	return b.dim
}

// fixedBytes is the byte size of n fixed-width values.
func (b *block) fixedBytes(n uint64) uint64 {
	return (n*b.itemsPerValue()*b.bits + 7) / 8
}

func newFixed(bits, n uint64, data []byte) (*block, error) {
	if bits == 0 || bits > 1<<20 {
		return nil, corruptf("fixed width of %d bits", bits)
	}
	if n > maxItems || (n*bits+7)/8 > uint64(len(data)) {
		return nil, corruptf("%d values of %d bits need more than %d bytes", n, bits, len(data))
	}
	return &block{n: n, bits: bits, data: data[:(n*bits+7)/8]}, nil
}

// check verifies the block's buffers hold its n values.
func (b *block) check() error {
	if b == nil {
		return corruptf("missing values")
	}
	if b.n > maxItems {
		return corruptf("%d values", b.n)
	}
	if b.variable {
		if uint64(len(b.offsets)) != b.n+1 {
			return corruptf("%d offsets for %d values", len(b.offsets), b.n)
		}
		for i := 1; i < len(b.offsets); i++ {
			if b.offsets[i] < b.offsets[i-1] {
				return corruptf("decreasing offsets")
			}
		}
		if b.offsets[b.n] > uint64(len(b.data)) {
			return corruptf("offsets past %d data bytes", len(b.data))
		}
		return nil
	}
	if b.bits == 0 || b.bits > 1<<20 || b.itemsPerValue() > 1<<20 {
		return corruptf("fixed width %d x %d bits", b.itemsPerValue(), b.bits)
	}
	if b.fixedBytes(b.n) > uint64(len(b.data)) {
		return corruptf("%d values of %d bits in %d bytes", b.n, b.bits, len(b.data))
	}
	if b.itemValid != nil && (b.n*b.itemsPerValue()+7)/8 > uint64(len(b.itemValid)) {
		return corruptf("short item validity")
	}
	return nil
}

// slice returns values [from, to) as a new block (sharing data for byte-aligned widths).
func (b *block) slice(from, to uint64) *block {
	if b.variable {
		out := &block{n: to - from, variable: true}
		out.offsets = make([]uint64, to-from+1)
		base := b.offsets[from]
		for i := range out.offsets {
			out.offsets[i] = b.offsets[from+uint64(i)] - base
		}
		out.data = b.data[base:b.offsets[to]]
		return out
	}
	out := &block{n: to - from, bits: b.bits, dim: b.dim}
	per := b.itemsPerValue() * b.bits
	if per%8 == 0 {
		out.data = b.data[from*per/8 : to*per/8]
	} else {
		out.data = make([]byte, ((to-from)*per+7)/8)
		copyBits(out.data, 0, b.data, from*per, (to-from)*per)
	}
	if b.itemValid != nil {
		d := b.itemsPerValue()
		out.itemValid = make([]byte, ((to-from)*d+7)/8)
		copyBits(out.itemValid, 0, b.itemValid, from*d, (to-from)*d)
	}
	return out
}

// blockBuilder concatenates blocks of the same shape.
type blockBuilder struct {
	b       *block
	nbits   uint64 // fixed: bits written
	started bool
	// dataHint, when set before the first append, is the data bytes the
	// appends will bring (at most): the buffer is sized once instead of
	// growing by doubling, which copied a scan chunk of 768-float vectors
	// spanning several pages about twice over.
	dataHint uint64
}

func (bb *blockBuilder) append(x *block) error {
	if err := x.check(); err != nil {
		return err
	}
	if !bb.started {
		bb.started = true
		bb.b = &block{variable: x.variable, bits: x.bits, dim: x.dim}
		if bb.dataHint > 0 {
			bb.b.data = make([]byte, 0, bb.dataHint)
		}
		if x.variable {
			bb.b.offsets = []uint64{0}
		}
	}
	b := bb.b
	if b.variable != x.variable || (!x.variable && (b.bits != x.bits || b.itemsPerValue() != x.itemsPerValue())) {
		return corruptf("pages of one column decode to different value shapes")
	}
	if x.variable {
		base := b.offsets[len(b.offsets)-1]
		start := x.offsets[0]
		for _, o := range x.offsets[1:] {
			b.offsets = append(b.offsets, base+o-start)
		}
		b.data = append(b.data, x.data[start:x.offsets[x.n]]...)
		b.n += x.n
		return nil
	}
	per := x.itemsPerValue() * x.bits
	if per%8 == 0 {
		b.data = append(b.data, x.data[:x.n*per/8]...)
	} else {
		need := (bb.nbits + x.n*per + 7) / 8
		for uint64(len(b.data)) < need {
			b.data = append(b.data, 0)
		}
		copyBits(b.data, bb.nbits, x.data, 0, x.n*per)
	}
	d := x.itemsPerValue()
	if x.itemValid != nil || b.itemValid != nil {
		if b.itemValid == nil {
			b.itemValid = make([]byte, (b.n*d+7)/8)
			setBits(b.itemValid, 0, b.n*d)
		}
		need := ((b.n+x.n)*d + 7) / 8
		for uint64(len(b.itemValid)) < need {
			b.itemValid = append(b.itemValid, 0)
		}
		if x.itemValid != nil {
			copyBits(b.itemValid, b.n*d, x.itemValid, 0, x.n*d)
		} else {
			setBits(b.itemValid, b.n*d, x.n*d)
		}
	}
	bb.nbits += x.n * per
	b.n += x.n
	return nil
}

// concatBlocks concatenates blocks of one shape into one, sizing its
// buffers once. A single block is returned as it is (after checking it).
func concatBlocks(xs []*block) (*block, error) {
	if len(xs) == 1 {
		if err := xs[0].check(); err != nil {
			return nil, err
		}
		return xs[0], nil
	}
	var n, dataBytes uint64
	for _, x := range xs {
		if err := x.check(); err != nil {
			return nil, err
		}
		n += x.n
		if x.variable {
			dataBytes += x.offsets[x.n] - x.offsets[0]
		} else {
			dataBytes += x.fixedBytes(x.n)
		}
	}
	var bb blockBuilder
	if len(xs) > 0 {
		x := xs[0]
		bb.started = true
		bb.b = &block{variable: x.variable, bits: x.bits, dim: x.dim, data: make([]byte, 0, dataBytes)}
		if x.variable {
			bb.b.offsets = make([]uint64, 1, n+1)
		}
	}
	for _, x := range xs {
		if err := bb.append(x); err != nil {
			return nil, err
		}
	}
	return bb.finish(nil), nil
}

func (bb *blockBuilder) finish(proto *block) *block {
	if !bb.started {
		if proto == nil {
			return &block{bits: 8}
		}
		e := &block{variable: proto.variable, bits: proto.bits, dim: proto.dim}
		if e.variable {
			e.offsets = []uint64{0}
		}
		return e
	}
	return bb.b
}

func getBit(b []byte, i uint64) bool { return b[i>>3]&(1<<(i&7)) != 0 }

func setBits(dst []byte, at, n uint64) {
	for i := at; i < at+n; i++ {
		dst[i>>3] |= 1 << (i & 7)
	}
}

// copyBits copies n bits from src at bit sOff to dst at bit dOff (dst bits are OR-ed/cleared).
func copyBits(dst []byte, dOff uint64, src []byte, sOff, n uint64) {
	if dOff%8 == 0 && sOff%8 == 0 {
		nb := n / 8
		copy(dst[dOff/8:], src[sOff/8:sOff/8+nb])
		dOff += nb * 8
		sOff += nb * 8
		n -= nb * 8
	}
	for i := uint64(0); i < n; i++ {
		if getBit(src, sOff+i) {
			dst[(dOff+i)>>3] |= 1 << ((dOff + i) & 7)
		} else {
			dst[(dOff+i)>>3] &^= 1 << ((dOff + i) & 7)
		}
	}
}

// uintAt reads value i of a fixed block of 8/16/32/64-bit values as uint64.
func uintAt(data []byte, bits, i uint64) uint64 {
	switch bits {
	case 8:
		return uint64(data[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(data[2*i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(data[4*i:]))
	case 64:
		return binary.LittleEndian.Uint64(data[8*i:])
	}
	return 0
}

// levels converts a fixed block of 8/16/32/64-bit values into rep/def levels.
func (b *block) levels() ([]uint16, error) {
	if b.variable || b.itemsPerValue() != 1 {
		return nil, corruptf("levels are not a plain fixed-width block")
	}
	switch b.bits {
	case 8, 16, 32, 64:
	default:
		return nil, unsupportedf("%d-bit levels", b.bits)
	}
	out := make([]uint16, b.n)
	for i := range out {
		v := uintAt(b.data, b.bits, uint64(i))
		if v > 0xFFFF {
			return nil, corruptf("level %d out of range", v)
		}
		out[i] = uint16(v)
	}
	return out, nil
}
