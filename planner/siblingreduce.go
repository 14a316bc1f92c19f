package planner

import (
	"context"
	"strings"

	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Semi-join reduction of a correlated subquery by a sibling IN conjunct,
// in a query over one table. TPC-H Q20's inner query
//
//	SELECT ps_suppkey FROM partsupp
//	WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')
//	  AND ps_availqty > (SELECT 0.5 * SUM(l_quantity) FROM lineitem
//	                     WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey AND ...)
//
// keeps only the partsupp rows whose ps_partkey is in the IN's list (about
// one in fifty), yet the decorrelated scalar subquery (decorrelate.go)
// grouped a year of lineitem, ~900,000 rows, by (l_partkey, l_suppkey).
// With the conjunct l_partkey IN (SELECT p_partkey FROM part WHERE p_name
// LIKE 'forest%') added to the subquery's WHERE it groups the lineitem
// rows of those parts only.
//
// The answers are the same: the IN is a top-level conjunct of the WHERE,
// so a row for which it is not TRUE is dropped whatever the subquery
// says; for a row for which it is, the outer value v is one of the list's,
// and every inner row the correlation l_partkey = v keeps passes the
// added conjunct. Both columns are integers (so = and IN compare alike),
// and the list is an uncorrelated query over one table (it means the same
// inside the subquery as beside it).

// siblingReduction turns the rewrite on (tests compare the answers
// without it).
var siblingReduction = true

// reduceBySiblingIn returns st with each correlated subquery (scalar or
// EXISTS) of its WHERE given the IN conjuncts of its sibling conjuncts;
// st itself when none applies. st is a query over the one table ts.
func (s *Session) reduceBySiblingIn(ctx context.Context, st *sqlparse.Select, ts *sqlparse.TableSource) *sqlparse.Select {
	if !siblingReduction || st.Where == nil || ts.AsOf != nil || !hasCorrelatable(st.Where) {
		return st
	}
	conj := plan.Conjuncts(st.Where)
	type domain struct {
		col string
		q   *sqlparse.Select
	}
	var doms []domain
	var outer *sourceTable
	for _, c := range conj {
		in, ok := sqlparse.StripParens(c).(*sqlparse.InList)
		if !ok || in.Not || in.Subquery == nil {
			continue
		}
		ref, ok := sqlparse.StripParens(in.X).(*sqlparse.ColumnRef)
		if !ok {
			continue
		}
		if outer == nil {
			t, err := s.newSourceTable(ctx, &sqlparse.TableSource{Table: ts.Table, Alias: ts.Alias})
			if err != nil {
				return st
			}
			outer = t
		}
		if outer.intColumnNamed(ref, ts) && s.selfContained(ctx, in.Subquery) {
			doms = append(doms, domain{col: ref.Column, q: in.Subquery})
		}
	}
	if len(doms) == 0 {
		return st
	}
	changed := false
	where := sqlparse.Rewrite(st.Where, func(n sqlparse.Expr) sqlparse.Expr {
		var q **sqlparse.Select
		switch x := n.(type) {
		case *sqlparse.Subquery:
			q = &x.Select // x is Rewrite's copy
		case *sqlparse.Exists:
			q = &x.Select
		default:
			return n
		}
		var add []sqlparse.Expr
		for _, d := range doms {
			if e := s.siblingConjunct(ctx, *q, d.col, d.q, outer, ts); e != nil {
				add = append(add, e)
			}
		}
		if len(add) > 0 {
			r := **q
			r.Where = plan.And(append(plan.Conjuncts(r.Where), add...))
			*q = &r
			changed = true
		}
		return n
	})
	if !changed {
		return st
	}
	r := *st
	r.Where = where
	return &r
}

// siblingConjunct is inner IN (dom) for the correlation inner = col of
// the subquery q (col a column of the outer table over ts, inner an
// integer column of q's one table), nil when q has none.
func (s *Session) siblingConjunct(ctx context.Context, q *sqlparse.Select, col string, dom *sqlparse.Select, outer *sourceTable, ots *sqlparse.TableSource) sqlparse.Expr {
	its := oneTable(q)
	if its == nil {
		return nil
	}
	var inner *sourceTable
	for _, c := range plan.Conjuncts(q.Where) {
		b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || b.Op != sqlparse.OpEQ {
			continue
		}
		for _, side := range [][2]sqlparse.Expr{{b.L, b.R}, {b.R, b.L}} {
			in, ok1 := sqlparse.StripParens(side[0]).(*sqlparse.ColumnRef)
			out, ok2 := sqlparse.StripParens(side[1]).(*sqlparse.ColumnRef)
			if !ok1 || !ok2 || !strings.EqualFold(out.Column, col) {
				continue
			}
			if inner == nil {
				t, err := s.newSourceTable(ctx, &sqlparse.TableSource{Table: its.Table, Alias: its.Alias})
				if err != nil {
					return nil
				}
				inner = t
			}
			// out must resolve to the outer table: not a column of the
			// inner one (an unqualified name resolves there first).
			if inner.namesColumn(out, its) || !outer.intColumnNamed(out, ots) || !inner.intColumnNamed(in, its) {
				continue
			}
			d := *dom
			return &sqlparse.InList{X: in, Subquery: &d, Implied: true}
		}
	}
	return nil
}

// selfContained reports whether q is a query over one plain table whose
// column references all name that table's columns and that nests no
// query: it means the same in any scope.
func (s *Session) selfContained(ctx context.Context, q *sqlparse.Select) bool {
	ts := oneTable(q)
	if ts == nil {
		return false
	}
	t, err := s.newSourceTable(ctx, &sqlparse.TableSource{Table: ts.Table, Alias: ts.Alias})
	if err != nil {
		return false
	}
	ok := true
	check := func(e sqlparse.Expr) {
		sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
			switch x := n.(type) {
			case *sqlparse.ColumnRef:
				if !t.namesColumn(x, ts) {
					ok = false
				}
			case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified:
				ok = false
			case *sqlparse.InList:
				if x.Subquery != nil {
					ok = false
				}
			}
			return n
		})
	}
	for _, it := range q.Items {
		if it.Star {
			return false
		}
		check(it.Expr)
	}
	check(q.Where)
	return ok && q.Having == nil && len(q.GroupBy) == 0 && q.Limit == nil
}

// namesColumn reports whether ref (in a query over ts alone) names a
// column of t.
func (t *sourceTable) namesColumn(ref *sqlparse.ColumnRef, ts *sqlparse.TableSource) bool {
	if !qualifies(ref, ts) {
		return false
	}
	for _, c := range t.cols {
		if strings.EqualFold(c.Name, ref.Column) {
			return true
		}
	}
	return false
}

// qualifies reports whether ref's qualifier, if any, names ts.
func qualifies(ref *sqlparse.ColumnRef, ts *sqlparse.TableSource) bool {
	q := ref.Qualifier
	if len(q) == 0 {
		return true
	}
	name := ts.Alias
	if name == "" {
		name = ts.Table.String()
	}
	return strings.EqualFold(q[len(q)-1], lastPart(name))
}

// hasCorrelatable reports whether where holds a scalar or EXISTS
// subquery (outside other subqueries): without one there is nothing to
// reduce, and no table to open.
func hasCorrelatable(where sqlparse.Expr) bool {
	found := false
	sqlparse.Rewrite(where, func(n sqlparse.Expr) sqlparse.Expr {
		switch n.(type) {
		case *sqlparse.Subquery, *sqlparse.Exists:
			found = true
		}
		return n
	})
	return found
}

// oneTable is the table of q when q is a query over one plain table (no
// set operation, WITH or AS OF), nil otherwise.
func oneTable(q *sqlparse.Select) *sqlparse.TableSource {
	if q == nil || len(q.SetOps) > 0 || len(q.With) > 0 {
		return nil
	}
	ts, ok := q.From.(*sqlparse.TableSource)
	if !ok || ts.Table == nil || ts.AsOf != nil {
		return nil
	}
	return ts
}
