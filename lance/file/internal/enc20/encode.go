package enc20

// Encoding of Lance file format 2.0 pages (the write side of this package).
//
// The Encoder maps a schema to 2.0 columns the way Lance's 2.0 writer does
// (one column per field, in pre-order: a struct has a header column followed
// by its children's columns, a list an offsets column followed by its item
// field's columns, a fixed-size list of a primitive is one column) and turns
// Arrow arrays into pages using the simplest encodings Lance's 2.0 decoder
// reads:
//
//   - fixed-width values (bool, ints, floats, dates, times, timestamps,
//     decimals, fixed-size binary): nullable{no_nulls | some_nulls(validity) |
//     all_nulls} around flat
//   - fixed-size lists of fixed-width items: nullable around
//     fixed_size_list{dimension, items: nullable around flat}
//   - utf8 / binary (32- and 64-bit offsets): binary{indices: nullable{no_nulls,
//     flat u64}, bytes: flat u8, null_adjustment}: index i is the end of value i
//     (relative to the page), plus null_adjustment when the value is null
//   - lists: list{offsets: nullable{no_nulls, flat u64}, null_offset_adjustment,
//     num_items}: the end offset of every list relative to the page's first item,
//     plus null_offset_adjustment when the list is null
//   - structs: one page {struct} per file covering every row, without data
//     (2.0 stores no struct validity: a null struct is written as a struct whose
//     children are null, which is also how Lance reads it back)
//
// All columns of one top-level field are cut into pages together, so every
// page of list items belongs to exactly one page of list offsets (Lance's 2.0
// list decoder requires that).

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/file/internal/codec"
	"github.com/lancecat/lancecat/lance/internal/pb/enc20pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// EncodedPage is one page of a column, ready to be written: its buffers go to
// the file (in order; the encoding refers to them by index) and its encoding
// into the column metadata.
type EncodedPage struct {
	Column   int
	NumRows  uint64
	Buffers  [][]byte
	Encoding *enc20pb.ArrayEncoding
}

type colKind uint8

const (
	kindFixed  colKind = iota // fixed-width values, bits per value (1: bool)
	kindFSL                   // fixed-size list of fixed-width items
	kindBinary                // utf8 / binary, any offset width
	kindList                  // list / large_list: offsets column
	kindStruct                // struct header column
)

// colSpec is one column of the file.
type colSpec struct {
	fieldID  int32
	name     string // dotted path, for errors
	kind     colKind
	bits     int   // kindFixed: bits per value; kindFSL: bits per item
	dim      int   // kindFSL
	children []int // kindStruct: child columns; kindList: the item column
	top      int   // index of the top-level field the column belongs to
}

// Encoder turns Arrow columns into 2.0 pages. It is not safe for concurrent use.
type Encoder struct {
	cols  []*colSpec
	roots []int     // column of each top-level field
	accs  []*colAcc // accumulated, not yet paged, values per column
	tops  [][]int   // columns of each top-level field
	total []uint64  // values seen per column over the whole file (struct headers)
}

// NewEncoder plans the columns of fields (the top-level fields of the file's
// schema, with their ids).
func NewEncoder(fields []*lanceschema.Field) (*Encoder, error) {
	e := &Encoder{}
	for top, f := range fields {
		dt, err := f.ArrowType()
		if err != nil {
			return nil, unsupportedf("field %q: %v", f.Name, err)
		}
		start := len(e.cols)
		c, err := e.plan(f, dt, f.Name, top)
		if err != nil {
			return nil, err
		}
		e.roots = append(e.roots, c)
		var cs []int
		for i := start; i < len(e.cols); i++ {
			cs = append(cs, i)
		}
		e.tops = append(e.tops, cs)
	}
	e.accs = make([]*colAcc, len(e.cols))
	for i := range e.accs {
		e.accs[i] = &colAcc{}
	}
	e.total = make([]uint64, len(e.cols))
	return e, nil
}

func (e *Encoder) plan(f *lanceschema.Field, dt arrow.DataType, name string, top int) (int, error) {
	c := &colSpec{fieldID: f.ID, name: name, top: top}
	idx := len(e.cols)
	e.cols = append(e.cols, c)
	switch t := dt.(type) {
	case *arrow.StructType:
		if len(f.Children) == 0 || t.NumFields() == 0 {
			return 0, unsupportedf("field %q: empty structs are not supported by the 2.0 writer", name)
		}
		if len(f.Children) != t.NumFields() {
			return 0, unsupportedf("field %q: schema has %d children, arrow type %d", name, len(f.Children), t.NumFields())
		}
		c.kind = kindStruct
		for i, cf := range f.Children {
			ci, err := e.plan(cf, t.Field(i).Type, name+"."+cf.Name, top)
			if err != nil {
				return 0, err
			}
			c.children = append(c.children, ci)
		}
		return idx, nil
	case *arrow.ListType, *arrow.LargeListType:
		if len(f.Children) != 1 {
			return 0, unsupportedf("field %q: a list needs exactly one child field", name)
		}
		c.kind = kindList
		ci, err := e.plan(f.Children[0], dt.(arrow.ListLikeType).Elem(), name+"."+f.Children[0].Name, top)
		if err != nil {
			return 0, err
		}
		c.children = []int{ci}
		return idx, nil
	case *arrow.FixedSizeListType:
		bits := codec.FixedWidthBits(t.Elem())
		if bits == 0 || bits%8 != 0 {
			return 0, unsupportedf("field %q: fixed_size_list of %s is not supported by the 2.0 writer", name, t.Elem())
		}
		if t.Len() <= 0 || t.Len() > maxDimension {
			return 0, unsupportedf("field %q: fixed_size_list of size %d", name, t.Len())
		}
		c.kind, c.bits, c.dim = kindFSL, bits, int(t.Len())
		return idx, nil
	}
	if len(f.Children) > 0 {
		return 0, unsupportedf("field %q of type %s has child fields", name, dt)
	}
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		c.kind = kindBinary
		return idx, nil
	}
	bits := codec.FixedWidthBits(dt)
	if bits == 0 {
		return 0, unsupportedf("field %q: type %s is not supported by the 2.0 writer", name, dt)
	}
	c.kind, c.bits = kindFixed, bits
	return idx, nil
}

// NumColumns is the number of columns of the file.
func (e *Encoder) NumColumns() int { return len(e.cols) }

// ColumnFields returns the field id of every column, in column order (in 2.0
// every field of the schema owns exactly one column).
func (e *Encoder) ColumnFields() []int32 {
	out := make([]int32, len(e.cols))
	for i, c := range e.cols {
		out[i] = c.fieldID
	}
	return out
}

// Append adds rows: cols holds one array per top-level field, all of the
// same length. The arrays must have the fields' Arrow types (the caller
// checks them). On error nothing is added.
func (e *Encoder) Append(cols []arrow.Array) error {
	if len(cols) != len(e.roots) {
		return fmt.Errorf("lance 2.0: %d columns for %d fields", len(cols), len(e.roots))
	}
	staged := make([]*colAcc, len(e.cols))
	for i := range staged {
		staged[i] = &colAcc{}
	}
	for top, arr := range cols {
		if arr.Len() != cols[0].Len() {
			return fmt.Errorf("lance 2.0: column %d has %d rows, column 0 %d", top, arr.Len(), cols[0].Len())
		}
		if err := e.appendCol(staged, e.roots[top], arr, []span{{0, arr.Len()}}, nil); err != nil {
			return err
		}
	}
	for i, s := range staged {
		e.accs[i].merge(e.cols[i], s)
		e.total[i] += s.n
	}
	return nil
}

// span is a range [a, b) of indices of an array.
type span struct{ a, b int }

func spanLen(ss []span) int {
	n := 0
	for _, s := range ss {
		n += s.b - s.a
	}
	return n
}

// appendCol appends the values at spans of arr to column ci. parentNull, when
// not nil, marks (per selected value, in span order) values a null ancestor
// struct hides.
func (e *Encoder) appendCol(accs []*colAcc, ci int, arr arrow.Array, spans []span, parentNull []bool) error {
	c, acc := e.cols[ci], accs[ci]
	n := spanLen(spans)
	acc.valid.grow(n)
	switch c.kind {
	case kindList, kindBinary:
		acc.ends = slices.Grow(acc.ends, n)
	case kindFixed:
		acc.values = slices.Grow(acc.values, (n*c.bits+7)/8)
	case kindFSL:
		acc.values = slices.Grow(acc.values, n*c.dim*c.bits/8)
		acc.itemValid.grow(n * c.dim)
	}
	valid := func(k, i int) bool { return (parentNull == nil || !parentNull[k]) && arr.IsValid(i) }
	switch c.kind {
	case kindStruct:
		sa, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("lance 2.0: field %q: %T is not a struct array", c.name, arr)
		}
		// Push the struct's nulls down to its children: 2.0 stores no
		// struct validity.
		var hidden []bool
		if parentNull != nil || sa.NullN() > 0 {
			hidden = make([]bool, n)
			k := 0
			for _, s := range spans {
				for i := s.a; i < s.b; i++ {
					hidden[k] = !valid(k, i)
					k++
				}
			}
		}
		acc.n += uint64(n)
		for j, cc := range c.children {
			if err := e.appendCol(accs, cc, sa.Field(j), spans, hidden); err != nil {
				return err
			}
		}
		return nil
	case kindList:
		ll, ok := arr.(interface {
			arrow.Array
			ValueOffsets(int) (int64, int64)
			ListValues() arrow.Array
		})
		if !ok || arr.DataType().ID() == arrow.FIXED_SIZE_LIST {
			return fmt.Errorf("lance 2.0: field %q: %T is not a list array", c.name, arr)
		}
		var items []span
		k := 0
		for _, s := range spans {
			for i := s.a; i < s.b; i++ {
				ok := valid(k, i)
				k++
				if ok {
					a, b := ll.ValueOffsets(i)
					if a < 0 || b < a || b > int64(ll.ListValues().Len()) {
						return fmt.Errorf("lance 2.0: field %q: list %d spans items [%d, %d) of %d", c.name, i, a, b, ll.ListValues().Len())
					}
					acc.items += uint64(b - a)
					if b > a {
						if m := len(items); m > 0 && items[m-1].b == int(a) {
							items[m-1].b = int(b)
						} else {
							items = append(items, span{int(a), int(b)})
						}
					}
				}
				acc.ends = append(acc.ends, acc.items)
				acc.valid.append(ok)
				if !ok {
					acc.nulls++
				}
			}
		}
		acc.n += uint64(n)
		return e.appendCol(accs, c.children[0], ll.ListValues(), items, nil)
	case kindBinary:
		k := 0
		for _, s := range spans {
			for i := s.a; i < s.b; i++ {
				ok := valid(k, i)
				k++
				if ok {
					switch a := arr.(type) {
					case *array.String:
						acc.data = append(acc.data, a.Value(i)...)
					case *array.LargeString:
						acc.data = append(acc.data, a.Value(i)...)
					case *array.Binary:
						acc.data = append(acc.data, a.Value(i)...)
					case *array.LargeBinary:
						acc.data = append(acc.data, a.Value(i)...)
					default:
						return fmt.Errorf("lance 2.0: field %q: %T is not a string or binary array", c.name, arr)
					}
				} else {
					acc.nulls++
				}
				acc.valid.append(ok)
				acc.ends = append(acc.ends, uint64(len(acc.data)))
			}
		}
		acc.n += uint64(n)
		return nil
	case kindFixed:
		vals, off, err := fixedValues(arr, c.bits)
		if err != nil {
			return fmt.Errorf("lance 2.0: field %q: %w", c.name, err)
		}
		k := 0
		for _, s := range spans {
			for i := s.a; i < s.b; i++ {
				ok := valid(k, i)
				k++
				acc.valid.append(ok)
				if !ok {
					acc.nulls++
				}
			}
			acc.appendValues(c.bits, vals, off+s.a, off+s.b)
		}
		acc.n += uint64(n)
		return nil
	case kindFSL:
		fa, ok := arr.(*array.FixedSizeList)
		if !ok {
			return fmt.Errorf("lance 2.0: field %q: %T is not a fixed-size list array", c.name, arr)
		}
		child := fa.ListValues()
		vals, off, err := fixedValues(child, c.bits)
		if err != nil {
			return fmt.Errorf("lance 2.0: field %q: %w", c.name, err)
		}
		k := 0
		for _, s := range spans {
			for i := s.a; i < s.b; i++ {
				ok := valid(k, i)
				k++
				acc.valid.append(ok)
				if !ok {
					acc.nulls++
				}
				a, b := fa.ValueOffsets(i)
				if a < 0 || b-a != int64(c.dim) || b > int64(child.Len()) {
					return fmt.Errorf("lance 2.0: field %q: list %d spans items [%d, %d) of %d", c.name, i, a, b, child.Len())
				}
				for j := int(a); j < int(b); j++ {
					iv := child.IsValid(j)
					acc.itemValid.append(iv)
					if !iv {
						acc.itemNulls++
					}
				}
				acc.appendValues(c.bits, vals, off+int(a), off+int(b))
			}
		}
		acc.n += uint64(n)
		return nil
	}
	return fmt.Errorf("lance 2.0: field %q: unknown column kind", c.name)
}

// fixedValues returns the values buffer of a fixed-width array and the
// array's offset into it (in values).
func fixedValues(arr arrow.Array, bits int) ([]byte, int, error) {
	d := arr.Data()
	if codec.FixedWidthBits(arr.DataType()) != bits {
		return nil, 0, fmt.Errorf("%s is not a %d-bit type", arr.DataType(), bits)
	}
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		if arr.Len() == 0 || arr.NullN() == arr.Len() {
			return nil, d.Offset(), nil
		}
		return nil, 0, fmt.Errorf("%s array without a values buffer", arr.DataType())
	}
	return bufs[1].Bytes(), d.Offset(), nil
}

// colAcc accumulates the values of one column until they are paged.
type colAcc struct {
	n     uint64 // values (rows of this column)
	valid bitmap
	nulls uint64
	// kindFixed, kindFSL: value bytes (bool: bits)
	values  []byte
	nvalues uint64 // values appended to values (FSL: items)
	// kindFSL: item validity
	itemValid bitmap
	itemNulls uint64
	// kindBinary: end of every value in data; kindList: end of every list
	// in items
	ends  []uint64
	data  []byte
	items uint64
}

// appendValues copies values [a, b) of a buffer of bits-wide values (values
// past the end of a short buffer, which only null slots can have, are zero).
func (acc *colAcc) appendValues(bits int, buf []byte, a, b int) {
	if b <= a {
		return
	}
	if bits == 1 {
		for i := a; i < b; i++ {
			v := i/8 < len(buf) && buf[i/8]&(1<<(i%8)) != 0
			acc.values = appendBit(acc.values, acc.nvalues, v)
			acc.nvalues++
		}
		return
	}
	w := bits / 8
	lo, hi := a*w, b*w
	switch {
	case hi <= len(buf):
		acc.values = append(acc.values, buf[lo:hi]...)
	default:
		if lo < len(buf) {
			acc.values = append(acc.values, buf[lo:]...)
			lo = len(buf)
		}
		acc.values = append(acc.values, make([]byte, hi-lo)...)
	}
	acc.nvalues += uint64(b - a)
}

// merge appends o (accumulated for the same column) to acc.
func (acc *colAcc) merge(c *colSpec, o *colAcc) {
	if acc.n == 0 && acc.nvalues == 0 {
		*acc = *o // nothing to keep: adopt o's buffers
		return
	}
	acc.valid.appendBitmap(&o.valid)
	acc.nulls += o.nulls
	if c.bits == 1 && c.kind == kindFixed {
		acc.values = appendBits(acc.values, acc.nvalues, o.values, o.nvalues)
	} else {
		acc.values = append(acc.values, o.values...)
	}
	acc.nvalues += o.nvalues
	acc.itemValid.appendBitmap(&o.itemValid)
	acc.itemNulls += o.itemNulls
	var base uint64
	switch c.kind {
	case kindBinary:
		base = uint64(len(acc.data))
	case kindList:
		base = acc.items
	}
	for _, x := range o.ends {
		acc.ends = append(acc.ends, base+x)
	}
	acc.data = append(acc.data, o.data...)
	acc.items += o.items
	acc.n += o.n
}

// bytes estimates the memory the accumulated values hold.
func (acc *colAcc) bytes() int {
	return len(acc.valid.b) + len(acc.values) + len(acc.itemValid.b) + 8*len(acc.ends) + len(acc.data)
}

// bitmap is a growable LSB-first bitmap.
type bitmap struct {
	b []byte
	n uint64
}

// grow makes room for n more bits.
func (m *bitmap) grow(n int) { m.b = slices.Grow(m.b, (n+7)/8+1) }

func (m *bitmap) append(v bool) {
	m.b = appendBit(m.b, m.n, v)
	m.n++
}

func (m *bitmap) appendBitmap(o *bitmap) {
	m.b = appendBits(m.b, m.n, o.b, o.n)
	m.n += o.n
}

func appendBit(b []byte, n uint64, v bool) []byte {
	if n%8 == 0 {
		b = append(b, 0)
	}
	if v {
		b[n/8] |= 1 << (n % 8)
	}
	return b
}

// appendBits appends the first m bits of src to dst, which holds n bits.
func appendBits(dst []byte, n uint64, src []byte, m uint64) []byte {
	if n%8 == 0 {
		return append(dst[:n/8], src[:(m+7)/8]...)
	}
	for i := uint64(0); i < m; i++ {
		dst = appendBit(dst, n+i, src[i/8]&(1<<(i%8)) != 0)
	}
	return dst
}

// Flush pages the accumulated rows of every top-level field holding at least
// pageBytes (all fields when pageBytes <= 0) and returns the pages. Struct
// header pages are written by Finish only.
func (e *Encoder) Flush(pageBytes int) ([]EncodedPage, error) {
	var pages []EncodedPage
	for _, cs := range e.tops {
		size := 0
		for _, ci := range cs {
			size += e.accs[ci].bytes()
		}
		if pageBytes > 0 && size < pageBytes {
			continue
		}
		for _, ci := range cs {
			p, ok, err := e.encodePage(ci)
			if err != nil {
				return nil, err
			}
			if ok {
				pages = append(pages, p)
			}
			e.accs[ci] = &colAcc{}
		}
	}
	return pages, nil
}

// Finish pages everything left and adds the header page of every struct
// column (one page per file covering all its rows, as Lance writes it).
func (e *Encoder) Finish() ([]EncodedPage, error) {
	pages, err := e.Flush(0)
	if err != nil {
		return nil, err
	}
	for ci, c := range e.cols {
		if c.kind != kindStruct {
			continue
		}
		pages = append(pages, EncodedPage{
			Column:   ci,
			NumRows:  e.total[ci],
			Encoding: &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Struct{Struct: &enc20pb.SimpleStruct{}}},
		})
	}
	return pages, nil
}

// encodePage encodes the accumulated values of column ci (ok false: none, or
// a struct header).
func (e *Encoder) encodePage(ci int) (EncodedPage, bool, error) {
	c, acc := e.cols[ci], e.accs[ci]
	if acc.n == 0 || c.kind == kindStruct {
		return EncodedPage{}, false, nil
	}
	p := EncodedPage{Column: ci, NumRows: acc.n}
	switch c.kind {
	case kindFixed:
		p.Encoding = nullable(&p.Buffers, acc.n, acc.nulls, acc.valid.b, func() *enc20pb.ArrayEncoding {
			return flat(&p.Buffers, uint64(c.bits), acc.values)
		})
	case kindFSL:
		p.Encoding = nullable(&p.Buffers, acc.n, acc.nulls, acc.valid.b, func() *enc20pb.ArrayEncoding {
			items := uint64(c.dim) * acc.n
			// Items are never written as all_nulls inside a list.
			inner := nullable(&p.Buffers, items, min(acc.itemNulls, items-1), acc.itemValid.b, func() *enc20pb.ArrayEncoding {
				return flat(&p.Buffers, uint64(c.bits), acc.values)
			})
			return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_FixedSizeList{FixedSizeList: &enc20pb.FixedSizeList{
				Dimension: uint32(c.dim),
				Items:     inner,
			}}}
		})
	case kindBinary:
		total := uint64(len(acc.data))
		if total >= math.MaxInt64/2 {
			return EncodedPage{}, false, unsupportedf("field %q: %d bytes in one page", c.name, total)
		}
		adj := total + 1
		idx := ends(acc.ends, &acc.valid, adj)
		indices := nullable(&p.Buffers, acc.n, 0, nil, func() *enc20pb.ArrayEncoding { return flat(&p.Buffers, 64, idx) })
		bytes := flat(&p.Buffers, 8, acc.data)
		p.Encoding = &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Binary{Binary: &enc20pb.Binary{
			Indices:        indices,
			Bytes:          bytes,
			NullAdjustment: adj,
		}}}
	case kindList:
		if acc.items >= math.MaxInt64/2 {
			return EncodedPage{}, false, unsupportedf("field %q: %d list items in one page", c.name, acc.items)
		}
		noa := acc.items + 1
		offs := ends(acc.ends, &acc.valid, noa)
		p.Encoding = &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_List{List: &enc20pb.List{
			Offsets:              nullable(&p.Buffers, acc.n, 0, nil, func() *enc20pb.ArrayEncoding { return flat(&p.Buffers, 64, offs) }),
			NullOffsetAdjustment: noa,
			NumItems:             acc.items,
		}}}
	}
	return p, true, nil
}

// ends serializes end offsets as u64, adding adj to those of null values.
func ends(es []uint64, valid *bitmap, adj uint64) []byte {
	out := make([]byte, 8*len(es))
	for i, x := range es {
		if valid.b[i/8]&(1<<(i%8)) == 0 {
			x += adj
		}
		binary.LittleEndian.PutUint64(out[8*i:], x)
	}
	return out
}

// nullable wraps the encoding values() builds in a nullable encoding for n
// values of which nulls are null (validity: their bitmap). All-null values
// have no buffers at all; values() is not called for them.
func nullable(bufs *[][]byte, n, nulls uint64, validity []byte, values func() *enc20pb.ArrayEncoding) *enc20pb.ArrayEncoding {
	nl := &enc20pb.Nullable{}
	switch {
	case nulls == 0:
		nl.Nullability = &enc20pb.Nullable_NoNulls{NoNulls: &enc20pb.Nullable_NoNull{Values: values()}}
	case nulls >= n:
		nl.Nullability = &enc20pb.Nullable_AllNulls{AllNulls: &enc20pb.Nullable_AllNull{}}
	default:
		v := flat(bufs, 1, validity[:(n+7)/8])
		nl.Nullability = &enc20pb.Nullable_SomeNulls{SomeNulls: &enc20pb.Nullable_SomeNull{Validity: v, Values: values()}}
	}
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Nullable{Nullable: nl}}
}

// flat adds buf as the next page buffer and returns a flat encoding of it.
func flat(bufs *[][]byte, bits uint64, buf []byte) *enc20pb.ArrayEncoding {
	idx := uint32(len(*bufs))
	*bufs = append(*bufs, buf)
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Flat{Flat: &enc20pb.Flat{
		BitsPerValue: bits,
		Buffer:       &enc20pb.Buffer{BufferIndex: idx},
	}}}
}
