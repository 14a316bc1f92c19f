package sqlparse

import (
	"database/sql/driver"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"CREATE SCHEMA IF NOT EXISTS prod.ml COMMENT = 'x' WITH PROPERTIES ('owner.team' = 'ml', k = 'v')",
	"CREATE TABLE a.b.t (id BIGINT NOT NULL PRIMARY KEY, v VECTOR<FLOAT>(3), ts TIMESTAMP(6) COMMENT 'c') COMMENT 'x'",
	"ALTER TABLE a.b.t ADD COLUMN c INT NULL, DROP COLUMN d, RENAME COLUMN e TO f",
	"SELECT a, prod.ml.events.b FROM prod.ml.events e WHERE id = ? LIMIT 10; EXPLAIN SELECT 1",
	"SHOW FULL TABLES FROM a.b WHERE x.y.z = 1; SHOW NAMESPACES IN a LIKE 'x%'; DESC a.b.c",
	"USE `a.b`.`c``d`; DROP SCHEMA a CASCADE; CALL register_table('a.t', 'rel/loc')",
	"-- c\n/* ; */ SELECT '\\';' # x\n; BEGIN; COMMIT; ROLLBACK",
	"INSERT INTO a.b.c VALUES (1); SELECT * FROM\n t WHERE )",
	"SELECT 'unterminated",
	"CREATE TABLE t (a GEOMETRY)",
	"SELECT DISTINCT a AS x, COUNT(*), SUM(b + 1) FROM a.b.t t LEFT JOIN (SELECT c FROM u) d ON t.a = d.c\n" +
		"WHERE a IN (SELECT 1) AND NOT EXISTS (SELECT 2) AND b NOT LIKE 'x!%' ESCAPE '!' GROUP BY 1 HAVING COUNT(*) > 1\n" +
		"ORDER BY x DESC LIMIT 3 OFFSET 1; SELECT 1 UNION SELECT 2",
	"INSERT INTO a.b.t (a, b) VALUES (1, -2.5), (TRUE, DEFAULT) ON DUPLICATE KEY UPDATE a = X'41'",
	"WITH a (x) AS (SELECT 1), b AS (SELECT x FROM a) SELECT * FROM b NATURAL JOIN a UNION ALL SELECT 2 INTERSECT SELECT 3",
	// One level past MaxExpressionDepth: the ErrLimit a CI fuzz run found the check missing.
	"SELECT " + strings.Repeat("(", MaxExpressionDepth+1) + "1" + strings.Repeat(")", MaxExpressionDepth+1),
}

// FuzzParse checks that Parse never panics and that every position it reports lies within the
// input and agrees with the statement text.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := Parse(sql)
		for _, st := range stmts {
			p := st.Position()
			if p.Offset < 0 || p.Offset+len(st.Text()) > len(sql) || sql[p.Offset:p.Offset+len(st.Text())] != st.Text() {
				t.Fatalf("statement %q at %+v does not match the input", st.Text(), p)
			}
			checkPos(t, sql, p)
			for _, e := range statementExprs(st) {
				checkPos(t, sql, e.Pos())
				_ = e.String()
			}
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Pos.Offset < 0 || e.Pos.Offset > len(sql) {
				t.Fatalf("error offset %d outside input of %d bytes", e.Pos.Offset, len(sql))
			}
			checkPos(t, sql, e.Pos)
			// ErrLimit is the documented kind for input beyond a limit (statement
			// size, nesting depth, operator chain), e.g. 1,001 nested parentheses.
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrNotSupported) && !errors.Is(err, ErrLimit) {
				t.Fatalf("error %v wraps none of ErrSyntax, ErrNotSupported, ErrLimit", err)
			}
		}
		// Binding a string into a statement never changes its structure.
		if utf8.ValidString(sql) {
			bound, err := Bind("CALL f(?)", []driver.NamedValue{{Ordinal: 1, Value: sql}})
			if err != nil {
				t.Fatal(err)
			}
			st, err := ParseOne(bound)
			if err != nil {
				t.Fatalf("bound %q: %v", bound, err)
			}
			if c, ok := st.(*Call); !ok || len(c.Args) != 1 || c.Args[0] != sql {
				t.Fatalf("bound %q read back as %#v", bound, st)
			}
		}
	})
}

// statementExprs lists every expression of a statement (through nested queries).
func statementExprs(st Statement) []Expr {
	var out []Expr
	add := func(e Expr) {
		Inspect(e, func(x Expr) bool {
			out = append(out, x)
			return true
		})
	}
	var query func(q *Select)
	query = func(q *Select) {
		q.walkSelects(func(s *Select) {
			for _, it := range s.Items {
				add(it.Expr)
			}
			add(s.Where)
			add(s.Having)
			for _, g := range s.GroupBy {
				add(g)
			}
			for _, o := range s.OrderBy {
				add(o.Expr)
			}
			if s.Limit != nil {
				add(s.Limit.Count)
				add(s.Limit.Offset)
			}
		})
	}
	switch n := st.(type) {
	case *Select:
		query(n)
	case *Explain:
		if q, ok := n.Stmt.(*Select); ok {
			query(q)
		}
	case *Insert:
		for _, row := range n.Rows {
			for _, e := range row {
				add(e)
			}
		}
		for _, a := range n.OnDuplicate {
			add(a.Value)
		}
		if n.Query != nil {
			query(n.Query)
		}
	case *ShowTables:
		add(n.Where)
	case *ShowSchemas:
		add(n.Where)
	}
	return out
}

func checkPos(t *testing.T, sql string, p Pos) {
	t.Helper()
	if want := posAt(sql, p.Offset); want != p {
		t.Fatalf("position %+v inconsistent with offset (want %+v)", p, want)
	}
}

func BenchmarkParseScript(b *testing.B) {
	script := ""
	for _, s := range fuzzSeeds[:6] {
		script += s + ";\n"
	}
	b.SetBytes(int64(len(script)))
	for b.Loop() {
		if _, err := Parse(script); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBind(b *testing.B) {
	args := []driver.NamedValue{{Ordinal: 1, Value: int64(42)}, {Ordinal: 2, Value: "it's a string"}}
	for b.Loop() {
		if _, err := Bind("SELECT a, b FROM prod.ml.events WHERE id = ? AND name = ? LIMIT 10", args); err != nil {
			b.Fatal(err)
		}
	}
}
