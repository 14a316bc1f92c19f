package expr

import (
	"strings"

	"github.com/lancecat/lancecat/sqlparse"
)

// Binder binds the expressions of one query block to a Scope.
type Binder struct {
	Scope *Scope
	// Keep, when set, leaves an unqualified reference alone when it
	// returns true (ORDER BY and HAVING may name a select-list alias,
	// which the query's projection resolves).
	Keep func(ref *sqlparse.ColumnRef) bool
}

// Bind returns a copy of e (sqlparse.Rewrite) whose column references
// name slots of the scope (Scope.Ref), resolved among the relations
// [fromRel, toRel). Subquery bodies are not entered: their names resolve
// in their own scope, except for the qualified references to the scope's
// relations (BindOuter: correlation with the join). Errors are MySQL's 1052 and 1054 (ColumnError
// under a *catalog.Error).
func (b *Binder) Bind(e sqlparse.Expr, clause string, fromRel, toRel int) (sqlparse.Expr, error) {
	var err error
	out := sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
		if err != nil {
			return n
		}
		switch x := n.(type) {
		case *sqlparse.Subquery:
			x.Select, err = b.Scope.BindOuter(x.Select)
		case *sqlparse.Exists:
			x.Select, err = b.Scope.BindOuter(x.Select)
		case *sqlparse.Quantified:
			x.Select, err = b.Scope.BindOuter(x.Select)
		case *sqlparse.InList:
			if x.Subquery != nil {
				x.Subquery, err = b.Scope.BindOuter(x.Subquery)
			}
		}
		ref, ok := n.(*sqlparse.ColumnRef)
		if !ok || err != nil {
			return n
		}
		if b.Keep != nil && len(ref.Qualifier) == 0 && b.Keep(ref) {
			return n
		}
		var slot int
		if slot, err = b.Scope.Resolve(ref, clause, fromRel, toRel); err != nil {
			return n
		}
		return b.Scope.Ref(slot)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BindAll binds e against every relation in scope.
func (b *Binder) BindAll(e sqlparse.Expr, clause string) (sqlparse.Expr, error) {
	return b.Bind(e, clause, 0, len(b.Scope.Rels))
}

// Slots lists the slots a bound expression reads (outside subqueries), in
// order of appearance, each once. ok is false when e holds a subquery or
// an aggregate, which a rule must not move below a join.
func (s *Scope) SlotsOf(e sqlparse.Expr) (slots []int, ok bool) {
	ok = true
	seen := map[int]bool{}
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		switch x := n.(type) {
		case *sqlparse.ColumnRef:
			if i, bound := s.SlotOfRef(x); bound && !seen[i] {
				seen[i] = true
				slots = append(slots, i)
			}
		case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified:
			ok = false
		case *sqlparse.InList:
			if x.Subquery != nil {
				ok = false
			}
		case *sqlparse.FuncCall:
			if x.Aggregate {
				ok = false
			}
		case *sqlparse.Variable:
			if x.Scope == sqlparse.ScopeUser {
				ok = false // user variables may change while a statement runs
			}
		}
		return true
	})
	return slots, ok
}

// Unbind returns a copy of a bound expression over one relation's slots
// with each reference renamed to the relation's own column (the form a
// table scan evaluates).
func (s *Scope) Unbind(e sqlparse.Expr) sqlparse.Expr {
	return sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
		if ref, ok := n.(*sqlparse.ColumnRef); ok {
			if i, bound := s.SlotOfRef(ref); bound {
				return &sqlparse.ColumnRef{Column: s.Slots[i].Column}
			}
		}
		return n
	})
}

// BindOuter returns a copy of a subquery body q in which every qualified
// column reference whose qualifier names a relation of the scope (and no
// relation of the FROM clauses between, which shadow it) names the
// scope's slot instead: the correlation of a subquery with the columns of
// a join around it. Other references are left for the subquery's own
// planning. A reference to a column the named relation lacks fails with
// MySQL's 1054.
func (s *Scope) BindOuter(q *sqlparse.Select) (*sqlparse.Select, error) {
	return s.bindOuter(q, nil)
}

func (s *Scope) bindOuter(q *sqlparse.Select, shadow []string) (*sqlparse.Select, error) {
	if q == nil {
		return nil, nil
	}
	shadow = append(append([]string(nil), shadow...), fromNames(q.From)...)
	for _, c := range q.With {
		shadow = append(shadow, c.Name)
	}
	var err error
	fix := func(e sqlparse.Expr) sqlparse.Expr {
		return sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
			if err != nil {
				return n
			}
			var e2 error
			switch x := n.(type) {
			case *sqlparse.ColumnRef:
				if len(x.Qualifier) == 0 || shadowed(shadow, x.Qualifier) || !s.qualifies(x.Qualifier) {
					return n
				}
				slot, e3 := s.Resolve(x, "field list", 0, len(s.Rels))
				if e3 != nil {
					err = e3
					return n
				}
				return s.Ref(slot)
			case *sqlparse.Subquery:
				x.Select, e2 = s.bindOuter(x.Select, shadow)
			case *sqlparse.Exists:
				x.Select, e2 = s.bindOuter(x.Select, shadow)
			case *sqlparse.Quantified:
				x.Select, e2 = s.bindOuter(x.Select, shadow)
			case *sqlparse.InList:
				x.Subquery, e2 = s.bindOuter(x.Subquery, shadow)
			}
			if e2 != nil {
				err = e2
			}
			return n
		})
	}
	c := *q
	c.Items = make([]sqlparse.SelectItem, len(q.Items))
	for i, it := range q.Items {
		it.Expr = fix(it.Expr)
		c.Items[i] = it
	}
	c.Where, c.Having = fix(q.Where), fix(q.Having)
	if q.GroupBy != nil {
		c.GroupBy = make([]sqlparse.Expr, len(q.GroupBy))
		for i, g := range q.GroupBy {
			c.GroupBy[i] = fix(g)
		}
	}
	if q.OrderBy != nil {
		c.OrderBy = make([]sqlparse.OrderItem, len(q.OrderBy))
		for i, o := range q.OrderBy {
			o.Expr = fix(o.Expr)
			c.OrderBy[i] = o
		}
	}
	var from func(f sqlparse.FromItem) sqlparse.FromItem
	from = func(f sqlparse.FromItem) sqlparse.FromItem {
		switch n := f.(type) {
		case *sqlparse.TableSource:
			// A derived table's body is not entered: only its own FROM
			// is in scope there (MySQL 5.7's and MariaDB's rule; the
			// subquery's CTE bodies are likewise left alone), so a
			// qualified reference to the scope in it stays unknown and
			// fails when the body is planned.
			return n
		case *sqlparse.Join:
			j := *n
			j.Left, j.Right = from(n.Left), from(n.Right)
			j.On = fix(n.On)
			return &j
		}
		return f
	}
	c.From = from(q.From)
	if q.SetOps != nil {
		c.SetOps = make([]sqlparse.SetOperand, len(q.SetOps))
		for i, op := range q.SetOps {
			var e2 error
			if op.Select, e2 = s.bindOuter(op.Select, shadow); e2 != nil && err == nil {
				err = e2
			}
			c.SetOps[i] = op
		}
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// qualifies reports whether a qualifier names a relation of the scope.
func (s *Scope) qualifies(q sqlparse.Name) bool {
	for _, r := range s.Rels {
		if r.named(q) {
			return true
		}
	}
	return false
}

func shadowed(names []string, q sqlparse.Name) bool {
	for _, n := range names {
		if strings.EqualFold(n, q[len(q)-1]) {
			return true
		}
	}
	return false
}

// fromNames lists the names a FROM clause's relations go by.
func fromNames(f sqlparse.FromItem) []string {
	switch n := f.(type) {
	case *sqlparse.TableSource:
		if n.Alias != "" {
			return []string{n.Alias}
		}
		if len(n.Table) > 0 {
			return []string{n.Table[len(n.Table)-1]}
		}
	case *sqlparse.Join:
		return append(fromNames(n.Left), fromNames(n.Right)...)
	}
	return nil
}
