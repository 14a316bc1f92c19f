package planner

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// Arithmetic: +, -, *, /, DIV and % (MOD) over the row value types, as
// MySQL computes them where lancecat's value types allow. NULL on either
// side is NULL. Two integers give an integer (int64, or uint64 when a
// result above math.MaxInt64 needs it); a result outside both fails with
// InvalidInput ("BIGINT value is out of range", as MySQL) instead of
// wrapping. A float64 on either side, or a string (converted as MySQL
// converts it, 0 when it is not a number; a DECIMAL column's exact text
// included), makes the result a float64. `/` always divides as float64
// (MySQL answers a DECIMAL); DIV truncates to an integer; division or
// modulo by zero is NULL (MySQL's default outside strict mode).

// arithmetic applies op to two non-NULL-checked values.
func arithmetic(op sqlparse.BinaryOp, l, r any) (any, error) {
	if l == nil || r == nil {
		return nil, nil
	}
	li, lInt := intParts(l)
	ri, rInt := intParts(r)
	if lInt && rInt && op != sqlparse.OpDiv {
		_, lu := l.(uint64)
		_, ru := r.(uint64)
		return intArithmetic(op, li, ri, lu || ru)
	}
	if hasDecimal(l, r) && op != sqlparse.OpDiv {
		if v, ok, err := decimalArithmetic(op, l, r); ok {
			return v, err
		}
	}
	lf, ok := arithNumber(l)
	if !ok {
		return nil, errorf(catalog.CodeUnsupported, "not supported: arithmetic on %T values", l)
	}
	rf, ok := arithNumber(r)
	if !ok {
		return nil, errorf(catalog.CodeUnsupported, "not supported: arithmetic on %T values", r)
	}
	v, err := floatArithmetic(op, lf, rf)
	if f, isFloat := v.(float64); isFloat && err == nil && (math.IsInf(f, 0) || math.IsNaN(f)) &&
		!math.IsInf(lf, 0) && !math.IsNaN(lf) && !math.IsInf(rf, 0) && !math.IsNaN(rf) {
		// MySQL has no NaN or infinite DOUBLE: 1e308 * 10 is its error 1690.
		return nil, &catalog.Error{Code: catalog.CodeInvalidInput,
			Message: fmt.Sprintf("DOUBLE value is out of range in '(%s %s %s)'", formatFloat(lf), op, formatFloat(rf)), Cause: ErrOutOfRange}
	}
	return v, err
}

// ErrOutOfRange is MySQL's ER_DATA_OUT_OF_RANGE (1690): an arithmetic
// result outside its type (a DOUBLE beyond ±MaxFloat64, or NaN).
var ErrOutOfRange = errors.New("value is out of range (MySQL error 1690, ER_DATA_OUT_OF_RANGE)")

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// floatArithmetic applies op to two float64 operands.
func floatArithmetic(op sqlparse.BinaryOp, lf, rf float64) (any, error) {
	switch op {
	case sqlparse.OpAdd:
		return lf + rf, nil
	case sqlparse.OpSub:
		return lf - rf, nil
	case sqlparse.OpMul:
		return lf * rf, nil
	case sqlparse.OpDiv:
		if rf == 0 {
			return nil, nil
		}
		return lf / rf, nil
	case sqlparse.OpIntDiv:
		if rf == 0 {
			return nil, nil
		}
		q := math.Trunc(lf / rf)
		if q < math.MinInt64 || q >= math.MaxInt64 {
			return nil, errorf(catalog.CodeInvalidInput, "BIGINT value is out of range in %g DIV %g", lf, rf)
		}
		return int64(q), nil
	case sqlparse.OpMod:
		if rf == 0 {
			return nil, nil
		}
		return math.Mod(lf, rf), nil
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: operator %s", op)
}

// arithNumber converts an operand to float64: numbers as they are,
// strings as MySQL converts them (the leading number, else 0).
func arithNumber(v any) (float64, bool) {
	if f, ok := toNumber(v); ok {
		return f, true
	}
	switch x := v.(type) {
	case string:
		return leadingNumber(x), true
	case []byte:
		return leadingNumber(string(x)), true
	}
	return 0, false
}

// leadingNumber is the longest prefix of s (after spaces) that reads as a
// decimal number (sign, digits, point, digits, exponent), 0 if none:
// MySQL's conversion of a string in arithmetic. One pass over the prefix
// and one ParseFloat: trying ParseFloat on ever shorter prefixes was
// quadratic ('1<100,000 x>' + 0 took 9.4 s). Words ParseFloat would take
// (inf, nan, hex floats) are not numbers here, as in MySQL; a number
// beyond the float64 range is ±MaxFloat64, as MySQL clamps it.
func leadingNumber(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			end = k
		}
	}
	f, err := strconv.ParseFloat(s[:end], 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0
	}
	if math.IsInf(f, 0) {
		return math.Copysign(math.MaxFloat64, f)
	}
	return f
}

// intArithmetic computes op exactly on two integers (big.Int) and types
// the result as MySQL does: BIGINT UNSIGNED when an operand is (a uint64),
// else BIGINT. +, -, * and DIV outside that type are MySQL's error 1690
// (9223372036854775807 + 1, a BIGINT UNSIGNED minus a larger value); the
// result is an int64 when it fits, else a uint64.
func intArithmetic(op sqlparse.BinaryOp, a, b intVal, unsigned bool) (any, error) {
	x, y := a.big(), b.big()
	z := new(big.Int)
	switch op {
	case sqlparse.OpAdd:
		z.Add(x, y)
	case sqlparse.OpSub:
		z.Sub(x, y)
	case sqlparse.OpMul:
		z.Mul(x, y)
	case sqlparse.OpIntDiv:
		if y.Sign() == 0 {
			return nil, nil
		}
		z.Quo(x, y) // truncates toward zero, as MySQL's DIV
	case sqlparse.OpMod:
		if y.Sign() == 0 {
			return nil, nil
		}
		z.Rem(x, y) // the sign of the dividend, as MySQL's MOD
	default:
		return nil, errorf(catalog.CodeUnsupported, "not supported: operator %s", op)
	}
	typ := "BIGINT"
	if unsigned {
		typ = "BIGINT UNSIGNED"
	}
	fits := z.IsInt64() || (unsigned && z.IsUint64())
	if unsigned && z.Sign() < 0 && op != sqlparse.OpMod {
		fits = false
	}
	if op == sqlparse.OpMod {
		// A remainder is never larger than its dividend: it always fits.
		fits = z.IsInt64() || z.IsUint64()
	}
	if !fits {
		return nil, &catalog.Error{Code: catalog.CodeInvalidInput,
			Message: fmt.Sprintf("%s value is out of range in '(%s %s %s)'", typ, x, op, y), Cause: ErrOutOfRange}
	}
	if z.IsInt64() {
		return z.Int64(), nil
	}
	return z.Uint64(), nil
}

// negate is unary minus on a value that is not a float or a decimal. An
// integer is negated exactly, not as 0 - x: -9223372036854775808 is the
// literal 9223372036854775808 (BIGINT UNSIGNED) negated, a BIGINT, and the
// negation of -9223372036854775808 is 9223372036854775808.
func negate(v any) (any, error) {
	iv, ok := intParts(v)
	if !ok {
		return arithmetic(sqlparse.OpSub, int64(0), v)
	}
	z := iv.big()
	z.Neg(z)
	switch {
	case z.IsInt64():
		return z.Int64(), nil
	case z.IsUint64():
		return z.Uint64(), nil
	}
	return nil, &catalog.Error{Code: catalog.CodeInvalidInput,
		Message: fmt.Sprintf("BIGINT value is out of range in '-(%s)'", iv.big()), Cause: ErrOutOfRange}
}

func (v intVal) big() *big.Int {
	z := new(big.Int).SetUint64(v.mag)
	if v.neg {
		z.Neg(z)
	}
	return z
}

// isArithmetic reports whether op is +, -, *, /, DIV or %.
func isArithmetic(op sqlparse.BinaryOp) bool {
	switch op {
	case sqlparse.OpAdd, sqlparse.OpSub, sqlparse.OpMul, sqlparse.OpDiv, sqlparse.OpIntDiv, sqlparse.OpMod:
		return true
	}
	return false
}
