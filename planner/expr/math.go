package expr

import (
	"fmt"
	"math"
	"math/big"

	"github.com/lancecat/lancecat/sqltypes"
)

// Math functions. An integer argument keeps the result an exact integer,
// a DECIMAL (its text) an exact decimal, anything else computes in
// float64; a float result that is not finite is MySQL's "DOUBLE value is
// out of range" error, as MariaDB raises it for EXP(1000) or POW(-8, 1/3).

func init() {
	register(
		&Func{Name: "ABS", MinArgs: 1, MaxArgs: 1, Result: numericResult, Eval: evalAbs},
		&Func{Name: "SIGN", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: evalSign},
		&Func{Name: "ROUND", MinArgs: 1, MaxArgs: 2, Result: numericResult, Eval: func(c *Call, a []any) (any, error) { return roundLike(c, a, roundHalfUp) }},
		&Func{Name: "TRUNCATE", MinArgs: 2, MaxArgs: 2, Result: numericResult, Eval: func(c *Call, a []any) (any, error) { return roundLike(c, a, roundTrunc) }},
		&Func{Name: "FLOOR", MinArgs: 1, MaxArgs: 1, Result: numericResult, Eval: func(c *Call, a []any) (any, error) { return floorCeil(c, a[0], roundFloor) }},
		&Func{Name: "CEILING", Aliases: []string{"CEIL"}, MinArgs: 1, MaxArgs: 1, Result: numericResult, Eval: func(c *Call, a []any) (any, error) { return floorCeil(c, a[0], roundCeil) }},
		&Func{Name: "MOD", MinArgs: 2, MaxArgs: 2, Result: modResult, Eval: evalMod},
		&Func{Name: "POWER", Aliases: []string{"POW"}, MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: floatFunc2("pow", math.Pow)},
		&Func{Name: "SQRT", MinArgs: 1, MaxArgs: 1, Result: resultFloat, Eval: floatFunc1("sqrt", func(x float64) (float64, bool) { return math.Sqrt(x), x >= 0 })},
		&Func{Name: "EXP", MinArgs: 1, MaxArgs: 1, Result: resultFloat, Eval: floatFunc1("exp", func(x float64) (float64, bool) { return math.Exp(x), true })},
		&Func{Name: "LN", MinArgs: 1, MaxArgs: 1, Result: resultFloat, Eval: floatFunc1("ln", func(x float64) (float64, bool) { return math.Log(x), x > 0 })},
		&Func{Name: "LOG2", MinArgs: 1, MaxArgs: 1, Result: resultFloat, Eval: floatFunc1("log2", func(x float64) (float64, bool) { return math.Log2(x), x > 0 })},
		&Func{Name: "LOG10", MinArgs: 1, MaxArgs: 1, Result: resultFloat, Eval: floatFunc1("log10", func(x float64) (float64, bool) { return math.Log10(x), x > 0 })},
		&Func{Name: "LOG", MinArgs: 1, MaxArgs: 2, Result: resultFloat, Eval: evalLog},
		&Func{Name: "PI", MinArgs: 0, MaxArgs: 0, Result: resultFloat, Eval: func(*Call, []any) (any, error) { return math.Pi, nil }},
		&Func{Name: "GREATEST", MinArgs: 2, MaxArgs: -1, Result: extremumResult, Lazy: func(c *Call, arg func(int) (any, error)) (any, error) { return lazyExtremum(c, arg, 1) }},
		&Func{Name: "LEAST", MinArgs: 2, MaxArgs: -1, Result: extremumResult, Lazy: func(c *Call, arg func(int) (any, error)) (any, error) { return lazyExtremum(c, arg, -1) }},
	)
}

// numericResult: the argument's own numeric kind (integers stay integers,
// DECIMAL stays DECIMAL), DOUBLE for anything else.
func numericResult(args []Arg) Kind {
	switch k := args[0].Kind; k {
	case sqltypes.KindInt, sqltypes.KindUint, sqltypes.KindDecimal:
		return k
	case sqltypes.KindBool:
		return sqltypes.KindInt
	}
	return sqltypes.KindFloat
}

func modResult(args []Arg) Kind {
	a, b := args[0].Kind, args[1].Kind
	switch {
	case isInteger(a) && isInteger(b):
		if a == sqltypes.KindUint {
			return sqltypes.KindUint
		}
		return sqltypes.KindInt
	case (isInteger(a) || a == sqltypes.KindDecimal) && (isInteger(b) || b == sqltypes.KindDecimal):
		return sqltypes.KindDecimal
	}
	return sqltypes.KindFloat
}

func outOfRange(kind, fn string, args ...any) error {
	return fmt.Errorf("%w: %s value is out of range in '%s(%s)'", ErrOutOfRange, kind, fn, joinValues(args))
}

func joinValues(vs []any) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ","
		}
		s += ToString(v)
	}
	return s
}

func finite(fn string, f float64, args ...any) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, outOfRange("DOUBLE", fn, args...)
	}
	return f, nil
}

func floatFunc1(name string, f func(float64) (float64, bool)) func(*Call, []any) (any, error) {
	return func(_ *Call, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		r, ok := f(ToFloat(a[0]))
		if !ok {
			return nil, nil // SQRT(-1), LN(0): NULL
		}
		return finite(name, r, a...)
	}
}

func floatFunc2(name string, f func(x, y float64) float64) func(*Call, []any) (any, error) {
	return func(_ *Call, a []any) (any, error) {
		if anyNull(a) {
			return nil, nil
		}
		return finite(name, f(ToFloat(a[0]), ToFloat(a[1])), a...)
	}
}

func evalLog(_ *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	if len(a) == 1 {
		x := ToFloat(a[0])
		if x <= 0 {
			return nil, nil
		}
		return math.Log(x), nil
	}
	b, x := ToFloat(a[0]), ToFloat(a[1])
	if x <= 0 || b <= 0 || b == 1 {
		return nil, nil
	}
	return finite("log", math.Log(x)/math.Log(b), a...)
}

func evalAbs(c *Call, a []any) (any, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		if x == math.MinInt64 {
			return nil, outOfRange("BIGINT", "abs", x)
		}
		if x < 0 {
			return -x, nil
		}
		return x, nil
	case uint64:
		return x, nil
	case bool:
		return ToInt(x, 0), nil
	}
	if c.argKind(0) == sqltypes.KindDecimal {
		d, _ := decimalOf(a[0])
		d.unscaled.Abs(d.unscaled)
		return d.String(), nil
	}
	return math.Abs(ToFloat(a[0])), nil
}

func evalSign(_ *Call, a []any) (any, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		switch {
		case x < 0:
			return int64(-1), nil
		case x > 0:
			return int64(1), nil
		}
		return int64(0), nil
	case uint64:
		if x > 0 {
			return int64(1), nil
		}
		return int64(0), nil
	}
	f := ToFloat(a[0])
	switch {
	case f < 0:
		return int64(-1), nil
	case f > 0:
		return int64(1), nil
	}
	return int64(0), nil
}

// roundLike is ROUND(x[, d]) and TRUNCATE(x, d): integers and decimals
// exactly (ROUND half away from zero), doubles as MySQL's my_double_round
// (rint of x·10^d: half to even).
func roundLike(c *Call, a []any, mode roundMode) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	d := int64(0)
	if len(a) > 1 {
		d = ToInt(a[1], c.argKind(1))
	}
	d = max(min(d, 100), -100)
	k := c.argKind(0)
	switch x := a[0].(type) {
	case int64, uint64, bool:
		if d >= 0 {
			return normInt(x), nil
		}
		dec, _ := decimalOf(normInt(x))
		r := dec.rescale(int(d), mode)
		if v, err := decimalToInt(r, "round", x); err == nil {
			return v, nil
		}
		return r.String(), nil // beyond BIGINT, as MariaDB answers (a DECIMAL)
	case string:
		if k == sqltypes.KindDecimal {
			dec, _ := decimalOf(x)
			n := int(min(d, maxDecimalScale))
			if n > dec.scale {
				n = dec.scale // ROUND(1.5, 3) keeps the value's own digits
			}
			return dec.rescale(n, mode).String(), nil
		}
	}
	f := ToFloat(a[0])
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f, nil
	}
	p := math.Pow(10, math.Abs(float64(d)))
	var r float64
	switch {
	case mode == roundTrunc && d >= 0:
		r = math.Trunc(f*p) / p
		if math.IsInf(f*p, 0) {
			r = f
		}
	case mode == roundTrunc:
		r = math.Trunc(f/p) * p
	case d >= 0:
		r = math.RoundToEven(f*p) / p
		if math.IsInf(f*p, 0) {
			r = f
		}
	default:
		r = math.RoundToEven(f/p) * p
	}
	return r, nil
}

func normInt(v any) any {
	if b, ok := v.(bool); ok {
		return ToInt(b, 0)
	}
	return v
}

// decimalToInt converts an integral decimal back to int64 (or uint64).
func decimalToInt(d decimal, fn string, arg any) (any, error) {
	d = d.rescale(0, roundTrunc)
	switch {
	case d.unscaled.IsInt64():
		return d.unscaled.Int64(), nil
	case d.unscaled.IsUint64():
		return d.unscaled.Uint64(), nil
	}
	return nil, outOfRange("BIGINT", fn, arg)
}

func floorCeil(c *Call, v any, mode roundMode) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64, uint64:
		return x, nil
	case bool:
		return ToInt(x, 0), nil
	case string:
		if c.argKind(0) == sqltypes.KindDecimal {
			d, _ := decimalOf(x)
			return d.rescale(0, mode).String(), nil
		}
	}
	f := ToFloat(v)
	if mode == roundFloor {
		return math.Floor(f), nil
	}
	return math.Ceil(f), nil
}

// evalMod is MOD(a, b) (a % b): the sign of the dividend, NULL for a zero
// divisor.
func evalMod(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	ai, aInt := intOf(a[0])
	bi, bInt := intOf(a[1])
	if aInt && bInt {
		if bi.mag == 0 {
			return c.divByZero()
		}
		x, y := bigOf(ai), bigOf(bi)
		z := new(big.Int).Rem(x, y)
		if z.IsInt64() {
			return z.Int64(), nil
		}
		return z.Uint64(), nil
	}
	k0, k1 := c.argKind(0), c.argKind(1)
	if (isInteger(k0) || k0 == sqltypes.KindDecimal) && (isInteger(k1) || k1 == sqltypes.KindDecimal) {
		x, _ := decimalOf(a[0])
		y, _ := decimalOf(a[1])
		if y.unscaled.Sign() == 0 {
			return c.divByZero()
		}
		s := max(x.scale, y.scale)
		x, y = x.rescale(s, roundTrunc), y.rescale(s, roundTrunc)
		return decimal{unscaled: new(big.Int).Rem(x.unscaled, y.unscaled), scale: s}.String(), nil
	}
	y := ToFloat(a[1])
	if y == 0 {
		return c.divByZero()
	}
	return math.Mod(ToFloat(a[0]), y), nil
}

// divByZero is a zero divisor's result: NULL with MariaDB's warning 1365
// (its default sql_mode has ERROR_FOR_DIVISION_BY_ZERO).
func (c *Call) divByZero() (any, error) {
	c.Stmt.Warn(1365, "Division by 0")
	return nil, nil
}

func bigOf(v bigint) *big.Int {
	z := new(big.Int).SetUint64(v.mag)
	if v.neg {
		z.Neg(z)
	}
	return z
}

// extremumResult types GREATEST and LEAST: integers if every argument is
// one, DECIMAL for integers and decimals, DOUBLE for other numbers, the
// time kind for times, else a string.
func extremumResult(args []Arg) Kind {
	allInt, allExact, allNum, allTime, allStr := true, true, true, true, true
	dateOnly := true
	for _, a := range args {
		k := a.Kind
		if k == KindNull {
			continue
		}
		allInt = allInt && isInteger(k)
		allExact = allExact && (isInteger(k) || k == sqltypes.KindDecimal)
		allNum = allNum && isNumeric(k)
		allTime = allTime && isTemporal(k)
		dateOnly = dateOnly && k == sqltypes.KindDate
		allStr = allStr && (k == sqltypes.KindString || k == sqltypes.KindBinary)
	}
	switch {
	case allInt:
		return sqltypes.KindInt
	case allExact:
		return sqltypes.KindDecimal
	case allNum:
		return sqltypes.KindFloat
	case allTime && dateOnly:
		return sqltypes.KindDate
	case allTime:
		return sqltypes.KindDatetime
	case allStr:
		return sqltypes.KindString
	}
	// Times mixed with strings compare as times (MySQL reads the strings
	// as dates).
	timesAndStrings, anyTime, dates := true, false, true
	for _, a := range args {
		switch {
		case isTemporal(a.Kind):
			anyTime = true
			dates = dates && a.Kind == sqltypes.KindDate
		case a.Kind == sqltypes.KindString, a.Kind == KindNull:
		default:
			timesAndStrings = false
		}
	}
	if timesAndStrings && anyTime {
		if dates {
			return sqltypes.KindDate
		}
		return sqltypes.KindDatetime
	}
	return sqltypes.KindFloat // numbers mixed with strings compare as DOUBLE
}

// lazyExtremum evaluates the arguments in order and stops at the first
// NULL, as MySQL does (an error in a later argument does not fire).
func lazyExtremum(c *Call, arg func(int) (any, error), sign int) (any, error) {
	vals := make([]any, len(c.Args))
	for i := range vals {
		v, err := arg(i)
		if err != nil || v == nil {
			return nil, err
		}
		vals[i] = v
	}
	return extremum(c, vals, sign)
}

// extremum is GREATEST (sign 1) and LEAST (-1): NULL if any argument is.
func extremum(c *Call, a []any, sign int) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	k := extremumResult(c.Args)
	best := a[0]
	for _, v := range a[1:] {
		var cmp int
		switch k {
		case sqltypes.KindDate, sqltypes.KindDatetime:
			x, ok1 := ToTime(v)
			y, ok2 := ToTime(best)
			if !ok1 || !ok2 {
				return nil, nil // a string that is no date
			}
			cmp = x.Compare(y)
		case sqltypes.KindString:
			cmp = compareStrings(ToString(v), ToString(best))
		case sqltypes.KindFloat:
			cmp = compareFloats(ToFloat(v), ToFloat(best))
		case sqltypes.KindDecimal:
			x, _ := decimalOf(v)
			y, _ := decimalOf(best)
			cmp = compareDecimals(x, y)
		default:
			cmp = Compare(v, best)
		}
		if cmp*sign > 0 {
			best = v
		}
	}
	switch k {
	case sqltypes.KindFloat:
		return ToFloat(best), nil
	case sqltypes.KindString:
		return ToString(best), nil
	case sqltypes.KindDecimal:
		d, _ := decimalOf(best)
		scale := d.scale
		for _, a := range c.Args {
			scale = max(scale, a.Scale) // MySQL: the largest scale of the arguments
		}
		return d.rescale(min(scale, maxDecimalScale), roundHalfUp).String(), nil
	case sqltypes.KindDate, sqltypes.KindDatetime:
		t, _ := ToTime(best)
		return t, nil
	}
	return best, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareDecimals(a, b decimal) int {
	s := max(a.scale, b.scale)
	return a.rescale(s, roundTrunc).unscaled.Cmp(b.rescale(s, roundTrunc).unscaled)
}
