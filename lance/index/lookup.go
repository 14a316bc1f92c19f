package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
)

// LookupFlags are the predicate flags of `lancecat dataset lookup`: exactly
// one of Eq, Prefix or In (comma-separated) must be set. For a LABEL_LIST
// index, Eq means array_has_any(column, [v]) and In array_has_any(column, vs).
type LookupFlags struct {
	Eq, Prefix, In string
	HasEq          bool // Eq was given (it may be the empty string)
	HasPrefix      bool
	HasIn          bool
}

// QueryFromFlags builds the query of `lancecat dataset lookup` for the index
// called name of ds, parsing the flag values as the indexed column's type.
func QueryFromFlags(ds *dataset.Dataset, name string, f LookupFlags) (Query, error) {
	n := 0
	for _, set := range []bool{f.HasEq, f.HasPrefix, f.HasIn} {
		if set {
			n++
		}
	}
	if n != 1 {
		return Query{}, fmt.Errorf("%w: give exactly one of --eq, --prefix, --in", ErrBadQuery)
	}
	var meta *dataset.IndexMetadata
	for _, m := range ds.Indices() {
		if m.Name == name {
			meta = m
			break
		}
	}
	if meta == nil {
		return Query{}, fmt.Errorf("%w: %q in %s", ErrNoIndex, name, ds.URI())
	}
	if len(meta.Fields) != 1 || ds.Schema().FieldByID(meta.Fields[0]) == nil {
		return Query{}, fmt.Errorf("%w: index %q fields %v", ErrUnsupported, name, meta.Fields)
	}
	at, err := ds.Schema().FieldByID(meta.Fields[0]).ArrowType()
	if err != nil {
		return Query{}, err
	}
	kind := KindOf(meta)
	if kind == KindLabelList {
		lt, ok := at.(*arrow.ListType)
		if !ok {
			return Query{}, fmt.Errorf("%w: label list on %s", ErrUnsupported, at)
		}
		at = lt.Elem()
	}
	parse := func(s string) (any, error) { return ParseValue(at, s) }
	switch {
	case f.HasPrefix:
		if kind == KindLabelList {
			return Query{}, fmt.Errorf("%w: --prefix on a LABEL_LIST index", ErrBadQuery)
		}
		return Prefix(f.Prefix), nil
	case f.HasEq:
		v, err := parse(f.Eq)
		if err != nil {
			return Query{}, fmt.Errorf("%w: --eq %q: %v", ErrBadQuery, f.Eq, err)
		}
		if kind == KindLabelList {
			return HasAny(v), nil
		}
		return Eq(v), nil
	default:
		var vs []any
		for _, s := range strings.Split(f.In, ",") {
			v, err := parse(s)
			if err != nil {
				return Query{}, fmt.Errorf("%w: --in value %q: %v", ErrBadQuery, s, err)
			}
			vs = append(vs, v)
		}
		if kind == KindLabelList {
			return HasAny(vs...), nil
		}
		return In(vs...), nil
	}
}

// Lookup answers q through the index called name and calls fn with the
// matching live rows (every column, named and typed as in the dataset
// schema), in scan order: fragments in manifest order, rows in fragment
// order. Only fragments holding index hits are read, plus the fragments the
// index does not cover, which are scanned with the predicate. Batches are
// released after fn returns. This is `lancecat dataset lookup`.
func Lookup(ctx context.Context, ds *dataset.Dataset, name string, q Query, fn func(arrow.RecordBatch) error) error {
	ix, err := Open(ctx, ds, name)
	if err != nil {
		return err
	}
	res, err := ix.Search(ctx, q)
	if err != nil {
		return err
	}
	column := ix.Field().Name
	for _, f := range ds.Fragments() {
		uncovered := slices.Contains(res.Uncovered, f.ID)
		_, hit := res.Rows.Group(uint32(f.ID))
		if !uncovered && !hit {
			continue
		}
		err := ds.Scan(ctx, dataset.ScanOptions{Fragments: []uint64{f.ID}, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
			addrs, ok := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
			if !ok {
				return fmt.Errorf("index: row address column of type %s", rec.Column(int(rec.NumCols())-1).DataType())
			}
			var keep []int
			var col arrow.Array
			if uncovered {
				idx := rec.Schema().FieldIndices(column)
				if len(idx) != 1 {
					return fmt.Errorf("index: scan has no column %q", column)
				}
				col = rec.Column(idx[0])
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				if uncovered {
					m, err := matchArrow(col, i, q)
					if err != nil {
						return err
					}
					if m {
						keep = append(keep, i)
					}
				} else if res.Rows.Contains(addrs.Value(i)) {
					keep = append(keep, i)
				}
			}
			if len(keep) == 0 {
				return nil
			}
			out, err := selectRows(rec, keep)
			if err != nil {
				return err
			}
			defer out.Release()
			return fn(out)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// matchArrow evaluates q on row i of an Arrow column (for rows of
// fragments the index does not cover).
func matchArrow(col arrow.Array, i int, q Query) (bool, error) {
	if q.Op == OpHasAny || q.Op == OpHasAll {
		l, ok := col.(*array.List)
		if !ok {
			return false, fmt.Errorf("%w: %s on a %s column", ErrBadQuery, q.Op, col.DataType())
		}
		if l.IsNull(i) {
			return false, nil
		}
		k, err := kindOf(l.ListValues().DataType())
		if err != nil {
			return false, err
		}
		a, b := l.ValueOffsets(i)
		has := func(label any) (bool, error) {
			c, ok, err := coerce(label, k)
			if err != nil || !ok {
				return false, err
			}
			for j := a; j < b; j++ {
				v, valid, err := valueAt(l.ListValues(), int(j))
				if err != nil {
					return false, err
				}
				if valid && compareValues(v, c) == 0 {
					return true, nil
				}
			}
			return false, nil
		}
		for _, label := range q.Values {
			h, err := has(label)
			if err != nil {
				return false, err
			}
			if q.Op == OpHasAny && h {
				return true, nil
			}
			if q.Op == OpHasAll && !h {
				return false, nil
			}
		}
		return q.Op == OpHasAll, nil
	}
	k, err := kindOf(col.DataType())
	if err != nil {
		return false, err
	}
	p, err := normalize(q, k)
	if err != nil {
		return false, err
	}
	v, ok, err := valueAt(col, i)
	if err != nil {
		return false, err
	}
	if !ok {
		v = nil
	}
	return p.match(v), nil
}

// selectRows returns the rows keep (ascending) of rec without its trailing
// row address column.
func selectRows(rec arrow.RecordBatch, keep []int) (arrow.RecordBatch, error) {
	ncols := int(rec.NumCols()) - 1
	fields := rec.Schema().Fields()[:ncols]
	schema := arrow.NewSchema(fields, nil)
	var parts [][]arrow.Array
	for s := 0; s < len(keep); {
		e := s + 1
		for e < len(keep) && keep[e] == keep[e-1]+1 {
			e++
		}
		cols := make([]arrow.Array, ncols)
		for c := 0; c < ncols; c++ {
			cols[c] = array.NewSlice(rec.Column(c), int64(keep[s]), int64(keep[e-1]+1))
		}
		parts = append(parts, cols)
		s = e
	}
	defer func() {
		for _, p := range parts {
			for _, a := range p {
				a.Release()
			}
		}
	}()
	out := make([]arrow.Array, ncols)
	for c := 0; c < ncols; c++ {
		pieces := make([]arrow.Array, len(parts))
		for i, p := range parts {
			pieces[i] = p[c]
		}
		a, err := array.Concatenate(pieces, memory.DefaultAllocator)
		if err != nil {
			for _, x := range out[:c] {
				x.Release()
			}
			return nil, err
		}
		out[c] = a
	}
	r := array.NewRecordBatch(schema, out, int64(len(keep)))
	for _, a := range out {
		a.Release()
	}
	return r, nil
}
