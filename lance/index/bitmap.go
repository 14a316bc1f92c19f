package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// BITMAP / LABEL_LIST file layout (bitmap_page_lookup.lance):
//
//	keys (the indexed type, or the list's item type for label lists; a null
//	key holds the rows whose value is null), bitmaps binary (a serialized
//	RowIdTreeMap, see RowSet.MarshalBinary). Key order is not defined (old
//	Lance releases wrote hash order).
//
// Label-list indices (index_version 1) also carry the rows whose whole list
// is null in a global buffer named by the schema metadata
// "lance:label_list_nulls" (the buffer index).
const (
	bitmapLookupFile     = "bitmap_page_lookup.lance"
	bitmapKeysColumn     = "keys"
	bitmapBitmapsColumn  = "bitmaps"
	labelListNullsKey    = "lance:label_list_nulls"
	indexStatsKey        = "lance:index_stats"
	maxLookupRows        = 1 << 26
	maxGlobalBufferIndex = 1 << 16
)

// bitmapSegment is one loaded BITMAP or LABEL_LIST segment: the key -> row
// map in memory; bitmaps are read on demand.
type bitmapSegment struct {
	files     *segmentFiles
	kind      valueKind
	valueType arrow.DataType
	keys      map[any]uint64 // by mapKey
	sorted    []any          // keys ascending, for ranges
	nullRow   int64          // -1: no null key
	bitmapsID int32
	// listNulls: rows whose list is null (label lists only).
	listNulls *RowSet
}

func loadBitmap(ctx context.Context, files *segmentFiles, labelList bool) (*bitmapSegment, error) {
	f, err := files.open(ctx, bitmapLookupFile)
	if err != nil {
		return nil, err
	}
	sch := f.Schema()
	ids, err := fieldIDs(sch, bitmapKeysColumn, bitmapBitmapsColumn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bitmapLookupFile, err)
	}
	n := f.NumRows()
	if n > maxLookupRows {
		return nil, corruptf("bitmap index with %d keys", n)
	}
	keyField := sch.FieldByID(ids[0])
	vt, err := keyField.ArrowType()
	if err != nil {
		return nil, err
	}
	seg := &bitmapSegment{files: files, valueType: vt, keys: make(map[any]uint64, n), nullRow: -1, bitmapsID: ids[1]}
	if seg.kind, err = kindOf(vt); err != nil {
		return nil, err
	}
	const chunk = 2048
	for start := uint64(0); start < n; start += chunk {
		end := min(start+chunk, n)
		rec, err := files.readRange(ctx, f, ids[:1], start, end)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bitmapLookupFile, err)
		}
		col := rec.Column(0)
		for i := 0; i < col.Len(); i++ {
			v, ok, err := valueAt(col, i)
			if err != nil {
				rec.Release()
				return nil, err
			}
			row := start + uint64(i)
			if !ok {
				seg.nullRow = int64(row)
				continue
			}
			if _, dup := seg.keys[mapKey(v)]; dup {
				rec.Release()
				return nil, corruptf("%s repeats key %v", bitmapLookupFile, v)
			}
			seg.keys[mapKey(v)] = row
			seg.sorted = append(seg.sorted, v)
		}
		rec.Release()
	}
	slices.SortFunc(seg.sorted, compareValues)
	if labelList {
		seg.listNulls = &RowSet{}
		if v, ok := sch.Metadata[labelListNullsKey]; ok {
			bi, err := strconv.ParseUint(v, 10, 32)
			if err != nil || bi > maxGlobalBufferIndex {
				return nil, corruptf("%s=%q is not a global buffer index", labelListNullsKey, v)
			}
			b, err := files.globalBuffer(ctx, f, int(bi))
			if err != nil {
				return nil, fmt.Errorf("%s: label-list nulls: %w", bitmapLookupFile, err)
			}
			if seg.listNulls, err = DecodeRowSet(b); err != nil {
				return nil, fmt.Errorf("%s: label-list nulls: %w", bitmapLookupFile, err)
			}
		}
	}
	return seg, nil
}

// bitmapAt reads the row set stored at row of the lookup file.
func (s *bitmapSegment) bitmapAt(ctx context.Context, row uint64) (*RowSet, error) {
	f, err := s.files.open(ctx, bitmapLookupFile)
	if err != nil {
		return nil, err
	}
	rec, err := s.files.readRange(ctx, f, []int32{s.bitmapsID}, row, row+1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bitmapLookupFile, err)
	}
	defer rec.Release()
	var b []byte
	switch col := rec.Column(0).(type) {
	case *array.Binary:
		if col.IsNull(0) {
			return &RowSet{}, nil
		}
		b = col.Value(0)
	case *array.LargeBinary:
		if col.IsNull(0) {
			return &RowSet{}, nil
		}
		b = col.Value(0)
	default:
		return nil, corruptf("%s: bitmaps column of type %s", bitmapLookupFile, col.DataType())
	}
	rs, err := DecodeRowSet(b)
	if err != nil {
		return nil, fmt.Errorf("%s row %d: %w", bitmapLookupFile, row, err)
	}
	return rs, nil
}

// keyRows lists the lookup rows whose key satisfies the plan.
func (s *bitmapSegment) keyRows(p plan) []uint64 {
	var rows []uint64
	if p.isPoints {
		for _, v := range p.points {
			if r, ok := s.keys[mapKey(v)]; ok {
				rows = append(rows, r)
			}
		}
	} else {
		for _, k := range s.sorted {
			if p.match(k) {
				rows = append(rows, s.keys[mapKey(k)])
			}
		}
	}
	if p.nulls && s.nullRow >= 0 {
		rows = append(rows, uint64(s.nullRow))
	}
	slices.Sort(rows)
	return slices.Compact(rows)
}

func (s *bitmapSegment) search(ctx context.Context, q Query) (*RowSet, error) {
	switch q.Op {
	case OpHasAny, OpHasAll:
		if s.listNulls == nil {
			return nil, fmt.Errorf("%w: %s needs a LABEL_LIST index", ErrBadQuery, q.Op)
		}
		return s.searchLabels(ctx, q)
	}
	if s.listNulls != nil {
		return nil, fmt.Errorf("%w: a LABEL_LIST index answers array_has_any / array_has_all, not %s", ErrBadQuery, q.Op)
	}
	p, err := normalize(q, s.kind)
	if err != nil {
		return nil, err
	}
	out := &RowSet{}
	for _, r := range s.keyRows(p) {
		rs, err := s.bitmapAt(ctx, r)
		if err != nil {
			return nil, err
		}
		out.Or(rs)
	}
	return out, nil
}

// searchLabels answers array_has_any / array_has_all: the union or the
// intersection of the labels' bitmaps. Null elements never match; rows whose
// list is null are in no bitmap, so they never match either.
func (s *bitmapSegment) searchLabels(ctx context.Context, q Query) (*RowSet, error) {
	if len(q.Values) == 0 {
		return nil, fmt.Errorf("%w: %s needs at least one label", ErrBadQuery, q.Op)
	}
	var out *RowSet
	for _, v := range q.Values {
		if v == nil {
			return nil, fmt.Errorf("%w: null label in %s", ErrBadQuery, q.Op)
		}
		c, ok, err := coerce(v, s.kind)
		if err != nil {
			return nil, err
		}
		rs := &RowSet{}
		if ok {
			if r, found := s.keys[mapKey(c)]; found {
				if rs, err = s.bitmapAt(ctx, r); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case out == nil:
			out = rs
		case q.Op == OpHasAny:
			out.Or(rs)
		default:
			out.And(rs)
		}
	}
	return out, nil
}

// floatKey is a float key by its bits: Go's map equality would merge -0
// and +0 (distinct keys of Lance's bitmap, which orders floats by
// totalOrder) and never find a NaN.
type floatKey uint64

// mapKey is the key of a normalized value in bitmapSegment.keys.
func mapKey(v any) any {
	if f, ok := v.(float64); ok {
		return floatKey(math.Float64bits(f))
	}
	return v
}
