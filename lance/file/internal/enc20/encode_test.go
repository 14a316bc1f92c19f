package enc20

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

func encoderFor(t *testing.T, fields ...arrow.Field) (*Encoder, *lanceschema.Schema, error) {
	t.Helper()
	s, err := lanceschema.FromArrow(arrow.NewSchema(fields, nil))
	if err != nil {
		t.Fatal(err)
	}
	s.AssignIDs()
	e, err := NewEncoder(s.Fields)
	return e, s, err
}

func TestEncoderColumnsArePreOrderFields(t *testing.T) {
	e, s, err := encoderFor(t,
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "y", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32)},
		))},
		arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	)
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for _, f := range s.Flatten() {
		want = append(want, f.ID)
	}
	got := e.ColumnFields()
	if e.NumColumns() != len(want) || len(got) != len(want) {
		t.Fatalf("%d columns %v, want %v", e.NumColumns(), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("columns %v, want every field in pre-order %v", got, want)
		}
	}
}

func TestEncoderRejectsUnsupportedTypes(t *testing.T) {
	for _, f := range []arrow.Field{
		{Name: "n", Type: arrow.Null, Nullable: true},
		{Name: "fsl_utf8", Type: arrow.FixedSizeListOf(2, arrow.BinaryTypes.String)},
		{Name: "fsl_bool", Type: arrow.FixedSizeListOf(2, arrow.FixedWidthTypes.Boolean)},
	} {
		s := &lanceschema.Schema{}
		lf, err := lanceschema.FieldFromArrow(f)
		if err != nil {
			t.Fatal(err)
		}
		s.Fields = []*lanceschema.Field{lf}
		s.AssignIDs()
		if _, err := NewEncoder(s.Fields); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", f.Type, err)
		}
	}
}

// A failed Append (columns of different lengths) leaves nothing behind.
func TestEncoderAppendIsAtomic(t *testing.T) {
	e, _, err := encoderFor(t,
		arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.DefaultAllocator
	strs := func(vs ...string) arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
	ints := func(vs ...int64) arrow.Array {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
	if err := e.Append([]arrow.Array{strs("x", "y"), ints(1)}); err == nil {
		t.Fatal("columns of 2 and 1 rows were accepted")
	}
	if err := e.Append([]arrow.Array{strs("abc"), ints(7)}); err != nil {
		t.Fatal(err)
	}
	pages, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 {
		t.Fatalf("%d pages, want 2", len(pages))
	}
	for _, p := range pages {
		if p.NumRows != 1 {
			t.Fatalf("column %d page of %d rows: the rejected append left rows behind", p.Column, p.NumRows)
		}
	}
	if b := pages[0].Buffers[1]; string(b) != "abc" {
		t.Fatalf("string bytes %q, want %q", b, "abc")
	}
}

// Values hidden by a null struct are written as nulls (2.0 has no struct
// validity), and items under a null list are not written at all.
func TestEncoderNullParents(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	lt := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	e, _, err := encoderFor(t,
		arrow.Field{Name: "st", Type: st, Nullable: true},
		arrow.Field{Name: "l", Type: lt, Nullable: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.DefaultAllocator
	rec, _, err := array.RecordFromJSON(mem, arrow.NewSchema([]arrow.Field{
		{Name: "st", Type: st, Nullable: true}, {Name: "l", Type: lt, Nullable: true},
	}, nil), strings.NewReader(`[{"st": {"s": "kept"}, "l": [1]}, {"st": null, "l": null}, {"st": {"s": "also"}, "l": [2, 3]}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if err := e.Append(rec.Columns()); err != nil {
		t.Fatal(err)
	}
	pages, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	byCol := map[int]EncodedPage{}
	for _, p := range pages {
		byCol[p.Column] = p
	}
	// Columns: st (header), st.s, l, l.item.
	if b := byCol[1].Encoding.GetBinary(); b == nil || b.NullAdjustment != uint64(len("keptalso"))+1 {
		t.Fatalf("struct child encoding %v, want binary with null adjustment %d", byCol[1].Encoding, len("keptalso")+1)
	}
	if string(byCol[1].Buffers[1]) != "keptalso" {
		t.Fatalf("struct child bytes %q", byCol[1].Buffers[1])
	}
	if h := byCol[0]; h.NumRows != 3 || h.Encoding.GetStruct() == nil || len(h.Buffers) != 0 {
		t.Fatalf("struct header page %+v", h)
	}
	if l := byCol[2].Encoding.GetList(); l == nil || l.NumItems != 3 || l.NullOffsetAdjustment != 4 {
		t.Fatalf("list encoding %v", byCol[2].Encoding)
	}
	if it := byCol[3]; it.NumRows != 3 {
		t.Fatalf("item page of %d rows, want 3", it.NumRows)
	}
}
