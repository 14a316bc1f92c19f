package planner

import (
	"context"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// Session variables. Clients (ORMs, migration tools, SQL shells) send SET
// NAMES and SET [SESSION] var = value around their statements and read a
// few variables back with SHOW VARIABLES. lancecat keeps them per session:
// the ones that change behaviour accept only the value lancecat implements
// (UTF-8 text, UTC time, autocommit); any other session variable is stored
// and shown back, with no effect. GLOBAL variables and user variables
// (@x) are refused.

// ServerVersion is @@version and VERSION(): a MySQL 8.0 version number, so
// that clients which parse one (schema tools and ORMs pick their SQL by it)
// take the MySQL 8.0 dialect, then "-lancecat". Tools look for "MariaDB" or
// "TiDB" after the number to switch dialects; neither appears.
const ServerVersion = expr.ServerVersion

// defaultVariables are the variables SHOW VARIABLES lists for a new session.
// The character sets and collations say what lancecat stores and compares:
// UTF-8 text compared byte by byte (utf8mb4_bin). transaction_isolation is
// READ-COMMITTED: every statement reads the latest committed version of
// each table it opens (see driver.Conn.BeginTx).
var defaultVariables = map[string]string{
	"auto_increment_increment":        "1",
	"auto_increment_offset":           "1",
	"autocommit":                      "ON",
	"character_set_client":            "utf8mb4",
	"character_set_connection":        "utf8mb4",
	"character_set_database":          "utf8mb4",
	"character_set_results":           "utf8mb4",
	"character_set_server":            "utf8mb4",
	"character_set_system":            "utf8mb3",
	"collation_connection":            "utf8mb4_bin",
	"collation_database":              "utf8mb4_bin",
	"collation_server":                "utf8mb4_bin",
	"cte_max_recursion_depth":         "1000",
	"default_storage_engine":          "InnoDB",
	"explicit_defaults_for_timestamp": "ON",
	"foreign_key_checks":              "ON",
	"group_concat_max_len":            "1048576",
	"lower_case_table_names":          "0",
	"max_allowed_packet":              "67108864",
	"max_error_count":                 "64",
	"sql_mode":                        "",
	"system_time_zone":                "UTC",
	"time_zone":                       "+00:00",
	"transaction_isolation":           "READ-COMMITTED",
	"transaction_read_only":           "OFF",
	"tx_isolation":                    "READ-COMMITTED",
	"tx_read_only":                    "OFF",
	"version":                         ServerVersion,
	"version_comment":                 "lancecat: SQL over Lance directory catalogs",
	"wait_timeout":                    "28800",
}

// utf8Charsets are the SET NAMES character sets lancecat accepts: it reads
// and writes UTF-8 text only.
var utf8Charsets = map[string]bool{"utf8mb4": true, "utf8": true, "utf8mb3": true}

// variable returns a session variable's value.
func (s *Session) variable(name string) (string, bool) {
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	v, ok := defaultVariables[name]
	return v, ok
}

// variableValue reads @@name or @@session.name in an expression: the
// session's value, ON and OFF as 1 and 0 and integers as BIGINT (as MySQL
// reports @@autocommit), other values as text. Unknown variables are an
// error, as in MySQL; @@global.x and user variables are not supported.
func (s *Session) variableValue(v *sqlparse.Variable) (any, error) {
	switch v.Scope {
	case sqlparse.ScopeGlobal:
		return nil, errorf(catalog.CodeUnsupported, "not supported: %s (lancecat has session variables only)", v)
	case sqlparse.ScopeUser:
		return nil, errorf(catalog.CodeUnsupported, "not supported: user variable %s", v)
	}
	if s == nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: %s here", v)
	}
	if n, ok := s.diagVariable(v.Name); ok {
		return n, nil
	}
	text, ok := s.variable(v.Name)
	if !ok {
		return nil, errorf(catalog.CodeInvalidInput, "unknown system variable %s", sqlparse.QuoteIdent(v.Name))
	}
	switch strings.ToUpper(text) {
	case "ON":
		return int64(1), nil
	case "OFF":
		return int64(0), nil
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i, nil
	}
	return text, nil
}

func (s *Session) set(_ context.Context, st *sqlparse.Set) (*Result, error) {
	// Check every assignment first: a refused SET changes nothing.
	next := map[string]string{}
	for _, v := range st.Vars {
		switch v.Scope {
		case sqlparse.ScopeGlobal:
			return nil, errorf(catalog.CodeUnsupported, "not supported: SET GLOBAL %s (lancecat has session variables only)", v.Name)
		case sqlparse.ScopeUser:
			return nil, errorf(catalog.CodeUnsupported, "not supported: user variable @%s", v.Name)
		}
		text := sqlparse.SetValueText(v.Value)
		if v.Default {
			text = defaultVariables[v.Name]
		}
		lower := strings.ToLower(text)
		switch v.Name {
		case "names", "character_set_client", "character_set_connection", "character_set_results", "character_set_server", "character_set_database":
			if !utf8Charsets[lower] && !(v.Default || (v.Name == "character_set_results" && v.Value == nil)) {
				return nil, errorf(catalog.CodeUnsupported, "not supported: character set %s (lancecat text is UTF-8: use utf8mb4)", text)
			}
			if v.Name == "names" {
				for _, n := range []string{"character_set_client", "character_set_connection", "character_set_results"} {
					next[n] = lower
				}
				if v.Collation != "" {
					next["collation_connection"] = strings.ToLower(v.Collation)
				}
				continue
			}
		case "time_zone":
			switch lower {
			case "+00:00", "utc", "system", "+0:00", "-00:00":
			default:
				return nil, errorf(catalog.CodeUnsupported, "not supported: time_zone %s (lancecat reads and writes DATETIME and TIMESTAMP in UTC)", quoteString(text))
			}
		case "autocommit":
			switch lower {
			case "1", "on", "true":
				text = "ON"
			default:
				return nil, errorf(catalog.CodeUnsupported, "not supported: autocommit = %s (use BEGIN ... COMMIT for a transaction)", text)
			}
		case "cte_max_recursion_depth":
			n, err := strconv.ParseUint(strings.TrimSpace(text), 10, 32)
			if err != nil {
				return nil, errorf(catalog.CodeInvalidInput, "variable cte_max_recursion_depth takes an integer from 0 to 4294967295, not %s", text)
			}
			text = strconv.FormatUint(n, 10)
		case "group_concat_max_len":
			// MariaDB's range: 4 up to 2^64-1; below 4 (a negative number
			// too) is 4, with a warning in MariaDB; a value that is not an
			// integer is refused.
			n, err := strconv.ParseUint(text, 10, 64)
			if _, ierr := strconv.ParseInt(text, 10, 64); err != nil && ierr == nil {
				n, err = 0, nil // a negative number: the minimum
			}
			if err != nil {
				return nil, errorf(catalog.CodeInvalidInput, "incorrect argument type to variable 'group_concat_max_len' (MySQL error 1232): %s", text)
			}
			text = strconv.FormatUint(max(n, 4), 10)
		case "max_error_count":
			// MariaDB's range: 0 to 65535 (a value past it is the bound).
			n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
			if err != nil {
				return nil, errorf(catalog.CodeInvalidInput, "incorrect argument type to variable 'max_error_count' (MySQL error 1232): %s", text)
			}
			text = strconv.FormatInt(min(max(n, 0), 65535), 10)
		case "warning_count", "error_count":
			return nil, errorf(catalog.CodeInvalidInput, "variable %s is read-only", v.Name)
		case "version", "version_comment", "system_time_zone", "lower_case_table_names", "character_set_system", "default_storage_engine":
			return nil, errorf(catalog.CodeInvalidInput, "variable %s is read-only", v.Name)
		}
		next[v.Name] = text
	}
	if s.vars == nil {
		s.vars = map[string]string{}
	}
	for k, v := range next {
		s.vars[k] = v
	}
	return okResult(0), nil
}

func (s *Session) showVariables(_ context.Context, st *sqlparse.ShowVariables) (*Result, error) {
	names := map[string]bool{}
	for k := range defaultVariables {
		names[k] = true
	}
	if !st.Global {
		for k := range s.vars {
			names[k] = true
		}
	}
	var rows [][]any
	for _, k := range sortedKeys(boolKeys(names)) {
		v := defaultVariables[k]
		if !st.Global {
			v, _ = s.variable(k)
		}
		rows = append(rows, []any{k, v})
	}
	cols := []Column{varchar("Variable_name"), varchar("Value")}
	rows, err := filterRows(cols, rows, st.Filter, 0)
	if err != nil {
		return nil, err
	}
	return rowsResult(cols, rows), nil
}

func boolKeys(m map[string]bool) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = ""
	}
	return out
}
