package sqltypes

import (
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/internal/arrowjson"
)

// decimalValues are unscaled values around every boundary of the int64
// fast path: zero, one digit, the int64 limits and beyond them.
var decimalValues = []*big.Int{
	big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(5), big.NewInt(-5), big.NewInt(12), big.NewInt(-12),
	big.NewInt(123), big.NewInt(-123), big.NewInt(100), big.NewInt(-100), big.NewInt(90123456),
	big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64), big.NewInt(math.MinInt64 + 1),
	new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1)),
	new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1)),
	new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 64)),
	new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1)),
}

// TestDecimal128ReaderText: the Decimal128 reader's text (the int64 fast
// path and the big.Int one) is internal/arrowjson's decimal text, at every
// scale from 0 to the precision.
func TestDecimal128ReaderText(t *testing.T) {
	for _, scale := range []int32{0, 1, 2, 3, 10, 19, 20, 38} {
		typ := &arrow.Decimal128Type{Precision: 38, Scale: scale}
		b := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
		for _, v := range decimalValues {
			b.Append(decimal128.FromBigInt(v))
		}
		b.AppendNull()
		arr := b.NewArray()
		f := arrow.Field{Name: "d", Type: typ, Nullable: true}
		r, err := Reader(f, arr)
		if err != nil {
			t.Fatal(err)
		}
		for i := range decimalValues {
			got, err := r(i)
			if err != nil {
				t.Fatal(err)
			}
			js, err := arrowjson.AppendValue(nil, arr, i)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := strconv.Unquote(string(js))
			if got != want {
				t.Errorf("scale %d, %s: %#v, want %#v", scale, decimalValues[i], got, want)
			}
		}
		if got, err := r(len(decimalValues)); got != nil || err != nil {
			t.Errorf("NULL: %#v, %v", got, err)
		}
		arr.Release()
		b.Release()
	}
}

func BenchmarkDecimal128Reader(b *testing.B) {
	typ := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	bld := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
	for i := range 1024 {
		bld.Append(decimal128.FromI64(int64(i*7919 - 3000000)))
	}
	arr := bld.NewArray()
	defer arr.Release()
	r, err := Reader(arrow.Field{Name: "d", Type: typ}, arr)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range 1024 {
			if _, err := r(i); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecimal128ReaderJSON(b *testing.B) {
	typ := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	bld := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
	for i := range 1024 {
		bld.Append(decimal128.FromI64(int64(i*7919 - 3000000)))
	}
	arr := bld.NewArray()
	defer arr.Release()
	r := jsonTextReader(arrow.Field{Name: "d", Type: typ}, arr, true)
	b.ReportAllocs()
	for b.Loop() {
		for i := range 1024 {
			if _, err := r(i); err != nil {
				b.Fatal(err)
			}
		}
	}
}
