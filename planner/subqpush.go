package planner

import (
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// pushSubqueryFilters moves each WHERE conjunct of a join that filters one
// relation by an uncorrelated subquery (TPC-H Q18's `o_orderkey IN (SELECT
// l_orderkey FROM lineitem GROUP BY l_orderkey HAVING ...)`, Q16's `NOT IN`,
// Q20's `s_suppkey IN (...)`) into that relation's scan, where the scan's
// single-table query runs the subquery once and filters before the join.
// The general rule keeps a subquery conjunct above the whole join, so every
// joined row (Q18: six million lineitem rows joined to all the orders) was
// built before the filter dropped nearly all of them. It returns the
// conjuncts left for plan.PushFilters.
func pushSubqueryFilters(root plan.Node, conjuncts []sqlparse.Expr, scope *expr.Scope) []sqlparse.Expr {
	var rest []sqlparse.Expr
	for _, c := range conjuncts {
		if slots, ok := uncorrelatedFilterSlots(c, scope); ok && plan.PushToScan(root, c, slots, scope) {
			continue
		}
		rest = append(rest, c)
	}
	return rest
}

// uncorrelatedFilterSlots gives the join slots a conjunct holding
// subqueries reads outside them, when none of its subqueries reads a slot
// of the join (no outer reference), it reads at least one slot, and it has
// no aggregate or user variable (what expr.Scope.SlotsOf refuses besides
// subqueries).
func uncorrelatedFilterSlots(c sqlparse.Expr, scope *expr.Scope) ([]int, bool) {
	if !hasSubquery(c) {
		return nil, false
	}
	var slots []int
	shallow, ok := 0, true
	seen := map[int]bool{}
	sqlparse.Inspect(c, func(n sqlparse.Expr) bool {
		switch x := n.(type) {
		case *sqlparse.ColumnRef:
			if i, bound := scope.SlotOfRef(x); bound {
				shallow++
				if !seen[i] {
					seen[i] = true
					slots = append(slots, i)
				}
			}
		case *sqlparse.FuncCall:
			ok = ok && !x.Aggregate
		case *sqlparse.Variable:
			ok = ok && x.Scope != sqlparse.ScopeUser
		}
		return true
	})
	deep := 0
	inspectDeep(c, func(ref *sqlparse.ColumnRef) {
		if _, bound := scope.SlotOfRef(ref); bound {
			deep++
		}
	})
	return slots, ok && len(slots) > 0 && deep == shallow
}
