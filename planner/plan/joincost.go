package plan

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/lancecat/lancecat/sqlparse"
)

// The cost-based join order of a cluster of inner joins.
//
// For a cluster of up to maxDPLeaves relations, ReorderJoins searches
// every join tree (bushy ones too: a dimension joined to its own filtered
// dimension, supplier JOIN nation JOIN region, is built as one small side)
// by dynamic programming over the subsets of the relations and keeps the
// cheapest. The cost of a tree is what its hash joins touch: each join
// reads its probe side once, holds its build side (weighted, as a build
// row costs more than a probed one and holds memory), and yields its
// output rows; a join without an equality (a nested loop) tests every
// pair. Row counts are estimates:
//
//   - a relation: its table's rows (fragment metadata) times the
//     selectivity of its pushed predicates (predicateRows);
//   - a join: the product of its inputs' rows divided by the key domain
//     of each equality edge of a spanning tree over its relations (the
//     most selective edges, as Kruskal picks them). Equalities chain
//     columns into classes (l_suppkey = s_suppkey, s_nationkey =
//     n_nationkey = c_nationkey); a class's domain is the rows of the
//     smallest table with a column in it. An edge's domain is the product
//     of the domains of the classes both its relations are in, at most the
//     rows of the smaller of its two tables (partsupp's two-column key
//     against lineitem: partsupp's rows). So a join on a key (o_orderkey)
//     keeps about one row per row of the other side, and one on a column a
//     small table keys (c_nationkey = s_nationkey, with nation in the
//     query) is known to fan out.
//
// Only the order changes: every condition is still evaluated at the
// lowest join that sees its slots, so the rows are the same.

// maxDPLeaves bounds the relations of a cluster searched exhaustively
// (3^n subset pairs); bigger clusters keep the greedy order.
const maxDPLeaves = 10

// Selectivity guesses for a relation's pushed predicates (selectivity).
const (
	eqSelectivity    = 0.1  // col = literal
	rangeSelectivity = 0.3  // col < literal, ...
	likeSelectivity  = 0.1  // LIKE 'x%', LIKE '%x%'
	nullSelectivity  = 0.1  // IS NULL
	buildWeight      = 2.0  // a build row against a probed or output row
	crossPenalty     = 10.0 // a nested-loop pair against a probed row
)

// selectivity guesses the share of rows a predicate keeps.
func selectivity(e sqlparse.Expr) float64 {
	switch x := sqlparse.StripParens(e).(type) {
	case *sqlparse.Binary:
		switch x.Op {
		case sqlparse.OpAnd:
			return selectivity(x.L) * selectivity(x.R)
		case sqlparse.OpOr:
			return math.Min(1, selectivity(x.L)+selectivity(x.R))
		case sqlparse.OpEQ, sqlparse.OpNullEQ:
			return eqSelectivity
		case sqlparse.OpNE:
			return 1 - eqSelectivity
		case sqlparse.OpLT, sqlparse.OpLE, sqlparse.OpGT, sqlparse.OpGE:
			return rangeSelectivity
		}
	case *sqlparse.Unary:
		if x.Op == sqlparse.OpNot {
			return 1 - selectivity(x.X)
		}
	case *sqlparse.Between:
		return negated(x.Not, rangeSelectivity)
	case *sqlparse.Like:
		return negated(x.Not, likeSelectivity)
	case *sqlparse.InList:
		if x.Subquery == nil {
			return negated(x.Not, math.Min(0.5, float64(len(x.List))*eqSelectivity))
		}
	case *sqlparse.IsNull:
		return negated(x.Not, nullSelectivity)
	}
	return predicateSelectivity
}

// negated is the selectivity s, or of its negation.
func negated(not bool, s float64) float64 {
	if not {
		return 1 - s
	}
	return s
}

// predicateRows is rows times the selectivity of preds (at least 1).
func predicateRows(rows float64, preds []sqlparse.Expr) float64 {
	for _, p := range preds {
		rows *= selectivity(p)
	}
	return math.Max(rows, 1)
}

// tableRows is the rows of n before its own predicates: the key domain
// its columns can hold (estimateRows for anything but a scan).
func tableRows(ctx context.Context, n Node) float64 {
	if s, ok := n.(*Scan); ok {
		if st, ok := s.Table.(Stats); ok {
			if rows, ok := st.RowCount(ctx); ok {
				return math.Max(float64(rows), 1)
			}
		}
	}
	return estimateRows(ctx, n)
}

// joinGraph is a cluster's relations and conditions as the search sees
// them: a bit per relation.
type joinGraph struct {
	n      int
	rows   []float64   // each relation's estimated rows
	conds  []uint32    // the relations each condition reads
	sides  [][2]uint32 // an equality's sides' relations (zero: not a key)
	inCls  []bool      // the condition is a column equality of colCls
	colCls []eqClass   // the column classes of the equalities
	// implied are the classes of columns the chainable equalities make
	// equal (impliedkeys.go): any two relations holding a column of one
	// can be joined on a key.
	implied []impliedClass
	table   []float64 // each relation's rows before its predicates
	memo    map[uint32]float64
}

// eqClass is a class of columns made equal by equalities of the cluster:
// the relations holding a column of it (one bit each, several columns of
// one relation count once) and its key domain.
type eqClass struct {
	rels   uint32
	domain float64
}

// newJoinGraph builds the graph of leaves and conds (slotsOf: each
// condition's slots).
func newJoinGraph(ctx context.Context, leaves []Node, conds []sqlparse.Expr, slotsOf [][]int, b Binding, chainable func(l, r sqlparse.Expr) bool) *joinGraph {
	g := &joinGraph{n: len(leaves), rows: make([]float64, len(leaves)), memo: map[uint32]float64{}}
	domain := make([]float64, len(leaves))
	for i, l := range leaves {
		g.rows[i] = estimateRows(ctx, l)
		domain[i] = tableRows(ctx, l)
	}
	g.table = domain
	leafOf := func(slot int) int {
		for i, l := range leaves {
			if covers([]int{slot}, l) {
				return i
			}
		}
		return -1
	}
	relsOf := func(slots []int) uint32 {
		var m uint32
		for _, s := range slots {
			if i := leafOf(s); i >= 0 {
				m |= 1 << i
			}
		}
		return m
	}
	// Union-find over single slots joined by column equalities.
	sets := slotSets{}
	for i, c := range conds {
		g.conds = append(g.conds, relsOf(slotsOf[i]))
		l, r, ok := equality(c, b)
		var sides [2]uint32
		if ok && relsOf(l)&relsOf(r) == 0 {
			sides = [2]uint32{relsOf(l), relsOf(r)}
		}
		g.sides = append(g.sides, sides)
		col := ok && len(l) == 1 && len(r) == 1 && isColumn(c) && leafOf(l[0]) != leafOf(r[0])
		if col {
			sets.union(l[0], r[0])
		}
		g.inCls = append(g.inCls, col)
	}
	classes := map[int]*eqClass{}
	for s := range sets {
		r := sets.find(s)
		c := classes[r]
		if c == nil {
			c = &eqClass{domain: math.Inf(1)}
			classes[r] = c
		}
		i := leafOf(s)
		c.rels |= 1 << i
		c.domain = math.Min(c.domain, domain[i])
	}
	for _, c := range classes {
		g.colCls = append(g.colCls, *c)
	}
	g.implied = impliedClasses(conds, b, chainable, func(slot int) uint32 { return relsOf([]int{slot}) })
	return g
}

// equality returns the slots of the two sides of an = or <=> condition.
func equality(c sqlparse.Expr, b Binding) (l, r []int, ok bool) {
	e, isBin := sqlparse.StripParens(c).(*sqlparse.Binary)
	if !isBin || (e.Op != sqlparse.OpEQ && e.Op != sqlparse.OpNullEQ) {
		return nil, nil, false
	}
	l, lok := b.SlotsOf(e.L)
	r, rok := b.SlotsOf(e.R)
	if !lok || !rok || len(l) == 0 || len(r) == 0 {
		return nil, nil, false
	}
	return l, r, true
}

// isColumn reports whether both sides of an equality are column
// references.
func isColumn(c sqlparse.Expr) bool {
	e := sqlparse.StripParens(c).(*sqlparse.Binary)
	_, l := sqlparse.StripParens(e.L).(*sqlparse.ColumnRef)
	_, r := sqlparse.StripParens(e.R).(*sqlparse.ColumnRef)
	return l && r
}

// card estimates the rows of the join of the relations in set.
func (g *joinGraph) card(set uint32) float64 {
	if v, ok := g.memo[set]; ok {
		return v
	}
	v := 1.0
	for i := 0; i < g.n; i++ {
		if set&(1<<i) != 0 {
			v *= g.rows[i]
		}
	}
	for _, d := range g.treeDomains(set) {
		v /= d
	}
	for i, rels := range g.conds {
		if !g.inCls[i] && rels&set == rels && bits.OnesCount32(rels) > 1 {
			v *= predicateSelectivity
		}
	}
	v = math.Max(v, 1)
	g.memo[set] = v
	return v
}

// treeDomains returns the key domains of the edges of a maximum spanning
// tree (by domain) over the relations of set, its edges the pairs that
// share a column class.
func (g *joinGraph) treeDomains(set uint32) []float64 {
	type edge struct {
		a, b int
		dom  float64
	}
	var edges []edge
	for a := 0; a < g.n; a++ {
		for b := a + 1; b < g.n; b++ {
			pair := uint32(1)<<a | uint32(1)<<b
			if set&pair != pair {
				continue
			}
			dom, shared := 1.0, false
			for _, c := range g.colCls {
				if c.rels&pair == pair {
					dom, shared = dom*c.domain, true
				}
			}
			if shared {
				edges = append(edges, edge{a, b, math.Min(dom, math.Min(g.table[a], g.table[b]))})
			}
		}
	}
	slices.SortStableFunc(edges, func(x, y edge) int { return cmp.Compare(y.dom, x.dom) })
	comp := make([]int, g.n)
	for i := range comp {
		comp[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for comp[i] != i {
			comp[i] = comp[comp[i]]
			i = comp[i]
		}
		return i
	}
	var doms []float64
	for _, e := range edges {
		if ra, rb := find(e.a), find(e.b); ra != rb {
			comp[ra] = rb
			doms = append(doms, e.dom)
		}
	}
	return doms
}

// keyed reports whether an equality condition ties a to b, written or
// implied (a hash join of the two has a key).
func (g *joinGraph) keyed(a, b uint32) bool {
	within := func(x, y uint32) bool { return x != 0 && x&^y == 0 }
	for _, s := range g.sides {
		if within(s[0], a) && within(s[1], b) || within(s[0], b) && within(s[1], a) {
			return true
		}
	}
	for _, c := range g.implied {
		if c.rels&a != 0 && c.rels&b != 0 {
			return true // addImpliedKeys gives the join a key
		}
	}
	return false
}

// plan is the cheapest tree found for a subset: a leaf (left == 0) or the
// join of left (probe) and right (build).
type dpPlan struct {
	cost        float64
	left, right uint32
}

// bestOrder searches the join trees of g's relations and returns the
// cheapest one's table: for each subset its best split.
func (g *joinGraph) bestOrder() map[uint32]dpPlan {
	best := map[uint32]dpPlan{}
	for i := 0; i < g.n; i++ {
		best[1<<i] = dpPlan{}
	}
	full := uint32(1)<<g.n - 1
	// Subsets in increasing order visit every proper subset first.
	for set := uint32(1); set <= full; set++ {
		if bits.OnesCount32(set) < 2 {
			continue
		}
		out := g.card(set)
		cur := dpPlan{cost: math.Inf(1)}
		// Each split (a, set^a) once per orientation, a in increasing
		// order: of equal costs the first wins, the written order (the
		// lower relations on the left, streaming).
		for a := -set & set; a != set; a = (a - set) & set {
			b := set ^ a
			pa, pb := best[a], best[b]
			c := pa.cost + pb.cost + buildWeight*g.card(b) + out
			if g.keyed(a, b) {
				c += g.card(a)
			} else {
				c += crossPenalty * g.card(a) * g.card(b)
			}
			if c < cur.cost {
				cur = dpPlan{cost: c, left: a, right: b}
			}
		}
		best[set] = cur
	}
	return best
}

// build makes the join tree of set from the search's table (conditions
// not yet placed).
func buildTree(best map[uint32]dpPlan, set uint32, leaves []Node) Node {
	p := best[set]
	if p.left == 0 {
		return leaves[bits.TrailingZeros32(set)]
	}
	return &Join{Kind: Inner, Left: buildTree(best, p.left, leaves), Right: buildTree(best, p.right, leaves)}
}

// shape is a tree's structure over leaf indices, for comparing the
// chosen tree with the written one.
func shape(best map[uint32]dpPlan, set uint32) []int {
	p := best[set]
	if p.left == 0 {
		return []int{bits.TrailingZeros32(set)}
	}
	out := append([]int{-1}, shape(best, p.left)...)
	return append(out, shape(best, p.right)...)
}

// clusterShape is the written cluster's structure in the same terms
// (leaves numbered in collect order).
func clusterShape(n Node, next *int) []int {
	if x, ok := n.(*Join); ok && x.Kind == Inner && x.Lookup == nil {
		out := append([]int{-1}, clusterShape(x.Left, next)...)
		return append(out, clusterShape(x.Right, next)...)
	}
	*next++
	return []int{*next - 1}
}

// placeCond puts c into the lowest join of the tree at n that covers its
// slots, reporting whether one does.
func placeCond(n Node, c sqlparse.Expr, slots []int) bool {
	j, ok := n.(*Join)
	if !ok || !covers(slots, j) {
		return false
	}
	if placeCond(j.Left, c, slots) || placeCond(j.Right, c, slots) {
		return true
	}
	j.On = append(j.On, c)
	return true
}

// putLeaves puts the (inside-reordered) leaves back into the written
// cluster at n, in collect order.
func putLeaves(n Node, leaves []Node, next *int) Node {
	if x, ok := n.(*Join); ok && x.Kind == Inner && x.Lookup == nil {
		x.Left = putLeaves(x.Left, leaves, next)
		x.Right = putLeaves(x.Right, leaves, next)
		return x
	}
	*next++
	return leaves[*next-1]
}

// selectiveShare is the most of its table's rows a scan's predicates may
// keep for Selective.
const selectiveShare = 0.05

// Selective reports whether the predicates of s are guessed to keep at
// most selectiveShare of its table's rows (and a known table size).
func Selective(ctx context.Context, s *Scan) bool {
	st, ok := s.Table.(Stats)
	if !ok {
		return false
	}
	rows, ok := st.RowCount(ctx)
	if !ok || rows == 0 {
		return false
	}
	return predicateRows(float64(rows), s.Spec.Predicates) <= selectiveShare*float64(rows)
}
