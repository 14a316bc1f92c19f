package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// recursiveTables are an employee/manager hierarchy and a graph with a
// cycle, for the WITH RECURSIVE comparisons.
var recursiveTables = []string{
	"CREATE TABLE staff (id BIGINT NOT NULL, name VARCHAR(16), boss BIGINT, PRIMARY KEY (id))",
	"INSERT INTO staff VALUES (1, 'root', NULL), (2, 'ada', 1), (3, 'bob', 1), (4, 'cy', 2), (5, 'dee', 4), (6, 'eve', 3), (7, 'fay', NULL), (8, 'gus', 5)",
	"CREATE TABLE edge (a BIGINT, b BIGINT)",
	"INSERT INTO edge VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (2, 5)",
}

// TestRecursiveCTEsMatchMariaDB runs WITH RECURSIVE queries in both
// engines: number sequences, Fibonacci, hierarchy walks joining a table
// (down from a node with depth and path, up from a leaf), a cyclic graph
// walked with UNION DISTINCT (which ends when nothing new appears) and
// with UNION ALL bounded by a depth column, several anchor and recursive
// blocks, a recursive CTE next to a plain one and referenced twice, and a
// fraction rounded into the anchor's integer column.
func TestRecursiveCTEsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, recursiveTables...)
	for _, q := range []string{
		"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10) SELECT n FROM c ORDER BY n",
		"WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT c.n * 2 FROM c WHERE c.n < 1000) SELECT SUM(n), COUNT(*), MAX(n) FROM c",
		"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT COUNT(*), SUM(n) FROM c",
		"WITH RECURSIVE fib (k, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT k + 1, b, a + b FROM fib WHERE k < 40) SELECT k, a, b FROM fib ORDER BY k",
		"WITH RECURSIVE h (id, name, lvl, path) AS (SELECT id, name, 0, CAST(name AS CHAR(200)) FROM staff WHERE boss IS NULL " +
			"UNION ALL SELECT s.id, s.name, h.lvl + 1, CONCAT(h.path, '/', s.name) FROM staff s JOIN h ON s.boss = h.id) SELECT id, name, lvl, path FROM h ORDER BY id",
		"WITH RECURSIVE h (id, lvl) AS (SELECT id, 0 FROM staff WHERE name = 'ada' UNION ALL SELECT s.id, h.lvl + 1 FROM h JOIN staff s ON s.boss = h.id) SELECT h.lvl, s.name FROM h JOIN staff s ON s.id = h.id ORDER BY h.lvl, s.name",
		"WITH RECURSIVE up (id, boss, hops) AS (SELECT id, boss, 0 FROM staff WHERE name = 'gus' UNION ALL SELECT s.id, s.boss, up.hops + 1 FROM up JOIN staff s ON s.id = up.boss) SELECT id, boss, hops FROM up ORDER BY hops",
		"WITH RECURSIVE up (id, boss) AS (SELECT id, boss FROM staff WHERE id = 5 UNION ALL SELECT s.id, s.boss FROM up LEFT JOIN staff s ON s.id = up.boss WHERE up.boss IS NOT NULL) SELECT id, boss FROM up",
		"WITH RECURSIVE r (n) AS (SELECT 1 UNION SELECT e.b FROM edge e JOIN r ON e.a = r.n) SELECT n FROM r ORDER BY n",
		"WITH RECURSIVE r (n) AS (SELECT 1 UNION DISTINCT SELECT e.b FROM r JOIN edge e ON e.a = r.n) SELECT COUNT(*) FROM r",
		"WITH RECURSIVE r (n, d) AS (SELECT 1, 0 UNION ALL SELECT e.b, r.d + 1 FROM edge e JOIN r ON e.a = r.n WHERE r.d < 6) SELECT n, d FROM r ORDER BY d, n",
		"WITH RECURSIVE r (n, d) AS (SELECT 1, 0 UNION SELECT e.b, r.d + 1 FROM edge e JOIN r ON e.a = r.n WHERE r.d < 6) SELECT n, d FROM r ORDER BY d, n",
		"WITH RECURSIVE r (n) AS (SELECT 2 UNION SELECT 2 UNION SELECT n FROM r) SELECT n FROM r",
		"WITH RECURSIVE r (n) AS (SELECT 1 FROM staff WHERE id < 0 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
		"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT 10 UNION ALL SELECT n + 1 FROM c WHERE n < 3 UNION ALL SELECT n + 100 FROM c WHERE n < 2) SELECT n FROM c ORDER BY n",
		"WITH RECURSIVE lim AS (SELECT 4 AS m), c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c, lim WHERE n < lim.m) SELECT a.n, b.n FROM c a JOIN c b ON b.n = a.n + 1 ORDER BY a.n",
		"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 6) SELECT s.name, c.n FROM c JOIN staff s ON s.id = c.n WHERE c.n IN (SELECT x.n FROM c x WHERE x.n > 3) ORDER BY c.n",
		"SELECT name FROM staff WHERE id IN (WITH RECURSIVE d (id) AS (SELECT 2 UNION ALL SELECT s.id FROM staff s JOIN d ON s.boss = d.id) SELECT id FROM d) ORDER BY name",
		"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 0.5 FROM c WHERE n < 4) SELECT n FROM c ORDER BY n",
		"WITH RECURSIVE c (k, s) AS (SELECT 1, CAST('a' AS CHAR(20)) UNION ALL SELECT k + 1, k * 10 FROM c WHERE k < 4) SELECT k, s FROM c ORDER BY k",
		"WITH RECURSIVE a AS (SELECT 1 AS x) SELECT x FROM a",
	} {
		compareQuery(t, my, lc, q, true)
	}
}

// TestRecursiveCTEDepthMatchesMariaDB: MariaDB 10.11 has no
// cte_max_recursion_depth; its max_recursive_iterations stops a recursion
// (with warning 1931 and the rows so far) exactly where MySQL's limit
// fails with error 3636. Both limits at N: a recursion of N iterations
// gives the same rows in both engines; one more makes MariaDB warn and
// lancecat fail with MySQL's error.
func TestRecursiveCTEDepthMatchesMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	ctx := context.Background()
	mc, err := my.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	lconn, err := lc.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lconn.Close()
	if _, err := mc.ExecContext(ctx, "SET SESSION max_recursive_iterations = 7"); err != nil {
		t.Fatal(err)
	}
	if _, err := lconn.ExecContext(ctx, "SET SESSION cte_max_recursion_depth = 7"); err != nil {
		t.Fatal(err)
	}
	var name, val string
	if err := lconn.QueryRowContext(ctx, "SHOW VARIABLES LIKE 'cte_max_recursion_depth'").Scan(&name, &val); err != nil || val != "7" {
		t.Fatalf("SHOW VARIABLES: %q %q %v", name, val, err)
	}
	seq := func(m string) string {
		return "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < " + m + ") SELECT n FROM c ORDER BY n"
	}
	// Within the limit (7 rows: 6 iterations make rows, the 7th none).
	for _, q := range []string{seq("7"), "WITH RECURSIVE c (n) AS (SELECT 1 UNION SELECT n % 3 + 1 FROM c) SELECT n FROM c ORDER BY n"} {
		want, werr := queryCells(ctx, mc, q)
		got, gerr := queryCells(ctx, lconn, q)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: MariaDB %v, lancecat %v", q, werr, gerr)
		}
		if msg := compareResults(Query{SQL: q, Ordered: true}, want.rows, got.rows); msg != "" {
			t.Errorf("%s\n  %s", q, msg)
		}
		if w := warnings(ctx, t, mc); w != "" {
			t.Errorf("%s: MariaDB warns %s", q, w)
		}
	}
	// Past it: an 8th iteration would be needed.
	for _, q := range []string{seq("8"), "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n FROM c) SELECT n FROM c"} {
		want, werr := queryCells(ctx, mc, q)
		if werr != nil || len(want.rows) != 8 {
			t.Fatalf("%s: MariaDB %d rows, %v", q, len(want.rows), werr)
		}
		if w := warnings(ctx, t, mc); !strings.Contains(w, "1931") {
			t.Errorf("%s: MariaDB warnings %q, want 1931", q, w)
		}
		_, gerr := queryCells(ctx, lconn, q)
		if gerr == nil || !strings.Contains(gerr.Error(), "Recursive query aborted after 8 iterations. Try increasing @@cte_max_recursion_depth to a larger value.") {
			t.Errorf("%s: lancecat %v, want MySQL's error 3636", q, gerr)
		}
	}
}

func warnings(ctx context.Context, t *testing.T, c *sql.Conn) string {
	t.Helper()
	rows, err := c.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var level, code, msg string
		if err := rows.Scan(&level, &code, &msg); err != nil {
			t.Fatal(err)
		}
		out = append(out, code+" "+msg)
	}
	return strings.Join(out, "; ")
}

// TestRecursiveCTERestrictionsMatchMariaDB: the recursive query blocks
// MariaDB refuses (error 4008 under its default standard_compliant_cte, or
// 1235), lancecat refuses with MySQL's error and the line and column.
// MariaDB runs GROUP BY and DISTINCT in a recursive block (reading rows
// of earlier iterations again); lancecat refuses them as MySQL does, which
// planner's TestRecursiveCTERefused checks.
func TestRecursiveCTERestrictionsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, recursiveTables...)
	ctx := context.Background()
	for _, tc := range []struct {
		sql     string
		mariaDB uint16
		mysql   string
	}{
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT COUNT(*) FROM c WHERE n < 3) SELECT * FROM c", 4008, "MySQL error 3575"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT ROW_NUMBER() OVER () + n FROM c WHERE n < 3) SELECT * FROM c", 4008, "MySQL error 3575"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < (SELECT MAX(n) FROM c)) SELECT * FROM c", 4008, "MySQL error 3577"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT a.n + 1 FROM c a JOIN c b ON a.n = b.n WHERE a.n < 3) SELECT * FROM c", 4008, "MySQL error 3577"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT c.n + 1 FROM staff LEFT JOIN c ON c.n = staff.id WHERE c.n < 3) SELECT * FROM c", 4008, "MySQL error 3576"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 ORDER BY n) SELECT * FROM c", 1235, "ORDER BY or LIMIT over the whole query"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 LIMIT 2) SELECT * FROM c", 1235, "ORDER BY or LIMIT over the whole query"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION SELECT 2 UNION ALL SELECT n + 1 FROM c WHERE n < 3 UNION SELECT n + 2 FROM c WHERE n < 3) SELECT * FROM c", 1235, "mix of UNION ALL and UNION DISTINCT"},
	} {
		_, werr := queryCells(ctx, my, tc.sql)
		var me *mysql.MySQLError
		if !errors.As(werr, &me) || me.Number != tc.mariaDB {
			t.Errorf("%s: MariaDB %v, want error %d", tc.sql, werr, tc.mariaDB)
		}
		_, gerr := queryCells(ctx, lc, tc.sql)
		if gerr == nil || !strings.Contains(gerr.Error(), tc.mysql) || !strings.Contains(gerr.Error(), "line 1 column ") {
			t.Errorf("%s: lancecat %v, want %q at a line and column", tc.sql, gerr, tc.mysql)
		}
	}
}

// TestCTEColumnListsMatchMariaDB: a CTE's column list over a set
// operation (UNION, UNION ALL, EXCEPT, INTERSECT) and over SELECT * (of a
// table, of a join whose star repeats a name) renames the columns, with
// the labels and rows MariaDB gives; a wrong count is an error in both
// (MariaDB's 4002, MySQL's 1353, which lancecat gives). lancecat refused
// these before.
func TestCTEColumnListsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, qualifierTables...)
	for _, q := range []string{
		"WITH c(v) AS (SELECT 1 UNION SELECT 2) SELECT * FROM c ORDER BY v",
		"WITH c(v, w) AS (SELECT a, b FROM t UNION ALL SELECT id, boss FROM staff) SELECT w, v FROM c WHERE v > 1 ORDER BY v, w",
		"WITH c(v) AS (SELECT id FROM staff EXCEPT SELECT a FROM t) SELECT v FROM c ORDER BY v",
		"WITH c(v) AS (SELECT id FROM staff INTERSECT SELECT a FROM t) SELECT c.v FROM c ORDER BY c.v",
		"WITH c(x, y) AS (SELECT * FROM t) SELECT y, x FROM c ORDER BY x",
		"WITH c(x, y) AS (SELECT * FROM t) SELECT * FROM c WHERE y > 10",
		"WITH c(a1, b1, id2, boss2) AS (SELECT * FROM t JOIN staff ON staff.id = t.a) SELECT * FROM c ORDER BY a1",
		"WITH c(v) AS (SELECT 1 UNION SELECT 2) SELECT p.v, q.v AS v2 FROM c p JOIN c q ON q.v = p.v + 1",
		"SELECT id FROM staff WHERE id IN (WITH c(v) AS (SELECT a FROM t UNION SELECT 4) SELECT v FROM c) ORDER BY id",
		"WITH c(v) AS (SELECT 5 UNION SELECT 6), d(w) AS (SELECT * FROM c) SELECT SUM(w) FROM d",
	} {
		compareQuery(t, my, lc, q, true)
	}
	for _, q := range []string{
		"WITH c(v, w) AS (SELECT 1 UNION SELECT 2) SELECT * FROM c",
		"WITH c(v) AS (SELECT * FROM t) SELECT * FROM c",
	} {
		_, werr := my.Query(q)
		_, gerr := lc.Query(q)
		var me *mysql.MySQLError
		if !errors.As(werr, &me) || me.Number != 4002 || gerr == nil || !strings.Contains(gerr.Error(), "MySQL error 1353") {
			t.Errorf("%s: MariaDB %v (want 4002), lancecat %v (want 1353)", q, werr, gerr)
		}
	}
}
