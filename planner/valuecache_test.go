package planner

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestValueCacheReadsAsReader: through a column's value cache every value
// is the one readerFor makes (NULLs, DECIMALs past an int64, strings past
// the cached length, a batch of another DECIMAL scale), repeated values
// hit the cache, and a column without repeats turns it off.
func TestValueCacheReadsAsReader(t *testing.T) {
	mem := memory.DefaultAllocator
	big1 := decimal128.FromBigInt(new(big.Int).Lsh(big.NewInt(1), 70))
	decimals := func(scale int32, n int, distinct int) arrow.Array {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 30, Scale: scale})
		defer b.Release()
		for i := 0; i < n; i++ {
			switch {
			case i%17 == 0:
				b.AppendNull()
			case i%23 == 0:
				b.Append(big1)
			default:
				b.Append(decimal128.FromI64(int64(i%distinct) - 5))
			}
		}
		return b.NewArray()
	}
	dates := func(n, distinct int) arrow.Array {
		b := array.NewDate32Builder(mem)
		defer b.Release()
		for i := 0; i < n; i++ {
			if i%19 == 0 {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Date32(8036 + i%distinct))
		}
		return b.NewArray()
	}
	strs := func(n, distinct int) arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for i := 0; i < n; i++ {
			switch {
			case i%13 == 0:
				b.AppendNull()
			case i%29 == 0:
				b.Append(strings.Repeat("long", 10) + fmt.Sprint(i%distinct))
			default:
				b.Append(fmt.Sprint("v", i%distinct))
			}
		}
		return b.NewArray()
	}
	type batchOf struct {
		arr  arrow.Array
		name string
	}
	cases := []struct {
		name    string
		batches []batchOf
		wantOff bool
	}{
		{"decimal", []batchOf{{decimals(2, 5000, 11), "s2"}, {decimals(2, 3000, 11), "s2"}, {decimals(4, 3000, 7), "s4"}}, false},
		{"date", []batchOf{{dates(5000, 2500), ""}, {dates(5000, 2500), ""}}, false},
		{"string", []batchOf{{strs(5000, 7), ""}, {strs(2000, 7), ""}}, false},
		{"unique decimals", []batchOf{{decimals(2, 9000, 1<<30), ""}}, true},
		{"unique strings", []batchOf{{strs(9000, 1<<30), ""}}, true},
	}
	for _, tc := range cases {
		var c valueCache
		for b, bt := range tc.batches {
			f := arrow.Field{Name: "c", Type: bt.arr.DataType(), Nullable: true}
			plain, err := readerFor(f, bt.arr)
			if err != nil {
				t.Fatal(err)
			}
			cached, err := cachedReaderFor(&c, f, bt.arr)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < bt.arr.Len(); i++ {
				want, err1 := plain(i)
				got, err2 := cached(i)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s batch %d row %d: got %#v (%v), want %#v (%v)", tc.name, b, i, got, err2, want, err1)
				}
			}
			bt.arr.Release()
		}
		if c.off != tc.wantOff {
			t.Errorf("%s: cache off %v after %d lookups, %d hits; want off %v", tc.name, c.off, c.lookups, c.hits, tc.wantOff)
		}
		if !tc.wantOff && c.hits*2 < c.lookups {
			t.Errorf("%s: %d hits of %d lookups", tc.name, c.hits, c.lookups)
		}
	}
}
