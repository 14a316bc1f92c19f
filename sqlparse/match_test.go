package sqlparse

import (
	"errors"
	"testing"
)

// TestParseMatch: MATCH ... AGAINST in both modes and FTS_MATCH_WORD parse
// into *Match in WHERE, the select list and ORDER BY; WITH QUERY EXPANSION
// is refused with its position.
func TestParseMatch(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		where   string
		boolean bool
	}{
		{"SELECT id FROM t WHERE MATCH (body) AGAINST ('puppy')", "MATCH (body) AGAINST ('puppy')", false},
		{"SELECT id FROM t WHERE MATCH (body) AGAINST ('puppy' IN NATURAL LANGUAGE MODE)", "MATCH (body) AGAINST ('puppy')", false},
		{"SELECT id FROM t WHERE MATCH (t.body) AGAINST ('+a -b' IN BOOLEAN MODE) AND id > 3", "", true},
		{"SELECT id FROM t WHERE FTS_MATCH_WORD('puppy', body)", "FTS_MATCH_WORD('puppy', body)", false},
	} {
		stmts, err := Parse(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		sel := stmts[0].(*Select)
		var m *Match
		Inspect(sel.Where, func(e Expr) bool {
			if x, ok := e.(*Match); ok {
				m = x
			}
			return true
		})
		if m == nil {
			t.Fatalf("%s: no Match in %s", tc.sql, sel.Where)
		}
		if m.Boolean != tc.boolean || len(m.Columns) != 1 || m.Columns[0].Column != "body" {
			t.Errorf("%s: %+v", tc.sql, m)
		}
		if tc.where != "" && sel.Where.String() != tc.where {
			t.Errorf("%s: WHERE renders %q, want %q", tc.sql, sel.Where.String(), tc.where)
		}
	}
	stmts, err := Parse("SELECT id, MATCH (body) AGAINST ('x') AS score FROM t ORDER BY MATCH (body) AGAINST ('x') DESC LIMIT 3")
	if err != nil {
		t.Fatal(err)
	}
	sel := stmts[0].(*Select)
	if _, ok := sel.Items[1].Expr.(*Match); !ok {
		t.Errorf("select item %T", sel.Items[1].Expr)
	}
	if _, ok := sel.OrderBy[0].Expr.(*Match); !ok || !sel.OrderBy[0].Desc {
		t.Errorf("order by %T", sel.OrderBy[0].Expr)
	}
	_, err = Parse("SELECT id FROM t WHERE MATCH (body) AGAINST ('x' WITH QUERY EXPANSION)")
	if !errors.Is(err, ErrNotSupported) {
		t.Errorf("WITH QUERY EXPANSION: %v", err)
	}
}

// TestParseCreateFulltextIndex: CREATE FULLTEXT INDEX is an INVERTED index
// with its WITH PROPERTIES tokenizer settings (strings, numbers or bare
// TRUE/FALSE).
func TestParseCreateFulltextIndex(t *testing.T) {
	stmts, err := Parse("CREATE FULLTEXT INDEX body_idx ON t (body) WITH PROPERTIES (base_tokenizer = 'whitespace', with_position = true, max_token_length = 20)")
	if err != nil {
		t.Fatal(err)
	}
	ci := stmts[0].(*CreateIndex)
	if ci.Using != "INVERTED" || ci.Column != "body" || len(ci.Properties) != 3 || ci.Properties[1].Value != "true" || ci.Properties[2].Value != "20" {
		t.Errorf("%+v", ci)
	}
}
