package expr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

func call(t *testing.T, stmt *Statement, name string, args ...any) (any, error) {
	t.Helper()
	info := make([]Arg, len(args))
	for i, a := range args {
		info[i] = Arg{Kind: kindOf(a), Const: true, Value: a, Scale: -1}
	}
	c, err := BindCall(name, info, stmt)
	if err != nil {
		return nil, err
	}
	return c.EvalValues(args)
}

func kindOf(v any) Kind {
	switch v.(type) {
	case int64:
		return sqltypes.KindInt
	case uint64:
		return sqltypes.KindUint
	case float64:
		return sqltypes.KindFloat
	case string:
		return sqltypes.KindString
	case time.Time:
		return sqltypes.KindDatetime
	}
	return KindNull
}

func TestRegistryLookupAndArity(t *testing.T) {
	for _, n := range []string{"lower", "LCASE", "Ceil", "CEILING", "pow", "CURRENT_DATE", SearchedCase, CastName} {
		if _, ok := Lookup(n); !ok {
			t.Errorf("Lookup(%q): not found", n)
		}
	}
	if _, err := call(t, nil, "NO_SUCH_FUNCTION"); !errors.Is(err, ErrUnknownFunction) {
		t.Errorf("unknown function: %v", err)
	}
	if _, err := call(t, nil, "LOWER", "a", "b"); !errors.Is(err, ErrArgCount) {
		t.Errorf("LOWER with two arguments: %v", err)
	}
	if _, err := call(t, nil, "ARRAY_HAS_ANY", `["a"]`); !errors.Is(err, ErrArgCount) || !strings.Contains(err.Error(), "at least one value") {
		t.Errorf("ARRAY_HAS_ANY with one argument: %v", err)
	}
	names := Names()
	if len(names) < 100 || !strings.Contains(strings.Join(names, ","), "DATE_FORMAT") {
		t.Errorf("Names() = %d names", len(names))
	}
}

// TestOneNowPerStatement: every NOW() of a statement is its start time.
func TestOneNowPerStatement(t *testing.T) {
	start := time.Date(2026, 12, 2, 1, 2, 3, 456789000, time.UTC)
	st := NewStatement(start)
	a, _ := call(t, st, "NOW")
	time.Sleep(2 * time.Millisecond)
	b, _ := call(t, st, "CURRENT_TIMESTAMP")
	if a != b || !a.(time.Time).Equal(start.Truncate(time.Second)) {
		t.Errorf("NOW() = %v then %v, want %v twice", a, b, start.Truncate(time.Second))
	}
	if d, _ := call(t, st, "CURDATE"); !d.(time.Time).Equal(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("CURDATE() = %v", d)
	}
	if n, _ := call(t, st, "NOW", int64(3)); !n.(time.Time).Equal(time.Date(2026, 12, 2, 1, 2, 3, 456000000, time.UTC)) {
		t.Errorf("NOW(3) = %v", n)
	}
}

// TestValueBound: a built string beyond the statement's bound is NULL with
// warning 1301, as MySQL answers past max_allowed_packet; nothing of that
// size is allocated.
func TestValueBound(t *testing.T) {
	st := NewStatement(time.Now())
	st.MaxValueBytes = 100
	for _, c := range []struct {
		name string
		args []any
	}{
		{"REPEAT", []any{"ab", int64(51)}},
		{"REPEAT", []any{"ab", int64(1) << 62}},
		{"LPAD", []any{"a", int64(101), "x"}},
		{"RPAD", []any{"a", int64(1) << 40, "x"}},
		{"CONCAT", []any{strings.Repeat("a", 60), strings.Repeat("b", 41)}},
		{"REPLACE", []any{strings.Repeat("a", 60), "a", "bb"}},
		{"SPACE", []any{int64(101)}},
	} {
		v, err := call(t, st, c.name, c.args...)
		if err != nil || v != nil {
			t.Errorf("%s: %v, %v; want NULL", c.name, v, err)
		}
	}
	if w := st.Warnings(); len(w) < 7 || w[0].Code != 1301 || !strings.Contains(w[0].Message, "repeat()") {
		t.Errorf("warnings %v", w)
	}
	if v, _ := call(t, st, "REPEAT", "ab", int64(50)); v != strings.Repeat("ab", 50) {
		t.Errorf("REPEAT at the bound: %v", v)
	}
}

// TestLazyBranches: CASE, IF, COALESCE and GREATEST evaluate only what
// they need, so an error in another branch does not fire.
func TestLazyBranches(t *testing.T) {
	boom := errors.New("evaluated")
	for _, c := range []struct {
		name string
		args []any // nil entries: arguments that must not be evaluated when marked
		skip int   // index of the argument that must not be evaluated
		want any
	}{
		{SearchedCase, []any{int64(1), "a", nil}, 2, "a"},
		{SimpleCase, []any{int64(2), int64(2), "two", nil}, 3, "two"},
		{"IF", []any{int64(0), nil, "else"}, 1, "else"},
		{"COALESCE", []any{"x", nil}, 1, "x"},
		{"GREATEST", []any{nil, int64(1)}, 1, nil},
	} {
		info := make([]Arg, len(c.args))
		for i, a := range c.args {
			info[i] = Arg{Kind: kindOf(a)}
		}
		cl, err := BindCall(c.name, info, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cl.Eval(func(i int) (any, error) {
			if i == c.skip {
				return nil, boom
			}
			return c.args[i], nil
		})
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		name string
		args []any
	}{
		{CastName, []any{"1", "JSONB"}},
		{CastName, []any{"1", "DECIMAL(70,2)"}},
		{"DATE_ADD", []any{"2024-01-01", int64(1), "FORTNIGHT"}},
		{"REGEXP_LIKE", []any{"a", "(?P<x"}},
		{"REGEXP_LIKE", []any{"a", `(a)\1`}}, // backreferences: not RE2
		{"REGEXP_LIKE", []any{"a", "a", "q"}},
		{"NOW", []any{int64(7)}},
	} {
		if _, err := call(t, nil, c.name, c.args...); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s%v: %v, want ErrInvalidArgument", c.name, c.args, err)
		}
	}
	if _, err := call(t, nil, "ABS", int64(-9223372036854775808)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("ABS(MinInt64): %v", err)
	}
	if _, err := call(t, nil, "EXP", float64(1000)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("EXP(1000): %v", err)
	}
}

// TestRegexpLinearTime: a pattern that backtracks exponentially in PCRE
// runs in linear time on RE2.
func TestRegexpLinearTime(t *testing.T) {
	s := strings.Repeat("a", 5000) + "!"
	start := time.Now()
	v, err := call(t, nil, "REGEXP_LIKE", s, "^(a+)+$")
	if err != nil || v != int64(0) {
		t.Fatalf("%v, %v", v, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestResultKinds(t *testing.T) {
	for _, c := range []struct {
		name string
		args []Arg
		want Kind
	}{
		{"ROUND", []Arg{{Kind: sqltypes.KindDecimal}}, sqltypes.KindDecimal},
		{"ROUND", []Arg{{Kind: sqltypes.KindInt}}, sqltypes.KindInt},
		{"ROUND", []Arg{{Kind: sqltypes.KindString}}, sqltypes.KindFloat},
		{CastName, []Arg{{Kind: sqltypes.KindString}, {Kind: sqltypes.KindString, Const: true, Value: "DATE"}}, sqltypes.KindDate},
		{CastName, []Arg{{Kind: sqltypes.KindString}, {Kind: sqltypes.KindString, Const: true, Value: "UNSIGNED"}}, sqltypes.KindUint},
		{"DATE_ADD", []Arg{{Kind: sqltypes.KindDate}, {Kind: sqltypes.KindInt}, {Kind: sqltypes.KindString, Const: true, Value: "DAY"}}, sqltypes.KindDate},
		{"DATE_ADD", []Arg{{Kind: sqltypes.KindDate}, {Kind: sqltypes.KindInt}, {Kind: sqltypes.KindString, Const: true, Value: "HOUR"}}, sqltypes.KindDatetime},
		{"IF", []Arg{{Kind: sqltypes.KindInt}, {Kind: sqltypes.KindInt}, {Kind: sqltypes.KindString}}, sqltypes.KindString},
		{"COALESCE", []Arg{{Kind: KindNull}, {Kind: sqltypes.KindInt}}, sqltypes.KindInt},
		{"GREATEST", []Arg{{Kind: sqltypes.KindInt}, {Kind: sqltypes.KindDecimal}}, sqltypes.KindDecimal},
		{"STR_TO_DATE", []Arg{{Kind: sqltypes.KindString}, {Kind: sqltypes.KindString, Const: true, Value: "%d/%m/%Y"}}, sqltypes.KindDate},
	} {
		cl, err := BindCall(c.name, c.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.ResultKind(); got != c.want {
			t.Errorf("%s%v: %v, want %v", c.name, c.args, got, c.want)
		}
	}
}

// TestTextArgsKeepMidnightOfDatetime: a string function reads a DATETIME
// or TIMESTAMP argument as its full text, midnight included, and a DATE
// as the date alone, as MariaDB does (CONCAT(ts) for '2020-01-01
// 00:00:00' is not '2020-01-01').
func TestTextArgsKeepMidnightOfDatetime(t *testing.T) {
	midnight := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		fn   string
		kind Kind
		want any
	}{
		{"CONCAT", sqltypes.KindDatetime, "2020-01-01 00:00:00"},
		{"CONCAT", sqltypes.KindTimestamp, "2020-01-01 00:00:00"},
		{"CONCAT", sqltypes.KindDate, "2020-01-01"},
		{"LENGTH", sqltypes.KindDatetime, int64(19)},
		{"LENGTH", sqltypes.KindDate, int64(10)},
		{"REVERSE", sqltypes.KindDatetime, "00:00:00 10-10-0202"},
	} {
		c, err := BindCall(tc.fn, []Arg{{Kind: tc.kind, Scale: -1}}, NewStatement(time.Time{}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.EvalValues([]any{midnight})
		if err != nil || got != tc.want {
			t.Errorf("%s(%v midnight) = %#v, %v; want %#v", tc.fn, tc.kind, got, err, tc.want)
		}
	}
	// Date functions still receive the time itself.
	c, err := BindCall("HOUR", []Arg{{Kind: sqltypes.KindDatetime, Scale: -1}}, NewStatement(time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.EvalValues([]any{midnight.Add(5 * time.Hour)}); err != nil || got != int64(5) {
		t.Errorf("HOUR = %#v, %v", got, err)
	}
}

// TestToTimeCompactYears: compact date strings read their year as
// written when it has four digits ('00700710' is 0070-07-10), and by
// MySQL's two-digit rule when it has two ('700710' is 1970-07-10), as
// MariaDB does (differential seed 11); the number 700710 is YYMMDD.
func TestToTimeCompactYears(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string // "" for no time
	}{
		{"00700710", "0070-07-10 00:00:00"},
		{"700710", "1970-07-10 00:00:00"},
		{"690710", "2069-07-10 00:00:00"},
		{int64(700710), "1970-07-10 00:00:00"},
		{"20240229", "2024-02-29 00:00:00"},
		{"20230229", ""},
		{"00001231235959", "0000-12-31 23:59:59"},
		{"991231235959", "1999-12-31 23:59:59"},
		{"00000000", ""},
	} {
		got, ok := ToTime(tc.in)
		text := ""
		if ok {
			text = got.Format("2006-01-02 15:04:05")
		}
		if text != tc.want {
			t.Errorf("ToTime(%#v) = %q, want %q", tc.in, text, tc.want)
		}
	}
}

// TestUnionOfBranchesTakesLargestScale: COALESCE / IFNULL / IF / CASE
// over a DECIMAL(12,3) and a literal with fewer decimals answer the
// literal at scale 3, as MySQL types the result (differential seed 19:
// COUNT(DISTINCT COALESCE(d, 2.50)) counted 2.50 and 2.500 apart).
func TestUnionOfBranchesTakesLargestScale(t *testing.T) {
	dec3 := Arg{Kind: sqltypes.KindDecimal, Scale: 3}
	lit := func(v string, scale int) Arg {
		return Arg{Kind: sqltypes.KindDecimal, Const: true, Value: sqltypes.Decimal(v), Scale: scale}
	}
	for _, tc := range []struct {
		fn   string
		args []Arg
		vals []any
		want any
	}{
		{"COALESCE", []Arg{dec3, lit("2.50", 2)}, []any{nil, sqltypes.Decimal("2.50")}, "2.500"},
		{"IFNULL", []Arg{dec3, {Kind: sqltypes.KindInt, Scale: -1}}, []any{nil, int64(7)}, "7.000"},
		{"IF", []Arg{{Kind: sqltypes.KindInt, Scale: -1}, lit("1.5", 1), dec3}, []any{int64(1), sqltypes.Decimal("1.5"), nil}, "1.500"},
		{"COALESCE", []Arg{dec3, lit("2.50", 2)}, []any{sqltypes.Decimal("1.250"), nil}, "1.250"},
		// A branch of unknown scale leaves the value as it is.
		{"COALESCE", []Arg{{Kind: sqltypes.KindDecimal, Scale: -1}, lit("2.50", 2)}, []any{nil, sqltypes.Decimal("2.50")}, "2.50"},
	} {
		c, err := BindCall(tc.fn, tc.args, NewStatement(time.Time{}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.EvalValues(tc.vals)
		if s, ok := got.(sqltypes.Decimal); ok {
			got = string(s)
		}
		if err != nil || got != tc.want {
			t.Errorf("%s%v = %#v, %v; want %#v", tc.fn, tc.vals, got, err, tc.want)
		}
	}
}
