package vector

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/dataset"
)

// Multivector search through a vector index, as the reference runs it
// (Lance's scanner multivec_ann + MultivectorScoringExec, the XTR scheme).
// The index of a list<fixed_size_list<float32>[d]> column holds one entry
// per vector, tagged with its row's id; it is always a cosine index.
//
//  1. Each query vector is an ordinary ANN search of the index (same
//     nprobes, ef, prefilter) with refine factor XTROverfetch: its K *
//     XTROverfetch best entries by the index's distance, ascending by
//     (distance, row), duplicates of a row included (HNSW keeps one entry
//     per row within a partition).
//  2. Per query vector, a row's similarity is 1 - its best entry's distance;
//     a row missing from that vector's list is credited the list's smallest
//     similarity, 1 - its last distance (0 for an empty list).
//  3. A row's estimate is (number of query vectors) - the sum of its
//     credited similarities, float32; rows ascending by (estimate, row)
//     and cut to K * max(refine, 1).
//  4. With a refine factor, or when fragments are not covered by the index,
//     those candidates are re-scored by exact MaxSim (the flat search's
//     _distance, 1 - sum of best similarities), the uncovered fragments'
//     rows searched exactly and merged, and cut to K. Otherwise the
//     estimates are the distances.

// XTROverfetch is the reference's default per-query-vector refine factor of
// a multivector ANN search (LANCE_XTR_OVERFETCH).
const XTROverfetch = 10

// MultiQuery is one multivector search through an index.
type MultiQuery struct {
	Vectors             [][]float32
	K                   int
	NProbes, MaxNProbes int // as Query's
	RefineFactor        int // > 0: K * RefineFactor estimates re-scored exactly
	Ef                  int // as Query's, for each query vector's search
	Prefilter           *roaring64.Bitmap
}

// SearchMulti answers a multivector query from the index (which must be
// cosine: the reference builds no other on a multivector column) and,
// exactly, from the fragments it does not cover.
func (ix *Index) SearchMulti(ctx context.Context, q MultiQuery) (*Result, error) {
	if err := validateMulti(ExactQuery{Multi: q.Vectors, K: q.K, Metric: ix.metric}); err != nil {
		return nil, err
	}
	if ix.metric != Cosine {
		return nil, fmt.Errorf("%w: a multivector index of metric %s (the reference builds cosine only)", ErrUnsupported, ix.metric)
	}
	if len(q.Vectors[0]) != ix.dim {
		return nil, fmt.Errorf("%w: vectors of dimension %d, index has %d", ErrInvalidQuery, len(q.Vectors[0]), ix.dim)
	}
	lf, err := ix.newFilter(ctx, q.Prefilter)
	if err != nil {
		return nil, err
	}
	kk := min(q.K*XTROverfetch, MaxK*10)
	res := &Result{Uncovered: ix.Uncovered()}
	sims := map[uint64]float32{}
	var missed float32 // the sum of the previous query vectors' smallest similarities
	for i, v := range q.Vectors {
		sub := Query{Vector: v, K: q.K, NProbes: q.NProbes, MaxNProbes: q.MaxNProbes, Ef: q.Ef, Prefilter: q.Prefilter}
		key := Normalize(v)
		var cand []Hit
		for _, s := range ix.segs {
			hits, probed, err := s.search(ctx, key, sub, kk, lf)
			if err != nil {
				return nil, fmt.Errorf("vector index %q: %w", ix.name, err)
			}
			if i == 0 && res.Probed == 0 {
				res.Probed = probed
			}
			cand = append(cand, hits...)
		}
		sortHits(cand)
		if len(cand) > kk {
			cand = cand[:kk]
		}
		var least float32
		if len(cand) > 0 {
			least = 1 - cand[len(cand)-1].Dist
		}
		best := make(map[uint64]float32, len(cand))
		for _, h := range cand {
			if _, seen := best[h.Row]; !seen {
				best[h.Row] = 1 - h.Dist // ascending: the first is the row's best
			}
		}
		for r := range sims {
			if s, ok := best[r]; ok {
				sims[r] += s
			} else {
				sims[r] += least
			}
		}
		for r, s := range best {
			if _, ok := sims[r]; !ok {
				sims[r] = s + missed
			}
		}
		missed += least
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	n := float32(len(q.Vectors))
	est := make([]Hit, 0, len(sims))
	for r, s := range sims {
		est = append(est, Hit{r, n - s})
	}
	sortHits(est)
	if keep := q.K * max(q.RefineFactor, 1); len(est) > keep {
		est = est[:keep]
	}
	if q.RefineFactor == 0 && len(res.Uncovered) == 0 {
		if len(est) > q.K {
			est = est[:q.K]
		}
		res.Hits = est
		return res, nil
	}
	exact, err := ix.maxSimOf(ctx, q.Vectors, est)
	if err != nil {
		return nil, err
	}
	if len(res.Uncovered) > 0 {
		flat, err := Exact(ctx, ix.ds, ExactQuery{Column: ix.column, Multi: q.Vectors, K: q.K, Metric: ix.metric, Fragments: res.Uncovered, Prefilter: q.Prefilter})
		if err != nil {
			return nil, err
		}
		exact = append(exact, flat...)
		sortHits(exact)
	}
	if len(exact) > q.K {
		exact = exact[:q.K]
	}
	res.Hits = exact
	return res, nil
}

// maxSimOf re-scores candidate rows by their exact MaxSim distance to the
// query, ascending; rows without one (NULL, empty, a zero vector) are
// dropped as the flat search drops them.
func (ix *Index) maxSimOf(ctx context.Context, query [][]float32, cand []Hit) ([]Hit, error) {
	if len(cand) == 0 {
		return nil, nil
	}
	rows := make([]uint64, len(cand))
	for i, h := range cand {
		rows[i] = h.Row
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i] < rows[j] })
	b, err := ix.ds.Take(ctx, rows, dataset.TakeOptions{Columns: []string{ix.column}, WithRowAddress: true})
	if err != nil {
		return nil, err
	}
	defer b.Release()
	list, ok := b.Column(0).(*array.List)
	if !ok {
		return nil, fmt.Errorf("%w: column %s of type %s is not a multivector", ErrInvalidQuery, ix.column, b.Column(0).DataType())
	}
	addrs, ok := b.Column(1).(*array.Uint64)
	if !ok {
		return nil, fmt.Errorf("%w: row address column", ErrCorrupt)
	}
	dim := ix.dim
	vecs, err := vectorValues(list.ListValues(), dim)
	if err != nil {
		return nil, err
	}
	offs := list.Offsets()
	out := make([]Hit, 0, len(cand))
	for i := range list.Len() {
		if list.IsNull(i) {
			continue
		}
		lo, hi := int(offs[i])*dim, int(offs[i+1])*dim
		if lo < 0 || lo > hi || hi > len(vecs) {
			return nil, fmt.Errorf("%w: multivector offsets past the column's %d vectors", ErrCorrupt, len(vecs)/dim)
		}
		d := MaxSim(ix.metric, query, vecs[lo:hi], dim)
		if math.IsNaN(float64(d)) {
			continue
		}
		out = append(out, Hit{addrs.Value(i), d})
	}
	sortHits(out)
	return out, nil
}
