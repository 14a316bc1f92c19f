package expr

import (
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
// in their own scope. Errors are MySQL's 1052 and 1054 (ColumnError
// under a *catalog.Error).
func (b *Binder) Bind(e sqlparse.Expr, clause string, fromRel, toRel int) (sqlparse.Expr, error) {
	var err error
	out := sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
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
