package arrowjson

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func one(t *testing.T, arr arrow.Array) string {
	t.Helper()
	defer arr.Release()
	b, err := AppendValue(nil, arr, 0)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValues(t *testing.T) {
	mem := memory.DefaultAllocator
	cases := []struct {
		name string
		arr  func() arrow.Array
		want string
	}{
		{"int64 min", func() arrow.Array {
			b := array.NewInt64Builder(mem)
			b.Append(math.MinInt64)
			return b.NewArray()
		}, "-9223372036854775808"},
		{"uint64 max", func() arrow.Array {
			b := array.NewUint64Builder(mem)
			b.Append(math.MaxUint64)
			return b.NewArray()
		}, "18446744073709551615"},
		{"float32 0.1", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.Append(0.1)
			return b.NewArray()
		}, "0.1"},
		{"float32 tie rounds away like toExponential", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.Append(-3337338.25)
			return b.NewArray()
		}, "-3337338.3"},
		{"float32 tiny", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.Append(math.SmallestNonzeroFloat32)
			return b.NewArray()
		}, "1e-45"},
		{"float32 max", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.Append(math.MaxFloat32)
			return b.NewArray()
		}, "3.4028235e+38"},
		{"float64 1e21", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			b.Append(1e21)
			return b.NewArray()
		}, "1e+21"},
		{"float64 -0", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			b.Append(math.Copysign(0, -1))
			return b.NewArray()
		}, "-0"},
		{"float64 nan", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			b.Append(math.NaN())
			return b.NewArray()
		}, `"NaN"`},
		{"float32 -inf", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.Append(float32(math.Inf(-1)))
			return b.NewArray()
		}, `"-Infinity"`},
		{"float16 65504", func() arrow.Array {
			b := array.NewFloat16Builder(mem)
			b.Append(float16.New(65504))
			return b.NewArray()
		}, "65500"},
		{"float16 0.1", func() arrow.Array {
			b := array.NewFloat16Builder(mem)
			b.Append(float16.New(0.1))
			return b.NewArray()
		}, "0.1"},
		{"float16 smallest subnormal", func() arrow.Array {
			b := array.NewFloat16Builder(mem)
			b.Append(float16.FromBits(1))
			return b.NewArray()
		}, "6e-8"},
		{"binary", func() arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			b.Append([]byte{0xff, 0, 1})
			return b.NewArray()
		}, `"/wAB"`},
		{"date32 negative", func() arrow.Array {
			b := array.NewDate32Builder(mem)
			b.Append(-1)
			return b.NewArray()
		}, `"1969-12-31"`},
		{"timestamp ns -1 no zone", func() arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
			b.Append(-1)
			return b.NewArray()
		}, `"1969-12-31T23:59:59.999999999"`},
		{"timestamp us UTC", func() arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"})
			b.Append(1_500_000)
			return b.NewArray()
		}, `"1970-01-01T00:00:01.500000000Z"`},
		{"decimal -12.30", func() arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
			b.Append(decimal128.FromI64(-1230))
			return b.NewArray()
		}, `"-12.30"`},
		{"decimal 0.05", func() arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
			b.Append(decimal128.FromI64(5))
			return b.NewArray()
		}, `"0.05"`},
		{"list with null", func() arrow.Array {
			b := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
			b.Append(true)
			vb := b.ValueBuilder().(*array.Int32Builder)
			vb.Append(1)
			vb.AppendNull()
			return b.NewArray()
		}, "[1,null]"},
		{"struct", func() arrow.Array {
			st := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}, arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
			b := array.NewStructBuilder(mem, st)
			b.Append(true)
			b.FieldBuilder(0).(*array.StringBuilder).Append("x\"<")
			b.FieldBuilder(1).(*array.Int32Builder).AppendNull()
			return b.NewArray()
		}, `{"b":"x\"\u003c","a":null}`},
	}
	for _, c := range cases {
		if got := one(t, c.arr()); got != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
	}
}

func TestDecimalText(t *testing.T) {
	for _, c := range []struct {
		v     int64
		scale int32
		want  string
	}{{0, 2, "0.00"}, {-1, 3, "-0.001"}, {12345, 0, "12345"}, {7, -2, "700"}} {
		if got := decimalText(big.NewInt(c.v), c.scale); got != c.want {
			t.Errorf("%d/%d: %s want %s", c.v, c.scale, got, c.want)
		}
	}
}

func TestWriteLines(t *testing.T) {
	mem := memory.DefaultAllocator
	s := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int8}, {Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	ib := array.NewInt8Builder(mem)
	ib.AppendValues([]int8{1, 2}, nil)
	sb := array.NewStringBuilder(mem)
	sb.Append("x")
	sb.AppendNull()
	rec := array.NewRecordBatch(s, []arrow.Array{ib.NewArray(), sb.NewArray()}, 2)
	var out strings.Builder
	if err := WriteLines(&out, rec); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"z\":1,\"a\":\"x\"}\n{\"z\":2,\"a\":null}\n" {
		t.Errorf("%q", out.String())
	}
}
