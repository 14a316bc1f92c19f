package planner

import (
	"math"
	"math/bits"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// The int64 fast path of exact decimals. A DECIMAL value is its text
// (decimal.go), and TPC-H-like queries do decimal arithmetic and
// comparisons on every row: parsing that text into a big.Int and printing
// the result back dominated their profiles. Values of at most 18 digits
// (every DECIMAL(18,s) and below) are parsed into an int64 unscaled value
// without allocating, computed with overflow checks, and printed directly;
// anything else (more digits, an overflow, a scale past maxDecimalScale,
// % and DIV) takes the big.Int path, so results are the same.

// maxSmallDigits is the most digits an int64 always holds.
const maxSmallDigits = 18

// pow10s are the powers of ten an int64 holds.
var pow10s = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// parseSmallDecimal reads plain decimal text as parseDecimalText does, when
// it has at most maxSmallDigits digits (ok false otherwise, and for text
// parseDecimalText refuses).
func parseSmallDecimal(s string) (unscaled int64, scale int, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	digits, point := 0, -1
	var u int64
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits > maxSmallDigits {
				return 0, 0, false
			}
			u = u*10 + int64(c-'0')
		case c == '.' && point < 0:
			point = digits
		default:
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if point >= 0 {
		scale = digits - point
	}
	if neg {
		u = -u
	}
	return u, scale, true
}

// isDecimalText reports whether parseDecimalText reads s, without
// building its value.
func isDecimalText(s string) bool {
	if _, _, ok := parseSmallDecimal(s); ok {
		return true
	}
	_, ok := parseDecimalText(s)
	return ok
}

// smallExact is exactOf's fast path: v as an int64 unscaled value and its
// scale.
func smallExact(v any, plainText bool) (int64, int, bool) {
	switch x := v.(type) {
	case int64:
		return x, 0, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), 0, true
		}
	case bool:
		if x {
			return 1, 0, true
		}
		return 0, 0, true
	case sqltypes.Decimal:
		return parseSmallDecimal(string(x))
	case string:
		if plainText {
			return parseSmallDecimal(x)
		}
	}
	return 0, 0, false
}

// mulSmall is a*b, ok false when it overflows an int64.
func mulSmall(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // MinInt64 stays 1<<63, its magnitude
	}
	return uint64(a)
}

// rescaleSmall is u at scale to >= from, ok false on overflow.
func rescaleSmall(u int64, from, to int) (int64, bool) {
	if to == from {
		return u, true
	}
	if to-from >= len(pow10s) {
		return 0, false
	}
	return mulSmall(u, pow10s[to-from])
}

// smallDecimalArithmetic is decimalArithmetic for +, - and * of operands
// that smallExact reads, when the result fits an int64 (ok false: take the
// big.Int path).
func smallDecimalArithmetic(op sqlparse.BinaryOp, l, r any) (any, bool) {
	a, as, ok := smallExact(l, false)
	if !ok {
		return nil, false
	}
	b, bs, ok := smallExact(r, false)
	if !ok {
		return nil, false
	}
	var z int64
	var zs int
	switch op {
	case sqlparse.OpAdd, sqlparse.OpSub:
		zs = max(as, bs)
		x, ok1 := rescaleSmall(a, as, zs)
		y, ok2 := rescaleSmall(b, bs, zs)
		if !ok1 || !ok2 {
			return nil, false
		}
		var overflow bool
		if op == sqlparse.OpAdd {
			z = x + y
			overflow = (x >= 0) == (y >= 0) && (z >= 0) != (x >= 0)
		} else {
			z = x - y
			overflow = (x >= 0) != (y >= 0) && (z >= 0) != (x >= 0)
		}
		if overflow {
			return nil, false
		}
	case sqlparse.OpMul:
		zs = as + bs
		if zs > maxDecimalScale {
			return nil, false // the big path rounds it
		}
		if z, ok = mulSmall(a, b); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	if z == math.MinInt64 {
		return nil, false // its magnitude has no int64
	}
	var buf [48]byte
	return sqltypes.Decimal(sqltypes.AppendDecimalText(buf[:0], z, zs)), true
}

// compareSmallDecimal is decimal.cmp of the values smallExact reads (ok
// false when either is not one or rescaling overflows).
func compareSmallDecimal(a, b any) (int, bool) {
	x, xs, ok := smallExact(a, true)
	if !ok {
		return 0, false
	}
	y, ys, ok := smallExact(b, true)
	if !ok {
		return 0, false
	}
	s := max(xs, ys)
	if x, ok = rescaleSmall(x, xs, s); !ok {
		return 0, false
	}
	if y, ok = rescaleSmall(y, ys, s); !ok {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}
