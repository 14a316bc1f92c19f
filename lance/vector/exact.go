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
	lancefile "github.com/lancecat/lancecat/lance/file"
)

// ExactQuery is a brute-force top-k over a vector column.
type ExactQuery struct {
	Column    string
	Vector    []float32
	K         int
	Metric    Metric
	Fragments []uint64 // nil: every fragment
	Prefilter *roaring64.Bitmap
	// Multi, when set, makes this a multivector search (multivec.go) of
	// a list<fixed_size_list<float32>> column by these query vectors,
	// Vector unused.
	Multi [][]float32
	// Workers bounds the parallel fragment scans (0: GOMAXPROCS).
	Workers int
}

// Exact returns the K live rows nearest to q.Vector by exact distance,
// reading only the vector column (and row addresses), fragments scanned in
// parallel.
func Exact(ctx context.Context, ds *dataset.Dataset, q ExactQuery) ([]Hit, error) {
	if q.Multi != nil {
		if err := validateMulti(q); err != nil {
			return nil, err
		}
	} else if err := Validate(q.Vector, 0, q.K); err != nil {
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
	if len(frags) == 0 {
		return nil, nil
	}
	// A fragment holds up to a million rows: split each into row ranges
	// so that one large fragment still keeps every worker busy.
	physical := map[uint64]uint64{}
	for _, f := range ds.Fragments() {
		physical[f.ID] = f.PhysicalRows
	}
	var ranges []scanRange
	for _, f := range frags {
		if q.Prefilter != nil {
			// float32 vectors: 4 bytes a dimension
			takes, ok, err := takeRanges(ctx, ds, q.Prefilter, f, physical[f], 4*uint64(len(q.Vector)))
			if err != nil {
				return nil, err
			}
			if ok {
				ranges = append(ranges, takes...)
				continue
			}
		}
		ranges = append(ranges, splitRows(f, physical[f], workers)...)
	}
	workers = min(workers, len(ranges))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan scanRange)
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
				if q.Multi != nil {
					errs[w] = scanMultiFragment(ctx, ds, q, f, heaps[w])
				} else {
					errs[w] = scanFragment(ctx, ds, q, f, heaps[w])
				}
				if errs[w] != nil {
					cancel()
				}
			}
		}()
	}
	for _, r := range ranges {
		select {
		case jobs <- r:
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

// scanRange is a part of one fragment for an exact scan: the live rows
// from offset, at most limit of them (0: to the end); or, when rows is set,
// exactly those rows (addresses, ascending) read by Take.
type scanRange struct {
	frag          uint64
	offset, limit uint64
	rows          []uint64
}

// takeBatchRows is how many prefiltered rows one Take of an exact search
// reads (bounds the batch in memory: 8,192 x 768 floats is 24 MiB).
const takeBatchRows = 8192

// takeRanges splits the rows of fragment frag that pre allows into Take
// batches when they are at most half of its physical rows and, spread
// evenly, further apart than dataset.TakeGapBytes of vectors of rowBytes:
// then the take reads the allowed rows' vectors alone, which costs less
// than reading the whole column and dropping most of it. (Closer rows would
// be read as whole ranges and selected from: a scan does the same for
// less.) Deleted rows are left out. ok is false when the fragment is better
// scanned.
func takeRanges(ctx context.Context, ds *dataset.Dataset, pre *roaring64.Bitmap, frag, physical, rowBytes uint64) (out []scanRange, ok bool, err error) {
	lo, hi := frag<<32, frag<<32|0xffffffff
	allowed := pre.Rank(hi) - rankBelow(pre, lo)
	if physical == 0 || allowed > physical/2 || (physical/max(allowed, 1)-1)*rowBytes < dataset.TakeGapBytes {
		return nil, false, nil
	}
	deleted, err := ds.DeletedOffsets(ctx, frag)
	if err != nil {
		return nil, false, err
	}
	var rows []uint64
	it := pre.Iterator()
	it.AdvanceIfNeeded(lo)
	for it.HasNext() {
		a := it.Next()
		if a > hi {
			break
		}
		if deleted.Contains(uint32(a)) {
			continue
		}
		rows = append(rows, a)
		if len(rows) == takeBatchRows {
			out = append(out, scanRange{frag: frag, rows: rows})
			rows = nil
		}
	}
	if len(rows) > 0 {
		out = append(out, scanRange{frag: frag, rows: rows})
	}
	return out, true, nil
}

// minScanRange is the fewest physical rows worth a scan of their own.
const minScanRange = 1 << 16

// splitRows cuts a fragment of (at most) rows live rows into up to 2 *
// workers ranges of at least minScanRange rows. The ranges cover [0, rows)
// of the fragment's live rows; a range past the live rows reads nothing.
func splitRows(frag, rows uint64, workers int) []scanRange {
	parts := min(uint64(2*workers), rows/minScanRange)
	if parts <= 1 {
		return []scanRange{{frag: frag}}
	}
	per := (rows + parts - 1) / parts
	out := make([]scanRange, 0, parts)
	for off := uint64(0); off < rows; off += per {
		r := scanRange{frag: frag, offset: off, limit: per}
		if off+per >= rows {
			r.limit = 0 // the last takes whatever is left
		}
		out = append(out, r)
	}
	return out
}

func scanFragment(ctx context.Context, ds *dataset.Dataset, q ExactQuery, sr scanRange, h *maxHeap) error {
	var ds32 []float32
	if sr.rows != nil {
		b, err := ds.Take(ctx, sr.rows, dataset.TakeOptions{Columns: []string{q.Column}, WithRowAddress: true})
		if err != nil {
			return err
		}
		defer b.Release()
		// every row taken is allowed: no prefilter test per row
		q.Prefilter = nil
		return scoreBatch(ctx, q, b, h, &ds32, false)
	}
	opts := dataset.ScanOptions{Columns: []string{q.Column}, Fragments: []uint64{sr.frag}, WithRowAddress: true, Offset: sr.offset, Limit: sr.limit}
	// scoreBatch is done with a batch's vectors when it returns, so the
	// scan may read the next batches into the released ones' buffers
	return ds.Scan(lancefile.WithRecycledBuffers(ctx), opts, func(b arrow.RecordBatch) error {
		return scoreBatch(ctx, q, b, h, &ds32, q.Prefilter == nil)
	})
}

// scoreBatch offers the batch's rows (vector column, row addresses) that
// q.Prefilter allows to h. With batched, whole 8-float blocks of rows go
// through the batch kernels, a block of rows per call (ds32 is their
// scratch); otherwise each row's distance is Metric.Distance.
func scoreBatch(ctx context.Context, q ExactQuery, b arrow.RecordBatch, h *maxHeap, ds32 *[]float32, batched bool) error {
	dim := len(q.Vector)
	vecs, err := vectorValues(b.Column(0), dim)
	if err != nil {
		return err
	}
	addrs, ok := b.Column(1).(*array.Uint64)
	if !ok {
		return fmt.Errorf("%w: row address column", ErrCorrupt)
	}
	col := b.Column(0)
	n := int(b.NumRows())
	if batched && dim%8 == 0 && (q.Metric == L2 || q.Metric == Dot) && col.NullN() == 0 {
		const block = 256
		if *ds32 == nil {
			*ds32 = make([]float32, block)
		}
		for lo := 0; lo < n; lo += block {
			hi := min(n, lo+block)
			out := (*ds32)[:hi-lo]
			if q.Metric == L2 {
				l2sqBatch(q.Vector, vecs[lo*dim:hi*dim], out)
			} else {
				dotBatch(q.Vector, vecs[lo*dim:hi*dim], out)
				for i, d := range out {
					out[i] = 1 - d
				}
			}
			for i, d := range out {
				pushTop(h, Hit{addrs.Value(lo + i), d}, q.K)
			}
		}
		return ctx.Err()
	}
	for i := range n {
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
