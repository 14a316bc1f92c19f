package vector

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// VectorDetailsTypeURL is the type URL of the manifest's index_details for
// a vector index (lance.index.pb.VectorIndexDetails).
const VectorDetailsTypeURL = "/lance.index.pb.VectorIndexDetails"

// Defaults of the reference's IVF builders.
const (
	DefaultSampleRate    = 256 // rows sampled per IVF partition / per PQ centroid
	DefaultMaxIterations = 50
	DefaultNumBits       = 8
	// DefaultBuildMemory bounds what a build holds (the sample and the
	// encoded partitions) when BuildOptions.MaxMemory is 0.
	DefaultBuildMemory = 4 << 30
)

// BuildOptions configure Build. Zero values take the reference's defaults.
type BuildOptions struct {
	// Type is IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_SQ or IVF_HNSW_PQ.
	Type   string
	Metric Metric
	// NumPartitions of the IVF (0: the square root of the row count).
	NumPartitions int
	// NumSubVectors of PQ (0: dim/16, else dim/8, else 1).
	NumSubVectors int
	// NumBits per PQ code (0: 8; only 8 is written).
	NumBits int
	// SampleRate: k-means trains on SampleRate*NumPartitions sampled rows
	// (PQ on SampleRate*256).
	SampleRate    int
	MaxIterations int
	// Seed makes sampling and k-means deterministic.
	Seed uint64
	// Name of the index ("": "<column>_idx").
	Name string
	// UUID names the index directory ("": a random one).
	UUID string
	// MaxMemory bounds the bytes the build holds (0: DefaultBuildMemory).
	MaxMemory int64
	// Workers bounds the goroutines (0: GOMAXPROCS).
	Workers int
	// M is the HNSW neighbours per node and level (twice as many on the
	// bottom level; 0: 20), EfConstruction the beam width of its inserts
	// (0: 150).
	M              int
	EfConstruction int
}

// builtTypes names the index types Build writes, for its error.
const builtTypes = "IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_SQ, IVF_HNSW_PQ and IVF_HNSW_FLAT"

// BuildStats describe a finished build.
type BuildStats struct {
	Rows       int
	Partitions int
	Sample     int
	Bytes      int64
	Elapsed    time.Duration
}

// CreateIndex builds a vector index on column and commits a version that
// registers it (replacing indices of the same name), as Lance's
// create_index does.
func CreateIndex(ctx context.Context, ds *dataset.Dataset, column string, opts BuildOptions) (*dataset.Dataset, error) {
	meta, _, err := Build(ctx, ds, column, opts)
	if err != nil {
		return nil, err
	}
	name := meta.Name
	var removed []string
	for _, m := range ds.Indices() {
		if m.Name == name {
			removed = append(removed, m.UUID)
		}
	}
	return ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, removed)
}

// builder holds one build's state.
type builder struct {
	ds     *dataset.Dataset
	column string
	opts   BuildOptions
	dim    int
	metric Metric
	pq     bool
	sq     bool
	hnsw   bool
	// multi: a multivector column (list<fixed_size_list<float>[dim]>):
	// every vector of a row is indexed under the row's address, as the
	// reference flattens it
	multi   bool
	sqq     sqQuantizer
	hp      hnswParams
	m       int // PQ sub-vectors
	np      int
	workers int
	budget  int64
}

func (b *builder) errf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidQuery}, a...)...)
}

// Build trains and writes a vector index of opts.Type on column over every
// fragment of ds under _indices/<uuid>/ (index.idx and auxiliary.idx, the
// reference's v3 IVF layout) and returns its metadata, ready for
// Dataset.CommitIndices.
func Build(ctx context.Context, ds *dataset.Dataset, column string, opts BuildOptions) (*dataset.IndexMetadata, *BuildStats, error) {
	start := time.Now()
	b := &builder{ds: ds, column: column, opts: opts, metric: opts.Metric}
	typ := strings.ToUpper(opts.Type)
	switch typ {
	case "IVF_FLAT":
	case "IVF_PQ":
		b.pq = true
	case "IVF_SQ":
		b.sq = true
	case "IVF_HNSW_SQ":
		b.sq, b.hnsw = true, true
	case "IVF_HNSW_PQ":
		b.pq, b.hnsw = true, true
	case "IVF_HNSW_FLAT":
		b.hnsw = true
	default:
		return nil, nil, fmt.Errorf("%w: building a %s index (lancecat builds %s)", ErrUnsupported, opts.Type, builtTypes)
	}
	if !b.hnsw && (opts.M != 0 || opts.EfConstruction != 0) {
		return nil, nil, b.errf("m and ef_construction apply to HNSW indices, not %s", typ)
	}
	b.hp = hnswParams{m: opts.M, efc: opts.EfConstruction, maxLevel: DefaultHNSWMaxLevel}
	if b.hp.m == 0 {
		b.hp.m = DefaultHNSWM
	}
	if b.hp.efc == 0 {
		b.hp.efc = DefaultHNSWEfConstruction
	}
	if b.hp.m < 2 || b.hp.m > 1<<12 || b.hp.efc < 1 || b.hp.efc > 1<<16 {
		return nil, nil, b.errf("HNSW m %d, ef_construction %d (m from 2 to 4096, ef_construction from 1 to 65536)", b.hp.m, b.hp.efc)
	}
	if b.metric != L2 && b.metric != Cosine && b.metric != Dot {
		return nil, nil, fmt.Errorf("%w: a %s vector index", ErrUnsupported, b.metric)
	}
	f := ds.Schema().Field(column)
	if f == nil {
		return nil, nil, b.errf("no column %q", column)
	}
	at, err := f.ArrowType()
	if err != nil {
		return nil, nil, err
	}
	if lt, ok := at.(*arrow.ListType); ok {
		if _, inner := lt.Elem().(*arrow.FixedSizeListType); inner {
			if b.metric != Cosine {
				return nil, nil, b.errf("a multivector index takes the cosine metric, not %s (the reference builds no other)", b.metric)
			}
			b.multi, at = true, lt.Elem()
		}
	}
	fsl, ok := at.(*arrow.FixedSizeListType)
	if !ok {
		return nil, nil, b.errf("column %q of type %s is not a vector", column, at)
	}
	switch fsl.Elem().ID() {
	case arrow.FLOAT32, arrow.FLOAT16, arrow.FLOAT64:
	default:
		return nil, nil, b.errf("column %q holds %s, not floats", column, fsl.Elem())
	}
	b.dim = int(fsl.Len())
	if b.dim <= 0 || b.dim > maxDimension {
		return nil, nil, b.errf("vector dimension %d", b.dim)
	}
	for _, fr := range ds.Fragments() {
		if fr.HasRowIDs {
			return nil, nil, fmt.Errorf("%w: dataset %s uses stable row ids", ErrUnsupported, ds.URI())
		}
	}
	b.workers = opts.Workers
	if b.workers <= 0 {
		b.workers = runtime.GOMAXPROCS(0)
	}
	b.budget = opts.MaxMemory
	if b.budget <= 0 {
		b.budget = DefaultBuildMemory
	}
	if opts.NumBits != 0 && opts.NumBits != 8 {
		return nil, nil, fmt.Errorf("%w: PQ with %d bits (lancecat writes 8)", ErrUnsupported, opts.NumBits)
	}
	sr := opts.SampleRate
	if sr <= 0 {
		sr = DefaultSampleRate
	}
	iters := opts.MaxIterations
	if iters <= 0 {
		iters = DefaultMaxIterations
	}
	if b.pq {
		b.m = opts.NumSubVectors
		if b.m == 0 {
			b.m = DefaultSubVectors(b.dim)
		}
		if b.m < 1 || b.dim%b.m != 0 {
			return nil, nil, b.errf("num_sub_vectors %d does not divide dimension %d", b.m, b.dim)
		}
	}
	rows := 0
	for _, fr := range ds.Fragments() {
		rows += int(fr.PhysicalRows)
	}
	if rows == 0 {
		return nil, nil, b.errf("table has no rows to train a vector index on")
	}
	b.np = opts.NumPartitions
	if b.np == 0 {
		b.np = max(1, int(math.Sqrt(float64(rows))))
	}
	if b.np < 1 || b.np > maxPartitions {
		return nil, nil, b.errf("num_partitions %d", b.np)
	}
	want := b.np * sr
	if b.pq || b.sq {
		// PQ trains 256 centroids per sub-vector, SQ its bounds on
		// sample_rate * 2^8 rows, as the reference samples them
		want = max(want, 256*sr)
	}
	if int64(want)*int64(b.dim)*4 > b.budget/2 {
		want = int(b.budget / 2 / int64(b.dim*4))
	}
	sample, n, frags, err := b.sample(ctx, want)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 {
		return nil, nil, b.errf("column %q has no non-null vectors", column)
	}
	if b.np > n {
		return nil, nil, b.errf("num_partitions %d exceeds the %d vectors", b.np, n)
	}
	// The reservoir is a uniform subset, but in scan order while the table
	// has fewer rows than it holds: shuffle it so that its prefixes, the
	// IVF's np*sample_rate rows and PQ's 256*sample_rate, are uniform
	// samples too, as the reference's dataset.sample is.
	shuffleRows(sample, b.dim, opts.Seed)
	ivfSample := sample
	if len(ivfSample) > b.np*sr*b.dim {
		ivfSample = ivfSample[:b.np*sr*b.dim]
	}
	cent, loss, err := trainKMeans(ctx, ivfSample, kmeansParams{k: b.np, dim: b.dim, maxIters: iters, dot: b.metric == Dot, balance: true, seed: opts.Seed, workers: b.workers})
	if err != nil {
		return nil, nil, err
	}
	var codebook []float32
	if b.pq {
		if codebook, err = b.trainPQ(ctx, sample, cent, iters); err != nil {
			return nil, nil, err
		}
	}
	if b.sq {
		b.sqq = trainSQ(sample[:min(len(sample), 256*sr*b.dim)])
	}
	parts, err := b.encode(ctx, cent, codebook)
	if err != nil {
		return nil, nil, err
	}
	if b.hnsw {
		if err := b.graphs(ctx, parts, codebook); err != nil {
			return nil, nil, err
		}
	}
	files, err := b.files(typ, cent, loss, codebook, parts)
	if err != nil {
		return nil, nil, err
	}
	id := opts.UUID
	if id == "" {
		id = uuid.NewString()
	} else if _, err := uuid.Parse(id); err != nil {
		return nil, nil, b.errf("index uuid %q: %v", id, err)
	}
	name := opts.Name
	if name == "" {
		name = column + "_idx"
	}
	version := int32(1)
	now := time.Now().UTC().Truncate(time.Millisecond)
	meta := &dataset.IndexMetadata{
		UUID: id, Fields: []int32{f.ID}, Name: name, DatasetVersion: ds.Version(), FragmentBitmap: frags,
		DetailsTypeURL: VectorDetailsTypeURL, Details: b.details(), IndexVersion: &version, CreatedAt: &now,
	}
	st := &BuildStats{Rows: n, Partitions: b.np, Sample: len(sample) / b.dim}
	dir := path.Join(ds.Dir(), "_indices", id)
	for _, fn := range []string{auxFile, indexFile} {
		if err := storage.PutDeferred(ctx, ds.Store(), path.Join(dir, fn), files[fn]); err != nil {
			return nil, nil, fmt.Errorf("write vector index file %s: %w", fn, err)
		}
		meta.Files = append(meta.Files, dataset.IndexFile{Path: fn, SizeBytes: uint64(len(files[fn]))})
		st.Bytes += int64(len(files[fn]))
	}
	st.Elapsed = time.Since(start)
	return meta, st, nil
}

// DefaultSubVectors is the reference's default PQ sub-vector count.
func DefaultSubVectors(dim int) int {
	switch {
	case dim%16 == 0:
		return dim / 16
	case dim%8 == 0:
		return dim / 8
	}
	return 1
}

// scanVectors calls fn with each batch's row addresses and vectors
// (normalised for cosine); null vectors are skipped.
func (b *builder) scanVectors(ctx context.Context, fn func(addrs []uint64, vecs []float32) error) (*roaring.Bitmap, error) {
	frags := roaring.New()
	var ids []uint64
	for _, fr := range b.ds.Fragments() {
		ids = append(ids, fr.ID)
		frags.Add(uint32(fr.ID))
	}
	dim := b.dim
	err := b.ds.Scan(ctx, dataset.ScanOptions{Columns: []string{b.column}, Fragments: ids, WithRowAddress: true}, func(rb arrow.RecordBatch) error {
		ac, ok := rb.Column(1).(*array.Uint64)
		if !ok {
			return fmt.Errorf("%w: row address column", ErrCorrupt)
		}
		// row i's vectors are vals[lo[i]*dim : hi[i]*dim]: one each, or a
		// multivector row's list (NULL and empty lists index nothing)
		col := rb.Column(0)
		lo := func(i int) int { return i }
		hi := func(i int) int { return i + 1 }
		if b.multi {
			list, ok := col.(*array.List)
			if !ok {
				return fmt.Errorf("%w: column of type %s is not a multivector", ErrInvalidQuery, col.DataType())
			}
			offs := list.Offsets()
			lo = func(i int) int { return int(offs[i]) }
			hi = func(i int) int { return int(offs[i+1]) }
			col = list.ListValues()
		}
		vals, err := vectorValues(col, dim)
		if err != nil {
			return err
		}
		nulls := rb.Column(0)
		addrs := make([]uint64, 0, rb.NumRows())
		vecs := make([]float32, 0, int(rb.NumRows())*dim)
		for i := 0; i < int(rb.NumRows()); i++ {
			if nulls.IsNull(i) {
				continue
			}
			from, to := lo(i), hi(i)
			if from < 0 || from > to || to*dim > len(vals) {
				return fmt.Errorf("%w: multivector offsets past the column's %d vectors", ErrCorrupt, len(vals)/dim)
			}
			for j := from; j < to; j++ {
				if col.IsNull(j) {
					continue // a NULL vector inside a multivector row
				}
				v := vals[j*dim : (j+1)*dim]
				if b.metric == Cosine {
					v = Normalize(v)
				}
				for _, x := range v {
					if x != x || math.IsInf(float64(x), 0) {
						return b.errf("row %d holds a NaN or infinite vector value", ac.Value(i))
					}
				}
				addrs = append(addrs, ac.Value(i))
				vecs = append(vecs, v...)
			}
		}
		if err := fn(addrs, vecs); err != nil {
			return err
		}
		return ctx.Err()
	})
	return frags, err
}

// sample draws up to want vectors by seeded reservoir sampling over the
// scan, and counts the non-null vectors.
func (b *builder) sample(ctx context.Context, want int) ([]float32, int, *roaring.Bitmap, error) {
	dim := b.dim
	rng := rand.New(rand.NewPCG(b.opts.Seed^0x5bd1e995, 17))
	res := make([]float32, 0, min(want, 1<<20)*dim)
	n := 0
	frags, err := b.scanVectors(ctx, func(_ []uint64, vecs []float32) error {
		for i := 0; i < len(vecs)/dim; i++ {
			v := vecs[i*dim : (i+1)*dim]
			if n < want {
				res = append(res, v...)
			} else if j := rng.IntN(n + 1); j < want {
				copy(res[j*dim:(j+1)*dim], v)
			}
			n++
		}
		return nil
	})
	if err != nil {
		return nil, 0, nil, err
	}
	return res, n, frags, nil
}

// shuffleRows permutes the rows (dim floats each) of data by a seeded
// Fisher-Yates shuffle.
func shuffleRows(data []float32, dim int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed^0x2545f4914f6cdd1d, 29))
	n := len(data) / dim
	tmp := make([]float32, dim)
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		if j == i {
			continue
		}
		a, b := data[i*dim:(i+1)*dim], data[j*dim:(j+1)*dim]
		copy(tmp, a)
		copy(a, b)
		copy(b, tmp)
	}
}

// trainPQ trains the PQ codebook (m * 256 * sub, sub-vector major) on the
// residuals of the sample to their IVF centroids (the vectors themselves
// for dot), one k-means per sub-vector, sub-vectors in parallel.
func (b *builder) trainPQ(ctx context.Context, sample, cent []float32, iters int) ([]float32, error) {
	dim, m := b.dim, b.m
	sub := dim / m
	limit := 256 * max(b.opts.SampleRate, 0)
	if limit == 0 {
		limit = 256 * DefaultSampleRate
	}
	n := min(len(sample)/dim, limit)
	resid := make([]float32, n*dim)
	copy(resid, sample[:n*dim])
	if b.metric != Dot {
		assign := make([]int32, n)
		assignAll(resid, cent, dim, false, assign, b.workers)
		for i := range n {
			c := cent[int(assign[i])*dim : (int(assign[i])+1)*dim]
			for j := range dim {
				resid[i*dim+j] -= c[j]
			}
		}
	}
	codebook := make([]float32, m*256*sub)
	jobs := make(chan int)
	errs := make([]error, m)
	var wg sync.WaitGroup
	for range min(b.workers, m) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float32, n*sub)
			for s := range jobs {
				for i := range n {
					copy(buf[i*sub:(i+1)*sub], resid[i*dim+s*sub:i*dim+(s+1)*sub])
				}
				cb, _, err := trainKMeans(ctx, buf, kmeansParams{k: 256, dim: sub, maxIters: iters, seed: b.opts.Seed + uint64(s) + 1, workers: 1})
				if err != nil {
					errs[s] = err
					continue
				}
				copy(codebook[s*256*sub:(s+1)*256*sub], cb)
			}
		}()
	}
	for s := range m {
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return codebook, nil
}

// parts are the encoded partitions: row addresses and, per row, the flat
// vector (dim floats) or PQ codes (m bytes).
type parts struct {
	rows   [][]uint64
	flat   [][]float32
	codes  [][]byte // PQ: m bytes a row; SQ: dim bytes a row
	graphs []*hnswGraph
	held   int64 // bytes counted against the build's budget
}

// encode assigns every vector to its partition and encodes it, batches
// split over the workers.
func (b *builder) encode(ctx context.Context, cent, codebook []float32) (*parts, error) {
	dim, m := b.dim, b.m
	sub := 0
	if b.pq {
		sub = dim / m
	}
	p := &parts{rows: make([][]uint64, b.np)}
	if b.pq || b.sq {
		p.codes = make([][]byte, b.np)
	} else {
		p.flat = make([][]float32, b.np)
	}
	var held int64
	per := int64(8 + dim*4)
	switch {
	case b.pq:
		per = int64(8 + m)
	case b.sq:
		per = int64(8 + dim)
	}
	if b.hnsw {
		// the graph: up to 2m bottom-level edges (id and distance) a node,
		// and the upper levels' few
		per += int64(2*b.hp.m*8 + 64)
	}
	_, err := b.scanVectors(ctx, func(addrs []uint64, vecs []float32) error {
		n := len(addrs)
		held += int64(n) * per
		if held > b.budget {
			return fmt.Errorf("%w: the encoded index would exceed the build's memory budget of %d bytes", ErrInvalidQuery, b.budget)
		}
		assign := make([]int32, n)
		var codes []byte
		switch {
		case b.pq:
			codes = make([]byte, n*m)
		case b.sq:
			codes = make([]byte, n*dim)
		}
		w := max(1, min(b.workers, n/128+1))
		chunk := (n + w - 1) / w
		ivf := newCentSet(cent, dim, b.metric == Dot)
		var books []*centSet
		if b.pq {
			books = make([]*centSet, m)
			for s := range m {
				books[s] = newCentSet(codebook[s*256*sub:(s+1)*256*sub], sub, false)
			}
		}
		var wg sync.WaitGroup
		for k := range w {
			lo, hi := k*chunk, min(n, (k+1)*chunk)
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := make([]float32, dim)
				ds := ivf.buf()
				var cds []float32
				if b.pq {
					cds = books[0].buf()
				}
				for i := lo; i < hi; i++ {
					v := vecs[i*dim : (i+1)*dim]
					c, _ := ivf.nearest(v, ds)
					assign[i] = int32(c)
					if b.sq {
						// SQ quantizes the vector itself, not its residual
						b.sqq.encode(v, codes[i*dim:(i+1)*dim])
						continue
					}
					if !b.pq {
						continue
					}
					r := v
					if b.metric != Dot {
						cv := cent[c*dim : (c+1)*dim]
						for j := range dim {
							res[j] = v[j] - cv[j]
						}
						r = res
					}
					for s := range m {
						code, _ := books[s].nearest(r[s*sub:(s+1)*sub], cds)
						codes[i*m+s] = byte(code)
					}
				}
			}()
		}
		wg.Wait()
		for i := range n {
			c := assign[i]
			p.rows[c] = append(p.rows[c], addrs[i])
			switch {
			case b.pq:
				p.codes[c] = append(p.codes[c], codes[i*m:(i+1)*m]...)
			case b.sq:
				p.codes[c] = append(p.codes[c], codes[i*dim:(i+1)*dim]...)
			default:
				p.flat[c] = append(p.flat[c], vecs[i*dim:(i+1)*dim]...)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.held = held
	return p, nil
}

// graphs builds the HNSW graph of every partition, partitions spread over
// the workers. A graph is built over the vectors its storage stands for
// (SQ codes decoded, PQ residuals rebuilt from the codebook), so its edges
// follow the distances searches will compute, as the reference builds over
// its quantized storage; one partition's decoded vectors are held at a
// time per worker.
func (b *builder) graphs(ctx context.Context, p *parts, codebook []float32) error {
	p.graphs = make([]*hnswGraph, b.np)
	// each worker holds one partition's decoded vectors and visit marks:
	// as many workers as the budget left over the largest partition allows
	largest := 0
	for _, r := range p.rows {
		largest = max(largest, len(r))
	}
	perWorker := int64(largest) * int64(b.dim*4+4)
	workers := min(b.workers, b.np)
	if perWorker > 0 {
		workers = min(workers, int((b.budget-p.held)/perWorker))
	}
	if workers < 1 {
		return fmt.Errorf("%w: building the HNSW graph of a partition of %d rows would exceed the build's memory budget of %d bytes", ErrInvalidQuery, largest, b.budget)
	}
	errs := make([]error, b.np)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				if err := ctx.Err(); err != nil {
					errs[c] = err
					continue
				}
				vecs := b.decodePartition(p, c, codebook)
				dim := b.dim
				dist := func(x, y uint32) float32 {
					return L2Squared(vecs[int(x)*dim:int(x+1)*dim], vecs[int(y)*dim:int(y+1)*dim])
				}
				if b.metric == Dot {
					dist = func(x, y uint32) float32 {
						return 1 - DotProduct(vecs[int(x)*dim:int(x+1)*dim], vecs[int(y)*dim:int(y+1)*dim])
					}
				}
				seed := b.opts.Seed ^ (uint64(c)+1)*0x9e3779b97f4a7c15
				p.graphs[c], errs[c] = buildHNSW(ctx, len(p.rows[c]), dist, b.hp, seed)
			}
		}()
	}
	for c := range b.np {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// decodePartition is partition c's vectors as its storage gives them back.
func (b *builder) decodePartition(p *parts, c int, codebook []float32) []float32 {
	n, dim := len(p.rows[c]), b.dim
	out := make([]float32, n*dim)
	switch {
	case b.sq:
		b.sqq.decode(p.codes[c], out)
	case b.pq:
		m := b.m
		sub := dim / m
		for i := range n {
			for s := range m {
				code := int(p.codes[c][i*m+s])
				copy(out[i*dim+s*sub:i*dim+(s+1)*sub], codebook[(s*256+code)*sub:(s*256+code+1)*sub])
			}
		}
	default:
		copy(out, p.flat[c])
	}
	return out
}

// graphFile is index.idx of an HNSW index: every partition's graph, level
// by level (the rows of a level in node order), with the IVF model giving
// each partition's rows and lance:hnsw its level offsets, the layout the
// reference's HNSW::to_batch writes.
func (b *builder) graphFile(typ string, cent []float32, loss float64, p *parts) ([]byte, error) {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: colVectorID, Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: colNeighbors, Type: arrow.ListOf(arrow.PrimitiveTypes.Uint32), Nullable: true},
		{Name: "_distance", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32), Nullable: true},
	}, nil)
	hp := b.hp
	params := map[string]any{"max_level": hp.maxLevel, "m": hp.m, "ef_construction": hp.efc, "prefetch_distance": 2}
	metas := make([]string, b.np)
	offsets := make([]uint64, b.np)
	lengths := make([]uint64, b.np)
	var recs []arrow.Record
	defer releaseRecords(&recs)
	var off uint64
	for c := range b.np {
		g := p.graphs[c]
		levelOffsets := []int{0}
		if len(g.adj) > 0 {
			for _, cnt := range g.levelCounts(hp.maxLevel) {
				levelOffsets = append(levelOffsets, levelOffsets[len(levelOffsets)-1]+cnt)
			}
		}
		raw, _ := json.Marshal(map[string]any{"entry_point": 0, "params": params, "level_offsets": levelOffsets})
		metas[c] = string(raw)
		rows := levelOffsets[len(levelOffsets)-1]
		offsets[c], lengths[c] = off, uint64(rows)
		off += uint64(rows)
		if rows == 0 {
			continue
		}
		idb := array.NewUint32Builder(mem)
		nbb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Uint32)
		dsb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float32)
		nbv := nbb.ValueBuilder().(*array.Uint32Builder)
		dsv := dsb.ValueBuilder().(*array.Float32Builder)
		for l := range hp.maxLevel {
			for i, a := range g.adj {
				if l >= len(a) {
					continue
				}
				idb.Append(uint32(i))
				nbb.Append(true)
				dsb.Append(true)
				for _, e := range a[l] {
					nbv.Append(e.id)
					dsv.Append(e.dist)
				}
			}
		}
		cols := []arrow.Array{idb.NewArray(), nbb.NewArray(), dsb.NewArray()}
		recs = append(recs, array.NewRecord(schema, cols, int64(rows)))
		for _, a := range cols {
			a.Release()
		}
		idb.Release()
		nbb.Release()
		dsb.Release()
	}
	mdIndex, _ := json.Marshal(map[string]string{"type": typ, "distance_type": b.metric.String()})
	mdHNSW, _ := json.Marshal(metas)
	return writeIndexFile(schema, recs, [][]byte{encodeIVF(cent, b.dim, offsets, lengths, &loss)},
		keyIndex, string(mdIndex), keyIVF, "1", keyHNSW, string(mdHNSW))
}

// files writes index.idx and auxiliary.idx.
func (b *builder) files(typ string, cent []float32, loss float64, codebook []float32, p *parts) (map[string][]byte, error) {
	var idx []byte
	var err error
	if b.hnsw {
		idx, err = b.graphFile(typ, cent, loss, p)
	} else {
		mdIndex, _ := json.Marshal(map[string]string{"type": typ, "distance_type": b.metric.String()})
		flatMarks, _ := json.Marshal(make([]string, b.np))
		zeros := make([]uint64, b.np)
		ivfIdx := encodeIVF(cent, b.dim, zeros, zeros, &loss)
		idx, err = writeIndexFile(arrow.NewSchema([]arrow.Field{{Name: "__flat_marker", Type: arrow.PrimitiveTypes.Uint64}}, nil),
			nil, [][]byte{ivfIdx}, keyIndex, string(mdIndex), keyIVF, "1", "lance:flat", string(flatMarks))
	}
	if err != nil {
		return nil, fmt.Errorf("vector index.idx: %w", err)
	}
	var codeField arrow.Field
	var stor, storDist string
	switch {
	case b.sq:
		codeField = arrow.Field{Name: colSQ, Type: arrow.FixedSizeListOf(int32(b.dim), arrow.PrimitiveTypes.Uint8), Nullable: true}
		sm, _ := json.Marshal(map[string]any{"dim": b.dim, "num_bits": 8, "bounds": map[string]float64{"start": b.sqq.start, "end": b.sqq.end}})
		stor = string(sm)
		storDist = b.metric.String()
	case b.pq:
		codeField = arrow.Field{Name: colPQ, Type: arrow.FixedSizeListOf(int32(b.m), arrow.PrimitiveTypes.Uint8), Nullable: true}
		sm, _ := json.Marshal(map[string]any{"codebook_position": 2, "nbits": 8, "num_sub_vectors": b.m, "dimension": b.dim, "codebook_tensor": []int{}, "transposed": true})
		stor = string(sm)
		storDist = b.metric.String()
		if b.metric == Cosine {
			storDist = L2.String()
		}
	default:
		codeField = arrow.Field{Name: colFlat, Type: arrow.FixedSizeListOf(int32(b.dim), arrow.PrimitiveTypes.Float32)}
		stor = fmt.Sprintf(`{"dim":%d}`, b.dim)
		storDist = b.metric.String()
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: colRowID, Type: arrow.PrimitiveTypes.Uint64, Nullable: true}, codeField}, nil)
	offsets := make([]uint64, b.np)
	lengths := make([]uint64, b.np)
	var recs []arrow.Record
	defer releaseRecords(&recs)
	var off uint64
	for c := range b.np {
		n := len(p.rows[c])
		offsets[c], lengths[c] = off, uint64(n)
		off += uint64(n)
		if n == 0 {
			continue
		}
		recs = append(recs, b.partitionRecord(schema, p, c))
	}
	gbufs := [][]byte{encodeIVF(nil, 0, offsets, lengths, nil)}
	if b.pq {
		gbufs = append(gbufs, encodeTensor(2, []uint64{256, uint64(b.dim)}, float32Bytes(codebook)))
	}
	storJSON, _ := json.Marshal([]string{stor})
	aux, err := writeIndexFile(schema, recs, gbufs, keyStorage, string(storJSON), keyIVF, "1", keyDistance, storDist)
	if err != nil {
		return nil, fmt.Errorf("vector auxiliary.idx: %w", err)
	}
	return map[string][]byte{indexFile: idx, auxFile: aux}, nil
}

// partitionRecord is partition c's rows: row addresses and the flat
// vectors, or the PQ codes transposed (sub-vector major), as the reader and
// the reference expect.
func (b *builder) partitionRecord(schema *arrow.Schema, p *parts, c int) arrow.Record {
	mem := memory.DefaultAllocator
	n := len(p.rows[c])
	rb := array.NewUint64Builder(mem)
	rb.AppendValues(p.rows[c], nil)
	ids := rb.NewArray()
	defer ids.Release()
	var vals arrow.Array
	switch {
	case b.sq:
		ub := array.NewUint8Builder(mem)
		ub.AppendValues(p.codes[c], nil)
		vals = ub.NewArray()
	case b.pq:
		t := make([]byte, n*b.m)
		src := p.codes[c]
		for i := range n {
			for s := range b.m {
				t[s*n+i] = src[i*b.m+s]
			}
		}
		ub := array.NewUint8Builder(mem)
		ub.AppendValues(t, nil)
		vals = ub.NewArray()
	default:
		fb := array.NewFloat32Builder(mem)
		fb.AppendValues(p.flat[c], nil)
		vals = fb.NewArray()
	}
	defer vals.Release()
	ft := schema.Field(1).Type.(*arrow.FixedSizeListType)
	data := array.NewData(ft, n, []*memory.Buffer{nil}, []arrow.ArrayData{vals.Data()}, 0, 0)
	defer data.Release()
	list := array.NewFixedSizeListData(data)
	defer list.Release()
	return array.NewRecord(schema, []arrow.Array{ids, list}, int64(n))
}

// writeIndexFile writes a Lance 2.1 file of recs with schema metadata kv
// and appends gbufs as global buffers 1, 2, ...
func writeIndexFile(schema *arrow.Schema, recs []arrow.Record, gbufs [][]byte, kv ...string) ([]byte, error) {
	ls, err := lanceschema.FromArrow(schema)
	if err != nil {
		return nil, err
	}
	ls.Metadata = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		ls.Metadata[kv[i]] = kv[i+1]
	}
	var buf bytes.Buffer
	w, err := lancefile.NewWriter(&buf, ls, lancefile.WriterOptions{})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			return nil, err
		}
	}
	if _, err := w.Finish(ctx); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	for _, g := range gbufs {
		if out, err = lancefile.AppendGlobalBuffer(out, g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// encodeIVF is lance.index.pb.IVF: centroids as a FLOAT32 tensor (when
// given), partition offsets and lengths, and the k-means loss.
func encodeIVF(cent []float32, dim int, offsets, lengths []uint64, loss *float64) []byte {
	var b []byte
	b = appendPacked(b, 2, offsets)
	b = appendPacked(b, 3, lengths)
	if cent != nil {
		t := encodeTensor(2, []uint64{uint64(len(cent) / dim), uint64(dim)}, float32Bytes(cent))
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, t)
	}
	if loss != nil {
		b = protowire.AppendTag(b, 5, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(*loss))
	}
	return b
}

func appendPacked(b []byte, num protowire.Number, vals []uint64) []byte {
	if len(vals) == 0 {
		return b
	}
	var p []byte
	for _, v := range vals {
		p = protowire.AppendVarint(p, v)
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, p)
}

// encodeTensor is lance.index.pb.Tensor.
func encodeTensor(dataType uint64, shape []uint64, data []byte) []byte {
	var b []byte
	if dataType != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, dataType)
	}
	b = appendPacked(b, 2, shape)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	return protowire.AppendBytes(b, data)
}

func float32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// details is lance.index.pb.VectorIndexDetails: the metric and the
// compression.
func (b *builder) details() []byte {
	var d []byte
	var mt uint64
	switch b.metric {
	case Cosine:
		mt = 1
	case Dot:
		mt = 2
	}
	if mt != 0 {
		d = protowire.AppendTag(d, 1, protowire.VarintType)
		d = protowire.AppendVarint(d, mt)
	}
	if b.hnsw {
		// hnsw_index_config: m, ef_construction, max_level
		var h []byte
		for i, v := range []int{b.hp.m, b.hp.efc, b.hp.maxLevel} {
			h = protowire.AppendTag(h, protowire.Number(i+1), protowire.VarintType)
			h = protowire.AppendVarint(h, uint64(v))
		}
		d = protowire.AppendTag(d, 3, protowire.BytesType)
		d = protowire.AppendBytes(d, h)
	}
	switch {
	case b.sq:
		// ScalarQuantization: num_bits
		var sq []byte
		sq = protowire.AppendTag(sq, 1, protowire.VarintType)
		sq = protowire.AppendVarint(sq, 8)
		d = protowire.AppendTag(d, 5, protowire.BytesType)
		d = protowire.AppendBytes(d, sq)
	case b.pq:
		var pq []byte
		pq = protowire.AppendTag(pq, 1, protowire.VarintType)
		pq = protowire.AppendVarint(pq, 8)
		pq = protowire.AppendTag(pq, 2, protowire.VarintType)
		pq = protowire.AppendVarint(pq, uint64(b.m))
		d = protowire.AppendTag(d, 4, protowire.BytesType)
		d = protowire.AppendBytes(d, pq)
	default:
		d = protowire.AppendTag(d, 8, protowire.BytesType)
		d = protowire.AppendBytes(d, nil)
	}
	return d
}

// releaseRecords releases the records *recs holds (deferred by the writers
// of index files, which build one record per partition).
func releaseRecords(recs *[]arrow.Record) {
	for _, r := range *recs {
		r.Release()
	}
}
