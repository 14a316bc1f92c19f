package vector

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// File names and schema metadata keys of a v3 IVF vector index segment, as
// the reference writes them under _indices/<uuid>/.
const (
	indexFile     = "index.idx"
	auxFile       = "auxiliary.idx"
	keyIndex      = "lance:index"      // {"type":"IVF_PQ","distance_type":"l2"}
	keyIVF        = "lance:ivf"        // global buffer number of the IVF message
	keyHNSW       = "lance:hnsw"       // JSON list, one HNSW metadata per partition
	keyStorage    = "storage_metadata" // JSON list of one quantizer metadata
	keyDistance   = "distance_type"
	colRowID      = "_rowid"
	colFlat       = "flat"
	colPQ         = "__pq_code"
	colSQ         = "__sq_code"
	colVectorID   = "__vector_id"
	colNeighbors  = "__neighbors"
	maxDimension  = 1 << 16
	maxPartitions = 1 << 20
)

type quantizer int

const (
	quantFlat quantizer = iota
	quantPQ
	quantSQ
)

// file is what a segment needs from a Lance file reader.
type file interface {
	NumRows() uint64
	Schema() *lanceschema.Schema
	ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64) (arrow.Record, error)
	GlobalBuffer(ctx context.Context, i int) ([]byte, error)
}

// segment is one delta of a vector index: an IVF model, the quantized
// storage of each partition (auxiliary.idx) and, for HNSW types, a graph per
// partition (index.idx).
type segment struct {
	meta     *dataset.IndexMetadata
	typeName string
	metric   Metric // the index's distance type
	dim      int
	ivf      *ivfModel // centroids
	// storage
	aux        file
	auxOffsets []uint64
	auxLengths []uint32
	auxIDs     []int32 // _rowid, code column field ids
	quant      quantizer
	pqBits     int
	pqM        int
	codebook   []float32 // pqM * 2^pqBits * (dim/pqM), sub-vector major
	sqStart    float64
	sqEnd      float64
	storDist   Metric // distance the storage computes (L2 for cosine PQ)
	// HNSW
	hnsw       bool
	idx        file
	idxOffsets []uint64
	idxLengths []uint32
	hnswMeta   []hnswMeta
	idxIDs     []int32

	mu    sync.Mutex
	parts map[int]*partition
}

type hnswMeta struct {
	EntryPoint   uint32 `json:"entry_point"`
	LevelOffsets []int  `json:"level_offsets"`
	Params       struct {
		MaxLevel int `json:"max_level"`
	} `json:"params"`
}

// partition is the loaded storage of one IVF partition.
type partition struct {
	rowIDs []uint64
	flat   []float32 // quantFlat: n * dim
	codes  []byte    // quantPQ: transposed, pqM * n; quantSQ: n * dim
	graph  *graph
}

// graph is an HNSW graph over a partition's local ids.
type graph struct {
	levels []map[uint32][]uint32 // levels[0] unused (bottom uses bottom)
	bottom [][]uint32
}

func openFile(ctx context.Context, ds *dataset.Dataset, m *dataset.IndexMetadata, name string) (file, error) {
	var size int64
	for _, f := range m.Files {
		if f.Path == name {
			size = int64(f.SizeBytes)
		}
	}
	p := path.Join(ds.Dir(), "_indices", m.UUID, name)
	src, err := lancefile.NewStoreSource(ctx, ds.Store(), p, size)
	if err != nil {
		return nil, fmt.Errorf("vector index file %s: %w", p, err)
	}
	r, err := lancefile.Open(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("vector index file %s: %w", p, err)
	}
	return r, nil
}

// ivfBuffer decodes the IVF message whose global buffer the file's
// metadata names.
func ivfBuffer(ctx context.Context, f file) (*ivfModel, error) {
	raw, ok := f.Schema().Metadata[keyIVF]
	if !ok {
		return nil, protoErr("no " + keyIVF + " metadata")
	}
	var pos int
	if _, err := fmt.Sscanf(raw, "%d", &pos); err != nil || pos < 0 || pos > 1<<20 {
		return nil, protoErr(fmt.Sprintf("%s metadata %q", keyIVF, raw))
	}
	b, err := f.GlobalBuffer(ctx, pos)
	if err != nil {
		return nil, fmt.Errorf("%w: IVF buffer %d: %v", ErrCorrupt, pos, err)
	}
	return decodeIVF(b)
}

func fieldIDs(f file, names ...string) ([]int32, error) {
	var out []int32
	for _, n := range names {
		var id int32 = -1
		for _, fl := range f.Schema().Fields {
			if fl.Name == n {
				id = fl.ID
			}
		}
		if id < 0 {
			return nil, protoErr("index file has no column " + n)
		}
		out = append(out, id)
	}
	return out, nil
}

// checkRanges validates partition offsets/lengths against a file's rows.
func checkRanges(offsets []uint64, lengths []uint32, rows uint64) error {
	for i := range offsets {
		if offsets[i] > rows || uint64(lengths[i]) > rows-offsets[i] {
			return protoErr(fmt.Sprintf("partition %d rows [%d, +%d) past the file's %d rows", i, offsets[i], lengths[i], rows))
		}
	}
	return nil
}

// loadSegment opens a segment's files and reads its small metadata (IVF
// centroids, quantizer parameters, HNSW metadata); partitions load lazily.
func loadSegment(ctx context.Context, ds *dataset.Dataset, m *dataset.IndexMetadata) (*segment, error) {
	idx, err := openFile(ctx, ds, m, indexFile)
	if err != nil {
		return nil, err
	}
	aux, err := openFile(ctx, ds, m, auxFile)
	if err != nil {
		return nil, err
	}
	return newSegment(ctx, m, idx, aux)
}

// newSegment reads a segment's metadata from its opened files.
func newSegment(ctx context.Context, m *dataset.IndexMetadata, idx, aux file) (*segment, error) {
	s := &segment{meta: m, parts: map[int]*partition{}, idx: idx, aux: aux}
	var err error
	var im struct {
		Type         string `json:"type"`
		DistanceType string `json:"distance_type"`
	}
	if err := json.Unmarshal([]byte(idx.Schema().Metadata[keyIndex]), &im); err != nil {
		return nil, protoErr(keyIndex + " metadata is not JSON")
	}
	s.typeName = im.Type
	if s.metric, err = ParseMetric(im.DistanceType); err != nil {
		return nil, err
	}
	if s.metric == Hamming {
		return nil, fmt.Errorf("%w: hamming distance", ErrUnsupported)
	}
	switch im.Type {
	case "IVF_FLAT", "IVF_PQ", "IVF_SQ":
	case "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_HNSW_FLAT":
		s.hnsw = true
	default:
		return nil, fmt.Errorf("%w: index type %s", ErrUnsupported, im.Type)
	}
	if s.ivf, err = ivfBuffer(ctx, idx); err != nil {
		return nil, err
	}
	np := s.ivf.numPartitions()
	if np == 0 || np > maxPartitions || s.ivf.dim == 0 || s.ivf.dim > maxDimension || len(s.ivf.centroids) != np*s.ivf.dim {
		return nil, protoErr(fmt.Sprintf("IVF model of %d partitions, dimension %d", np, s.ivf.dim))
	}
	s.dim = s.ivf.dim
	auxIVF, err := ivfBuffer(ctx, aux)
	if err != nil {
		return nil, err
	}
	if auxIVF.numPartitions() != np {
		return nil, protoErr(fmt.Sprintf("storage has %d partitions, IVF %d", auxIVF.numPartitions(), np))
	}
	s.auxOffsets, s.auxLengths = auxIVF.offsets, auxIVF.lengths
	if err := checkRanges(s.auxOffsets, s.auxLengths, aux.NumRows()); err != nil {
		return nil, err
	}
	md := aux.Schema().Metadata
	if s.storDist, err = ParseMetric(md[keyDistance]); err != nil {
		return nil, err
	}
	var stor []string
	if err := json.Unmarshal([]byte(md[keyStorage]), &stor); err != nil || len(stor) == 0 {
		return nil, protoErr(keyStorage + " metadata")
	}
	switch {
	case hasField(aux, colFlat):
		s.quant = quantFlat
		s.auxIDs, err = fieldIDs(aux, colRowID, colFlat)
	case hasField(aux, colPQ):
		s.quant = quantPQ
		s.auxIDs, err = fieldIDs(aux, colRowID, colPQ)
		if err == nil {
			err = s.loadPQ(ctx, stor[0])
		}
	case hasField(aux, colSQ):
		s.quant = quantSQ
		s.auxIDs, err = fieldIDs(aux, colRowID, colSQ)
		if err == nil {
			err = s.loadSQ(stor[0])
		}
	default:
		return nil, fmt.Errorf("%w: index %s storage columns %v", ErrUnsupported, im.Type, aux.Schema().Fields)
	}
	if err != nil {
		return nil, err
	}
	if s.hnsw {
		var metas []string
		if err := json.Unmarshal([]byte(idx.Schema().Metadata[keyHNSW]), &metas); err != nil || len(metas) != np {
			return nil, protoErr(keyHNSW + " metadata is not one entry per partition")
		}
		for _, raw := range metas {
			var hm hnswMeta
			if raw != "" {
				if err := json.Unmarshal([]byte(raw), &hm); err != nil {
					return nil, protoErr(keyHNSW + " entry is not JSON")
				}
			}
			if hm.Params.MaxLevel > 64 || len(hm.LevelOffsets) > 65 {
				return nil, protoErr("HNSW max level out of range")
			}
			s.hnswMeta = append(s.hnswMeta, hm)
		}
		s.idxOffsets, s.idxLengths = s.ivf.offsets, s.ivf.lengths
		if len(s.idxOffsets) != np {
			return nil, protoErr("HNSW index has no partition ranges")
		}
		if err := checkRanges(s.idxOffsets, s.idxLengths, idx.NumRows()); err != nil {
			return nil, err
		}
		if s.idxIDs, err = fieldIDs(idx, colVectorID, colNeighbors); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func hasField(f file, name string) bool {
	for _, fl := range f.Schema().Fields {
		if fl.Name == name {
			return true
		}
	}
	return false
}

func (s *segment) loadPQ(ctx context.Context, raw string) error {
	var pm struct {
		CodebookPosition int  `json:"codebook_position"`
		NBits            int  `json:"nbits"`
		NumSubVectors    int  `json:"num_sub_vectors"`
		Dimension        int  `json:"dimension"`
		Transposed       bool `json:"transposed"`
	}
	if err := json.Unmarshal([]byte(raw), &pm); err != nil {
		return protoErr("PQ storage metadata is not JSON")
	}
	if pm.NBits != 8 {
		return fmt.Errorf("%w: PQ with %d bits per code (lancecat reads 8)", ErrUnsupported, pm.NBits)
	}
	if pm.Dimension != s.dim || pm.NumSubVectors <= 0 || s.dim%pm.NumSubVectors != 0 {
		return protoErr(fmt.Sprintf("PQ of %d sub-vectors over dimension %d (IVF %d)", pm.NumSubVectors, pm.Dimension, s.dim))
	}
	if !pm.Transposed {
		return fmt.Errorf("%w: untransposed PQ codes", ErrUnsupported)
	}
	if pm.CodebookPosition <= 0 || pm.CodebookPosition > 1<<20 {
		return protoErr("PQ codebook position")
	}
	b, err := s.aux.GlobalBuffer(ctx, pm.CodebookPosition)
	if err != nil {
		return fmt.Errorf("%w: PQ codebook buffer: %v", ErrCorrupt, err)
	}
	t, err := decodeTensor(b)
	if err != nil {
		return err
	}
	vals, rows, cols, err := t.float32s()
	if err != nil {
		return fmt.Errorf("PQ codebook: %w", err)
	}
	if rows*cols != 256*s.dim || (cols != s.dim && cols != s.dim/pm.NumSubVectors) {
		return protoErr(fmt.Sprintf("PQ codebook of shape [%d, %d]", rows, cols))
	}
	s.pqBits, s.pqM, s.codebook = 8, pm.NumSubVectors, vals
	return nil
}

func (s *segment) loadSQ(raw string) error {
	var sm struct {
		Dim     int `json:"dim"`
		NumBits int `json:"num_bits"`
		Bounds  struct {
			Start float64 `json:"start"`
			End   float64 `json:"end"`
		} `json:"bounds"`
	}
	if err := json.Unmarshal([]byte(raw), &sm); err != nil {
		return protoErr("SQ storage metadata is not JSON")
	}
	if sm.NumBits != 8 {
		return fmt.Errorf("%w: SQ with %d bits", ErrUnsupported, sm.NumBits)
	}
	if sm.Dim != s.dim {
		return protoErr("SQ dimension differs from the IVF model's")
	}
	s.sqStart, s.sqEnd = sm.Bounds.Start, sm.Bounds.End
	return nil
}

// partition loads (once) the storage and graph of partition p.
func (s *segment) partition(ctx context.Context, p int) (*partition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pt, ok := s.parts[p]; ok {
		return pt, nil
	}
	pt, err := s.readPartition(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("vector index %q segment %s partition %d: %w", s.meta.Name, s.meta.UUID, p, err)
	}
	s.parts[p] = pt
	return pt, nil
}

func (s *segment) readPartition(ctx context.Context, p int) (*partition, error) {
	pt := &partition{}
	n := int(s.auxLengths[p])
	if n == 0 {
		return pt, nil
	}
	start := s.auxOffsets[p]
	rec, err := s.aux.ReadRange(ctx, s.auxIDs, start, start+uint64(n))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if int(rec.NumRows()) != n || rec.NumCols() != 2 {
		return nil, protoErr("storage read returned the wrong shape")
	}
	ids, ok := rec.Column(0).(*array.Uint64)
	if !ok {
		return nil, protoErr("_rowid column is not uint64")
	}
	pt.rowIDs = append([]uint64(nil), ids.Uint64Values()...)
	fsl, ok := rec.Column(1).(*array.FixedSizeList)
	if !ok {
		return nil, protoErr("storage code column is not a fixed-size list")
	}
	width := int(fsl.DataType().(*arrow.FixedSizeListType).Len())
	switch s.quant {
	case quantFlat:
		if width != s.dim {
			return nil, protoErr("flat vectors of the wrong dimension")
		}
		v, err := floats(fsl.ListValues(), n*s.dim)
		if err != nil {
			return nil, err
		}
		pt.flat = v
	case quantPQ, quantSQ:
		want := s.dim
		if s.quant == quantPQ {
			want = s.pqM
		}
		u8, ok := fsl.ListValues().(*array.Uint8)
		if !ok || width != want || u8.Len() < n*want {
			return nil, protoErr("codes of the wrong type or width")
		}
		pt.codes = append([]byte(nil), u8.Uint8Values()[:n*want]...)
	}
	if s.hnsw {
		g, err := s.readGraph(ctx, p, n)
		if err != nil {
			return nil, err
		}
		pt.graph = g
	}
	return pt, nil
}

// floats copies the first n values of a float array as float32.
func floats(a arrow.Array, n int) ([]float32, error) {
	if a.Len() < n {
		return nil, protoErr("vector values shorter than the rows")
	}
	out := make([]float32, n)
	switch v := a.(type) {
	case *array.Float32:
		copy(out, v.Float32Values()[:n])
	case *array.Float64:
		for i, x := range v.Float64Values()[:n] {
			out[i] = float32(x)
		}
	case *array.Float16:
		for i, x := range v.Values()[:n] {
			out[i] = float16.Num.Float32(x)
		}
	default:
		return nil, fmt.Errorf("%w: vectors of type %s", ErrUnsupported, a.DataType())
	}
	return out, nil
}

func (s *segment) readGraph(ctx context.Context, p, n int) (*graph, error) {
	hm := s.hnswMeta[p]
	rows := int(s.idxLengths[p])
	if len(hm.LevelOffsets) < 2 || hm.LevelOffsets[0] != 0 || hm.LevelOffsets[len(hm.LevelOffsets)-1] > rows {
		return nil, protoErr(fmt.Sprintf("HNSW level offsets %v do not span the partition's %d graph rows", hm.LevelOffsets, rows))
	}
	start := s.idxOffsets[p]
	rec, err := s.idx.ReadRange(ctx, s.idxIDs, start, start+uint64(rows))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	vid, ok1 := rec.Column(0).(*array.Uint32)
	nb, ok2 := rec.Column(1).(*array.List)
	if !ok1 || !ok2 || vid.Len() != rows {
		return nil, protoErr("HNSW columns of the wrong type")
	}
	items, ok := nb.ListValues().(*array.Uint32)
	if !ok {
		return nil, protoErr("HNSW neighbours are not uint32")
	}
	offs := nb.Offsets()
	// The reference slices levels by level_offsets and ignores rows past
	// the last offset (its level counts can trail the rows it wrote); so
	// do we, to walk the same graph.
	g := &graph{bottom: make([][]uint32, n), levels: make([]map[uint32][]uint32, len(hm.LevelOffsets)-1)}
	for l := 0; l+1 < len(hm.LevelOffsets); l++ {
		lo, hi := hm.LevelOffsets[l], hm.LevelOffsets[l+1]
		if lo > hi || hi > rows {
			return nil, protoErr("HNSW level offsets out of order")
		}
		if l > 0 {
			g.levels[l] = map[uint32][]uint32{}
		}
		for r := lo; r < hi; r++ {
			id := vid.Value(r)
			if int(id) >= n {
				return nil, protoErr("HNSW node id past the partition")
			}
			a, b := int(offs[r]), int(offs[r+1])
			if a < 0 || a > b || b > items.Len() {
				return nil, protoErr("HNSW neighbour offsets out of range")
			}
			nbrs := append([]uint32(nil), items.Uint32Values()[a:b]...)
			for _, x := range nbrs {
				if int(x) >= n {
					return nil, protoErr("HNSW neighbour past the partition")
				}
			}
			if l == 0 {
				g.bottom[id] = nbrs
			} else {
				g.levels[l][id] = nbrs
			}
		}
	}
	return g, nil
}

var _ = math.Inf
