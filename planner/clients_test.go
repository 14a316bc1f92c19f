package planner

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// The MySQL 8 behaviours schema tools, ORMs and migrators rely on (issue 20).
// Expected values are what MySQL 8 / MariaDB 10.11 answer for the same
// statements (checked by hand against MariaDB), adjusted where lancecat says
// what it is (utf8mb4_bin, $root).

func TestServerVariables(t *testing.T) {
	f := newDataFixture(t, Options{})
	res := f.exec("SELECT @@version, @@collation_server, @@character_set_server, @@lower_case_table_names, @@transaction_isolation, VERSION(), DATABASE()")
	want := []any{ServerVersion, "utf8mb4_bin", "utf8mb4", int64(0), "READ-COMMITTED", ServerVersion, RootSchemaName}
	if !reflect.DeepEqual(res.Rows[0], want) {
		t.Fatalf("got %v, want %v", res.Rows[0], want)
	}
	if !strings.HasPrefix(ServerVersion, "8.0.") {
		t.Fatalf("version %q does not parse as MySQL 8.0", ServerVersion)
	}
	f.exec("CREATE SCHEMA app; USE app")
	if got := f.exec("SELECT DATABASE()").Rows[0][0]; got != "app" {
		t.Fatalf("DATABASE() in app: %v", got)
	}
	if _, err := f.try("SET character_set_server = latin1"); !errors.Is(err, catalog.ErrUnsupported) {
		t.Fatalf("latin1 server charset: %v", err)
	}
	f.exec("SET foreign_key_checks = 0")
	if got := f.exec("SELECT @@foreign_key_checks").Rows[0][0]; got != int64(0) {
		t.Fatalf("foreign_key_checks: %v", got)
	}
}

// TestRootSchemaName: the root namespace is $root wherever SQL names a
// database: DATABASE(), information_schema, and qualified table names.
func TestRootSchemaName(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (i INT); CREATE SCHEMA s; CREATE TABLE s.u (i INT)")
	res := f.exec("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = DATABASE()")
	if !reflect.DeepEqual(res.Rows, [][]any{{"$root", "t"}}) {
		t.Fatalf("tables of DATABASE(): %v", res.Rows)
	}
	res = f.exec("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.schemata")
	if !reflect.DeepEqual(res.Rows, [][]any{{"$root", "utf8mb4", "utf8mb4_bin"}, {"s", "utf8mb4", "utf8mb4_bin"}}) {
		t.Fatalf("schemata: %v", res.Rows)
	}
	f.exec("INSERT INTO `$root`.t VALUES (1)")
	if got := f.exec("SELECT COUNT(*) FROM t").Rows[0][0]; got != int64(1) {
		t.Fatalf("rows via `$root`.t: %v", got)
	}
}

func TestCreateTableOptionsAndForeignKeys(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE users (id BIGINT NOT NULL AUTO_INCREMENT, name VARCHAR(64) NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB CHARSET utf8mb4 COLLATE utf8mb4_bin")
	f.exec("CREATE TABLE pets (id BIGINT NOT NULL, owner_id BIGINT NULL, PRIMARY KEY (id), CONSTRAINT pets_owner FOREIGN KEY (owner_id) REFERENCES users (id) ON DELETE SET NULL) CHARSET utf8mb4 COLLATE utf8mb4_bin")
	create := f.exec("SHOW CREATE TABLE pets").Rows[0][1].(string)
	if !strings.Contains(create, "CONSTRAINT pets_owner FOREIGN KEY (owner_id) REFERENCES users (id) ON DELETE SET NULL") {
		t.Fatalf("SHOW CREATE TABLE lost the foreign key:\n%s", create)
	}
	// SHOW CREATE TABLE's output creates the same table again.
	f.exec("CREATE SCHEMA copy; USE copy")
	f.exec(create)
	f.exec("USE `$root`")
	// information_schema as MySQL 8 shows it.
	res := f.exec("SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.key_column_usage WHERE TABLE_SCHEMA = '$root' AND TABLE_NAME = 'pets' AND REFERENCED_COLUMN_NAME IS NOT NULL")
	if !reflect.DeepEqual(res.Rows, [][]any{{"pets_owner", "owner_id", "$root", "users", "id"}}) {
		t.Fatalf("key_column_usage: %v", res.Rows)
	}
	res = f.exec("SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE, TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.referential_constraints WHERE CONSTRAINT_SCHEMA = '$root'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"pets_owner", "PRIMARY", "NO ACTION", "SET NULL", "pets", "users"}}) {
		t.Fatalf("referential_constraints: %v", res.Rows)
	}
	// ENFORCED: lancecat's writes check the primary key, not foreign keys.
	res = f.exec("SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE, ENFORCED FROM information_schema.table_constraints WHERE TABLE_SCHEMA = '$root' ORDER BY TABLE_NAME, CONSTRAINT_NAME")
	if !reflect.DeepEqual(res.Rows, [][]any{{"pets", "PRIMARY", "PRIMARY KEY", "YES"}, {"pets", "pets_owner", "FOREIGN KEY", "NO"}, {"users", "PRIMARY", "PRIMARY KEY", "YES"}}) {
		t.Fatalf("table_constraints: %v", res.Rows)
	}
	res = f.exec("SELECT ENGINE, TABLE_COLLATION, CREATE_OPTIONS, AUTO_INCREMENT FROM information_schema.tables WHERE TABLE_NAME = 'users' AND TABLE_SCHEMA = '$root'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"InnoDB", "utf8mb4_bin", "", int64(1)}}) {
		t.Fatalf("tables: %v", res.Rows)
	}
	// AUTO_INCREMENT is the next id, as MySQL's (NULL without such a column).
	f.exec("INSERT INTO users (name) VALUES ('a'), ('b')")
	res = f.exec("SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.tables WHERE TABLE_SCHEMA = '$root' ORDER BY TABLE_NAME")
	if !reflect.DeepEqual(res.Rows, [][]any{{"pets", nil}, {"users", int64(3)}}) {
		t.Fatalf("AUTO_INCREMENT: %v", res.Rows)
	}
	res = f.exec("SELECT COLUMN_NAME, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME, GENERATION_EXPRESSION FROM information_schema.columns WHERE TABLE_NAME = 'users' AND TABLE_SCHEMA = '$root'")
	want := [][]any{{"id", "bigint", nil, nil, ""}, {"name", "varchar(64)", "utf8mb4", "utf8mb4_bin", ""}}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Fatalf("columns: %v, want %v", res.Rows, want)
	}
	res = f.exec("SELECT INDEX_NAME, INDEX_TYPE, COLLATION, SUB_PART, INDEX_COMMENT, EXPRESSION FROM information_schema.statistics WHERE TABLE_NAME = 'users' AND TABLE_SCHEMA = '$root'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"PRIMARY", "BTREE", "A", nil, "", nil}}) {
		t.Fatalf("statistics: %v", res.Rows)
	}
	res = f.exec("SELECT ENGINE, SUPPORT FROM information_schema.engines")
	if !reflect.DeepEqual(res.Rows, [][]any{{"InnoDB", "DEFAULT"}}) {
		t.Fatalf("engines: %v", res.Rows)
	}
	res = f.exec("SELECT CHARACTER_SET_NAME FROM information_schema.collations WHERE COLLATION_NAME = 'utf8mb4_bin'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"utf8mb4"}}) {
		t.Fatalf("collations: %v", res.Rows)
	}
	if res := f.exec("SELECT COUNT(*) FROM information_schema.check_constraints"); res.Rows[0][0] != int64(0) {
		t.Fatalf("check_constraints: %v", res.Rows)
	}
	// Dropping the foreign key, then adding one without a name (MySQL's
	// generated <table>_ibfk_<n>).
	f.exec("ALTER TABLE pets DROP FOREIGN KEY pets_owner")
	f.exec("ALTER TABLE pets ADD FOREIGN KEY (owner_id) REFERENCES users (id)")
	res = f.exec("SELECT CONSTRAINT_NAME, DELETE_RULE FROM information_schema.referential_constraints WHERE CONSTRAINT_SCHEMA = '$root'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"pets_ibfk_1", "NO ACTION"}}) {
		t.Fatalf("after DROP/ADD FOREIGN KEY: %v", res.Rows)
	}
	if _, err := f.try("CREATE TABLE bad (a INT, FOREIGN KEY (nope) REFERENCES users (id))"); err == nil {
		t.Fatal("FOREIGN KEY on a missing column accepted")
	}
}

// TestAlterPrimaryKey: ALTER TABLE ... DROP PRIMARY KEY, ADD PRIMARY KEY
// moves Lance's unenforced primary key in one commit.
func TestAlterPrimaryKey(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (a BIGINT NOT NULL, b BIGINT NOT NULL, c INT, PRIMARY KEY (a))")
	f.exec("INSERT INTO t VALUES (1, 2, 3)")
	f.exec("ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b, a)")
	res := f.exec("SELECT COLUMN_NAME, ORDINAL_POSITION FROM information_schema.key_column_usage WHERE TABLE_SCHEMA = '$root' AND TABLE_NAME = 't' AND CONSTRAINT_NAME = 'PRIMARY'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"b", int64(1)}, {"a", int64(2)}}) {
		t.Fatalf("primary key after ALTER: %v", res.Rows)
	}
	if got := f.exec("SELECT a, b, c FROM t").Rows; !reflect.DeepEqual(got, [][]any{{int64(1), int64(2), int64(3)}}) {
		t.Fatalf("rows after ALTER: %v", got)
	}
	if _, err := f.try("ALTER TABLE t ADD PRIMARY KEY (a)"); err == nil {
		t.Fatal("second primary key accepted")
	}
	f.exec("ALTER TABLE t DROP PRIMARY KEY")
	if _, err := f.try("ALTER TABLE t ADD PRIMARY KEY (c)"); !errors.Is(err, catalog.ErrUnsupported) {
		t.Fatalf("primary key on a nullable column: %v", err)
	}
	if _, err := f.try("ALTER TABLE t DROP PRIMARY KEY"); err == nil {
		t.Fatal("DROP PRIMARY KEY without one accepted")
	}
}

// TestDMLShapes: UPDATE t AS u, DELETE t FROM t, DELETE ... ORDER BY ...
// LIMIT n (the rows MariaDB deletes for the same statements on the same
// rows).
func TestDMLShapes(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, n INT, PRIMARY KEY (id))")
	f.exec("INSERT INTO t VALUES (1, 30), (2, 10), (3, 20), (4, NULL), (5, 10)")
	ids := func() []any {
		var out []any
		for _, r := range f.exec("SELECT id FROM t ORDER BY id").Rows {
			out = append(out, r[0])
		}
		return out
	}
	f.exec("UPDATE t AS u SET u.n = u.n + 1 WHERE u.id = 1")
	if got := f.exec("SELECT n FROM t WHERE id = 1").Rows[0][0]; got != int64(31) {
		t.Fatalf("UPDATE t AS u: n = %v", got)
	}
	// NULL sorts first ascending, as in MySQL; ties keep scan order.
	res := f.exec("DELETE FROM t ORDER BY n LIMIT 2")
	if res.RowsAffected != 2 {
		t.Fatalf("DELETE ORDER BY LIMIT 2 affected %d", res.RowsAffected)
	}
	if got := ids(); !reflect.DeepEqual(got, []any{int64(1), int64(3), int64(5)}) {
		t.Fatalf("after DELETE ORDER BY n LIMIT 2: %v", got)
	}
	f.exec("DELETE FROM t WHERE n > 0 ORDER BY n DESC LIMIT 1")
	if got := ids(); !reflect.DeepEqual(got, []any{int64(3), int64(5)}) {
		t.Fatalf("after DELETE ORDER BY n DESC LIMIT 1: %v", got)
	}
	f.exec("DELETE t FROM t WHERE t.id = 3")
	if got := ids(); !reflect.DeepEqual(got, []any{int64(5)}) {
		t.Fatalf("after DELETE t FROM t: %v", got)
	}
	f.exec("DELETE FROM t LIMIT 1")
	if got := ids(); len(got) != 0 {
		t.Fatalf("after DELETE LIMIT 1: %v", got)
	}
	if _, err := f.try("DELETE x FROM t WHERE id = 1"); err == nil {
		t.Fatal("DELETE of a table not in FROM accepted")
	}
}

// TestFractionalSecondsRound: a DATETIME(0) gets '10:00:00.5' rounded up
// to 10:00:01, as MySQL 8 stores it.
func TestFractionalSecondsRound(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id INT, dt DATETIME, ts TIMESTAMP(3))")
	f.exec("INSERT INTO t VALUES (1, '2024-01-01 23:59:59.5', '2024-01-01 10:00:00.1234999')")
	got := f.exec("SELECT dt, ts FROM t").Rows[0]
	want := []string{"2024-01-02 00:00:00", "2024-01-01 10:00:00.123"}
	for i, w := range want {
		tm, ok := got[i].(interface{ Format(string) string })
		if !ok || tm.Format("2006-01-02 15:04:05.999999999") != w {
			t.Errorf("column %d: %v, want %s", i, got[i], w)
		}
	}
}

// TestColumnLabels: a column reference is labelled with its bare name, also
// grouped and backquoted (MySQL: SELECT t.name, COUNT(*) ... labels name).
func TestColumnLabels(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (name VARCHAR(10), n INT)")
	f.exec("INSERT INTO t VALUES ('a', 1), ('a', 2)")
	for _, q := range []string{
		"SELECT t.name, COUNT(*) FROM t GROUP BY t.name",
		"SELECT `name`, COUNT(*) FROM t GROUP BY `name`",
		"SELECT `t`.`name`, COUNT(*) FROM t GROUP BY `t`.`name`",
		"SELECT d.name, COUNT(*) FROM (SELECT name FROM t) AS d GROUP BY d.name",
	} {
		res := f.exec(q)
		if res.Columns[0].Name != "name" || res.Columns[1].Name != "COUNT(*)" {
			t.Errorf("%s: labels %s, %s", q, res.Columns[0].Name, res.Columns[1].Name)
		}
	}
}

// TestBinaryOperator: BINARY x (atlas writes BINARY t1.TABLE_SCHEMA = ?)
// is x compared byte by byte, as every lancecat string comparison is.
func TestBinaryOperator(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (name VARCHAR(10))")
	f.exec("INSERT INTO t VALUES ('a'), ('A')")
	res := f.exec("SELECT name FROM t WHERE BINARY name = 'a' ORDER BY BINARY name")
	if !reflect.DeepEqual(res.Rows, [][]any{{"a"}}) {
		t.Fatalf("rows %v", res.Rows)
	}
	res = f.exec("SELECT TABLE_NAME FROM information_schema.tables WHERE BINARY TABLE_SCHEMA = '$root'")
	if !reflect.DeepEqual(res.Rows, [][]any{{"t"}}) {
		t.Fatalf("information_schema rows %v", res.Rows)
	}
	res = f.exec("SELECT 1 && 0, 1 || 0")
	if !reflect.DeepEqual(res.Rows, [][]any{{false, true}}) && !reflect.DeepEqual(res.Rows, [][]any{{int64(0), int64(1)}}) {
		t.Fatalf("&& and ||: %v", res.Rows)
	}
}
