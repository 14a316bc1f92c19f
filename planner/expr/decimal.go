package expr

import (
	"math/big"
	"strings"
)

// decimal is an exact decimal number: unscaled / 10^scale. DECIMAL values
// travel as their text ("-12.30"); functions that keep a DECIMAL exact
// (ROUND, TRUNCATE, FLOOR, CEIL, ABS, CAST AS DECIMAL) compute on this.
type decimal struct {
	unscaled *big.Int
	scale    int
}

// maxDecimalDigits is MySQL's DECIMAL precision limit (65 digits, 38 of
// them after the point); a text longer than this is not read exactly.
const (
	maxDecimalDigits = 65
	maxDecimalScale  = 38
)

// parseDecimal reads the leading decimal number of s ([+-]digits[.digits],
// MySQL's conversion of a string); ok is false when s has no digits or
// more than 65 + 38 of them.
func parseDecimal(s string) (decimal, bool) {
	s = strings.TrimLeft(s, " \t\n\r")
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits strings.Builder
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		digits.WriteByte(s[i])
		i++
	}
	intDigits := i - start
	scale := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			digits.WriteByte(s[i])
			i++
			scale++
		}
	}
	if intDigits+scale == 0 || digits.Len() > maxDecimalDigits+maxDecimalScale {
		return decimal{}, false
	}
	u, ok := new(big.Int).SetString(digits.String(), 10)
	if !ok {
		return decimal{}, false
	}
	if neg {
		u.Neg(u)
	}
	return decimal{unscaled: u, scale: scale}, true
}

// decimalOf converts a value to a decimal (floats through their shortest
// text).
func decimalOf(v any) (decimal, bool) {
	switch x := v.(type) {
	case int64:
		return decimal{unscaled: big.NewInt(x)}, true
	case uint64:
		return decimal{unscaled: new(big.Int).SetUint64(x)}, true
	case float64:
		s := strings.ToLower(FormatFloat(x))
		if strings.ContainsAny(s, "ein") {
			r, ok := new(big.Rat).SetString(s)
			if !ok {
				return decimal{}, false
			}
			return decimalFromRat(r, maxDecimalScale), true
		}
		return parseDecimal(s)
	}
	d, ok := parseDecimal(ToString(v))
	if !ok {
		return decimal{unscaled: new(big.Int)}, true // MySQL: a non-number is 0
	}
	return d, true
}

// decimalFromRat rounds r half away from zero to scale digits.
func decimalFromRat(r *big.Rat, scale int) decimal {
	num := new(big.Int).Mul(r.Num(), pow10(scale))
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(r.Denom()) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return decimal{unscaled: q, scale: scale}.trimZeros(scale)
}

func (d decimal) trimZeros(keep int) decimal { return d }

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// String prints the decimal with exactly scale fraction digits.
func (d decimal) String() string {
	s := new(big.Int).Abs(d.unscaled).String()
	if d.scale > 0 {
		if len(s) <= d.scale {
			s = strings.Repeat("0", d.scale-len(s)+1) + s
		}
		s = s[:len(s)-d.scale] + "." + s[len(s)-d.scale:]
	}
	if d.unscaled.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// rescale changes the scale to n digits: up exactly, down by mode
// (roundHalfUp: half away from zero; truncate: toward zero; floor, ceil).
type roundMode int

const (
	roundHalfUp roundMode = iota
	roundTrunc
	roundFloor
	roundCeil
)

func (d decimal) rescale(n int, mode roundMode) decimal {
	if n >= d.scale {
		return decimal{unscaled: new(big.Int).Mul(d.unscaled, pow10(n-d.scale)), scale: n}
	}
	div := pow10(d.scale - n)
	q, m := new(big.Int).QuoRem(d.unscaled, div, new(big.Int)) // toward zero
	if m.Sign() != 0 {
		switch mode {
		case roundHalfUp:
			if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(div) >= 0 {
				q.Add(q, big.NewInt(int64(d.unscaled.Sign())))
			}
		case roundFloor:
			if d.unscaled.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			}
		case roundCeil:
			if d.unscaled.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if n < 0 {
		return decimal{unscaled: q.Mul(q, pow10(-n)), scale: 0}
	}
	return decimal{unscaled: q, scale: n}
}

// intDigits is the number of digits before the point.
func (d decimal) intDigits() int {
	q := new(big.Int).Quo(new(big.Int).Abs(d.unscaled), pow10(d.scale))
	if q.Sign() == 0 {
		return 0
	}
	return len(q.String())
}
