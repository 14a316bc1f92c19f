package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
)

// IndexOp is the kind of predicate a scalar index may answer.
type IndexOp int

const (
	// IndexEqual is column = value.
	IndexEqual IndexOp = iota + 1
	// IndexIn is column IN (values...).
	IndexIn
	// IndexPrefix is column LIKE 'prefix%' (a string prefix).
	IndexPrefix
)

func (op IndexOp) String() string {
	switch op {
	case IndexEqual:
		return "="
	case IndexIn:
		return "IN"
	case IndexPrefix:
		return "prefix"
	}
	return "?"
}

// IndexPredicate is one conjunct of a WHERE clause that a scalar index on
// Column could answer. Values hold literals as the planner evaluates them
// (int64, float64, string, bool); for IndexPrefix, Values holds the one
// prefix string.
type IndexPredicate struct {
	Column string
	Op     IndexOp
	Values []any
}

func (p IndexPredicate) String() string {
	parts := make([]string, len(p.Values))
	for i, v := range p.Values {
		if s, ok := v.(string); ok {
			parts[i] = quoteString(s)
		} else {
			parts[i] = toString(v)
		}
	}
	switch p.Op {
	case IndexEqual:
		return fmt.Sprintf("%s = %s", p.Column, strings.Join(parts, ""))
	case IndexIn:
		return fmt.Sprintf("%s IN (%s)", p.Column, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%s LIKE prefix %s", p.Column, strings.Join(parts, ""))
}

// IndexLookup is the hook through which the planner pushes one conjunct of
// WHERE to a scalar index. The planner scans through lance/scan with the
// predicate the hook returns: the scanner reads only the rows the index
// returns from the fragments it covers, scans the others with the same
// predicate, and the planner still evaluates the whole WHERE clause on
// every row it receives.
//
// Choose names the index that would answer pred ("KIND 'name'", "" when
// none can), from the manifest alone (for EXPLAIN). Serve returns the
// index's name and the predicate as the index understands it (ok false:
// no index can answer it with the planner's comparison semantics); the
// planner pushes the first conjunct served.
type IndexLookup interface {
	Choose(ds *dataset.Dataset, pred IndexPredicate) string
	Serve(ds *dataset.Dataset, pred IndexPredicate) (name string, q index.Query, ok bool)
}

// ScalarIndexes is the IndexLookup over the dataset's own Lance scalar
// indices (lance/index): BTREE answers =, IN and string prefixes, BITMAP
// answers = and IN. It serves a predicate only where the index's ordering
// agrees exactly with the planner's comparison (MySQL semantics): integer
// columns against integer literals, strings and binaries against string
// literals (byte-wise, as the planner compares), booleans against 0/1 and
// TRUE/FALSE, float64 columns against non-zero numbers (the index orders
// -0 and 0 apart). Other types (dates and times against string literals,
// float32, decimals) are scanned.
type ScalarIndexes struct{}

// usable finds the index of ds that can answer pred and the index query for
// it.
func (ScalarIndexes) usable(ds *dataset.Dataset, pred IndexPredicate) (string, index.Kind, index.Query, bool) {
	f := ds.Schema().Field(pred.Column)
	if f == nil {
		return "", 0, index.Query{}, false
	}
	at, err := f.ArrowType()
	if err != nil {
		return "", 0, index.Query{}, false
	}
	q, ok := indexQuery(at, pred)
	if !ok {
		return "", 0, index.Query{}, false
	}
	for _, info := range index.Describe(ds) {
		if len(info.Columns) != 1 || info.Columns[0] != f.Name {
			continue
		}
		switch {
		case info.Kind == index.KindBTree:
		case info.Kind == index.KindBitmap && pred.Op != IndexPrefix:
		default:
			continue
		}
		return info.Name, info.Kind, q, true
	}
	return "", 0, index.Query{}, false
}

// Choose implements IndexLookup.
func (x ScalarIndexes) Choose(ds *dataset.Dataset, pred IndexPredicate) string {
	name, kind, _, ok := x.usable(ds, pred)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %s", kind, quoteString(name))
}

// Serve implements IndexLookup.
func (x ScalarIndexes) Serve(ds *dataset.Dataset, pred IndexPredicate) (string, index.Query, bool) {
	name, _, q, ok := x.usable(ds, pred)
	return name, q, ok
}

// indexQuery converts pred to an index query over a column of type t, or
// ok=false when the index would not compare as the planner does.
func indexQuery(t arrow.DataType, pred IndexPredicate) (index.Query, bool) {
	if pred.Op == IndexPrefix {
		switch t.ID() {
		case arrow.STRING, arrow.LARGE_STRING: // not binaries: LIKE compares them as text
			if len(pred.Values) != 1 {
				return index.Query{}, false
			}
			s, ok := pred.Values[0].(string)
			if !ok || s == "" {
				return index.Query{}, false
			}
			return index.Prefix(s), true
		}
		return index.Query{}, false
	}
	var conv func(v any) (any, bool, bool) // value, keep (false: matches nothing), ok
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		conv = func(v any) (any, bool, bool) {
			switch x := v.(type) {
			case int64:
				return x, true, true
			case float64:
				// The planner compares an integer with a float as float64:
				// exact only below 2^53.
				if math.Abs(x) >= 1<<53 {
					return nil, false, false
				}
				if x != math.Trunc(x) {
					return nil, false, true
				}
				return int64(x), true, true
			}
			return nil, false, false
		}
	case arrow.FLOAT64:
		conv = func(v any) (any, bool, bool) {
			switch x := v.(type) {
			case int64:
				if x == 0 || x >= 1<<53 || x <= -(1<<53) {
					return nil, false, false
				}
				return float64(x), true, true
			case float64:
				if x == 0 || math.IsNaN(x) {
					return nil, false, false
				}
				return x, true, true
			}
			return nil, false, false
		}
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		conv = func(v any) (any, bool, bool) {
			s, ok := v.(string)
			return s, ok, ok
		}
	case arrow.BOOL:
		conv = func(v any) (any, bool, bool) {
			switch x := v.(type) {
			case bool:
				return x, true, true
			case int64:
				return x == 1, x == 0 || x == 1, true
			}
			return nil, false, false
		}
	default:
		return index.Query{}, false
	}
	var vals []any
	for _, v := range pred.Values {
		c, keep, ok := conv(v)
		if !ok {
			return index.Query{}, false
		}
		if keep {
			vals = append(vals, c)
		}
	}
	if pred.Op == IndexEqual && len(vals) == 1 {
		return index.Eq(vals[0]), true
	}
	return index.In(vals...), true
}

// indexedFields names the fields of ds that have a scalar index, by index
// name, for EXPLAIN.
func indexedFields(ds *dataset.Dataset) map[string][]string {
	out := map[string][]string{}
	for _, info := range index.Describe(ds) {
		if len(info.Columns) != 1 {
			continue
		}
		out[info.Columns[0]] = append(out[info.Columns[0]], fmt.Sprintf("%s %s", info.Kind, quoteString(info.Name)))
	}
	return out
}
