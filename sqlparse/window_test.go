package sqlparse

import "testing"

func TestWindowAndGroupConcatConvert(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC) FROM t", "ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC)"},
		{"SELECT SUM(x) OVER w FROM t WINDOW w AS (ORDER BY b ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)", "SUM(x) OVER (ORDER BY b ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"},
		{"SELECT LAG(x, 2, 0) OVER (w ORDER BY c) FROM t WINDOW w AS (PARTITION BY a)", "LAG(x, 2, 0) OVER (PARTITION BY a ORDER BY c)"},
		{"SELECT COUNT(*) OVER () FROM t", "COUNT(*) OVER ()"},
		{"SELECT AVG(x) OVER (ORDER BY b RANGE BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) FROM t", "AVG(x) OVER (ORDER BY b RANGE BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)"},
		{"SELECT GROUP_CONCAT(DISTINCT a, b ORDER BY b DESC, a SEPARATOR '; ') FROM t", "GROUP_CONCAT(DISTINCT a, b ORDER BY b DESC, a SEPARATOR '; ')"},
		{"SELECT GROUP_CONCAT(a) FROM t", "GROUP_CONCAT(a SEPARATOR ',')"},
		{"SELECT COUNT(DISTINCT a, b) FROM t", "COUNT(DISTINCT a, b)"},
	} {
		st, err := ParseOne(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got := st.(*Select).Items[0].Expr.String()
		if got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{
		"SELECT SUM(x) OVER w FROM t",
		"SELECT 1 FROM t WINDOW w AS (), w AS ()",
	} {
		if _, err := ParseOne(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
