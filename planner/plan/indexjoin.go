package plan

import (
	"context"
	"strings"

	"github.com/lancecat/lancecat/sqlparse"
)

// Stats is what a Table may know for choosing a join strategy.
type Stats interface {
	// RowCount is the rows the table holds (an upper bound of any of its
	// scans); ok false when unknown.
	RowCount(ctx context.Context) (n int64, ok bool)
	// LookupIndex names the index that answers `column IN (values)` on
	// the table's column col ("": none), and a literal of the column's
	// kind for EXPLAIN to show a lookup with.
	LookupIndex(col int) (index string, sample sqlparse.Expr)
}

// IndexJoin says a join runs as an index nested-loop join: the outer
// side's rows are read in batches, and for each batch the inner side (a
// Scan) is scanned with `Column IN (the batch's distinct keys)` added to
// its predicates, which Index answers; the rows found are joined to the
// batch in memory. The inner side is the join's right input, the left
// one for a RIGHT JOIN.
type IndexJoin struct {
	Key    int // the Keys entry looked up
	Column int // the inner scan's column (position in its Table.ColumnNames)
	Index  string
	// Sample is `Column IN (a literal)`, the lookup EXPLAIN shows.
	Sample sqlparse.Expr
	// OuterRows and InnerRows are the row counts it was chosen by.
	OuterRows, InnerRows int64
}

// Index nested-loop joins are chosen when the outer side holds at most
// IndexJoinMaxOuter rows and the inner one at least IndexJoinRatio times
// as many: then a few index lookups read less than the hash join's full
// scan of the inner side.
const (
	IndexJoinMaxOuter = 4096
	IndexJoinRatio    = 8
	// IndexJoinBatch is the outer rows joined per lookup.
	IndexJoinBatch = 1024
)

// Inner is the side of an index nested-loop join looked up by key.
func (j *Join) Inner() (inner, outer Node) {
	if j.Kind == Right {
		return j.Left, j.Right
	}
	return j.Right, j.Left
}

// ChooseIndexJoins is the index-join rule, bottom up: an inner, left or
// right join with keys whose outer side is a Scan of few rows and whose
// inner side is a Scan of many, with an index on the inner column of one
// `=` key (usable says the key's two sides suit a lookup) and no pushed
// predicate on that column already, becomes an index nested-loop join.
func ChooseIndexJoins(ctx context.Context, n Node, b Binding, usable func(outer, inner sqlparse.Expr) bool) {
	j, ok := n.(*Join)
	if !ok {
		return
	}
	ChooseIndexJoins(ctx, j.Left, b, usable)
	ChooseIndexJoins(ctx, j.Right, b, usable)
	if len(j.Keys) == 0 || j.Kind == Full {
		return
	}
	if chooseIndexJoin(ctx, j, b, usable) || j.Kind != Inner {
		return
	}
	// ReorderJoins puts the bigger relation of an inner join on the left;
	// an index join looks up its right input, so try the sides swapped
	// (an inner join's rows are the same either way; Layout follows).
	sw := *j
	sw.Left, sw.Right = j.Right, j.Left
	sw.Keys = make([]EquiKey, len(j.Keys))
	for i, k := range j.Keys {
		sw.Keys[i] = EquiKey{L: k.R, R: k.L, NullSafe: k.NullSafe}
	}
	if chooseIndexJoin(ctx, &sw, b, usable) {
		*j = sw
	}
}

// chooseIndexJoin makes j an index join if it qualifies (see
// ChooseIndexJoins), reporting whether it did.
func chooseIndexJoin(ctx context.Context, j *Join, b Binding, usable func(outer, inner sqlparse.Expr) bool) bool {
	innerNode, outerNode := j.Inner()
	is, ok1 := innerNode.(*Scan)
	os, ok2 := outerNode.(*Scan)
	if !ok1 || !ok2 || is.Spec.Limit >= 0 {
		return false // a LIMIT on the inner scan would apply per lookup
	}
	ist, ok1 := is.Table.(Stats)
	ost, ok2 := os.Table.(Stats)
	if !ok1 || !ok2 {
		return false
	}
	outerRows, ok1 := ost.RowCount(ctx)
	innerRows, ok2 := ist.RowCount(ctx)
	if !ok1 || !ok2 || outerRows > IndexJoinMaxOuter || outerRows*IndexJoinRatio > innerRows {
		return false
	}
	for i, k := range j.Keys {
		if k.NullSafe {
			continue // IN matches no NULL
		}
		ie, oe := k.R, k.L
		if j.Kind == Right {
			ie, oe = k.L, k.R
		}
		ref, ok := sqlparse.StripParens(ie).(*sqlparse.ColumnRef)
		if !ok || !usable(oe, ie) {
			continue
		}
		slots, ok := b.SlotsOf(ref)
		if !ok || len(slots) != 1 || slots[0] < is.Lo || slots[0] >= is.Hi {
			continue
		}
		col := slots[0] - is.Lo
		if restricts(is.Spec.Predicates, is.Table.ColumnNames()[col]) {
			// A pushed predicate on the key column already narrows the
			// inner scan (through the same index): a lookup adds nothing.
			return false
		}
		if idx, lit := ist.LookupIndex(col); idx != "" {
			sample := &sqlparse.InList{X: &sqlparse.ColumnRef{Column: is.Table.ColumnNames()[col]}, List: []sqlparse.Expr{lit}}
			j.Lookup = &IndexJoin{Key: i, Column: col, Index: idx, Sample: sample, OuterRows: outerRows, InnerRows: innerRows}
			return true
		}
	}
	return false
}

// restricts reports whether a predicate (over the relation's own column
// names) reads column name.
func restricts(preds []sqlparse.Expr, name string) bool {
	found := false
	for _, p := range preds {
		sqlparse.Inspect(p, func(e sqlparse.Expr) bool {
			if ref, ok := e.(*sqlparse.ColumnRef); ok && strings.EqualFold(ref.Column, name) {
				found = true
			}
			return !found
		})
	}
	return found
}
