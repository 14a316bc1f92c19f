package planner

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/sqltypes"
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
	// IndexRange is Lo <(=) column <(=) Hi (<, <=, >, >=, BETWEEN); a nil
	// bound is unbounded.
	IndexRange
	// IndexIsNull is column IS NULL (or column <=> NULL).
	IndexIsNull
	// IndexHasAny is array_has_any(list column, values...).
	IndexHasAny
	// IndexHasAll is array_has_all(list column, values...).
	IndexHasAll
)

func (op IndexOp) String() string {
	switch op {
	case IndexEqual:
		return "="
	case IndexIn:
		return "IN"
	case IndexPrefix:
		return "prefix"
	case IndexRange:
		return "range"
	case IndexIsNull:
		return "IS NULL"
	case IndexHasAny:
		return "array_has_any"
	case IndexHasAll:
		return "array_has_all"
	}
	return "?"
}

// IndexBound is one end of an IndexRange: a literal as the planner
// evaluates it, and whether the end is included.
type IndexBound struct {
	Value     any
	Inclusive bool
}

// IndexPredicate is one conjunct of a WHERE clause that a scalar index on
// Column could answer. Values hold literals as the planner evaluates them
// (int64, float64, string, bool); for IndexPrefix, Values holds the one
// prefix string; for IndexRange, Lo and Hi hold the bounds.
type IndexPredicate struct {
	Column string
	Op     IndexOp
	Values []any
	Lo, Hi *IndexBound
}

func (p IndexPredicate) String() string {
	lit := func(v any) string {
		if s, ok := v.(string); ok {
			return quoteString(s)
		}
		return toString(v)
	}
	parts := make([]string, len(p.Values))
	for i, v := range p.Values {
		parts[i] = lit(v)
	}
	switch p.Op {
	case IndexIsNull:
		return p.Column + " IS NULL"
	case IndexHasAny, IndexHasAll:
		return fmt.Sprintf("%s(%s, %s)", p.Op, p.Column, strings.Join(parts, ", "))
	case IndexRange:
		var out []string
		if p.Lo != nil {
			op := ">"
			if p.Lo.Inclusive {
				op = ">="
			}
			out = append(out, fmt.Sprintf("%s %s %s", p.Column, op, lit(p.Lo.Value)))
		}
		if p.Hi != nil {
			op := "<"
			if p.Hi.Inclusive {
				op = "<="
			}
			out = append(out, fmt.Sprintf("%s %s %s", p.Column, op, lit(p.Hi.Value)))
		}
		return strings.Join(out, " AND ")
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
// indices (lance/index): BTREE answers =, IN, ranges, IS NULL and string
// prefixes, BITMAP all of them but prefixes. It serves a predicate only
// where the index's ordering agrees exactly with the planner's comparison
// (MySQL semantics): integer columns against numbers (a fractional range
// bound rounds to the integers it admits), strings and binaries against
// string literals (byte-wise, as the planner compares), booleans against
// 0/1 and TRUE/FALSE (equality only), float64 columns against numbers
// (equality and ranges: the planner orders floats as the index does, by
// IEEE totalOrder, except that -0 equals 0, so a zero becomes the range
// [-0, +0] or the bound on the right side of both zeros; see
// compareFloat). IS NULL
// is served on every indexed column. LABEL_LIST answers array_has_any and
// array_has_all on lists of strings (string labels) or integers (integer
// labels). Other types (dates and times against string literals, float32,
// decimals) are scanned.
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
	// Without an index on the column there is nothing to convert the
	// predicate for (an IN list may hold a million values).
	indexed := false
	for _, info := range index.Describe(ds) {
		if len(info.Columns) == 1 && info.Columns[0] == f.Name {
			indexed = true
			break
		}
	}
	if !indexed {
		return "", 0, index.Query{}, false
	}
	q, ok := indexQuery(at, pred)
	if !ok {
		return "", 0, index.Query{}, false
	}
	if _, err := index.NewMatcher(q, at); err != nil {
		return "", 0, index.Query{}, false // no index can hold the type
	}
	for _, info := range index.Describe(ds) {
		if len(info.Columns) != 1 || info.Columns[0] != f.Name {
			continue
		}
		labels := pred.Op == IndexHasAny || pred.Op == IndexHasAll
		switch {
		case info.Kind == index.KindLabelList && labels:
		case info.Kind == index.KindBTree && !labels:
		case info.Kind == index.KindBitmap && pred.Op != IndexPrefix && !labels:
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
	switch pred.Op {
	case IndexIsNull:
		return index.IsNull(), true
	case IndexRange:
		return rangeQuery(t, pred)
	case IndexHasAny, IndexHasAll:
		return labelQuery(t, pred)
	}
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
			case int64, uint64:
				return x, true, true // lance/index compares integers of either sign exactly
			case sqltypes.Decimal:
				i, exact, ok := decimalInteger(x, 0)
				return i, exact, ok
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
		// A zero equals both -0 and +0 (compareFloat): = 0 is the range
		// [-0, +0] of the index's totalOrder; IN with a zero is scanned.
		if pred.Op == IndexEqual && len(pred.Values) == 1 {
			if f, ok := floatOf(pred.Values[0]); ok && f == 0 {
				return index.Range(&index.Bound{Value: math.Copysign(0, -1), Inclusive: true}, &index.Bound{Value: 0.0, Inclusive: true}), true
			}
		}
		conv = func(v any) (any, bool, bool) {
			f, ok := floatOf(v)
			if !ok || f == 0 {
				return nil, false, false
			}
			return f, true, true
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

// decimalInteger converts a decimal value to an integer key (int64 or
// uint64). An integral decimal converts exactly (exact true). A fractional
// one rounds toward +Infinity for dir 1, toward -Infinity for dir -1
// (exact false); for dir 0 it has no integer (keep false: an equality
// matches nothing). ok is false beyond the 64-bit range (not served).
func decimalInteger(d sqltypes.Decimal, dir int) (v any, exact, ok bool) {
	x, parsed := parseDecimalText(string(d))
	if !parsed {
		return nil, false, false
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.scale)), nil)
	q, r := new(big.Int).QuoRem(x.unscaled, div, new(big.Int)) // truncated toward zero
	exact = r.Sign() == 0
	if !exact {
		switch {
		case dir == 0:
			return nil, false, true
		case dir > 0 && r.Sign() > 0:
			q.Add(q, big.NewInt(1))
		case dir < 0 && r.Sign() < 0:
			q.Sub(q, big.NewInt(1))
		}
	}
	switch {
	case q.IsInt64():
		return q.Int64(), exact, true
	case q.IsUint64():
		return q.Uint64(), exact, true
	}
	return nil, false, false
}

// rangeQuery converts an IndexRange over a column of type t: integer
// columns against numbers below 2^53 in magnitude (a fractional bound
// becomes the inclusive integer bound admitting the same integers), string
// and binary columns against strings. Other columns are not served.
func rangeQuery(t arrow.DataType, pred IndexPredicate) (index.Query, bool) {
	if pred.Lo == nil && pred.Hi == nil {
		return index.Query{}, false
	}
	var conv func(b *IndexBound, lower bool) (*index.Bound, bool)
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		conv = func(b *IndexBound, lower bool) (*index.Bound, bool) {
			switch x := b.Value.(type) {
			case int64, uint64:
				return &index.Bound{Value: x, Inclusive: b.Inclusive}, true
			case sqltypes.Decimal:
				// A fractional bound admits the integers on its side of it.
				dir := -1
				if lower {
					dir = 1
				}
				i, exact, ok := decimalInteger(x, dir)
				if !ok {
					return nil, false
				}
				return &index.Bound{Value: i, Inclusive: b.Inclusive || !exact}, true
			case float64:
				// The planner compares an integer with a float as float64:
				// exact only below 2^53.
				if math.IsNaN(x) || math.Abs(x) >= 1<<53 {
					return nil, false
				}
				if x == math.Trunc(x) {
					return &index.Bound{Value: int64(x), Inclusive: b.Inclusive}, true
				}
				if lower {
					return &index.Bound{Value: int64(math.Ceil(x)), Inclusive: true}, true
				}
				return &index.Bound{Value: int64(math.Floor(x)), Inclusive: true}, true
			}
			return nil, false
		}
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		conv = func(b *IndexBound, _ bool) (*index.Bound, bool) {
			s, ok := b.Value.(string)
			return &index.Bound{Value: s, Inclusive: b.Inclusive}, ok
		}
	case arrow.FLOAT64:
		// The planner's float order is the index's totalOrder with -0 and
		// +0 merged (compareFloat): a zero bound becomes the zero on the
		// side that keeps both zeros in (inclusive) or out (exclusive).
		conv = func(b *IndexBound, lower bool) (*index.Bound, bool) {
			f, ok := floatOf(b.Value)
			if !ok {
				return nil, false
			}
			if f == 0 {
				f = 0
				if lower == b.Inclusive {
					f = math.Copysign(0, -1) // >= 0 from -0; < 0 below -0
				}
			}
			return &index.Bound{Value: f, Inclusive: b.Inclusive}, true
		}
	default:
		return index.Query{}, false
	}
	var lo, hi *index.Bound
	var ok bool
	if pred.Lo != nil {
		if lo, ok = conv(pred.Lo, true); !ok {
			return index.Query{}, false
		}
	}
	if pred.Hi != nil {
		if hi, ok = conv(pred.Hi, false); !ok {
			return index.Query{}, false
		}
	}
	return index.Range(lo, hi), true
}

// floatOf converts a literal compared with a DOUBLE column to the float64
// the planner compares (integers exact below 2^53 in magnitude); ok is
// false for anything else and for NaN (no SQL literal is one).
func floatOf(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		if x >= 1<<53 || x <= -(1<<53) {
			return 0, false
		}
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	case sqltypes.Decimal:
		// The planner compares a DOUBLE with a decimal as float64 (toNumber).
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// labelQuery converts array_has_any/all over a list column: string
// elements against strings, integer elements against integers (as
// arrayHas compares them). Other lists are not served.
func labelQuery(t arrow.DataType, pred IndexPredicate) (index.Query, bool) {
	lt, ok := t.(*arrow.ListType)
	if !ok || len(pred.Values) == 0 {
		return index.Query{}, false
	}
	for _, v := range pred.Values {
		switch lt.Elem().ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			if _, ok := v.(string); !ok {
				return index.Query{}, false
			}
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
			if _, ok := v.(int64); !ok {
				return index.Query{}, false
			}
		default:
			return index.Query{}, false
		}
	}
	if pred.Op == IndexHasAll {
		return index.HasAll(pred.Values...), true
	}
	return index.HasAny(pred.Values...), true
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
