package planner

import (
	"fmt"
	"strings"
	"testing"
)

// warnings runs SHOW WARNINGS and returns its rows as "Level Code
// Message" lines.
func (f *fixture) warnings() string {
	f.t.Helper()
	res := f.exec("SHOW WARNINGS")
	var out []string
	for _, r := range res.Rows {
		out = append(out, fmt.Sprintf("%v %v %v", r[0], r[1], r[2]))
	}
	return strings.Join(out, "\n")
}

// TestExpressionWarnings: division by zero and text converted to a number
// raise MariaDB's warnings, once per evaluation (not again when planning
// evaluates a constant to type it), and the area is kept and cleared as
// MariaDB's (conformance/mariadb/warnings_test.go compares the same with
// MariaDB itself).
func TestExpressionWarnings(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("SELECT 1/0, 5 DIV 0, 5 % 0, MOD(5, 0), 'abc' + 1, '1 ' + 0, 1 = 'x', 1.5e0 < 'y'")
	want := strings.Join([]string{
		"Warning 1365 Division by 0",
		"Warning 1365 Division by 0",
		"Warning 1365 Division by 0",
		"Warning 1365 Division by 0",
		"Warning 1292 Truncated incorrect DOUBLE value: 'abc'",
		"Note 1292 Truncated incorrect DOUBLE value: '1 '",
		"Warning 1292 Truncated incorrect DECIMAL value: 'x'",
		"Warning 1292 Truncated incorrect DOUBLE value: 'y'",
	}, "\n")
	if got := f.warnings(); got != want {
		t.Fatalf("SHOW WARNINGS:\n%s\nwant:\n%s", got, want)
	}
	f.exec("SELECT 1") // no table, no warning: the area stays
	if got := f.warnings(); got != want {
		t.Errorf("after SELECT 1:\n%s", got)
	}
	if r := f.exec("SELECT @@warning_count, @@error_count").Rows[0]; r[0] != int64(8) || r[1] != int64(0) {
		t.Errorf("@@warning_count, @@error_count = %v", r)
	}
	if r := f.exec("SHOW WARNINGS LIMIT 4, 1").Rows; len(r) != 1 || r[0][1] != int64(1292) {
		t.Errorf("LIMIT 4, 1: %v", r)
	}
	f.exec("SHOW SCHEMAS") // a SHOW counts as naming a table: cleared
	if got := f.warnings(); got != "" {
		t.Errorf("after SHOW SCHEMAS:\n%s", got)
	}
	f.exec("SET max_error_count = 2")
	f.exec("SELECT 1/0, 2/0, 3/0")
	if got, n := f.warnings(), f.exec("SHOW COUNT(*) WARNINGS").Rows[0][0]; strings.Count(got, "\n") != 1 || n != int64(3) {
		t.Errorf("max_error_count = 2: %q, count %v", got, n)
	}
	if _, err := f.try("SELECT * FROM no_such_table"); err == nil {
		t.Fatal("no error")
	}
	if r := f.exec("SHOW ERRORS").Rows; len(r) != 1 || r[0][0] != "Error" || r[0][1] != int64(1146) {
		t.Errorf("SHOW ERRORS: %v", r)
	}
}

// TestInsertIgnoreWarnings: INSERT IGNORE stores MariaDB's adjusted values
// with their warnings and skips a duplicate with 1062; plain INSERT still
// fails on the same values.
func TestInsertIgnoreWarnings(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE tj (id BIGINT PRIMARY KEY, a TINYINT, b INT NOT NULL, u INT UNSIGNED, s VARCHAR(10) NOT NULL, f DOUBLE NOT NULL)")
	if _, err := f.try("INSERT INTO tj VALUES (1, 300, 1, 1, 'a', 1)"); err == nil {
		t.Fatal("INSERT of an out-of-range value did not fail")
	}
	res := f.exec("INSERT IGNORE INTO tj VALUES (1, '12abc', NULL, -5, NULL, NULL), (2, '1.5', 1, 1, 'a', 'x'), (3, ' 7 ', 1, 99999999999, 'b', '1.5x'), (2, 1, 1, 1, 'c', 1)")
	if res.RowsAffected != 3 {
		t.Errorf("affected %d, want 3", res.RowsAffected)
	}
	want := strings.Join([]string{
		"Warning 1265 Data truncated for column 'a' at row 1",
		"Warning 1048 Column 'b' cannot be null",
		"Warning 1264 Out of range value for column 'u' at row 1",
		"Warning 1048 Column 's' cannot be null",
		"Warning 1048 Column 'f' cannot be null",
		"Warning 1366 Incorrect double value: 'x' for column `$root`.`tj`.`f` at row 2",
		"Note 1265 Data truncated for column 'a' at row 3",
		"Warning 1264 Out of range value for column 'u' at row 3",
		"Warning 1265 Data truncated for column 'f' at row 3",
		"Warning 1062 Duplicate entry '2' for key 'PRIMARY'",
	}, "\n")
	if got := f.warnings(); got != want {
		t.Errorf("SHOW WARNINGS:\n%s\nwant:\n%s", got, want)
	}
	got := fmt.Sprint(f.exec("SELECT * FROM tj ORDER BY id").Rows)
	if want := "[[1 12 0 0  0] [2 2 1 1 a 0] [3 7 1 4294967295 b 1.5]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}
