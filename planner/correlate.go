package planner

import (
	"context"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// Name resolution for correlated subqueries (subquery.go): the columns a
// FROM clause brings into scope, which references of a subquery belong to
// the query around it, and the copy of a subquery with those references
// replaced by the outer row's values.

// scope is what one FROM clause brings into scope: its columns and the
// names a qualifier may use (the alias, else the table's name).
type scope struct {
	names []string
	// schema, when set, is the schema of the table names[0] names (under
	// its alias too): a qualifier db.t must name it exactly; without it (a
	// derived table) only a one-part qualifier names the relation.
	schema string
	cols   map[string]bool // lower-case column names
	// parts are the scopes of a join's relations (then names and cols
	// are unused): a name resolves when one of them has it.
	parts []*scope
}

// has reports whether ref resolves in the scope.
func (sc *scope) has(ref *sqlparse.ColumnRef) bool {
	if sc.parts != nil {
		for _, p := range sc.parts {
			if p.has(ref) {
				return true
			}
		}
		return false
	}
	if !sc.cols[strings.ToLower(ref.Column)] {
		return false
	}
	if len(ref.Qualifier) == 0 {
		return true
	}
	q := ref.Qualifier[len(ref.Qualifier)-1]
	switch {
	case len(ref.Qualifier) > 2:
		return false
	case len(ref.Qualifier) == 2 && (sc.schema == "" || ref.Qualifier[0] != sc.schema):
		return false
	}
	for _, n := range sc.names {
		if strings.EqualFold(n, q) {
			return true
		}
	}
	return false
}

// withSchema sets the schema of a table's scope.
func (sc *scope) withSchema(schema string) *scope {
	sc.schema = schema
	return sc
}

func newScope(name string, cols []Column) *scope {
	sc := &scope{cols: make(map[string]bool, len(cols))}
	if name != "" {
		sc.names = []string{name}
	}
	for _, c := range cols {
		sc.cols[strings.ToLower(c.Name)] = true
	}
	return sc
}

// scopeOf resolves what a FROM clause brings into scope, without running
// anything: a table's schema, a view's columns, a derived table's planned
// result columns.
func (s *Session) scopeOf(ctx context.Context, from sqlparse.FromItem) (*scope, error) {
	if from == nil {
		return &scope{}, nil
	}
	if j, ok := from.(*sqlparse.Join); ok {
		l, err := s.scopeOf(ctx, j.Left)
		if err != nil {
			return nil, err
		}
		r, err := s.scopeOf(ctx, j.Right)
		if err != nil {
			return nil, err
		}
		return &scope{parts: append(l.partsOrSelf(), r.partsOrSelf()...)}, nil
	}
	ts, ok := from.(*sqlparse.TableSource)
	if !ok {
		return nil, notSupportedSelect("joins")
	}
	if p, ok := s.preplanned[ts]; ok {
		return newScope(ts.Alias, p.resultColumns()), nil
	}
	if ts.Subquery != nil {
		p, err := s.fork().planQuery(ctx, ts.Subquery)
		if err != nil {
			return nil, err
		}
		return newScope(ts.Alias, p.resultColumns()), nil
	}
	name := ts.Alias
	if name == "" {
		name = ts.Table[len(ts.Table)-1]
	}
	if len(ts.Table) == 2 && strings.EqualFold(ts.Table[0], "information_schema") {
		if v, ok := infoViews[strings.ToLower(ts.Table[1])]; ok {
			return newScope(name, v.plainColumns()).withSchema(s.tableSchema(ts.Table)), nil
		}
		return &scope{names: []string{name}}, nil // the planner names the bad view
	}
	_, ds, err := s.openTableSource(ctx, ts)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = dataColumn(f, "")
	}
	return newScope(name, cols).withSchema(s.tableSchema(ts.Table)), nil
}

func (sc *scope) partsOrSelf() []*scope {
	if sc.parts != nil {
		return sc.parts
	}
	return []*scope{sc}
}

// qualifyOuterRefs qualifies the unqualified references of st's subqueries
// to the relations of a join around them (scope, the join's relations):
// `WHERE l_partkey = p_partkey` in a subquery over lineitem, under FROM
// lineitem, part, names part.p_partkey. The binder then binds them to the
// join's slots as it binds qualified ones (expr.Scope.BindOuter).
func (s *Session) qualifyOuterRefs(ctx context.Context, st *sqlparse.Select, js *expr.Scope) (*sqlparse.Select, error) {
	outer := &scope{}
	for _, r := range js.Rels {
		cols := make([]Column, len(r.Columns))
		for i, c := range r.Columns {
			cols[i] = Column{Name: c}
		}
		sc := newScope(r.Name, cols)
		if len(r.Table) == 2 {
			sc.schema = r.Table[0] // buildFrom's {schema, name}
		}
		outer.parts = append(outer.parts, sc)
	}
	get := func() (*scope, error) { return outer, nil }
	subst := map[*sqlparse.ColumnRef]sqlparse.Expr{}
	var err error
	for _, e := range selectExprs(st) {
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			if err != nil {
				return false
			}
			var q *sqlparse.Select
			switch x := n.(type) {
			case *sqlparse.Subquery:
				q = x.Select
			case *sqlparse.Exists:
				q = x.Select
			case *sqlparse.Quantified:
				q = x.Select
			case *sqlparse.InList:
				q = x.Subquery
			}
			if q == nil {
				return true
			}
			var refs []*sqlparse.ColumnRef
			if refs, err = s.outerRefs(ctx, q, nil, get); err != nil {
				return false
			}
			for _, r := range refs {
				if len(r.Qualifier) > 0 {
					continue
				}
				slot, rerr := js.Resolve(r, "where clause", 0, len(js.Rels))
				if rerr != nil {
					continue // ambiguous: the binder reports it
				}
				subst[r] = &sqlparse.ColumnRef{Qualifier: sqlparse.Name{js.Rels[js.Slots[slot].Rel].Name}, Column: r.Column}
			}
			return false
		})
		if err != nil {
			return nil, err
		}
	}
	if len(subst) == 0 {
		return st, nil
	}
	return substituteSelect(st, subst), nil
}

// inspectDeep calls f for every column reference of e and of the queries
// nested in it (a correlated subquery reads the outer row's columns).
func inspectDeep(e sqlparse.Expr, f func(*sqlparse.ColumnRef)) {
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		var q *sqlparse.Select
		switch x := n.(type) {
		case *sqlparse.ColumnRef:
			f(x)
		case *sqlparse.Subquery:
			q = x.Select
		case *sqlparse.Exists:
			q = x.Select
		case *sqlparse.Quantified:
			q = x.Select
		case *sqlparse.InList:
			q = x.Subquery
		}
		if q != nil {
			for _, op := range append([]*sqlparse.Select{q}, setOpSelects(q)...) {
				for _, e := range selectExprs(op) {
					inspectDeep(e, f)
				}
			}
		}
		return true
	})
}

func setOpSelects(q *sqlparse.Select) []*sqlparse.Select {
	var out []*sqlparse.Select
	for _, op := range q.SetOps {
		out = append(out, op.Select)
	}
	return out
}

// lazyScope resolves a FROM clause's scope on first use (most statements
// have no subquery that needs it).
func (s *Session) lazyScope(ctx context.Context, from sqlparse.FromItem) func() (*scope, error) {
	var sc *scope
	var err error
	return func() (*scope, error) {
		if sc == nil && err == nil {
			sc, err = s.scopeOf(ctx, from)
		}
		return sc, err
	}
}

// outerRefs lists the column references of q (and of the subqueries nested
// in it) that resolve in none of the scopes from q inward but in the outer
// one. inner holds the scopes of the queries between the outer query and
// q.
func (s *Session) outerRefs(ctx context.Context, q *sqlparse.Select, inner []*scope, outer func() (*scope, error)) ([]*sqlparse.ColumnRef, error) {
	if len(q.SetOps) > 0 {
		var refs []*sqlparse.ColumnRef
		for _, op := range q.SetOps {
			r, err := s.outerRefs(ctx, op.Select, inner, outer)
			if err != nil {
				return nil, err
			}
			refs = append(refs, r...)
		}
		return refs, nil
	}
	var candidates []*sqlparse.ColumnRef
	var nested []*sqlparse.Select
	for _, e := range selectExprs(q) {
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			switch x := n.(type) {
			case *sqlparse.ColumnRef:
				candidates = append(candidates, x)
			case *sqlparse.Subquery:
				nested = append(nested, x.Select)
			case *sqlparse.Exists:
				nested = append(nested, x.Select)
			case *sqlparse.Quantified:
				nested = append(nested, x.Select)
			case *sqlparse.InList:
				if x.Subquery != nil {
					nested = append(nested, x.Subquery)
				}
			}
			return true
		})
	}
	if len(candidates) == 0 && len(nested) == 0 {
		return nil, nil
	}
	own, err := s.scopeOf(ctx, q.From)
	if err != nil {
		return nil, err
	}
	chain := append(append([]*scope{}, inner...), own)
	var refs []*sqlparse.ColumnRef
	for _, ref := range candidates {
		if resolvesIn(chain, ref) {
			continue
		}
		out, err := outer()
		if err != nil {
			return nil, err
		}
		if out.has(ref) {
			refs = append(refs, ref)
		}
	}
	for _, n := range nested {
		r, err := s.outerRefs(ctx, n, chain, outer)
		if err != nil {
			return nil, err
		}
		refs = append(refs, r...)
	}
	return refs, nil
}

func resolvesIn(chain []*scope, ref *sqlparse.ColumnRef) bool {
	for _, sc := range chain {
		if sc.has(ref) {
			return true
		}
	}
	return false
}

// valueLiteral is a row value as a literal (DECIMAL text as an exact
// number).
func valueLiteral(v any, decimal bool) *sqlparse.Literal {
	switch x := v.(type) {
	case nil:
		return &sqlparse.Literal{Kind: sqlparse.LitNull}
	case bool:
		return &sqlparse.Literal{Kind: sqlparse.LitBool, Value: x}
	case int64:
		return &sqlparse.Literal{Kind: sqlparse.LitInt, Value: x}
	case uint64:
		return &sqlparse.Literal{Kind: sqlparse.LitUint, Value: x}
	case float64:
		return &sqlparse.Literal{Kind: sqlparse.LitFloat, Value: x}
	case []byte:
		return &sqlparse.Literal{Kind: sqlparse.LitBinary, Value: x}
	case time.Time:
		return &sqlparse.Literal{Kind: sqlparse.LitString, Value: x.UTC().Format(time.RFC3339Nano)}
	case string:
		if decimal {
			return &sqlparse.Literal{Kind: sqlparse.LitDecimal, Value: sqlparse.Decimal(x)}
		}
		return &sqlparse.Literal{Kind: sqlparse.LitString, Value: x}
	}
	return &sqlparse.Literal{Kind: sqlparse.LitString, Value: toString(v)}
}

// substituteSelect copies q (sqlparse.RewriteSelect), replacing the column
// references in subst (by identity) with their expressions, in q and in
// every query nested in it.
func substituteSelect(q *sqlparse.Select, subst map[*sqlparse.ColumnRef]sqlparse.Expr) *sqlparse.Select {
	return sqlparse.RewriteSelect(q, func(e sqlparse.Expr) sqlparse.Expr {
		if ref, ok := e.(*sqlparse.ColumnRef); ok {
			if r, ok := subst[ref]; ok {
				return r
			}
		}
		return e
	})
}

// regroup registers cp, the copy of subquery node n in an expression
// over grouped rows (aggregate.go), under the same plan. A correlated
// subquery there reads the outer values from the group: each outer
// reference must be a GROUP BY expression (rewrite maps it to its slot),
// as any column outside an aggregate.
func regroup(env *rowEnv, n, cp sqlparse.Expr, rewrite func(sqlparse.Expr) (sqlparse.Expr, error)) error {
	sq, ok := env.subq[n]
	if !ok {
		return nil
	}
	if len(sq.outer) == 0 {
		env.subq[cp] = sq // uncorrelated: the same value
		return nil
	}
	c := &subquery{kind: sq.kind, q: sq.q, planned: sq.planned, plan: sq.plan, subs: sq.subs, col: sq.col,
		hasCol: sq.hasCol, outer: sq.outer, sess: sq.sess, ctx: sq.ctx, maxRows: sq.maxRows}
	c.outerExprs = make([]sqlparse.Expr, len(sq.outer))
	for i, r := range sq.outer {
		e, err := rewrite(r)
		if err != nil && len(r.Qualifier) > 0 {
			e, err = rewrite(&sqlparse.ColumnRef{Column: r.Column}) // GROUP BY cust for o.cust
		}
		if err != nil {
			return errorf(catalog.CodeInvalidInput, "the correlated subquery %s reads %s, which is neither aggregated nor named in GROUP BY", n, r)
		}
		c.outerExprs[i] = e
	}
	env.subq[cp] = c
	return nil
}

// columnRefs calls f for every column reference of e the row must
// provide: those of e itself and the outer references of its correlated
// subqueries.
func (env *rowEnv) columnRefs(e sqlparse.Expr, f func(*sqlparse.ColumnRef) bool) {
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if ref, ok := n.(*sqlparse.ColumnRef); ok {
			return f(ref)
		}
		if sq, ok := env.subq[n]; ok {
			for _, r := range sq.outer {
				if !f(r) {
					return false
				}
			}
		}
		return true
	})
}

// hasSubquery reports whether e holds a subquery (outside nested queries).
func (env *rowEnv) hasSubquery(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if _, ok := env.subq[n]; ok {
			found = true
		}
		return !found
	})
	return found
}
