package expr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// jsonArg marks a test argument of kind JSON (a JSON column's value).
type jsonArg string

// boolArg marks TRUE/FALSE literals (kind BOOLEAN, value 1 or 0).
type boolArg int64

func jcall(t *testing.T, name string, args ...any) (any, error) {
	t.Helper()
	info := make([]Arg, len(args))
	vals := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case jsonArg:
			info[i], vals[i] = Arg{Kind: sqltypes.KindJSON, Scale: -1}, string(x)
		case boolArg:
			info[i], vals[i] = Arg{Kind: sqltypes.KindBool, Const: true, Value: int64(x), Scale: -1}, int64(x)
		default:
			info[i], vals[i] = Arg{Kind: kindOf(a), Const: true, Value: a, Scale: -1}, a
		}
	}
	c, err := BindCall(name, info, NewStatement(time.Time{}))
	if err != nil {
		return nil, err
	}
	return c.EvalValues(vals)
}

// TestJSONFunctions: the examples of MySQL 8's manual (and the cases
// around them), with MySQL's answers.
func TestJSONFunctions(t *testing.T) {
	obj := `{"a": 1, "b": 2, "c": {"d": 4}}`
	for _, c := range []struct {
		name string
		args []any
		want any
	}{
		{"JSON_EXTRACT", []any{"[10, 20, [30, 40]]", "$[1]"}, "20"},
		{"JSON_EXTRACT", []any{"[10, 20, [30, 40]]", "$[1]", "$[0]"}, "[20, 10]"},
		{"JSON_EXTRACT", []any{"[10, 20, [30, 40]]", "$[2][*]"}, "[30, 40]"},
		{"JSON_EXTRACT", []any{`{"a": 1}`, "$.b"}, nil},
		{"JSON_EXTRACT", []any{`{"a": 1, "b": 2, "c": [3, 4, 5]}`, "$.*"}, "[1, 2, [3, 4, 5]]"},
		{"JSON_EXTRACT", []any{`{"a": 1, "b": 2, "c": [3, 4, 5]}`, "$.c[*]"}, "[3, 4, 5]"},
		{"JSON_EXTRACT", []any{`{"a": {"b": 1}, "c": {"b": 2}}`, "$**.b"}, "[1, 2]"},
		{"JSON_EXTRACT", []any{`[1, 2, 3]`, "$[last]"}, "3"},
		{"JSON_EXTRACT", []any{`[1, 2, 3]`, "$[last-1]"}, "2"},
		{"JSON_EXTRACT", []any{`[1, 2, 3]`, "$[0 to 1]"}, "[1, 2]"},
		{"JSON_EXTRACT", []any{`[1, 2, 3]`, "$[5]"}, nil},
		{"JSON_EXTRACT", []any{`{"a b": {"c": "x"}}`, `$."a b".c`}, `"x"`},
		{"JSON_EXTRACT", []any{`"s"`, "$[0]"}, `"s"`},
		{"JSON_EXTRACT", []any{jsonArg(`{"a": [1, {"b": null}]}`), "$.a[1].b"}, "null"},
		{"JSON_EXTRACT", []any{nil, "$"}, nil},
		{"JSON_EXTRACT", []any{"[1]", nil}, nil},
		{"JSON_UNQUOTE", []any{`"abc"`}, "abc"},
		{"JSON_UNQUOTE", []any{`[1]`}, "[1]"},
		{"JSON_UNQUOTE", []any{`"\t\u0032"`}, "\t2"},
		{"JSON_UNQUOTE", []any{jsonArg(`"x\"y"`)}, `x"y`},
		{"JSON_UNQUOTE", []any{jsonArg(`{"a": 1}`)}, `{"a": 1}`},
		{"JSON_QUOTE", []any{"null"}, `"null"`},
		{"JSON_QUOTE", []any{`"null"`}, `"\"null\""`},
		{"JSON_OBJECT", []any{"id", int64(87), "name", "carrot"}, `{"id": 87, "name": "carrot"}`},
		{"JSON_OBJECT", []any{}, `{}`},
		{"JSON_OBJECT", []any{"a", jsonArg("[1, 2]"), "b", "[1, 2]", "a", nil}, `{"a": null, "b": "[1, 2]"}`},
		{"JSON_ARRAY", []any{int64(1), "abc", nil, boolArg(1), 1.5}, `[1, "abc", null, true, 1.5]`},
		{"JSON_ARRAY", []any{}, `[]`},
		{"JSON_TYPE", []any{`["a", "b", 1]`}, "ARRAY"},
		{"JSON_TYPE", []any{`"hello"`}, "STRING"},
		{"JSON_TYPE", []any{`1`}, "INTEGER"},
		{"JSON_TYPE", []any{`18446744073709551615`}, "UNSIGNED INTEGER"},
		{"JSON_TYPE", []any{`1.5`}, "DOUBLE"},
		{"JSON_TYPE", []any{`true`}, "BOOLEAN"},
		{"JSON_TYPE", []any{`null`}, "NULL"},
		{"JSON_TYPE", []any{`{}`}, "OBJECT"},
		{"JSON_TYPE", []any{nil}, nil},
		{"JSON_VALID", []any{`{"a": 1}`}, int64(1)},
		{"JSON_VALID", []any{`hello`}, int64(0)},
		{"JSON_VALID", []any{`"hello"`}, int64(1)},
		{"JSON_VALID", []any{nil}, nil},
		{"JSON_LENGTH", []any{`[1, 2, {"a": 3}]`}, int64(3)},
		{"JSON_LENGTH", []any{`{"a": 1, "b": {"c": 30}}`}, int64(2)},
		{"JSON_LENGTH", []any{`{"a": 1, "b": {"c": 30}}`, "$.b"}, int64(1)},
		{"JSON_LENGTH", []any{`{"a": 1}`, "$.z"}, nil},
		{"JSON_LENGTH", []any{`"x"`}, int64(1)},
		{"JSON_DEPTH", []any{`{}`}, int64(1)},
		{"JSON_DEPTH", []any{`[10, 20]`}, int64(2)},
		{"JSON_DEPTH", []any{`[10, {"a": 20}]`}, int64(3)},
		{"JSON_KEYS", []any{`{"a": 1, "b": {"c": 30}}`}, `["a", "b"]`},
		{"JSON_KEYS", []any{`{"a": 1, "b": {"c": 30}}`, "$.b"}, `["c"]`},
		{"JSON_KEYS", []any{`[1]`}, nil},
		{"JSON_CONTAINS", []any{obj, "1", "$.a"}, int64(1)},
		{"JSON_CONTAINS", []any{obj, `{"d": 4}`, "$.a"}, int64(0)},
		{"JSON_CONTAINS", []any{obj, `{"d": 4}`, "$.c"}, int64(1)},
		{"JSON_CONTAINS", []any{obj, `{"a": 1.0}`}, int64(1)},
		{"JSON_CONTAINS", []any{obj, "1", "$.z"}, nil},
		{"JSON_CONTAINS", []any{`[1, 2, [3, 4]]`, `[1, 3]`}, int64(1)},
		{"JSON_CONTAINS", []any{`[1, 2, [3, 4]]`, `[[3]]`}, int64(1)},
		{"JSON_CONTAINS", []any{`[1, 2]`, `5`}, int64(0)},
		{"JSON_CONTAINS", []any{`{"a": [1, 2]}`, `[1]`}, int64(0)},
		{"JSON_CONTAINS", []any{`"a"`, `"a"`}, int64(1)},
		{"JSON_CONTAINS_PATH", []any{obj, "one", "$.a", "$.e"}, int64(1)},
		{"JSON_CONTAINS_PATH", []any{obj, "all", "$.a", "$.e"}, int64(0)},
		{"JSON_CONTAINS_PATH", []any{obj, "One", "$.c.d"}, int64(1)},
		{"JSON_CONTAINS_PATH", []any{obj, "one", "$.a.d"}, int64(0)},
		{"JSON_CONTAINS_PATH", []any{obj, "one", "$**.d"}, int64(1)},
		{"JSON_SET", []any{`{ "a": 1, "b": [2, 3]}`, "$.a", int64(10), "$.c", "[true, false]"}, `{"a": 10, "b": [2, 3], "c": "[true, false]"}`},
		{"JSON_INSERT", []any{`{ "a": 1, "b": [2, 3]}`, "$.a", int64(10), "$.c", "[true, false]"}, `{"a": 1, "b": [2, 3], "c": "[true, false]"}`},
		{"JSON_REPLACE", []any{`{ "a": 1, "b": [2, 3]}`, "$.a", int64(10), "$.c", "[true, false]"}, `{"a": 10, "b": [2, 3]}`},
		{"JSON_SET", []any{`{"a": 1}`, "$.c", jsonArg("[true, false]")}, `{"a": 1, "c": [true, false]}`},
		{"JSON_SET", []any{`[1, 2]`, "$[5]", int64(9), "$[0]", "x"}, `["x", 2, 9]`},
		{"JSON_INSERT", []any{`[1, 2]`, "$[1]", int64(9), "$[2]", int64(3)}, `[1, 2, 3]`},
		{"JSON_REPLACE", []any{`[1, 2]`, "$[2]", int64(9), "$[last]", int64(3)}, `[1, 3]`},
		{"JSON_SET", []any{`"x"`, "$[1]", "a"}, `["x", "a"]`},
		{"JSON_SET", []any{`"x"`, "$[0]", "a"}, `"a"`},
		{"JSON_SET", []any{`{"a": 1}`, "$", jsonArg("[1]")}, `[1]`},
		{"JSON_SET", []any{`{"a": 1}`, "$.b.c", int64(1)}, `{"a": 1}`},
		{"JSON_SET", []any{`{"a": 1}`, nil, int64(1)}, nil},
		{"JSON_REMOVE", []any{`["a", ["b", "c"], "d"]`, "$[1]"}, `["a", "d"]`},
		{"JSON_REMOVE", []any{`{"a": 1, "b": {"c": 2, "d": 3}}`, "$.b.c", "$.z"}, `{"a": 1, "b": {"d": 3}}`},
		{"JSON_ARRAY_APPEND", []any{`["a", ["b", "c"], "d"]`, "$[1]", int64(1)}, `["a", ["b", "c", 1], "d"]`},
		{"JSON_ARRAY_APPEND", []any{`["a", ["b", "c"], "d"]`, "$[0]", int64(2)}, `[["a", 2], ["b", "c"], "d"]`},
		{"JSON_ARRAY_APPEND", []any{`["a", ["b", "c"], "d"]`, "$[1][0]", int64(3)}, `["a", [["b", 3], "c"], "d"]`},
		{"JSON_ARRAY_APPEND", []any{`{"a": 1, "b": [2, 3], "c": 4}`, "$.b", "x"}, `{"a": 1, "b": [2, 3, "x"], "c": 4}`},
		{"JSON_ARRAY_APPEND", []any{`{"a": 1, "b": [2, 3], "c": 4}`, "$.c", "y"}, `{"a": 1, "b": [2, 3], "c": [4, "y"]}`},
		{CastName, []any{`[1, {"b":2}]`, "JSON"}, `[1, {"b": 2}]`},
		{CastName, []any{int64(1), "JSON"}, `1`},
		{CastName, []any{1.5, "JSON"}, `1.5`},
		{CastName, []any{nil, "JSON"}, nil},
	} {
		got, err := jcall(t, c.name, c.args...)
		if err != nil || got != c.want {
			t.Errorf("%s%v = %#v, %v; want %#v", c.name, c.args, got, err, c.want)
		}
	}
}

func TestJSONFunctionErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []any
		code string
	}{
		{"JSON_EXTRACT", []any{`{bad`, "$"}, "3140"},
		{"JSON_EXTRACT", []any{int64(1), "$"}, "3146"},
		{"JSON_EXTRACT", []any{`{}`, "$a"}, "3143"},
		{"JSON_EXTRACT", []any{`{}`, "a"}, "3143"},
		{"JSON_EXTRACT", []any{`{}`, "$[1"}, "3143"},
		{"JSON_EXTRACT", []any{`{}`, "$**"}, "3143"},
		{"JSON_SET", []any{`{}`, "$.*", int64(1)}, "3149"},
		{"JSON_LENGTH", []any{`[1]`, "$[*]"}, "3149"},
		{"JSON_REMOVE", []any{`{}`, "$"}, "3153"},
		{"JSON_CONTAINS_PATH", []any{`{}`, "any", "$"}, "3150"},
		{"JSON_OBJECT", []any{nil, int64(1)}, "3158"},
		{"JSON_OBJECT", []any{"a"}, "parameter count"},
		{"JSON_SET", []any{`{}`, "$.a"}, "parameter count"},
		{CastName, []any{`{"a":`, "JSON"}, "3140"},
	} {
		_, err := jcall(t, c.name, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.code) {
			t.Errorf("%s%v: %v, want error %s", c.name, c.args, err, c.code)
		}
		if err != nil && !errors.Is(err, ErrInvalidArgument) && !errors.Is(err, sqltypes.ErrInvalidJSON) && !errors.Is(err, ErrArgCount) {
			t.Errorf("%s%v: untyped error %v", c.name, c.args, err)
		}
	}
}

// TestJSONValueBound: a JSON result beyond MaxValueBytes is NULL with
// warning 1301, as other built values.
func TestJSONValueBound(t *testing.T) {
	st := NewStatement(time.Time{})
	st.MaxValueBytes = 16
	c, err := BindCall("JSON_ARRAY", []Arg{{Kind: sqltypes.KindString, Scale: -1}}, st)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.EvalValues([]any{strings.Repeat("x", 20)})
	if err != nil || v != nil || !st.TakeOverflow() {
		t.Errorf("JSON_ARRAY past the bound: %#v, %v", v, err)
	}
}

func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{"$", "$.a", `$."a b"[1 to 3]`, "$**.x[last-1]", "$[*].*"} {
		f.Add(s, `{"a": [1, {"x": [2, 3]}], "a b": [0, 1, 2, 3]}`)
	}
	f.Fuzz(func(t *testing.T, path, doc string) {
		for _, name := range []string{"JSON_EXTRACT", "JSON_SET", "JSON_REMOVE", "JSON_CONTAINS_PATH"} {
			args := []any{doc, path, int64(1)}
			if name == "JSON_EXTRACT" || name == "JSON_REMOVE" {
				args = args[:2]
			}
			if name == "JSON_CONTAINS_PATH" {
				args = []any{doc, "one", path}
			}
			jcall(t, name, args...)
		}
	})
}

// TestJSONPathCost: a path whose ** legs multiply is refused, not run.
func TestJSONPathCost(t *testing.T) {
	doc := strings.Repeat("[", 90) + strings.Repeat("]", 90)
	_, err := jcall(t, "JSON_EXTRACT", doc, "$"+strings.Repeat("**[0]", 6))
	if !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("costly path: %v", err)
	}
}

func TestJSONMergeOverlapsPretty(t *testing.T) {
	for _, c := range []struct {
		name string
		args []any
		want any
	}{
		{"JSON_MERGE_PRESERVE", []any{"[1, 2]", "[true, false]"}, "[1, 2, true, false]"},
		{"JSON_MERGE_PRESERVE", []any{`{"name": "x"}`, `{"id": 47}`}, `{"id": 47, "name": "x"}`},
		{"JSON_MERGE_PRESERVE", []any{"1", "true"}, "[1, true]"},
		{"JSON_MERGE_PRESERVE", []any{"[1, 2]", `{"id": 47}`}, `[1, 2, {"id": 47}]`},
		{"JSON_MERGE_PRESERVE", []any{`{ "a": 1, "b": 2 }`, `{ "a": 3, "c": 4 }`}, `{"a": [1, 3], "b": 2, "c": 4}`},
		{"JSON_MERGE_PRESERVE", []any{`{ "a": 1, "b": 2 }`, `{ "a": 3, "c": 4 }`, `{ "a": 5, "d": 6 }`}, `{"a": [1, 3, 5], "b": 2, "c": 4, "d": 6}`},
		{"JSON_MERGE", []any{"[1]", nil}, nil},
		{"JSON_MERGE_PATCH", []any{"[1, 2]", "[true, false]"}, "[true, false]"},
		{"JSON_MERGE_PATCH", []any{`{"name": "x"}`, `{"id": 47}`}, `{"id": 47, "name": "x"}`},
		{"JSON_MERGE_PATCH", []any{"1", "true"}, "true"},
		{"JSON_MERGE_PATCH", []any{"[1, 2]", `{"id": 47}`}, `{"id": 47}`},
		{"JSON_MERGE_PATCH", []any{`{ "a": 1, "b":2 }`, `{ "a": 3, "c":4 }`}, `{"a": 3, "b": 2, "c": 4}`},
		{"JSON_MERGE_PATCH", []any{`{ "a": 1, "b":2 }`, `{ "a": 3, "c":4 }`, `{ "a": 5, "d":6 }`}, `{"a": 5, "b": 2, "c": 4, "d": 6}`},
		{"JSON_MERGE_PATCH", []any{`{"a":1, "b":2}`, `{"b":null}`}, `{"a": 1}`},
		{"JSON_MERGE_PATCH", []any{`{"a":{"x":1}}`, `{"a":{"y":2}}`}, `{"a": {"x": 1, "y": 2}}`},
		{"JSON_OVERLAPS", []any{"[1,3,5,7]", "[2,5,7]"}, int64(1)},
		{"JSON_OVERLAPS", []any{"[1,3,5,7]", "[2,6,8]"}, int64(0)},
		{"JSON_OVERLAPS", []any{"[[1,2],[3,4],5]", "[1,[2,3],[4,5]]"}, int64(0)},
		{"JSON_OVERLAPS", []any{`{"a":1,"b":10,"d":10}`, `{"c":1,"e":10,"f":1,"d":10}`}, int64(1)},
		{"JSON_OVERLAPS", []any{`{"a":1,"b":10,"d":10}`, `{"a":5,"e":10,"f":1,"d":20}`}, int64(0)},
		{"JSON_OVERLAPS", []any{"5", "5"}, int64(1)},
		{"JSON_OVERLAPS", []any{"[4,5,6,7]", "6"}, int64(1)},
		{"JSON_OVERLAPS", []any{"[4,5,\"6\",7]", "6"}, int64(0)},
		{"JSON_PRETTY", []any{"123"}, "123"},
		{"JSON_PRETTY", []any{"[1,3,5]"}, "[\n  1,\n  3,\n  5\n]"},
		{"JSON_PRETTY", []any{`{"a":"10","b":"15","x":"25"}`}, "{\n  \"a\": \"10\",\n  \"b\": \"15\",\n  \"x\": \"25\"\n}"},
		{"JSON_PRETTY", []any{`["a",1,{"key1":"value1"},"5","77",{"key2":["value3","valueX","valueY"]},"j","2"]`},
			"[\n  \"a\",\n  1,\n  {\n    \"key1\": \"value1\"\n  },\n  \"5\",\n  \"77\",\n  {\n    \"key2\": [\n      \"value3\",\n      \"valueX\",\n      \"valueY\"\n    ]\n  },\n  \"j\",\n  \"2\"\n]"},
		{"JSON_PRETTY", []any{`{"e": [], "o": {}}`}, "{\n  \"e\": [],\n  \"o\": {}\n}"},
	} {
		got, err := jcall(t, c.name, c.args...)
		if err != nil || got != c.want {
			t.Errorf("%s%v = %#v, %v; want %#v", c.name, c.args, got, err, c.want)
		}
	}
	// A result nested deeper than MySQL's 100 levels is error 3157.
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := jcall(t, "JSON_ARRAY", jsonArg(deep)); err == nil || !strings.Contains(err.Error(), "3157") {
		t.Errorf("JSON_ARRAY of a 100-deep document: %v, want error 3157", err)
	}
}

// TestJSONSearch: the manual's examples of JSON_SEARCH.
func TestJSONSearch(t *testing.T) {
	j := `["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]`
	for _, c := range []struct {
		args []any
		want any
	}{
		{[]any{j, "one", "abc"}, `"$[0]"`},
		{[]any{j, "all", "abc"}, `["$[0]", "$[2].x"]`},
		{[]any{j, "all", "ghi"}, nil},
		{[]any{j, "all", "10"}, `"$[1][0].k"`},
		{[]any{j, "all", "10", nil, "$"}, `"$[1][0].k"`},
		{[]any{j, "all", "10", nil, "$[*]"}, `"$[1][0].k"`},
		{[]any{j, "all", "10", nil, "$**.k"}, `"$[1][0].k"`},
		{[]any{j, "all", "10", nil, "$[*][0].k"}, `"$[1][0].k"`},
		{[]any{j, "all", "10", nil, "$[1]"}, `"$[1][0].k"`},
		{[]any{j, "all", "10", nil, "$[1][0]"}, `"$[1][0].k"`},
		{[]any{j, "all", "abc", nil, "$[2]"}, `"$[2].x"`},
		{[]any{j, "all", "%a%"}, `["$[0]", "$[2].x"]`},
		{[]any{j, "all", "%b%"}, `["$[0]", "$[2].x", "$[3].y"]`},
		{[]any{j, "all", "%b%", nil, "$[0]"}, `"$[0]"`},
		{[]any{j, "all", "%b%", nil, "$[2]"}, `"$[2].x"`},
		{[]any{j, "all", "%b%", nil, "$[1]"}, nil},
		{[]any{j, "all", "%b%", "", "$[1]"}, nil},
		{[]any{j, "all", "%b%", "", "$[3]"}, `"$[3].y"`},
		{[]any{`{"a b": "x_y", "c": "xzy"}`, "all", `x\_y`}, `"$.\"a b\""`},
		{[]any{`{"a b": "x_y", "c": "xzy"}`, "all", `x_y`}, `["$.c", "$.\"a b\""]`},
		{[]any{j, "one", nil}, nil},
	} {
		got, err := jcall(t, "JSON_SEARCH", c.args...)
		if err != nil || got != c.want {
			t.Errorf("JSON_SEARCH%v = %#v, %v; want %#v", c.args, got, err, c.want)
		}
	}
	if _, err := jcall(t, "JSON_SEARCH", j, "any", "x"); err == nil || !strings.Contains(err.Error(), "3150") {
		t.Errorf("JSON_SEARCH with mode any: %v", err)
	}
}

func TestMemberOf(t *testing.T) {
	arr := `[23, "abc", 17, "ab", 10, [4, 5]]`
	for _, c := range []struct {
		x    any
		want any
	}{
		{int64(17), int64(1)}, {"ab", int64(1)}, {"a", int64(0)}, {"[4, 5]", int64(0)},
		{jsonArg("[4, 5]"), int64(1)}, {17.0, int64(1)}, {nil, nil},
	} {
		got, err := jcall(t, "MEMBER OF", c.x, arr)
		if err != nil || got != c.want {
			t.Errorf("%v MEMBER OF (%s) = %#v, %v; want %#v", c.x, arr, got, err, c.want)
		}
	}
	if got, _ := jcall(t, "MEMBER OF", int64(5), "5"); got != int64(1) {
		t.Errorf("5 MEMBER OF ('5') = %v (a scalar is an array of one)", got)
	}
}
