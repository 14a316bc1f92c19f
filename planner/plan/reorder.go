package plan

import (
	"context"
	"math"
	"slices"

	"github.com/lancecat/lancecat/sqlparse"
)

// Join order.
//
// The FROM clause's tree joins relations in the order written, every join
// building its right input in memory. For TPC-H's comma joins that means
// cross products (part, supplier in Q9) and the biggest table (lineitem)
// held as a build side. ReorderJoins rewrites each cluster of inner joins
// (the relations joined by inner joins only; an outer join is one opaque
// relation of the cluster above it, with its own inputs reordered inside)
// into the cheapest tree a search over its subsets finds (joincost.go).
// Past maxDPLeaves relations it keeps a greedy left-deep tree: the
// relation with the most estimated rows streams at the bottom (it is
// never held), and each join above builds one more relation, the smallest
// one an equality connects to those joined so far (the smallest of all
// when none does: a cross product only where the query has one). A join's
// rows are then no longer a contiguous range of slots: Layout says which
// ranges a node's rows hold, in order, and the operator at the top of the
// tree puts its rows back in slot order.

// Seg is a range [Lo, Hi) of slots held contiguously in a node's rows.
type Seg struct{ Lo, Hi int }

// Layout lists the slot ranges a node of the FROM tree produces, in the
// order its rows hold them (a Scan's one range; a Join's left layout then
// its right one).
func Layout(n Node) []Seg {
	if j, ok := n.(*Join); ok {
		return append(Layout(j.Left), Layout(j.Right)...)
	}
	lo, hi := n.Slots()
	return []Seg{{lo, hi}}
}

// Width is the number of values in each row of a layout.
func Width(l []Seg) int {
	n := 0
	for _, s := range l {
		n += s.Hi - s.Lo
	}
	return n
}

// InOrder reports whether a layout is one range in slot order (rows need
// no reordering).
func InOrder(l []Seg) bool {
	for i := 1; i < len(l); i++ {
		if l[i].Lo != l[i-1].Hi {
			return false
		}
	}
	return true
}

// covers reports whether the slots all lie in n's layout.
func covers(slots []int, n Node) bool {
	l := Layout(n)
	for _, s := range slots {
		in := false
		for _, g := range l {
			if s >= g.Lo && s < g.Hi {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// Selectivity guesses of the cost model: the share of a relation's rows a
// pushed predicate keeps, and the rows assumed for a relation of unknown
// size.
const (
	predicateSelectivity = 0.3
	unknownRows          = 1e6
)

// estimateRows guesses the rows n produces.
func estimateRows(ctx context.Context, n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		st, ok := x.Table.(Stats)
		if !ok {
			return unknownRows
		}
		rows, ok := st.RowCount(ctx)
		if !ok {
			return unknownRows
		}
		est := predicateRows(float64(rows), x.Spec.Predicates)
		if x.Spec.Limit >= 0 {
			est = math.Min(est, float64(x.Spec.Limit))
		}
		return math.Max(est, 1)
	case *Join:
		l, r := estimateRows(ctx, x.Left), estimateRows(ctx, x.Right)
		if x.Kind == Full {
			return l + r
		}
		return math.Max(l, r) // a key join keeps about the bigger side
	}
	return unknownRows
}

// ReorderJoins is the join-order rule (see above), applied after
// PushFilters (so each relation's own filters are in its scan and every
// join condition is in the On of an inner join) and before
// SplitJoinKeys. It returns the new root. chainable (nil: none) reports
// whether a column equality l = r may be chained with others into implied
// ones (impliedkeys.go): the two columns compare the same way.
func ReorderJoins(ctx context.Context, n Node, b Binding, chainable func(l, r sqlparse.Expr) bool) Node {
	j, ok := n.(*Join)
	if !ok {
		return n
	}
	if j.Kind != Inner || j.Lookup != nil {
		j.Left = ReorderJoins(ctx, j.Left, b, chainable)
		j.Right = ReorderJoins(ctx, j.Right, b, chainable)
		return j
	}
	var leaves []Node
	var conds []sqlparse.Expr
	var collect func(n Node)
	collect = func(n Node) {
		if x, ok := n.(*Join); ok && x.Kind == Inner && x.Lookup == nil {
			collect(x.Left)
			collect(x.Right)
			conds = append(conds, x.On...)
			return
		}
		leaves = append(leaves, ReorderJoins(ctx, n, b, chainable))
	}
	collect(j)
	slotsOf := make([][]int, len(conds))
	for i, c := range conds {
		s, ok := b.SlotsOf(c)
		if !ok {
			return j // cannot place a condition it cannot see into: keep the order
		}
		slotsOf[i] = s
	}
	if len(leaves) <= maxDPLeaves { // joincost.go
		g := newJoinGraph(ctx, leaves, conds, slotsOf, b, chainable)
		best := g.bestOrder()
		full := uint32(1)<<len(leaves) - 1
		next := 0
		if slices.Equal(shape(best, full), clusterShape(j, &next)) {
			// The written tree already: keep it (and its USING /
			// NATURAL labels), only its inputs' insides may have changed.
			next = 0
			root := putLeaves(j, leaves, &next)
			addImpliedKeys(root, g.implied, b)
			return root
		}
		root := buildTree(best, full, leaves)
		for i, c := range conds {
			if !placeCond(root, c, slotsOf[i]) { // cannot happen: the root covers every slot
				root.(*Join).On = append(root.(*Join).On, c)
			}
		}
		addImpliedKeys(root, g.implied, b)
		return root
	}
	est := make([]float64, len(leaves))
	for i, l := range leaves {
		est[i] = estimateRows(ctx, l)
	}
	// The spine: the biggest relation streams.
	first := 0
	for i := range leaves {
		if est[i] > est[first] {
			first = i
		}
	}
	order := []int{first}
	used := make([]bool, len(leaves))
	used[first] = true
	joined := []Node{leaves[first]}
	for len(order) < len(leaves) {
		pick, connected := -1, false
		for i := range leaves {
			if used[i] {
				continue
			}
			c := linked(conds, b, joined, leaves[i])
			if c && !connected || c == connected && (pick < 0 || est[i] < est[pick]) {
				pick, connected = i, c
			}
		}
		order = append(order, pick)
		used[pick] = true
		joined = append(joined, leaves[pick])
	}
	same := true
	for i, o := range order {
		same = same && o == i
	}
	if same && leftDeep(j, len(leaves)) {
		// The written order already: keep the tree (and its USING /
		// NATURAL labels), only its inputs' insides may have changed.
		replaceLeaves(j, leaves)
		return j
	}
	var root Node = leaves[order[0]]
	var joins []*Join
	for _, o := range order[1:] {
		nj := &Join{Kind: Inner, Left: root, Right: leaves[o]}
		joins = append(joins, nj)
		root = nj
	}
	// Each condition goes to the lowest join that sees all its slots.
	for i, c := range conds {
		placed := false
		for _, nj := range joins {
			if covers(slotsOf[i], nj) {
				nj.On = append(nj.On, c)
				placed = true
				break
			}
		}
		if !placed { // cannot happen: the top join covers every slot
			joins[len(joins)-1].On = append(joins[len(joins)-1].On, c)
		}
	}
	return root
}

// linked reports whether an equality of conds ties leaf to the relations
// joined so far (one side over them, the other over leaf).
func linked(conds []sqlparse.Expr, b Binding, joined []Node, leaf Node) bool {
	within := func(slots []int) bool {
		for _, s := range slots {
			in := false
			for _, n := range joined {
				if covers([]int{s}, n) {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
		return true
	}
	for _, c := range conds {
		e, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || (e.Op != sqlparse.OpEQ && e.Op != sqlparse.OpNullEQ) {
			continue
		}
		ls, lok := b.SlotsOf(e.L)
		rs, rok := b.SlotsOf(e.R)
		if !lok || !rok || len(ls) == 0 || len(rs) == 0 {
			continue
		}
		if within(ls) && covers(rs, leaf) || within(rs) && covers(ls, leaf) {
			return true
		}
	}
	return false
}

// leftDeep reports whether the inner-join cluster at j is a left-deep
// chain over n leaves (each join's right input a leaf of the cluster).
func leftDeep(j *Join, n int) bool {
	for n > 1 {
		if r, ok := j.Right.(*Join); ok && r.Kind == Inner && r.Lookup == nil {
			return false
		}
		n--
		if n == 1 {
			return true
		}
		l, ok := j.Left.(*Join)
		if !ok || l.Kind != Inner || l.Lookup != nil {
			return false
		}
		j = l
	}
	return true
}

// replaceLeaves puts the (inside-reordered) leaves back into the
// left-deep cluster at j, in order.
func replaceLeaves(j *Join, leaves []Node) {
	for i := len(leaves) - 1; i >= 1; i-- {
		j.Right = leaves[i]
		if i == 1 {
			j.Left = leaves[0]
			return
		}
		j = j.Left.(*Join)
	}
}
