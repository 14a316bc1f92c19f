package planner

import (
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

// TestFoldable: constant subexpressions (literals, operators, pure
// registry functions over them) are folded; anything reading a column, a
// variable, a subquery, the statement (NOW) or a lock is not, even when a
// constant sits beside it.
func TestFoldable(t *testing.T) {
	env := newRowEnv([]Column{{Name: "d", DatabaseType: "DATE"}, {Name: "s", DatabaseType: "TEXT"}})
	cases := []struct {
		expr string
		want bool
	}{
		{"DATE '1994-01-01' + INTERVAL 1 YEAR", true},
		{"0.06 - 0.01", true},
		{"CONCAT('a', REPEAT('y', 3)) LIKE 'a%'", true},
		{"1 IN (1, 2, 3)", true},
		{"d <= DATE '1998-12-01' - INTERVAL 90 DAY", false},
		{"CONCAT(s, REPEAT('y', 100))", false},
		{"REPEAT('y', 100) = s", false},
		{"NOW() + 1", false},
		{"@x + 1", false},
		{"(SELECT 1) + 1", false},
		{"GET_LOCK('a', 1)", false},
		{"1 IN (SELECT 1)", false},
	}
	for _, c := range cases {
		st, err := sqlparse.ParseOne("SELECT " + c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		e := st.(*sqlparse.Select).Items[0].Expr
		if got := env.foldable(e); got != c.want {
			t.Errorf("foldable(%s) = %v, want %v", c.expr, got, c.want)
		}
	}
}

// TestCompiledMatchesTreeWalk: compiled expressions give what the tree
// walk (evalNode over its operands, none compiled) gives, values and
// errors, on rows of every value type and NULL.
func TestCompiledMatchesTreeWalk(t *testing.T) {
	cols := []Column{{Name: "i", DatabaseType: "BIGINT"}, {Name: "p", DatabaseType: "DECIMAL(15,2)"},
		{Name: "f", DatabaseType: "DOUBLE"}, {Name: "s", DatabaseType: "TEXT"}, {Name: "d", DatabaseType: "DATE"},
		{Name: "j", DatabaseType: "JSON"}}
	rows := [][]any{
		{int64(3), "901.25", 1.5, "BRASS", mustTime("1994-03-01"), `"x"`},
		{int64(-7), "0.06", -0.0, "abc", mustTime("1995-01-01"), `12`},
		{nil, nil, nil, nil, nil, nil},
		{int64(0), "-12.50", 2.25e10, "12abc", mustTime("1993-12-31"), `{"a":1}`},
	}
	exprs := []string{
		"i + p * (1 - p)", "p * p", "-p", "-i", "NOT i", "i > 0 AND p < 100", "i > 0 OR s = 'abc'", "i XOR f",
		"p BETWEEN 0.06 - 0.01 AND 0.06 + 0.01", "p NOT BETWEEN 0.05 AND 1000", "s LIKE '%BRASS'", "s NOT LIKE 'a_c'",
		"s IS NULL", "s IS NOT NULL", "d >= DATE '1994-01-01' AND d < DATE '1994-01-01' + INTERVAL 1 YEAR",
		"EXTRACT(YEAR FROM d)", "i <=> p", "s + 1", "f * 2", "i DIV 2", "p % 3", "j = 'x'", "j = 12",
		"CASE WHEN i > 0 THEN p ELSE f END", "COALESCE(s, 'none')", "SUBSTRING(s, 1, 2) = 'BR'", "i / 0",
		"s = 'BRASS'", "f < 1e308 * 10", "+p",
	}
	for _, text := range exprs {
		st, err := sqlparse.ParseOne("SELECT " + text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		e := st.(*sqlparse.Select).Items[0].Expr
		compiled, walked := newRowEnv(cols), newRowEnv(cols)
		walked.compiled = map[sqlparse.Expr]evalFn{}
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			walked.compiled[n] = func(row []any) (any, error) { return walked.evalNode(n, row) }
			return true
		})
		for _, row := range rows {
			got, gerr := compiled.eval(e, row)
			want, werr := walked.eval(e, row)
			if fmt.Sprintf("%#v %v", got, gerr) != fmt.Sprintf("%#v %v", want, werr) {
				t.Errorf("%s on %v: %#v, %v; tree walk: %#v, %v", text, row, got, gerr, want, werr)
			}
		}
	}
}

func mustTime(s string) any {
	v, ok := timeOf(s)
	if !ok {
		panic(s)
	}
	return v
}
