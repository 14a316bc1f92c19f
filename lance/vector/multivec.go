package vector

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/dataset"
)

// A multivector column holds a list of vectors per row
// (list<fixed_size_list<float32>[d]>), searched by late interaction as
// Lance's multivector search does: a row's distance to a query of vectors
// q1..qn is 1 - sum_i max_v (1 - Distance(qi, v)), v ranging over the
// row's vectors, with the cosine or dot metric only.

// MaxSim is that distance of one row (rows * dim values) to the query;
// NaN for an empty row.
func MaxSim(m Metric, query [][]float32, row []float32, dim int) float32 {
	if len(row) < dim {
		return float32(math.NaN())
	}
	var sim float32
	for _, q := range query {
		best := float32(math.Inf(-1))
		for lo := 0; lo+dim <= len(row); lo += dim {
			best = max(best, 1-m.Distance(q, row[lo:lo+dim]))
		}
		sim += best
	}
	return 1 - sim
}

// validateMulti checks a multivector query: cosine or dot, at least one
// vector, every vector valid and of one dimension.
func validateMulti(q ExactQuery) error {
	if q.Metric != Cosine && q.Metric != Dot {
		return fmt.Errorf("%w: a multivector search takes the cosine or dot metric, not %s", ErrInvalidQuery, q.Metric)
	}
	if len(q.Multi) == 0 {
		return fmt.Errorf("%w: empty multivector", ErrInvalidQuery)
	}
	for _, v := range q.Multi {
		if err := Validate(v, len(q.Multi[0]), q.K); err != nil {
			return err
		}
	}
	return nil
}

// scanMultiFragment is scanFragment for a multivector query.
func scanMultiFragment(ctx context.Context, ds *dataset.Dataset, q ExactQuery, sr scanRange, h *maxHeap) error {
	dim := len(q.Multi[0])
	opts := dataset.ScanOptions{Columns: []string{q.Column}, Fragments: []uint64{sr.frag}, WithRowAddress: true, Offset: sr.offset, Limit: sr.limit}
	return ds.Scan(ctx, opts, func(b arrow.RecordBatch) error {
		list, ok := b.Column(0).(*array.List)
		if !ok {
			return fmt.Errorf("%w: column of type %s is not a multivector", ErrInvalidQuery, b.Column(0).DataType())
		}
		vecs, err := vectorValues(list.ListValues(), dim)
		if err != nil {
			return err
		}
		addrs, ok := b.Column(1).(*array.Uint64)
		if !ok {
			return fmt.Errorf("%w: row address column", ErrCorrupt)
		}
		offs := list.Offsets()
		for i := range list.Len() {
			if list.IsNull(i) {
				continue
			}
			r := addrs.Value(i)
			if q.Prefilter != nil && !q.Prefilter.Contains(r) {
				continue
			}
			lo, hi := int(offs[i])*dim, int(offs[i+1])*dim
			if lo < 0 || lo > hi || hi > len(vecs) {
				return fmt.Errorf("%w: multivector offsets past the column's %d vectors", ErrCorrupt, len(vecs)/dim)
			}
			d := MaxSim(q.Metric, q.Multi, vecs[lo:hi], dim)
			if math.IsNaN(float64(d)) {
				continue // an empty row, or a zero vector's cosine: no distance
			}
			pushTop(h, Hit{r, d}, q.K)
		}
		return ctx.Err()
	})
}
