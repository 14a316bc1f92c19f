package enc20

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// shapeKind is the physical layout of decoded values.
type shapeKind int

const (
	fixedShape    shapeKind = iota // bits per value (1: bitmap)
	variableShape                  // offsets + bytes
	fslShape                       // dim child values per value
)

// shape is the physical layout a decoder must produce for an Arrow type.
type shape struct {
	kind  shapeKind
	bits  uint64 // fixedShape: bits per value; 0 accepts any integer width
	dim   uint64 // fslShape
	child *shape // fslShape
}

var (
	anyIntShape = &shape{kind: fixedShape}
	byteShape   = &shape{kind: fixedShape, bits: 8}
	bitShape    = &shape{kind: fixedShape, bits: 1}
	varShape    = &shape{kind: variableShape}
)

func shapeOf(dt arrow.DataType) (*shape, error) {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return bitShape, nil
	case *arrow.StringType, *arrow.BinaryType, *arrow.LargeStringType, *arrow.LargeBinaryType:
		return varShape, nil
	case *arrow.FixedSizeListType:
		c, err := shapeOf(t.Elem())
		if err != nil {
			return nil, err
		}
		if t.Len() <= 0 || t.Len() > maxDimension {
			return nil, unsupportedf("fixed-size list of dimension %d", t.Len())
		}
		return &shape{kind: fslShape, dim: uint64(t.Len()), child: c}, nil
	case arrow.FixedWidthDataType:
		b := t.BitWidth()
		if b <= 0 || (b%8 != 0 && b != 1) {
			return nil, unsupportedf("type %s", dt)
		}
		return &shape{kind: fixedShape, bits: uint64(b)}, nil
	}
	return nil, unsupportedf("type %s", dt)
}

// vals is a decoded run of n values of one shape.
type vals struct {
	n       uint64
	allNull bool   // nothing else is set: n null values
	valid   []byte // validity bitmap (LSB first); nil: no nulls
	data    []byte // fixed: n values of shape.bits; variable: the bytes
	offs    []uint64
	bits    uint64 // fixed: the width actually decoded (shape.bits may be 0)
	child   *vals  // fsl: n*dim values
}

func fixedBytes(bits, n uint64) uint64 { return (bits*n + 7) / 8 }

// slice returns values [a, b) of v.
func (v *vals) slice(sh *shape, a, b uint64) *vals {
	n := b - a
	if v.allNull {
		return &vals{n: n, allNull: true}
	}
	out := &vals{n: n, bits: v.bits}
	if v.valid != nil {
		out.valid = make([]byte, (n+7)/8)
		copyBits(out.valid, 0, v.valid, a, n)
	}
	switch sh.kind {
	case fixedShape:
		if v.bits == 1 {
			out.data = make([]byte, (n+7)/8)
			copyBits(out.data, 0, v.data, a, n)
		} else {
			w := v.bits / 8
			out.data = v.data[a*w : b*w]
		}
	case variableShape:
		out.data = v.data
		out.offs = v.offs[a : b+1]
	case fslShape:
		out.child = v.child.slice(sh.child, a*sh.dim, b*sh.dim)
	}
	return out
}

// concat joins pieces of one shape into one run.
func concat(sh *shape, pieces []*vals) (*vals, error) {
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	var n uint64
	all, anyNull := true, false
	for _, p := range pieces {
		n += p.n
		all = all && p.allNull
		anyNull = anyNull || p.allNull || p.valid != nil
	}
	if n > maxItems {
		return nil, corruptf("%d values in one request", n)
	}
	if all {
		return &vals{n: n, allNull: true}, nil
	}
	out := &vals{n: n}
	if anyNull {
		out.valid = make([]byte, (n+7)/8)
	}
	var at uint64
	for _, p := range pieces {
		if anyNull {
			switch {
			case p.allNull:
			case p.valid == nil:
				setBits(out.valid, at, p.n)
			default:
				copyBits(out.valid, at, p.valid, 0, p.n)
			}
		}
		at += p.n
	}
	switch sh.kind {
	case fixedShape:
		b := sh.bits
		for _, p := range pieces {
			if !p.allNull {
				b = p.bits
				break
			}
		}
		out.bits = b
		if b == 1 {
			out.data = make([]byte, (n+7)/8)
			at = 0
			for _, p := range pieces {
				if !p.allNull {
					copyBits(out.data, at, p.data, 0, p.n)
				}
				at += p.n
			}
		} else {
			out.data = make([]byte, 0, fixedBytes(b, n))
			for _, p := range pieces {
				if p.allNull {
					out.data = append(out.data, make([]byte, fixedBytes(b, p.n))...)
				} else {
					if p.bits != b {
						return nil, corruptf("pages of one column decode to %d and %d bits", p.bits, b)
					}
					out.data = append(out.data, p.data...)
				}
			}
		}
	case variableShape:
		var total uint64
		for _, p := range pieces {
			if !p.allNull {
				total += p.offs[p.n] - p.offs[0]
			}
		}
		out.data = make([]byte, 0, total)
		out.offs = make([]uint64, 1, n+1)
		for _, p := range pieces {
			if p.allNull {
				last := out.offs[len(out.offs)-1]
				for i := uint64(0); i < p.n; i++ {
					out.offs = append(out.offs, last)
				}
				continue
			}
			base := uint64(len(out.data)) - p.offs[0]
			out.data = append(out.data, p.data[p.offs[0]:p.offs[p.n]]...)
			for _, o := range p.offs[1:] {
				out.offs = append(out.offs, o+base)
			}
		}
	case fslShape:
		children := make([]*vals, len(pieces))
		for i, p := range pieces {
			if p.allNull {
				children[i] = &vals{n: p.n * sh.dim, allNull: true}
			} else {
				children[i] = p.child
			}
		}
		c, err := concat(sh.child, children)
		if err != nil {
			return nil, err
		}
		out.child = c
	}
	return out, nil
}

// toArrow builds the Arrow array data of v as type dt (of shape sh).
func toArrow(v *vals, sh *shape, dt arrow.DataType) (arrow.ArrayData, error) {
	n := v.n
	if n > math.MaxInt32*4 {
		return nil, corruptf("%d values", n)
	}
	valid, nulls := v.valid, 0
	if v.allNull {
		valid = make([]byte, (n+7)/8)
		nulls = int(n)
	} else if valid != nil {
		nulls = int(n) - countBits(valid, n)
		if nulls == 0 {
			valid = nil
		}
	}
	var vb *memory.Buffer
	if valid != nil {
		vb = memory.NewBufferBytes(valid)
	}
	switch sh.kind {
	case fixedShape:
		data := v.data
		if v.allNull {
			data = make([]byte, fixedBytes(sh.bits, n))
		} else if v.bits != sh.bits {
			return nil, corruptf("decoded %d-bit values for %s", v.bits, dt)
		}
		return array.NewData(dt, int(n), []*memory.Buffer{vb, memory.NewBufferBytes(data)}, nil, nulls, 0), nil
	case variableShape:
		large := false
		switch dt.(type) {
		case *arrow.LargeStringType, *arrow.LargeBinaryType:
			large = true
		}
		var data []byte
		var offs []uint64
		if v.allNull {
			offs = make([]uint64, n+1)
		} else {
			offs = v.offs
			data = v.data[offs[0]:offs[n]]
		}
		var ob []byte
		if large {
			ob = make([]byte, 8*(n+1))
			for i, o := range offs {
				binary.LittleEndian.PutUint64(ob[8*i:], o-offs[0])
			}
		} else {
			if offs[n]-offs[0] > math.MaxInt32 {
				return nil, unsupportedf("%d bytes do not fit 32-bit offsets of %s", offs[n]-offs[0], dt)
			}
			ob = make([]byte, 4*(n+1))
			for i, o := range offs {
				binary.LittleEndian.PutUint32(ob[4*i:], uint32(o-offs[0]))
			}
		}
		return array.NewData(dt, int(n), []*memory.Buffer{vb, memory.NewBufferBytes(ob), memory.NewBufferBytes(data)}, nil, nulls, 0), nil
	case fslShape:
		ft := dt.(*arrow.FixedSizeListType)
		child := v.child
		if v.allNull {
			child = &vals{n: n * sh.dim, allNull: true}
		}
		cd, err := toArrow(child, sh.child, ft.Elem())
		if err != nil {
			return nil, err
		}
		defer cd.Release()
		return array.NewData(dt, int(n), []*memory.Buffer{vb}, []arrow.ArrayData{cd}, nulls, 0), nil
	}
	return nil, unsupportedf("type %s", dt)
}

func getBit(b []byte, i uint64) bool { return b[i>>3]&(1<<(i&7)) != 0 }

func setBits(dst []byte, at, n uint64) {
	for i := at; i < at+n; i++ {
		dst[i>>3] |= 1 << (i & 7)
	}
}

// copyBits copies n bits of src from sOff to dst at dOff (dst bits there are zero).
func copyBits(dst []byte, dOff uint64, src []byte, sOff, n uint64) {
	if dOff%8 == 0 && sOff%8 == 0 {
		full := n / 8
		copy(dst[dOff/8:], src[sOff/8:sOff/8+full])
		for i := full * 8; i < n; i++ {
			if getBit(src, sOff+i) {
				dst[(dOff+i)>>3] |= 1 << ((dOff + i) & 7)
			}
		}
		return
	}
	for i := uint64(0); i < n; i++ {
		if getBit(src, sOff+i) {
			dst[(dOff+i)>>3] |= 1 << ((dOff + i) & 7)
		}
	}
}

func countBits(b []byte, n uint64) int {
	c := 0
	full := n / 8
	for _, x := range b[:full] {
		c += bits.OnesCount8(x)
	}
	for i := full * 8; i < n; i++ {
		if getBit(b, i) {
			c++
		}
	}
	return c
}
