package sqlparse

import (
	"strings"
	"testing"
)

// upperCols renames every column reference to upper case.
func upperCols(e Expr) Expr {
	if ref, ok := e.(*ColumnRef); ok {
		c := *ref
		c.Column = strings.ToUpper(ref.Column)
		return &c
	}
	return e
}

func TestRewriteCopiesAndLeavesInputAlone(t *testing.T) {
	st := parseOne(t, "SELECT a + f(b, -c) FROM t WHERE x IN (1, y) AND z BETWEEN p AND q AND NOT (s LIKE r) AND (SELECT k FROM u) > 1").(*Select)
	before := st.String()
	where := Rewrite(st.Where, upperCols)
	item := Rewrite(st.Items[0].Expr, upperCols)
	if got, want := item.String(), "A + F(B, -C)"; got != want {
		t.Errorf("item: got %s, want %s", got, want)
	}
	// Rewrite does not enter the subquery: k stays lower-case.
	if got, want := where.String(), "X IN (1,Y) AND Z BETWEEN P AND Q AND NOT (S LIKE R) AND (SELECT k FROM u) > 1"; got != want {
		t.Errorf("where: got %s, want %s", got, want)
	}
	if st.String() != before {
		t.Errorf("input modified: %s", st.String())
	}
}

func TestRewritePostOrder(t *testing.T) {
	st := parseOne(t, "SELECT (a + b) * c").(*Select)
	var seen []string
	Rewrite(st.Items[0].Expr, func(e Expr) Expr {
		seen = append(seen, e.String())
		return e
	})
	want := []string{"a", "b", "a + b", "(a + b)", "c", "(a + b) * c"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("visit order %q, want %q", seen, want)
	}
}

func TestRewriteSelectEntersNestedQueries(t *testing.T) {
	sql := "SELECT a FROM (SELECT b FROM t) AS d JOIN e ON d.b = e.c WHERE EXISTS (SELECT x FROM u WHERE u.y IN (SELECT w FROM v)) GROUP BY a HAVING a > 1 ORDER BY a"
	st := parseOne(t, sql).(*Select)
	before := st.String()
	got := RewriteSelect(st, upperCols).String()
	want := "SELECT A FROM (SELECT B FROM t) AS d JOIN e ON d.B = e.C WHERE EXISTS (SELECT X FROM u WHERE u.Y IN (SELECT W FROM v)) GROUP BY A HAVING A > 1 ORDER BY A"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if st.String() != before {
		t.Errorf("input modified: %s", st.String())
	}
	if RewriteSelect(nil, upperCols) != nil || Rewrite(nil, upperCols) != nil {
		t.Error("nil input must give nil")
	}
}
