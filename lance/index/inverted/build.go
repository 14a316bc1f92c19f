package inverted

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// DetailsTypeURL is the index_details type of an INVERTED index.
const DetailsTypeURL = "/lance.table.InvertedIndexDetails"

// BuildOptions name the index and say where its build spills.
type BuildOptions struct {
	Name string // default <column>_idx
	UUID string // default a new one
	// SpillArea holds the build's spilled postings (default: the system's
	// temporary directory).
	SpillArea SpillArea
}

// BuildMemoryBytes is about how many bytes of postings, positions, tokens
// and documents Build holds before it spills the postings to a temporary
// file, as the reference's builder spills a partition at
// LANCE_FTS_PARTITION_SIZE (256 MiB); the spills are merged into one
// partition at the end, as the reference merges its partitions up to
// LANCE_FTS_TARGET_SIZE (4 GiB). A variable so that the tests can spill
// many times from a few rows.
var BuildMemoryBytes = 256 << 20

// Build writes an INVERTED index of column over the live rows of ds in the
// reference's layout (token set format "arrow", fixed32 posting tails,
// per-document positions when p.WithPosition) as one partition, holding
// about BuildMemoryBytes of postings at a time (see indexBuilder). It
// returns the index metadata for Dataset.CommitIndices.
//
// One partition, not one per spill: the reference's search over several
// partitions picks each one's top k by the partition's own statistics and
// drops a partition's absent terms from an AND, so the results would
// depend on where the spills fell.
func Build(ctx context.Context, ds *dataset.Dataset, column string, p tokenize.Params, opts BuildOptions) (*dataset.IndexMetadata, error) {
	f := ds.Schema().Field(column)
	if f == nil {
		return nil, fmt.Errorf("%w: no column %q", ErrUnsupported, column)
	}
	if f.LogicalType != "string" && f.LogicalType != "large_string" {
		return nil, fmt.Errorf("%w: a full-text index on a %s column (needs text)", ErrUnsupported, f.LogicalType)
	}
	text := "text"
	p.LanceTokenizer = &text
	an, err := tokenize.New(p)
	if err != nil {
		return nil, err
	}
	frags := roaring.New()
	for _, fr := range ds.Fragments() {
		if fr.HasRowIDs {
			return nil, fmt.Errorf("%w: dataset %s uses stable row ids", ErrUnsupported, ds.URI())
		}
		frags.Add(uint32(fr.ID))
	}
	name := opts.Name
	if name == "" {
		name = column + "_idx"
	}
	id := opts.UUID
	if id == "" {
		id = uuid.NewString()
	}
	one := int32(1)
	now := time.Now().UTC().Truncate(time.Millisecond)
	meta := &dataset.IndexMetadata{UUID: id, Fields: []int32{f.ID}, Name: name, DatasetVersion: ds.Version(),
		FragmentBitmap: frags, DetailsTypeURL: DetailsTypeURL, Details: detailsProto(p), IndexVersion: &one, CreatedAt: &now}
	dir := path.Join(ds.Dir(), "_indices", id)
	// put writes one index file as soon as it is encoded, so that no more
	// than one file's bytes are held at a time.
	put := func(k string, data []byte) error {
		if err := storage.PutDeferred(ctx, ds.Store(), path.Join(dir, k), data); err != nil {
			return fmt.Errorf("write index file %s: %w", k, err)
		}
		meta.Files = append(meta.Files, dataset.IndexFile{Path: k, SizeBytes: uint64(len(data))})
		return nil
	}
	// putStream writes one index file as write encodes it, for the files
	// that grow with the corpus (the invert file is the largest: 444 MiB
	// at 1,000,000 documents, which a buffer would hold twice over while
	// it grows).
	putStream := func(k string, schema *arrow.Schema, write func(*fileStream) error) error {
		ow, err := storage.CreateDeferred(ctx, ds.Store(), path.Join(dir, k))
		if err != nil {
			return fmt.Errorf("write index file %s: %w", k, err)
		}
		fs, err := newFileStream(schema, nil, ow)
		if err == nil {
			err = write(fs)
		}
		if err == nil {
			err = fs.finish(ctx)
		}
		if err != nil {
			ow.Abort()
			return err
		}
		if err := ow.Commit(); err != nil {
			return fmt.Errorf("write index file %s: %w", k, err)
		}
		meta.Files = append(meta.Files, dataset.IndexFile{Path: k, SizeBytes: uint64(fs.size())})
		return nil
	}

	b := &indexBuilder{withPosition: p.WithPosition, tokenID: map[string]uint32{}, area: opts.SpillArea}
	if b.area == nil {
		b.area = tempDirArea{}
	}
	// The spills are scratch: gone whether the build succeeds or not.
	defer b.removeSpills()
	// wordToken caches, per word as the base tokenizer cuts it, its token's
	// id after the filter chain (stemming above all; ok false: dropped), so
	// that the filters and the token lookup run once per distinct word, not
	// once per occurrence. Its bytes count against the budget too; it is
	// dropped at a spill once it holds a quarter of it.
	type cachedWord struct {
		tid uint32
		ok  bool
	}
	wordToken := map[string]*cachedWord{}
	wordBytes := 0
	const maxWords = 1 << 21
	err = ds.Scan(ctx, dataset.ScanOptions{Columns: []string{column}, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		addrs := rec.Column(1).(*array.Uint64)
		col := rec.Column(0)
		for i := 0; i < int(rec.NumRows()); i++ {
			if !col.IsValid(i) {
				continue
			}
			var s string
			switch c := col.(type) {
			case *array.String:
				s = c.Value(i)
			case *array.LargeString:
				s = c.Value(i)
			default:
				return fmt.Errorf("%w: column of type %s", ErrUnsupported, col.DataType())
			}
			if len(b.rowAddrs) == math.MaxUint32 {
				return fmt.Errorf("%w: more than %d documents in one partition", ErrUnsupported, math.MaxUint32)
			}
			doc := b.addDoc(addrs.Value(i))
			var kept uint32
			an.Words(s, func(w string, pos int) {
				cw := wordToken[w]
				if cw == nil {
					cw = &cachedWord{}
					if t, ok := an.Filter(w); ok {
						cw.tid, cw.ok = b.token(t), true
					}
					if len(wordToken) < maxWords {
						// w may point into the batch's buffer: keep a copy
						wordToken[strings.Clone(w)] = cw
						wordBytes += 2*len(w) + cachedWordBytes
					}
				}
				if !cw.ok {
					return // a stop word, or too long
				}
				kept++
				b.add(cw.tid, doc, uint32(pos))
			})
			b.numTokens = append(b.numTokens, kept)
			// The lists spill once they and what stays (tokens, documents,
			// word cache) fill the budget, but never below a quarter of it:
			// past a budget of tokens and documents (billions of documents,
			// millions of distinct tokens) the spills would be tiny.
			if b.postBytes >= max(BuildMemoryBytes-b.retained-wordBytes, BuildMemoryBytes/4) {
				if err := b.spill(ctx); err != nil {
					return err
				}
				if wordBytes > BuildMemoryBytes/4 {
					wordToken, wordBytes = map[string]*cachedWord{}, 0
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	wordToken = nil
	if err := b.write(ctx, put, putStream); err != nil {
		return nil, err
	}
	// Metadata.
	empty, err := roaring.New().ToBytes()
	if err != nil {
		return nil, err
	}
	mem := memory.NewGoAllocator()
	db := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	db.Append(empty)
	mdSchema := arrow.NewSchema([]arrow.Field{{Name: colDeleted, Type: arrow.BinaryTypes.Binary}}, nil)
	md := map[string]string{"params": p.JSON(), "partitions": "[0]", "token_set_format": "arrow", "posting_tail_codec": "fixed32_v1"}
	data, err := writeFile(ctx, mdSchema, md, db)
	if err != nil {
		return nil, err
	}
	if err := put(metadataFile, data); err != nil {
		return nil, err
	}
	slices.SortFunc(meta.Files, func(a, b dataset.IndexFile) int { return strings.Compare(a.Path, b.Path) })
	return meta, nil
}

// onSpill, when set (by tests), is told of every spill (numbered from 0)
// once it is written; an error it returns fails the build.
var onSpill func(spill int) error

// Estimated heap bytes of the builder's entries beyond their slices'
// backing arrays: a cached word (map entry, pointer, struct), a token
// (map entry, string header in the map and in the token list), a posting
// list being built (struct and pointer).
const (
	cachedWordBytes = 96
	tokenBytes      = 96
	postBytes       = 80
)

// post is a posting list being built: its documents in order, each one's
// frequency and, with positions, every document's positions one after the
// other (a document has as many as its frequency): one flat slice instead
// of one per (token, document) keeps a large build's heap and allocations
// small.
type post struct {
	docs, freqs []uint32
	pos         []uint32
}

// indexBuilder accumulates the index's one partition: its tokens (ids in
// first-seen order), its documents (ids in scan order) and the posting
// lists of the documents since the last spill. When those fill the budget
// they are written to a spill file in token id order and dropped; write
// reads the spill files back in one pass each, token by token, next to
// the lists still in memory, so that the partition's files are the ones a
// build holding everything in memory writes.
type indexBuilder struct {
	withPosition bool
	tokenID      map[string]uint32
	tokens       []string
	rowAddrs     []uint64
	numTokens    []uint32
	// posts[tid] is token tid's list since the last spill (nil: none).
	posts []*post
	// retained is the bytes of what a spill keeps (the tokens, the
	// documents, the posts slice), postBytes those of the lists it drops.
	retained, postBytes int

	area    SpillArea
	spillTo string // the area's directory, once acquired
	spills  []*spillFile
	scratch []byte
	blk     [blockSize]uint32
}

// grown is the bytes a slice of elem-byte values took on by an append that
// moved it from capacity before to after.
func grown(before, after, elem int) int { return (after - before) * elem }

func (b *indexBuilder) addDoc(addr uint64) uint32 {
	doc := uint32(len(b.rowAddrs))
	c1, c2 := cap(b.rowAddrs), cap(b.numTokens)
	b.rowAddrs = append(b.rowAddrs, addr)
	// numTokens is appended once the document's words are counted; grow it
	// here so that its bytes are counted with the row address.
	b.numTokens = slices.Grow(b.numTokens, 1)
	b.retained += grown(c1, cap(b.rowAddrs), 8) + grown(c2, cap(b.numTokens), 4)
	return doc
}

// token is the id of token t, new ones appended.
func (b *indexBuilder) token(t string) uint32 {
	if tid, ok := b.tokenID[t]; ok {
		return tid
	}
	t = strings.Clone(t) // not a view of the batch
	tid := uint32(len(b.tokens))
	b.tokenID[t] = tid
	b.tokens = append(b.tokens, t)
	c := cap(b.posts)
	b.posts = append(b.posts, nil)
	b.retained += len(t) + tokenBytes + grown(c, cap(b.posts), 8)
	return tid
}

// add records one occurrence of token tid at position pos of document doc
// (documents come in order).
func (b *indexBuilder) add(tid, doc, pos uint32) {
	pl := b.posts[tid]
	if pl == nil {
		pl = &post{}
		b.posts[tid] = pl
		b.postBytes += postBytes
	}
	if n := len(pl.docs); n == 0 || pl.docs[n-1] != doc {
		c1, c2 := cap(pl.docs), cap(pl.freqs)
		pl.docs = append(pl.docs, doc)
		pl.freqs = append(pl.freqs, 0)
		b.postBytes += grown(c1, cap(pl.docs), 4) + grown(c2, cap(pl.freqs), 4)
	}
	pl.freqs[len(pl.freqs)-1]++
	if b.withPosition {
		c := cap(pl.pos)
		pl.pos = append(pl.pos, pos)
		b.postBytes += grown(c, cap(pl.pos), 4)
	}
}

// encodePositions is pl's positions as the index stores them, in the
// builder's scratch buffer (valid until the next call).
func (b *indexBuilder) encodePositions(pl *post) []byte {
	out := b.scratch[:0]
	off := 0
	for _, f := range pl.freqs {
		out = appendDocPositions(out, pl.pos[off:off+int(f)], &b.blk)
		off += int(f)
	}
	b.scratch = out
	return out
}

// spill writes the posting lists in memory to a new spill file, in token
// id order, and drops them.
func (b *indexBuilder) spill(ctx context.Context) error {
	if b.spillTo == "" {
		dir, err := b.area.Acquire()
		if err != nil {
			return fmt.Errorf("full-text index spill: %w", err)
		}
		b.spillTo = dir
	}
	sf, err := createSpill(b.spillTo)
	if err != nil {
		return err
	}
	b.spills = append(b.spills, sf)
	for tid, pl := range b.posts {
		if pl == nil {
			continue
		}
		if tid%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var pos []byte
		if b.withPosition {
			pos = b.encodePositions(pl)
		}
		sf.writePosting(uint32(tid), pl.docs, pl.freqs, pos, b.withPosition)
		b.posts[tid] = nil
	}
	if err := sf.finish(); err != nil {
		return err
	}
	b.postBytes = 0
	if cap(b.scratch) > spillBufferBytes {
		b.scratch = nil
	}
	if onSpill != nil {
		return onSpill(len(b.spills) - 1)
	}
	return nil
}

// removeSpills deletes the spill files and releases their area.
func (b *indexBuilder) removeSpills() {
	for _, sf := range b.spills {
		sf.remove()
	}
	b.spills = nil
	if b.spillTo != "" {
		b.area.Release()
		b.spillTo = ""
	}
}

// write encodes the partition as partition 0's tokens, invert and docs
// files, as the reference lays a partition out, and hands each to put.
// The block max scores use the partition's statistics (its documents'
// count and average length), as the reference's partition builder does.
func (b *indexBuilder) write(ctx context.Context, put func(string, []byte) error, putStream func(string, *arrow.Schema, func(*fileStream) error) error) error {
	const pid = 0
	// Tokens, sorted by text as the reference writes an Arrow token set.
	order := make([]int, len(b.tokens))
	for i := range order {
		order[i] = i
	}
	tokens := b.tokens
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(tokens[x], tokens[y]) })
	mem := memory.NewGoAllocator()
	tb := array.NewStringBuilder(mem)
	ib := array.NewUint32Builder(mem)
	for _, i := range order {
		tb.Append(tokens[i])
		ib.Append(uint32(i))
	}
	tokSchema := arrow.NewSchema([]arrow.Field{{Name: colToken, Type: arrow.BinaryTypes.String}, {Name: colTokenID, Type: arrow.PrimitiveTypes.Uint32}}, nil)
	data, err := writeFile(ctx, tokSchema, nil, tb, ib)
	if err != nil {
		return err
	}
	if err := put(tokensFile(pid), data); err != nil {
		return err
	}
	data, order = nil, nil
	// The token map is done with: release it before the posting lists are
	// merged.
	b.tokenID = nil

	// Each spill is read in one pass: its records are in token id order,
	// as the lists are written, and a token's documents are those of the
	// spills in order and then of the lists still in memory.
	readers := make([]*spillReader, len(b.spills))
	for i, sf := range b.spills {
		if readers[i], err = sf.reader(uint64(len(b.rowAddrs))); err != nil {
			return err
		}
	}
	var m mergedPosting
	postOf := func(tid int) (*mergedPosting, error) {
		m.reset()
		for _, r := range readers {
			if r.next == int64(tid) {
				if err := r.appendPosting(&m, b.withPosition); err != nil {
					return nil, err
				}
			}
		}
		if pl := b.posts[tid]; pl != nil {
			m.docs = append(m.docs, pl.docs...)
			m.freqs = append(m.freqs, pl.freqs...)
			if b.withPosition {
				m.pos = append(m.pos, b.encodePositions(pl)...)
			}
			b.posts[tid] = nil
		}
		if len(m.docs) == 0 {
			return nil, corrupt("token %d in no document", tid)
		}
		return &m, nil
	}
	err = putStream(invertFile(pid), invertSchema(b.withPosition), func(fs *fileStream) error {
		if err := encodeInvert(ctx, fs, b.withPosition, len(b.tokens), postOf, b.numTokens); err != nil {
			return err
		}
		for _, r := range readers {
			if r.next >= 0 {
				return corrupt("spill %s: token %d of %d", r.name, r.next, len(b.tokens))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Docs, in batches of docsBatch rows.
	docSchema := arrow.NewSchema([]arrow.Field{{Name: colRowID, Type: arrow.PrimitiveTypes.Uint64}, {Name: colNumTokens, Type: arrow.PrimitiveTypes.Uint32}}, nil)
	return putStream(docsFile(pid), docSchema, func(fs *fileStream) error {
		rb := array.NewUint64Builder(mem)
		nb := array.NewUint32Builder(mem)
		for from := 0; from < len(b.rowAddrs); from += docsBatch {
			to := min(from+docsBatch, len(b.rowAddrs))
			rb.AppendValues(b.rowAddrs[from:to], nil)
			nb.AppendValues(b.numTokens[from:to], nil)
			if err := fs.write(ctx, rb, nb); err != nil {
				return err
			}
		}
		return nil
	})
}

// docsBatch is how many documents' rows the docs file is written in at a
// time.
const docsBatch = 1 << 16

// invertSchema is the invert file's schema.
func invertSchema(withPosition bool) *arrow.Schema {
	fields := []arrow.Field{
		{Name: colPosting, Type: arrow.ListOf(arrow.BinaryTypes.LargeBinary)},
		{Name: colMaxScore, Type: arrow.PrimitiveTypes.Float32},
		{Name: colLength, Type: arrow.PrimitiveTypes.Uint32},
	}
	if withPosition {
		fields = append(fields, arrow.Field{Name: colPosition, Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.LargeBinary))})
	}
	return arrow.NewSchema(fields, nil)
}

// encodeInvert encodes to inv (of invertSchema) the rows of numPosts
// posting lists (token id i's is postOf(i), asked once each in id order,
// valid until the next call) over documents of the given lengths.
func encodeInvert(ctx context.Context, inv *fileStream, withPosition bool, numPosts int, postOf func(tid int) (*mergedPosting, error), numTokens []uint32) error {
	var total uint64
	for _, n := range numTokens {
		total += uint64(n)
	}
	n := uint64(len(numTokens))
	avgdl := float32(total) / float32(n)
	mem := memory.NewGoAllocator()
	// Posting lists, one row per token id.
	plb := array.NewListBuilder(mem, arrow.BinaryTypes.LargeBinary)
	pv := plb.ValueBuilder().(*array.BinaryBuilder)
	mb := array.NewFloat32Builder(mem)
	lb := array.NewUint32Builder(mem)
	var posb *array.ListBuilder
	var posDoc *array.ListBuilder
	var posBlk *array.BinaryBuilder
	if withPosition {
		posb = array.NewListBuilder(mem, arrow.ListOf(arrow.BinaryTypes.LargeBinary))
		posDoc = posb.ValueBuilder().(*array.ListBuilder)
		posBlk = posDoc.ValueBuilder().(*array.BinaryBuilder)
	}
	builders := []array.Builder{plb, mb, lb}
	if withPosition {
		builders = append(builders, posb)
	}
	// The posting file is written in batches of about invertBatchBytes of
	// encoded lists and their offsets, and each token's raw list is dropped
	// once encoded: a single record of all lists would hold the whole file
	// three times over (builders, the writer's shredded copy, its pages)
	// next to the raw lists (11.7 GiB peak at 1,000,000 documents with
	// positions). The offsets count: a document's positions are a list of
	// values of a few bytes each, each with an 8-byte offset.
	pending := 0
	var blk [blockSize]uint32
	var b []byte // scratch: the builders copy what they are given
	appendBlk := func(v []byte) {
		posBlk.Append(v)
		pending += len(v) + 8
	}
	for tid := 0; tid < numPosts; tid++ {
		if tid%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		pl, err := postOf(tid)
		if err != nil {
			return err
		}
		idf := IDF(uint64(len(pl.docs)), n)
		plb.Append(true)
		var maxScore float32
		for start := 0; start < len(pl.docs); start += blockSize {
			end := min(start+blockSize, len(pl.docs))
			var bmax float32
			for i := start; i < end; i++ {
				bmax = max(bmax, idf*docWeight(pl.freqs[i], numTokens[pl.docs[i]], avgdl))
			}
			maxScore = max(maxScore, bmax)
			b = binary.LittleEndian.AppendUint32(b[:0], math.Float32bits(bmax))
			if end-start == blockSize {
				prev := pl.docs[start]
				for i := 0; i < blockSize; i++ {
					blk[i] = pl.docs[start+i] - prev
					prev = pl.docs[start+i]
				}
				nb := bitsFor(blk[:])
				b = binary.LittleEndian.AppendUint32(b, pl.docs[start])
				b = append(b, byte(nb))
				b = pack4x(b, &blk, nb)
				copy(blk[:], pl.freqs[start:end])
				nb = bitsFor(blk[:])
				b = append(b, byte(nb))
				b = pack4x(b, &blk, nb)
			} else {
				for i := start; i < end; i++ {
					b = binary.LittleEndian.AppendUint32(b, pl.docs[i])
				}
				for i := start; i < end; i++ {
					b = binary.LittleEndian.AppendUint32(b, pl.freqs[i])
				}
			}
			pv.Append(b)
			pending += len(b) + 8
		}
		mb.Append(maxScore)
		lb.Append(uint32(len(pl.docs)))
		if withPosition {
			// The positions are copied as they were encoded, one value of
			// the document's list per count, block and tail.
			posb.Append(true)
			rest := pl.pos
			for _, f := range pl.freqs {
				posDoc.Append(true)
				if rest, err = splitDocPositions(rest, f, appendBlk); err != nil {
					return err
				}
			}
			if len(rest) != 0 {
				return corrupt("positions of token %d: %d bytes left over", tid, len(rest))
			}
			pending += 4 * len(pl.freqs)
		}
		if pending >= invertBatchBytes {
			if err := inv.write(ctx, builders...); err != nil {
				return err
			}
			pending = 0
		}
	}
	if pending > 0 {
		return inv.write(ctx, builders...)
	}
	return nil
}

// CreateIndex builds and commits the index.
func CreateIndex(ctx context.Context, ds *dataset.Dataset, column string, p tokenize.Params, opts BuildOptions) (*dataset.Dataset, error) {
	meta, err := Build(ctx, ds, column, p, opts)
	if err != nil {
		return nil, err
	}
	return ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, nil)
}

// invertBatchBytes is about how many bytes of encoded posting lists Build
// gathers before it hands them to the file writer (a variable so that the
// tests can write a small index in many batches).
var invertBatchBytes = 4 << 20

// writeFile encodes one Lance file of the rows in builders.
func writeFile(ctx context.Context, schema *arrow.Schema, md map[string]string, builders ...array.Builder) ([]byte, error) {
	var buf bytes.Buffer
	fs, err := newFileStream(schema, md, &buf)
	if err != nil {
		return nil, err
	}
	if err := fs.write(ctx, builders...); err != nil {
		return nil, err
	}
	if err := fs.finish(ctx); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fileStream encodes one Lance file to a writer from several batches of
// rows, so that a large file is never assembled as one Arrow record, nor
// whole in memory when the writer is the store's.
type fileStream struct {
	schema *arrow.Schema
	out    *bufio.Writer
	n      countingWriter
	w      *lancefile.Writer
}

// countingWriter counts the bytes written to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// fileStreamBuffer is the write buffer between the Lance writer and the
// store (the writer writes a page's buffers one by one).
const fileStreamBuffer = 1 << 20

func newFileStream(schema *arrow.Schema, md map[string]string, w io.Writer) (*fileStream, error) {
	ls, err := lanceschema.FromArrow(schema)
	if err != nil {
		return nil, err
	}
	ls.Metadata = md
	fs := &fileStream{schema: schema, n: countingWriter{w: w}}
	fs.out = bufio.NewWriterSize(&fs.n, fileStreamBuffer)
	if fs.w, err = lancefile.NewWriter(fs.out, ls, lancefile.WriterOptions{}); err != nil {
		return nil, err
	}
	return fs, nil
}

// write appends the rows the builders hold (one builder a column) and
// resets them.
func (fs *fileStream) write(ctx context.Context, builders ...array.Builder) error {
	cols := make([]arrow.Array, len(builders))
	for i, b := range builders {
		cols[i] = b.NewArray()
		defer cols[i].Release()
	}
	rows := int64(0)
	if len(cols) > 0 {
		rows = int64(cols[0].Len())
	}
	if rows == 0 {
		return nil
	}
	rec := array.NewRecord(fs.schema, cols, rows)
	defer rec.Release()
	return fs.w.Write(ctx, rec)
}

// finish writes the file's footer and flushes it.
func (fs *fileStream) finish(ctx context.Context) error {
	if _, err := fs.w.Finish(ctx); err != nil {
		return err
	}
	return fs.out.Flush()
}

// size is the bytes written so far.
func (fs *fileStream) size() int64 { return fs.n.n }

// detailsProto encodes lance.table.InvertedIndexDetails (index_old.proto).
func detailsProto(p tokenize.Params) []byte {
	var b []byte
	str := func(n protowire.Number, s string) {
		b = protowire.AppendTag(b, n, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	boolean := func(n protowire.Number, v bool) {
		if v {
			b = protowire.AppendTag(b, n, protowire.VarintType)
			b = protowire.AppendVarint(b, 1)
		}
	}
	varint := func(n protowire.Number, v uint64) {
		b = protowire.AppendTag(b, n, protowire.VarintType)
		b = protowire.AppendVarint(b, v)
	}
	str(1, p.BaseTokenizer)
	str(2, `"`+p.Language+`"`)
	boolean(3, p.WithPosition)
	if p.MaxTokenLength != nil {
		varint(4, uint64(*p.MaxTokenLength))
	}
	boolean(5, p.LowerCase)
	boolean(6, p.Stem)
	boolean(7, p.RemoveStopWords)
	boolean(8, p.ASCIIFolding)
	if p.MinNgramLength != 0 {
		varint(9, uint64(p.MinNgramLength))
	}
	if p.MaxNgramLength != 0 {
		varint(10, uint64(p.MaxNgramLength))
	}
	boolean(11, p.PrefixOnly)
	return b
}
