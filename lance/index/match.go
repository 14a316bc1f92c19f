package index

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Matcher evaluates a Query on the rows of an Arrow column with the
// semantics of an index search: a row matches exactly when a search of an
// index on that column would return it. Scanners use it for the rows no
// index answers (uncovered fragments, unindexed columns).
type Matcher struct {
	q      Query
	p      plan      // scalar queries
	labels []any     // OpHasAny / OpHasAll: the labels coerced to the element kind (nil entries never match)
	list   bool      // the column is a list (label list queries)
	kind   valueKind // of the column, or of its elements for lists
}

// NewMatcher prepares q for columns of type t. Queries that do not fit the
// type (a prefix on a number, array_has_any on a scalar) fail with
// ErrBadQuery; types no index can hold fail with ErrUnsupported.
func NewMatcher(q Query, t arrow.DataType) (*Matcher, error) {
	m := &Matcher{q: q}
	if q.Op == OpHasAny || q.Op == OpHasAll {
		lt, ok := t.(*arrow.ListType)
		if !ok {
			return nil, fmt.Errorf("%w: %s on a %s column", ErrBadQuery, q.Op, t)
		}
		k, err := kindOf(lt.Elem())
		if err != nil {
			return nil, err
		}
		if len(q.Values) == 0 {
			return nil, fmt.Errorf("%w: %s needs at least one label", ErrBadQuery, q.Op)
		}
		m.list, m.kind = true, k
		for _, v := range q.Values {
			if v == nil {
				m.labels = append(m.labels, nil)
				continue
			}
			c, ok, err := coerce(v, k)
			if err != nil {
				return nil, err
			}
			if !ok {
				c = nil
			}
			m.labels = append(m.labels, c)
		}
		return m, nil
	}
	k, err := kindOf(t)
	if err != nil {
		return nil, err
	}
	p, err := normalize(q, k)
	if err != nil {
		return nil, err
	}
	m.kind, m.p = k, p
	return m, nil
}

// Match reports whether row i of col (of the type the Matcher was made
// for) matches.
func (m *Matcher) Match(col arrow.Array, i int) (bool, error) {
	if !m.list {
		v, ok, err := valueAt(col, i)
		if err != nil {
			return false, err
		}
		if !ok {
			v = nil
		}
		return m.p.match(v), nil
	}
	l, ok := col.(*array.List)
	if !ok {
		return false, fmt.Errorf("%w: %s on a %s column", ErrBadQuery, m.q.Op, col.DataType())
	}
	if l.IsNull(i) {
		return false, nil
	}
	a, b := l.ValueOffsets(i)
	elems := l.ListValues()
	for _, label := range m.labels {
		has := false
		if label != nil {
			for j := a; j < b; j++ {
				v, valid, err := valueAt(elems, int(j))
				if err != nil {
					return false, err
				}
				if valid && compareValues(v, label) == 0 {
					has = true
					break
				}
			}
		}
		if m.q.Op == OpHasAny && has {
			return true, nil
		}
		if m.q.Op == OpHasAll && !has {
			return false, nil
		}
	}
	return m.q.Op == OpHasAll, nil
}
