package lancefile

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// TestShredFlatMatchesWalk: shredding a flat column a buffer at a time
// (shredFlat) leaves the accumulator exactly as walking it value by value
// does (definition codes, zeroed null slots, offsets, longest value), for
// fixed-width and string / binary columns, with and without nulls, whole
// and sliced, appended after rows already there; and a null in a NOT NULL
// column fails both ways.
func TestShredFlatMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint8,
		arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Date32, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString,
		arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Boolean}
	for _, dt := range types {
		for _, nullPct := range []int{0, 30, 100} {
			for _, nullable := range []bool{true, false} {
				name := fmt.Sprintf("%s nulls %d%% nullable %v", dt, nullPct, nullable)
				arr := randomArray(r, dt, 200, nullPct)
				sliced := array.NewSlice(arr, 17, 150)
				as := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: nullable}}, nil)
				ls, err := lanceschema.FromArrow(as)
				if err != nil {
					t.Fatal(err)
				}
				var accs [2]*leafAccum
				var errs [2]error
				for k := range accs {
					leaves, err := planLeaves(ls)
					if err != nil {
						t.Fatal(err)
					}
					acc := &leafAccum{}
					for _, col := range []arrow.Array{arr, sliced} {
						if k == 0 {
							errs[k] = shredValues(leaves[0], acc, col)
						} else {
							errs[k] = shredColumn(leaves[0], acc, col)
						}
						if errs[k] != nil {
							break
						}
					}
					accs[k] = acc
				}
				if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
					t.Fatalf("%s: errors %v / %v", name, errs[0], errs[1])
				}
				if errs[0] == nil && !reflect.DeepEqual(accs[0], accs[1]) {
					t.Fatalf("%s: accumulators differ\nwalk: %+v\nflat: %+v", name, accs[0], accs[1])
				}
				if !nullable && nullPct > 0 && errs[0] == nil {
					t.Fatalf("%s: a null in a NOT NULL column was taken", name)
				}
				sliced.Release()
				arr.Release()
			}
		}
	}
}

func randomArray(r *rand.Rand, dt arrow.DataType, n, nullPct int) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	for i := 0; i < n; i++ {
		if r.Intn(100) < nullPct {
			b.AppendNull()
			continue
		}
		switch x := b.(type) {
		case *array.Int64Builder:
			x.Append(r.Int63() - r.Int63())
		case *array.Int32Builder:
			x.Append(r.Int31())
		case *array.Uint8Builder:
			x.Append(uint8(r.Intn(256)))
		case *array.Float64Builder:
			x.Append(r.NormFloat64())
		case *array.Date32Builder:
			x.Append(arrow.Date32(r.Intn(40000)))
		case *array.StringBuilder:
			x.Append(fmt.Sprintf("s%d", r.Intn(1<<uint(r.Intn(20)))))
		case *array.LargeStringBuilder:
			x.Append(fmt.Sprintf("l%d", r.Intn(1000)))
		case *array.BinaryBuilder:
			x.Append([]byte(fmt.Sprintf("%x", r.Intn(1<<20)))[:r.Intn(5)])
		case *array.BooleanBuilder:
			x.Append(r.Intn(2) == 1)
		}
	}
	return b.NewArray()
}
