package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/manifest/dataset"
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
// (int64, uint64, float64, string, bool, []byte); for IndexPrefix, Values
// holds the one prefix string.
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

// IndexLookup is the hook through which the planner asks a scalar index
// (manifest/index, when it is wired in) for the rows matching a predicate.
//
// Lookup returns the row addresses (fragment id << 32 | row offset) of the
// rows of ds that may match pred. served is false when no index on the
// column can answer (the planner then scans). The planner treats the answer
// as a superset: it reads only the fragments holding the returned rows,
// keeps only those rows, and still evaluates the whole WHERE clause on them,
// so an index that returns extra rows is harmless, and rows the index does
// not cover (fragments outside its fragment bitmap) must be returned as
// well (or served must be false).
type IndexLookup interface {
	Lookup(ctx context.Context, ds *dataset.Dataset, pred IndexPredicate) (rowAddrs []uint64, served bool, err error)
}

// indexedFields names the fields of ds that have a scalar index, by index
// name, for EXPLAIN.
func indexedFields(ds *dataset.Dataset) map[string][]string {
	out := map[string][]string{}
	for _, ix := range ds.Indices() {
		if len(ix.Fields) != 1 {
			continue
		}
		f := ds.Schema().FieldByID(ix.Fields[0])
		if f == nil {
			continue
		}
		typ := ix.Type()
		if typ == "" {
			typ = "index"
		}
		out[f.Name] = append(out[f.Name], fmt.Sprintf("%s %s", typ, quoteString(ix.Name)))
	}
	return out
}
