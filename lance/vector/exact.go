package vector

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/dataset"
)

// ExactQuery is a brute-force top-k over a vector column.
type ExactQuery struct {
	Column    string
	Vector    []float32
	K         int
	Metric    Metric
	Fragments []uint64 // nil: every fragment
	Prefilter *roaring64.Bitmap
	// Workers bounds the parallel fragment scans (0: GOMAXPROCS).
	Workers int
}

// Exact returns the K live rows nearest to q.Vector by exact distance,
// reading only the vector column (and row addresses), fragments scanned in
// parallel.
func Exact(ctx context.Context, ds *dataset.Dataset, q ExactQuery) ([]Hit, error) {
	if err := Validate(q.Vector, 0, q.K); err != nil {
		return nil, err
	}
	frags := q.Fragments
	if frags == nil {
		for _, f := range ds.Fragments() {
			frags = append(frags, f.ID)
		}
	}
	if q.Prefilter != nil {
		// only fragments holding an allowed row
		var keep []uint64
		for _, f := range frags {
			lo, hi := f<<32, f<<32|0xffffffff
			if q.Prefilter.Rank(hi)-rankBelow(q.Prefilter, lo) > 0 {
				keep = append(keep, f)
			}
		}
		frags = keep
	}
	workers := q.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(frags))
	if workers == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan uint64)
	heaps := make([]*maxHeap, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		heaps[w] = &maxHeap{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				if errs[w] != nil {
					continue
				}
				errs[w] = scanFragment(ctx, ds, q, f, heaps[w])
				if errs[w] != nil {
					cancel()
				}
			}
		}()
	}
	for _, f := range frags {
		select {
		case jobs <- f:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	all := &maxHeap{}
	for _, h := range heaps {
		for _, x := range *h {
			pushTop(all, x, q.K)
		}
	}
	return all.sorted(), nil
}

func rankBelow(b *roaring64.Bitmap, x uint64) uint64 {
	if x == 0 {
		return 0
	}
	return b.Rank(x - 1)
}

func scanFragment(ctx context.Context, ds *dataset.Dataset, q ExactQuery, frag uint64, h *maxHeap) error {
	dim := len(q.Vector)
	return ds.Scan(ctx, dataset.ScanOptions{Columns: []string{q.Column}, Fragments: []uint64{frag}, WithRowAddress: true}, func(b arrow.RecordBatch) error {
		vecs, err := vectorValues(b.Column(0), dim)
		if err != nil {
			return err
		}
		addrs, ok := b.Column(1).(*array.Uint64)
		if !ok {
			return fmt.Errorf("%w: row address column", ErrCorrupt)
		}
		col := b.Column(0)
		for i := 0; i < int(b.NumRows()); i++ {
			if col.IsNull(i) {
				continue
			}
			r := addrs.Value(i)
			if q.Prefilter != nil && !q.Prefilter.Contains(r) {
				continue
			}
			pushTop(h, Hit{r, q.Metric.Distance(q.Vector, vecs[i*dim:(i+1)*dim])}, q.K)
		}
		return ctx.Err()
	})
}

// vectorValues returns a fixed-size-list vector column's values as float32
// (rows * dim), checking the list width is dim.
func vectorValues(col arrow.Array, dim int) ([]float32, error) {
	fsl, ok := col.(*array.FixedSizeList)
	if !ok {
		return nil, fmt.Errorf("%w: column of type %s is not a vector", ErrInvalidQuery, col.DataType())
	}
	if w := int(fsl.DataType().(*arrow.FixedSizeListType).Len()); w != dim {
		return nil, fmt.Errorf("%w: vector of dimension %d, column has %d", ErrInvalidQuery, dim, w)
	}
	vals := fsl.ListValues()
	off := fsl.Offset() * dim
	n := fsl.Len() * dim
	switch v := vals.(type) {
	case *array.Float32:
		return v.Float32Values()[off : off+n], nil
	default:
		all, err := floats(vals, off+n)
		if err != nil {
			return nil, err
		}
		return all[off:], nil
	}
}

// TakeVectors reads the vectors at the given row addresses.
func TakeVectors(ctx context.Context, ds *dataset.Dataset, column string, rows []uint64) (map[uint64][]float32, error) {
	b, err := ds.Take(ctx, rows, dataset.TakeOptions{Columns: []string{column}, WithRowAddress: true})
	if err != nil {
		return nil, err
	}
	defer b.Release()
	fsl, ok := b.Column(0).(*array.FixedSizeList)
	if !ok {
		return nil, fmt.Errorf("%w: column %s is not a vector", ErrInvalidQuery, column)
	}
	dim := int(fsl.DataType().(*arrow.FixedSizeListType).Len())
	vecs, err := vectorValues(fsl, dim)
	if err != nil {
		return nil, err
	}
	addrs := b.Column(1).(*array.Uint64)
	out := make(map[uint64][]float32, len(rows))
	for i := 0; i < int(b.NumRows()); i++ {
		if fsl.IsNull(i) {
			continue
		}
		out[addrs.Value(i)] = append([]float32(nil), vecs[i*dim:(i+1)*dim]...)
	}
	return out, nil
}
