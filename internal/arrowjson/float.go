package arrowjson

import (
	"math"
	"strconv"
)

// Fast float32 and float16 rendering, byte-identical to shortestIn (the
// exact reference, kept as the fallback), without its big.Int arithmetic
// and 160-digit expansion.
//
// float32: strconv's shortest 32-bit digits are the shortest decimal inside
// v's exact rounding interval, and the closest such decimal, with ties to
// even. shortestIn instead tries, per precision, the half-away-from-zero
// rounding of v and its two neighbours, keeps those whose float64 parse
// rounds back to v (a double rounding), and prefers the closest by float64
// distance. The two agree except (a) when v lies (nearly) halfway between
// two candidates of the shortest length (ties, and float64 distances
// too close to order), and (b) when a candidate of at most that length lies
// so close to a boundary of the interval that parsing it to float64 lands
// on the boundary. suspicious32 detects both and those values take the
// exact path.
//
// float16: shortestIn's algorithm itself, on the exact expansion of a
// binary16 value (at most 21 significant digits, so 25 digits are exact)
// with uint64 candidates; every one of the 65,536 values is checked
// against shortestIn in the tests.

// appendFloat32 appends a finite float32 value v (a float64 holding it) as
// shortestIn(v, float32 rounding) renders it.
func appendFloat32(dst []byte, v float64) []byte {
	if v == 0 {
		if math.Signbit(v) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	var buf [32]byte
	digits, exp := sciDigits(strconv.AppendFloat(buf[:0], math.Abs(v), 'e', -1, 32))
	if suspicious32(v, len(digits)) {
		return append(dst, shortestIn(v, func(x float64) (float64, bool) { return float64(float32(x)), true })...)
	}
	return appendES(dst, v < 0, digits, exp)
}

// suspicious32 reports whether shortestIn might pick other digits than
// strconv's p shortest digits for v (see the comment at the top). Both
// tests are exact conditions, not estimates:
//   - a near tie: the (p+1)-digit decimal nearest v ends in 5 and lies
//     within two float64 ulps of v (shortestIn's float64 distances could
//     then order the two p-digit candidates either way; a true tie is
//     decided away from zero there, to even by strconv);
//   - a candidate of at most p digits parses (to float64) exactly onto a
//     float32 rounding boundary of v, where float32() breaks the tie its
//     own way. Any such decimal is a p-digit decimal, and if one parses
//     onto the boundary, the p-digit decimal nearest the boundary does.
func suspicious32(v float64, p int) bool {
	a := math.Abs(v)
	var buf [40]byte
	mid, _ := sciDigits(strconv.AppendFloat(buf[:0], a, 'e', p, 64))
	if mid[len(mid)-1] == '5' {
		m, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], a, 'e', p, 64)), 64)
		if err != nil || math.Abs(m-a) <= 2*(math.Nextafter(a, math.Inf(1))-a) {
			return true
		}
	}
	f := float32(a)
	below := float64(math.Nextafter32(f, 0))
	above := float64(math.Nextafter32(f, float32(math.Inf(1))))
	if math.IsInf(above, 1) { // MaxFloat32: the interval above is as wide as below
		above = a + (a - below)
	}
	for _, b := range [2]float64{(a + below) / 2, (a + above) / 2} {
		if b == 0 {
			continue
		}
		c, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], b, 'e', p-1, 64)), 64)
		if err != nil || c == b {
			return true
		}
	}
	return false
}

// sciDigits splits strconv's 'e' format of a positive number, d.ddde±XX,
// into its significant digits (in place: the result aliases s) and the
// decimal exponent of the first digit.
func sciDigits(s []byte) ([]byte, int) {
	n := 0
	i := 0
	for ; i < len(s) && s[i] != 'e'; i++ {
		if s[i] != '.' {
			s[n] = s[i]
			n++
		}
	}
	exp, neg := 0, false
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '-':
			neg = true
		case c >= '0' && c <= '9':
			exp = exp*10 + int(c-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return s[:n], exp
}

// appendES appends 0.digits × 10^(exp+1) (digits without trailing zeros
// needed: they are trimmed) in ECMAScript Number::toString layout, the one
// encoding/json uses: plain up to 21 integer digits and down to 1e-6,
// exponential (1e+21, 1.5e-7) beyond.
func appendES(dst []byte, neg bool, digits []byte, exp int) []byte {
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if neg {
		dst = append(dst, '-')
	}
	k, n := len(digits), exp+1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// appendFloat16Value appends a finite binary16 value v as shortestIn(v,
// binary16 rounding) renders it: the same search, on uint64 candidates.
func appendFloat16Value(dst []byte, v float64) []byte {
	if v == 0 {
		if math.Signbit(v) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	neg := v < 0
	var exact [40]byte
	all, exp10 := sciDigits(strconv.AppendFloat(exact[:0], math.Abs(v), 'e', 24, 64))
	var text [40]byte
	for p := 1; p <= 17; p++ {
		// The p-digit rounding of the exact digits, ties away from zero.
		var r uint64
		for i := 0; i < p; i++ {
			r *= 10
			if i < len(all) {
				r += uint64(all[i] - '0')
			}
		}
		e10 := exp10 - (p - 1)
		if p < len(all) && all[p] >= '5' {
			r++
			if r == pow10(p) { // 999 -> 1000
				r /= 10
				e10++
			}
		}
		var best float64
		found := false
		bestDist := math.Inf(1)
		for _, c := range [3]uint64{r, r - 1, r + 1} {
			if c == 0 || c == math.MaxUint64 {
				continue
			}
			t := text[:0]
			if neg {
				t = append(t, '-')
			}
			t = strconv.AppendUint(t, c, 10)
			t = append(t, 'e')
			t = strconv.AppendInt(t, int64(e10), 10)
			cv, err := strconv.ParseFloat(string(t), 64)
			if err != nil {
				continue
			}
			if back := Float16(Float16Bits(cv)); math.IsInf(back, 0) || back != v {
				continue
			}
			if dist := math.Abs(cv - v); dist < bestDist {
				best, bestDist, found = cv, dist, true
			}
		}
		if found {
			return appendJSONFloat64(dst, best)
		}
	}
	return appendJSONFloat64(dst, v)
}

// pow10 is 10^p for p <= 19.
func pow10(p int) uint64 {
	n := uint64(1)
	for range p {
		n *= 10
	}
	return n
}

// appendJSONFloat64 appends a finite float64 as encoding/json does.
func appendJSONFloat64(dst []byte, v float64) []byte {
	if v == 0 {
		if math.Signbit(v) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	var buf [32]byte
	digits, exp := sciDigits(strconv.AppendFloat(buf[:0], math.Abs(v), 'e', -1, 64))
	return appendES(dst, v < 0, digits, exp)
}
