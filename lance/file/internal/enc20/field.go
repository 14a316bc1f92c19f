package enc20

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/lancecat/lancecat/lance/internal/pb/enc20pb"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

type page struct {
	first, n  uint64
	bufs      []Range
	enc       *enc20pb.ArrayEncoding
	itemsBase uint64 // list pages: items referenced by earlier pages
}

type column struct {
	idx     int
	pages   []*page
	rows    uint64
	bufs    []Range
	bufData map[int][]byte
}

type pageKey struct{ col, page int }

// reader holds the state of one Read call: parsed columns and decoded pages
// (a Take of many rows of one page decodes that page once).
type reader struct {
	src   ColumnSource
	cols  map[int]*column
	pages map[pageKey]*vals
	lists map[pageKey][]uint64
}

// ParseArrayEncoding decodes a page's encoding: a protobuf Any holding a
// lance.encodings.ArrayEncoding.
func ParseArrayEncoding(enc *file2pb.Encoding) (*enc20pb.ArrayEncoding, error) {
	b, err := directEncoding(enc)
	if err != nil {
		return nil, err
	}
	var a anypb.Any
	if err := proto.Unmarshal(b, &a); err != nil {
		return nil, corruptf("page encoding: %v", err)
	}
	if !strings.HasSuffix(a.TypeUrl, "/lance.encodings.ArrayEncoding") {
		return nil, unsupportedf("2.0 page encoding of type %q", a.TypeUrl)
	}
	var e enc20pb.ArrayEncoding
	if err := proto.Unmarshal(a.Value, &e); err != nil {
		return nil, corruptf("array encoding: %v", err)
	}
	return &e, nil
}

func directEncoding(enc *file2pb.Encoding) ([]byte, error) {
	if enc == nil {
		return nil, corruptf("missing encoding")
	}
	d, ok := enc.Location.(*file2pb.Encoding_Direct)
	if !ok || d.Direct == nil {
		return nil, unsupportedf("encoding not stored inline (%T)", enc.Location)
	}
	return d.Direct.Encoding, nil
}

// checkColumnEncoding accepts plain columns and zone-indexed ones (the zone
// map is a column buffer; pages are unchanged); blob columns are not decoded.
func checkColumnEncoding(enc *file2pb.Encoding) error {
	if enc == nil {
		return nil
	}
	b, err := directEncoding(enc)
	if err != nil || len(b) == 0 {
		return nil
	}
	var a anypb.Any
	if err := proto.Unmarshal(b, &a); err != nil {
		return corruptf("column encoding: %v", err)
	}
	if !strings.HasSuffix(a.TypeUrl, "/lance.encodings.ColumnEncoding") {
		return nil
	}
	var ce enc20pb.ColumnEncoding
	if err := proto.Unmarshal(a.Value, &ce); err != nil {
		return corruptf("column encoding: %v", err)
	}
	for depth := 0; depth < maxDepth; depth++ {
		switch x := ce.ColumnEncoding.(type) {
		case *enc20pb.ColumnEncoding_ZoneIndex:
			if x.ZoneIndex.GetInner() == nil {
				return nil
			}
			ce.ColumnEncoding = x.ZoneIndex.GetInner().ColumnEncoding
			continue
		case *enc20pb.ColumnEncoding_Blob:
			return unsupportedf("blob column")
		}
		return nil
	}
	return corruptf("column encodings nested too deep")
}

func (rd *reader) column(ctx context.Context, c int) (*column, error) {
	if col := rd.cols[c]; col != nil {
		return col, nil
	}
	if c < 0 {
		return nil, corruptf("field has no column")
	}
	cm, err := rd.src.ColumnMetadata(ctx, c)
	if err != nil {
		return nil, err
	}
	col, err := parseColumn(c, cm, rd.src.DataEnd())
	if err != nil {
		return nil, err
	}
	rd.cols[c] = col
	return col, nil
}

func parseColumn(c int, cm *file2pb.ColumnMetadata, end uint64) (*column, error) {
	if err := checkColumnEncoding(cm.Encoding); err != nil {
		return nil, err
	}
	col := &column{idx: c, bufData: map[int][]byte{}}
	refs := func(offs, sizes []uint64) ([]Range, error) {
		if len(offs) != len(sizes) {
			return nil, corruptf("column %d: %d buffer offsets, %d sizes", c, len(offs), len(sizes))
		}
		out := make([]Range, len(offs))
		for i := range offs {
			if offs[i] > end || sizes[i] > end-offs[i] {
				return nil, corruptf("column %d buffer at %d+%d outside the data (%d bytes)", c, offs[i], sizes[i], end)
			}
			out[i] = Range{offs[i], sizes[i]}
		}
		return out, nil
	}
	var err error
	if col.bufs, err = refs(cm.BufferOffsets, cm.BufferSizes); err != nil {
		return nil, err
	}
	var items uint64
	for i, p := range cm.Pages {
		pg := &page{first: col.rows, n: p.Length, itemsBase: items}
		if pg.bufs, err = refs(p.BufferOffsets, p.BufferSizes); err != nil {
			return nil, err
		}
		if pg.enc, err = ParseArrayEncoding(p.Encoding); err != nil {
			return nil, err
		}
		if p.Length > math.MaxInt64-col.rows {
			return nil, corruptf("column %d page %d: row count overflows", c, i)
		}
		if l := pg.enc.GetList(); l != nil {
			if l.NumItems > math.MaxInt64-items {
				return nil, corruptf("column %d: list item count overflows", c)
			}
			items += l.NumItems
		}
		col.rows += p.Length
		col.pages = append(col.pages, pg)
	}
	return col, nil
}

// pagesFor calls fn for every page part of rows [a, b) of col, with rows
// relative to the page.
func (col *column) pagesFor(a, b uint64, fn func(pi int, pg *page, a, b uint64) error) error {
	if b > col.rows {
		return corruptf("rows %d..%d of column %d with %d rows", a, b, col.idx, col.rows)
	}
	i := sort.Search(len(col.pages), func(i int) bool { return col.pages[i].first+col.pages[i].n > a })
	for ; i < len(col.pages) && a < b; i++ {
		pg := col.pages[i]
		if pg.n == 0 {
			continue
		}
		e := min(b, pg.first+pg.n)
		if err := fn(i, pg, a-pg.first, e-pg.first); err != nil {
			return err
		}
		a = e
	}
	return nil
}

func (rd *reader) buffers(ctx context.Context, col *column, pg *page) (*bufferSet, error) {
	page, err := rd.src.ReadRanges(ctx, pg.bufs)
	if err != nil {
		return nil, err
	}
	if len(page) != len(pg.bufs) {
		return nil, corruptf("read %d page buffers, want %d", len(page), len(pg.bufs))
	}
	bs := &bufferSet{page: page}
	bs.column = func(i int) ([]byte, error) {
		if b, ok := col.bufData[i]; ok {
			return b, nil
		}
		if i >= len(col.bufs) {
			return nil, corruptf("column buffer %d of %d", i, len(col.bufs))
		}
		bb, err := rd.src.ReadRanges(ctx, col.bufs[i:i+1])
		if err != nil {
			return nil, err
		}
		col.bufData[i] = bb[0]
		return bb[0], nil
	}
	bs.file = func(i int) ([]byte, error) { return rd.src.GlobalBuffer(ctx, i) }
	return bs, nil
}

func (rd *reader) leafPage(ctx context.Context, col *column, pi int, sh *shape) (*vals, error) {
	k := pageKey{col.idx, pi}
	if v := rd.pages[k]; v != nil {
		return v, nil
	}
	pg := col.pages[pi]
	bs, err := rd.buffers(ctx, col, pg)
	if err != nil {
		return nil, err
	}
	v, err := decodeArray(bs, pg.enc, sh, pg.n, 0)
	if err != nil {
		return nil, corruptWrap(col.idx, pi, err)
	}
	if v.n != pg.n {
		return nil, corruptf("column %d page %d decoded %d of %d values", col.idx, pi, v.n, pg.n)
	}
	rd.pages[k] = v
	return v, nil
}

func corruptWrap(c, p int, err error) error {
	return &pageError{col: c, page: p, err: err}
}

type pageError struct {
	col, page int
	err       error
}

func (e *pageError) Error() string {
	return fmt.Sprintf("column %d page %d: %v", e.col, e.page, e.err)
}
func (e *pageError) Unwrap() error { return e.err }

func (rd *reader) readField(ctx context.Context, f *lanceschema.Field, dt arrow.DataType, ranges [][2]uint64) (arrow.ArrayData, error) {
	var n uint64
	for _, r := range ranges {
		n += r[1] - r[0]
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		return rd.readStruct(ctx, f, t, ranges, n)
	case *arrow.ListType:
		return rd.readList(ctx, f, t, t.Elem(), false, ranges, n)
	case *arrow.LargeListType:
		return rd.readList(ctx, f, t, t.Elem(), true, ranges, n)
	}
	if len(f.Children) > 0 {
		return nil, unsupportedf("2.0 field %q of type %s with child fields", f.Name, dt)
	}
	sh, err := shapeOf(dt)
	if err != nil {
		return nil, err
	}
	col, err := rd.column(ctx, rd.src.ColumnIndex(f.ID))
	if err != nil {
		return nil, err
	}
	var pieces []*vals
	for _, r := range ranges {
		err := col.pagesFor(r[0], r[1], func(pi int, _ *page, a, b uint64) error {
			v, err := rd.leafPage(ctx, col, pi, sh)
			if err != nil {
				return err
			}
			pieces = append(pieces, v.slice(sh, a, b))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(pieces) == 0 {
		pieces = []*vals{{n: 0, allNull: true}}
	}
	v, err := concat(sh, pieces)
	if err != nil {
		return nil, err
	}
	if v.n != n {
		return nil, corruptf("column %d decoded %d values, want %d", col.idx, v.n, n)
	}
	return toArrow(v, sh, dt)
}

// readStruct: 2.0 structs have a header column with no data (and no
// validity: a null struct reads as a struct of null children).
func (rd *reader) readStruct(ctx context.Context, f *lanceschema.Field, t *arrow.StructType, ranges [][2]uint64, n uint64) (arrow.ArrayData, error) {
	if len(f.Children) != t.NumFields() {
		return nil, corruptf("struct %q: %d child fields, arrow type has %d", f.Name, len(f.Children), t.NumFields())
	}
	col, err := rd.column(ctx, rd.src.ColumnIndex(f.ID))
	if err != nil {
		return nil, err
	}
	for i, pg := range col.pages {
		switch pg.enc.ArrayEncoding.(type) {
		case *enc20pb.ArrayEncoding_Struct:
		case *enc20pb.ArrayEncoding_PackedStruct:
			return nil, unsupportedf("packed struct column %d", col.idx)
		default:
			return nil, corruptf("struct header column %d page %d has encoding %T", col.idx, i, pg.enc.ArrayEncoding)
		}
	}
	children := make([]arrow.ArrayData, 0, len(f.Children))
	defer func() {
		for _, c := range children {
			c.Release()
		}
	}()
	for i, cf := range f.Children {
		cd, err := rd.readField(ctx, cf, t.Field(i).Type, ranges)
		if err != nil {
			return nil, err
		}
		children = append(children, cd)
		if uint64(cd.Len()) != n {
			return nil, corruptf("struct child %q decoded %d rows, want %d", cf.Name, cd.Len(), n)
		}
	}
	return array.NewData(t, int(n), []*memory.Buffer{nil}, children, 0, 0), nil
}

func (rd *reader) listOffsets(ctx context.Context, col *column, pi int) ([]uint64, error) {
	k := pageKey{col.idx, pi}
	if o, ok := rd.lists[k]; ok {
		return o, nil
	}
	pg := col.pages[pi]
	l := pg.enc.GetList()
	if l == nil {
		return nil, corruptf("list column %d page %d has encoding %T", col.idx, pi, pg.enc.ArrayEncoding)
	}
	bs, err := rd.buffers(ctx, col, pg)
	if err != nil {
		return nil, err
	}
	offs, err := decodeListOffsets(bs, l, pg.n)
	if err != nil {
		return nil, corruptWrap(col.idx, pi, err)
	}
	if rd.lists == nil {
		rd.lists = map[pageKey][]uint64{}
	}
	rd.lists[k] = offs
	return offs, nil
}

// readList: a 2.0 list column holds, per list page, the end offsets of its
// lists (relative to the items that page references, plus the null offset
// adjustment for a null list); the items are the rows of the item field's
// column(s), pages of items following each other in list page order.
func (rd *reader) readList(ctx context.Context, f *lanceschema.Field, dt, elem arrow.DataType, large bool, ranges [][2]uint64, n uint64) (arrow.ArrayData, error) {
	if len(f.Children) != 1 {
		return nil, corruptf("list %q has %d child fields", f.Name, len(f.Children))
	}
	col, err := rd.column(ctx, rd.src.ColumnIndex(f.ID))
	if err != nil {
		return nil, err
	}
	valid := make([]byte, (n+7)/8)
	nulls := 0
	lens := make([]uint64, 0, n)
	var items [][2]uint64
	for _, r := range ranges {
		err := col.pagesFor(r[0], r[1], func(pi int, pg *page, a, b uint64) error {
			offs, err := rd.listOffsets(ctx, col, pi)
			if err != nil {
				return err
			}
			noa := pg.enc.GetList().NullOffsetAdjustment
			start := uint64(0)
			if a > 0 {
				start = offs[a-1] % noa
			}
			first := start
			for i := a; i < b; i++ {
				end := offs[i] % noa
				if offs[i] < noa {
					j := len(lens)
					valid[j>>3] |= 1 << (j & 7)
				} else {
					nulls++
				}
				lens = append(lens, end-start)
				start = end
			}
			if start > first {
				s, e := pg.itemsBase+first, pg.itemsBase+start
				if k := len(items); k > 0 && items[k-1][1] == s {
					items[k-1][1] = e
				} else {
					items = append(items, [2]uint64{s, e})
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if uint64(len(lens)) != n {
		return nil, corruptf("list column %d decoded %d rows, want %d", col.idx, len(lens), n)
	}
	var total uint64
	for _, it := range items {
		total += it[1] - it[0]
	}
	if total > maxItems {
		return nil, corruptf("%d list items in one request", total)
	}
	child, err := rd.readField(ctx, f.Children[0], elem, items)
	if err != nil {
		return nil, err
	}
	defer child.Release()
	if uint64(child.Len()) != total {
		return nil, corruptf("list items decoded %d values, want %d", child.Len(), total)
	}
	var ob []byte
	if large {
		ob = make([]byte, 8*(n+1))
	} else {
		if total > math.MaxInt32 {
			return nil, unsupportedf("%d items do not fit 32-bit list offsets", total)
		}
		ob = make([]byte, 4*(n+1))
	}
	var at uint64
	for i, l := range lens {
		at += l
		if large {
			binary.LittleEndian.PutUint64(ob[8*(i+1):], at)
		} else {
			binary.LittleEndian.PutUint32(ob[4*(i+1):], uint32(at))
		}
	}
	var vb *memory.Buffer
	if nulls > 0 {
		vb = memory.NewBufferBytes(valid)
	}
	return array.NewData(dt, int(n), []*memory.Buffer{vb, memory.NewBufferBytes(ob)}, []arrow.ArrayData{child}, nulls, 0), nil
}

// decodeListOffsets decodes and checks the n offsets of a list page: each
// list ends (offset modulo the null offset adjustment) at or after the
// previous one and within the items the page references.
func decodeListOffsets(bs *bufferSet, l *enc20pb.List, n uint64) ([]uint64, error) {
	noa := l.NullOffsetAdjustment
	if noa == 0 {
		return nil, corruptf("list null offset adjustment 0")
	}
	if n > maxItems {
		return nil, corruptf("%d lists in one page", n)
	}
	offs, err := decodeInts(bs, l.Offsets, n, 0)
	if err != nil {
		return nil, err
	}
	var prev uint64
	for i, o := range offs {
		if o >= noa && o-noa >= noa {
			return nil, corruptf("list offset %d = %d beyond twice the null adjustment %d", i, o, noa)
		}
		e := o % noa
		if e < prev || e > l.NumItems {
			return nil, corruptf("list %d ends at %d (previous end %d, %d items)", i, e, prev, l.NumItems)
		}
		prev = e
	}
	return offs, nil
}
