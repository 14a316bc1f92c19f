package plan

import (
	"testing"

	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// tree builds `a <kind> b` over a scope with a(x, k), b(y, k).
func tree(t *testing.T, kind JoinKind) (*Join, *expr.Scope) {
	s := expr.NewScope()
	s.Add("a", nil, []string{"x", "k"})
	s.Add("b", nil, []string{"y", "k"})
	j := &Join{Kind: kind, Left: &Scan{Name: "a", Lo: 0, Hi: 2}, Right: &Scan{Name: "b", Lo: 2, Hi: 4}}
	return j, s
}

func bound(t *testing.T, s *expr.Scope, cond string) []sqlparse.Expr {
	t.Helper()
	st, err := sqlparse.ParseOne("SELECT 1 FROM x WHERE " + cond)
	if err != nil {
		t.Fatal(err)
	}
	e, err := (&expr.Binder{Scope: s}).BindAll(st.(*sqlparse.Select).Where, "where clause")
	if err != nil {
		t.Fatal(err)
	}
	return Conjuncts(e)
}

func texts(es []sqlparse.Expr) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.String())
	}
	return out
}

func TestPushFilters(t *testing.T) {
	cases := []struct {
		kind                     JoinKind
		where                    string
		wantA, wantB, wantOn, up string
	}{
		// Inner: single-side conjuncts go into the scans, the equality into the join.
		{Inner, "a.x = 1 AND b.y > 2 AND a.k = b.k", "[x = 1]", "[y > 2]", "[`a.k` = `b.k`]", "[]"},
		// LEFT: a filter on the NULL-padded right side stays above the join.
		{Left, "a.x = 1 AND b.y IS NULL AND a.k = b.k", "[x = 1]", "[]", "[]", "[`b.y` IS NULL `a.k` = `b.k`]"},
		// RIGHT: the left side is the padded one.
		{Right, "a.x = 1 AND b.y = 2", "[]", "[y = 2]", "[]", "[`a.x` = 1]"},
		// Subqueries never move.
		{Inner, "a.x IN (SELECT 1)", "[]", "[]", "[]", "[`a.x` IN (SELECT 1)]"},
	}
	for _, tc := range cases {
		j, s := tree(t, tc.kind)
		rest := PushFilters(j, bound(t, s, tc.where), s)
		a, b := j.Left.(*Scan), j.Right.(*Scan)
		got := [4]string{fmtList(texts(a.Spec.Predicates)), fmtList(texts(b.Spec.Predicates)), fmtList(texts(j.On)), fmtList(texts(rest))}
		want := [4]string{tc.wantA, tc.wantB, tc.wantOn, tc.up}
		if got != want {
			t.Errorf("kind %d WHERE %s:\n got  %q\n want %q", tc.kind, tc.where, got, want)
		}
	}
	// ON of a LEFT JOIN: a right-only conjunct filters the right scan, a
	// left-only one stays in the condition; the equality becomes a key.
	j, s := tree(t, Left)
	j.On = bound(t, s, "a.k = b.k AND b.y = 3 AND a.x = 4")
	PushFilters(j, nil, s)
	SplitJoinKeys(j, s, func(l, r sqlparse.Expr) bool { return true })
	if got := fmtList(texts(j.Right.(*Scan).Spec.Predicates)); got != "[y = 3]" {
		t.Errorf("right scan: %s", got)
	}
	if got := fmtList(texts(j.On)); got != "[`a.x` = 4]" || len(j.Keys) != 1 || j.Strategy() != "HashJoin" {
		t.Errorf("ON %s, keys %v", got, j.Keys)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
