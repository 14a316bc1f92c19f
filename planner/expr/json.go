package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/sqltypes/jsonb"
)

// JSON functions, with MySQL 8's semantics. A JSON value travels as its
// normalized text (jsonb.Format: `{"a": 1, "b": [1, 2]}`) with the kind
// KindJSON, as a JSON column reads; a function re-parses it. Where a
// function takes a JSON document, a string argument is parsed as JSON text
// (invalid text is MySQL's error 3140) and other types are error 3146;
// where it takes a value (JSON_OBJECT, JSON_ARRAY, the values of JSON_SET),
// a JSON argument is that document, a string is a JSON string, numbers are
// numbers, TRUE/FALSE booleans and NULL JSON null.
//
// Also JSON_MERGE_PRESERVE (JSON_MERGE), JSON_MERGE_PATCH, JSON_OVERLAPS,
// JSON_PRETTY, JSON_SEARCH and x MEMBER OF (json_array).
//
// Paths are MySQL's: $, .key, ."quoted key", .*, [n], [last], [last-n],
// [m to n], [*] and **; functions that change a document take no
// wildcards or ranges (error 3149).
//
// Where lancecat differs from MySQL 8 (JSON has no DECIMAL, DATE or
// opaque scalars in the Lance JSONB layout): a DECIMAL argument becomes a
// double (JSON_ARRAY(1.50) is [1.5], MySQL's [1.50]), dates and times
// become strings, and comparing a JSON value with = compares its text
// (j->'$.a' = 1 holds for the number 1; for strings use ->>). MariaDB,
// which stores JSON as text, prints JSON_OBJECT and JSON_ARRAY with the
// spacing of its arguments; lancecat follows MySQL 8's normalized text.

func init() {
	jsonResult := fixed(sqltypes.KindJSON)
	register(
		&Func{Name: "JSON_EXTRACT", MinArgs: 2, MaxArgs: -1, Result: jsonResult, Eval: evalJSONExtract},
		&Func{Name: "JSON_UNQUOTE", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: evalJSONUnquote},
		&Func{Name: "JSON_QUOTE", MinArgs: 1, MaxArgs: 1, Result: jsonResult, Eval: evalJSONQuote},
		&Func{Name: "JSON_OBJECT", MinArgs: 0, MaxArgs: -1, Result: jsonResult, Eval: evalJSONObject},
		&Func{Name: "JSON_ARRAY", MinArgs: 0, MaxArgs: -1, Result: jsonResult, Eval: evalJSONArray},
		&Func{Name: "JSON_TYPE", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: evalJSONType},
		&Func{Name: "JSON_VALID", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: evalJSONValid},
		&Func{Name: "JSON_LENGTH", MinArgs: 1, MaxArgs: 2, Result: resultInt, Eval: evalJSONLength},
		&Func{Name: "JSON_DEPTH", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: evalJSONDepth},
		&Func{Name: "JSON_KEYS", MinArgs: 1, MaxArgs: 2, Result: jsonResult, Eval: evalJSONKeys},
		&Func{Name: "JSON_CONTAINS", MinArgs: 2, MaxArgs: 3, Result: resultInt, Eval: evalJSONContains},
		&Func{Name: "JSON_CONTAINS_PATH", MinArgs: 3, MaxArgs: -1, Result: resultInt, Eval: evalJSONContainsPath},
		&Func{Name: "JSON_SET", MinArgs: 3, MaxArgs: -1, Result: jsonResult, Eval: func(c *Call, a []any) (any, error) { return jsonModify(c, a, modSet) }},
		&Func{Name: "JSON_INSERT", MinArgs: 3, MaxArgs: -1, Result: jsonResult, Eval: func(c *Call, a []any) (any, error) { return jsonModify(c, a, modInsert) }},
		&Func{Name: "JSON_REPLACE", MinArgs: 3, MaxArgs: -1, Result: jsonResult, Eval: func(c *Call, a []any) (any, error) { return jsonModify(c, a, modReplace) }},
		&Func{Name: "JSON_ARRAY_APPEND", MinArgs: 3, MaxArgs: -1, Result: jsonResult, Eval: func(c *Call, a []any) (any, error) { return jsonModify(c, a, modAppend) }},
		&Func{Name: "JSON_REMOVE", MinArgs: 2, MaxArgs: -1, Result: jsonResult, Eval: evalJSONRemove},
		&Func{Name: "JSON_MERGE_PRESERVE", Aliases: []string{"JSON_MERGE"}, MinArgs: 2, MaxArgs: -1, Result: jsonResult, Eval: func(c *Call, a []any) (any, error) { return jsonMerge(c, a, mergePreserve) }},
		&Func{Name: "JSON_MERGE_PATCH", MinArgs: 2, MaxArgs: -1, Result: jsonResult, Eval: func(c *Call, a []any) (any, error) { return jsonMerge(c, a, mergePatch) }},
		&Func{Name: "JSON_OVERLAPS", MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: evalJSONOverlaps},
		&Func{Name: "JSON_PRETTY", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: evalJSONPretty},
		&Func{Name: "JSON_SEARCH", MinArgs: 3, MaxArgs: -1, Result: jsonResult, Eval: evalJSONSearch},
		&Func{Name: sqlparse.FuncMemberOf, MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: evalMemberOf},
	)
}

// JSONError is an error of a JSON function, with MySQL's error number:
// 3143 (invalid path), 3146 (an argument that is not JSON), 3149 (a
// wildcard where none is allowed), 3150 (the one-or-all argument), 3153
// ($ where it is not allowed), 3158 (a NULL member name). It matches
// ErrInvalidArgument.
type JSONError struct {
	Code int
	Msg  string
}

func (e *JSONError) Error() string { return fmt.Sprintf("%s (MySQL error %d)", e.Msg, e.Code) }

// Unwrap makes a JSONError match ErrInvalidArgument.
func (e *JSONError) Unwrap() error { return ErrInvalidArgument }

func (c *Call) fname() string { return strings.ToLower(c.Func.Name) }

// jsonDoc reads argument i as a JSON document (nil for SQL NULL).
func jsonDoc(c *Call, a []any, i int) (any, bool, error) {
	v := a[i]
	if v == nil {
		return nil, false, nil
	}
	where := fmt.Sprintf("argument %d to function %s", i+1, c.fname())
	switch x := v.(type) {
	case string:
		d, err := sqltypes.ParseJSON(x, where)
		return d, err == nil, err
	case []byte:
		d, err := sqltypes.ParseJSON(string(x), where)
		return d, err == nil, err
	}
	return nil, false, &JSONError{Code: 3146, Msg: fmt.Sprintf("Invalid data type for JSON data in %s; a JSON string or JSON type is required.", where)}
}

// jsonValue converts argument i to a JSON value as a value argument.
func jsonValue(c *Call, a []any, i int) (any, error) {
	v := a[i]
	if v == nil {
		return nil, nil
	}
	switch c.argKind(i) {
	case sqltypes.KindJSON:
		d, _, err := jsonDoc(c, a, i)
		return d, err
	case sqltypes.KindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		}
	}
	switch x := v.(type) {
	case bool, int64, uint64:
		return x, nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, &JSONError{Code: 3146, Msg: fmt.Sprintf("Invalid data type for JSON data in argument %d to function %s", i+1, c.fname())}
		}
		return x, nil
	case string:
		if c.argKind(i) == sqltypes.KindDecimal {
			if d, ok := sqltypes.JSONScalar(sqltypes.Decimal(x)); ok {
				return d, nil
			}
		}
		return x, nil
	case []byte:
		return string(x), nil
	case time.Time:
		return ToString(x), nil
	}
	return ToString(v), nil
}

// jsonOut is a JSON result: its normalized text, NULL past MaxValueBytes;
// a document nested deeper than MySQL's bound is its error 3157.
func jsonOut(c *Call, v any) (any, error) {
	if jsonb.Depth(v) > jsonb.MaxDepth {
		return nil, &JSONError{Code: 3157, Msg: fmt.Sprintf("The JSON document exceeds the maximum depth %d in the result of %s.", jsonb.MaxDepth, c.fname())}
	}
	s := jsonb.Format(v)
	if tooLong(c, len(s)) {
		return nil, nil
	}
	return s, nil
}

// ---- paths

type legKind int

const (
	legMember   legKind = iota // .key
	legAnyKey                  // .*
	legIndex                   // [n], [last-n]
	legRange                   // [m to n]
	legAnyIndex                // [*]
	legDeep                    // **
)

type arrayIndex struct {
	fromEnd bool // last-n
	n       int
}

func (x arrayIndex) resolve(length int) int {
	if x.fromEnd {
		return length - 1 - x.n
	}
	return x.n
}

type pathLeg struct {
	kind     legKind
	key      string
	from, to arrayIndex
}

type jsonPath struct {
	legs     []pathLeg
	wildcard bool
	text     string
}

func pathError(i int) error {
	return &JSONError{Code: 3143, Msg: fmt.Sprintf("Invalid JSON path expression. The error is around character position %d.", i)}
}

// maxPathLegs bounds the legs of a path (a path longer than any document
// is deep only finds nothing).
const maxPathLegs = 4096

// parsePath reads a MySQL JSON path.
func parsePath(s string) (*jsonPath, error) {
	p := &jsonPath{text: s}
	i := 0
	space := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	space()
	if i >= len(s) || s[i] != '$' {
		return nil, pathError(i)
	}
	i++
	for {
		space()
		if i >= len(s) {
			break
		}
		if len(p.legs) >= maxPathLegs {
			return nil, pathError(i)
		}
		switch s[i] {
		case '.':
			i++
			space()
			if i >= len(s) {
				return nil, pathError(i)
			}
			switch {
			case s[i] == '*':
				i++
				p.legs = append(p.legs, pathLeg{kind: legAnyKey})
				p.wildcard = true
			case s[i] == '"':
				j := i + 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' {
						j++
					}
					j++
				}
				if j >= len(s) {
					return nil, pathError(i)
				}
				k, err := jsonb.Parse(s[i : j+1])
				if err != nil {
					return nil, pathError(i)
				}
				p.legs = append(p.legs, pathLeg{kind: legMember, key: k.(string)})
				i = j + 1
			default:
				j := i
				for j < len(s) && identChar(s[j]) {
					j++
				}
				if j == i || (s[i] >= '0' && s[i] <= '9') {
					return nil, pathError(i)
				}
				p.legs = append(p.legs, pathLeg{kind: legMember, key: s[i:j]})
				i = j
			}
		case '[':
			i++
			space()
			if i < len(s) && s[i] == '*' {
				i++
				space()
				if i >= len(s) || s[i] != ']' {
					return nil, pathError(i)
				}
				i++
				p.legs = append(p.legs, pathLeg{kind: legAnyIndex})
				p.wildcard = true
				continue
			}
			from, ni, ok := parseArrayIndex(s, i)
			if !ok {
				return nil, pathError(i)
			}
			i = ni
			space()
			leg := pathLeg{kind: legIndex, from: from}
			if strings.HasPrefix(s[i:], "to") && i+2 < len(s) && (s[i+2] == ' ' || s[i+2] == '\t') {
				i += 2
				space()
				to, ni, ok := parseArrayIndex(s, i)
				if !ok {
					return nil, pathError(i)
				}
				i = ni
				space()
				leg.kind, leg.to = legRange, to
				p.wildcard = true
			}
			if i >= len(s) || s[i] != ']' {
				return nil, pathError(i)
			}
			i++
			p.legs = append(p.legs, leg)
		case '*':
			if !strings.HasPrefix(s[i:], "**") {
				return nil, pathError(i)
			}
			i += 2
			p.legs = append(p.legs, pathLeg{kind: legDeep})
			p.wildcard = true
		default:
			return nil, pathError(i)
		}
	}
	if n := len(p.legs); n > 0 && p.legs[n-1].kind == legDeep {
		return nil, pathError(len(s)) // a path may not end in **
	}
	return p, nil
}

func identChar(b byte) bool {
	return b == '_' || b == '$' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b >= 0x80
}

// parseArrayIndex reads n, last or last-n at s[i:].
func parseArrayIndex(s string, i int) (arrayIndex, int, bool) {
	var x arrayIndex
	if strings.HasPrefix(s[i:], "last") {
		x.fromEnd = true
		i += 4
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) && s[j] == '-' {
			j++
			for j < len(s) && s[j] == ' ' {
				j++
			}
			n, k, ok := digits(s, j)
			if !ok {
				return x, i, false
			}
			x.n, i = n, k
		}
		return x, i, true
	}
	n, k, ok := digits(s, i)
	x.n = n
	return x, k, ok
}

func digits(s string, i int) (int, int, bool) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j-i > 9 {
		return 0, i, false
	}
	n, _ := strconv.Atoi(s[i:j])
	return n, j, true
}

// pathArg reads argument i as a path (wildcards allowed or not).
func pathArg(c *Call, a []any, i int, wildcards bool) (*jsonPath, error) {
	p, err := parsePath(ToString(a[i]))
	if err != nil {
		return nil, err
	}
	if p.wildcard && !wildcards {
		return nil, &JSONError{Code: 3149, Msg: "In this situation, path expressions may not contain the * and ** tokens or an array range."}
	}
	return p, nil
}

// maxPathSteps bounds the work of one path over one document (several
// ** legs multiply it).
const maxPathSteps = 1 << 20

// errPathTooCostly: a path that visits more than maxPathSteps values.
var errPathTooCostly = &JSONError{Code: 3143, Msg: fmt.Sprintf("Invalid JSON path expression: the path visits more than %d values", maxPathSteps)}

// find returns the values path p selects in doc, in document order.
func (p *jsonPath) find(doc any) ([]any, error) {
	var out []any
	steps := 0
	var walk func(v any, legs []pathLeg)
	walk = func(v any, legs []pathLeg) {
		if steps++; steps > maxPathSteps {
			return
		}
		if len(legs) == 0 {
			out = append(out, v)
			return
		}
		leg, rest := legs[0], legs[1:]
		switch leg.kind {
		case legMember:
			if o, ok := v.(*jsonb.Object); ok {
				if m, ok := o.Get(leg.key); ok {
					walk(m, rest)
				}
			}
		case legAnyKey:
			if o, ok := v.(*jsonb.Object); ok {
				for _, m := range o.Vals {
					walk(m, rest)
				}
			}
		case legIndex, legRange, legAnyIndex:
			arr, isArr := v.([]any)
			if !isArr {
				// A scalar or object is an array of one (autowrapping).
				arr = []any{v}
			}
			lo, hi := 0, len(arr)-1
			switch leg.kind {
			case legIndex:
				lo = leg.from.resolve(len(arr))
				hi = lo
			case legRange:
				lo, hi = leg.from.resolve(len(arr)), leg.to.resolve(len(arr))
				if lo < 0 {
					lo = 0
				}
				if hi >= len(arr) {
					hi = len(arr) - 1
				}
			case legAnyIndex:
				if !isArr {
					return // [*] selects array elements only
				}
			}
			for k := lo; k <= hi; k++ {
				if k >= 0 && k < len(arr) {
					walk(arr[k], rest)
				}
			}
		case legDeep:
			// ** is any sequence of legs, the empty one included.
			walk(v, rest)
			switch x := v.(type) {
			case []any:
				for _, m := range x {
					walk(m, legs)
				}
			case *jsonb.Object:
				for _, m := range x.Vals {
					walk(m, legs)
				}
			}
		}
	}
	walk(doc, p.legs)
	if steps > maxPathSteps {
		return nil, errPathTooCostly
	}
	return out, nil
}

// ---- functions

func evalJSONExtract(c *Call, a []any) (any, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	var found []any
	wrap := len(a) > 2
	for i := 1; i < len(a); i++ {
		if a[i] == nil {
			return nil, nil
		}
		p, err := pathArg(c, a, i, true)
		if err != nil {
			return nil, err
		}
		wrap = wrap || p.wildcard
		f, err := p.find(doc)
		if err != nil {
			return nil, err
		}
		found = append(found, f...)
	}
	if len(found) == 0 {
		return nil, nil
	}
	if !wrap {
		return jsonOut(c, found[0])
	}
	return jsonOut(c, found)
}

func evalJSONUnquote(c *Call, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	s := ToString(a[0])
	if c.argKind(0) == sqltypes.KindJSON {
		if v, err := jsonb.Parse(s); err == nil {
			if str, ok := v.(string); ok {
				return str, nil
			}
		}
		return s, nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s, nil
	}
	v, err := sqltypes.ParseJSON(s, "argument 1 to function json_unquote")
	if err != nil {
		return nil, err
	}
	if str, ok := v.(string); ok {
		return str, nil
	}
	return s, nil
}

func evalJSONQuote(c *Call, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	switch a[0].(type) {
	case string, []byte:
	default:
		return nil, &JSONError{Code: 3064, Msg: "Incorrect type for argument 1 in function json_quote."}
	}
	return jsonOut(c, ToString(a[0]))
}

func evalJSONObject(c *Call, a []any) (any, error) {
	if len(a)%2 != 0 {
		return nil, fmt.Errorf("%w in the call to native function 'json_object'", ErrArgCount)
	}
	o := &jsonb.Object{}
	for i := 0; i < len(a); i += 2 {
		if a[i] == nil {
			return nil, &JSONError{Code: 3158, Msg: "JSON documents may not contain NULL member names."}
		}
		v, err := jsonValue(c, a, i+1)
		if err != nil {
			return nil, err
		}
		o.Set(ToString(a[i]), v)
	}
	return jsonOut(c, o)
}

func evalJSONArray(c *Call, a []any) (any, error) {
	arr := make([]any, len(a))
	for i := range a {
		v, err := jsonValue(c, a, i)
		if err != nil {
			return nil, err
		}
		arr[i] = v
	}
	return jsonOut(c, arr)
}

// jsonTypeName is JSON_TYPE's name of a value.
func jsonTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "BOOLEAN"
	case int64:
		return "INTEGER"
	case uint64:
		return "UNSIGNED INTEGER"
	case float64:
		return "DOUBLE"
	case string:
		return "STRING"
	case []any:
		return "ARRAY"
	case *jsonb.Object:
		return "OBJECT"
	default:
		_ = x
	}
	return "OPAQUE"
}

func evalJSONType(c *Call, a []any) (any, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	return jsonTypeName(doc), nil
}

func evalJSONValid(c *Call, a []any) (any, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case string:
		return boolInt(jsonb.Valid(x)), nil
	case []byte:
		return boolInt(jsonb.Valid(string(x))), nil
	}
	return int64(0), nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// jsonAt is the document at a path argument (no wildcards), or ok false
// when the path selects nothing or an argument is NULL.
func jsonAt(c *Call, a []any) (any, bool, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, false, err
	}
	if len(a) < 2 {
		return doc, true, nil
	}
	if a[1] == nil {
		return nil, false, nil
	}
	p, err := pathArg(c, a, 1, false)
	if err != nil {
		return nil, false, err
	}
	found, err := p.find(doc)
	if err != nil || len(found) == 0 {
		return nil, false, err
	}
	return found[0], true, nil
}

func evalJSONLength(c *Call, a []any) (any, error) {
	v, ok, err := jsonAt(c, a)
	if err != nil || !ok {
		return nil, err
	}
	switch x := v.(type) {
	case []any:
		return int64(len(x)), nil
	case *jsonb.Object:
		return int64(x.Len()), nil
	}
	return int64(1), nil
}

func evalJSONDepth(c *Call, a []any) (any, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	return int64(jsonb.Depth(doc)), nil
}

func evalJSONKeys(c *Call, a []any) (any, error) {
	v, ok, err := jsonAt(c, a)
	if err != nil || !ok {
		return nil, err
	}
	o, isObj := v.(*jsonb.Object)
	if !isObj {
		return nil, nil
	}
	keys := make([]any, len(o.Keys))
	for i, k := range o.Keys {
		keys[i] = k
	}
	return jsonOut(c, keys)
}

// jsonEqual is JSON equality: numbers by value across integer and double,
// arrays in order, objects by members.
func jsonEqual(x, y any) bool {
	switch a := x.(type) {
	case nil:
		return y == nil
	case bool:
		b, ok := y.(bool)
		return ok && a == b
	case string:
		b, ok := y.(string)
		return ok && a == b
	case int64, uint64, float64:
		switch y.(type) {
		case int64, uint64, float64:
			return Compare(x, y) == 0
		}
		return false
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case *jsonb.Object:
		b, ok := y.(*jsonb.Object)
		if !ok || a.Len() != b.Len() {
			return false
		}
		for i, k := range a.Keys {
			m, ok := b.Get(k)
			if !ok || !jsonEqual(a.Vals[i], m) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonContains is MySQL's JSON_CONTAINS(target, candidate): a scalar
// contains an equal scalar; an array contains a candidate array whose
// every element some element of it contains, and a non-array some element
// contains; an object contains an object whose every member it has with a
// value that contains the candidate's.
func jsonContains(target, cand any) bool {
	switch t := target.(type) {
	case []any:
		if ca, ok := cand.([]any); ok {
			for _, e := range ca {
				if !jsonContains(t, e) {
					return false
				}
			}
			return true
		}
		for _, e := range t {
			if jsonContains(e, cand) {
				return true
			}
		}
		return false
	case *jsonb.Object:
		co, ok := cand.(*jsonb.Object)
		if !ok {
			return false
		}
		for i, k := range co.Keys {
			m, ok := t.Get(k)
			if !ok || !jsonContains(m, co.Vals[i]) {
				return false
			}
		}
		return true
	}
	return jsonEqual(target, cand)
}

func evalJSONContains(c *Call, a []any) (any, error) {
	target, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	cand, ok, err := jsonDoc(c, a, 1)
	if err != nil || !ok {
		return nil, err
	}
	if len(a) == 3 {
		if a[2] == nil {
			return nil, nil
		}
		p, err := pathArg(c, a, 2, false)
		if err != nil {
			return nil, err
		}
		found, err := p.find(target)
		if err != nil || len(found) == 0 {
			return nil, err
		}
		target = found[0]
	}
	return boolInt(jsonContains(target, cand)), nil
}

func evalJSONContainsPath(c *Call, a []any) (any, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	if a[1] == nil {
		return nil, nil
	}
	mode := strings.ToLower(ToString(a[1]))
	if mode != "one" && mode != "all" {
		return nil, &JSONError{Code: 3150, Msg: "The oneOrAll argument to json_contains_path may take these values: 'one' or 'all'."}
	}
	paths := make([]*jsonPath, 0, len(a)-2)
	for i := 2; i < len(a); i++ {
		if a[i] == nil {
			return nil, nil
		}
		p, err := pathArg(c, a, i, true)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		found, err := p.find(doc)
		if err != nil {
			return nil, err
		}
		has := len(found) > 0
		if has && mode == "one" {
			return int64(1), nil
		}
		if !has && mode == "all" {
			return int64(0), nil
		}
	}
	return boolInt(mode == "all"), nil
}

type modMode int

const (
	modSet modMode = iota
	modInsert
	modReplace
	modAppend
)

// jsonModify is JSON_SET, JSON_INSERT, JSON_REPLACE and
// JSON_ARRAY_APPEND: the path/value pairs applied left to right.
func jsonModify(c *Call, a []any, mode modMode) (any, error) {
	if len(a)%2 != 1 {
		return nil, fmt.Errorf("%w in the call to native function '%s'", ErrArgCount, c.fname())
	}
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	for i := 1; i < len(a); i += 2 {
		if a[i] == nil {
			return nil, nil
		}
		p, err := pathArg(c, a, i, false)
		if err != nil {
			return nil, err
		}
		v, err := jsonValue(c, a, i+1)
		if err != nil {
			return nil, err
		}
		doc = modifyAt(doc, p.legs, v, mode)
	}
	return jsonOut(c, doc)
}

// clone copies the containers of v (the values of a call are changed in
// place).
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	case *jsonb.Object:
		o := &jsonb.Object{Keys: append([]string(nil), x.Keys...), Vals: make([]any, len(x.Vals))}
		for i, e := range x.Vals {
			o.Vals[i] = clone(e)
		}
		return o
	}
	return v
}

// modifyAt returns doc with the change at legs applied.
func modifyAt(doc any, legs []pathLeg, v any, mode modMode) any {
	if len(legs) == 0 {
		switch mode {
		case modSet, modReplace:
			return clone(v)
		case modAppend:
			if arr, ok := doc.([]any); ok {
				return append(arr, clone(v))
			}
			return []any{doc, clone(v)}
		}
		return doc // INSERT at an existing path: nothing
	}
	leg, rest := legs[0], legs[1:]
	switch leg.kind {
	case legMember:
		o, ok := doc.(*jsonb.Object)
		if !ok {
			return doc
		}
		m, has := o.Get(leg.key)
		if has {
			o.Set(leg.key, modifyAt(m, rest, v, mode))
		} else if len(rest) == 0 && (mode == modSet || mode == modInsert) {
			o.Set(leg.key, clone(v))
		}
		return o
	case legIndex:
		arr, isArr := doc.([]any)
		if !isArr {
			// A non-array is an array of one at index 0 (autowrap).
			if leg.from.resolve(1) == 0 {
				return modifyAt(doc, rest, v, mode)
			}
			if len(rest) == 0 && (mode == modSet || mode == modInsert) && leg.from.resolve(1) > 0 {
				return []any{doc, clone(v)}
			}
			return doc
		}
		k := leg.from.resolve(len(arr))
		if k >= 0 && k < len(arr) {
			arr[k] = modifyAt(arr[k], rest, v, mode)
			return arr
		}
		if k >= len(arr) && len(rest) == 0 && (mode == modSet || mode == modInsert) {
			return append(arr, clone(v))
		}
		return arr
	}
	return doc
}

func evalJSONRemove(c *Call, a []any) (any, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	for i := 1; i < len(a); i++ {
		if a[i] == nil {
			return nil, nil
		}
		p, err := pathArg(c, a, i, false)
		if err != nil {
			return nil, err
		}
		if len(p.legs) == 0 {
			return nil, &JSONError{Code: 3153, Msg: "The path expression '$' is not allowed in this context."}
		}
		doc = removeAt(doc, p.legs)
	}
	return jsonOut(c, doc)
}

func removeAt(doc any, legs []pathLeg) any {
	leg, rest := legs[0], legs[1:]
	switch leg.kind {
	case legMember:
		o, ok := doc.(*jsonb.Object)
		if !ok {
			return doc
		}
		m, has := o.Get(leg.key)
		if !has {
			return o
		}
		if len(rest) == 0 {
			o.Delete(leg.key)
		} else {
			o.Set(leg.key, removeAt(m, rest))
		}
		return o
	case legIndex:
		arr, ok := doc.([]any)
		if !ok {
			return doc
		}
		k := leg.from.resolve(len(arr))
		if k < 0 || k >= len(arr) {
			return arr
		}
		if len(rest) == 0 {
			return append(arr[:k:k], arr[k+1:]...)
		}
		arr[k] = removeAt(arr[k], rest)
		return arr
	}
	return doc
}

// mergePreserve is JSON_MERGE_PRESERVE of two documents: arrays
// concatenate (a non-array is an array of one), objects merge with the
// values of common keys merged in turn.
func mergePreserve(a, b any) any {
	ao, aObj := a.(*jsonb.Object)
	bo, bObj := b.(*jsonb.Object)
	if aObj && bObj {
		for i, k := range bo.Keys {
			if m, ok := ao.Get(k); ok {
				ao.Set(k, mergePreserve(m, bo.Vals[i]))
			} else {
				ao.Set(k, bo.Vals[i])
			}
		}
		return ao
	}
	wrap := func(v any) []any {
		if arr, ok := v.([]any); ok {
			return arr
		}
		return []any{v}
	}
	return append(wrap(a), wrap(b)...)
}

// mergePatch is JSON_MERGE_PATCH of two documents (RFC 7396): a
// non-object patch replaces; an object patch sets its members, a null
// member removing the key.
func mergePatch(a, b any) any {
	bo, ok := b.(*jsonb.Object)
	if !ok {
		return b
	}
	ao, ok := a.(*jsonb.Object)
	if !ok {
		ao = &jsonb.Object{}
	}
	for i, k := range bo.Keys {
		if bo.Vals[i] == nil {
			ao.Delete(k)
			continue
		}
		m, _ := ao.Get(k)
		ao.Set(k, mergePatch(m, bo.Vals[i]))
	}
	return ao
}

func jsonMerge(c *Call, a []any, merge func(a, b any) any) (any, error) {
	var out any
	for i := range a {
		d, ok, err := jsonDoc(c, a, i)
		if err != nil || !ok {
			return nil, err
		}
		if i == 0 {
			out = d
		} else {
			out = merge(out, d)
		}
	}
	return jsonOut(c, out)
}

// jsonOverlaps is JSON_OVERLAPS: arrays share an element, objects a
// member (key and value), a scalar is an element of an array or equal.
func jsonOverlaps(a, b any) bool {
	aa, aArr := a.([]any)
	ba, bArr := b.([]any)
	switch {
	case aArr && bArr:
		for _, x := range aa {
			for _, y := range ba {
				if jsonEqual(x, y) {
					return true
				}
			}
		}
		return false
	case aArr:
		return jsonOverlaps(b, a)
	case bArr:
		for _, y := range ba {
			if jsonEqual(a, y) {
				return true
			}
		}
		return false
	}
	ao, aObj := a.(*jsonb.Object)
	bo, bObj := b.(*jsonb.Object)
	if aObj && bObj {
		for i, k := range ao.Keys {
			if m, ok := bo.Get(k); ok && jsonEqual(ao.Vals[i], m) {
				return true
			}
		}
		return false
	}
	return jsonEqual(a, b)
}

func evalJSONOverlaps(c *Call, a []any) (any, error) {
	x, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	y, ok, err := jsonDoc(c, a, 1)
	if err != nil || !ok {
		return nil, err
	}
	return boolInt(jsonOverlaps(x, y)), nil
}

func evalJSONPretty(c *Call, a []any) (any, error) {
	d, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok {
		return nil, err
	}
	s := jsonb.Pretty(d)
	if tooLong(c, len(s)) {
		return nil, nil
	}
	return s, nil
}

// findPaths is find with the path of each value found, printed as MySQL
// prints paths ($[1][0].k, $."a b").
func (p *jsonPath) findPaths(doc any) ([]any, []string, error) {
	var vals []any
	var paths []string
	steps := 0
	var walk func(v any, legs []pathLeg, at string)
	walk = func(v any, legs []pathLeg, at string) {
		if steps++; steps > maxPathSteps {
			return
		}
		if len(legs) == 0 {
			vals, paths = append(vals, v), append(paths, at)
			return
		}
		leg, rest := legs[0], legs[1:]
		switch leg.kind {
		case legMember, legAnyKey:
			if o, ok := v.(*jsonb.Object); ok {
				for i, k := range o.Keys {
					if leg.kind == legAnyKey || k == leg.key {
						walk(o.Vals[i], rest, at+"."+pathKey(k))
					}
				}
			}
		case legIndex, legRange, legAnyIndex:
			arr, isArr := v.([]any)
			if !isArr {
				if leg.kind != legAnyIndex && leg.from.resolve(1) == 0 {
					walk(v, rest, at)
				}
				return
			}
			lo, hi := 0, len(arr)-1
			switch leg.kind {
			case legIndex:
				lo = leg.from.resolve(len(arr))
				hi = lo
			case legRange:
				lo, hi = max(leg.from.resolve(len(arr)), 0), min(leg.to.resolve(len(arr)), len(arr)-1)
			}
			for k := lo; k <= hi; k++ {
				if k >= 0 && k < len(arr) {
					walk(arr[k], rest, at+"["+strconv.Itoa(k)+"]")
				}
			}
		case legDeep:
			walk(v, rest, at)
			switch x := v.(type) {
			case []any:
				for k, m := range x {
					walk(m, legs, at+"["+strconv.Itoa(k)+"]")
				}
			case *jsonb.Object:
				for i, m := range x.Vals {
					walk(m, legs, at+"."+pathKey(x.Keys[i]))
				}
			}
		}
	}
	walk(doc, p.legs, "$")
	if steps > maxPathSteps {
		return nil, nil, errPathTooCostly
	}
	return vals, paths, nil
}

// pathKey is a member name in a printed path: bare when it is an
// identifier, else quoted.
func pathKey(k string) string {
	if k != "" && !(k[0] >= '0' && k[0] <= '9') {
		bare := true
		for i := 0; i < len(k); i++ {
			if !identChar(k[i]) {
				bare = false
				break
			}
		}
		if bare {
			return k
		}
	}
	return jsonb.Quote(k)
}

// likeMatch is SQL LIKE over runes: % any run, _ one character, esc
// escaping the next one (byte-wise comparison, as JSON_SEARCH's binary
// collation).
func likeMatch(s, pat []rune, esc rune) bool {
	// Iterative with one backtrack point per %, linear in practice.
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(pat) {
			c := pat[pi]
			switch {
			case c == '%':
				starP, starS = pi, si
				pi++
				continue
			case c == esc && pi+1 < len(pat):
				if pat[pi+1] == s[si] {
					pi += 2
					si++
					continue
				}
			case c == '_' || c == s[si]:
				pi++
				si++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		si, pi = starS, starP+1
	}
	for pi < len(pat) && pat[pi] == '%' {
		pi++
	}
	return pi == len(pat)
}

func evalJSONSearch(c *Call, a []any) (any, error) {
	doc, ok, err := jsonDoc(c, a, 0)
	if err != nil || !ok || a[1] == nil || a[2] == nil {
		return nil, err
	}
	mode := strings.ToLower(ToString(a[1]))
	if mode != "one" && mode != "all" {
		return nil, &JSONError{Code: 3150, Msg: "The oneOrAll argument to json_search may take these values: 'one' or 'all'."}
	}
	pat := []rune(ToString(a[2]))
	esc := '\\'
	if len(a) > 3 && a[3] != nil {
		if e := []rune(ToString(a[3])); len(e) == 1 {
			esc = e[0]
		} else if len(e) > 1 {
			return nil, fmt.Errorf("%w: incorrect arguments to ESCAPE", ErrInvalidArgument)
		}
	}
	roots := []string{"$"}
	vals := []any{doc}
	if len(a) > 4 {
		roots, vals = nil, nil
		for i := 4; i < len(a); i++ {
			if a[i] == nil {
				return nil, nil
			}
			p, err := pathArg(c, a, i, true)
			if err != nil {
				return nil, err
			}
			v, at, err := p.findPaths(doc)
			if err != nil {
				return nil, err
			}
			vals, roots = append(vals, v...), append(roots, at...)
		}
	}
	var found []any
	seen := map[string]bool{}
	for i, v := range vals {
		deep := &jsonPath{legs: []pathLeg{{kind: legDeep}}}
		strs, at, err := deep.findPaths(v)
		if err != nil {
			return nil, err
		}
		for j, sv := range strs {
			str, isStr := sv.(string)
			if !isStr || !likeMatch([]rune(str), pat, esc) {
				continue
			}
			path := roots[i] + strings.TrimPrefix(at[j], "$")
			if seen[path] {
				continue
			}
			seen[path] = true
			found = append(found, path)
			if mode == "one" {
				return jsonOut(c, path)
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return jsonOut(c, found[0])
	}
	return jsonOut(c, found)
}

// evalMemberOf is x MEMBER OF (arr): x (a value argument: a string is a
// JSON string, not parsed) is an element of the array (a non-array is an
// array of one).
func evalMemberOf(c *Call, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	arr, ok, err := jsonDoc(c, a, 1)
	if err != nil || !ok {
		return nil, err
	}
	v, err := jsonValue(c, a, 0)
	if err != nil {
		return nil, err
	}
	elems, isArr := arr.([]any)
	if !isArr {
		elems = []any{arr}
	}
	for _, e := range elems {
		if jsonEqual(v, e) {
			return int64(1), nil
		}
	}
	return int64(0), nil
}

// castJSON is CAST(v AS JSON): JSON text parsed (error 3140 for invalid
// text), a JSON value kept, numbers and booleans as JSON scalars.
func castJSON(c *Call, v any, from Kind) (any, error) {
	if from == sqltypes.KindJSON {
		return v, nil
	}
	switch x := v.(type) {
	case string:
		if from == sqltypes.KindDecimal {
			if d, ok := sqltypes.JSONScalar(sqltypes.Decimal(x)); ok {
				return jsonOut(c, d)
			}
		}
		d, err := sqltypes.ParseJSON(x, "argument 1 to function cast_as_json")
		if err != nil {
			return nil, err
		}
		return jsonOut(c, d)
	case []byte:
		d, err := sqltypes.ParseJSON(string(x), "argument 1 to function cast_as_json")
		if err != nil {
			return nil, err
		}
		return jsonOut(c, d)
	case time.Time:
		return jsonOut(c, ToString(x))
	}
	if from == sqltypes.KindBool {
		if i, ok := v.(int64); ok {
			return jsonOut(c, i != 0)
		}
	}
	d, ok := sqltypes.JSONScalar(v)
	if !ok {
		return nil, errors.New("CAST to JSON: " + ToString(v) + " is not a JSON value")
	}
	return jsonOut(c, d)
}
