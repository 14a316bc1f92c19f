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
