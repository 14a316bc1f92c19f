package vector

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/lancecat/lancecat/lance/dataset"
)

// MaxK bounds the rows one search returns.
const MaxK = 100_000

// Reference defaults (LanceDB 0.31 / Lance 8): 20 partitions probed at
// least; refine off; HNSW ef = 1.5 * k * refine.
const DefaultNProbes = 20

// ErrNoIndex: the dataset has no vector index of that name.
var ErrNoIndex = errors.New("vector index: no such index")

// Index is an opened vector index of a dataset version: every segment
// (delta) of one name. Partitions load on first use; it is safe for
// concurrent searches.
type Index struct {
	ds       *dataset.Dataset
	name     string
	column   string
	segs     []*segment
	covered  *roaring.Bitmap
	frags    map[uint64]*dataset.Fragment
	typeName string
	metric   Metric
	dim      int
}

// Open loads the vector index called name of ds.
func Open(ctx context.Context, ds *dataset.Dataset, name string) (*Index, error) {
	ix := &Index{ds: ds, name: name, covered: roaring.New(), frags: map[uint64]*dataset.Fragment{}}
	for _, f := range ds.Fragments() {
		if f.HasRowIDs {
			return nil, fmt.Errorf("%w: dataset uses stable row ids", ErrUnsupported)
		}
		ix.frags[f.ID] = f
	}
	for _, m := range ds.Indices() {
		if m.Name != name {
			continue
		}
		if len(m.Fields) != 1 || m.BaseID != nil {
			return nil, fmt.Errorf("%w: index %q layout", ErrUnsupported, name)
		}
		f := ds.Schema().FieldByID(m.Fields[0])
		if f == nil {
			return nil, fmt.Errorf("%w: index %q on a field absent from the schema", ErrCorrupt, name)
		}
		if ix.column == "" {
			ix.column = f.Name
		} else if ix.column != f.Name {
			return nil, fmt.Errorf("%w: index %q segments on different columns", ErrCorrupt, name)
		}
		s, err := loadSegment(ctx, ds, m)
		if err != nil {
			return nil, fmt.Errorf("vector index %q segment %s: %w", name, m.UUID, err)
		}
		if len(ix.segs) == 0 {
			ix.typeName, ix.metric, ix.dim = s.typeName, s.metric, s.dim
		} else if s.metric != ix.metric || s.dim != ix.dim {
			return nil, fmt.Errorf("%w: index %q segments disagree on metric or dimension", ErrCorrupt, name)
		}
		if m.FragmentBitmap != nil {
			it := m.FragmentBitmap.Iterator()
			for it.HasNext() {
				id := it.Next()
				if _, ok := ix.frags[uint64(id)]; ok {
					ix.covered.Add(id)
				}
			}
		}
		ix.segs = append(ix.segs, s)
	}
	if len(ix.segs) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoIndex, name)
	}
	return ix, nil
}

func (ix *Index) Name() string      { return ix.name }
func (ix *Index) Column() string    { return ix.column }
func (ix *Index) Type() string      { return ix.typeName }
func (ix *Index) Metric() Metric    { return ix.metric }
func (ix *Index) Dimension() int    { return ix.dim }
func (ix *Index) Segments() int     { return len(ix.segs) }
func (ix *Index) HNSW() bool        { return ix.segs[0].hnsw }
func (ix *Index) Partitions() int   { return ix.segs[0].ivf.numPartitions() }
func (ix *Index) Covered() []uint64 { return bitmapIDs(ix.covered) }

// Uncovered lists the dataset's fragments no segment covers.
func (ix *Index) Uncovered() []uint64 {
	var out []uint64
	for _, f := range ix.ds.Fragments() {
		if f.ID > math.MaxUint32 || !ix.covered.Contains(uint32(f.ID)) {
			out = append(out, f.ID)
		}
	}
	return out
}

func bitmapIDs(b *roaring.Bitmap) []uint64 {
	out := make([]uint64, 0, b.GetCardinality())
	it := b.Iterator()
	for it.HasNext() {
		out = append(out, uint64(it.Next()))
	}
	return out
}

// Query is one nearest-neighbour search.
type Query struct {
	Vector []float32
	K      int
	// NProbes is the minimum number of partitions probed (0: DefaultNProbes);
	// MaxNProbes the most (0: all), probed only while fewer than K rows are
	// found, as the reference's minimum/maximum nprobes.
	NProbes, MaxNProbes int
	// RefineFactor > 0 takes K*RefineFactor candidates and re-ranks them by
	// exact distance.
	RefineFactor int
	// Ef is the HNSW beam width (0: the reference's 1.5 * K * refine).
	Ef int
	// Prefilter, when non-nil, is the set of row addresses allowed.
	Prefilter *roaring64.Bitmap
}

// Hit is a search result: a row address and its Lance distance (exact
// when refined or exactly searched, else the index's approximation).
type Hit struct {
	Row  uint64
	Dist float32
}

// Validate checks a query vector and k.
func Validate(v []float32, dim, k int) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: empty vector", ErrInvalidQuery)
	}
	if dim > 0 && len(v) != dim {
		return fmt.Errorf("%w: vector of dimension %d, column has %d", ErrInvalidQuery, len(v), dim)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: vector holds NaN or infinity", ErrInvalidQuery)
		}
	}
	if k <= 0 || k > MaxK {
		return fmt.Errorf("%w: k = %d (1 to %d)", ErrInvalidQuery, k, MaxK)
	}
	return nil
}

// liveFilter says whether a row address is a live row of the version and
// passes the prefilter.
type liveFilter struct {
	all bool // every row passes (index files searched on their own)
	// lastFrag / last cache the fragment of the previous row (a filter is
	// used by one search at a time)
	lastFrag uint64
	last     *dataset.Fragment
	ix       *Index
	pre      *roaring64.Bitmap
	dels     map[uint64]*roaring.Bitmap
}

func (ix *Index) newFilter(ctx context.Context, pre *roaring64.Bitmap) (*liveFilter, error) {
	lf := &liveFilter{ix: ix, pre: pre, dels: map[uint64]*roaring.Bitmap{}}
	for id, f := range ix.frags {
		if f.Deletion == nil {
			continue
		}
		d, err := ix.ds.DeletedOffsets(ctx, id)
		if err != nil {
			return nil, err
		}
		lf.dels[id] = d
	}
	return lf, nil
}

func (lf *liveFilter) ok(row uint64) bool {
	if lf.all {
		return true
	}
	frag := row >> 32
	off := row & math.MaxUint32
	// rows of one fragment come in runs: remember the last fragment looked up
	if lf.lastFrag != frag || lf.last == nil {
		f, ok := lf.ix.frags[frag]
		if !ok || !lf.ix.covered.Contains(uint32(frag)) {
			return false
		}
		lf.lastFrag, lf.last = frag, f
	}
	if off >= lf.last.PhysicalRows {
		return false
	}
	if d := lf.dels[frag]; d != nil && d.Contains(uint32(off)) {
		return false
	}
	return lf.pre == nil || lf.pre.Contains(row)
}

// Result is what Index.Search returns.
type Result struct {
	Hits []Hit // ascending by distance, at most K
	// Uncovered are the fragments the caller searched exactly (merged in).
	Uncovered []uint64
	// Probed is the number of partitions probed in the first segment.
	Probed int
}

// Search answers q from the index and, exactly, from the fragments it does
// not cover, merged: the reference's ANN + flat KNN union. Distances of
// covered rows are the index's unless RefineFactor re-ranks them.
func (ix *Index) Search(ctx context.Context, q Query) (*Result, error) {
	if err := Validate(q.Vector, ix.dim, q.K); err != nil {
		return nil, err
	}
	lf, err := ix.newFilter(ctx, q.Prefilter)
	if err != nil {
		return nil, err
	}
	refine := max(q.RefineFactor, 1)
	kk := q.K * refine
	if kk > MaxK*10 {
		kk = MaxK * 10
	}
	key := q.Vector
	if ix.metric == Cosine {
		key = Normalize(key)
	}
	res := &Result{Uncovered: ix.Uncovered()}
	var cand []Hit
	for _, s := range ix.segs {
		hits, probed, err := s.search(ctx, key, q, kk, lf)
		if err != nil {
			return nil, fmt.Errorf("vector index %q: %w", ix.name, err)
		}
		if res.Probed == 0 {
			res.Probed = probed
		}
		cand = append(cand, hits...)
	}
	cand = dedupe(cand)
	sortHits(cand)
	if len(cand) > kk {
		cand = cand[:kk]
	}
	if q.RefineFactor > 0 && len(cand) > 0 {
		if cand, err = ix.refine(ctx, q.Vector, cand); err != nil {
			return nil, err
		}
	}
	if len(cand) > q.K {
		cand = cand[:q.K]
	}
	if len(res.Uncovered) > 0 {
		flat, err := Exact(ctx, ix.ds, ExactQuery{Column: ix.column, Vector: q.Vector, K: q.K, Metric: ix.metric, Fragments: res.Uncovered, Prefilter: q.Prefilter})
		if err != nil {
			return nil, err
		}
		cand = append(cand, flat...)
		sortHits(cand)
		if len(cand) > q.K {
			cand = cand[:q.K]
		}
	}
	res.Hits = cand
	return res, nil
}

// refine replaces candidate distances by exact ones and re-sorts.
func (ix *Index) refine(ctx context.Context, v []float32, cand []Hit) ([]Hit, error) {
	rows := make([]uint64, len(cand))
	for i, h := range cand {
		rows[i] = h.Row
	}
	vecs, err := TakeVectors(ctx, ix.ds, ix.column, rows)
	if err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(cand))
	for _, r := range rows {
		x, ok := vecs[r]
		if !ok {
			continue
		}
		out = append(out, Hit{Row: r, Dist: ix.metric.Distance(v, x)})
	}
	sortHits(out)
	return out, nil
}

func sortHits(h []Hit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Dist != h[j].Dist {
			return lessDist(h[i].Dist, h[j].Dist)
		}
		return h[i].Row < h[j].Row
	})
}

// lessDist orders distances ascending with NaN last.
func lessDist(a, b float32) bool {
	if a != a {
		return false
	}
	if b != b {
		return true
	}
	return a < b
}

func dedupe(h []Hit) []Hit {
	best := map[uint64]float32{}
	for _, x := range h {
		if d, ok := best[x.Row]; !ok || lessDist(x.Dist, d) {
			best[x.Row] = x.Dist
		}
	}
	if len(best) == len(h) {
		return h
	}
	out := make([]Hit, 0, len(best))
	for r, d := range best {
		out = append(out, Hit{r, d})
	}
	return out
}

// orderPartitions ranks a segment's partitions by centroid distance (L2
// for a cosine index, whose vectors are normalised).
func (s *segment) orderPartitions(key []float32) []int {
	np := s.ivf.numPartitions()
	m := s.metric
	if m == Cosine {
		m = L2
	}
	d := make([]float32, np)
	for p := range np {
		d[p] = m.Distance(key, s.ivf.centroids[p*s.dim:(p+1)*s.dim])
	}
	order := make([]int, np)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return lessDist(d[order[i]], d[order[j]]) })
	return order
}

// search probes the segment's partitions: the first NProbes, then more
// while fewer than K rows passing the filter were found.
func (s *segment) search(ctx context.Context, key []float32, q Query, kk int, lf *liveFilter) ([]Hit, int, error) {
	order := s.orderPartitions(key)
	minP := q.NProbes
	if minP <= 0 {
		minP = DefaultNProbes
	}
	maxP := len(order)
	if q.MaxNProbes > 0 && q.MaxNProbes < maxP {
		maxP = q.MaxNProbes
	}
	minP = min(minP, maxP)
	var out []Hit
	probed := 0
	for i := 0; i < maxP; i++ {
		if i >= minP && len(out) >= q.K {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		hits, err := s.searchPartition(ctx, order[i], key, q, kk, lf)
		if err != nil {
			return nil, 0, err
		}
		probed++
		out = append(out, hits...)
	}
	return out, probed, nil
}

func (s *segment) searchPartition(ctx context.Context, p int, key []float32, q Query, kk int, lf *liveFilter) ([]Hit, error) {
	pt, err := s.partition(ctx, p)
	if err != nil {
		return nil, err
	}
	n := len(pt.rowIDs)
	if n == 0 {
		return nil, nil
	}
	if pt.graph != nil {
		dist := s.distFunc(p, key, pt)
		ef := q.Ef
		if ef <= 0 {
			ef = kk + kk/2
		}
		ef = max(ef, kk)
		allowed := make([]bool, n)
		cnt := 0
		for i, r := range pt.rowIDs {
			if lf.ok(r) {
				allowed[i] = true
				cnt++
			}
		}
		var nodes []node
		if q.Prefilter != nil && cnt < n*10/100 {
			nodes = flatNodes(n, allowed, dist, kk)
		} else {
			nodes = pt.graph.search(s.hnswMeta[p].Params.MaxLevel, dist, ef, allowed)
		}
		if len(nodes) > kk {
			nodes = nodes[:kk]
		}
		// one hit per row, its nearest: a multivector index holds several
		// entries of a row (the reference makes them unique here too)
		hits := make([]Hit, 0, len(nodes))
		seen := make(map[uint64]bool, len(nodes))
		for _, nd := range nodes {
			if r := pt.rowIDs[nd.id]; !seen[r] {
				seen[r] = true
				hits = append(hits, Hit{r, nd.dist})
			}
		}
		return hits, nil
	}
	h := &maxHeap{}
	if s.quant == quantPQ {
		// all rows at once, walking the transposed codes sub-vector by
		// sub-vector (sequential memory)
		ds := s.pqDistances(p, key, pt)
		for i, r := range pt.rowIDs {
			if (h.Len() < kk || ds[i] < (*h)[0].Dist) && lf.ok(r) {
				pushTop(h, Hit{r, ds[i]}, kk)
			}
		}
		return h.sorted(), nil
	}
	dist := s.distFunc(p, key, pt)
	for i, r := range pt.rowIDs {
		if !lf.ok(r) {
			continue
		}
		pushTop(h, Hit{r, dist(uint32(i))}, kk)
	}
	return h.sorted(), nil
}

// pqDistances is the PQ distance of every row of a partition.
func (s *segment) pqDistances(p int, key []float32, pt *partition) []float32 {
	n := len(pt.rowIDs)
	table, off := s.pqTable(p, key)
	out := make([]float32, n)
	for i := range out {
		out[i] = off
	}
	for m := range s.pqM {
		t := table[m*256 : (m+1)*256]
		codes := pt.codes[m*n : (m+1)*n]
		for i, c := range codes {
			out[i] += t[c]
		}
	}
	return out
}

// pqTable is the distance table of the (residual) query: pqM x 256, and
// the constant added to every sum (1 for dot: Lance's 1 - x·y).
func (s *segment) pqTable(p int, key []float32) ([]float32, float32) {
	q := key
	if s.metric == L2 || s.metric == Cosine {
		c := s.ivf.centroids[p*s.dim : (p+1)*s.dim]
		q = make([]float32, s.dim)
		for i := range q {
			q[i] = key[i] - c[i]
		}
	}
	sub := s.dim / s.pqM
	table := make([]float32, s.pqM*256)
	for m := range s.pqM {
		qs := q[m*sub : (m+1)*sub]
		for c := range 256 {
			cb := s.codebook[(m*256+c)*sub : (m*256+c+1)*sub]
			if s.metric == Dot {
				table[m*256+c] = -DotProduct(qs, cb)
			} else {
				table[m*256+c] = L2Squared(qs, cb)
			}
		}
	}
	if s.metric == Dot {
		return table, 1
	}
	return table, 0
}

// distFunc is the storage's distance from the (residual) query to local
// row i of partition p, as the reference's storage computes it.
func (s *segment) distFunc(p int, key []float32, pt *partition) func(uint32) float32 {
	n := len(pt.rowIDs)
	switch s.quant {
	case quantPQ:
		table, off := s.pqTable(p, key)
		codes, M := pt.codes, s.pqM
		return func(i uint32) float32 {
			d := off
			for m := range M {
				d += table[m*256+int(codes[m*n+int(i)])]
			}
			return d
		}
	case quantSQ:
		qc := scaleToU8(key, s.sqStart, s.sqEnd)
		scale := float32((s.sqEnd - s.sqStart) * (s.sqEnd - s.sqStart) / (255 * 255))
		dim, codes, dot := s.dim, pt.codes, s.metric == Dot
		return func(i uint32) float32 {
			c := codes[int(i)*dim : (int(i)+1)*dim]
			if dot {
				var d uint32
				for j := range c {
					d += uint32(c[j]) * uint32(qc[j])
				}
				return (1 - float32(d)) * scale
			}
			var d uint32
			for j := range c {
				x := int32(c[j]) - int32(qc[j])
				d += uint32(x * x)
			}
			return float32(d) * scale
		}
	default:
		dim, flat, m := s.dim, pt.flat, s.metric
		return func(i uint32) float32 { return m.Distance(key, flat[int(i)*dim:(int(i)+1)*dim]) }
	}
}

func scaleToU8(v []float32, start, end float64) []byte {
	out := make([]byte, len(v))
	if start == end {
		return out
	}
	r := end - start
	for i, x := range v {
		y := (float64(x) - start) * 255 / r
		switch {
		case y <= 0 || y != y:
			out[i] = 0
		case y >= 255:
			out[i] = 255
		default:
			out[i] = byte(y)
		}
	}
	return out
}

// maxHeap keeps the k smallest hits.
type maxHeap []Hit

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return hitLess(h[j], h[i]) }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func hitLess(a, b Hit) bool {
	if a.Dist != b.Dist {
		return lessDist(a.Dist, b.Dist)
	}
	return a.Row < b.Row
}

func pushTop(h *maxHeap, x Hit, k int) {
	if h.Len() < k {
		heap.Push(h, x)
	} else if hitLess(x, (*h)[0]) {
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}

func (h *maxHeap) sorted() []Hit {
	out := slices.Clone(*h)
	sortHits(out)
	return out
}
