package plan

import (
	"sort"

	"github.com/lancecat/lancecat/sqlparse"
)

// Binding is what the rules need from the binder (expr.Scope): the slots
// a bound expression reads (ok false when it must not move: subqueries,
// aggregates), and the expression over one relation's own column names.
type Binding interface {
	SlotsOf(e sqlparse.Expr) (slots []int, ok bool)
	Unbind(e sqlparse.Expr) sqlparse.Expr
}

// Conjuncts splits e at its top-level ANDs (parentheses removed).
func Conjuncts(e sqlparse.Expr) []sqlparse.Expr {
	if e == nil {
		return nil
	}
	e = sqlparse.StripParens(e)
	if b, ok := e.(*sqlparse.Binary); ok && b.Op == sqlparse.OpAnd {
		return append(Conjuncts(b.L), Conjuncts(b.R)...)
	}
	return []sqlparse.Expr{e}
}

// And joins conjuncts with AND (nil for none).
func And(cs []sqlparse.Expr) sqlparse.Expr {
	var out sqlparse.Expr
	for _, c := range cs {
		if out == nil {
			out = c
			continue
		}
		out = &sqlparse.Binary{Op: sqlparse.OpAnd, L: out, R: c}
	}
	return out
}

// within reports whether the slots all lie in n's rows (its Layout: after
// ReorderJoins a join's slots need not be one range).
func within(slots []int, n Node) bool { return covers(slots, n) }

// PushFilters is the filter-pushdown rule. It moves each conjunct of
// where (bound) as far down the tree as the join semantics allow: into
// the scan of the one relation it reads unless an outer join pads that
// relation with NULLs, else into the condition of the lowest inner join
// covering its relations (so a comma join with a WHERE equality becomes a
// hash join). It also moves the conjuncts of each join's ON that read one
// input only into that input where the input is the filtered side (either
// side of an inner join, the right of a LEFT JOIN, the left of a RIGHT
// JOIN; neither of a FULL JOIN). It returns the conjuncts that must stay above the tree (they
// read NULL-padded columns of an outer join, or hold subqueries).
func PushFilters(root Node, where []sqlparse.Expr, b Binding) []sqlparse.Expr {
	pushOn(root, b)
	var rest []sqlparse.Expr
	for _, c := range where {
		slots, ok := b.SlotsOf(c)
		if !ok || len(slots) == 0 || !place(root, c, slots, b) {
			rest = append(rest, c)
		}
	}
	return rest
}

// place filters the output of n by c (reading slots), pushing it down;
// false means n cannot absorb it (the caller keeps it).
func place(n Node, c sqlparse.Expr, slots []int, b Binding) bool {
	switch x := n.(type) {
	case *Scan:
		x.Spec.Predicates = append(x.Spec.Predicates, b.Unbind(c))
		return true
	case *Join:
		inL, inR := within(slots, x.Left), within(slots, x.Right)
		if inL && x.Kind != Right && x.Kind != Full && place(x.Left, c, slots, b) {
			return true
		}
		if inR && x.Kind != Left && x.Kind != Full && place(x.Right, c, slots, b) {
			return true
		}
		if x.Kind == Inner {
			x.On = append(x.On, c)
			return true
		}
	}
	return false
}

// PushToScan moves c, a conjunct reading slots, into the scan of the one
// relation holding them when no outer join between the root and that scan
// pads the relation with NULLs; false means it stays with the caller. It
// is the pushdown for conjuncts a join must not take into its condition
// (an uncorrelated subquery filter: run once by the scan, not per pair).
func PushToScan(n Node, c sqlparse.Expr, slots []int, b Binding) bool {
	switch x := n.(type) {
	case *Scan:
		if !within(slots, x) {
			return false
		}
		x.Spec.Predicates = append(x.Spec.Predicates, b.Unbind(c))
		return true
	case *Join:
		if within(slots, x.Left) {
			return x.Kind != Right && x.Kind != Full && PushToScan(x.Left, c, slots, b)
		}
		if within(slots, x.Right) {
			return x.Kind != Left && x.Kind != Full && PushToScan(x.Right, c, slots, b)
		}
	}
	return false
}

// pushOn moves single-input ON conjuncts into the filtered input, bottom
// up.
func pushOn(n Node, b Binding) {
	j, ok := n.(*Join)
	if !ok {
		return
	}
	pushOn(j.Left, b)
	pushOn(j.Right, b)
	var keep []sqlparse.Expr
	for _, c := range j.On {
		slots, ok := b.SlotsOf(c)
		moved := false
		if ok && len(slots) > 0 && j.Kind != Full {
			if within(slots, j.Right) && j.Kind != Right {
				moved = place(j.Right, c, slots, b)
			} else if within(slots, j.Left) && j.Kind != Left {
				moved = place(j.Left, c, slots, b)
			}
		}
		if !moved {
			keep = append(keep, c)
		}
	}
	j.On = keep
}

// SplitJoinKeys is the join-strategy rule: each join condition conjunct
// `l = r` or `l <=> r` with l over one input and r over the other (and
// hashable says their values hash alike) becomes a hash-join key.
func SplitJoinKeys(n Node, b Binding, hashable func(l, r sqlparse.Expr) bool) {
	j, ok := n.(*Join)
	if !ok {
		return
	}
	SplitJoinKeys(j.Left, b, hashable)
	SplitJoinKeys(j.Right, b, hashable)
	var keep []sqlparse.Expr
	for _, c := range j.On {
		e, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if ok && (e.Op == sqlparse.OpEQ || e.Op == sqlparse.OpNullEQ) {
			ls, lok := b.SlotsOf(e.L)
			rs, rok := b.SlotsOf(e.R)
			ns := e.Op == sqlparse.OpNullEQ
			if lok && rok && len(ls) > 0 && len(rs) > 0 {
				switch {
				case within(ls, j.Left) && within(rs, j.Right) && hashable(e.L, e.R):
					j.Keys = append(j.Keys, EquiKey{L: e.L, R: e.R, NullSafe: ns})
					continue
				case within(rs, j.Left) && within(ls, j.Right) && hashable(e.R, e.L):
					j.Keys = append(j.Keys, EquiKey{L: e.R, R: e.L, NullSafe: ns})
					continue
				}
			}
		}
		keep = append(keep, c)
	}
	j.On = keep
}

// PruneColumns is the projection-pushdown rule: each scan reads only the
// slots in used (the columns the query names anywhere).
func PruneColumns(root Node, used map[int]bool) {
	for _, s := range Scans(root) {
		s.Spec.Columns = nil
		for slot := range used {
			if slot >= s.Lo && slot < s.Hi {
				s.Spec.Columns = append(s.Spec.Columns, slot-s.Lo)
			}
		}
		sort.Ints(s.Spec.Columns)
	}
}

// Exprs lists the bound expressions the tree itself evaluates (join
// conditions and keys), for PruneColumns.
func Exprs(n Node) []sqlparse.Expr {
	j, ok := n.(*Join)
	if !ok {
		return nil
	}
	out := append(Exprs(j.Left), Exprs(j.Right)...)
	out = append(out, j.On...)
	for _, k := range j.Keys {
		out = append(out, k.L, k.R)
	}
	return out
}
