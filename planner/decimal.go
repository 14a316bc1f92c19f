package planner

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Exact decimals. A numeric literal with a decimal point (1.50) is a
// DECIMAL in MySQL, not a DOUBLE: it evaluates to a sqltypes.Decimal (its
// text), compares exactly with integers, other decimals and a DECIMAL
// column's exact text, and +, -, *, % and DIV with integers or decimals stay
// exact (the scale of + and - is the larger scale, of * the sum, of % the
// larger, as MySQL's). Only a DOUBLE on the other side (or `/`, which
// divides as float64) makes the result approximate.

// maxDecimalDigits is MySQL's DECIMAL precision limit: a result with more
// digits is out of range.
const maxDecimalDigits = 65

// maxDecimalScale is MySQL's limit of fraction digits; a product with more
// rounds to it.
const maxDecimalScale = 30

// decimal is unscaled / 10^scale.
type decimal struct {
	unscaled *big.Int
	scale    int
}

// parseDecimalText reads plain decimal text: an optional sign, digits,
// optionally a point and digits (at least one digit in all). Exponents,
// spaces and other text are refused (ok false).
func parseDecimalText(s string) (decimal, bool) {
	t := s
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg, t = t[0] == '-', t[1:]
	}
	ip, fp, _ := strings.Cut(t, ".")
	if ip == "" && fp == "" {
		return decimal{}, false
	}
	for _, part := range []string{ip, fp} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return decimal{}, false
			}
		}
	}
	u, ok := new(big.Int).SetString(ip+fp, 10)
	if !ok {
		if ip+fp != "" {
			return decimal{}, false
		}
		u = new(big.Int)
	}
	if neg {
		u.Neg(u)
	}
	return decimal{unscaled: u, scale: len(fp)}, true
}

// exactOf reads v as an exact number: int64, uint64, a sqltypes.Decimal or,
// when plainText is set, a string of plain decimal text (a DECIMAL
// column's value).
func exactOf(v any, plainText bool) (decimal, bool) {
	switch x := v.(type) {
	case int64:
		return decimal{unscaled: big.NewInt(x)}, true
	case uint64:
		return decimal{unscaled: new(big.Int).SetUint64(x)}, true
	case bool:
		if x {
			return decimal{unscaled: big.NewInt(1)}, true
		}
		return decimal{unscaled: new(big.Int)}, true
	case sqltypes.Decimal:
		return parseDecimalText(string(x))
	case string:
		if plainText {
			return parseDecimalText(x)
		}
	}
	return decimal{}, false
}

// rescale returns d's unscaled value at scale s >= d.scale.
func (d decimal) rescale(s int) *big.Int {
	if s == d.scale {
		return d.unscaled
	}
	return new(big.Int).Mul(d.unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-d.scale)), nil))
}

func (d decimal) cmp(e decimal) int {
	s := max(d.scale, e.scale)
	return d.rescale(s).Cmp(e.rescale(s))
}

// round rounds d half away from zero to scale s < d.scale.
func (d decimal) round(s int) decimal {
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale-s)), nil)
	q, r := new(big.Int).QuoRem(d.unscaled, div, new(big.Int))
	if r.Abs(r).Lsh(r, 1).Cmp(div) >= 0 {
		if d.unscaled.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return decimal{q, s}
}

// String prints d with exactly scale fraction digits ("-0.50", "3").
func (d decimal) String() string {
	neg := d.unscaled.Sign() < 0
	digits := new(big.Int).Abs(d.unscaled).String()
	if d.scale > 0 {
		if len(digits) <= d.scale {
			digits = strings.Repeat("0", d.scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-d.scale] + "." + digits[len(digits)-d.scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// digits is the number of decimal digits of d's unscaled value.
func (d decimal) digits() int {
	return len(new(big.Int).Abs(d.unscaled).String())
}

// hasDecimal reports whether either operand is a decimal value.
func hasDecimal(l, r any) bool {
	_, ld := l.(sqltypes.Decimal)
	_, rd := r.(sqltypes.Decimal)
	return ld || rd
}

// decimalArithmetic computes op exactly when both operands are exact
// (ok false otherwise: the caller computes in float64).
func decimalArithmetic(op sqlparse.BinaryOp, l, r any) (v any, ok bool, err error) {
	if v, ok := smallDecimalArithmetic(op, l, r); ok {
		return v, true, nil
	}
	return bigDecimalArithmetic(op, l, r)
}

// bigDecimalArithmetic is decimalArithmetic over big.Int.
func bigDecimalArithmetic(op sqlparse.BinaryOp, l, r any) (v any, ok bool, err error) {
	a, aok := exactOf(l, false)
	b, bok := exactOf(r, false)
	if !aok || !bok {
		return nil, false, nil
	}
	s := max(a.scale, b.scale)
	var z decimal
	switch op {
	case sqlparse.OpAdd:
		z = decimal{new(big.Int).Add(a.rescale(s), b.rescale(s)), s}
	case sqlparse.OpSub:
		z = decimal{new(big.Int).Sub(a.rescale(s), b.rescale(s)), s}
	case sqlparse.OpMul:
		z = decimal{new(big.Int).Mul(a.unscaled, b.unscaled), a.scale + b.scale}
	case sqlparse.OpMod:
		if b.unscaled.Sign() == 0 {
			return nil, true, nil
		}
		z = decimal{new(big.Int).Rem(a.rescale(s), b.rescale(s)), s}
	case sqlparse.OpIntDiv:
		if b.unscaled.Sign() == 0 {
			return nil, true, nil
		}
		q := new(big.Int).Quo(a.rescale(s), b.rescale(s))
		switch {
		case q.IsInt64():
			return q.Int64(), true, nil
		case q.IsUint64():
			return q.Uint64(), true, nil
		}
		return nil, true, errorf(catalog.CodeInvalidInput, "BIGINT value is out of range in '(%s DIV %s)'", a, b)
	default:
		return nil, false, nil
	}
	if z.scale > maxDecimalScale {
		z = z.round(maxDecimalScale)
	}
	if z.digits() > maxDecimalDigits {
		return nil, true, errorf(catalog.CodeInvalidInput, "DECIMAL value is out of range in '(%s %s %s)'", a, op, b)
	}
	return sqltypes.Decimal(z.String()), true, nil
}

// negateDecimal is -d as text.
func negateDecimal(d sqltypes.Decimal) any {
	x, ok := parseDecimalText(string(d))
	if !ok {
		return d
	}
	x.unscaled = new(big.Int).Neg(x.unscaled)
	return sqltypes.Decimal(x.String())
}

// decimalTypeOf is the DECIMAL(p,s) type name of a decimal literal's text.
func decimalTypeOf(d sqltypes.Decimal) string {
	x, ok := parseDecimalText(string(d))
	if !ok {
		return "DECIMAL"
	}
	p := max(x.digits(), x.scale, 1)
	return "DECIMAL(" + strconv.Itoa(p) + "," + strconv.Itoa(x.scale) + ")"
}
