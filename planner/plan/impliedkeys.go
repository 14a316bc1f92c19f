package plan

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/lancecat/lancecat/sqlparse"
)

// Implied join keys.
//
// Column equalities of a cluster of inner joins chain: p_partkey =
// l_partkey AND ps_partkey = l_partkey make p_partkey = ps_partkey true of
// every row the cluster yields, so part and partsupp can be joined on a
// key before lineitem is (TPC-H Q9), where the written conditions alone
// leave that join a cross product. The join order search counts such a
// join as keyed (joinGraph.keyed) and addImpliedKeys writes the implied
// equality into it. The chain is only followed through equalities whose
// two columns compare the same way (the planner's chainable: both
// integers, both strings): `=` between a string and a number compares
// them as numbers, so '1' = 1 and '1.0' = 1 hold but '1' = '1.0' does
// not, and deriving across such an edge would drop rows. Only `=` chains:
// `a <=> b AND b <=> c` does not make a = c (two NULLs).
//
// An implied equality is redundant with the written ones (it filters
// nothing they would not), so adding it never changes the rows; it is
// only added where a join has no equality of its class between its two
// sides.

// impliedClass is a class of columns the chainable equalities of a
// cluster make equal.
type impliedClass struct {
	rels  uint32                // the relations holding a column of it
	slots []int                 // its columns' slots, in increasing order
	refs  map[int]sqlparse.Expr // each slot's column reference
}

// columnEquality returns the slots and column references of the sides of
// a column = column condition.
func columnEquality(c sqlparse.Expr, b Binding) (ls, rs int, l, r *sqlparse.ColumnRef, ok bool) {
	e, isBin := sqlparse.StripParens(c).(*sqlparse.Binary)
	if !isBin || e.Op != sqlparse.OpEQ {
		return 0, 0, nil, nil, false
	}
	l, lok := sqlparse.StripParens(e.L).(*sqlparse.ColumnRef)
	r, rok := sqlparse.StripParens(e.R).(*sqlparse.ColumnRef)
	if !lok || !rok {
		return 0, 0, nil, nil, false
	}
	lsl, lok := b.SlotsOf(l)
	rsl, rok := b.SlotsOf(r)
	if !lok || !rok || len(lsl) != 1 || len(rsl) != 1 {
		return 0, 0, nil, nil, false
	}
	return lsl[0], rsl[0], l, r, true
}

// impliedClasses groups the columns of the chainable equalities of conds
// into classes (relOf: the relation bit of a slot, 0 for none). Only
// classes spanning three relations or more imply an equality no condition
// states.
func impliedClasses(conds []sqlparse.Expr, b Binding, chainable func(l, r sqlparse.Expr) bool, relOf func(slot int) uint32) []impliedClass {
	if chainable == nil {
		return nil
	}
	sets := slotSets{}
	refs := map[int]sqlparse.Expr{}
	for _, c := range conds {
		ls, rs, l, r, ok := columnEquality(c, b)
		if !ok || relOf(ls) == 0 || relOf(rs) == 0 || relOf(ls) == relOf(rs) || !chainable(l, r) {
			continue
		}
		sets.union(ls, rs)
		refs[ls], refs[rs] = l, r
	}
	byRoot := map[int]*impliedClass{}
	for s := range refs {
		root := sets.find(s)
		c := byRoot[root]
		if c == nil {
			c = &impliedClass{refs: map[int]sqlparse.Expr{}}
			byRoot[root] = c
		}
		c.rels |= relOf(s)
		c.slots = append(c.slots, s)
		c.refs[s] = refs[s]
	}
	var out []impliedClass
	for _, c := range byRoot {
		if bits.OnesCount32(c.rels) < 3 {
			continue
		}
		slices.Sort(c.slots)
		out = append(out, *c)
	}
	slices.SortFunc(out, func(x, y impliedClass) int { return cmp.Compare(x.slots[0], y.slots[0]) })
	return out
}

// addImpliedKeys gives each join of the inner-join cluster at n that has
// columns of an implied class on both sides, but no equality of the class
// among its conditions, the equality of the class's first column on each
// side.
func addImpliedKeys(n Node, classes []impliedClass, b Binding) {
	j, ok := n.(*Join)
	if !ok || j.Kind != Inner || j.Lookup != nil || len(classes) == 0 {
		return
	}
	addImpliedKeys(j.Left, classes, b)
	addImpliedKeys(j.Right, classes, b)
	for _, c := range classes {
		l, r := -1, -1
		for _, s := range c.slots {
			if l < 0 && covers([]int{s}, j.Left) {
				l = s
			}
			if r < 0 && covers([]int{s}, j.Right) {
				r = s
			}
		}
		if l < 0 || r < 0 || joinsClass(j.On, c, b) {
			continue
		}
		lref := *c.refs[l].(*sqlparse.ColumnRef)
		rref := *c.refs[r].(*sqlparse.ColumnRef)
		j.On = append(j.On, &sqlparse.Binary{Op: sqlparse.OpEQ, L: &lref, R: &rref})
	}
}

// joinsClass reports whether one of conds equates two columns of c.
func joinsClass(conds []sqlparse.Expr, c impliedClass, b Binding) bool {
	for _, cond := range conds {
		ls, rs, _, _, ok := columnEquality(cond, b)
		if ok && slices.Contains(c.slots, ls) && slices.Contains(c.slots, rs) {
			return true
		}
	}
	return false
}

// slotSets is a union-find over column slots: the classes of columns that
// chains of `=` make equal. A slot not yet seen is its own class.
type slotSets map[int]int

// find returns the representative of s's class, compressing the path.
func (u slotSets) find(s int) int {
	p, ok := u[s]
	if !ok || p == s {
		u[s] = s
		return s
	}
	root := u.find(p)
	u[s] = root
	return root
}

// union merges the classes of a and b.
func (u slotSets) union(a, b int) { u[u.find(a)] = u.find(b) }
