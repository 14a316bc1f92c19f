package lancefile

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// leafPath is a leaf column with the schema nodes from the top-level field
// down to it.
type leafPath struct {
	nodes []*lanceschema.Field // top .. leaf
	types []arrow.DataType     // arrow type of each node
	spec  *readLeaf
}

func (r *Reader) leavesOf(f *lanceschema.Field) ([]*leafPath, error) {
	dt, err := f.ArrowType()
	if err != nil {
		return nil, fmt.Errorf("%w: field %q: %v", ErrUnsupportedEncoding, f.Name, err)
	}
	var out []*leafPath
	var walk func(nodes []*lanceschema.Field, types []arrow.DataType) error
	walk = func(nodes []*lanceschema.Field, types []arrow.DataType) error {
		n := nodes[len(nodes)-1]
		t := types[len(types)-1]
		if isLeafField(n) {
			col, ok := r.fieldColumn[n.ID]
			if !ok {
				return corruptf("field %d has no column", n.ID)
			}
			spec, err := leafSpecFor(col, nodes, types)
			if err != nil {
				return err
			}
			out = append(out, &leafPath{nodes: append([]*lanceschema.Field(nil), nodes...), types: append([]arrow.DataType(nil), types...), spec: spec})
			return nil
		}
		var childTypes []arrow.DataType
		switch tt := t.(type) {
		case *arrow.StructType:
			for _, cf := range tt.Fields() {
				childTypes = append(childTypes, cf.Type)
			}
		case *arrow.ListType:
			childTypes = []arrow.DataType{tt.Elem()}
		case *arrow.LargeListType:
			childTypes = []arrow.DataType{tt.Elem()}
		default:
			return unsupportedf("field %q of type %s has children", n.Name, t)
		}
		if len(childTypes) != len(n.Children) {
			return corruptf("field %q: %d children, type has %d", n.Name, len(n.Children), len(childTypes))
		}
		for i, c := range n.Children {
			if err := walk(append(nodes, c), append(types, childTypes[i])); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk([]*lanceschema.Field{f}, []arrow.DataType{dt}); err != nil {
		return nil, err
	}
	return out, nil
}

func leafSpecFor(col int, nodes []*lanceschema.Field, types []arrow.DataType) (*readLeaf, error) {
	s := &readLeaf{col: col}
	for i := len(types) - 1; i >= 0; i-- {
		switch types[i].(type) {
		case *arrow.ListType, *arrow.LargeListType:
			s.isList = append(s.isList, true)
		default:
			s.isList = append(s.isList, false)
		}
	}
	t := types[len(types)-1]
	switch tt := t.(type) {
	case *arrow.StringType, *arrow.BinaryType, *arrow.LargeStringType, *arrow.LargeBinaryType:
		s.variable = true
	case *arrow.BooleanType:
		s.bits = 1
	case *arrow.FixedSizeListType:
		fw, ok := tt.Elem().(arrow.FixedWidthDataType)
		if !ok {
			return nil, unsupportedf("fixed-size list of %s", tt.Elem())
		}
		s.bits, s.dim = uint64(fw.BitWidth()), uint64(tt.Len())
	case *arrow.FixedSizeBinaryType:
		s.bits = uint64(tt.ByteWidth) * 8
	case arrow.FixedWidthDataType:
		s.bits = uint64(tt.BitWidth())
	default:
		return nil, unsupportedf("leaf type %s", t)
	}
	return s, nil
}

// pageState loads the decoding state of a page on first use and keeps it.
// A failed load is not kept: a Reader lives across reads (lance/dataset
// caches them per dataset version), and an I/O error or a cancelled context
// in one read must not fail every later one.
func (r *Reader) pageState(ctx context.Context, pg *pageInfo, spec *readLeaf) (any, error) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.loaded != nil {
		return pg.loaded, nil
	}
	var st any
	var err error
	switch {
	case pg.layout.GetMiniBlockLayout() != nil:
		st, err = r.loadMini(ctx, pg, spec)
	case pg.layout.GetFullZipLayout() != nil:
		st, err = r.loadFullZip(pg, spec)
	case pg.layout.GetConstantLayout() != nil:
		st, err = r.loadAllNull(ctx, pg, spec)
	case pg.layout.GetBlobLayout() != nil:
		err = unsupportedf("blob page layout")
	default:
		err = unsupportedf("unknown page layout")
	}
	if err != nil {
		return nil, err
	}
	pg.loaded = st
	return st, nil
}

// readLeafRanges decodes the rows of each range (ascending, within the file)
// of one leaf column and concatenates them.
func (r *Reader) readLeafRanges(ctx context.Context, spec *readLeaf, ranges [][2]uint64) (*leafPiece, error) {
	ci, err := r.column(ctx, spec.col)
	if err != nil {
		return nil, err
	}
	if segs, st, ok, err := r.packedPages(ctx, ci, spec, ranges); err != nil {
		return nil, err
	} else if ok && (len(segs) > 1 || r.opensRanges()) {
		// (one segment from memory is served without a copy below)
		return r.readPacked(ctx, segs, st)
	}
	var pieces []*leafPiece
	err = pageParts(ci, spec.col, ranges, func(pi int, pg *pageInfo, pa, pb uint64) (bool, error) {
		st, err := r.pageState(ctx, pg, spec)
		if err != nil {
			return false, err
		}
		var p *leafPiece
		switch s := st.(type) {
		case *miniState:
			p, err = r.readMini(ctx, s, spec, pa, pb)
		case *fullZipState:
			p, err = r.readFullZip(ctx, pg, s, spec, pa, pb)
		case *allNullState:
			p, err = s.read(pg, spec, pa, pb)
		}
		if err != nil {
			return false, fmt.Errorf("column %d page %d: %w", spec.col, pi, err)
		}
		r.stats.pages.Add(1)
		pieces = append(pieces, p)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return concatPieces(pieces, spec)
}

// pageParts calls fn with each part of a page the ranges cover, in order:
// the page's index, the page and its rows [pa, pb) (page-relative). fn
// returning false ends the walk.
func pageParts(ci *columnInfo, col int, ranges [][2]uint64, fn func(pi int, pg *pageInfo, pa, pb uint64) (bool, error)) error {
	for _, rg := range ranges {
		a, b := rg[0], rg[1]
		pi := sort.Search(len(ci.pages), func(i int) bool { return ci.pages[i].firstRow+ci.pages[i].numRows > a })
		for ; a < b && pi < len(ci.pages); pi++ {
			pg := ci.pages[pi]
			if pg.numRows == 0 {
				continue
			}
			pa, pb := a-pg.firstRow, min(b, pg.firstRow+pg.numRows)-pg.firstRow
			if more, err := fn(pi, pg, pa, pb); err != nil || !more {
				return err
			}
			a = pg.firstRow + pb
		}
		if a < b {
			return corruptf("column %d has no page for row %d", col, a)
		}
	}
	return nil
}

func concatPieces(pieces []*leafPiece, spec *readLeaf) (*leafPiece, error) {
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	out := &leafPiece{}
	hasRep, hasDef := spec.maxRep() > 0, false
	for _, p := range pieces {
		if p.def != nil {
			hasDef = true
		}
		out.nLevels += p.nLevels
	}
	var vb blockBuilder
	for _, p := range pieces {
		if p.vals != nil {
			vb.dataHint += uint64(len(p.vals.data))
		}
	}
	for _, p := range pieces {
		if hasRep {
			out.rep = append(out.rep, p.rep...)
		}
		if hasDef {
			if p.def != nil {
				out.def = append(out.def, p.def...)
			} else {
				out.def = append(out.def, make([]uint16, p.nLevels)...)
			}
		}
		if err := vb.append(p.vals); err != nil {
			return nil, err
		}
	}
	ph, _ := spec.placeholder(0)
	out.vals = vb.finish(ph)
	return out, nil
}

// ---------------------------------------------------------------- unravel

// layerResult is the structure of one layer: validity (nil: all valid) and,
// for lists, offsets.
type layerResult struct {
	n       int
	valid   []bool
	offsets []int64
}

// unravel turns rep/canonical-def levels into per-layer validity and offsets,
// innermost layer first.
func unravel(p *leafPiece, spec *readLeaf) ([]layerResult, error) {
	rep := append([]uint16(nil), p.rep...)
	var def []uint16
	if p.def != nil {
		def = append([]uint16(nil), p.def...)
	}
	if p.rep == nil && spec.maxRep() > 0 {
		return nil, corruptf("list column without repetition levels")
	}
	nl := len(spec.isList)
	levelsToRep := []uint16{0}
	var rc uint16
	for _, isList := range spec.isList {
		if isList {
			rc++
			levelsToRep = append(levelsToRep, rc, rc)
		} else {
			levelsToRep = append(levelsToRep, rc)
		}
	}
	for _, d := range def {
		if int(d) >= len(levelsToRep) {
			return nil, corruptf("definition level %d beyond %d", d, len(levelsToRep)-1)
		}
	}
	for _, x := range rep {
		if x > spec.maxRep() {
			return nil, corruptf("repetition level %d beyond %d", x, spec.maxRep())
		}
	}
	out := make([]layerResult, nl)
	var defCmp, repCmp uint16
	cur := int(p.vals.n)
	for layer := 0; layer < nl; layer++ {
		if !spec.isList[layer] {
			res := layerResult{n: cur}
			if def != nil {
				var valid []bool
				anyNull := false
				for _, d := range def {
					if levelsToRep[d] <= repCmp {
						v := d <= defCmp
						valid = append(valid, v)
						anyNull = anyNull || !v
					}
				}
				if len(valid) != cur {
					return nil, corruptf("layer %d has %d validity entries for %d values", layer, len(valid), cur)
				}
				if anyNull {
					res.valid = valid
				}
			}
			defCmp++
			out[layer] = res
			continue
		}
		nullLevel, emptyLevel := defCmp+1, defCmp+2
		defCmp += 2
		maxLevel := defCmp
		for j := layer + 1; j < nl && !spec.isList[j]; j++ {
			maxLevel++
		}
		upperNull := defCmp
		offsets := make([]int64, 0, len(rep)+1)
		var valid []bool
		anyNull := false
		var curlen int64
		w := 0
		if def != nil {
			for i := range rep {
				rv := rep[i]
				if rv == 0 {
					curlen++
					continue
				}
				dv := def[i]
				rep[w], def[w] = rv-1, dv
				w++
				switch {
				case dv == 0:
					offsets = append(offsets, curlen)
					curlen++
					valid = append(valid, true)
				case dv > maxLevel:
				case dv == nullLevel || dv > upperNull:
					offsets = append(offsets, curlen)
					valid = append(valid, false)
					anyNull = true
				case dv == emptyLevel:
					offsets = append(offsets, curlen)
					valid = append(valid, true)
				default:
					offsets = append(offsets, curlen)
					curlen++
					valid = append(valid, true)
				}
			}
			def = def[:w]
		} else {
			for i := range rep {
				if rep[i] != 0 {
					offsets = append(offsets, curlen)
					rep[w] = rep[i] - 1
					w++
				}
				curlen++
			}
		}
		rep = rep[:w]
		offsets = append(offsets, curlen)
		if int(curlen) != cur {
			return nil, corruptf("list layer %d spans %d children, have %d", layer, curlen, cur)
		}
		repCmp++
		res := layerResult{n: len(offsets) - 1, offsets: offsets}
		if anyNull {
			res.valid = valid
		}
		out[layer] = res
		cur = res.n
	}
	return out, nil
}

// ---------------------------------------------------------------- arrow

type builtLeaf struct {
	path   *leafPath
	piece  *leafPiece
	layers []layerResult
}

func bitmapOf(valid []bool) (*memory.Buffer, int) {
	if valid == nil {
		return nil, 0
	}
	b := make([]byte, (len(valid)+7)/8)
	nulls := 0
	for i, v := range valid {
		if v {
			b[i>>3] |= 1 << (i & 7)
		} else {
			nulls++
		}
	}
	return memory.NewBufferBytes(b), nulls
}

// buildArray builds the array of node depth d (0 = top-level) from the leaves
// under it.
func buildArray(leaves []*builtLeaf, d int) (arrow.ArrayData, error) {
	first := leaves[0]
	dt := first.path.types[d]
	layer := len(first.path.nodes) - 1 - d
	lr := first.layers[layer]
	valid, nulls := bitmapOf(lr.valid)
	switch t := dt.(type) {
	case *arrow.StructType:
		children := make([]arrow.ArrayData, len(t.Fields()))
		for i := range t.Fields() {
			var sub []*builtLeaf
			for _, l := range leaves {
				if l.path.nodes[d+1] == first.path.nodes[d].Children[i] {
					sub = append(sub, l)
				}
			}
			if len(sub) == 0 {
				return nil, unsupportedf("struct child %q without columns", t.Field(i).Name)
			}
			c, err := buildArray(sub, d+1)
			if err != nil {
				return nil, err
			}
			if c.Len() != lr.n {
				return nil, corruptf("struct child %q has %d values, struct %d", t.Field(i).Name, c.Len(), lr.n)
			}
			children[i] = c
		}
		return array.NewData(dt, lr.n, []*memory.Buffer{valid}, children, nulls, 0), nil
	case *arrow.ListType, *arrow.LargeListType:
		child, err := buildArray(leaves, d+1)
		if err != nil {
			return nil, err
		}
		var ob []byte
		if _, large := dt.(*arrow.LargeListType); large {
			ob = make([]byte, 8*len(lr.offsets))
			for i, o := range lr.offsets {
				putUint(ob, 64, uint64(i), uint64(o))
			}
		} else {
			ob = make([]byte, 4*len(lr.offsets))
			for i, o := range lr.offsets {
				if o > 1<<31-1 {
					return nil, fmt.Errorf("%w: list offsets overflow int32", ErrInvalidArgument)
				}
				putUint(ob, 32, uint64(i), uint64(o))
			}
		}
		return array.NewData(dt, lr.n, []*memory.Buffer{valid, memory.NewBufferBytes(ob)}, []arrow.ArrayData{child}, nulls, 0), nil
	}
	if layer != 0 {
		return nil, corruptf("leaf type %s above layer 0", dt)
	}
	return leafArray(dt, first.piece.vals, lr.n, valid, nulls)
}

func leafArray(dt arrow.DataType, v *block, n int, valid *memory.Buffer, nulls int) (arrow.ArrayData, error) {
	if uint64(n) != v.n {
		return nil, corruptf("leaf has %d values for %d slots", v.n, n)
	}
	switch t := dt.(type) {
	case *arrow.StringType, *arrow.BinaryType, *arrow.LargeStringType, *arrow.LargeBinaryType:
		if !v.variable {
			return nil, corruptf("%s column decoded to fixed-width values", dt)
		}
		large := false
		switch t.(type) {
		case *arrow.LargeStringType, *arrow.LargeBinaryType:
			large = true
		}
		var ob []byte
		if large {
			ob = make([]byte, 8*(n+1))
			for i, o := range v.offsets {
				putUint(ob, 64, uint64(i), o)
			}
		} else {
			if v.offsets[n] > 1<<31-1 {
				return nil, fmt.Errorf("%w: %s offsets overflow int32", ErrInvalidArgument, dt)
			}
			ob = make([]byte, 4*(n+1))
			for i, o := range v.offsets {
				putUint(ob, 32, uint64(i), o)
			}
		}
		return array.NewData(dt, n, []*memory.Buffer{valid, memory.NewBufferBytes(ob), memory.NewBufferBytes(v.data)}, nil, nulls, 0), nil
	case *arrow.FixedSizeListType:
		if v.variable || v.itemsPerValue() != uint64(t.Len()) {
			return nil, corruptf("%s column decoded to %d items per value", dt, v.itemsPerValue())
		}
		ew := uint64(t.Elem().(arrow.FixedWidthDataType).BitWidth())
		if v.bits != ew {
			return nil, corruptf("%s items decoded as %d bits", dt, v.bits)
		}
		items := uint64(n) * uint64(t.Len())
		var iv *memory.Buffer
		inulls := 0
		if v.itemValid != nil {
			b := make([]byte, (items+7)/8)
			copyBits(b, 0, v.itemValid, 0, items)
			for i := uint64(0); i < items; i++ {
				if !getBit(b, i) {
					inulls++
				}
			}
			iv = memory.NewBufferBytes(b)
		}
		vals := memory.NewBufferBytes(v.data)
		if v.owner != nil {
			// freed to the owner when the last array over it is released
			vals = memory.NewBufferWithAllocator(v.data, v.owner)
			defer vals.Release()
		}
		child := array.NewData(t.Elem(), int(items), []*memory.Buffer{iv, vals}, nil, inulls, 0)
		defer child.Release()
		return array.NewData(dt, n, []*memory.Buffer{valid}, []arrow.ArrayData{child}, nulls, 0), nil
	case arrow.FixedWidthDataType:
		if v.variable || v.itemsPerValue() != 1 || v.bits != uint64(t.BitWidth()) {
			return nil, corruptf("%s column decoded to %d-bit values", dt, v.bits)
		}
		return array.NewData(dt, n, []*memory.Buffer{valid, memory.NewBufferBytes(v.data)}, nil, nulls, 0), nil
	}
	return nil, unsupportedf("leaf type %s", dt)
}

// ---------------------------------------------------------------- public API

// ReadRange decodes the given top-level fields (by field id) for rows
// [start, end) into one record, columns in the order asked.
func (r *Reader) ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64) (arrow.Record, error) {
	if start > end || end > r.numRows {
		return nil, fmt.Errorf("%w: rows %d..%d of %d", ErrInvalidArgument, start, end, r.numRows)
	}
	var ranges [][2]uint64
	if end > start {
		ranges = [][2]uint64{{start, end}}
	}
	return r.readRanges(ctx, fieldIDs, ranges, end-start)
}

// Take decodes the given rows (ascending; repeats allowed) of the fields.
func (r *Reader) Take(ctx context.Context, fieldIDs []int32, rows []uint64) (arrow.Record, error) {
	var ranges [][2]uint64
	for i, row := range rows {
		if row >= r.numRows {
			return nil, fmt.Errorf("%w: row %d of %d", ErrInvalidArgument, row, r.numRows)
		}
		if i > 0 && row < rows[i-1] {
			return nil, fmt.Errorf("%w: rows are not ascending", ErrInvalidArgument)
		}
		if n := len(ranges); n > 0 && ranges[n-1][1] == row {
			ranges[n-1][1]++
		} else {
			ranges = append(ranges, [2]uint64{row, row + 1})
		}
	}
	return r.readRanges(ctx, fieldIDs, ranges, uint64(len(rows)))
}

func (r *Reader) readRanges(ctx context.Context, fieldIDs []int32, ranges [][2]uint64, nRows uint64) (arrow.Record, error) {
	if len(ranges) > 0 {
		hctx, done, err := r.withHeldFile(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
		ctx = hctx
	}
	if r.footer.Version.Is20() {
		return r.readRangesV20(ctx, fieldIDs, ranges, nRows)
	}
	fields := make([]arrow.Field, len(fieldIDs))
	cols := make([]arrow.Array, 0, len(fieldIDs))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for i, id := range fieldIDs {
		f := r.topField(id)
		if f == nil {
			release()
			return nil, fmt.Errorf("%w: field id %d is not a top-level field of the file", ErrInvalidArgument, id)
		}
		af, err := f.ArrowField()
		if err != nil {
			release()
			return nil, fmt.Errorf("%w: field %q: %v", ErrUnsupportedEncoding, f.Name, err)
		}
		fields[i] = af
		arr, err := r.readField(ctx, f, ranges, nRows)
		if err != nil {
			release()
			return nil, fmt.Errorf("lancefile: field %q: %w", f.Name, err)
		}
		cols = append(cols, arr)
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(nRows))
	release()
	return rec, nil
}

// topField is the top-level field of the file with the given id (nil: none).
func (r *Reader) topField(id int32) *lanceschema.Field {
	var f *lanceschema.Field
	for _, tf := range r.schema.Fields {
		if tf.ID == id {
			f = tf
		}
	}
	return f
}

func (r *Reader) readField(ctx context.Context, f *lanceschema.Field, ranges [][2]uint64, nRows uint64) (arrow.Array, error) {
	paths, err := r.leavesOf(f)
	if err != nil {
		return nil, err
	}
	built := make([]*builtLeaf, len(paths))
	for i, p := range paths {
		piece, err := r.readLeafRanges(ctx, p.spec, ranges)
		if err != nil {
			return nil, err
		}
		if len(ranges) == 0 {
			piece = &leafPiece{}
			piece.vals, _ = p.spec.placeholder(0)
			if p.spec.maxRep() > 0 {
				piece.rep = []uint16{}
			}
		}
		layers, err := unravel(piece, p.spec)
		if err != nil {
			return nil, err
		}
		if top := layers[len(layers)-1]; uint64(top.n) != nRows {
			return nil, corruptf("column %d decoded %d rows, want %d", p.spec.col, top.n, nRows)
		}
		built[i] = &builtLeaf{path: p, piece: piece, layers: layers}
	}
	data, err := buildArray(built, 0)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}
