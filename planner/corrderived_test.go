package planner

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
)

// staffTable: a reporting hierarchy (1 has two reports, 2 one).
func staffTable(t *testing.T) *fixture {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE staff (id INT NOT NULL, boss INT)`)
	f.exec(`INSERT INTO staff VALUES (1, NULL), (2, 1), (3, 1), (4, 2)`)
	return f
}

// failsUnknown asserts sql fails with MySQL's 1054 (code InvalidInput)
// and a message naming ref.
func (f *fixture) failsUnknown(sql, ref string) {
	f.t.Helper()
	_, err := f.try(sql)
	if err == nil {
		f.t.Errorf("%s: no error, want unknown column %s", sql, ref)
		return
	}
	if c, _ := catalog.CodeOf(err); c != catalog.CodeInvalidInput || !errors.Is(err, expr.ErrUnknownColumn) || !strings.Contains(err.Error(), ref) {
		f.t.Errorf("%s: got %v (code %v), want InvalidInput / MySQL 1054 naming %s", sql, err, c, ref)
	}
}

// TestCorrelatedRefInDerivedTable: a reference to the outer query from
// inside a derived table or CTE of a subquery was resolved by column name
// against the inner table (every count 0). MariaDB 10.11 refuses it with
// 1054 (conformance/mariadb/qualifiers_test.go), and so does lancecat,
// with a message saying why; the same correlation written in the
// subquery's own WHERE is answered.
func TestCorrelatedRefInDerivedTable(t *testing.T) {
	f := staffTable(t)
	for _, c := range []struct{ sql, ref string }{
		{"SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = staff.id) d) AS n FROM staff", "staff.id"},
		{"SELECT id, (WITH d AS (SELECT s.id FROM staff s WHERE s.boss = staff.id) SELECT COUNT(*) FROM d) AS n FROM staff", "staff.id"},
		{"SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = o.id) d) AS n FROM staff o", "o.id"},
		{"SELECT id, (SELECT MAX(x) FROM (SELECT o.id AS x FROM staff s) d) AS n FROM staff o", "o.id"},
		{"SELECT id FROM staff o WHERE EXISTS (SELECT 1 FROM (SELECT s.id FROM staff s WHERE s.boss = o.id) d)", "o.id"},
		{"SELECT id FROM staff o WHERE id IN (SELECT d.boss FROM (SELECT s.boss FROM staff s WHERE s.id = o.id) d)", "o.id"},
		{"SELECT id FROM staff o WHERE id IN (WITH d AS (SELECT s.boss FROM staff s WHERE s.id > o.id) SELECT boss FROM d)", "o.id"},
		// An outer join's relation, bound through expr.Scope.BindOuter.
		{"SELECT o.id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = o.id) d) AS n FROM staff o JOIN staff p ON p.id = o.id", "o.id"},
	} {
		f.failsUnknown(c.sql, c.ref)
	}
	_, err := f.try("SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = staff.id) d) AS n FROM staff")
	if err == nil || !strings.Contains(err.Error(), "derived table or CTE") {
		t.Errorf("the error does not say why the column is unknown: %v", err)
	}
	// The correlation in the subquery's own expressions, over a derived
	// table or a CTE, reads the outer row.
	for _, q := range []string{
		"SELECT id, (SELECT COUNT(*) FROM staff s WHERE s.boss = staff.id) AS n FROM staff ORDER BY id",
		"SELECT id, (SELECT COUNT(*) FROM (SELECT id, boss FROM staff) d WHERE d.boss = staff.id) AS n FROM staff ORDER BY id",
		"SELECT id, (WITH d AS (SELECT id, boss FROM staff) SELECT COUNT(*) FROM d WHERE d.boss = o.id) AS n FROM staff o ORDER BY id",
	} {
		if got := fmt.Sprint(f.rows(q)); got != "[[1 2] [2 1] [3 0] [4 0]]" {
			t.Errorf("%s: got %s", q, got)
		}
	}
	// Unqualified, the name resolves in the nearest FROM that has it: the
	// derived table's own (MariaDB answers the same zeros).
	q := "SELECT id, (SELECT COUNT(*) FROM (SELECT s.id FROM staff s WHERE s.boss = id) d) AS n FROM staff ORDER BY id"
	if got := fmt.Sprint(f.rows(q)); got != "[[1 0] [2 0] [3 0] [4 0]]" {
		t.Errorf("%s: got %s", q, got)
	}
}

// TestQualifierNamesNoTable: a single-source query read x.a as its own
// column a whatever x named. A qualifier must name the FROM's relation
// (its alias when it has one: the alias hides the table's name), in
// every clause, as in MySQL; DELETE and UPDATE too, and a correlated
// subquery of theirs names the target by its alias.
func TestQualifierNamesNoTable(t *testing.T) {
	f := subqueryTables(t)
	for _, c := range []struct{ sql, ref string }{
		{"SELECT x.id FROM o", "x.id"},
		{"SELECT o.id FROM o AS u", "o.id"},
		{"SELECT id FROM o WHERE x.id = 1", "x.id"},
		{"SELECT cust FROM o GROUP BY x.cust", "x.cust"},
		{"SELECT cust FROM o GROUP BY cust HAVING x.cust > ''", "x.cust"},
		{"SELECT id FROM o ORDER BY x.id", "x.id"},
		{"SELECT d.id FROM (SELECT id FROM o) AS t", "d.id"},
		{"WITH d AS (SELECT id FROM o) SELECT o.id FROM d", "o.id"},
		{"SELECT x.a", "x.a"},
		{"SELECT id, ROW_NUMBER() OVER (ORDER BY x.id) FROM o", "x.id"},
		{"SELECT (SELECT x.name FROM c LIMIT 1) FROM o", "x.name"},
		{"DELETE FROM o WHERE x.id = 1", "x.id"},
		{"UPDATE o AS a SET total = 0 WHERE o.id = 1", "o.id"},
		{"UPDATE o SET x.total = 0", "x.total"},
	} {
		f.failsUnknown(c.sql, c.ref)
	}
	f.fails("SELECT x.* FROM o", catalog.CodeInvalidInput, "unknown table x")
	f.fails("SELECT o.* FROM o AS u", catalog.CodeInvalidInput, "unknown table o")
	// Nothing was deleted or changed by the refused statements.
	if got := fmt.Sprint(f.rows("SELECT COUNT(*), SUM(total) FROM o")); got != "[[6 530]]" {
		t.Errorf("after the refused DML: %s", got)
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT o.id FROM o WHERE o.id < 3 ORDER BY o.id", "[[1] [2]]"},
		{"SELECT u.id FROM o AS u WHERE u.id < 3 ORDER BY u.id", "[[1] [2]]"},
		{"SELECT u.* FROM c AS u WHERE u.tier = 1", "[[ada 1]]"},
		{"SELECT t.dbl FROM (SELECT total * 2 AS dbl FROM o WHERE id = 1) AS t", "[[200]]"},
		{"WITH d AS (SELECT id FROM o) SELECT d.id FROM d WHERE d.id > 5", "[[6]]"},
		{"WITH d AS (SELECT id FROM o) SELECT x.id FROM d AS x WHERE x.id > 5", "[[6]]"},
		// A subquery's qualified reference to the query around it.
		{"SELECT (SELECT o.total FROM c WHERE c.name = o.cust) FROM o WHERE o.id = 2", "[[50]]"},
		{"SELECT (SELECT COUNT(*) FROM c u WHERE u.name = o.cust) FROM o WHERE id = 1", "[[1]]"},
	} {
		if got := fmt.Sprint(f.rows(c.sql)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
	// DML through the alias, and a correlated subquery naming it.
	f.exec("UPDATE o AS a SET total = 1 WHERE a.id = 1")
	f.exec("DELETE FROM o AS a WHERE EXISTS (SELECT 1 FROM c WHERE c.name = a.cust AND c.tier = 2)")
	if got := fmt.Sprint(f.rows("SELECT id, total FROM o ORDER BY id")); got != "[[1 1] [3 300] [4 10] [5 <nil>]]" {
		t.Errorf("after UPDATE/DELETE through the alias: %s", got)
	}
}
