package mariadb

import "testing"

// sqlfeatTables are the tables the issue 15 feature tests (window
// functions, GROUP_CONCAT, COUNT(DISTINCT a, b), WITH RECURSIVE) read in
// both engines.
var sqlfeatTables = []string{
	"CREATE TABLE emp (id BIGINT NOT NULL, dept VARCHAR(8), name VARCHAR(16), salary BIGINT, bonus DOUBLE, PRIMARY KEY (id))",
	"INSERT INTO emp VALUES (1, 'eng', 'ada', 120, 1.5), (2, 'eng', 'bob', 100, NULL), (3, 'eng', 'cy', 100, 2.5), " +
		"(4, 'ops', 'dee', 80, 0.5), (5, 'ops', 'eve', 95, NULL), (6, 'hr', 'fay', 70, 1), (7, NULL, 'gus', 60, 3), " +
		"(8, 'eng', 'hal', 130, NULL), (9, 'ops', 'ivy', 80, 2), (10, 'hr', NULL, 75, 0)",
	"CREATE TABLE dept (dept VARCHAR(8), region VARCHAR(8))",
	"INSERT INTO dept VALUES ('eng', 'north'), ('ops', 'south'), ('hr', 'north')",
}

// TestWindowFunctionsMatchMariaDB runs window function queries in both
// engines: ranking, distribution, LAG/LEAD, value functions, aggregates
// over ROWS and RANGE frames (and MySQL's default frames), named windows,
// several windows in one SELECT, window results in ORDER BY, over one
// table, over a join and over groups. Every query has an outer ORDER BY
// giving a total order.
func TestWindowFunctionsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, sqlfeatTables...)
	for _, q := range []string{
		"SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM emp ORDER BY id",
		"SELECT id, ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS rn FROM emp ORDER BY id",
		"SELECT id, RANK() OVER (ORDER BY salary), DENSE_RANK() OVER (ORDER BY salary) FROM emp ORDER BY id",
		"SELECT id, dept, RANK() OVER (PARTITION BY dept ORDER BY salary DESC) FROM emp ORDER BY id",
		"SELECT id, PERCENT_RANK() OVER (ORDER BY salary), CUME_DIST() OVER (ORDER BY salary) FROM emp ORDER BY id",
		"SELECT id, PERCENT_RANK() OVER (PARTITION BY dept ORDER BY salary), CUME_DIST() OVER (PARTITION BY dept ORDER BY salary) FROM emp ORDER BY id",
		"SELECT id, NTILE(3) OVER (ORDER BY id), NTILE(4) OVER (PARTITION BY dept ORDER BY id), NTILE(20) OVER (ORDER BY id) FROM emp ORDER BY id",
		"SELECT id, LAG(salary) OVER (ORDER BY id), LEAD(salary) OVER (ORDER BY id) FROM emp ORDER BY id",
		// MariaDB 10.11's LAG and LEAD take no default (a third argument is
		// its error 1064); MySQL's default is checked in planner's
		// TestWindowFunctions.
		"SELECT id, LAG(salary, 2) OVER (ORDER BY id), LEAD(salary, 3) OVER (ORDER BY id), LAG(name, 0) OVER (ORDER BY id) FROM emp ORDER BY id",
		"SELECT id, LAG(salary, 1) OVER (PARTITION BY dept ORDER BY id) FROM emp ORDER BY id",
		"SELECT id, FIRST_VALUE(name) OVER (PARTITION BY dept ORDER BY id), LAST_VALUE(name) OVER (PARTITION BY dept ORDER BY id) FROM emp ORDER BY id",
		"SELECT id, LAST_VALUE(salary) OVER (PARTITION BY dept ORDER BY salary) FROM emp ORDER BY id",
		"SELECT id, NTH_VALUE(name, 2) OVER (PARTITION BY dept ORDER BY id) FROM emp ORDER BY id",
		"SELECT id, NTH_VALUE(salary, 3) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, FIRST_VALUE(salary) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER () FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (PARTITION BY dept) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (ORDER BY salary) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (ORDER BY id ROWS BETWEEN 3 FOLLOWING AND UNBOUNDED FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, COUNT(*) OVER (ORDER BY salary RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, SUM(salary) OVER (ORDER BY salary DESC RANGE BETWEEN 20 PRECEDING AND CURRENT ROW) FROM emp ORDER BY id",
		"SELECT id, MAX(salary) OVER (ORDER BY salary RANGE BETWEEN CURRENT ROW AND 15 FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, COUNT(*) OVER (ORDER BY salary RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM emp ORDER BY id",
		"SELECT id, COUNT(bonus) OVER (PARTITION BY dept), AVG(bonus) OVER (PARTITION BY dept), MIN(bonus) OVER (PARTITION BY dept), MAX(name) OVER (PARTITION BY dept) FROM emp ORDER BY id",
		"SELECT id, AVG(salary) OVER (PARTITION BY dept ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM emp ORDER BY id",
		"SELECT id, SUM(bonus) OVER (ORDER BY bonus) FROM emp ORDER BY id",
		"SELECT id, COUNT(*) OVER w, SUM(salary) OVER w FROM emp WINDOW w AS (PARTITION BY dept ORDER BY id) ORDER BY id",
		"SELECT id, ROW_NUMBER() OVER w FROM emp WINDOW w AS (ORDER BY salary DESC, id) ORDER BY id",
		"SELECT id, SUM(salary) OVER (w ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM emp WINDOW w AS (ORDER BY id) ORDER BY id",
		"SELECT id, RANK() OVER (w ORDER BY salary) FROM emp WINDOW w AS (PARTITION BY dept) ORDER BY id",
		"SELECT name, ROW_NUMBER() OVER (ORDER BY salary DESC, id) AS rn FROM emp ORDER BY rn",
		"SELECT name FROM emp ORDER BY ROW_NUMBER() OVER (ORDER BY name DESC, id), id",
		"SELECT id, salary - LAG(salary) OVER (ORDER BY id) AS delta FROM emp ORDER BY delta DESC, id",
		"SELECT id, ROW_NUMBER() OVER (ORDER BY id) * 10 + 1 FROM emp ORDER BY id LIMIT 3 OFFSET 2",
		"SELECT e.id, d.region, RANK() OVER (PARTITION BY d.region ORDER BY e.salary DESC) FROM emp e JOIN dept d ON e.dept = d.dept ORDER BY e.id",
		"SELECT e.id, SUM(e.salary) OVER (PARTITION BY d.region) FROM emp e LEFT JOIN dept d ON e.dept = d.dept ORDER BY e.id",
		"SELECT dept, SUM(salary) AS s, RANK() OVER (ORDER BY SUM(salary) DESC) FROM emp GROUP BY dept ORDER BY s, dept",
		"SELECT dept, COUNT(*), SUM(COUNT(*)) OVER () FROM emp GROUP BY dept ORDER BY dept",
		"SELECT dept, MAX(salary), LAG(MAX(salary)) OVER (ORDER BY dept) FROM emp GROUP BY dept ORDER BY dept",
		"SELECT * FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS rn FROM emp) AS ranked WHERE rn = 1 ORDER BY id",
		"SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM emp WHERE salary > 90 ORDER BY id",
		"SELECT ROW_NUMBER() OVER (), COUNT(*) OVER ()",
		// Offsets at the end of BIGINT must not wrap (MariaDB 10.11 runs
		// for ever on `18446744073709551615 FOLLOWING`: that one is in
		// planner's TestWindowHugeOffsets only).
		"SELECT id, SUM(salary) OVER (ORDER BY id ROWS BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, NTH_VALUE(salary, 9223372036854775807) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM emp ORDER BY id",
		"SELECT id, LEAD(salary, 9223372036854775807) OVER (ORDER BY id), LAG(salary, 9223372036854775807) OVER (ORDER BY id) FROM emp ORDER BY id",
	} {
		compareQuery(t, my, lc, q, true)
	}
}
