package planner

import (
	"context"
	"strings"

	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Semi-join reduction of a correlated subquery over a join. TPC-H Q17's
// WHERE l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE
// l_partkey = p_partkey) is asked for the p_partkey of the joined rows
// only, and those come from part's scan, filtered (p_brand = 'Brand#23'
// AND p_container = 'MED BOX': one part in a thousand). Its decorrelated
// run (decorrelate.go) grouped all six million lineitem rows by
// l_partkey; with the conjunct l_partkey IN (SELECT p_partkey FROM part
// WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX') added to the
// subquery's WHERE it groups the few thousand that can be asked for.
//
// The answers are the same: the added conjunct holds for every inner row
// the correlation l_partkey = v keeps, since each outer value v is one of
// the scan's (or NULL, which = matches nothing). It is added only for an
// equality of two integer columns (so = and IN compare alike), the outer
// one a column of a plain table's scan under the join whose pushed
// predicates keep few of its rows (plan.Selective: else the IN costs more
// than it saves, as Q21's l_receiptdate > l_commitdate would), the inner
// one a column of the subquery's one table.

// correlatedReduction turns the rewrite on (tests compare the answers
// without it).
var correlatedReduction = true

// reduceCorrelated returns where with each correlated subquery (scalar or
// EXISTS) given the domain conjuncts above; root and scope are the join's.
func (s *Session) reduceCorrelated(ctx context.Context, where sqlparse.Expr, root plan.Node, scope *expr.Scope) sqlparse.Expr {
	if !correlatedReduction {
		return where
	}
	return sqlparse.Rewrite(where, func(n sqlparse.Expr) sqlparse.Expr {
		switch x := n.(type) {
		case *sqlparse.Subquery:
			if q := s.reducedSelect(ctx, x.Select, root, scope); q != nil {
				x.Select = q // x is Rewrite's copy
			}
		case *sqlparse.Exists:
			if q := s.reducedSelect(ctx, x.Select, root, scope); q != nil {
				x.Select = q
			}
		}
		return n
	})
}

// reducedSelect is q with the domain conjuncts added, nil when none
// applies.
func (s *Session) reducedSelect(ctx context.Context, q *sqlparse.Select, root plan.Node, scope *expr.Scope) *sqlparse.Select {
	ts := oneTable(q)
	if ts == nil {
		return nil
	}
	var innerTable *sourceTable
	conj := plan.Conjuncts(q.Where)
	var add []sqlparse.Expr
	for _, c := range conj {
		b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || b.Op != sqlparse.OpEQ {
			continue
		}
		for _, side := range [][2]sqlparse.Expr{{b.L, b.R}, {b.R, b.L}} {
			inner, ok1 := sqlparse.StripParens(side[0]).(*sqlparse.ColumnRef)
			outer, ok2 := sqlparse.StripParens(side[1]).(*sqlparse.ColumnRef)
			if !ok1 || !ok2 {
				continue
			}
			if _, isOuter := scope.SlotOfRef(inner); isOuter {
				continue
			}
			slot, ok := scope.SlotOfRef(outer)
			if !ok {
				continue
			}
			dom := domainQuery(ctx, root, slot)
			if dom == nil {
				continue
			}
			if innerTable == nil {
				t, err := s.newSourceTable(ctx, &sqlparse.TableSource{Table: ts.Table})
				if err != nil || t.dataset(ctx) == nil {
					return nil
				}
				innerTable = t
			}
			if !innerTable.intColumnNamed(inner, ts) {
				continue
			}
			add = append(add, &sqlparse.InList{X: inner, Subquery: dom, Implied: true})
			break
		}
	}
	if len(add) == 0 {
		return nil
	}
	c := *q
	c.Where = plan.And(append(conj, add...))
	return &c
}

// intColumnNamed reports whether ref (in a query over ts alone) names an
// integer column of t.
func (t *sourceTable) intColumnNamed(ref *sqlparse.ColumnRef, ts *sqlparse.TableSource) bool {
	if !qualifies(ref, ts) {
		return false
	}
	for _, c := range t.cols {
		if strings.EqualFold(c.Name, ref.Column) {
			return c.Field.Type != nil && intColumn(c.Field.Type) // nil: not table data
		}
	}
	return false
}

// lastPart is the last dot-separated part of a table name.
func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// domainQuery is the query listing the values slot can hold in the join
// at root: SELECT col FROM t WHERE <the scan's predicates>, for an integer
// column of a plain table's scan with predicates (nil otherwise).
func domainQuery(ctx context.Context, root plan.Node, slot int) *sqlparse.Select {
	var sc *plan.Scan
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		switch x := n.(type) {
		case *plan.Scan:
			if slot >= x.Lo && slot < x.Hi {
				sc = x
			}
		case *plan.Join:
			walk(x.Left)
			walk(x.Right)
		}
	}
	walk(root)
	if sc == nil || len(sc.Spec.Predicates) == 0 || sc.Spec.Limit >= 0 || !plan.Selective(ctx, sc) {
		return nil
	}
	t, ok := sc.Table.(*sourceTable)
	col := slot - sc.Lo
	if !ok || !t.KeyFilterable(ctx, col) || t.ts.AsOf != nil {
		return nil
	}
	q, _ := t.query(plan.ScanSpec{Columns: []int{col}, Predicates: append([]sqlparse.Expr(nil), sc.Spec.Predicates...), Limit: -1})
	return q
}
