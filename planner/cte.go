package planner

import (
	"context"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// Common table expressions: WITH name [(cols)] AS (query), ... SELECT ...
// Each reference to a CTE (in the query, in a later CTE, in a nested
// subquery) becomes a derived table of the CTE's query under the
// reference's alias (else the CTE's name), so a CTE referenced twice is
// planned and read twice, and the rules push filters into each copy
// separately. A nested query's own WITH shadows the outer names. A CTE of
// WITH RECURSIVE that names itself is planned by recursive.go.

// inlineCTEs returns q with its WITH (and those of the queries nested in
// it) replaced by derived tables; scope holds the CTEs of the enclosing
// queries.
func (s *Session) inlineCTEs(q *sqlparse.Select, scope map[string]*sqlparse.CTE) (*sqlparse.Select, error) {
	return s.inlineWith(q, scope, false)
}

// inlineWith is inlineCTEs; with share, a CTE of q's own WITH that q
// names more than once is computed once for all its references
// (sharedcte.go). Only the WITH of a statement's query shares: the CTEs
// of a subquery may name the outer query's columns, which a correlated
// run substitutes into the query text a shared CTE hides.
func (s *Session) inlineWith(q *sqlparse.Select, scope map[string]*sqlparse.CTE, share bool) (*sqlparse.Select, error) {
	if q == nil {
		return nil, nil
	}
	if placeholderKey(q) != "" {
		return q, nil // a recursive CTE's placeholder (recursive.go)
	}
	if len(q.With) > 0 {
		inner := make(map[string]*sqlparse.CTE, len(scope)+len(q.With))
		for k, v := range scope {
			inner[k] = v
		}
		for i := range q.With {
			c := q.With[i]
			k := strings.ToLower(c.Name)
			for j := 0; j < i; j++ {
				if strings.EqualFold(q.With[j].Name, c.Name) {
					return nil, errorf(catalog.CodeInvalidInput, "not unique table/alias: %s (MySQL error 1066)", sqlparse.QuoteIdent(c.Name))
				}
			}
			if c.Recursive && refersTo(c.Select, c.Name) {
				marker, err := s.defineRecursive(c, inner)
				if err != nil {
					return nil, err
				}
				inner[k] = &sqlparse.CTE{Name: c.Name, Select: marker}
				continue
			}
			body, err := s.inlineCTEs(c.Select, inner) // a CTE sees the ones before it
			if err != nil {
				return nil, err
			}
			if len(c.Columns) > 0 {
				if body, err = s.renameColumns(body, c); err != nil {
					return nil, err
				}
			}
			if share && cteReferences(q, i) > 1 {
				body = s.shareCTE(c.Name, body)
			}
			inner[k] = &sqlparse.CTE{Name: c.Name, Select: body}
		}
		scope = inner
	}
	if len(scope) == 0 {
		return q, nil
	}
	c := *q
	c.With = nil
	var err error
	if c.From, err = s.inlineFrom(q.From, scope); err != nil {
		return nil, err
	}
	if q.SetOps != nil {
		c.SetOps = make([]sqlparse.SetOperand, len(q.SetOps))
		for i, op := range q.SetOps {
			if op.Select, err = s.inlineCTEs(op.Select, scope); err != nil {
				return nil, err
			}
			c.SetOps[i] = op
		}
	}
	sub := func(e sqlparse.Expr) sqlparse.Expr {
		return sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
			var e2 error
			switch x := n.(type) {
			case *sqlparse.Subquery:
				x.Select, e2 = s.inlineCTEs(x.Select, scope)
			case *sqlparse.Exists:
				x.Select, e2 = s.inlineCTEs(x.Select, scope)
			case *sqlparse.Quantified:
				x.Select, e2 = s.inlineCTEs(x.Select, scope)
			case *sqlparse.InList:
				x.Subquery, e2 = s.inlineCTEs(x.Subquery, scope)
			}
			if e2 != nil && err == nil {
				err = e2
			}
			return n
		})
	}
	c.Items = make([]sqlparse.SelectItem, len(q.Items))
	for i, it := range q.Items {
		it.Expr = sub(it.Expr)
		c.Items[i] = it
	}
	c.Where, c.Having = sub(q.Where), sub(q.Having)
	if q.GroupBy != nil {
		c.GroupBy = make([]sqlparse.Expr, len(q.GroupBy))
		for i, g := range q.GroupBy {
			c.GroupBy[i] = sub(g)
		}
	}
	if q.OrderBy != nil {
		c.OrderBy = make([]sqlparse.OrderItem, len(q.OrderBy))
		for i, o := range q.OrderBy {
			o.Expr = sub(o.Expr)
			c.OrderBy[i] = o
		}
	}
	return &c, err
}

func (s *Session) inlineFrom(f sqlparse.FromItem, scope map[string]*sqlparse.CTE) (sqlparse.FromItem, error) {
	switch n := f.(type) {
	case *sqlparse.TableSource:
		c := *n
		if n.Subquery != nil {
			var err error
			c.Subquery, err = s.inlineCTEs(n.Subquery, scope)
			return &c, err
		}
		if len(n.Table) == 1 {
			if cte, ok := scope[strings.ToLower(n.Table[0])]; ok {
				c.Table, c.Subquery = nil, cte.Select
				if c.Alias == "" {
					c.Alias = cte.Name
				}
			}
		}
		return &c, nil
	case *sqlparse.Join:
		c := *n
		var err error
		if c.Left, err = s.inlineFrom(n.Left, scope); err != nil {
			return nil, err
		}
		if c.Right, err = s.inlineFrom(n.Right, scope); err != nil {
			return nil, err
		}
		if n.On != nil {
			q, err := s.inlineCTEs(&sqlparse.Select{Where: n.On}, scope)
			if err != nil {
				return nil, err
			}
			c.On = q.Where
		}
		return &c, nil
	}
	return f, nil
}

// renameColumns applies a CTE's column list to its query. A plain SELECT
// takes the names as the aliases of its items; a set operation or a SELECT
// * has no items to alias before it is planned (the star's columns are the
// tables'), so it becomes a placeholder (renamedCTE) whose plan is the
// body's with its result columns renamed, as MariaDB and MySQL 8 accept.
func (s *Session) renameColumns(body *sqlparse.Select, c sqlparse.CTE) (*sqlparse.Select, error) {
	if len(body.SetOps) == 0 {
		star := false
		for _, it := range body.Items {
			star = star || it.Star
		}
		if !star {
			if len(body.Items) != len(c.Columns) {
				return nil, columnCountError(c.Name, len(c.Columns), len(body.Items))
			}
			q := *body
			q.Items = make([]sqlparse.SelectItem, len(body.Items))
			for i, it := range body.Items {
				it.Alias = c.Columns[i]
				q.Items[i] = it
			}
			return &q, nil
		}
	}
	seen := map[string]bool{}
	for _, col := range c.Columns {
		k := strings.ToLower(col)
		if seen[k] {
			return nil, errorf(catalog.CodeInvalidInput, "duplicate column name %s in the common table expression %s (MySQL error 1060)", sqlparse.QuoteIdent(col), sqlparse.QuoteIdent(c.Name))
		}
		seen[k] = true
	}
	marker := s.placeholder("renamed CTE")
	s.renamed[placeholderKey(marker)] = &renamedCTE{name: c.Name, body: body, columns: c.Columns}
	return marker, nil
}

func columnCountError(name string, want, got int) error {
	return errorf(catalog.CodeInvalidInput, "the common table expression %s names %d columns for a query of %d (MySQL error 1353)", sqlparse.QuoteIdent(name), want, got)
}

// renamedCTE is a CTE whose column list names the columns of a set
// operation or a SELECT *: each reference plans body and renames its
// result columns.
type renamedCTE struct {
	name    string
	body    *sqlparse.Select
	columns []string
}

// renamedPlan is the body's plan under the CTE's column names. The rows
// are the body's, column by column, so only the labels change.
type renamedPlan struct {
	queryPlan
	cols []Column
}

func (p *renamedPlan) resultColumns() []Column { return p.cols }

func (p *renamedPlan) run(ctx context.Context, s *Session) (*Result, error) {
	res, err := p.queryPlan.run(ctx, s)
	if err != nil {
		return nil, err
	}
	res.Columns = p.cols
	return res, nil
}

// planRenamed plans a reference to a renamedCTE.
func (s *Session) planRenamed(ctx context.Context, r *renamedCTE) (queryPlan, error) {
	p, err := s.planQuery(ctx, r.body)
	if err != nil {
		return nil, err
	}
	cols := append([]Column(nil), p.resultColumns()...)
	if len(cols) != len(r.columns) {
		return nil, columnCountError(r.name, len(r.columns), len(cols))
	}
	for i := range cols {
		cols[i].Name = r.columns[i]
	}
	return &renamedPlan{queryPlan: p, cols: cols}, nil
}
