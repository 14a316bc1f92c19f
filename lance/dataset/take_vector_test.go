package dataset_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// TestTakeScatteredVectorsReadsTheirBytes: a take of every tenth row of a
// 768-float vector column reads about those rows' bytes (the rows between
// are 27 KiB, past TakeGapBytes), not the whole column, and returns exactly
// those rows; every second row of 16-float vectors is read as one range.
func TestTakeScatteredVectorsReadsTheirBytes(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		dim, every int
		maxShare   float64 // of the vector column's bytes
	}{{768, 10, 0.15}, {16, 2, 1.1}} {
		local, err := storage.Open(ctx, t.TempDir(), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st := &dataBytesStore{Store: local}
		const n = 4000
		schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.FixedSizeListOf(int32(c.dim), arrow.PrimitiveTypes.Float32)}}, nil)
		rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		lb := rb.Field(0).(*array.FixedSizeListBuilder)
		fb := lb.ValueBuilder().(*array.Float32Builder)
		for i := range n {
			lb.Append(true)
			for k := range c.dim {
				fb.Append(float32(i*c.dim + k))
			}
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		ds, err := dataset.CreateWithData(ctx, st, "t", schema, []arrow.RecordBatch{rec}, dataset.CreateOptions{})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		var addrs []uint64
		for a := uint64(3); a < n; a += uint64(c.every) {
			addrs = append(addrs, a)
		}
		// open the file (footer, metadata) before counting
		if _, err := ds.Take(ctx, []uint64{0}, dataset.TakeOptions{}); err != nil {
			t.Fatal(err)
		}
		st.n.Store(0)
		got, err := ds.Take(ctx, addrs, dataset.TakeOptions{WithRowAddress: true})
		if err != nil {
			t.Fatal(err)
		}
		read := st.n.Load()
		fsl := got.Column(0).(*array.FixedSizeList)
		vals := fsl.ListValues().(*array.Float32).Float32Values()[fsl.Offset()*c.dim:]
		ra := got.Column(1).(*array.Uint64)
		if int(got.NumRows()) != len(addrs) {
			t.Fatalf("dim %d: took %d rows, want %d", c.dim, got.NumRows(), len(addrs))
		}
		for i, a := range addrs {
			if ra.Value(i) != a || vals[i*c.dim] != float32(int(a)*c.dim) || vals[i*c.dim+c.dim-1] != float32(int(a)*c.dim+c.dim-1) {
				t.Fatalf("dim %d: row %d: address %d, first item %v", c.dim, a, ra.Value(i), vals[i*c.dim])
			}
		}
		got.Release()
		column := float64(n * c.dim * 4)
		if share := float64(read) / column; share > c.maxShare {
			t.Fatalf("dim %d: take of every %dth row read %d bytes, %.2f of the column's %.0f (want at most %.2f)", c.dim, c.every, read, share, column, c.maxShare)
		}
	}
}
