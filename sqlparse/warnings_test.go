package sqlparse

import "testing"

func TestParseShowWarnings(t *testing.T) {
	tests := []struct {
		sql  string
		want ShowWarnings
	}{
		{"SHOW WARNINGS", ShowWarnings{Limit: -1}},
		{"show errors", ShowWarnings{Errors: true, Limit: -1}},
		{"SHOW WARNINGS LIMIT 2", ShowWarnings{Limit: 2}},
		{"SHOW WARNINGS LIMIT 1, 3", ShowWarnings{Offset: 1, Limit: 3}},
		{"SHOW ERRORS LIMIT 0", ShowWarnings{Errors: true, Limit: 0}},
		{"SHOW COUNT(*) WARNINGS", ShowWarnings{Count: true, Limit: -1}},
		{"SHOW COUNT( * ) ERRORS", ShowWarnings{Count: true, Errors: true, Limit: -1}},
	}
	for _, tt := range tests {
		st, ok := parseOne(t, tt.sql).(*ShowWarnings)
		if !ok {
			t.Fatalf("%s: not *ShowWarnings", tt.sql)
		}
		got := *st
		got.stmtBase = stmtBase{}
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.sql, got, tt.want)
		}
	}
	for _, bad := range []string{"SHOW WARNINGS LIMIT x", "SHOW WARNINGS LIMIT -1", "SHOW COUNT(*) WARNINGS LIMIT 1", "SHOW WARNINGS extra"} {
		if _, err := ParseOne(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
