package index

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

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
