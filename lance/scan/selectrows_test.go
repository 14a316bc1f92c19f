package scan

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSelectRows: the selected rows of every column, in order, for all
// rows, one run, several runs and none; the input columns stay usable.
func TestSelectRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for i := 0; i < 10; i++ {
		ib.Append(int64(i))
		if i%3 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(fmt.Sprint("s", i))
		}
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray()}
	ib.Release()
	sb.Release()
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	for _, rows := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 4, 5}, {0, 2, 3, 4, 9}, {}} {
		rec, err := SelectRows(mem, schema, cols, rows, 10)
		if err != nil {
			t.Fatal(err)
		}
		if int(rec.NumRows()) != len(rows) || !rec.Schema().Equal(schema) {
			t.Fatalf("rows %v: %d rows, schema %s", rows, rec.NumRows(), rec.Schema())
		}
		for k, r := range rows {
			if got := rec.Column(0).(*array.Int64).Value(k); got != int64(r) {
				t.Fatalf("rows %v: row %d is %d", rows, k, got)
			}
			s := rec.Column(1).(*array.String)
			if s.IsNull(k) != (r%3 == 0) || (!s.IsNull(k) && s.Value(k) != fmt.Sprint("s", r)) {
				t.Fatalf("rows %v: row %d string %q null %v", rows, k, s.Value(k), s.IsNull(k))
			}
		}
		rec.Release()
	}
}
