package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// gormUsers is the CREATE TABLE GORM's MySQL migrator sends for a model
// with gorm.Model, a unique index and a default.
const gormUsers = "CREATE TABLE `users` (`id` bigint unsigned AUTO_INCREMENT,`created_at` datetime(3) NULL," +
	"`updated_at` datetime(3) NULL,`deleted_at` datetime(3) NULL,`name` varchar(64) COMMENT 'full name'," +
	"`email` varchar(191) NOT NULL,`age` int DEFAULT 18,`joined` timestamp(3) NULL DEFAULT CURRENT_TIMESTAMP(3)," +
	"PRIMARY KEY (`id`),INDEX `idx_users_deleted_at` (`deleted_at`),UNIQUE INDEX `idx_users_email` (`email`))"

// TestCreateTableColumnOptions: AUTO_INCREMENT, DEFAULT and index clauses are
// kept in the Lance schema and shown by DESCRIBE, SHOW CREATE TABLE, SHOW
// INDEX and information_schema.columns; the index clauses are Lance indices.
func TestCreateTableColumnOptions(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(gormUsers)
	got := f.rows("DESCRIBE users")
	want := [][]any{
		{"id", "BIGINT UNSIGNED", "NO", "PRI", nil, "auto_increment"},
		{"created_at", "DATETIME(3)", "YES", "", nil, ""},
		{"updated_at", "DATETIME(3)", "YES", "", nil, ""},
		{"deleted_at", "DATETIME(3)", "YES", "MUL", nil, ""},
		{"name", "VARCHAR(64)", "YES", "", nil, ""},
		{"email", "VARCHAR(191)", "NO", "UNI", nil, ""},
		{"age", "INT", "YES", "", "18", ""},
		{"joined", "TIMESTAMP(3)", "YES", "", "CURRENT_TIMESTAMP(3)", "DEFAULT_GENERATED"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DESCRIBE:\n got %v\nwant %v", got, want)
	}
	sc := f.rows("SHOW CREATE TABLE users")[0][1].(string)
	for _, part := range []string{"id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,", "age INT DEFAULT 18,",
		"joined TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP(3),", "PRIMARY KEY (id),",
		"KEY idx_users_deleted_at (deleted_at),", "UNIQUE KEY idx_users_email (email)\n)"} {
		if !strings.Contains(sc, part) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", part, sc)
		}
	}
	// The rendered statement re-creates the same columns and indices.
	f.exec(strings.Replace(sc, "CREATE TABLE users", "CREATE TABLE users2", 1))
	if got2 := f.rows("DESCRIBE users2"); !reflect.DeepEqual(got2, want) {
		t.Errorf("DESCRIBE of the re-created table:\n got %v\nwant %v", got2, want)
	}
	idx := f.rows("SHOW INDEX FROM users")
	var names []string
	for _, r := range idx {
		names = append(names, r[2].(string)+"/"+r[6].(string)+"/"+toString(r[1]))
	}
	if want := []string{"PRIMARY/UNENFORCED/0", "idx_users_deleted_at/BTREE/1", "idx_users_email/BTREE/0"}; !reflect.DeepEqual(names, want) {
		t.Errorf("SHOW INDEX: %v, want %v", names, want)
	}
	cols := f.rows("SELECT COLUMN_NAME, COLUMN_DEFAULT, COLUMN_KEY, EXTRA FROM information_schema.columns WHERE TABLE_NAME = 'users' AND COLUMN_NAME IN ('id', 'email', 'age', 'joined')")
	wantCols := [][]any{{"id", nil, "PRI", "auto_increment"}, {"email", nil, "UNI", ""}, {"age", "18", "", ""}, {"joined", "CURRENT_TIMESTAMP(3)", "", "DEFAULT_GENERATED"}}
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("information_schema.columns:\n got %v\nwant %v", cols, wantCols)
	}
}

// TestCreateTableOptionsInTransaction: goose creates its version table
// inside a transaction; the declared indices are built at COMMIT.
func TestCreateTableOptionsInTransaction(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("BEGIN")
	f.exec("CREATE TABLE goose_db_version (id serial NOT NULL, version_id bigint NOT NULL, is_applied boolean NOT NULL, tstamp timestamp NULL default now(), PRIMARY KEY(id))")
	if got := f.rows("SHOW TABLES"); len(got) != 0 {
		t.Fatalf("table visible before COMMIT: %v", got)
	}
	f.exec("COMMIT")
	idx := f.rows("SHOW INDEX FROM goose_db_version")
	if len(idx) != 2 || idx[1][2] != "id" || idx[1][1] != int64(0) {
		t.Errorf("SHOW INDEX after COMMIT: %v", idx)
	}
	d := f.rows("DESCRIBE goose_db_version")
	if d[0][5] != "auto_increment" || d[3][4] != "CURRENT_TIMESTAMP" {
		t.Errorf("DESCRIBE: %v", d)
	}
}

func TestColumnOptionErrors(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.fails("CREATE TABLE e (a INT NOT NULL DEFAULT NULL)", catalog.CodeInvalidInput, "cannot default to NULL")
	f.fails("CREATE TABLE e (a INT DEFAULT 'x')", catalog.CodeInvalidInput, "DEFAULT 'x' of column a (INT): 'x' is not an integer")
	f.fails("CREATE TABLE e (a TINYINT DEFAULT 300)", catalog.CodeInvalidInput, "DEFAULT 300 of column a")
	f.fails("CREATE TABLE e (a INT, KEY k (a), KEY k (a))", catalog.CodeInvalidInput, "duplicate index name k")
	f.fails("CREATE TABLE e (a JSON, KEY (a))", catalog.CodeUnsupported, "")
	f.fails("CREATE TABLE e (a INT UNIQUE, UNIQUE KEY (a))", catalog.CodeInvalidInput, "two UNIQUE indices")
	if got := f.rows("SHOW TABLES LIKE 'e'"); len(got) != 0 {
		t.Errorf("a failed CREATE TABLE left %v", got)
	}
}
