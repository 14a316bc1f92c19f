package plan

import (
	"context"
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
// as the cross product a x b; the rule streams the biggest relation (b),
// builds the one an equality connects to it (c), then a, with each
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
	got := ReorderJoins(context.Background(), root, s)
	top, ok := got.(*Join)
	if !ok {
		t.Fatalf("root %T", got)
	}
	low, ok := top.Left.(*Join)
	if !ok || low.Left != b || low.Right != c || top.Right != a {
		t.Fatalf("order: want (b JOIN c) JOIN a, got %s", describe(got))
	}
	if fmtList(texts(low.On)) != "[`b.k` = `c.k`]" || fmtList(texts(top.On)) != "[`a.k` = `c.k`]" {
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
