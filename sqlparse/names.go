package sqlparse

import (
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/lancecat/lancecat/sqltypes"
)

// Name is a multi-part name (namespace path, or namespace path plus table), unquoted parts in
// order: `prod.ml.events` is Name{"prod", "ml", "events"}; `a.b` with backquotes is one part "a.b".
type Name []string

// String renders the name as SQL: parts joined by '.', each backquoted when it is not a plain
// identifier.
func (n Name) String() string {
	parts := make([]string, len(n))
	for i, p := range n {
		parts[i] = QuoteIdent(p)
	}
	return strings.Join(parts, ".")
}

// Parent returns all parts but the last (nil for a one-part name).
func (n Name) Parent() Name {
	if len(n) <= 1 {
		return nil
	}
	return n[:len(n)-1]
}

// Last returns the last part ("" for an empty name).
func (n Name) Last() string {
	if len(n) == 0 {
		return ""
	}
	return n[len(n)-1]
}

var reservedWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, k := range parser.Keywords {
		if k.Reserved {
			m[k.Word] = true
		}
	}
	for w := range reservedFirstPart {
		m[w] = true
	}
	return m
})

// QuoteIdent backquotes s unless it is a plain identifier ([A-Za-z_][A-Za-z0-9_]*) that is not
// a reserved word, so the result always reads back as the one identifier s.
func QuoteIdent(s string) string {
	plain := s != "" && !reservedWords()[strings.ToUpper(s)]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// nameMap restores the multi-part names that sqlparse folded into placeholders before handing a
// statement to the TiDB parser (which only knows `db.tbl`). Every name of three or more parts
// `p1.p2...pk` was rewritten to `placeholder.pk`, so TiDB sees a two-part name; the placeholder
// stands for p1..pk-1. One- and two-part names reach TiDB unchanged.
type nameMap struct {
	prefixes map[string]Name // placeholder -> the parts it stands for
}

// expand returns the parts a qualifier identifier stands for: the folded parts for a
// placeholder, or the identifier itself.
func (m *nameMap) expand(ident string) Name {
	if ident == "" {
		return nil
	}
	if m != nil {
		if n, ok := m.prefixes[ident]; ok {
			return append(Name(nil), n...)
		}
	}
	return Name{ident}
}

// Table returns the full name of a TiDB table reference: Name{"prod","ml","events"} for
// `prod.ml.events`, Name{"a","t"} for `a.t`, Name{"t"} for `t`.
func (m *nameMap) Table(tn *ast.TableName) Name {
	if tn == nil {
		return nil
	}
	return append(m.expand(tn.Schema.O), tn.Name.O)
}

// Column returns the qualifier (table name, possibly multi-part; nil when unqualified) and the
// column name of a TiDB column reference: for `prod.ml.events.id`, (Name{"prod","ml","events"}, "id").
func (m *nameMap) Column(cn *ast.ColumnName) (qualifier Name, column string) {
	if cn == nil {
		return nil, ""
	}
	if cn.Schema.O != "" {
		qualifier = append(m.expand(cn.Schema.O), cn.Table.O)
	} else {
		qualifier = m.expand(cn.Table.O)
	}
	return qualifier, cn.Name.O
}

// Wildcard returns the qualifier of `q.*` (nil for a bare `*`).
func (m *nameMap) Wildcard(wf *ast.WildCardField) Name {
	if wf == nil {
		return nil
	}
	if wf.Schema.O != "" {
		return append(m.expand(wf.Schema.O), wf.Table.O)
	}
	return m.expand(wf.Table.O)
}

// Func returns the full name of a function call (`CALL a.b.proc()` gives {"a","b","proc"}).
func (m *nameMap) Func(schema ast.CIStr, name ast.CIStr) Name {
	return append(m.expand(schema.O), name.O)
}

// Quoting spells the identifiers and strings inside type names
// (sqltypes.Name) the way lancecat's SQL reads them back.
var Quoting = sqltypes.Quoting{Ident: QuoteIdent, String: QuoteString}
