package planner

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// Derived tables: `SELECT ... FROM (SELECT ...) AS t`. The inner query is
// planned as any SELECT (table data, information_schema, another derived
// table) and its result is the row source of the outer query's
// selectPipeline: rows stream from the inner result's cursor into the
// outer WHERE, projection, aggregation or sort one batch at a time, so
// memory stays what the two pipelines hold (nothing is materialized unless
// one of them sorts or aggregates, within their own budgets). The outer
// query names the inner result's columns by their labels (the inner
// aliases, or the items' text); the derived table needs an alias, as in
// MySQL, and its column names must be distinct.
//
// SELECT DISTINCT * and SELECT DISTINCT with GROUP BY are answered the
// same way: the query without DISTINCT, ORDER BY and LIMIT becomes a
// derived table, and the outer query groups by all its columns.

// derivedTable is a planned subquery in FROM.
type derivedTable struct {
	alias string
	q     *sqlparse.Select
	plan  queryPlan
	cols  []Column
	// preplanned: the rows of a join or set operation the query block
	// runs over (s.preplanned), not a derived table of the query.
	preplanned bool
}

// planDerived plans the inner query of a derived table.
func (s *Session) planDerived(ctx context.Context, ts *sqlparse.TableSource) (*derivedTable, error) {
	if p, ok := s.preplanned[ts]; ok {
		return &derivedTable{alias: ts.Alias, q: ts.Subquery, plan: p, cols: p.resultColumns(), preplanned: true}, nil
	}
	if ts.Alias == "" {
		return nil, errorf(catalog.CodeInvalidInput, "every derived table must have its own alias: (%s) AS name", ts.Subquery)
	}
	p, err := s.planQuery(ctx, ts.Subquery)
	if err != nil {
		return nil, err
	}
	cols := p.resultColumns()
	seen := map[string]bool{}
	for _, c := range cols {
		k := strings.ToLower(c.Name)
		if seen[k] {
			return nil, errorf(catalog.CodeInvalidInput, "duplicate column name %s in the derived table %s (alias the select items)", sqlparse.QuoteIdent(c.Name), sqlparse.QuoteIdent(ts.Alias))
		}
		seen[k] = true
	}
	return &derivedTable{alias: ts.Alias, q: ts.Subquery, plan: p, cols: cols}, nil
}

// cursorRows yields the rows of a result, closing it when the consumer
// stops or the rows end.
func cursorRows(r *Result) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		cur := r.Cursor()
		defer cur.Close()
		for {
			batch, err := cur.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			for _, row := range batch {
				if !yield(row, nil) {
					return
				}
			}
		}
	}
}

// prepareExplain readies a plan for EXPLAIN: the index searches of a
// table scan, the catalog reads of a view, the inner plans of derived
// tables. Nothing runs.
func (s *Session) prepareExplain(ctx context.Context, p queryPlan) error {
	switch x := p.(type) {
	case *joinPlan:
		return x.prepareExplain(ctx)
	case *treePlan:
		return x.prepareExplain(ctx)
	case *joinQuery:
		return s.prepareExplain(ctx, x.queryPlan)
	case *setOpPlan:
		return s.prepareSetOpExplain(ctx, x)
	case *recursivePlan:
		return s.prepareRecursiveExplain(ctx, x)
	case *renamedPlan:
		return s.prepareExplain(ctx, x.queryPlan)
	case *sharedPlan:
		return s.prepareExplain(ctx, x.body)
	}
	return nil
}

// distinctOverDerived reports whether a SELECT DISTINCT is answered over
// a derived table: with GROUP BY, or with a star in the select list.
func distinctOverDerived(st *sqlparse.Select) bool {
	if !st.Distinct || len(st.SetOps) > 0 {
		return false
	}
	if len(st.GroupBy) > 0 {
		return true
	}
	for _, it := range st.Items {
		if it.Star {
			return true
		}
	}
	return false
}

// distinctDerived rewrites SELECT DISTINCT ... [ORDER BY] [LIMIT] as
// SELECT DISTINCT * FROM (the query without them) AS `distinct` [ORDER BY]
// [LIMIT]; an ORDER BY item that repeats a select item becomes a reference
// to its column.
func distinctDerived(st *sqlparse.Select) *sqlparse.Select {
	inner := *st
	inner.Distinct, inner.OrderBy, inner.Limit = false, nil, nil
	outer := *st
	outer.Items = []sqlparse.SelectItem{{Star: true, Text: "*"}}
	outer.From = &sqlparse.TableSource{Subquery: &inner, Alias: "distinct"}
	outer.Where, outer.GroupBy, outer.Having = nil, nil, nil
	outer.OrderBy = make([]sqlparse.OrderItem, len(st.OrderBy))
	for i, o := range st.OrderBy {
		for _, it := range st.Items {
			if !it.Star && it.Expr.String() == o.Expr.String() {
				label := it.Alias
				if label == "" {
					label = fieldText(it)
				}
				o.Expr = &sqlparse.ColumnRef{Column: label}
				break
			}
		}
		o.Expr = unqualify(o.Expr, st.From)
		outer.OrderBy[i] = o
	}
	return &outer
}

// unqualify drops from e's column references a qualifier that names the
// single table (or derived table) of from: over the derived table distinctDerived builds, the
// columns keep their names but not their table (SELECT DISTINCT * FROM t
// ORDER BY t.a orders by the derived table's a).
func unqualify(e sqlparse.Expr, from sqlparse.FromItem) sqlparse.Expr {
	ts, ok := from.(*sqlparse.TableSource)
	if !ok || (ts.Subquery == nil && len(ts.Table) == 0) {
		return e
	}
	name := ts.Alias
	if name == "" && ts.Subquery == nil {
		name = ts.Table[len(ts.Table)-1]
	}
	return sqlparse.Rewrite(e, func(x sqlparse.Expr) sqlparse.Expr {
		if r, ok := x.(*sqlparse.ColumnRef); ok && len(r.Qualifier) > 0 && strings.EqualFold(r.Qualifier[len(r.Qualifier)-1], name) {
			c := *r
			c.Qualifier = nil
			return &c
		}
		return x
	})
}

// distinctAll turns SELECT DISTINCT <star or columns> over a derived table
// into a GROUP BY of every column the select list names.
func distinctAll(st *sqlparse.Select, cols []Column) *sqlparse.Select {
	q := *st
	q.Distinct = false
	q.Items = nil
	for _, it := range st.Items {
		if !it.Star {
			q.Items = append(q.Items, it)
			q.GroupBy = append(q.GroupBy, it.Expr)
			continue
		}
		for _, c := range cols {
			ref := &sqlparse.ColumnRef{Column: c.Name}
			q.Items = append(q.Items, sqlparse.SelectItem{Expr: ref, Alias: c.Name, Text: c.Name})
			q.GroupBy = append(q.GroupBy, ref)
		}
	}
	return &q
}
