package sqlparse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// zeroPositions clears every Pos (and statement text, and select-item text) reachable from v,
// so trees can be compared by structure alone. v must be addressable (reached through a
// pointer); unexported fields are written through their address.
func zeroPositions(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			zeroPositions(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			zeroPositions(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(Pos{}) || v.Type() == reflect.TypeOf(stmtBase{}) {
			settable(v).Set(reflect.Zero(v.Type()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if v.Type().Field(i).Name == "Text" && f.Kind() == reflect.String {
				settable(f).SetString("")
				continue
			}
			zeroPositions(f)
		}
	}
}

func settable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func structure(t *testing.T, st Statement) Statement {
	t.Helper()
	zeroPositions(reflect.ValueOf(st))
	return st
}

func col(parts ...string) *ColumnRef {
	return &ColumnRef{Qualifier: Name(parts[:len(parts)-1]), Column: parts[len(parts)-1]}
}

func unqualified(name string) *ColumnRef { return &ColumnRef{Column: name} }

func lit(k LiteralKind, v any) *Literal { return &Literal{Kind: k, Value: v} }

// TestConvertSelect checks the tree of representative queries, element by element.
func TestConvertSelect(t *testing.T) {
	tests := []struct {
		sql  string
		want *Select
	}{
		{"SELECT DISTINCT a AS x, t.b, prod.ml.t.*, COUNT(*), count(DISTINCT c), SUM(d + 1) FROM prod.ml.t AS t " +
			"WHERE a >= -1 AND (b IS NOT NULL OR c IN (1, 'two', NULL)) AND NOT d BETWEEN 1.5 AND 2e0 " +
			"GROUP BY a, 2 HAVING COUNT(*) > 1 ORDER BY x DESC, 1 LIMIT 10 OFFSET 5",
			&Select{
				Distinct: true,
				Items: []SelectItem{
					{Expr: unqualified("a"), Alias: "x"},
					{Expr: col("t", "b")},
					{Star: true, Qualifier: Name{"prod", "ml", "t"}},
					{Expr: &FuncCall{Name: "COUNT", Aggregate: true, Star: true, Args: []Expr{}}},
					{Expr: &FuncCall{Name: "count", Aggregate: true, Distinct: true, Args: []Expr{unqualified("c")}}},
					{Expr: &FuncCall{Name: "SUM", Aggregate: true, Args: []Expr{&Binary{Op: OpAdd, L: unqualified("d"), R: lit(LitInt, int64(1))}}}},
				},
				From: &TableSource{Table: Name{"prod", "ml", "t"}, Alias: "t"},
				Where: &Binary{Op: OpAnd,
					L: &Binary{Op: OpAnd,
						L: &Binary{Op: OpGE, L: unqualified("a"), R: &Unary{Op: OpNeg, X: lit(LitInt, int64(1))}},
						R: &Paren{X: &Binary{Op: OpOr,
							L: &IsNull{X: unqualified("b"), Not: true},
							R: &InList{X: unqualified("c"), List: []Expr{lit(LitInt, int64(1)), lit(LitString, "two"), lit(LitNull, nil)}},
						}},
					},
					R: &Unary{Op: OpNot, X: &Between{X: unqualified("d"), Lo: lit(LitDecimal, Decimal("1.5")), Hi: lit(LitFloat, 2.0)}},
				},
				GroupBy: []Expr{unqualified("a"), &ColumnPosition{N: 2}},
				Having:  &Binary{Op: OpGT, L: &FuncCall{Name: "COUNT", Aggregate: true, Star: true, Args: []Expr{}}, R: lit(LitInt, int64(1))},
				OrderBy: []OrderItem{{Expr: unqualified("x"), Desc: true}, {Expr: &ColumnPosition{N: 1}}},
				Limit:   &Limit{Count: lit(LitInt, int64(10)), Offset: lit(LitInt, int64(5))},
			}},
		{"SELECT COUNT(1), LOWER(s), TRUE, FALSE, X'41', 18446744073709551615 FROM t WHERE s NOT LIKE 'a!%%' ESCAPE '!' AND s ILIKE 'B%' AND s REGEXP '^c' AND f IS NOT TRUE",
			&Select{
				Items: []SelectItem{
					{Expr: &FuncCall{Name: "COUNT", Aggregate: true, Args: []Expr{lit(LitInt, int64(1))}}},
					{Expr: &FuncCall{Name: "LOWER", Args: []Expr{unqualified("s")}}},
					{Expr: lit(LitBool, true)},
					{Expr: lit(LitBool, false)},
					{Expr: lit(LitBinary, []byte("A"))},
					{Expr: lit(LitUint, uint64(18446744073709551615))},
				},
				From: &TableSource{Table: Name{"t"}},
				Where: &Binary{Op: OpAnd,
					L: &Binary{Op: OpAnd,
						L: &Binary{Op: OpAnd,
							L: &Like{X: unqualified("s"), Pattern: lit(LitString, "a!%%"), Not: true, Escape: '!'},
							R: &Like{X: unqualified("s"), Pattern: lit(LitString, "B%"), CaseInsensitive: true, Escape: '\\'},
						},
						R: &Regexp{X: unqualified("s"), Pattern: lit(LitString, "^c")},
					},
					R: &IsTruth{X: unqualified("f"), Not: true, True: true},
				},
			}},
		{"SELECT a FROM x.y.t1 t1 LEFT JOIN (SELECT b FROM t2) AS d ON t1.a = d.b WHERE EXISTS (SELECT 1 FROM t3) AND a IN (SELECT c FROM a.b.t4) AND a = (SELECT MAX(c) FROM t5)",
			&Select{
				Items: []SelectItem{{Expr: unqualified("a")}},
				From: &Join{Kind: LeftJoin,
					Left:  &TableSource{Table: Name{"x", "y", "t1"}, Alias: "t1"},
					Right: &TableSource{Subquery: &Select{Items: []SelectItem{{Expr: unqualified("b")}}, From: &TableSource{Table: Name{"t2"}}}, Alias: "d"},
					On:    &Binary{Op: OpEQ, L: col("t1", "a"), R: col("d", "b")},
				},
				Where: &Binary{Op: OpAnd,
					L: &Binary{Op: OpAnd,
						L: &Exists{Select: &Select{Items: []SelectItem{{Expr: lit(LitInt, int64(1))}}, From: &TableSource{Table: Name{"t3"}}}},
						R: &InList{X: unqualified("a"), Subquery: &Select{Items: []SelectItem{{Expr: unqualified("c")}}, From: &TableSource{Table: Name{"a", "b", "t4"}}}},
					},
					R: &Binary{Op: OpEQ, L: unqualified("a"), R: &Subquery{Select: &Select{
						Items: []SelectItem{{Expr: &FuncCall{Name: "MAX", Aggregate: true, Args: []Expr{unqualified("c")}}}},
						From:  &TableSource{Table: Name{"t5"}}}}},
				},
			}},
		{"SELECT 1 UNION SELECT 2 EXCEPT ALL SELECT 3 ORDER BY 1 LIMIT 2",
			&Select{
				SetOps: []SetOperand{
					{Select: &Select{Items: []SelectItem{{Expr: lit(LitInt, int64(1))}}}},
					{Op: Union, Select: &Select{Items: []SelectItem{{Expr: lit(LitInt, int64(2))}}}},
					{Op: ExceptAll, Select: &Select{Items: []SelectItem{{Expr: lit(LitInt, int64(3))}}}},
				},
				OrderBy: []OrderItem{{Expr: &ColumnPosition{N: 1}}},
				Limit:   &Limit{Count: lit(LitInt, int64(2))},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got := structure(t, parseOne(t, tt.sql))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got.(*Select), tt.want)
				for _, pair := range [][2]any{{got.(*Select).Where, tt.want.Where}, {got.(*Select).Items, tt.want.Items}, {got.(*Select).From, tt.want.From}} {
					if !reflect.DeepEqual(pair[0], pair[1]) {
						t.Errorf("differs: %#v\nwant %#v", pair[0], pair[1])
					}
				}
			}
		})
	}
}

func TestConvertInsert(t *testing.T) {
	got := structure(t, parseOne(t, "INSERT INTO a.b.t (id, t.s) VALUES (1, 'x'), (-2.50, DEFAULT) ON DUPLICATE KEY UPDATE s = 'y'"))
	want := &Insert{
		Table:   Name{"a", "b", "t"},
		Columns: []*ColumnRef{unqualified("id"), col("t", "s")},
		Rows: [][]Expr{
			{lit(LitInt, int64(1)), lit(LitString, "x")},
			{&Unary{Op: OpNeg, X: lit(LitDecimal, Decimal("2.50"))}, &Default{}},
		},
		OnDuplicate: []Assignment{{Column: unqualified("s"), Value: lit(LitString, "y")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	got = structure(t, parseOne(t, "INSERT INTO t SELECT a FROM u"))
	want = &Insert{Table: Name{"t"}, Query: &Select{Items: []SelectItem{{Expr: unqualified("a")}}, From: &TableSource{Table: Name{"u"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	for sql, msg := range map[string]string{
		"INSERT INTO t SET a = 1":                        "not supported: INSERT ... SET",
		"INSERT INTO t VALUES (GET_FORMAT(DATE, 'USA'))": "line 1 column 23: not supported: function GET_FORMAT",
	} {
		if _, err := ParseOne(sql); !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", sql, err, msg)
		}
	}
}

// TestExprStringMatchesTiDB: String renders expressions exactly as TiDB's restore did in the
// planner before the conversion (EXPLAIN's Filter lines and error messages depend on it).
func TestExprStringMatchesTiDB(t *testing.T) {
	exprs := []string{
		"a = 1", "a <> 'x''y'", "a != 2", "a <=> NULL", "(a < 1 OR b >= 2) AND NOT c", "a XOR b", "!a",
		"a IN (1,2,'three')", "a NOT IN ('x')", "a BETWEEN 1 AND 10", "a NOT BETWEEN -1 AND +2",
		"a IS NULL", "a IS NOT NULL", "a IS TRUE", "a IS NOT FALSE", "a LIKE 'x%'", "a NOT LIKE 'x!%' ESCAPE '!'",
		"a ILIKE 'X%'", "a REGEXP '^x'", "a NOT REGEXP 'y'", "UPPER(name) = 'APPLE'", "concat(a, 'b', 1.50) = 'x'",
		"t.a + 1 * 2 - 3 / 4 DIV 5 % 6 = 0", "a & 1 | 2 ^ 3 << 1 >> 2 = ~b", "COUNT(DISTINCT a) > SUM(b)",
		"a = 1.5e0", "a = 1e3", "a = TRUE", "a = X'0aff'", "a = 18446744073709551615", "a = ''", "LENGTH(name)",
		"a IN (SELECT b FROM t)",
	}
	p := parser.New()
	for _, e := range exprs {
		sql := "SELECT * FROM t WHERE " + e
		nodes, _, err := p.Parse(sql, "", "")
		if err != nil {
			t.Fatalf("TiDB: %s: %v", sql, err)
		}
		want := restoreTiDB(nodes[0].(*ast.SelectStmt).Where)
		got := parseOne(t, sql).(*Select).Where.String()
		// NOT and ! are one operator (NOT), as are <> and != (TiDB prints !=).
		if e == "!a" {
			want = "NOT a"
		}
		if got != want {
			t.Errorf("%s: String() = %q, TiDB restores %q", e, got, want)
		}
	}
}

// TestSelectStringRoundTrip: rendering a parsed query and parsing the text again gives the same
// tree.
func TestSelectStringRoundTrip(t *testing.T) {
	for _, sql := range []string{
		"SELECT DISTINCT a AS `x y`, t.b, t.*, COUNT(*) FROM prod.ml.t t WHERE a >= -1 AND (b IS NOT NULL OR c IN (1,'two')) GROUP BY a, 2 HAVING COUNT(*) > 1 ORDER BY 1 DESC LIMIT 10 OFFSET 5",
		"SELECT a FROM x.y.t1 AS t1 LEFT JOIN (SELECT b FROM t2) AS d ON t1.a = d.b WHERE EXISTS (SELECT 1) AND NOT EXISTS (SELECT 2) AND a IN (SELECT c FROM t4)",
		"SELECT 1 UNION ALL SELECT 2 INTERSECT SELECT 3",
		"WITH a (x) AS (SELECT 1), b AS (SELECT x FROM a) SELECT * FROM b JOIN a USING (x)",
		"WITH u AS (SELECT 1 AS k) SELECT k FROM u UNION SELECT k + 1 FROM u",
		"SELECT * FROM `select`.`from` WHERE `where` LIKE 'a\\_%' ESCAPE '\\\\' OR s ILIKE 'b' OR s LIKE 'c' ESCAPE '!'",
	} {
		first := parseOne(t, sql).(*Select)
		text := first.String()
		second, err := ParseOne(text)
		if err != nil {
			t.Fatalf("%s\nrenders as %s, which does not parse: %v", sql, text, err)
		}
		a, b := structure(t, first), structure(t, second)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s\nrenders as %s\nwhich parses differently: %s", sql, text, b.(*Select))
		}
	}
}

// TestExprPositions: every expression carries its position in the original script, also after
// multi-part names were folded for TiDB and in SHOW ... WHERE.
func TestExprPositions(t *testing.T) {
	src := "SELECT a,\n  prod.ml.events.b FROM prod.ml.events\nWHERE a = 1 AND   b LIKE 'x'"
	st := parseOne(t, src).(*Select)
	at := func(e Expr, line, column int) {
		t.Helper()
		if p := e.Pos(); p.Line != line || p.Column != column {
			t.Errorf("%s at %s, want line %d column %d", e, p, line, column)
		}
	}
	at(st.Items[0].Expr, 1, 8)
	at(st.Items[1].Expr, 2, 3)
	if p := st.Items[1].Pos; p.Line != 2 || p.Column != 3 || st.Items[1].Text != "prod.ml.events.b" {
		t.Errorf("item 1 at %s text %q", p, st.Items[1].Text)
	}
	and := st.Where.(*Binary)
	at(and, 3, 7)
	at(and.L, 3, 7)
	at(and.L.(*Binary).R, 3, 11)
	at(and.R, 3, 19)
	at(and.R.(*Like).Pattern, 3, 26)

	show := parseOne(t, "SHOW TABLES FROM a.b.c WHERE x.y.z = 1 OR\n\tTables_in_c LIKE 'q%'").(*ShowTables)
	or := show.Where.(*Binary)
	at(or.L, 1, 30)
	at(or.R, 2, 2)
}

// TestConvertRefuses: forms lancecat has no type for fail in the parser with the typed
// not-supported error, at the expression (or at the statement for statement-level forms).
func TestConvertRefuses(t *testing.T) {
	for _, tt := range []struct{ sql, msg string }{
		{"SELECT a FROM t WHERE a = (@x := 1)", "line 1 column 28: not supported: assigning a variable in an expression (@x := ...)"},
		{"SELECT a FROM t WHERE (a, b) = (1, 2)", "line 1 column 23: not supported: row constructors"},
		{"SELECT WEIGHT_STRING(a) FROM t", "line 1 column 8: not supported: function WEIGHT_STRING"},
		{"SELECT a FROM t FOR UPDATE", "line 1 column 1: not supported: SELECT ... FOR UPDATE / SHARE"},
		{"TABLE t", "line 1 column 1: not supported: TABLE and VALUES statements"},
		{"SELECT a FROM t PARTITION (p0)", "line 1 column 1: not supported: PARTITION and TABLESAMPLE"},
		{"SELECT a FROM t GROUP BY a WITH ROLLUP", "line 1 column 1: not supported: GROUP BY ... WITH ROLLUP"},
	} {
		_, err := ParseOne(tt.sql)
		var pe *Error
		if !errors.Is(err, ErrNotSupported) || !errors.As(err, &pe) || err.Error() != tt.msg {
			t.Errorf("%s: %v, want %q", tt.sql, err, tt.msg)
		}
	}
}

// TestConvertVariables: @@x, @@session.x and @@GLOBAL.x are system variables (names
// lower-cased), @x a user variable; String prints them back.
func TestConvertVariables(t *testing.T) {
	st := parseOne(t, "SELECT @@SQL_MODE, @@session.time_zone, @@GLOBAL.version, @Mine").(*Select)
	want := []Variable{{Scope: ScopeSession, Name: "sql_mode"}, {Scope: ScopeSession, Name: "time_zone", Explicit: true},
		{Scope: ScopeGlobal, Name: "version", Explicit: true}, {Scope: ScopeUser, Name: "Mine"}}
	texts := []string{"@@sql_mode", "@@session.time_zone", "@@global.version", "@Mine"}
	for i, it := range st.Items {
		v, ok := it.Expr.(*Variable)
		if !ok || v.Scope != want[i].Scope || v.Name != want[i].Name || v.Explicit != want[i].Explicit || v.String() != texts[i] {
			t.Errorf("item %d: %#v (%s), want %+v (%s)", i, it.Expr, it.Expr, want[i], texts[i])
		}
	}
}

// TestInspect visits every expression of a tree but not the inside of subqueries.
func TestInspect(t *testing.T) {
	st := parseOne(t, "SELECT 1 FROM t WHERE a = 1 AND LOWER(b) IN ('x', c) AND d BETWEEN e AND f AND NOT EXISTS (SELECT g FROM u)").(*Select)
	var cols []string
	Inspect(st.Where, func(e Expr) bool {
		if c, ok := e.(*ColumnRef); ok {
			cols = append(cols, c.Column)
		}
		return true
	})
	if strings.Join(cols, ",") != "a,b,c,d,e,f" {
		t.Errorf("columns %v", cols)
	}
	if refs := st.Tables(); len(refs) != 2 || refs[1].Name.String() != "u" {
		t.Errorf("tables %+v", refs)
	}
}

// TestConvertQuantified: x op ANY|SOME|ALL (SELECT ...) becomes a
// *Quantified with its operator, quantifier and query.
func TestConvertQuantified(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT a FROM t WHERE a = ANY (SELECT b FROM u)":  "a = ANY (SELECT b FROM u)",
		"SELECT a FROM t WHERE a > SOME (SELECT b FROM u)": "a > ANY (SELECT b FROM u)",
		"SELECT a FROM t WHERE a <= ALL (SELECT b FROM u)": "a <= ALL (SELECT b FROM u)",
	} {
		st, err := ParseOne(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		q, ok := st.(*Select).Where.(*Quantified)
		if !ok || q.String() != want || q.Select == nil {
			t.Errorf("%s: %#v (%v), want %s", sql, st.(*Select).Where, st.(*Select).Where, want)
		}
		if refs := st.(*Select).Tables(); len(refs) != 2 || refs[1].Name.String() != "u" {
			t.Errorf("%s: Tables() = %v, want t and u", sql, refs)
		}
	}
}

func TestFullJoin(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT * FROM a FULL OUTER JOIN b ON a.id = b.id", "a FULL JOIN b ON a.id = b.id"},
		{"SELECT * FROM a full join b USING (id) LEFT JOIN c ON c.x = b.x", "a FULL JOIN b USING (id) LEFT JOIN c ON c.x = b.x"},
		{"SELECT * FROM a AS full JOIN b ON full.id = b.id", "a AS full JOIN b ON full.id = b.id"},
	} {
		sel, ok := parseOne(t, tc.sql).(*Select)
		if !ok {
			t.Fatalf("%s: not a SELECT", tc.sql)
		}
		if got := fromString(sel.From); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
}

// TestConvertWithRecursive: WITH RECURSIVE marks its CTEs, keeps where
// each query starts, and prints back.
func TestConvertWithRecursive(t *testing.T) {
	st, err := ParseOne("WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3), d AS (SELECT 2) SELECT * FROM c")
	if err != nil {
		t.Fatal(err)
	}
	q := st.(*Select)
	if len(q.With) != 2 || !q.With[0].Recursive || !q.With[1].Recursive || q.With[0].Pos.Column != 25 || len(q.With[0].Select.SetOps) != 2 {
		t.Fatalf("%+v", q.With)
	}
	if s := q.String(); !strings.HasPrefix(s, "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL ") {
		t.Errorf("String: %s", s)
	}
	st, err = ParseOne("WITH c AS (SELECT 1) SELECT * FROM c")
	if err != nil || st.(*Select).With[0].Recursive {
		t.Fatalf("%v %+v", err, st)
	}
}
