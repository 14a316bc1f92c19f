package inverted

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// ErrCorrupt reports index files that do not decode as the reference's.
var ErrCorrupt = errors.New("inverted index: corrupt")

// ErrUnsupported reports an index layout or setting lancecat cannot read.
var ErrUnsupported = errors.New("inverted index: unsupported")

// File names and columns of the reference's layout.
const (
	metadataFile = "metadata.lance"
	colPosting   = "_posting"
	colMaxScore  = "_max_score"
	colLength    = "_length"
	colPosition  = "_position"
	colRowID     = "_rowid"
	colNumTokens = "_num_tokens"
	colToken     = "_token"
	colTokenID   = "_token_id"
	colFST       = "_token_fst_bytes"
	colDeleted   = "deleted_fragments"
)

func tokensFile(id uint64) string { return fmt.Sprintf("part_%d_tokens.lance", id) }
func invertFile(id uint64) string { return fmt.Sprintf("part_%d_invert.lance", id) }
func docsFile(id uint64) string   { return fmt.Sprintf("part_%d_docs.lance", id) }

// maxPartitions bounds the partition list of a metadata file.
const maxPartitions = 1 << 16

// Index is an opened INVERTED index segment bound to one dataset version
// (for its live rows). It is safe for concurrent searches.
type Index struct {
	Meta *dataset.IndexMetadata
	*segment

	ds      *dataset.Dataset
	delMu   sync.Mutex
	deleted map[uint64]*roaring.Bitmap // per fragment: deleted offsets
	live    map[uint64]*dataset.Fragment
}

// segment is what an index's files hold, which never changes once they
// are written: the tokenizer, each partition's token map, posting lengths
// and docs, and the posting lists decoded so far. Every version of the
// dataset the index belongs to shares it.
type segment struct {
	Params tokenize.Params
	// TokenSetFormat is "fst" or "arrow"; TailCodec the posting tail codec.
	TokenSetFormat, TailCodec string

	an           *tokenize.Analyzer
	parts        []*partition
	numDocs      uint64
	totalTokens  uint64
	deletedFrags *roaring.Bitmap

	postings postingCache
	scratch  chan *scoreScratch // accumulators for the next searches
}

type partition struct {
	id        uint64
	index     int // position in segment.parts (the posting cache's key)
	tokens    tokenMap
	invert    *lancefile.Reader
	postingID int32
	posID     int32 // -1 without positions
	lengths   []uint32
	rowAddrs  []uint64
	numTokens []uint32

	normsOnce sync.Once
	norms     []float32 // see segment.norms
}

type tokenMap interface {
	get(tok string) (uint32, bool, error)
	prefix(p string, fn func(tok string, id uint32) error) error
}

// Open loads the index segment m of ds: metadata, token maps and docs of
// every partition (posting lists are read per query term).
func Open(ctx context.Context, ds *dataset.Dataset, m *dataset.IndexMetadata) (*Index, error) {
	seg, err := loadSegment(ctx, ds, m)
	if err != nil {
		return nil, err
	}
	return seg.bind(ds, m), nil
}

// bind makes the segment an Index of dataset version ds.
func (seg *segment) bind(ds *dataset.Dataset, m *dataset.IndexMetadata) *Index {
	ix := &Index{Meta: m, segment: seg, ds: ds, deleted: map[uint64]*roaring.Bitmap{}, live: map[uint64]*dataset.Fragment{}}
	for _, f := range ds.Fragments() {
		ix.live[f.ID] = f
	}
	return ix
}

func loadSegment(ctx context.Context, ds *dataset.Dataset, m *dataset.IndexMetadata) (*segment, error) {
	if m.BaseID != nil {
		return nil, fmt.Errorf("%w: index %q lives in another base path", ErrUnsupported, m.Name)
	}
	dir := path.Join(ds.Dir(), "_indices", m.UUID)
	sizes := map[string]int64{}
	for _, f := range m.Files {
		sizes[f.Path] = int64(f.SizeBytes)
	}
	open := func(name string) (*lancefile.Reader, error) {
		return openFile(ctx, ds.Store(), path.Join(dir, name), sizes[name])
	}
	ix := &segment{postings: newPostingCache(postingCacheBytes), scratch: make(chan *scoreScratch, keptScratch)}
	md, err := open(metadataFile)
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, fmt.Errorf("%w: index %q has no %s (a legacy single-partition FTS index; rebuild it)", ErrUnsupported, m.Name, metadataFile)
		}
		return nil, err
	}
	meta := md.Schema().Metadata
	if ix.Params, err = tokenize.ParseParams(meta["params"]); err != nil {
		return nil, fmt.Errorf("%w: index %q: %v", ErrCorrupt, m.Name, err)
	}
	if ix.an, err = tokenize.New(ix.Params); err != nil {
		return nil, fmt.Errorf("index %q: %w", m.Name, err)
	}
	var ids []uint64
	if len(meta["partitions"]) > 20*maxPartitions {
		return nil, corrupt("index %q: partition list of %d bytes", m.Name, len(meta["partitions"]))
	}
	if err := json.Unmarshal([]byte(meta["partitions"]), &ids); err != nil || len(ids) > maxPartitions {
		return nil, corrupt("index %q: partitions %q", m.Name, meta["partitions"])
	}
	ix.TokenSetFormat = strings.TrimSpace(meta["token_set_format"])
	if ix.TokenSetFormat == "" {
		ix.TokenSetFormat = "arrow"
	}
	if ix.TokenSetFormat != "arrow" && ix.TokenSetFormat != "fst" {
		return nil, fmt.Errorf("%w: token set format %q", ErrUnsupported, ix.TokenSetFormat)
	}
	ix.TailCodec = meta["posting_tail_codec"]
	if ix.TailCodec == "" {
		ix.TailCodec = "fixed32_v1"
	}
	if ix.TailCodec != "fixed32_v1" {
		return nil, fmt.Errorf("%w: posting tail codec %q", ErrUnsupported, ix.TailCodec)
	}
	if ix.deletedFrags, err = readDeletedFragments(ctx, md); err != nil {
		return nil, fmt.Errorf("index %q: %w", m.Name, err)
	}
	for _, id := range ids {
		p, err := ix.openPartition(ctx, id, open)
		if err != nil {
			return nil, fmt.Errorf("index %q partition %d: %w", m.Name, id, err)
		}
		p.index = len(ix.parts)
		ix.parts = append(ix.parts, p)
		ix.numDocs += uint64(len(p.rowAddrs))
		for _, n := range p.numTokens {
			ix.totalTokens += uint64(n)
		}
	}
	return ix, nil
}

func openFile(ctx context.Context, store storage.Store, p string, size int64) (*lancefile.Reader, error) {
	src, err := lancefile.NewStoreSource(ctx, store, p, size)
	if err != nil {
		return nil, fmt.Errorf("index file %s: %w", p, err)
	}
	r, err := lancefile.Open(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("index file %s: %w", p, err)
	}
	return r, nil
}

func fieldID(s *lanceschema.Schema, name string) (int32, bool) {
	f := s.Field(name)
	if f == nil {
		return -1, false
	}
	return f.ID, true
}

func readAll(ctx context.Context, r *lancefile.Reader, names ...string) (arrow.Record, error) {
	ids := make([]int32, len(names))
	for i, n := range names {
		id, ok := fieldID(r.Schema(), n)
		if !ok {
			return nil, corrupt("file has no column %q", n)
		}
		ids[i] = id
	}
	rec, err := r.ReadRange(ctx, ids, 0, r.NumRows())
	if err != nil {
		return nil, err
	}
	if uint64(rec.NumRows()) != r.NumRows() || int(rec.NumCols()) != len(ids) {
		rec.Release()
		return nil, corrupt("read of %d rows returned %d", r.NumRows(), rec.NumRows())
	}
	return rec, nil
}

func readDeletedFragments(ctx context.Context, md *lancefile.Reader) (*roaring.Bitmap, error) {
	bm := roaring.New()
	if _, ok := fieldID(md.Schema(), colDeleted); !ok || md.NumRows() == 0 {
		return bm, nil
	}
	rec, err := readAll(ctx, md, colDeleted)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	col, ok := rec.Column(0).(*array.Binary)
	if !ok {
		return nil, corrupt("%s of type %s", colDeleted, rec.Column(0).DataType())
	}
	for i := 0; i < col.Len(); i++ {
		if col.IsNull(i) {
			continue
		}
		one, err := decodeRoaring(col.Value(i))
		if err != nil {
			return nil, err
		}
		bm.Or(one)
	}
	return bm, nil
}

// decodeRoaring decodes a portable roaring bitmap after checking its
// container count against the bytes (roaring trusts the header).
func decodeRoaring(b []byte) (bm *roaring.Bitmap, err error) {
	if len(b) < 8 {
		return nil, corrupt("deleted fragments bitmap of %d bytes", len(b))
	}
	cookie := binary.LittleEndian.Uint32(b)
	var n uint32
	switch {
	case cookie == 12346:
		n = binary.LittleEndian.Uint32(b[4:])
	case cookie&0xffff == 12347:
		n = cookie>>16 + 1
	default:
		return nil, corrupt("deleted fragments bitmap cookie %#x", cookie)
	}
	if uint64(n)*4 > uint64(len(b)) {
		return nil, corrupt("deleted fragments bitmap: %d containers in %d bytes", n, len(b))
	}
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, corrupt("deleted fragments bitmap: %v", r)
		}
	}()
	bm = roaring.New()
	if _, err := bm.FromBuffer(append([]byte(nil), b...)); err != nil {
		return nil, corrupt("deleted fragments bitmap: %v", err)
	}
	return bm.Clone(), nil
}

func (ix *segment) openPartition(ctx context.Context, id uint64, open func(string) (*lancefile.Reader, error)) (*partition, error) {
	p := &partition{id: id, posID: -1}
	tr, err := open(tokensFile(id))
	if err != nil {
		return nil, err
	}
	if ix.TokenSetFormat == "fst" {
		p.tokens, err = loadFSTTokens(ctx, tr)
	} else {
		p.tokens, err = loadArrowTokens(ctx, tr)
	}
	if err != nil {
		return nil, err
	}
	if p.invert, err = open(invertFile(id)); err != nil {
		return nil, err
	}
	s := p.invert.Schema()
	var ok bool
	if p.postingID, ok = fieldID(s, colPosting); !ok {
		return nil, fmt.Errorf("%w: %s has no %s column (legacy posting layout)", ErrUnsupported, invertFile(id), colPosting)
	}
	if pid, ok := fieldID(s, colPosition); ok {
		f := s.Field(colPosition)
		if f.LogicalType != "list" || len(f.Children) != 1 || f.Children[0].LogicalType != "list" {
			return nil, fmt.Errorf("%w: %s positions of type %s (shared position stream)", ErrUnsupported, invertFile(id), f.LogicalType)
		}
		p.posID = pid
	}
	lens, err := readAll(ctx, p.invert, colLength)
	if err != nil {
		return nil, err
	}
	lc, ok := lens.Column(0).(*array.Uint32)
	if !ok {
		lens.Release()
		return nil, corrupt("%s of type %s", colLength, lens.Column(0).DataType())
	}
	p.lengths = append([]uint32(nil), lc.Uint32Values()...)
	lens.Release()

	dr, err := open(docsFile(id))
	if err != nil {
		return nil, err
	}
	docs, err := readAll(ctx, dr, colRowID, colNumTokens)
	if err != nil {
		return nil, err
	}
	defer docs.Release()
	rc, ok1 := docs.Column(0).(*array.Uint64)
	nc, ok2 := docs.Column(1).(*array.Uint32)
	if !ok1 || !ok2 {
		return nil, corrupt("docs columns of types %s, %s", docs.Column(0).DataType(), docs.Column(1).DataType())
	}
	p.rowAddrs = append([]uint64(nil), rc.Uint64Values()...)
	p.numTokens = append([]uint32(nil), nc.Uint32Values()...)
	return p, nil
}

type hashTokens map[string]uint32

func (h hashTokens) get(t string) (uint32, bool, error) { id, ok := h[t]; return id, ok, nil }
func (h hashTokens) prefix(pf string, fn func(string, uint32) error) error {
	for t, id := range h {
		if strings.HasPrefix(t, pf) {
			if err := fn(t, id); err != nil {
				return err
			}
		}
	}
	return nil
}

func loadArrowTokens(ctx context.Context, r *lancefile.Reader) (tokenMap, error) {
	rec, err := readAll(ctx, r, colToken, colTokenID)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	tc, ok1 := rec.Column(0).(*array.String)
	ic, ok2 := rec.Column(1).(*array.Uint32)
	if !ok1 || !ok2 {
		return nil, corrupt("token columns of types %s, %s", rec.Column(0).DataType(), rec.Column(1).DataType())
	}
	m := make(hashTokens, tc.Len())
	for i := 0; i < tc.Len(); i++ {
		m[tc.Value(i)] = ic.Value(i)
	}
	return m, nil
}

type fstTokens struct{ f *fstMap }

func (t fstTokens) get(tok string) (uint32, bool, error) {
	v, ok, err := t.f.get([]byte(tok))
	if err != nil || !ok {
		return 0, ok, err
	}
	if v > math.MaxUint32 {
		return 0, false, corrupt("token id %d", v)
	}
	return uint32(v), true, nil
}

func (t fstTokens) prefix(pf string, fn func(string, uint32) error) error {
	return t.f.each([]byte(pf), func(k []byte, v uint64) error {
		if v > math.MaxUint32 {
			return corrupt("token id %d", v)
		}
		return fn(string(k), uint32(v))
	})
}

func loadFSTTokens(ctx context.Context, r *lancefile.Reader) (tokenMap, error) {
	rec, err := readAll(ctx, r, colFST)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	c, ok := rec.Column(0).(*array.LargeBinary)
	if !ok || c.Len() != 1 {
		return nil, corrupt("%s of type %s, %d rows", colFST, rec.Column(0).DataType(), rec.Column(0).Len())
	}
	f, err := openFST(append([]byte(nil), c.Value(0)...))
	if err != nil {
		return nil, err
	}
	return fstTokens{f}, nil
}

// NumDocs is the number of documents the index holds (deleted ones
// included, as the reference counts them for BM25).
func (ix *Index) NumDocs() uint64 { return ix.numDocs }

// Partitions is the number of partitions.
func (ix *Index) Partitions() int { return len(ix.parts) }

// HasPositions reports whether phrase queries can be answered.
func (ix *Index) HasPositions() bool {
	for _, p := range ix.parts {
		if p.posID < 0 {
			return false
		}
	}
	return len(ix.parts) > 0
}

// Analyzer is the tokenizer of the index (queries are tokenized with it).
func (ix *Index) Analyzer() *tokenize.Analyzer { return ix.an }

// Covers reports whether the index covers fragment id.
func (ix *Index) Covers(frag uint64) bool {
	return ix.Meta.FragmentBitmap != nil && frag <= math.MaxUint32 && ix.Meta.FragmentBitmap.Contains(uint32(frag)) && !ix.deletedFrags.Contains(uint32(frag))
}

// Uncovered lists the dataset's fragments (in manifest order) the index
// does not cover.
func (ix *Index) Uncovered() []uint64 {
	var out []uint64
	for _, f := range ix.ds.Fragments() {
		if !ix.Covers(f.ID) {
			out = append(out, f.ID)
		}
	}
	return out
}

// isLive reports whether the row at addr exists in the dataset version.
func (ix *Index) isLive(ctx context.Context, addr uint64) (bool, error) {
	frag := addr >> 32
	f, ok := ix.live[frag]
	if !ok || ix.deletedFrags.Contains(uint32(frag)) {
		return false, nil
	}
	if uint64(uint32(addr)) >= f.PhysicalRows {
		return false, nil
	}
	if f.Deletion == nil {
		return true, nil
	}
	ix.delMu.Lock()
	bm, ok := ix.deleted[frag]
	ix.delMu.Unlock()
	if !ok {
		var err error
		if bm, err = ix.ds.DeletedOffsets(ctx, frag); err != nil {
			return false, fmt.Errorf("deleted rows of fragment %d: %w", frag, err)
		}
		ix.delMu.Lock()
		ix.deleted[frag] = bm
		ix.delMu.Unlock()
	}
	return !bm.Contains(uint32(addr)), nil
}
