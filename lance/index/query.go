package index

import (
	"fmt"
	"math"
	"strings"
)

// Op is the kind of predicate a Query asks an index to answer.
type Op int

const (
	// OpEq: column = value.
	OpEq Op = iota
	// OpIn: column IN (values...).
	OpIn
	// OpRange: lo </<= column </<= hi, either bound optional.
	OpRange
	// OpPrefix: a string column starts with the value.
	OpPrefix
	// OpIsNull: column IS NULL.
	OpIsNull
	// OpHasAny: array_has_any(list column, [values...]) (label lists).
	OpHasAny
	// OpHasAll: array_has_all(list column, [values...]) (label lists).
	OpHasAll
)

func (o Op) String() string {
	switch o {
	case OpEq:
		return "eq"
	case OpIn:
		return "in"
	case OpRange:
		return "range"
	case OpPrefix:
		return "prefix"
	case OpIsNull:
		return "is_null"
	case OpHasAny:
		return "array_has_any"
	case OpHasAll:
		return "array_has_all"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Bound is one end of a range.
type Bound struct {
	Value     any
	Inclusive bool
}

// Query is a predicate on the indexed column. Values are Go values of the
// column's type (int64/uint64/float64 or any Go integer or float for numeric
// columns, string or []byte for utf8/binary, bool for booleans). Rows whose
// value is null never match, except for OpIsNull, as in SQL.
type Query struct {
	Op     Op
	Values []any  // OpEq: 1 value; OpIn, OpHasAny, OpHasAll: the values; OpPrefix: 1 string
	Lo, Hi *Bound // OpRange; nil is unbounded
}

// Eq is column = v.
func Eq(v any) Query { return Query{Op: OpEq, Values: []any{v}} }

// In is column IN (vs...).
func In(vs ...any) Query { return Query{Op: OpIn, Values: vs} }

// Range is lo <(=) column <(=) hi; a nil bound is unbounded.
func Range(lo, hi *Bound) Query { return Query{Op: OpRange, Lo: lo, Hi: hi} }

// Prefix is "column starts with p" on a string column.
func Prefix(p string) Query { return Query{Op: OpPrefix, Values: []any{p}} }

// IsNull is column IS NULL.
func IsNull() Query { return Query{Op: OpIsNull} }

// HasAny is array_has_any(column, labels).
func HasAny(labels ...any) Query { return Query{Op: OpHasAny, Values: labels} }

// HasAll is array_has_all(column, labels).
func HasAll(labels ...any) Query { return Query{Op: OpHasAll, Values: labels} }

func (q Query) String() string {
	var b strings.Builder
	b.WriteString(q.Op.String())
	switch q.Op {
	case OpRange:
		if q.Lo != nil {
			fmt.Fprintf(&b, " %s%v", map[bool]string{true: ">=", false: ">"}[q.Lo.Inclusive], q.Lo.Value)
		}
		if q.Hi != nil {
			fmt.Fprintf(&b, " %s%v", map[bool]string{true: "<=", false: "<"}[q.Hi.Inclusive], q.Hi.Value)
		}
	case OpIsNull:
	default:
		fmt.Fprintf(&b, " %v", q.Values)
	}
	return b.String()
}

// interval is a normalized value range; nil ends are unbounded.
type interval struct {
	lo, hi       any
	loInc, hiInc bool
	hasLo, hasHi bool
}

func (iv interval) contains(v any) bool {
	if iv.hasLo {
		c := compareValues(v, iv.lo)
		if c < 0 || (c == 0 && !iv.loInc) {
			return false
		}
	}
	if iv.hasHi {
		c := compareValues(v, iv.hi)
		if c > 0 || (c == 0 && !iv.hiInc) {
			return false
		}
	}
	return true
}

// overlaps reports whether the interval meets [min, max] (hasMin false: -inf).
func (iv interval) overlaps(min any, hasMin bool, max any) bool {
	if iv.hasLo {
		c := compareValues(max, iv.lo)
		if c < 0 || (c == 0 && !iv.loInc) {
			return false
		}
	}
	if iv.hasHi && hasMin {
		c := compareValues(min, iv.hi)
		if c > 0 || (c == 0 && !iv.hiInc) {
			return false
		}
	}
	return true
}

func (iv interval) empty() bool {
	if !iv.hasLo || !iv.hasHi {
		return false
	}
	c := compareValues(iv.lo, iv.hi)
	return c > 0 || (c == 0 && !(iv.loInc && iv.hiInc))
}

// plan is a sargable query normalized against a value kind: the rows match
// when their value lies in one of the intervals, or is null and nulls is set.
type plan struct {
	intervals []interval
	nulls     bool
	points    []any // the equality values (OpEq/OpIn), for key lookups
	isPoints  bool
}

// normalize turns a scalar query into a plan for kind k.
func normalize(q Query, k valueKind) (plan, error) {
	var p plan
	switch q.Op {
	case OpEq, OpIn:
		if q.Op == OpEq && len(q.Values) != 1 {
			return p, fmt.Errorf("%w: eq needs one value, got %d", ErrBadQuery, len(q.Values))
		}
		p.isPoints = true
		for _, v := range q.Values {
			if v == nil {
				// SQL: x = NULL and x IN (..., NULL) are never true.
				continue
			}
			c, ok, err := coerce(v, k)
			if err != nil {
				return p, err
			}
			if !ok {
				continue
			}
			p.points = append(p.points, c)
			p.intervals = append(p.intervals, interval{lo: c, hi: c, loInc: true, hiInc: true, hasLo: true, hasHi: true})
		}
	case OpRange:
		var iv interval
		if q.Lo != nil {
			c, side, err := coerceBound(q.Lo.Value, k)
			switch {
			case err != nil:
				return p, err
			case side > 0:
				return p, nil // above every value: empty
			case side == 0:
				iv.lo, iv.loInc, iv.hasLo = c, q.Lo.Inclusive, true
			}
		}
		if q.Hi != nil {
			c, side, err := coerceBound(q.Hi.Value, k)
			switch {
			case err != nil:
				return p, err
			case side < 0:
				return p, nil // below every value: empty
			case side == 0:
				iv.hi, iv.hiInc, iv.hasHi = c, q.Hi.Inclusive, true
			}
		}
		if !iv.empty() {
			p.intervals = []interval{iv}
		}
	case OpPrefix:
		if len(q.Values) != 1 {
			return p, fmt.Errorf("%w: prefix needs one value", ErrBadQuery)
		}
		if k != kindString && k != kindBinary {
			return p, fmt.Errorf("%w: prefix on a %s index", ErrBadQuery, k)
		}
		s, ok, err := coerce(q.Values[0], k)
		if err != nil || !ok {
			return p, err
		}
		iv := interval{lo: s, loInc: true, hasLo: true}
		if up, ok := prefixUpperBound(s.(string)); ok {
			iv.hi, iv.hasHi = up, true
		}
		p.intervals = []interval{iv}
	case OpIsNull:
		p.nulls = true
	default:
		return p, fmt.Errorf("%w: %s is not a scalar query", ErrBadQuery, q.Op)
	}
	return p, nil
}

// coerceBound coerces a range bound. A bound outside the range of the
// column's integer type is reported by side: -1 below every value, +1 above
// every value (0: c is the coerced bound).
func coerceBound(v any, k valueKind) (c any, side int, err error) {
	if v == nil {
		return nil, 0, fmt.Errorf("%w: null range bound", ErrBadQuery)
	}
	c, ok, err := coerce(v, k)
	if err != nil || ok {
		return c, 0, err
	}
	f, isNum := toFloat(v)
	if !isNum {
		return nil, 0, fmt.Errorf("%w: range bound %v does not fit a %s column", ErrBadQuery, v, k)
	}
	if k == kindUint {
		if f < 0 {
			return nil, -1, nil
		}
		// A non-integral positive bound: round it to an integer bound of the
		// same meaning is not possible for every inclusivity; reject.
		return nil, 0, fmt.Errorf("%w: range bound %v for an unsigned column", ErrBadQuery, v)
	}
	if f > 0 && f == math.Trunc(f) {
		return nil, 1, nil
	}
	return nil, 0, fmt.Errorf("%w: range bound %v for an integer column", ErrBadQuery, v)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// match evaluates the plan on one value (v nil: null).
func (p plan) match(v any) bool {
	if v == nil {
		return p.nulls
	}
	for _, iv := range p.intervals {
		if iv.contains(v) {
			return true
		}
	}
	return false
}
