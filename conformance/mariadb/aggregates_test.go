package mariadb

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAggregatesMatchMariaDB runs the aggregates beyond COUNT/SUM/AVG/MIN/
// MAX in both engines over the sqlfeat tables: GROUP_CONCAT (DISTINCT,
// ORDER BY, SEPARATOR, several arguments, NULLs, no rows, over a join, a
// derived table and a CTE), COUNT(DISTINCT a, b), BIT_AND/OR/XOR,
// STD/STDDEV/VARIANCE and their _POP and _SAMP forms, as aggregates and
// as window functions, with GROUP BY, HAVING and ORDER BY.
//
// MariaDB prints STD and VARIANCE of integers with 4 decimals (the
// column's display scale; the value is a full double): those queries add
// 0e0, which makes MariaDB print every digit.
func TestAggregatesMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, sqlfeatTables...)
	for _, q := range []string{
		"SELECT dept, GROUP_CONCAT(name ORDER BY id) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT dept, GROUP_CONCAT(name ORDER BY salary DESC, name) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT dept, GROUP_CONCAT(DISTINCT salary ORDER BY salary SEPARATOR '; ') AS s FROM emp GROUP BY dept ORDER BY s",
		"SELECT GROUP_CONCAT(name, ':', salary ORDER BY 1 DESC SEPARATOR '') FROM emp",
		"SELECT GROUP_CONCAT(bonus ORDER BY id) FROM emp",
		"SELECT GROUP_CONCAT(DISTINCT dept ORDER BY dept) FROM emp",
		"SELECT GROUP_CONCAT(DISTINCT dept, name ORDER BY name DESC) FROM emp",
		"SELECT GROUP_CONCAT(name) FROM emp WHERE id > 100",
		"SELECT dept, GROUP_CONCAT(name) FROM emp WHERE name IS NULL OR dept = 'hr' GROUP BY dept ORDER BY dept",
		"SELECT dept FROM emp GROUP BY dept HAVING GROUP_CONCAT(name ORDER BY name) LIKE '%eve%' ORDER BY dept",
		"SELECT d.region, GROUP_CONCAT(e.name ORDER BY e.id) FROM emp e JOIN dept d ON e.dept = d.dept GROUP BY d.region ORDER BY d.region",
		"SELECT GROUP_CONCAT(n ORDER BY n) FROM (SELECT dept, COUNT(*) AS n FROM emp GROUP BY dept) c",
		"WITH c AS (SELECT dept, MAX(salary) AS m FROM emp GROUP BY dept) SELECT GROUP_CONCAT(dept, '=', m ORDER BY m DESC SEPARATOR ' ') FROM c",
		"SELECT dept, COUNT(DISTINCT salary, bonus), COUNT(DISTINCT dept, salary), COUNT(DISTINCT name, salary, bonus) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT COUNT(DISTINCT salary, bonus), COUNT(DISTINCT salary) FROM emp",
		"SELECT id, (SELECT GROUP_CONCAT(name ORDER BY name) FROM emp e2 WHERE e2.dept = e.dept), (SELECT BIT_AND(salary) FROM emp e3 WHERE e3.dept = e.dept AND e3.salary > 1000) FROM emp e ORDER BY id",
		"SELECT d.dept, (SELECT COUNT(DISTINCT salary, bonus) FROM emp e WHERE e.dept = d.dept), (SELECT VAR_SAMP(bonus) FROM emp e WHERE e.dept = d.dept) FROM dept d ORDER BY d.dept",
		"SELECT dept, BIT_AND(salary), BIT_OR(salary), BIT_XOR(salary), BIT_OR(bonus), BIT_XOR(name) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT BIT_AND(salary - 100), BIT_OR(salary - 100), BIT_XOR(salary - 100) FROM emp",
		"SELECT BIT_AND(salary), BIT_OR(salary), BIT_XOR(salary), STD(salary), VAR_SAMP(salary), GROUP_CONCAT(name) FROM emp WHERE id < 0",
		"SELECT dept, STD(salary) + 0e0, STDDEV(salary) + 0e0, STDDEV_POP(salary) + 0e0, STDDEV_SAMP(salary) + 0e0 FROM emp GROUP BY dept ORDER BY dept",
		"SELECT dept, VARIANCE(salary) + 0e0, VAR_POP(salary) + 0e0, VAR_SAMP(salary) + 0e0, VAR_POP(bonus), VAR_SAMP(bonus), STDDEV_SAMP(bonus) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT dept, COUNT(*) FROM emp GROUP BY dept HAVING VAR_POP(salary) > 10 ORDER BY dept",
		"SELECT dept, STD(salary) + 0e0 AS sd FROM emp GROUP BY dept ORDER BY sd DESC, dept",
		"SELECT id, BIT_OR(salary) OVER (ORDER BY id), BIT_XOR(salary) OVER (PARTITION BY dept), BIT_AND(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM emp ORDER BY id",
		"SELECT id, STD(salary) OVER (PARTITION BY dept) + 0e0, VAR_SAMP(salary) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) + 0e0 FROM emp ORDER BY id",
	} {
		compareQuery(t, my, lc, q, false)
	}

	// group_concat_max_len is a session variable: one connection each.
	ctx := context.Background()
	myc, lcc := oneConnEach(ctx, t, my, lc)
	for _, n := range []string{"2", "7", "11"} {
		if _, err := myc.ExecContext(ctx, "SET SESSION group_concat_max_len = "+n); err != nil {
			t.Fatal(err)
		}
		if _, err := lcc.ExecContext(ctx, "SET SESSION group_concat_max_len = "+n); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"SHOW VARIABLES LIKE 'group_concat_max_len'",
			"SELECT dept, GROUP_CONCAT(name ORDER BY id) FROM emp GROUP BY dept ORDER BY dept",
			"SELECT GROUP_CONCAT(name ORDER BY name DESC) FROM emp",
			"SELECT GROUP_CONCAT(DISTINCT salary ORDER BY salary SEPARATOR '--') FROM emp",
			"SELECT GROUP_CONCAT(CONCAT(name, 'é') ORDER BY id) FROM emp", // a cut inside 'é' drops it whole
		} {
			want, werr := queryCells(ctx, myc, q)
			got, gerr := queryCells(ctx, lcc, q)
			if werr != nil || gerr != nil {
				t.Errorf("max %s: %s\n  MariaDB: %v %v\n  lancecat: %v %v", n, q, want.rows, werr, got.rows, gerr)
				continue
			}
			if msg := compareResults(Query{SQL: q, Ordered: true}, want.rows, got.rows); msg != "" {
				t.Errorf("max %s: %s\n  %s", n, q, msg)
			}
		}
	}
}

// TestJSONAggregatesMatchMariaDB: JSON_ARRAYAGG and JSON_OBJECTAGG in
// both engines, compared as JSON values: MariaDB prints them without the
// spaces lancecat's (MySQL's) JSON text has, and 2 for lancecat's 2.0.
// The order of an array's elements is unspecified (neither engine's
// order is asked for), so arrays compare as multisets.
func TestJSONAggregatesMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, sqlfeatTables...)
	ctx := context.Background()
	for _, q := range []string{
		"SELECT dept, JSON_ARRAYAGG(salary), JSON_ARRAYAGG(name), JSON_ARRAYAGG(bonus) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT dept, JSON_OBJECTAGG(name, salary) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT JSON_OBJECTAGG(id, bonus), JSON_ARRAYAGG(id) FROM emp",
		"SELECT JSON_ARRAYAGG(id), JSON_OBJECTAGG(id, name) FROM emp WHERE id < 0",
		"SELECT d.region, JSON_ARRAYAGG(e.id) FROM emp e JOIN dept d ON e.dept = d.dept GROUP BY d.region ORDER BY d.region",
	} {
		want, werr := queryCells(ctx, my, q)
		got, gerr := queryCells(ctx, lc, q)
		if werr != nil || gerr != nil || len(want.rows) != len(got.rows) {
			t.Errorf("%s\n  MariaDB: %v %v\n  lancecat: %v %v", q, want.rows, werr, got.rows, gerr)
			continue
		}
		for i := range want.rows {
			for j := range want.rows[i] {
				w, g := want.rows[i][j], got.rows[i][j]
				if w.null || g.null {
					if w.null != g.null || (!w.null && w.text != g.text) {
						t.Errorf("%s: row %d column %d: MariaDB %v, lancecat %v", q, i, j, w, g)
					}
					continue
				}
				var wv, gv any
				if err := json.Unmarshal([]byte(w.text), &wv); err != nil {
					wv = w.text
				}
				if err := json.Unmarshal([]byte(g.text), &gv); err != nil {
					gv = g.text
				}
				if !reflect.DeepEqual(sortedJSON(wv), sortedJSON(gv)) {
					t.Errorf("%s: row %d column %d: MariaDB %s, lancecat %s", q, i, j, w.text, g.text)
				}
			}
		}
	}
}

// sortedJSON is v with a top-level array's elements in one order.
func sortedJSON(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	a = slices.Clone(a)
	slices.SortFunc(a, func(x, y any) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
	return a
}
