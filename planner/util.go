package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

func errorf(code catalog.Code, format string, args ...any) error {
	return &catalog.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// displayName renders a namespace path or table identifier as SQL: parts
// joined by '.', each backquoted when it is not a plain identifier. The root
// namespace is the empty string.
func displayName(id catalog.Ident) string {
	return sqlparse.Name(id).String()
}

// RootSchemaName is the name of the root namespace where SQL must give a
// database a name: DATABASE() at the root and the schema columns of
// information_schema (TABLE_SCHEMA, ...). No namespace can have it ('$' is
// Lance's object id delimiter), and a name that starts with it resolves to
// the root ("`$root`.t" is the root table t).
const RootSchemaName = "$root"

// schemaName is a namespace's name as DATABASE() and information_schema
// give it: its display name, RootSchemaName for the root.
func schemaName(ns catalog.Ident) string {
	if len(ns) == 0 {
		return RootSchemaName
	}
	return displayName(ns)
}

// splitDisplayName parses a name rendered by displayName (as found in
// information_schema values or CALL arguments) back into its parts:
// '.'-separated, parts optionally backquoted with “ for a backquote.
func splitDisplayName(s string) (catalog.Ident, bool) {
	if s == "" || s == RootSchemaName || s == "`"+RootSchemaName+"`" {
		return catalog.Ident{}, true
	}
	var parts catalog.Ident
	i := 0
	for {
		var part strings.Builder
		if i < len(s) && s[i] == '`' {
			i++
			closed := false
			for i < len(s) {
				if s[i] == '`' {
					if i+1 < len(s) && s[i+1] == '`' {
						part.WriteByte('`')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				part.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, false
			}
		} else {
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '`' {
				j++
			}
			part.WriteString(s[i:j])
			i = j
		}
		if part.Len() == 0 {
			return nil, false
		}
		parts = append(parts, part.String())
		if i == len(s) {
			return parts, true
		}
		if s[i] != '.' {
			return nil, false
		}
		i++
	}
}

func identEqual(a, b catalog.Ident) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hasPrefix reports whether id starts with all parts of prefix.
func hasPrefix(id, prefix catalog.Ident) bool {
	return len(id) >= len(prefix) && identEqual(id[:len(prefix)], prefix)
}

func itoa(n int) string { return fmt.Sprint(n) }

// quoteString renders s as a single-quoted SQL string literal.
func quoteString(s string) string { return sqlparse.QuoteString(s) }
