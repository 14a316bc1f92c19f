package expr

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Control-flow and miscellaneous functions. CASE, IF, IFNULL and COALESCE
// evaluate only the arguments they need (Lazy), as MySQL does.
//
// sqlparse converts CASE to calls of two internal names that no statement
// can spell as a function call (they hold a space):
//
//	CASE WHEN c1 THEN r1 ... [ELSE e] END  ->  "CASE WHEN"(c1, r1, ..., [e])
//	CASE v WHEN w1 THEN r1 ... [ELSE e] END ->  "CASE"(v, w1, r1, ..., [e])
const (
	SearchedCase = sqlparse.FuncCaseSearched
	SimpleCase   = sqlparse.FuncCaseSimple
)

// ServerVersion is what VERSION() and @@version answer: a MySQL 8 version
// (clients parse one out of it) marked as lancecat's.
const ServerVersion = "8.0.36-lancecat"

func init() {
	register(
		&Func{Name: SearchedCase, MinArgs: 2, MaxArgs: -1, Result: func(a []Arg) Kind { return unionKind(caseResults(a, false)) }, Lazy: evalSearchedCase},
		&Func{Name: SimpleCase, MinArgs: 3, MaxArgs: -1, Result: func(a []Arg) Kind { return unionKind(caseResults(a, true)) }, Lazy: evalSimpleCase},
		&Func{Name: "IF", MinArgs: 3, MaxArgs: 3, Result: func(a []Arg) Kind { return unionKind(a[1:]) }, Lazy: func(c *Call, arg func(int) (any, error)) (any, error) {
			v, err := arg(0)
			if err != nil {
				return nil, err
			}
			if Truth(v) == 1 {
				return convertTo(c, 1, arg)
			}
			return convertTo(c, 2, arg)
		}},
		&Func{Name: "IFNULL", MinArgs: 2, MaxArgs: 2, Result: unionKind, Lazy: evalCoalesce},
		&Func{Name: "COALESCE", MinArgs: 1, MaxArgs: -1, Result: unionKind, Lazy: evalCoalesce},
		&Func{Name: "NULLIF", MinArgs: 2, MaxArgs: 2, Result: func(a []Arg) Kind { return a[0].Kind }, Eval: func(_ *Call, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			if a[1] != nil && Compare(a[0], a[1]) == 0 {
				return nil, nil
			}
			return a[0], nil
		}},
		&Func{Name: "VERSION", MinArgs: 0, MaxArgs: 0, Result: resultString, Eval: func(*Call, []any) (any, error) { return ServerVersion, nil }},
		&Func{Name: "DATABASE", Aliases: []string{"SCHEMA", "CURRENT_SCHEMA"}, MinArgs: 0, MaxArgs: 0, Result: resultString, NeedsStatement: true,
			Eval: func(c *Call, _ []any) (any, error) {
				if c.Stmt == nil || c.Stmt.Database == "" {
					return nil, nil
				}
				return c.Stmt.Database, nil
			}},
		&Func{Name: "ARRAY_HAS_ANY", MinArgs: 2, MaxArgs: -1, Usage: arrayHasUsage, Result: fixed(sqltypes.KindBool), Eval: func(_ *Call, a []any) (any, error) { return arrayHas(false, a) }},
		&Func{Name: "ARRAY_HAS_ALL", MinArgs: 2, MaxArgs: -1, Usage: arrayHasUsage, Result: fixed(sqltypes.KindBool), Eval: func(_ *Call, a []any) (any, error) { return arrayHas(true, a) }},
	)
}

const arrayHasUsage = "takes a list column and at least one value"

// Truth is SQL three-valued logic of a value: 1 true, 0 false, -1 NULL.
func Truth(v any) int {
	switch x := v.(type) {
	case nil:
		return -1
	case bool:
		if x {
			return 1
		}
		return 0
	case int64, uint64, float64, string, []byte:
		if ToFloat(x) != 0 {
			return 1
		}
		return 0
	}
	return 1
}

// caseResults lists the result arguments of a CASE call.
func caseResults(a []Arg, simple bool) []Arg {
	var out []Arg
	start := 0
	if simple {
		start = 1
	}
	n := len(a) - start
	for i := start + 1; i < len(a); i += 2 {
		out = append(out, a[i])
	}
	if n%2 == 1 {
		out = append(out, a[len(a)-1])
	}
	return out
}

func evalSearchedCase(c *Call, arg func(int) (any, error)) (any, error) {
	n := len(c.Args)
	for i := 0; i+1 < n; i += 2 {
		w, err := arg(i)
		if err != nil {
			return nil, err
		}
		if Truth(w) == 1 {
			return convertTo(c, i+1, arg)
		}
	}
	if n%2 == 1 {
		return convertTo(c, n-1, arg)
	}
	return nil, nil
}

func evalSimpleCase(c *Call, arg func(int) (any, error)) (any, error) {
	v, err := arg(0)
	if err != nil {
		return nil, err
	}
	n := len(c.Args)
	for i := 1; i+1 < n; i += 2 {
		w, err := arg(i)
		if err != nil {
			return nil, err
		}
		if v != nil && w != nil && Compare(v, w) == 0 {
			return convertTo(c, i+1, arg)
		}
	}
	if (n-1)%2 == 1 {
		return convertTo(c, n-1, arg)
	}
	return nil, nil
}

func evalCoalesce(c *Call, arg func(int) (any, error)) (any, error) {
	for i := range c.Args {
		v, err := arg(i)
		if err != nil {
			return nil, err
		}
		if v != nil {
			return branchScaled(c, convertValue(v, c.Args[i].Kind, c.ResultKind())), nil
		}
	}
	return nil, nil
}

// convertTo evaluates argument i and converts it to the call's result
// kind (CASE over an integer and a string answers strings).
func convertTo(c *Call, i int, arg func(int) (any, error)) (any, error) {
	v, err := arg(i)
	if err != nil || v == nil {
		return v, err
	}
	return branchScaled(c, convertValue(v, c.Args[i].Kind, c.ResultKind())), nil
}

// branchScaled gives a DECIMAL result of a union of branches the scale
// of the union, the largest of its branches' (COALESCE(d, 2.50) over a
// DECIMAL(12,3) answers 2.500, as MySQL types the result DECIMAL(12,3));
// the value as it is when a branch's scale is unknown.
func branchScaled(c *Call, v any) any {
	if v == nil || c.ResultKind() != sqltypes.KindDecimal {
		return v
	}
	var branches []Arg
	switch c.Func.Name {
	case SearchedCase:
		branches = caseResults(c.Args, false)
	case SimpleCase:
		branches = caseResults(c.Args, true)
	case "IF":
		branches = c.Args[1:]
	default:
		branches = c.Args
	}
	scale := 0
	for _, a := range branches {
		switch a.Kind {
		case sqltypes.KindDecimal:
			if a.Scale < 0 {
				return v
			}
			scale = max(scale, a.Scale)
		case KindNull, sqltypes.KindInt, sqltypes.KindUint, sqltypes.KindBool:
		default:
			return v
		}
	}
	d, ok := decimalOf(v)
	if !ok {
		return v
	}
	return d.rescale(scale, roundHalfUp).String()
}

// convertValue converts a value of kind from to the result kind of a
// union of branches.
func convertValue(v any, from, to Kind) any {
	if from == to || v == nil {
		return v
	}
	switch to {
	case sqltypes.KindString:
		return ToString(v)
	case sqltypes.KindFloat:
		return ToFloat(v)
	case sqltypes.KindDecimal:
		d, _ := decimalOf(v)
		return d.String()
	}
	return v
}

// unionKind is the type of a result that is one of several arguments
// (CASE, IF, COALESCE): MySQL's aggregation of types. NULL arguments do not
// count; integers and decimals make a DECIMAL, any float a DOUBLE, times of
// one kind stay that kind, anything else a string.
func unionKind(args []Arg) Kind {
	out := KindNull
	for _, a := range args {
		k := a.Kind
		if k == sqltypes.KindBool {
			k = sqltypes.KindInt
		}
		switch {
		case k == KindNull:
		case out == KindNull || out == k:
			out = k
		case isNumeric(out) && isNumeric(k):
			switch {
			case out == sqltypes.KindFloat || k == sqltypes.KindFloat:
				out = sqltypes.KindFloat
			case out == sqltypes.KindDecimal || k == sqltypes.KindDecimal:
				out = sqltypes.KindDecimal
			default: // INT and UINT
				out = sqltypes.KindDecimal
			}
		case isTemporal(out) && isTemporal(k):
			out = sqltypes.KindDatetime
		default:
			out = sqltypes.KindString
		}
	}
	return out
}

// arrayHas is array_has_any(list, label, ...) (all false) and
// array_has_all(list, label, ...) (all true), the predicates a LABEL_LIST
// index answers: a NULL list gives NULL; a NULL label or element never
// matches; strings equal only strings and numbers only numbers. The list
// arrives as its JSON text (package sqltypes).
func arrayHas(all bool, args []any) (any, error) {
	name := "ARRAY_HAS_ANY"
	if all {
		name = "ARRAY_HAS_ALL"
	}
	if args[0] == nil {
		return nil, nil
	}
	text, ok := args[0].(string)
	var elems []any
	if ok {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		ok = dec.Decode(&elems) == nil
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s needs a list column as its first argument, got %s", ErrInvalidArgument, name, ToString(args[0]))
	}
	for _, label := range args[1:] {
		has := false
		for _, e := range elems {
			if labelEqual(e, label) {
				has = true
				break
			}
		}
		if has != all {
			return has, nil // any: found one; all: one is missing
		}
	}
	return all, nil
}

// labelEqual compares a list element decoded from JSON with a label.
func labelEqual(elem, label any) bool {
	if elem == nil || label == nil {
		return false
	}
	switch e := elem.(type) {
	case string:
		l, ok := label.(string)
		return ok && e == l
	case json.Number:
		var ev any
		if i, err := e.Int64(); err == nil {
			ev = i
		} else if f, err := e.Float64(); err == nil {
			ev = f
		} else {
			return false
		}
		switch label.(type) {
		case int64, uint64, float64:
			return Compare(ev, label) == 0
		}
	}
	return false
}
