package sqlparse

import (
	"database/sql/driver"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func pos(vals ...any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(vals))
	for i, v := range vals {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

type valuer struct{ v any }

func (v valuer) Value() (driver.Value, error) { return v.v, nil }

func TestBind(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		args []driver.NamedValue
		want string
	}{
		{"positional", "SELECT * FROM t WHERE a = ? AND b = ?", pos(int64(1), "x"), "SELECT * FROM t WHERE a = 1 AND b = 'x'"},
		{"no placeholders", "SELECT 1", nil, "SELECT 1"},
		{"ordinal order", "SELECT ?, ?", []driver.NamedValue{{Ordinal: 2, Value: int64(2)}, {Ordinal: 1, Value: int64(1)}}, "SELECT 1, 2"},
		{"named colon and at, reused", "SELECT :a, @b, :a", []driver.NamedValue{{Name: "a", Ordinal: 1, Value: "x"}, {Name: "b", Ordinal: 2, Value: true}}, "SELECT 'x', TRUE, 'x'"},
		{"mixed", "SELECT ?, :n, ?", []driver.NamedValue{{Ordinal: 1, Value: int64(1)}, {Name: "n", Ordinal: 2, Value: nil}, {Ordinal: 3, Value: int64(3)}}, "SELECT 1, NULL, 3"},
		{"not placeholders in strings, names, comments", "SELECT '?', \"?:a\", `?`, ? /* ? :a @a */ # ?\n-- ? :a\n", pos(int64(7)), "SELECT '?', \"?:a\", `?`, 7 /* ? :a @a */ # ?\n-- ? :a\n"},
		{"system variables untouched", "SELECT @@version, ?", pos(int64(1)), "SELECT @@version, 1"},
		{"user variables untouched without named arguments", "LOAD DATA INFILE 'f' INTO TABLE t (a, @b) SET c = @b + ?", pos(int64(1)), "LOAD DATA INFILE 'f' INTO TABLE t (a, @b) SET c = @b + 1"},
		{"separated from words", "SELECT * FROM t LIMIT?", pos(int64(5)), "SELECT * FROM t LIMIT 5"},
		{"negative parenthesized", "SELECT x-?", pos(int64(-5)), "SELECT x-(-5)"},
		{"string escapes", "SELECT ?", pos("it's a \\ back\nslash\x00\x1a\r"), `SELECT 'it''s a \\ back\nslash\0\Z\r'`},
		{"bytes", "SELECT ?", pos([]byte{0, 0xab, 'z'}), "SELECT X'00ab7a'"},
		{"nil bytes", "SELECT ?", pos([]byte(nil)), "SELECT NULL"},
		{"floats", "SELECT ?, ?, ?, ?", pos(1.5, float64(3), -2.5, float32(0.25)), "SELECT 1.5e0, 3e0, (-2.5e0), 0.25e0"},
		{"ints", "SELECT ?, ?, ?", pos(int8(-8), uint64(math.MaxUint64), int(42)), "SELECT (-8), 18446744073709551615, 42"},
		{"time in UTC", "SELECT ?", pos(time.Date(2024, 2, 3, 4, 5, 6, 789000000, time.FixedZone("x", 3600))), "SELECT '2024-02-03 03:05:06.789'"},
		{"decimal", "SELECT ?, ?", pos(Decimal("12.50"), Decimal("-1")), "SELECT 12.50, (-1)"},
		{"valuer", "SELECT ?", pos(valuer{"v"}), "SELECT 'v'"},
		{"vectors", "SELECT ?, ?", pos([]float32{0.1, -2}, []float64{0.5}), "SELECT '[0.1, -2]', '[0.5]'"},
		{"multivectors", "SELECT ?, ?", pos([][]float32{{0.1, -2}, {3, 4}}, [][]float64{{0.5}}), "SELECT '[[0.1, -2], [3, 4]]', '[[0.5]]'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Bind(tt.sql, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	tests := []struct {
		name, sql string
		args      []driver.NamedValue
		msg       string
	}{
		{"too few", "SELECT ?, ?", pos(int64(1)), "2 ? placeholders but 1 positional"},
		{"too many", "SELECT ?", pos(int64(1), int64(2)), "1 ? placeholders but 2 positional"},
		{"missing named", "SELECT :a", nil, `no argument named "a"`},
		{"unused named", "SELECT 1", []driver.NamedValue{{Name: "a", Value: int64(1)}}, `"a" is not used`},
		{"duplicate named", "SELECT :a", []driver.NamedValue{{Name: "a", Value: int64(1)}, {Name: "a", Value: int64(2)}}, "given twice"},
		{"NaN", "SELECT ?", pos(math.NaN()), "cannot bind NaN"},
		{"Inf", "SELECT ?", pos(math.Inf(1)), "cannot bind +Inf"},
		{"NaN in a multivector", "SELECT ?", pos([][]float64{{1}, {math.NaN()}}), "cannot bind a vector holding NaN"},
		{"bad type", "SELECT ?", pos(struct{}{}), "unsupported argument type"},
		{"bad decimal", "SELECT ?", pos(Decimal("1; DROP")), "invalid decimal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Bind(tt.sql, tt.args)
			if !errors.Is(err, ErrBind) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want ErrBind containing %q", err, tt.msg)
			}
		})
	}
	_, err := Bind("SELECT 'open", nil)
	if !errors.Is(err, ErrSyntax) {
		t.Errorf("unterminated: %v", err)
	}
}

// TestBindInjection binds hostile strings and checks that the result is still one statement
// whose literal is exactly the bound value.
func TestBindInjection(t *testing.T) {
	hostile := []string{
		"x'); DROP TABLE y; --",
		`x\'; DROP TABLE y; --`,
		`\`,
		`'`,
		"''",
		"a\\' OR 1=1 #",
		"*/ DROP TABLE y; /*",
		"`; DROP TABLE y; `",
		"\"; DROP TABLE y; --",
		"? :a @b",
		"\x00\x1a\r\n\t\b",
		"日本語 ünï©ødé",
	}
	for _, h := range hostile {
		bound, err := Bind("SELECT * FROM t WHERE name = ? AND n = 1", pos(h))
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := Parse(bound)
		if err != nil {
			t.Fatalf("%q bound to %q: %v", h, bound, err)
		}
		if len(stmts) != 1 {
			t.Fatalf("%q bound to %q gives %d statements", h, bound, len(stmts))
		}
		where := stmts[0].(*Select).Where.(*Binary)
		eq := where.L.(*Binary)
		if got := eq.R.(*Literal).Value; got != h {
			t.Errorf("%q read back as %q", h, got)
		}
		// The same through CALL (TiDB) and COMMENT (own parser).
		bound, _ = Bind("CALL f(?)", pos(h))
		if c := parseOne(t, bound).(*Call); c.Args[0] != h {
			t.Errorf("CALL: %q read back as %q", h, c.Args[0])
		}
		bound, _ = Bind("CREATE SCHEMA s COMMENT ?", pos(h))
		if c := parseOne(t, bound).(*CreateSchema); *c.Comment != h {
			t.Errorf("COMMENT: %q read back as %q", h, *c.Comment)
		}
	}
}

// TestBindRoundTrip checks that bound values read back as the same Go values.
func TestBindRoundTrip(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	tests := []struct {
		in   any
		want any
	}{
		{int64(-9223372036854775808), int64(-9223372036854775808)},
		{uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{1.25, 1.25},
		{-1e300, -1e300},
		{all, all},
		{nil, nil},
		{Decimal("-3.14"), Decimal("-3.14")},
		{true, int64(1)},
	}
	for _, tt := range tests {
		bound, err := Bind("CALL f(?)", pos(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		c := parseOne(t, bound).(*Call)
		if !reflect.DeepEqual(c.Args[0], tt.want) {
			t.Errorf("%v bound as %q reads back as %#v", tt.in, bound, c.Args[0])
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{
		"abc": "abc", "a_1": "a_1", "1a": "`1a`", "a b": "`a b`", "a`b": "`a``b`", "select": "`select`",
		"comment": "`comment`", "": "``", "é": "`é`", "a.b": "`a.b`",
	} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (Name{"a.b", "c", "x`y"}).String(); got != "`a.b`.c.`x``y`" {
		t.Errorf("Name.String = %q", got)
	}
}
