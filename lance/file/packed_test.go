package lancefile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/storage"
)

// packedFixture writes rows of (id int64, v fixed_size_list<float32, dim>)
// in writes of per rows with small pages, so the vector column has many
// packed full-zip pages, and returns the file's bytes and field ids.
func packedFixture(t *testing.T, rows, per, dim int) (data []byte, idField, vField int32) {
	t.Helper()
	vt := arrow.FixedSizeListOf(int32(dim), arrow.PrimitiveTypes.Float32)
	as := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: vt}}, nil)
	ls := schemaFromArrow(t, as.Fields()...)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, ls, WriterOptions{PageBytes: per * dim * 4})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.DefaultAllocator
	for lo := 0; lo < rows; lo += per {
		ib := array.NewInt64Builder(mem)
		vb := array.NewFixedSizeListBuilderWithField(mem, int32(dim), arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true})
		fb := vb.ValueBuilder().(*array.Float32Builder)
		for i := lo; i < min(lo+per, rows); i++ {
			ib.Append(int64(i))
			vb.Append(true)
			for k := 0; k < dim; k++ {
				fb.Append(float32(i*dim + k))
			}
		}
		ia, va := ib.NewArray(), vb.NewArray()
		rec := array.NewRecord(as, []arrow.Array{ia, va}, int64(ia.Len()))
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		ia.Release()
		va.Release()
		ib.Release()
		vb.Release()
	}
	if _, err := w.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ls.Fields[0].ID, ls.Fields[1].ID
}

// vectorRows returns the rows of a fixed-size-list column as the first
// float of each (row i holds i*dim, i*dim+1, ...), checking each row's
// floats follow on.
func vectorRows(t *testing.T, col arrow.Array, dim int) []int {
	t.Helper()
	fsl := col.(*array.FixedSizeList)
	vals := fsl.ListValues().(*array.Float32).Float32Values()[fsl.Offset()*dim:]
	var out []int
	for i := 0; i < fsl.Len(); i++ {
		v := vals[i*dim : (i+1)*dim]
		for k := range v {
			if v[k] != v[0]+float32(k) {
				t.Fatalf("row %d item %d = %v, want %v", i, k, v[k], v[0]+float32(k))
			}
		}
		out = append(out, int(v[0])/dim)
	}
	return out
}

// TestReadRangesPacked reads scattered rows and a range over several pages
// of a vector column, from memory and through a local store (which holds the
// file open and reads into one buffer), and checks the rows, the byte count
// and FixedRowBytes.
func TestReadRangesPacked(t *testing.T) {
	const rows, per, dim = 1000, 64, 128
	data, idF, vF := packedFixture(t, rows, per, dim)
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.lance"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := storage.RangeOpenerOf(st); !ok {
		t.Fatal("the local store does not hold files open (storage.RangeOpener)")
	}
	stored, err := NewStoreSource(ctx, st, "f.lance", 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]Source{"memory": BytesSource(data), "store": stored} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok, err := r.FixedRowBytes(ctx, []int32{vF}); err != nil || !ok || n != dim*4 {
				t.Fatalf("FixedRowBytes(v) = %d, %v, %v; want %d, true", n, ok, err, dim*4)
			}
			if _, ok, err := r.FixedRowBytes(ctx, []int32{idF, vF}); err != nil || ok {
				t.Fatalf("FixedRowBytes(id, v) = %v, %v; want not fixed (id is mini-block)", ok, err)
			}
			// a range over several pages
			rec, err := r.ReadRange(ctx, []int32{vF}, 30, 900)
			if err != nil {
				t.Fatal(err)
			}
			got := vectorRows(t, rec.Column(0), dim)
			rec.Release()
			want := make([]int, 0, 870)
			for i := 30; i < 900; i++ {
				want = append(want, i)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("rows 30..900 read as %v...", got[:min(5, len(got))])
			}
			// scattered ranges, one crossing a page boundary, and both columns
			ranges := [][2]uint64{{3, 4}, {13, 14}, {60, 70}, {500, 501}, {999, 1000}}
			before := r.Stats()
			rec, err = r.ReadRanges(ctx, []int32{idF, vF}, ranges)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			want = want[:0]
			for _, rg := range ranges {
				for i := rg[0]; i < rg[1]; i++ {
					want = append(want, int(i))
				}
			}
			if got := vectorRows(t, rec.Column(1), dim); !slices.Equal(got, want) {
				t.Fatalf("ReadRanges vectors: rows %v, want %v", got, want)
			}
			ids := rec.Column(0).(*array.Int64).Int64Values()
			for i, id := range ids {
				if int(id) != want[i] {
					t.Fatalf("ReadRanges ids: %v, want %v", ids, want)
				}
			}
			if name == "store" {
				// the vector column's reads are its rows' bytes, not its pages
				vecBytes := r.Stats().BytesRead - before.BytesRead
				if vecBytes > int64(len(data))/4 {
					t.Fatalf("ReadRanges of %d rows read %d bytes of a %d-byte file", len(want), vecBytes, len(data))
				}
			}
			if _, err := r.ReadRanges(ctx, []int32{vF}, [][2]uint64{{5, 6}, {2, 3}}); err == nil {
				t.Fatal("descending ranges accepted")
			}
			if _, err := r.ReadRanges(ctx, []int32{vF}, [][2]uint64{{999, 1001}}); err == nil {
				t.Fatal("a range past the file's rows accepted")
			}
		})
	}
}

// TestRecycledBuffersNotReusedWhileHeld: under WithRecycledBuffers a packed
// read's buffer goes back to the pool only when its record is released: a
// record still held keeps its values while later reads run, and reads after
// releases (which reuse the buffers) return the right rows.
func TestRecycledBuffersNotReusedWhileHeld(t *testing.T) {
	const rows, per, dim = 1000, 64, 128
	data, _, vF := packedFixture(t, rows, per, dim)
	ctx := WithRecycledBuffers(context.Background())
	r, err := Open(ctx, BytesSource(data))
	if err != nil {
		t.Fatal(err)
	}
	span := func(a, b int) []int {
		var out []int
		for i := a; i < b; i++ {
			out = append(out, i)
		}
		return out
	}
	held, err := r.ReadRange(ctx, []int32{vF}, 0, 300)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	for round := range 20 {
		a := 300 + round*20
		rec, err := r.ReadRange(ctx, []int32{vF}, uint64(a), uint64(a+300))
		if err != nil {
			t.Fatal(err)
		}
		if got := vectorRows(t, rec.Column(0), dim); !slices.Equal(got, span(a, a+300)) {
			t.Fatalf("round %d: rows %v..., want from %d", round, got[:3], a)
		}
		rec.Release()
		if got := vectorRows(t, held.Column(0), dim); !slices.Equal(got, span(0, 300)) {
			t.Fatalf("round %d: the held record changed: rows %v...", round, got[:3])
		}
	}
}
