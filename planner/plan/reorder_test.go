package plan

import (
	"context"
	"math"
	"testing"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// sizedTable is a Table of a known row count.
type sizedTable struct{ rows int64 }

func (t sizedTable) Describe() string      { return "t" }
func (t sizedTable) ColumnNames() []string { return []string{"v", "k"} }
func (t sizedTable) Scan(context.Context, ScanSpec) (exec.Operator, error) {
	return nil, nil
}
func (t sizedTable) Explain(context.Context, ScanSpec) ([]string, error) { return nil, nil }
func (t sizedTable) RowCount(context.Context) (int64, bool)              { return t.rows, true }
func (t sizedTable) LookupIndex(int) (string, sqlparse.Expr)             { return "", nil }

// TestReorderJoins: FROM a, b, c WHERE a.k = c.k AND b.k = c.k is written
// as the cross product a x b; the rule streams the biggest relation (b)
// and builds the join of the two small ones (c JOIN a: the class of k has
// a's 10 rows as its domain, so it keeps about c's rows), with each
// condition at the lowest join seeing its slots, and Layout follows.
func TestReorderJoins(t *testing.T) {
	s := expr.NewScope()
	s.Add("a", nil, []string{"v", "k"})
	s.Add("b", nil, []string{"v", "k"})
	s.Add("c", nil, []string{"v", "k"})
	a := &Scan{Name: "a", Table: sizedTable{10}, Lo: 0, Hi: 2, Spec: ScanSpec{Limit: -1}}
	b := &Scan{Name: "b", Table: sizedTable{1000}, Lo: 2, Hi: 4, Spec: ScanSpec{Limit: -1}}
	c := &Scan{Name: "c", Table: sizedTable{100}, Lo: 4, Hi: 6, Spec: ScanSpec{Limit: -1}}
	root := &Join{Kind: Inner, Left: &Join{Kind: Inner, Left: a, Right: b}, Right: c}
	PushFilters(root, bound(t, s, "a.k = c.k AND b.k = c.k"), s)
	got := ReorderJoins(context.Background(), root, s, nil)
	top, ok := got.(*Join)
	if !ok {
		t.Fatalf("root %T", got)
	}
	low, ok := top.Right.(*Join)
	if !ok || top.Left != b || low.Left != c || low.Right != a {
		t.Fatalf("order: want b JOIN (c JOIN a), got %s", describe(got))
	}
	if fmtList(texts(low.On)) != "[`a.k` = `c.k`]" || fmtList(texts(top.On)) != "[`b.k` = `c.k`]" {
		t.Errorf("conditions: low %v, top %v", texts(low.On), texts(top.On))
	}
	if l := Layout(got); len(l) != 3 || l[0] != (Seg{2, 4}) || l[1] != (Seg{4, 6}) || l[2] != (Seg{0, 2}) || InOrder(l) {
		t.Errorf("layout %v", l)
	}
	if lo, hi := got.Slots(); lo != 0 || hi != 6 {
		t.Errorf("slots [%d, %d)", lo, hi)
	}
}

func describe(n Node) string {
	switch x := n.(type) {
	case *Scan:
		return x.Name
	case *Join:
		return "(" + describe(x.Left) + " JOIN " + describe(x.Right) + ")"
	}
	return "?"
}

// starScans makes a scope and scans of the named relations (columns v, k,
// k2 each) of the given row counts, in slot order.
func starScans(rows map[string]int64, names ...string) (*expr.Scope, map[string]*Scan) {
	s := expr.NewScope()
	scans := map[string]*Scan{}
	for i, n := range names {
		s.Add(n, nil, []string{"v", "k", "k2"})
		scans[n] = &Scan{Name: n, Table: sizedTable{rows[n]}, Lo: 3 * i, Hi: 3*i + 3, Spec: ScanSpec{Limit: -1}}
	}
	return s, scans
}

// commaJoin is FROM names[0], names[1], ... as written (left-deep).
func commaJoin(scans map[string]*Scan, names ...string) Node {
	var root Node = scans[names[0]]
	for _, n := range names[1:] {
		root = &Join{Kind: Inner, Left: root, Right: scans[n]}
	}
	return root
}

// TestReorderJoinsBuildsFilteredDimensionChain is TPC-H Q5's and Q8's
// shape: a fact table f keyed to a dimension d, itself keyed to n, keyed
// to a filtered r (r.v = 1 keeps one of r's 5 rows). The fact table
// streams once and the three dimensions are joined first, into one build
// side of about a fifth of d's rows, instead of f's rows going through a
// join per dimension before the filter on r drops four fifths of them.
func TestReorderJoinsBuildsFilteredDimensionChain(t *testing.T) {
	s, sc := starScans(map[string]int64{"f": 1_000_000, "d": 10_000, "n": 25, "r": 5}, "f", "d", "n", "r")
	root := commaJoin(sc, "f", "d", "n", "r")
	PushFilters(root, bound(t, s, "f.k = d.k AND d.k2 = n.k AND n.k2 = r.k AND r.v = 1"), s)
	got := ReorderJoins(context.Background(), root, s, nil)
	if d := describe(got); d != "(f JOIN (d JOIN (n JOIN r)))" {
		t.Fatalf("order: want (f JOIN (d JOIN (n JOIN r))), got %s", d)
	}
	top := got.(*Join)
	if fmtList(texts(top.On)) != "[`f.k` = `d.k`]" {
		t.Errorf("top join's condition: %v", texts(top.On))
	}
	if l := Layout(got); len(l) != 4 || !InOrder(l) {
		t.Errorf("layout %v", l)
	}
}

// TestReorderJoinsSelectiveDimensionFirst: of two dimensions of the same
// size, the one a predicate filters is joined to the fact table first,
// so the second join probes a tenth of the fact rows.
func TestReorderJoinsSelectiveDimensionFirst(t *testing.T) {
	s, sc := starScans(map[string]int64{"f": 1_000_000, "a": 1_000, "b": 1_000}, "f", "a", "b")
	root := commaJoin(sc, "f", "a", "b")
	PushFilters(root, bound(t, s, "f.k2 = b.k AND f.k = a.k AND a.v = 3"), s)
	got := ReorderJoins(context.Background(), root, s, nil)
	if d := describe(got); d != "((f JOIN a) JOIN b)" {
		t.Fatalf("order: want ((f JOIN a) JOIN b), got %s", d)
	}
	// Written the other way round, the same order comes out.
	s, sc = starScans(map[string]int64{"f": 1_000_000, "a": 1_000, "b": 1_000}, "f", "b", "a")
	root = commaJoin(sc, "f", "b", "a")
	PushFilters(root, bound(t, s, "f.k2 = b.k AND f.k = a.k AND a.v = 3"), s)
	if d := describe(ReorderJoins(context.Background(), root, s, nil)); d != "((f JOIN a) JOIN b)" {
		t.Fatalf("order written f, b, a: want ((f JOIN a) JOIN b), got %s", d)
	}
}

// TestReorderJoinsKeepsWrittenTree: when the written tree is the one the
// search picks, the rule keeps the same nodes (and so a USING join's
// label for EXPLAIN).
func TestReorderJoinsKeepsWrittenTree(t *testing.T) {
	s, sc := starScans(map[string]int64{"f": 1_000_000, "a": 1_000}, "f", "a")
	j := &Join{Kind: Inner, Left: sc["f"], Right: sc["a"], Using: []string{"k"}}
	PushFilters(j, bound(t, s, "f.k = a.k"), s)
	if got := ReorderJoins(context.Background(), j, s, nil); got != j || j.Left != sc["f"] || j.Right != sc["a"] {
		t.Fatalf("want the written join kept, got %s", describe(got))
	}
}

// TestSelectivity: the guesses per predicate shape that order the joins.
func TestSelectivity(t *testing.T) {
	s := expr.NewScope()
	s.Add("t", nil, []string{"a", "b"})
	for _, c := range []struct {
		cond string
		want float64
	}{
		{"t.a = 1", eqSelectivity},
		{"t.a <> 1", 1 - eqSelectivity},
		{"t.a < 1", rangeSelectivity},
		{"t.a BETWEEN 1 AND 2", rangeSelectivity},
		{"t.b LIKE 'x%'", likeSelectivity},
		{"t.b NOT LIKE 'x%'", 1 - likeSelectivity},
		{"t.a IN (1, 2)", 2 * eqSelectivity},
		{"t.a IN (1, 2, 3, 4, 5, 6, 7)", 0.5},
		{"t.a IS NULL", nullSelectivity},
		{"t.a = 1 OR t.a = 2", 2 * eqSelectivity},
		{"NOT (t.a < 1)", 1 - rangeSelectivity},
		{"t.a + t.b", predicateSelectivity},
	} {
		es := bound(t, s, c.cond)
		if len(es) != 1 {
			t.Fatalf("%s: %d conjuncts", c.cond, len(es))
		}
		if got := selectivity(es[0]); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("selectivity(%s) = %g, want %g", c.cond, got, c.want)
		}
	}
	if got := predicateRows(1000, bound(t, s, "t.a = 1 AND t.a < 5")); math.Abs(got-1000*eqSelectivity*rangeSelectivity) > 1e-9 {
		t.Errorf("predicateRows: %g", got)
	}
}

// TestReorderJoinsImpliedKey: with f.k = p.k AND s.k = f.k, p and s (a
// filtered p) have no written condition; when the equalities may chain
// the search joins them first on the implied p.k = s.k (written into that
// join) and streams f past the small result, else it keeps them apart
// (their join would be a cross product).
func TestReorderJoinsImpliedKey(t *testing.T) {
	plan := func(chainable func(l, r sqlparse.Expr) bool) Node {
		s, sc := starScans(map[string]int64{"f": 1_000_000, "p": 2_000, "s": 8_000}, "f", "p", "s")
		root := commaJoin(sc, "f", "p", "s")
		PushFilters(root, bound(t, s, "f.k = p.k AND s.k = f.k AND p.v = 1"), s)
		return ReorderJoins(context.Background(), root, s, chainable)
	}
	got := plan(func(l, r sqlparse.Expr) bool { return true })
	if d := describe(got); d != "(f JOIN (s JOIN p))" && d != "(f JOIN (p JOIN s))" {
		t.Fatalf("chained: want f JOIN (p, s), got %s", d)
	}
	low := got.(*Join).Right.(*Join)
	if on := fmtList(texts(low.On)); on != "[`s.k` = `p.k`]" && on != "[`p.k` = `s.k`]" {
		t.Errorf("chained: the join of p and s has %s", on)
	}
	if top := got.(*Join); len(top.On) != 2 {
		t.Errorf("chained: the top join has %v", texts(top.On))
	}
	if d := describe(plan(nil)); d != "((f JOIN p) JOIN s)" {
		t.Errorf("not chained: want ((f JOIN p) JOIN s), got %s", d)
	}
}
