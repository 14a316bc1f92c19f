package planner

import (
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestVersionsErrors: the typed errors of time travel, tags, restore, vacuum and the lifecycle
// statements, and the versions they read.
func TestVersionsErrors(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, PRIMARY KEY (id))")
	f.exec("INSERT INTO t VALUES (1)")      // v2
	f.exec("INSERT INTO t VALUES (2), (3)") // v3
	f.exec("CALL create_tag('t', 'gold', 2)")
	if got := f.rows("SELECT COUNT(*) FROM t AS OF TIMESTAMP table_tag('gold')"); got[0][0] != int64(1) {
		t.Fatalf("AS OF gold: %v", got)
	}
	if got := f.rows("SELECT COUNT(*) FROM t AS OF TIMESTAMP table_version(3)"); got[0][0] != int64(3) {
		t.Fatalf("AS OF version 3: %v", got)
	}
	if got := f.rows("SELECT COUNT(*) FROM t AS OF TIMESTAMP '2999-01-01 00:00:00'"); got[0][0] != int64(3) {
		t.Fatalf("AS OF the future: %v", got)
	}
	if got := f.rows("SELECT COUNT(*) FROM (SELECT id FROM t AS OF TIMESTAMP table_version(2)) AS d"); got[0][0] != int64(1) {
		t.Fatalf("AS OF in a derived table: %v", got)
	}
	// A join reads a version per table reference.
	if got := f.rows("SELECT COUNT(*) FROM t AS a JOIN t AS b AS OF TIMESTAMP table_version(2) ON a.id = b.id"); got[0][0] != int64(1) {
		t.Fatalf("join of the latest and version 2: %v", got)
	}
	if got := f.rows("SELECT COUNT(*) FROM t AS a JOIN t AS b ON a.id = b.id"); got[0][0] != int64(3) {
		t.Fatalf("join of the latest twice: %v", got)
	}
	f.fails("SELECT * FROM t AS OF TIMESTAMP table_tag('nope')", catalog.CodeTableTagNotFound, "nope")
	f.fails("SELECT * FROM t AS OF TIMESTAMP table_version(99)", catalog.CodeTableVersionNotFound, "")
	f.fails("SELECT * FROM t AS OF TIMESTAMP '1999-01-01'", catalog.CodeTableVersionNotFound, "")
	f.fails("SELECT * FROM t AS OF TIMESTAMP 'yesterday'", catalog.CodeInvalidInput, "not a date")
	f.fails("SELECT * FROM t AS OF TIMESTAMP table_version(0)", catalog.CodeInvalidInput, "positive")
	f.fails("CALL create_tag('t', 'gold')", catalog.CodeTableTagAlreadyExists, "gold")
	f.fails("CALL create_tag('t', '../x')", catalog.CodeInvalidInput, "tag")
	f.fails("CALL delete_tag('t', 'nope')", catalog.CodeTableTagNotFound, "")
	f.fails("CALL update_tag('t', 'nope', 2)", catalog.CodeTableTagNotFound, "")
	f.fails("CALL restore_table('t', 99)", catalog.CodeTableVersionNotFound, "")
	f.fails("CALL restore_table('nosuch', 1)", catalog.CodeTableNotFound, "")
	f.fails("CALL vacuum_table('t', 'soon')", catalog.CodeInvalidInput, "retention")
	f.fails("SHOW VERSIONS FROM t WHERE Version = 1", catalog.CodeUnsupported, "SHOW VERSIONS")
	f.fails("TRUNCATE TABLE nosuch", catalog.CodeTableNotFound, "")
	f.fails("OPTIMIZE TABLE t, nosuch", catalog.CodeTableNotFound, "")
	if got := f.rows("SHOW VERSIONS FROM t"); len(got) != 3 || got[2][2] != "Append" || got[1][4] != "gold" {
		t.Fatalf("SHOW VERSIONS: %v", got)
	}
	f.exec("CALL restore_table('t', 'gold')") // v4
	if got := f.rows("SELECT COUNT(*) FROM t"); got[0][0] != int64(1) {
		t.Fatalf("after restore: %v", got)
	}
	f.exec("CALL vacuum_table('t', '0s')")
	f.fails("SELECT * FROM t AS OF TIMESTAMP table_version(3)", catalog.CodeTableVersionNotFound, "vacuum")
	if got := f.rows("SELECT VERSION FROM information_schema.table_versions WHERE TABLE_NAME = 't'"); len(got) != 2 || got[0][0] != int64(2) || got[1][0] != int64(4) {
		t.Fatalf("versions after vacuum: %v", got)
	}
}
