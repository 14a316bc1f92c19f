package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/sqlparse"
)

// recursiveTables adds an employee/manager hierarchy to the join tables.
func recursiveTables(t *testing.T, opts Options) *fixture {
	f := joinTables(t, opts)
	f.exec(`CREATE TABLE staff (id BIGINT, name VARCHAR(20), boss BIGINT)`)
	f.exec(`INSERT INTO staff VALUES (1, 'root', NULL), (2, 'ada', 1), (3, 'bob', 1), (4, 'cy', 2), (5, 'dee', 4), (6, 'eve', 3), (7, 'fay', NULL)`)
	f.exec(`CREATE TABLE edge (a BIGINT, b BIGINT)`)
	f.exec(`INSERT INTO edge VALUES (1, 2), (2, 3), (3, 1), (3, 4)`)
	return f
}

// TestRecursiveCTE: number sequences, Fibonacci, a hierarchy walk joining
// a table, UNION DISTINCT ending a cyclic graph walk, several recursive
// blocks, a recursive CTE beside plain ones and referenced twice.
func TestRecursiveCTE(t *testing.T) {
	f := recursiveTables(t, Options{})
	cases := []struct{ sql, want string }{
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c", "1 | 2 | 3 | 4 | 5"},
		{"WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT c.n * 2 FROM c WHERE c.n < 40) SELECT SUM(n), COUNT(*) FROM c", "127,7"},
		{"WITH RECURSIVE fib (k, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT k + 1, b, a + b FROM fib WHERE k < 10) SELECT k, a FROM fib ORDER BY k DESC LIMIT 3", "10,34 | 9,21 | 8,13"},
		// The hierarchy under ada, with each one's depth and path.
		{"WITH RECURSIVE h (id, name, lvl, path) AS (SELECT id, name, 0, CAST(name AS CHAR(200)) FROM staff WHERE name = 'ada' " +
			"UNION ALL SELECT s.id, s.name, h.lvl + 1, CONCAT(h.path, '/', s.name) FROM staff s JOIN h ON s.boss = h.id) SELECT name, lvl, path FROM h ORDER BY lvl, name",
			"ada,0,ada | cy,1,ada/cy | dee,2,ada/cy/dee"},
		// The recursive table on the left of a LEFT JOIN.
		{"WITH RECURSIVE up (id, boss) AS (SELECT id, boss FROM staff WHERE id = 5 UNION ALL SELECT s.id, s.boss FROM up LEFT JOIN staff s ON s.id = up.boss WHERE up.boss IS NOT NULL) SELECT id FROM up", "5 | 4 | 2 | 1"},
		// A cycle: UNION DISTINCT stops when nothing new appears.
		{"WITH RECURSIVE r (n) AS (SELECT 1 UNION SELECT e.b FROM edge e JOIN r ON e.a = r.n) SELECT n FROM r ORDER BY n", "1 | 2 | 3 | 4"},
		{"WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n FROM r WHERE n < 0) SELECT COUNT(*) FROM r", "1"},
		{"WITH RECURSIVE r (n) AS (SELECT 2 UNION SELECT 2 UNION SELECT n FROM r) SELECT n FROM r", "2"},
		// Two recursive blocks, an anchor of two SELECTs.
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT 10 UNION ALL SELECT n + 1 FROM c WHERE n < 3 UNION ALL SELECT n + 100 FROM c WHERE n < 2) SELECT n FROM c ORDER BY n", "1 | 2 | 3 | 10 | 101"},
		// Beside a plain CTE, which the recursive part reads; referenced twice.
		{"WITH RECURSIVE lim AS (SELECT 3 AS m), c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c, lim WHERE n < lim.m) SELECT a.n, b.n FROM c a JOIN c b ON b.n = a.n + 1 ORDER BY a.n", "1,2 | 2,3"},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 4) SELECT name, n FROM c JOIN staff ON staff.id = c.n WHERE c.n IN (SELECT x.n FROM c x WHERE x.n > 2) ORDER BY name", "bob,3 | cy,4"},
		// A subquery's own WITH (this failed with "table d does not exist"
		// when the query around it had none: its outer references were
		// looked for before its CTEs were inlined).
		{"SELECT name FROM staff WHERE id IN (WITH d (id) AS (SELECT 2) SELECT id FROM d) ORDER BY name", "ada"},
		{"SELECT name FROM staff WHERE id IN (WITH RECURSIVE d (id) AS (SELECT 2 UNION ALL SELECT s.id FROM staff s JOIN d ON s.boss = d.id) SELECT id FROM d) ORDER BY name", "ada | cy | dee"},
		{"SELECT (WITH RECURSIVE d (id) AS (SELECT 2 UNION ALL SELECT id + 1 FROM d WHERE id < 5) SELECT SUM(id) FROM d)", "14"},
		// WITH RECURSIVE over CTEs that do not name themselves.
		{"WITH RECURSIVE a AS (SELECT 1 AS x) SELECT x FROM a", "1"},
		// A fraction into the anchor's integer column is rounded (as MySQL and MariaDB store it).
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 0.5 FROM c WHERE n < 3) SELECT n FROM c", "1 | 2 | 3"},
		{"WITH RECURSIVE c (n) AS (SELECT -1 UNION ALL SELECT n - 0.5 FROM c WHERE n > -3) SELECT n FROM c", "-1 | -2 | -3"},
		// A number into the anchor's text column becomes text.
		{"WITH RECURSIVE c (k, s) AS (SELECT 1, 'a' UNION ALL SELECT k + 1, k * 10 FROM c WHERE k < 3) SELECT k, s FROM c", "1,a | 2,10 | 3,20"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
	// A finished statement leaves no working table (and its rows) in the
	// session.
	if n := len(f.s.working); n != 0 {
		t.Errorf("%d working tables left in the session", n)
	}
	// CREATE TABLE ... AS and INSERT ... SELECT over a recursive CTE.
	f.exec("CREATE TABLE seq AS WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c")
	f.exec("INSERT INTO seq WITH RECURSIVE c (n) AS (SELECT 10 UNION ALL SELECT n + 1 FROM c WHERE n < 12) SELECT n FROM c")
	if got := show(f.rows("SELECT n FROM seq ORDER BY n")); got != "1 | 2 | 3 | 4 | 5 | 10 | 11 | 12" {
		t.Errorf("seq: %s", got)
	}
	// lancecat's VARCHAR has no width: a recursive string longer than the
	// anchor's is kept whole (MariaDB truncates it to the anchor's
	// VARCHAR(1), or fails under strict mode; README says so).
	if got := show(f.rows("WITH RECURSIVE c (s, k) AS (SELECT 'a', 1 UNION ALL SELECT CONCAT(s, 'b'), k + 1 FROM c WHERE k < 3) SELECT s, k FROM c")); got != "a,1 | ab,2 | abb,3" {
		t.Errorf("strings: %s", got)
	}
}

// TestRecursiveCTEDepth: @@cte_max_recursion_depth bounds the iterations
// (MySQL's error 3636 one past it, the boundary itself runs), is set with
// SET SESSION and shown by SHOW VARIABLES; an infinite recursion ends with
// the error.
func TestRecursiveCTEDepth(t *testing.T) {
	f := recursiveTables(t, Options{})
	if got := show(f.rows("SHOW VARIABLES LIKE 'cte_max_recursion_depth'")); got != "cte_max_recursion_depth,1000" {
		t.Fatalf("SHOW VARIABLES: %s", got)
	}
	seq := func(m int) string {
		return "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < " + itoa(m) + ") SELECT COUNT(*) FROM c"
	}
	if got := show(f.rows(seq(1000))); got != "1000" {
		t.Errorf("1000 rows: %s", got)
	}
	depthErr := func(sql string, n int64) {
		t.Helper()
		_, err := f.try(sql)
		var de *exec.DepthError
		if !errors.As(err, &de) || de.Iterations != n || !errors.Is(err, exec.ErrRecursionDepth) ||
			!strings.Contains(err.Error(), "Recursive query aborted after "+itoa(int(n))+" iterations. Try increasing @@cte_max_recursion_depth to a larger value.") {
			t.Errorf("%s: %v", sql, err)
		}
	}
	depthErr(seq(1001), 1001)
	depthErr("WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c", 1001)
	depthErr("WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n FROM c) SELECT COUNT(*) FROM c", 1001)
	// 1 + 0.4 rounds back to 1 in the anchor's integer column: no end.
	depthErr("WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 0.4 FROM c WHERE n < 3) SELECT COUNT(*) FROM c", 1001)
	f.exec("SET SESSION cte_max_recursion_depth = 5")
	if got := show(f.rows("SELECT @@cte_max_recursion_depth")); got != "5" {
		t.Errorf("@@cte_max_recursion_depth: %s", got)
	}
	if got := show(f.rows(seq(5))); got != "5" {
		t.Errorf("5 rows at depth 5: %s", got)
	}
	depthErr(seq(6), 6)
	f.exec("SET cte_max_recursion_depth = 0")
	depthErr(seq(7), 1)
	if got := show(f.rows("WITH RECURSIVE c (n) AS (SELECT 1 FROM staff WHERE id < 0 UNION ALL SELECT n + 1 FROM c) SELECT COUNT(*) FROM c")); got != "0" {
		t.Errorf("empty anchor: %s", got)
	}
	f.fails("SET cte_max_recursion_depth = -1", catalog.CodeInvalidInput, "cte_max_recursion_depth")
	f.fails("SET cte_max_recursion_depth = 'x'", catalog.CodeInvalidInput, "cte_max_recursion_depth")
	f.exec("SET cte_max_recursion_depth = DEFAULT")
	if got := show(f.rows("SELECT @@cte_max_recursion_depth")); got != "1000" {
		t.Errorf("DEFAULT: %s", got)
	}
}

// TestRecursiveCTEBudget: the rows a recursion holds are charged to the
// query's memory budget, so one making ever larger rows ends with the
// budget error before the depth limit.
func TestRecursiveCTEBudget(t *testing.T) {
	f := recursiveTables(t, Options{JoinMemory: 64 << 10})
	f.exec("SET cte_max_recursion_depth = 100000")
	_, err := f.try("WITH RECURSIVE c (n, s) AS (SELECT 1, CAST('x' AS CHAR(10)) UNION ALL SELECT n + 1, CONCAT(s, REPEAT('y', 100)) FROM c) SELECT COUNT(*) FROM c")
	var be *exec.BudgetError
	if !errors.As(err, &be) || !strings.Contains(be.Operator, "recursive common table expression c") {
		t.Fatalf("got %v, want the budget error", err)
	}
	// UNION DISTINCT keeps the key of every row: a recursion of distinct
	// rows is bounded too.
	_, err = f.try("WITH RECURSIVE c (n) AS (SELECT 1 UNION SELECT n + 1 FROM c) SELECT COUNT(*) FROM c")
	if !errors.As(err, &be) {
		t.Fatalf("UNION DISTINCT: got %v, want the budget error", err)
	}
}

// TestRecursiveCTERefused: MySQL's restrictions on the recursive query
// block, each a positioned error naming the CTE.
func TestRecursiveCTERefused(t *testing.T) {
	f := recursiveTables(t, Options{})
	for _, tc := range []struct {
		sql, msg string
		col      int
	}{
		{"WITH RECURSIVE c (n) AS (SELECT n + 1 FROM c) SELECT * FROM c", "should contain a UNION (MySQL error 3573)", 25},
		{"WITH RECURSIVE c (n) AS (SELECT n + 1 FROM c UNION ALL SELECT 1) SELECT * FROM c", "non-recursive query blocks followed by one or more recursive ones (MySQL error 3574)", 25},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT COUNT(*) FROM c WHERE n < 3) SELECT * FROM c", "neither aggregation nor window functions in the recursive query block (MySQL error 3575): an aggregate", 52},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT ROW_NUMBER() OVER () + n FROM c WHERE n < 3) SELECT * FROM c", "(MySQL error 3575): a window function", 52},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 GROUP BY n) SELECT * FROM c", "(MySQL error 3575): GROUP BY", 86},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT DISTINCT n + 1 FROM c WHERE n < 3) SELECT * FROM c", "DISTINCT is not allowed in the recursive query block", 61},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM c WHERE n < 3 ORDER BY n)) SELECT * FROM c", "ORDER BY is not allowed", 87},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM c WHERE n < 3 LIMIT 1)) SELECT * FROM c", "LIMIT in the recursive query block", 53},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 LIMIT 1) SELECT * FROM c", "ORDER BY or LIMIT over the whole query", 25},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < (SELECT MAX(n) FROM c)) SELECT * FROM c", "referenced only once, and not in any subquery (MySQL error 3577)", 52},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT a.n + 1 FROM c a JOIN c b ON a.n = b.n WHERE a.n < 3) SELECT * FROM c", "(MySQL error 3577)", 52},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT c.n + 1 FROM staff LEFT JOIN c ON c.n = staff.id WHERE c.n < 3) SELECT * FROM c", "right argument of a LEFT JOIN", 52},
		{"WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 UNION SELECT n + 2 FROM c WHERE n < 3) SELECT * FROM c", "mix of UNION ALL and UNION DISTINCT", 25},
		{"WITH RECURSIVE c (n) AS (SELECT 1 EXCEPT SELECT n + 1 FROM c WHERE n < 3) SELECT * FROM c", "should contain a UNION (MySQL error 3573)", 25},
		{"WITH RECURSIVE c (n, m) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT * FROM c", "MySQL error 1353", 28},
	} {
		_, err := f.try(tc.sql)
		var pe *sqlparse.Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, tc.msg) || !strings.Contains(pe.Msg, " c") || pe.Pos.Line != 1 || pe.Pos.Column != tc.col {
			t.Errorf("%s\n got %v\n want %q at column %d", tc.sql, err, tc.msg, tc.col)
		}
	}
	// A value the anchor's type has no conversion for.
	f.fails("WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT 'x' FROM c WHERE n = 1) SELECT * FROM c", catalog.CodeInvalidInput, "MySQL error 1366")
}

// TestRecursiveCTEExplain: EXPLAIN shows the recursive CTE with its anchor
// and recursive legs, the working table under the recursive one.
func TestRecursiveCTEExplain(t *testing.T) {
	f := recursiveTables(t, Options{})
	var lines []string
	for _, r := range f.rows("EXPLAIN WITH RECURSIVE h (id, lvl) AS (SELECT id, 0 FROM staff WHERE boss IS NULL UNION ALL SELECT s.id, h.lvl + 1 FROM staff s JOIN h ON s.boss = h.id) SELECT id FROM h WHERE lvl > 1") {
		lines = append(lines, r[0].(string))
	}
	text := strings.Join(lines, "\n")
	at := func(sub string) int {
		i := strings.Index(text, sub)
		if i < 0 {
			t.Fatalf("EXPLAIN lacks %q:\n%s", sub, text)
		}
		return i
	}
	rec, anchor, legs, work := at("RecursiveCTE h UNION ALL"), at("Anchor\n"), at("Recursive\n"), at("WorkingTable h (the rows of the previous iteration)")
	at("at most 1000 iterations (cte_max_recursion_depth)")
	at("TableScan staff")
	if !(rec < anchor && anchor < legs && legs < work) {
		t.Errorf("EXPLAIN order:\n%s", text)
	}
}
