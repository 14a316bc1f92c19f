package planner

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// decimalOperands cover the int64 fast path's edges: zero, signs, scales
// from 0 to 18, 18 and 19 digits, the int64 limits and text it refuses.
var decimalOperands = []any{
	int64(0), int64(1), int64(-1), int64(7), int64(-24), int64(math.MaxInt64), int64(math.MinInt64),
	uint64(math.MaxUint64), uint64(12), true, false,
	sqltypes.Decimal("0"), sqltypes.Decimal("0.00"), sqltypes.Decimal("-0.00"), sqltypes.Decimal("1.5"),
	sqltypes.Decimal("-1.5"), sqltypes.Decimal("0.06"), sqltypes.Decimal("0.01"), sqltypes.Decimal("+3.25"),
	sqltypes.Decimal(".5"), sqltypes.Decimal("5."), sqltypes.Decimal("-.005"), sqltypes.Decimal("00012.3400"),
	sqltypes.Decimal("123456789012345678"), sqltypes.Decimal("-123456789012345678"),
	sqltypes.Decimal("1234567890123456789"), sqltypes.Decimal("0.000000000000000001"),
	sqltypes.Decimal("999999999.999999999"), sqltypes.Decimal("-922337203685477580.7"),
	sqltypes.Decimal("0.000000000000001234"), sqltypes.Decimal("901234.56"),
	"17.25", "-0.5", "abc", "1e5", "", "-", ".", "1.2.3",
}

// TestSmallDecimalMatchesBig: +, -, *, % and DIV, comparisons and
// truth values through the int64 fast path give what the big.Int path
// gives, on every pair of operands.
func TestSmallDecimalMatchesBig(t *testing.T) {
	ops := []sqlparse.BinaryOp{sqlparse.OpAdd, sqlparse.OpSub, sqlparse.OpMul, sqlparse.OpMod, sqlparse.OpIntDiv}
	fast := 0
	for _, l := range decimalOperands {
		for _, r := range decimalOperands {
			for _, op := range ops {
				got, gotOK, gotErr := decimalArithmetic(op, l, r)
				want, wantOK, wantErr := bigDecimalArithmetic(op, l, r)
				if got != want || gotOK != wantOK || (gotErr == nil) != (wantErr == nil) {
					t.Errorf("%#v %s %#v: %#v, %v, %v; big.Int: %#v, %v, %v", l, op, r, got, gotOK, gotErr, want, wantOK, wantErr)
				}
				if _, ok := smallDecimalArithmetic(op, l, r); ok {
					fast++
				}
			}
			if !hasDecimal(l, r) {
				continue
			}
			gc, gok := compareDecimal(l, r)
			wc, wok := compareBigDecimal(l, r)
			if gc != wc || gok != wok {
				t.Errorf("compare(%#v, %#v) = %d, %v; big.Int: %d, %v", l, r, gc, gok, wc, wok)
			}
		}
		if d, ok := l.(sqltypes.Decimal); ok {
			want := 1
			if x, ok := parseDecimalText(string(d)); ok && x.unscaled.Sign() == 0 {
				want = 0
			}
			if got := truth(d); got != want {
				t.Errorf("truth(%#v) = %d, want %d", d, got, want)
			}
		}
		if s, ok := l.(string); ok {
			_, want := parseDecimalText(s)
			if got := isDecimalText(s); got != want {
				t.Errorf("isDecimalText(%q) = %v, want %v", s, got, want)
			}
		}
	}
	if fast == 0 {
		t.Fatal("no pair took the fast path")
	}
}

func BenchmarkDecimalArithmetic(b *testing.B) {
	price, disc := sqltypes.Decimal("90123.45"), sqltypes.Decimal("0.06")
	b.ReportAllocs()
	for b.Loop() {
		d, _, _ := decimalArithmetic(sqlparse.OpSub, int64(1), disc)
		if _, _, err := decimalArithmetic(sqlparse.OpMul, price, d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecimalArithmeticBig(b *testing.B) {
	price, disc := sqltypes.Decimal("90123.45"), sqltypes.Decimal("0.06")
	b.ReportAllocs()
	for b.Loop() {
		d, _, _ := bigDecimalArithmetic(sqlparse.OpSub, int64(1), disc)
		if _, _, err := bigDecimalArithmetic(sqlparse.OpMul, price, d); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecSumSmallMatchesBig: a decimal sum through the int64 accumulator
// (scales that grow, values of 18 and 19 digits, sums past the int64
// range, integers) is the exact sum big.Int gives.
func TestDecSumSmallMatchesBig(t *testing.T) {
	values := []any{"1.5", "-0.25", int64(7), "999999999999999999", "999999999999999999", "0.000001",
		"-123456789012345678.9", "1234567890123456789", "+.5", uint64(math.MaxUint64), "922337203685477580.7",
		"922337203685477580.7", sqltypes.Decimal("-0.10"), "0", "5."}
	for n := 1; n <= len(values); n++ {
		var d decSum
		want, scale := new(big.Rat), 0
		for _, v := range values[:n] {
			d.add(v)
			r, ok := new(big.Rat).SetString(strings.TrimPrefix(toString(v), "+"))
			if !ok {
				t.Fatalf("bad test value %v", v)
			}
			want.Add(want, r)
			if _, fp, ok := strings.Cut(toString(v), "."); ok {
				scale = max(scale, len(fp))
			}
		}
		if d.bad {
			t.Fatalf("%d values: bad", n)
		}
		if got := string(d.text(1, scale)); got != want.FloatString(scale) {
			t.Errorf("sum of %v: %s, want %s", values[:n], got, want.FloatString(scale))
		}
	}
}
