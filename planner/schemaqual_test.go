package planner

import (
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestSchemaQualifiedColumns: db.t.col names t's column only when db is
// the schema the table resolves in (the current one for FROM t; exactly,
// as lower_case_table_names is 0), also under an alias (db.alias.col, as
// MariaDB reads it; a derived table has no schema): another schema is
// MySQL's 1054 (db.t.* 1051) in every clause, through the single table
// path, a join, a correlated subquery and DELETE/UPDATE, which then change
// nothing. It was accepted and read t.col whatever db said.
func TestSchemaQualifiedColumns(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE SCHEMA app; CREATE SCHEMA other; USE app")
	f.exec("CREATE TABLE a (x BIGINT, y BIGINT)")
	f.exec("INSERT INTO a VALUES (1, 10), (2, 20), (3, 30)")
	f.exec("CREATE TABLE b (x BIGINT, z BIGINT)")
	f.exec("INSERT INTO b VALUES (1, 5), (3, 6)")
	f.exec("CREATE TABLE other.a (x BIGINT, y BIGINT)")
	f.exec("INSERT INTO other.a VALUES (7, 70)")
	for _, c := range []struct{ sql, ref string }{
		{"SELECT nope.a.x FROM a", "nope.a.x"},
		{"SELECT x FROM a WHERE nope.a.x = 1", "nope.a.x"},
		{"SELECT x FROM a ORDER BY nope.a.x", "nope.a.x"},
		{"SELECT x FROM a GROUP BY nope.a.x", "nope.a.x"},
		{"SELECT x FROM a GROUP BY x HAVING nope.a.x > 0", "nope.a.x"},
		{"SELECT other.a.x FROM a", "other.a.x"},
		{"SELECT app.a.x FROM other.a", "app.a.x"},
		{"SELECT app.a.x FROM a AS u", "app.a.x"},
		{"SELECT APP.a.x FROM a", "APP.a.x"},
		{"SELECT app.d.x FROM (SELECT x FROM a) AS d", "app.d.x"},
		{"WITH d AS (SELECT x FROM a) SELECT app.d.x FROM d", "app.d.x"},
		{"SELECT app.u.x FROM a JOIN (SELECT x FROM b) AS u ON u.x = a.x", "app.u.x"},
		{"SELECT nope.a.x FROM a JOIN b ON b.x = a.x", "nope.a.x"},
		{"SELECT a.x FROM a JOIN b ON b.x = nope.a.x", "nope.a.x"},
		{"SELECT a.x FROM a JOIN b ON b.x = a.x WHERE nope.b.z > 0", "nope.b.z"},
		{"SELECT a.x FROM a JOIN b ON b.x = a.x ORDER BY nope.b.z", "nope.b.z"},
		{"SELECT a.x, COUNT(*) FROM a JOIN b ON b.x = a.x GROUP BY nope.a.x", "nope.a.x"},
		{"SELECT x, (SELECT COUNT(*) FROM b WHERE b.x = nope.a.x) FROM a", "nope.a.x"},
		{"SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.x = nope.a.x)", "nope.a.x"},
		{"SELECT a.x FROM a JOIN b ON b.x = a.x WHERE EXISTS (SELECT 1 FROM b c WHERE c.x = nope.a.x)", "nope.a.x"},
		{"DELETE FROM a WHERE nope.a.x = 1", "nope.a.x"},
		{"UPDATE a SET y = 0 WHERE nope.a.x = 1", "nope.a.x"},
		{"UPDATE a SET nope.a.y = 0", "nope.a.y"},
		{"DELETE FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.x = nope.a.x)", "nope.a.x"},
	} {
		f.failsUnknown(c.sql, c.ref)
	}
	f.fails("SELECT nope.a.* FROM a", catalog.CodeInvalidInput, "MySQL error 1051")
	f.fails("SELECT nope.a.* FROM a JOIN b ON b.x = a.x", catalog.CodeInvalidInput, "MySQL error 1051")
	if got := fmt.Sprint(f.rows("SELECT x, y FROM a ORDER BY x")); got != "[[1 10] [2 20] [3 30]]" {
		t.Errorf("after the refused DML: %s", got)
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT app.a.x FROM a WHERE app.a.y > 10 ORDER BY app.a.x", "[[2] [3]]"},
		{"SELECT app.A.x FROM a WHERE x = 1", "[[1]]"},
		// Under an alias db.alias.col names the table (MariaDB's reading).
		{"SELECT app.u.x FROM a AS u WHERE app.u.x = 2", "[[2]]"},
		{"SELECT app.u.x, app.v.z FROM a u JOIN b v ON app.v.x = app.u.x ORDER BY app.u.x", "[[1 5] [3 6]]"},
		{"SELECT app.u.* FROM a AS u WHERE x = 3", "[[3 30]]"},
		{"SELECT app.a.x FROM app.a WHERE x = 1", "[[1]]"},
		{"SELECT other.a.x FROM other.a", "[[7]]"},
		{"SELECT app.a.* FROM a WHERE x = 2", "[[2 20]]"},
		{"SELECT app.a.x, app.b.z FROM a JOIN b ON app.b.x = app.a.x ORDER BY app.a.x", "[[1 5] [3 6]]"},
		{"SELECT app.a.x, o.y FROM app.a JOIN other.a AS o ON o.x > app.a.x WHERE app.a.x = 1", "[[1 70]]"},
		{"SELECT x, (SELECT b.z FROM b WHERE b.x = app.a.x) FROM a ORDER BY x", "[[1 5] [2 <nil>] [3 6]]"},
		{"SELECT a.x, (SELECT COUNT(*) FROM b c WHERE c.x = app.a.x) FROM a JOIN b ON b.x = a.x ORDER BY a.x", "[[1 1] [3 1]]"},
	} {
		if got := fmt.Sprint(f.rows(c.sql)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
	f.exec("UPDATE a SET app.a.y = 0 WHERE app.a.x = 1")
	f.exec("DELETE FROM a WHERE app.a.x = 3")
	if got := fmt.Sprint(f.rows("SELECT x, y FROM a ORDER BY x")); got != "[[1 0] [2 20]]" {
		t.Errorf("after UPDATE/DELETE through app.a: %s", got)
	}
	// The root's tables take RootSchemaName.
	f.exec("USE `$root`")
	f.exec("CREATE TABLE r (x BIGINT)")
	f.exec("INSERT INTO r VALUES (4)")
	if got := fmt.Sprint(f.rows("SELECT `$root`.r.x FROM r")); got != "[[4]]" {
		t.Errorf("root: %s", got)
	}
	f.failsUnknown("SELECT app.r.x FROM r", "app.r.x")
}
