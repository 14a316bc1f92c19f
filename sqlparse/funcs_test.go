package sqlparse

import "testing"

// TestSpecialSyntaxFuncs: CASE, CAST, INTERVAL, EXTRACT, TRIM, POSITION and
// date literals become plain calls (the names and argument orders the
// function registry expects), and String prints them back in their syntax.
func TestSpecialSyntaxFuncs(t *testing.T) {
	for _, tt := range []struct{ sql, name, str string }{
		{"CASE WHEN a > 1 THEN 'x' WHEN a < 0 THEN 'y' ELSE 'z' END", FuncCaseSearched, "CASE WHEN a > 1 THEN 'x' WHEN a < 0 THEN 'y' ELSE 'z' END"},
		{"CASE a WHEN 1 THEN 'one' END", FuncCaseSimple, "CASE a WHEN 1 THEN 'one' END"},
		{"CAST(a AS SIGNED)", FuncCast, "CAST(a AS SIGNED)"},
		{"CAST(a AS UNSIGNED INTEGER)", FuncCast, "CAST(a AS UNSIGNED)"},
		{"CAST(a AS DECIMAL(10,2))", FuncCast, "CAST(a AS DECIMAL(10,2))"},
		{"CAST(a AS DECIMAL)", FuncCast, "CAST(a AS DECIMAL(10,0))"},
		{"CAST(a AS CHAR(3))", FuncCast, "CAST(a AS CHAR(3))"},
		{"CAST(a AS CHAR)", FuncCast, "CAST(a AS CHAR)"},
		{"CAST(a AS BINARY)", FuncCast, "CAST(a AS BINARY)"},
		{"CAST(a AS DATE)", FuncCast, "CAST(a AS DATE)"},
		{"CAST(a AS DATETIME(3))", FuncCast, "CAST(a AS DATETIME(3))"},
		{"CAST(a AS TIME)", FuncCast, "CAST(a AS TIME)"},
		{"CAST(a AS DOUBLE)", FuncCast, "CAST(a AS DOUBLE)"},
		{"CONVERT(a, SIGNED)", FuncCast, "CAST(a AS SIGNED)"},
		{"CONVERT(a USING utf8mb4)", FuncCast, "CAST(a AS CHAR)"},
		{"DATE '2024-01-02'", FuncCast, "CAST('2024-01-02' AS DATE)"},
		{"TIMESTAMP '2024-01-02 03:04:05'", FuncCast, "CAST('2024-01-02 03:04:05' AS DATETIME)"},
		{"d + INTERVAL 1 DAY", "DATE_ADD", "DATE_ADD(d, INTERVAL 1 DAY)"},
		{"INTERVAL 2 HOUR + d", "DATE_ADD", "DATE_ADD(d, INTERVAL 2 HOUR)"},
		{"d - INTERVAL '1:30' HOUR_MINUTE", "DATE_SUB", "DATE_SUB(d, INTERVAL '1:30' HOUR_MINUTE)"},
		{"DATE_ADD(d, INTERVAL 3 MONTH)", "DATE_ADD", "DATE_ADD(d, INTERVAL 3 MONTH)"},
		{"ADDDATE(d, 5)", "ADDDATE", "ADDDATE(d, INTERVAL 5 DAY)"},
		{"EXTRACT(YEAR_MONTH FROM d)", "EXTRACT", "EXTRACT(YEAR_MONTH FROM d)"},
		{"TIMESTAMPDIFF(MINUTE, a, b)", "TIMESTAMPDIFF", "TIMESTAMPDIFF(MINUTE, a, b)"},
		{"TRIM(LEADING 'x' FROM a)", "TRIM", "TRIM(LEADING 'x' FROM a)"},
		{"TRIM(TRAILING FROM a)", "TRIM", "TRIM(TRAILING ' ' FROM a)"},
		{"TRIM('x' FROM a)", "TRIM", "TRIM('x' FROM a)"},
		{"TRIM(a)", "TRIM", "TRIM(a)"},
		{"POSITION('b' IN a)", "LOCATE", "LOCATE('b', a)"},
		{"SUBSTRING(a FROM 2 FOR 3)", "SUBSTRING", "SUBSTRING(a, 2, 3)"},
	} {
		st, err := ParseOne("SELECT " + tt.sql + " FROM t")
		if err != nil {
			t.Errorf("%s: %v", tt.sql, err)
			continue
		}
		e := st.(*Select).Items[0].Expr
		f, ok := e.(*FuncCall)
		if !ok || f.Name != tt.name && !(tt.name == "SUBSTRING" && f.Name == "SUBSTRING") {
			t.Errorf("%s: converted to %#v, want a call of %s", tt.sql, e, tt.name)
			continue
		}
		if got := e.String(); got != tt.str {
			t.Errorf("%s: String() = %q, want %q", tt.sql, got, tt.str)
		}
		// The printed form parses to the same call.
		again, err := ParseOne("SELECT " + e.String() + " FROM t")
		if err != nil {
			t.Errorf("%s: reparsing %s: %v", tt.sql, e, err)
		} else if got := again.(*Select).Items[0].Expr.String(); got != tt.str {
			t.Errorf("%s: reparsed as %s", tt.sql, got)
		}
	}
}
