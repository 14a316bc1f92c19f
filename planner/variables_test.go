package planner

import (
	"reflect"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestSessionVariables: what clients send around their statements: SET
// NAMES, session SET, SHOW VARIABLES; values lancecat cannot honour are
// refused, the others are kept per session and reset with the session.
func TestSessionVariables(t *testing.T) {
	f := newFixture(t)
	f.exec("SET NAMES utf8mb4")
	f.exec("SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'")
	f.exec("SET SESSION sql_mode = 'STRICT_TRANS_TABLES', @@session.time_zone = '+00:00', autocommit = 1")
	f.exec("SET character_set_results = NULL")
	got := f.exec("SHOW VARIABLES LIKE 'collation_connection'").Rows
	if want := [][]any{{"collation_connection", "utf8mb4_general_ci"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("SHOW VARIABLES LIKE: %v, want %v", got, want)
	}
	got = f.exec("SHOW SESSION VARIABLES WHERE Variable_name IN ('sql_mode', 'autocommit', 'time_zone')").Rows
	if want := [][]any{{"autocommit", "ON"}, {"sql_mode", "STRICT_TRANS_TABLES"}, {"time_zone", "+00:00"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("SHOW VARIABLES WHERE: %v, want %v", got, want)
	}
	if got := f.exec("SHOW GLOBAL VARIABLES LIKE 'sql_mode'").Rows; got[0][1] != "" {
		t.Errorf("GLOBAL shows the session's value: %v", got)
	}
	f.exec("SET my_tool_flag = 3")
	if got := f.exec("SHOW VARIABLES LIKE 'my_tool%'").Rows; !reflect.DeepEqual(got, [][]any{{"my_tool_flag", "3"}}) {
		t.Errorf("unknown session variable: %v", got)
	}
	f.fails("SET NAMES latin1", catalog.CodeUnsupported, "character set latin1")
	f.fails("SET time_zone = 'Europe/Paris'", catalog.CodeUnsupported, "UTC")
	f.fails("SET autocommit = 0", catalog.CodeUnsupported, "BEGIN ... COMMIT")
	f.fails("SET GLOBAL sql_mode = ''", catalog.CodeUnsupported, "SET GLOBAL")
	f.fails("SET @x = 1", catalog.CodeUnsupported, "user variable @x")
	f.fails("SET sql_mode = 'A', autocommit = 0", catalog.CodeUnsupported, "autocommit")
	if got := f.exec("SHOW VARIABLES LIKE 'sql_mode'").Rows; got[0][1] != "STRICT_TRANS_TABLES" {
		t.Errorf("a refused SET changed sql_mode: %v", got)
	}
	f.s.Reset()
	if got := f.exec("SHOW VARIABLES LIKE 'sql_mode'").Rows; got[0][1] != "" {
		t.Errorf("after Reset: %v", got)
	}
	// Allowed inside a transaction.
	f.exec("BEGIN")
	f.exec("SET NAMES utf8mb4")
	f.exec("COMMIT")
}
