package lancefile

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAppendGlobalBuffer: a buffer appended to a finished file is its next
// global buffer, the file's columns still read, and the input file's bytes
// are left as they were.
func TestAppendGlobalBuffer(t *testing.T) {
	ctx := context.Background()
	s := schemaFromArrow(t, arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	as, _ := s.ToArrow()
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	data, _ := writeFile(t, s, WriterOptions{}, rec)
	orig := bytes.Clone(data)
	r0, err := Open(ctx, BytesSource(data))
	if err != nil {
		t.Fatal(err)
	}
	before := len(r0.globalBufs)

	first, second := []byte("codebook"), bytes.Repeat([]byte{7}, 100)
	out, err := AppendGlobalBuffer(data, first)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = AppendGlobalBuffer(out, second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, orig) {
		t.Fatal("AppendGlobalBuffer wrote into its input")
	}
	r, err := Open(ctx, BytesSource(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.globalBufs) != before+2 || r.NumRows() != 3 {
		t.Fatalf("global buffers %d (was %d), rows %d", len(r.globalBufs), before, r.NumRows())
	}
	for i, want := range [][]byte{first, second} {
		got, err := r.GlobalBuffer(ctx, before+i)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("global buffer %d: %q, %v; want %q", before+i, got, err, want)
		}
		if r.globalBufs[before+i].Position%64 != 0 {
			t.Errorf("global buffer %d at %d: not 64-byte aligned", before+i, r.globalBufs[before+i].Position)
		}
	}
	if _, err := AppendGlobalBuffer(out[:len(out)-1], first); err == nil {
		t.Error("a file without its footer: no error")
	}
}
