package arrowjson

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A fixed-size list whose declared dimension disagrees with the items
// decoded (a manifest saying VECTOR(8) over a file holding 4 per row)
// indexed past the values and panicked; it must be an error.
func TestDimensionDisagreeingWithDataIsAnError(t *testing.T) {
	vb := array.NewFloat32Builder(memory.DefaultAllocator)
	vb.AppendValues([]float32{1, 2, 3, 4}, nil)
	values := vb.NewArray()
	defer values.Release()
	dt := arrow.FixedSizeListOf(8, arrow.PrimitiveTypes.Float32)
	data := array.NewData(dt, 1, []*memory.Buffer{nil}, []arrow.ArrayData{values.Data()}, 0, 0)
	defer data.Release()
	arr := array.NewFixedSizeListData(data)
	defer arr.Release()
	if _, err := AppendValue(nil, arr, 0); err == nil {
		t.Fatal("AppendValue of an 8-wide list over 4 items succeeded")
	}
}

// A decimal scale beyond its precision (or negative) used to print with
// strings.Repeat of the scale: a panic or gigabytes for one value.
func TestHostileDecimalScaleIsAnError(t *testing.T) {
	for _, dt := range []*arrow.Decimal128Type{{Precision: 10, Scale: -2147483648}, {Precision: 38, Scale: 2147483647}, {Precision: 5, Scale: 6}} {
		b := array.NewDecimal128Builder(memory.DefaultAllocator, dt)
		b.Append(decimal128.FromI64(7))
		arr := b.NewArray()
		if _, err := AppendValue(nil, arr, 0); err == nil {
			t.Errorf("decimal(%d,%d): no error", dt.Precision, dt.Scale)
		}
		arr.Release()
		b.Release()
	}
}
