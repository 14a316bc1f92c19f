package planner

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/sqltypes"
)

// Exact SUM and AVG of DECIMAL (MySQL's): the values, exact decimal text,
// are summed as an integer scaled by 10^scale, not as float64 (TPC-H Q1's
// SUM(l_quantity) is 373181.00, Q22's SUM(c_acctbal) 48142.12, not
// 48142.119999999995). SUM of DECIMAL(p,s) is a DECIMAL with scale s;
// AVG one with scale s+4 (div_precision_increment), rounded half away from
// zero. A value that is not decimal text or an integer (a DOUBLE in a
// mixed expression) drops the call back to a floating sum, which goes on
// from the exact sum of the values before it (aggregate.go).

// decSum is the exact sum of one aggregate call in one group. While the
// sum and each value fit in an int64 (scaled by 10^scale) it is kept in
// small, each value parsed without allocating; past that (or a value of
// more than 18 digits) it moves to the big.Int v for good.
type decSum struct {
	v     *big.Int // the sum once it is big; nil before
	small int64    // the sum while v is nil
	any   bool     // a value was added
	scale int      // digits after the point the sum is scaled by
	bad   bool
}

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// mulPow10 is x * 10^n, ok false when it overflows an int64.
func mulPow10(x int64, n int) (int64, bool) {
	if n >= len(pow10s) {
		return 0, x == 0
	}
	m := pow10s[n]
	if x > math.MaxInt64/m || x < math.MinInt64/m {
		return 0, false
	}
	return x * m, true
}

// add adds one value.
func (d *decSum) add(x any) {
	if d.bad {
		return
	}
	var text string
	switch v := x.(type) {
	case string:
		text = v
	case sqltypes.Decimal:
		text = string(v)
	case int64:
		if d.v == nil && d.addSmall(v, 0) {
			return
		}
		text = strconv.FormatInt(v, 10)
	case uint64:
		text = strconv.FormatUint(v, 10)
	case bool: // a comparison's 1 or 0
		if v {
			d.add(int64(1))
		} else {
			d.add(int64(0))
		}
		return
	default:
		d.bad = true
		return
	}
	text = strings.TrimSpace(text)
	if !numericText(text) {
		d.bad = true
		return
	}
	if d.v == nil {
		if n, s, ok := parseSmallDecimal(text); ok && d.addSmall(n, s) {
			return
		}
		// Too big for an int64 from here on.
		d.v = big.NewInt(d.small)
	}
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimLeft(text, "+-")
	ip, fp, _ := strings.Cut(text, ".")
	n, ok := new(big.Int).SetString(ip+fp, 10)
	if !ok {
		d.bad = true
		return
	}
	if neg {
		n.Neg(n)
	}
	d.addBig(n, len(fp))
}

// addBig adds n / 10^scale to the big sum d.v (n is modified).
func (d *decSum) addBig(n *big.Int, scale int) {
	d.any = true
	switch {
	case scale > d.scale:
		d.v.Mul(d.v, pow10(scale-d.scale))
		d.scale = scale
	case scale < d.scale:
		n.Mul(n, pow10(d.scale-scale))
	}
	d.v.Add(d.v, n)
}

// addInt128 adds the 128-bit two's complement hi:lo / 10^scale, a sum
// made over column batches (batchagg.go), exactly as adding its terms one
// by one would.
func (d *decSum) addInt128(hi int64, lo uint64, scale int) {
	if d.bad {
		return
	}
	if hi == int64(lo)>>63 && d.v == nil && d.addSmall(int64(lo), scale) {
		return
	}
	if d.v == nil {
		d.v = big.NewInt(d.small)
	}
	n := new(big.Int).SetInt64(hi)
	n.Lsh(n, 64)
	d.addBig(n.Add(n, new(big.Int).SetUint64(lo)), scale)
}

// addSmall adds n / 10^scale to the int64 sum; false (nothing changed)
// when that overflows.
func (d *decSum) addSmall(n int64, scale int) bool {
	sum, sumScale := d.small, d.scale
	if scale > sumScale {
		var ok bool
		if sum, ok = mulPow10(sum, scale-sumScale); !ok {
			return false
		}
		sumScale = scale
	} else if scale < sumScale {
		var ok bool
		if n, ok = mulPow10(n, sumScale-scale); !ok {
			return false
		}
	}
	r := sum + n
	if (r > sum) != (n > 0) && n != 0 {
		return false // overflow
	}
	d.small, d.scale, d.any = r, sumScale, true
	return true
}

// float is the sum as a DOUBLE (0 before any value).
func (d *decSum) float() float64 {
	if !d.any {
		return 0
	}
	f, _ := strconv.ParseFloat(string(d.text(1, d.scale)), 64)
	return f
}

// text is v / 10^(d.scale) / div with scale digits, rounded half away from
// zero.

func (d *decSum) text(div int64, scale int) sqltypes.Decimal {
	if d.v == nil && div == 1 && scale >= d.scale {
		// A sum in an int64 at no more digits than the result's: its
		// digits as they are, padded, without big.Int (a GROUP BY's
		// SUM per group).
		if u, ok := mulPow10(d.small, scale-d.scale); ok {
			return sqltypes.Decimal(sqltypes.AppendDecimalText(nil, u, scale))
		}
	}
	var num *big.Int
	if d.v != nil {
		num = new(big.Int).Set(d.v)
	} else {
		num = big.NewInt(d.small)
	}
	// num / (10^d.scale * div) at `scale` digits: num * 10^scale / (10^d.scale * div).
	num.Mul(num, pow10(scale))
	den := new(big.Int).Mul(pow10(d.scale), big.NewInt(div))
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 {
		r2 := new(big.Int).Abs(r)
		r2.Mul(r2, big.NewInt(2))
		if r2.Cmp(den) >= 0 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	neg := q.Sign() < 0
	s := new(big.Int).Abs(q).String()
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return sqltypes.Decimal(s)
}

// decimalScaleOf is the scale of a DECIMAL(p,s) type name (-1: not given).
func decimalScaleOf(t string) int {
	_, args, ok := strings.Cut(t, "(")
	if !ok {
		return -1
	}
	args = strings.TrimSuffix(strings.TrimSpace(args), ")")
	_, s, ok := strings.Cut(args, ",")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

// exactResult is an exact DECIMAL call's value for a group (ok false: the
// floating sum answers).
func (c aggCall) exactResult(st *aggState) (any, bool) {
	if !c.exact || st.dec == nil || st.dec.bad || !st.dec.any || st.count == 0 {
		return nil, false
	}
	scale := c.exactScale
	if scale < 0 {
		scale = st.dec.scale
	}
	if c.fn == "avg" {
		return st.dec.text(st.count, min(scale+4, 30)), true
	}
	return st.dec.text(1, scale), true
}

// exactColumn is an exact DECIMAL call's result column.
func (c aggCall) exactColumn(name string) Column {
	scale := c.exactScale
	if scale < 0 {
		return Column{Name: name, DatabaseType: "DECIMAL", Nullable: true}
	}
	if c.fn == "avg" {
		scale = min(scale+4, 30)
	}
	return Column{Name: name, DatabaseType: "DECIMAL(65," + strconv.Itoa(scale) + ")", Nullable: true}
}
