package lancefile

// Shredding: turning one Arrow column into, for each leaf (a primitive,
// string/binary or fixed-size-list field), the 2.1 structural stream of
// repetition levels, definition events and visible values.
//
// Definition events are recorded in a raw form that does not depend on which
// layers of a page turn out to be nullable: 0 is a valid item, 1+2k a null at
// layer k and 2+2k an empty list at layer k, where k counts layers from the
// innermost (the leaf is layer 0). When a page is flushed the raw codes are
// renumbered into Lance's compact definition levels (see pageLayers).

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/file/internal/codec"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

type layerKind uint8

const (
	layerStruct layerKind = iota
	layerList
	layerLeaf
)

// valueKind says how a leaf's values are stored.
type valueKind uint8

const (
	valuesFixed    valueKind = iota // fixed-width values, bitsPerValue bits each (1 for bool)
	valuesVariable                  // utf8 / binary (32- or 64-bit offsets)
	valuesFSL                       // fixed_size_list of fixed-width items
	valuesNull                      // arrow null type: every value is null
)

// leafSpec describes one leaf column of the file.
type leafSpec struct {
	fieldID  int32
	name     string // dotted path, for errors
	topIndex int    // index of the top-level column it belongs to
	// layers from the outermost (the top-level field) to the leaf.
	layers []layerKind
	// childIndex[i] is, for a struct layer i, the child to descend into.
	childIndex []int
	// listLevel[i] is, for a list layer i, its repetition level (innermost list 1).
	listLevel []uint16
	// repAtOrBelow[i] is the level of the nearest list layer at index >= i (0 if none):
	// the repetition level a null or empty list at layer i takes when it starts nothing else.
	repAtOrBelow []uint16
	// lastList is the index of the innermost list layer, -1 without lists.
	lastList int
	maxRep   uint16

	kind         valueKind
	bitsPerValue int  // valuesFixed: bits per value; valuesFSL: bits per item
	largeOffsets bool // valuesVariable: 64-bit offsets (large_utf8 / large_binary)
	binary       bool // valuesVariable: binary / large_binary (Lance never FSST-compresses these)
	fslDim       int
	nullableLeaf bool
	largeChunks  bool // 2.2: mini-block chunks with u32 metadata words and buffer sizes
}

func (l *leafSpec) numLayers() int { return len(l.layers) }

// planLeaves walks the schema (with the arrow types of the top-level fields)
// and returns the leaf columns in pre-order, which is the column order of the
// file.
func planLeaves(schema *lanceschema.Schema) ([]*leafSpec, error) {
	var leaves []*leafSpec
	for top, f := range schema.Fields {
		dt, err := f.ArrowType()
		if err != nil {
			return nil, fmt.Errorf("%w: field %q: %v", ErrInvalidArgument, f.Name, err)
		}
		var walk func(f *lanceschema.Field, dt arrow.DataType, name string, layers []layerKind, child []int) error
		walk = func(f *lanceschema.Field, dt arrow.DataType, name string, layers []layerKind, child []int) error {
			switch t := dt.(type) {
			case *arrow.StructType:
				if len(f.Children) == 0 || t.NumFields() == 0 {
					return fmt.Errorf("%w: field %q: empty structs are not supported by the writer", ErrInvalidArgument, name)
				}
				if len(f.Children) != t.NumFields() {
					return fmt.Errorf("%w: field %q: schema has %d children, arrow type %d", ErrInvalidArgument, name, len(f.Children), t.NumFields())
				}
				for i, c := range f.Children {
					if err := walk(c, t.Field(i).Type, name+"."+c.Name, append(append([]layerKind{}, layers...), layerStruct), append(append([]int{}, child...), i)); err != nil {
						return err
					}
				}
				return nil
			case *arrow.ListType, *arrow.LargeListType:
				if len(f.Children) != 1 {
					return fmt.Errorf("%w: field %q: list needs exactly one child field", ErrInvalidArgument, name)
				}
				elem := dt.(arrow.ListLikeType).Elem()
				return walk(f.Children[0], elem, name+"."+f.Children[0].Name, append(append([]layerKind{}, layers...), layerList), append(append([]int{}, child...), 0))
			}
			leaf := &leafSpec{fieldID: f.ID, name: name, topIndex: top, nullableLeaf: f.Nullable}
			leaf.layers = append(append([]layerKind{}, layers...), layerLeaf)
			leaf.childIndex = append(append([]int{}, child...), 0)
			if err := leaf.setValueKind(dt); err != nil {
				return fmt.Errorf("%w: field %q: %v", ErrInvalidArgument, name, err)
			}
			leaf.finishLevels()
			leaves = append(leaves, leaf)
			return nil
		}
		if err := walk(f, dt, f.Name, nil, nil); err != nil {
			return nil, err
		}
	}
	return leaves, nil
}

func (l *leafSpec) finishLevels() {
	n := len(l.layers)
	l.listLevel = make([]uint16, n)
	l.repAtOrBelow = make([]uint16, n)
	l.lastList = -1
	var level uint16
	for i := n - 1; i >= 0; i-- {
		if l.layers[i] == layerList {
			level++
			l.listLevel[i] = level
			if l.lastList < 0 {
				l.lastList = i
			}
		}
		if l.layers[i] == layerList {
			l.repAtOrBelow[i] = level
		} else if i+1 < n {
			l.repAtOrBelow[i] = l.repAtOrBelow[i+1]
		}
	}
	l.maxRep = level
}

func (l *leafSpec) setValueKind(dt arrow.DataType) error {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY:
		l.kind = valuesVariable
		l.binary = dt.ID() == arrow.BINARY
		return nil
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		l.kind = valuesVariable
		l.largeOffsets = true
		l.binary = dt.ID() == arrow.LARGE_BINARY
		return nil
	case arrow.NULL:
		l.kind = valuesNull
		return nil
	case arrow.FIXED_SIZE_LIST:
		t := dt.(*arrow.FixedSizeListType)
		bits := codec.FixedWidthBits(t.Elem())
		if bits == 0 || bits%8 != 0 {
			return fmt.Errorf("fixed_size_list of %s is not supported by the writer", t.Elem())
		}
		if t.Len() <= 0 {
			return fmt.Errorf("fixed_size_list of size %d", t.Len())
		}
		l.kind = valuesFSL
		l.bitsPerValue = bits
		l.fslDim = int(t.Len())
		return nil
	}
	bits := codec.FixedWidthBits(dt)
	if bits == 0 {
		return fmt.Errorf("type %s is not supported by the writer", dt)
	}
	l.kind = valuesFixed
	l.bitsPerValue = bits
	return nil
}

// leafAccum accumulates the shredded stream of one leaf until a page is cut.
type leafAccum struct {
	numRows uint64
	rep     []uint16 // one per item, only when the leaf has lists
	def     []uint16 // raw definition codes, one per item
	anyDef  bool     // some code is non-zero

	numValues  int // visible items
	nullValues int // visible items that are null
	// valuesFixed / valuesFSL: value bytes (bools: bits, LSB first)
	fixed []byte
	// valuesFSL: item validity bits (one per item of each visible value)
	fslValidity []byte
	fslAnyNull  bool
	// valuesVariable
	offsets []uint64 // numValues+1 cumulative offsets into data
	data    []byte
	maxLen  int
}

func (a *leafAccum) reset() { *a = leafAccum{} }

// reserve grows the value buffers of a leaf without lists (one value per
// row) for rows more rows at once: appending value by value grew them by
// repeated reallocation, which for wide values (a VECTOR(65536) is 256 KiB,
// NULL or not) kept several copies alive (1,000 NULL vectors, 256 MiB of
// data, took 1 GB).
func (a *leafAccum) reserve(leaf *leafSpec, rows int) {
	if leaf.lastList >= 0 || rows <= 0 {
		return
	}
	switch leaf.kind {
	case valuesFixed:
		if leaf.bitsPerValue >= 8 {
			a.fixed = slices.Grow(a.fixed, rows*(leaf.bitsPerValue/8))
		}
	case valuesFSL:
		a.fixed = slices.Grow(a.fixed, rows*(leaf.bitsPerValue/8)*leaf.fslDim)
		a.fslValidity = slices.Grow(a.fslValidity, (rows*leaf.fslDim+7)/8)
	}
}

// byteSize estimates the memory the accumulated page holds.
func (a *leafAccum) byteSize() int {
	return 2*len(a.rep) + 2*len(a.def) + len(a.fixed) + len(a.fslValidity) + 8*len(a.offsets) + len(a.data)
}

func appendBit(bits []byte, n int, v bool) []byte {
	if n%8 == 0 {
		bits = append(bits, 0)
	}
	if v {
		bits[n/8] |= 1 << (n % 8)
	}
	return bits
}

// shredder appends one top-level column's rows to a leaf accumulator.
type shredder struct {
	leaf *leafSpec
	acc  *leafAccum
}

func (s *shredder) item(rep uint16, code uint16) {
	if s.leaf.maxRep > 0 {
		s.acc.rep = append(s.acc.rep, rep)
	}
	s.acc.def = append(s.acc.def, code)
	if code != 0 {
		s.acc.anyDef = true
	}
}

// emitSpecial records a null (empty=false) or an empty list at layer li.
func (s *shredder) emitSpecial(li int, rep uint16, empty bool) {
	k := uint16(s.leaf.numLayers() - 1 - li)
	code := 1 + 2*k
	if empty {
		code++
	}
	if rep == 0 {
		rep = s.leaf.repAtOrBelow[li]
	}
	s.item(rep, code)
	if !empty && li > s.leaf.lastList {
		// A visible null: it occupies a value slot.
		s.appendNullValue()
	}
}

func (s *shredder) appendNullValue() {
	a := s.acc
	switch s.leaf.kind {
	case valuesFixed:
		if s.leaf.bitsPerValue == 1 {
			a.fixed = appendBit(a.fixed, a.numValues, false)
		} else {
			a.fixed = append(a.fixed, make([]byte, s.leaf.bitsPerValue/8)...)
		}
	case valuesFSL:
		a.fixed = append(a.fixed, make([]byte, s.leaf.bitsPerValue/8*s.leaf.fslDim)...)
		base := a.numValues * s.leaf.fslDim
		for j := 0; j < s.leaf.fslDim; j++ {
			a.fslValidity = appendBit(a.fslValidity, base+j, true)
		}
	case valuesVariable:
		if len(a.offsets) == 0 {
			a.offsets = append(a.offsets, 0)
		}
		a.offsets = append(a.offsets, uint64(len(a.data)))
	}
	a.numValues++
	a.nullValues++
}

func (s *shredder) walk(li int, arr arrow.Array, i int, rep uint16) error {
	switch s.leaf.layers[li] {
	case layerStruct:
		if arr.IsNull(i) {
			s.emitSpecial(li, rep, false)
			return nil
		}
		st, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("%w: column %q: expected a struct array, got %s", ErrInvalidArgument, s.leaf.name, arr.DataType())
		}
		return s.walk(li+1, st.Field(s.leaf.childIndex[li]), i, rep)
	case layerList:
		if arr.IsNull(i) {
			s.emitSpecial(li, rep, false)
			return nil
		}
		var start, end int64
		var values arrow.Array
		switch l := arr.(type) {
		case *array.List:
			start, end = l.ValueOffsets(i)
			values = l.ListValues()
		case *array.LargeList:
			start, end = l.ValueOffsets(i)
			values = l.ListValues()
		default:
			return fmt.Errorf("%w: column %q: expected a list array, got %s", ErrInvalidArgument, s.leaf.name, arr.DataType())
		}
		if start == end {
			s.emitSpecial(li, rep, true)
			return nil
		}
		if start < 0 || end > int64(values.Len()) || start > end {
			return fmt.Errorf("%w: column %q: list offsets %d..%d outside child of length %d", ErrInvalidArgument, s.leaf.name, start, end, values.Len())
		}
		for j := start; j < end; j++ {
			r := uint16(0)
			if j == start {
				r = rep
				if r == 0 {
					r = s.leaf.listLevel[li]
				}
			}
			if err := s.walk(li+1, values, int(j), r); err != nil {
				return err
			}
		}
		return nil
	}
	// leaf
	if s.leaf.kind == valuesNull || arr.IsNull(i) {
		if !s.leaf.nullableLeaf && s.leaf.kind != valuesNull {
			return fmt.Errorf("%w: column %q is not nullable but holds a null", ErrInvalidArgument, s.leaf.name)
		}
		s.emitSpecial(li, rep, false)
		return nil
	}
	s.item(rep, 0)
	return s.appendValue(arr, i)
}

func (s *shredder) appendValue(arr arrow.Array, i int) error {
	a := s.acc
	switch s.leaf.kind {
	case valuesFixed:
		if s.leaf.bitsPerValue == 1 {
			b, ok := arr.(*array.Boolean)
			if !ok {
				return fmt.Errorf("%w: column %q: expected bool, got %s", ErrInvalidArgument, s.leaf.name, arr.DataType())
			}
			a.fixed = appendBit(a.fixed, a.numValues, b.Value(i))
		} else {
			w := s.leaf.bitsPerValue / 8
			buf, err := fixedBytes(arr, w)
			if err != nil {
				return fmt.Errorf("column %q: %w", s.leaf.name, err)
			}
			off := (arr.Data().Offset() + i) * w
			a.fixed = append(a.fixed, buf[off:off+w]...)
		}
	case valuesFSL:
		l, ok := arr.(*array.FixedSizeList)
		if !ok {
			return fmt.Errorf("%w: column %q: expected fixed_size_list, got %s", ErrInvalidArgument, s.leaf.name, arr.DataType())
		}
		start, end := l.ValueOffsets(i)
		child := l.ListValues()
		w := s.leaf.bitsPerValue / 8
		buf, err := fixedBytes(child, w)
		if err != nil {
			return fmt.Errorf("column %q: %w", s.leaf.name, err)
		}
		if end-start != int64(s.leaf.fslDim) || end > int64(child.Len()) {
			return fmt.Errorf("%w: column %q: fixed_size_list slot %d..%d", ErrInvalidArgument, s.leaf.name, start, end)
		}
		off := (child.Data().Offset() + int(start)) * w
		a.fixed = append(a.fixed, buf[off:off+w*s.leaf.fslDim]...)
		base := a.numValues * s.leaf.fslDim
		for j := 0; j < s.leaf.fslDim; j++ {
			valid := child.IsValid(int(start) + j)
			if !valid {
				a.fslAnyNull = true
			}
			a.fslValidity = appendBit(a.fslValidity, base+j, valid)
		}
	case valuesVariable:
		if len(a.offsets) == 0 {
			a.offsets = append(a.offsets, 0)
		}
		n0 := len(a.data)
		switch v := arr.(type) {
		case *array.String:
			a.data = append(a.data, v.Value(i)...)
		case *array.LargeString:
			a.data = append(a.data, v.Value(i)...)
		case *array.Binary:
			a.data = append(a.data, v.Value(i)...)
		case *array.LargeBinary:
			a.data = append(a.data, v.Value(i)...)
		default:
			return fmt.Errorf("%w: column %q: expected string or binary, got %s", ErrInvalidArgument, s.leaf.name, arr.DataType())
		}
		if n := len(a.data) - n0; n > a.maxLen {
			a.maxLen = n
		}
		a.offsets = append(a.offsets, uint64(len(a.data)))
	}
	a.numValues++
	return nil
}

// fixedBytes returns the value buffer of a fixed-width array (without the
// array offset applied) after checking its width.
func fixedBytes(arr arrow.Array, width int) ([]byte, error) {
	if got := codec.FixedWidthBits(arr.DataType()); got != width*8 {
		return nil, fmt.Errorf("%w: expected a %d-byte fixed-width array, got %s", ErrInvalidArgument, width, arr.DataType())
	}
	bufs := arr.Data().Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return nil, fmt.Errorf("%w: %s array without a value buffer", ErrInvalidArgument, arr.DataType())
	}
	b := bufs[1].Bytes()
	if need := (arr.Data().Offset() + arr.Len()) * width; len(b) < need {
		return nil, fmt.Errorf("%w: %s value buffer holds %d bytes, need %d", ErrInvalidArgument, arr.DataType(), len(b), need)
	}
	return b, nil
}

// shredColumn appends the rows of one top-level column to the leaf's accumulator.
func shredColumn(leaf *leafSpec, acc *leafAccum, col arrow.Array) error {
	acc.reserve(leaf, col.Len())
	if done, err := shredFlat(leaf, acc, col); done {
		if err == nil {
			acc.numRows += uint64(col.Len())
		}
		return err
	}
	return shredValues(leaf, acc, col)
}

// shredValues is shredColumn value by value (walk), for every shape.
func shredValues(leaf *leafSpec, acc *leafAccum, col arrow.Array) error {
	s := shredder{leaf: leaf, acc: acc}
	for i := 0; i < col.Len(); i++ {
		if err := s.walk(0, col, i, 0); err != nil {
			return err
		}
	}
	acc.numRows += uint64(col.Len())
	return nil
}

// shredFlat is shredValues for a top-level column of fixed-width values
// (any nulls) or of strings / binaries (no nulls) at once: walk's
// definition codes (1 for a null), value bytes (zero in a null's slot)
// and offsets, appended a buffer at a time instead of value by value (a
// bulk load spent a fifth of its time walking such columns). done is
// false when the column is another shape; TestShredFlatMatchesWalk
// compares the two.
func shredFlat(leaf *leafSpec, acc *leafAccum, col arrow.Array) (done bool, err error) {
	n, nulls := col.Len(), col.NullN()
	if len(leaf.layers) != 1 || leaf.maxRep != 0 || n == 0 || nulls == n {
		return false, nil
	}
	if nulls > 0 && !leaf.nullableLeaf {
		return true, fmt.Errorf("%w: column %q is not nullable but holds a null", ErrInvalidArgument, leaf.name)
	}
	switch {
	case leaf.kind == valuesFixed && leaf.bitsPerValue >= 8:
		w := leaf.bitsPerValue / 8
		buf, err := fixedBytes(col, w)
		if err != nil {
			return true, fmt.Errorf("column %q: %w", leaf.name, err)
		}
		off := col.Data().Offset() * w
		start := len(acc.fixed)
		acc.fixed = append(acc.fixed, buf[off:off+n*w]...)
		defStart := len(acc.def)
		acc.def = slices.Grow(acc.def, n)[:defStart+n]
		clear(acc.def[defStart:])
		if nulls > 0 {
			for i := 0; i < n; i++ {
				if col.IsNull(i) {
					clear(acc.fixed[start+i*w : start+(i+1)*w])
					acc.def[defStart+i] = 1
				}
			}
			acc.anyDef = true
			acc.nullValues += nulls
		}
		acc.numValues += n
		return true, nil
	case leaf.kind == valuesVariable && nulls == 0:
		switch a := col.(type) {
		case *array.String:
			return appendVariable(acc, a.ValueOffsets(), a.ValueBytes()), nil
		case *array.Binary:
			return appendVariable(acc, a.ValueOffsets(), a.ValueBytes()), nil
		case *array.LargeString:
			return appendVariable(acc, a.ValueOffsets(), a.ValueBytes()), nil
		case *array.LargeBinary:
			return appendVariable(acc, a.ValueOffsets(), a.ValueBytes()), nil
		}
	}
	return false, nil
}

// appendVariable appends n = len(offs)-1 non-null strings: data holds
// their bytes from offs[0] on. False (nothing appended) when the offsets
// do not fit data: walk reports what is wrong.
func appendVariable[T int32 | int64](acc *leafAccum, offs []T, data []byte) bool {
	n := len(offs) - 1
	if n < 1 || offs[0] < 0 || offs[n] < offs[0] || int64(len(data)) < int64(offs[n]-offs[0]) {
		return false
	}
	if len(acc.offsets) == 0 {
		acc.offsets = append(acc.offsets, 0)
	}
	base := uint64(len(acc.data))
	acc.data = append(acc.data, data[:offs[n]-offs[0]]...)
	acc.offsets = slices.Grow(acc.offsets, n)
	for j := 1; j <= n; j++ {
		if l := int(offs[j] - offs[j-1]); l > acc.maxLen {
			acc.maxLen = l
		}
		acc.offsets = append(acc.offsets, base+uint64(offs[j]-offs[0]))
	}
	defStart := len(acc.def)
	acc.def = slices.Grow(acc.def, n)[:defStart+n]
	clear(acc.def[defStart:])
	acc.numValues += n
	return true
}
