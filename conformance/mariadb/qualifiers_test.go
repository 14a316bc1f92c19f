package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// qualifierTables: a reporting hierarchy and a one-row table.
var qualifierTables = []string{
	"CREATE TABLE staff (id BIGINT NOT NULL, boss BIGINT)",
	"INSERT INTO staff VALUES (1, NULL), (2, 1), (3, 1), (4, 2), (5, 4)",
	"CREATE TABLE t (a BIGINT, b BIGINT)",
	"INSERT INTO t VALUES (1, 10), (2, 20)",
}

// failBoth runs q in both engines and checks both refuse it with the
// MySQL error number want (lancecat puts it in its message).
func failBoth(t *testing.T, my, lc *sql.DB, q string, want uint16) {
	t.Helper()
	ctx := context.Background()
	_, werr := queryCells(ctx, my, q)
	var me *mysql.MySQLError
	if !errors.As(werr, &me) || me.Number != want {
		t.Errorf("%s: MariaDB %v, want error %d (the comparison assumes it)", q, werr, want)
	}
	_, gerr := queryCells(ctx, lc, q)
	if gerr == nil || !strings.Contains(gerr.Error(), fmt.Sprintf("MySQL error %d", want)) {
		t.Errorf("%s: lancecat %v, want MySQL error %d", q, gerr, want)
	}
}

// TestQualifiersMatchMariaDB: an outer reference inside a derived table
// or CTE of a subquery (MariaDB 10.11 refuses it with 1054; lancecat read
// the inner table's column of the same name and answered zeros), and a
// qualifier naming no table in scope, in each clause, under an alias
// (which hides the table's name), and in DELETE and UPDATE; next to the
// spellings both engines answer, compared row by row.
func TestQualifiersMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, qualifierTables...)
	for _, q := range []string{
		"SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = staff.id) d) AS n FROM staff",
		"SELECT id, (WITH d AS (SELECT s.id FROM staff s WHERE s.boss = staff.id) SELECT COUNT(*) FROM d) AS n FROM staff",
		"SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = o.id) d) AS n FROM staff o",
		"SELECT id, (SELECT MAX(x) FROM (SELECT o.id AS x FROM staff s) d) AS n FROM staff o",
		"SELECT id FROM staff o WHERE EXISTS (SELECT 1 FROM (SELECT s.id FROM staff s WHERE s.boss = o.id) d)",
		"SELECT id FROM staff o WHERE id IN (WITH d AS (SELECT s.boss FROM staff s WHERE s.id > o.id) SELECT boss FROM d)",
		"SELECT o.id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = o.id) d) AS n FROM staff o JOIN t ON t.a = o.id",
		"SELECT x.a FROM t",
		"SELECT t.a FROM t AS u",
		"SELECT a FROM t WHERE x.a = 1",
		"SELECT a FROM t GROUP BY x.a",
		"SELECT COUNT(*) FROM t HAVING x.a > 0",
		"SELECT a FROM t ORDER BY x.a",
		"SELECT (SELECT x.a FROM t) FROM t",
		"SELECT (SELECT COUNT(*) FROM (SELECT t.a FROM t u) d) FROM t",
		"SELECT d.a FROM (SELECT a FROM t) AS e",
		"WITH d AS (SELECT a FROM t) SELECT t.a FROM d",
	} {
		failBoth(t, my, lc, q, 1054)
	}
	failBoth(t, my, lc, "SELECT x.* FROM t", 1051)
	failBoth(t, my, lc, "SELECT t.* FROM t AS u", 1051)
	for _, s := range []string{"DELETE FROM t WHERE x.a = 1", "UPDATE t SET b = 0 WHERE x.a = 1", "UPDATE t AS u SET b = 0 WHERE t.a = 1"} {
		_, werr := my.Exec(s)
		_, gerr := lc.Exec(s)
		var me *mysql.MySQLError
		if !errors.As(werr, &me) || me.Number != 1054 || gerr == nil || !strings.Contains(gerr.Error(), "MySQL error 1054") {
			t.Errorf("%s: MariaDB %v, lancecat %v, want 1054 from both", s, werr, gerr)
		}
	}
	for _, q := range []string{
		"SELECT a, b FROM t ORDER BY a", // the refused DML changed nothing
		"SELECT id, (SELECT COUNT(*) FROM staff s WHERE s.boss = staff.id) AS n FROM staff ORDER BY id",
		"SELECT id, (SELECT COUNT(*) FROM (SELECT id, boss FROM staff) d WHERE d.boss = staff.id) AS n FROM staff ORDER BY id",
		"SELECT id, (WITH d AS (SELECT id, boss FROM staff) SELECT COUNT(*) FROM d WHERE d.boss = o.id) AS n FROM staff o ORDER BY id",
		"SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = id) d) AS n FROM staff ORDER BY id",
		"SELECT o.id, (SELECT COUNT(*) FROM staff s WHERE s.boss = o.id) AS n FROM staff o JOIN t ON t.a = o.id ORDER BY o.id",
		"SELECT u.a, u.b FROM t AS u WHERE u.a > 1",
		"SELECT t.a FROM t ORDER BY t.a",
		"SELECT diff.t.a FROM t ORDER BY 1",
		"SELECT (SELECT t.b FROM staff u WHERE u.id = t.a) AS x FROM t ORDER BY x",
		"SELECT e.a FROM (SELECT a FROM t) AS e ORDER BY e.a",
		"WITH d AS (SELECT a FROM t) SELECT x.a FROM d AS x ORDER BY x.a",
		// SELECT DISTINCT ordered through the table's own qualifier (it
		// runs over a derived table or as a GROUP BY: the qualifier once
		// failed as "neither aggregated nor named in GROUP BY").
		"SELECT DISTINCT * FROM t ORDER BY t.a DESC",
		"SELECT DISTINCT * FROM t AS u ORDER BY u.b",
		"SELECT DISTINCT a FROM t ORDER BY t.a DESC",
		"SELECT DISTINCT t.a + 1 FROM t ORDER BY a + 1 DESC",
	} {
		compareQuery(t, my, lc, q, true)
	}
	execBoth(t, my, lc,
		"UPDATE t AS u SET b = 5 WHERE u.a = 1",
		"DELETE FROM staff WHERE EXISTS (SELECT 1 FROM t WHERE t.a = staff.boss AND t.b = 5)")
	compareQuery(t, my, lc, "SELECT id, boss FROM staff ORDER BY id", true)
	compareQuery(t, my, lc, "SELECT a, b FROM t ORDER BY a", true)
}

// TestSchemaQualifiersMatchMariaDB: db.t.col where db is not the table's
// schema (compared case-sensitively; a derived table or CTE has none) is
// 1054 in MariaDB (db.t.* 1051), in every clause, over a join, in a
// correlated subquery and in DELETE/UPDATE; lancecat accepted it and read
// t.col. The table's own schema is accepted by both, also with the
// table's alias (db.alias.col).
func TestSchemaQualifiersMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc, qualifierTables...)
	for _, q := range []string{
		"SELECT nope.t.a FROM t",
		"SELECT a FROM t WHERE nope.t.a = 1",
		"SELECT a FROM t ORDER BY nope.t.a",
		"SELECT a FROM t GROUP BY nope.t.a",
		"SELECT a FROM t GROUP BY a HAVING nope.t.a > 0",
		"SELECT diff.t.a FROM t AS u",
		"SELECT DIFF.t.a FROM t",
		"SELECT diff.d.a FROM (SELECT a FROM t) AS d",
		"WITH c AS (SELECT a FROM t) SELECT diff.c.a FROM c",
		"SELECT nope.t.a FROM t JOIN staff ON staff.id = t.a",
		"SELECT t.a FROM t JOIN staff ON staff.id = nope.t.a",
		"SELECT t.a FROM t JOIN staff ON staff.id = t.a WHERE nope.staff.boss IS NULL",
		"SELECT t.a FROM t JOIN staff ON staff.id = t.a ORDER BY nope.staff.boss",
		"SELECT a, (SELECT COUNT(*) FROM staff WHERE staff.boss = nope.t.a) FROM t",
		"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM staff WHERE staff.boss = nope.t.a)",
	} {
		failBoth(t, my, lc, q, 1054)
	}
	failBoth(t, my, lc, "SELECT nope.t.* FROM t", 1051)
	failBoth(t, my, lc, "SELECT nope.t.* FROM t JOIN staff ON staff.id = t.a", 1051)
	for _, s := range []string{"DELETE FROM t WHERE nope.t.a = 1", "UPDATE t SET b = 0 WHERE nope.t.a = 1", "UPDATE t SET nope.t.b = 0"} {
		_, werr := my.Exec(s)
		_, gerr := lc.Exec(s)
		var me *mysql.MySQLError
		if !errors.As(werr, &me) || me.Number != 1054 || gerr == nil || !strings.Contains(gerr.Error(), "MySQL error 1054") {
			t.Errorf("%s: MariaDB %v, lancecat %v, want 1054 from both", s, werr, gerr)
		}
	}
	for _, q := range []string{
		"SELECT a, b FROM t ORDER BY a", // the refused DML changed nothing
		"SELECT diff.t.a, diff.t.b FROM t WHERE diff.t.a > 1 ORDER BY diff.t.a",
		"SELECT diff.u.a FROM t AS u ORDER BY diff.u.a",
		"SELECT diff.u.* FROM t AS u ORDER BY a",
		"SELECT diff.u.a, diff.s.id FROM t u JOIN staff s ON diff.s.boss = diff.u.a ORDER BY 1, 2",
		"SELECT (SELECT COUNT(*) FROM staff WHERE staff.boss = diff.u.a) AS n FROM t u ORDER BY n",
		"SELECT diff.t.a FROM diff.t GROUP BY diff.t.a HAVING diff.t.a < 2",
		"SELECT diff.t.* FROM t ORDER BY a",
		"SELECT diff.t.a, diff.staff.id FROM t JOIN staff ON diff.staff.boss = diff.t.a ORDER BY 1, 2",
		"SELECT a, (SELECT COUNT(*) FROM staff WHERE staff.boss = diff.t.a) AS n FROM t ORDER BY a",
	} {
		compareQuery(t, my, lc, q, true)
	}
	execBoth(t, my, lc, "UPDATE t SET diff.t.b = 7 WHERE diff.t.a = 1", "DELETE FROM t WHERE diff.t.a = 2")
	compareQuery(t, my, lc, "SELECT a, b FROM t ORDER BY a", true)
}
