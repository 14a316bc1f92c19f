package inverted

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
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

// BuildOptions name the index.
type BuildOptions struct {
	Name string // default <column>_idx
	UUID string // default a new one
}

// BuildMemoryBytes is about how many bytes of postings, positions, tokens
// and documents Build holds before it spills them as a partition and
// starts the next, as the reference's builder does at
// LANCE_FTS_PARTITION_SIZE (256 MiB); the spills are merged into one
// partition at the end, as the reference merges its partitions up to
// LANCE_FTS_TARGET_SIZE (4 GiB). A variable so that the tests can spill
// many partitions from a few rows.
var BuildMemoryBytes = 256 << 20

// Build writes an INVERTED index of column over the live rows of ds in the
// reference's layout (token set format "arrow", fixed32 posting tails,
// per-document positions when p.WithPosition) as one partition, holding
// about BuildMemoryBytes of postings at a time (see mergeSpills). It
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

	// wordToken caches, per word as the base tokenizer cuts it, its token
	// after the filter chain (stemming above all; ok false: dropped) and
	// its id in the partition being built (valid while gen is the
	// partition's), so that the filters and the token lookup run once per
	// distinct word, not once per occurrence. Its bytes count against the
	// budget too; it is dropped at a flush once it holds a quarter of it.
	type cachedWord struct {
		tok string
		ok  bool
		gen int
		tid uint32
	}
	wordToken := map[string]*cachedWord{}
	wordBytes := 0
	const maxWords = 1 << 21
	part := &partBuilder{tokenID: map[string]uint32{}}
	// A partition that fills the budget is spilled: written in the
	// reference's layout under spillPrefix, out of the index's file list,
	// and merged with the others into the index's one partition at the
	// end (see mergeSpills).
	spillSizes := map[string]int64{}
	var spills []uint64
	putSpill := func(k string, data []byte) error {
		if err := storage.PutDeferred(ctx, ds.Store(), path.Join(dir, spillPrefix+k), data); err != nil {
			return fmt.Errorf("write index spill file %s: %w", k, err)
		}
		spillSizes[k] = int64(len(data))
		return nil
	}
	defer func() {
		// The spills are scratch: gone whether the build succeeds or not.
		for k := range spillSizes {
			_ = ds.Store().Delete(ctx, path.Join(dir, spillPrefix+k))
		}
	}()
	gen := 0
	flush := func() error {
		pid := uint64(len(spills))
		if err := part.write(ctx, pid, p.WithPosition, putSpill); err != nil {
			return err
		}
		spills = append(spills, pid)
		if onSpill != nil {
			onSpill(pid)
		}
		part = &partBuilder{tokenID: map[string]uint32{}}
		gen++
		if wordBytes > BuildMemoryBytes/4 {
			wordToken, wordBytes = map[string]*cachedWord{}, 0
		}
		return nil
	}
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
			if len(part.rowAddrs) == math.MaxUint32 {
				return fmt.Errorf("%w: more than %d documents in one partition", ErrUnsupported, math.MaxUint32)
			}
			doc := part.addDoc(addrs.Value(i))
			var kept uint32
			an.Words(s, func(w string, pos int) {
				cw := wordToken[w]
				if cw == nil {
					cw = &cachedWord{gen: -1}
					if t, ok := an.Filter(w); ok {
						cw.tok, cw.ok = strings.Clone(t), true // not a view of the batch
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
				if cw.gen != gen {
					cw.tid, cw.gen = part.token(cw.tok), gen
				}
				kept++
				part.add(cw.tid, doc, uint32(pos), p.WithPosition)
			})
			part.numTokens = append(part.numTokens, kept)
			if part.bytes >= BuildMemoryBytes {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	wordToken = nil
	if len(spills) == 0 {
		// Everything fit the budget: the one partition is written directly
		// (an empty index has one of no documents).
		if err := part.write(ctx, 0, p.WithPosition, put); err != nil {
			return nil, err
		}
	} else {
		if len(part.rowAddrs) > 0 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		part = nil
		if err := mergeSpills(ctx, ds.Store(), dir, spills, spillSizes, p.WithPosition, put); err != nil {
			return nil, err
		}
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

// spillPrefix names a spilled partition's files in the index directory.
const spillPrefix = "spill_"

// onSpill, when set (by tests), is told of every spilled partition.
var onSpill func(partition uint64)

// mergeSpills merges the spilled partitions (ids in scan order, files
// under spillPrefix of the given sizes) into partition 0 of the index, one
// token's posting list at a time: the documents are the spills' in order,
// and the tokens take their ids in the order a one-partition build meets
// them (a spill's new tokens in its id order after the earlier spills'),
// so the files are the ones a single partition of the same rows would be.
// What it holds is the spills' token maps and documents, one merged list,
// and the encoded file being written.
func mergeSpills(ctx context.Context, store storage.Store, dir string, spills []uint64, sizes map[string]int64, withPosition bool, put func(string, []byte) error) error {
	seg := &segment{TokenSetFormat: "arrow"}
	open := func(name string) (*lancefile.Reader, error) {
		return openFile(ctx, store, path.Join(dir, spillPrefix+name), sizes[name])
	}
	parts := make([]*partition, len(spills))
	bases := make([]uint32, len(spills))
	var ndocs uint64
	for i, id := range spills {
		p, err := seg.openPartition(ctx, id, open)
		if err != nil {
			return fmt.Errorf("spilled partition %d: %w", id, err)
		}
		parts[i] = p
		bases[i] = uint32(ndocs)
		if ndocs += uint64(len(p.rowAddrs)); ndocs > math.MaxUint32 {
			return fmt.Errorf("%w: more than %d documents in one partition", ErrUnsupported, math.MaxUint32)
		}
	}
	rowAddrs := make([]uint64, 0, ndocs)
	numTokens := make([]uint32, 0, ndocs)
	seen := map[string]bool{}
	var tokens []string
	for _, p := range parts {
		// The partition's docs become views of the merged ones (its
		// posting lists are checked against their count).
		from := len(rowAddrs)
		rowAddrs = append(rowAddrs, p.rowAddrs...)
		numTokens = append(numTokens, p.numTokens...)
		p.rowAddrs, p.numTokens = rowAddrs[from:len(rowAddrs):len(rowAddrs)], numTokens[from:len(numTokens):len(numTokens)]
		m, ok := p.tokens.(hashTokens)
		if !ok {
			return fmt.Errorf("spilled partition %d: token set of type %T", p.id, p.tokens)
		}
		byID := make([]string, len(m))
		for t, id := range m {
			if int(id) >= len(byID) {
				return corrupt("spilled partition %d: token id %d of %d", p.id, id, len(m))
			}
			byID[id] = t
		}
		for _, t := range byID {
			if !seen[t] {
				seen[t] = true
				tokens = append(tokens, t)
			}
		}
	}
	seen = nil
	var buf []uint32
	postOf := func(tid int) (*post, error) {
		out := &post{}
		for i, p := range parts {
			lid, ok, err := p.tokens.get(tokens[tid])
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			pl, err := p.readPosting(ctx, lid)
			if err != nil {
				return nil, fmt.Errorf("spilled partition %d token %q: %w", p.id, tokens[tid], err)
			}
			for k, d := range pl.docs {
				out.docs = append(out.docs, bases[i]+d)
				out.freqs = append(out.freqs, pl.freqs[k])
			}
			if !withPosition {
				continue
			}
			pos, err := p.readPositions(ctx, lid)
			if err != nil {
				return nil, fmt.Errorf("spilled partition %d token %q: %w", p.id, tokens[tid], err)
			}
			var c posCursor
			for k := range pl.docs {
				if buf, err = pos.positions(&c, k, buf); err != nil {
					return nil, err
				}
				out.pos = append(out.pos, buf...)
			}
		}
		return out, nil
	}
	return encodePartition(ctx, 0, withPosition, put, tokens, postOf, rowAddrs, numTokens)
}

// Estimated heap bytes of the builder's entries beyond their slices'
// backing arrays: a cached word (map entry, pointer, struct), a token
// (map entry, string header, post struct and pointer).
const (
	cachedWordBytes = 96
	tokenBytes      = 160
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

// partBuilder accumulates one partition: its tokens (ids in first-seen
// order), their posting lists and its documents (ids in scan order), and
// bytes, what its slices and maps hold.
type partBuilder struct {
	tokenID   map[string]uint32
	tokens    []string
	posts     []*post
	rowAddrs  []uint64
	numTokens []uint32
	bytes     int
}

// grown is the bytes a slice of elem-byte values took on by an append that
// moved it from capacity before to after.
func grown(before, after, elem int) int { return (after - before) * elem }

func (pb *partBuilder) addDoc(addr uint64) uint32 {
	doc := uint32(len(pb.rowAddrs))
	c1, c2 := cap(pb.rowAddrs), cap(pb.numTokens)
	pb.rowAddrs = append(pb.rowAddrs, addr)
	// numTokens is appended once the document's words are counted; grow it
	// here so that its bytes are counted with the row address.
	pb.numTokens = slices.Grow(pb.numTokens, 1)
	pb.bytes += grown(c1, cap(pb.rowAddrs), 8) + grown(c2, cap(pb.numTokens), 4)
	return doc
}

// token is the partition's id of token t, new ones appended.
func (pb *partBuilder) token(t string) uint32 {
	if tid, ok := pb.tokenID[t]; ok {
		return tid
	}
	tid := uint32(len(pb.tokens))
	pb.tokenID[t] = tid
	pb.tokens = append(pb.tokens, t)
	pb.posts = append(pb.posts, &post{})
	pb.bytes += len(t) + tokenBytes
	return tid
}

// add records one occurrence of token tid at position pos of document doc
// (documents come in order).
func (pb *partBuilder) add(tid, doc, pos uint32, withPosition bool) {
	pl := pb.posts[tid]
	if n := len(pl.docs); n == 0 || pl.docs[n-1] != doc {
		c1, c2 := cap(pl.docs), cap(pl.freqs)
		pl.docs = append(pl.docs, doc)
		pl.freqs = append(pl.freqs, 0)
		pb.bytes += grown(c1, cap(pl.docs), 4) + grown(c2, cap(pl.freqs), 4)
	}
	pl.freqs[len(pl.freqs)-1]++
	if withPosition {
		c := cap(pl.pos)
		pl.pos = append(pl.pos, pos)
		pb.bytes += grown(c, cap(pl.pos), 4)
	}
}

// write encodes the partition as partition pid's tokens, invert and docs
// files and hands each to put, releasing what it has encoded as it goes.
func (pb *partBuilder) write(ctx context.Context, pid uint64, withPosition bool, put func(string, []byte) error) error {
	tokens, posts := pb.tokens, pb.posts
	// The token map is done with: release it before the posting lists are
	// encoded.
	pb.tokenID, pb.tokens, pb.posts = nil, nil, nil
	rowAddrs, numTokens := pb.rowAddrs, pb.numTokens
	pb.rowAddrs, pb.numTokens = nil, nil
	return encodePartition(ctx, pid, withPosition, put, tokens, func(tid int) (*post, error) {
		pl := posts[tid]
		posts[tid] = nil
		return pl, nil
	}, rowAddrs, numTokens)
}

// encodePartition writes partition pid of the given tokens (token id i is
// tokens[i]), their posting lists (postOf(i), asked once each in id order)
// and documents, as the reference lays a partition out. The block max
// scores use the partition's own statistics (its documents' count and
// average length), as the reference's partition builder does.
func encodePartition(ctx context.Context, pid uint64, withPosition bool, put func(string, []byte) error,
	tokens []string, postOf func(tid int) (*post, error), rowAddrs []uint64, numTokens []uint32) error {
	var total uint64
	for _, n := range numTokens {
		total += uint64(n)
	}
	n := uint64(len(rowAddrs))
	avgdl := float32(total) / float32(n)
	numPosts := len(tokens)

	// Tokens, sorted by text as the reference writes an Arrow token set.
	order := make([]int, len(tokens))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(tokens[a], tokens[b]) })
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
	tokens, order = nil, nil
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
	invFields := []arrow.Field{
		{Name: colPosting, Type: arrow.ListOf(arrow.BinaryTypes.LargeBinary)},
		{Name: colMaxScore, Type: arrow.PrimitiveTypes.Float32},
		{Name: colLength, Type: arrow.PrimitiveTypes.Uint32},
	}
	builders := []array.Builder{plb, mb, lb}
	if withPosition {
		invFields = append(invFields, arrow.Field{Name: colPosition, Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.LargeBinary))})
		builders = append(builders, posb)
	}
	inv, err := newFileStream(arrow.NewSchema(invFields, nil), nil)
	if err != nil {
		return err
	}
	// The posting file is written in batches of about invertBatchBytes of
	// encoded lists, and each token's raw list is dropped once encoded: a
	// single record of all lists would hold the whole file three times over
	// (builders, the writer's shredded copy, its pages) next to the raw
	// lists (11.7 GiB peak at 1,000,000 documents with positions).
	pending := 0
	var blk [blockSize]uint32
	var b []byte // scratch: the builders copy what they are given
	for tid := 0; tid < numPosts; tid++ {
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
			pending += len(b)
		}
		mb.Append(maxScore)
		lb.Append(uint32(len(pl.docs)))
		if withPosition {
			posb.Append(true)
			off := 0
			for _, f := range pl.freqs {
				ps := pl.pos[off : off+int(f)]
				off += int(f)
				posDoc.Append(true)
				posBlk.Append(binary.LittleEndian.AppendUint32(b[:0], uint32(len(ps))))
				pending += 4
				full := len(ps) / blockSize
				for k := 0; k < full; k++ {
					chunk := ps[k*blockSize : (k+1)*blockSize]
					prev := chunk[0]
					for i := range chunk {
						blk[i] = chunk[i] - prev
						prev = chunk[i]
					}
					nb := bitsFor(blk[:])
					b = binary.LittleEndian.AppendUint32(b[:0], chunk[0])
					b = append(b, byte(nb))
					b = pack4x(b, &blk, nb)
					posBlk.Append(b)
					pending += len(b)
				}
				if rem := ps[full*blockSize:]; len(rem) > 0 {
					b = b[:0]
					for _, v := range rem {
						b = binary.LittleEndian.AppendUint32(b, v)
					}
					posBlk.Append(b)
					pending += len(b)
				}
			}
		}
		if pending >= invertBatchBytes {
			if err := inv.write(ctx, builders...); err != nil {
				return err
			}
			pending = 0
		}
	}
	if pending > 0 {
		if err := inv.write(ctx, builders...); err != nil {
			return err
		}
	}
	if data, err = inv.finish(ctx); err != nil {
		return err
	}
	if err := put(invertFile(pid), data); err != nil {
		return err
	}
	data = nil
	// Docs.
	rb := array.NewUint64Builder(mem)
	rb.AppendValues(rowAddrs, nil)
	nb := array.NewUint32Builder(mem)
	nb.AppendValues(numTokens, nil)
	docSchema := arrow.NewSchema([]arrow.Field{{Name: colRowID, Type: arrow.PrimitiveTypes.Uint64}, {Name: colNumTokens, Type: arrow.PrimitiveTypes.Uint32}}, nil)
	if data, err = writeFile(ctx, docSchema, nil, rb, nb); err != nil {
		return err
	}
	return put(docsFile(pid), data)
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
var invertBatchBytes = 32 << 20

// writeFile encodes one Lance file of the rows in builders.
func writeFile(ctx context.Context, schema *arrow.Schema, md map[string]string, builders ...array.Builder) ([]byte, error) {
	fs, err := newFileStream(schema, md)
	if err != nil {
		return nil, err
	}
	if err := fs.write(ctx, builders...); err != nil {
		return nil, err
	}
	return fs.finish(ctx)
}

// fileStream encodes one Lance file from several batches of rows, so that
// a large file is never assembled as one Arrow record.
type fileStream struct {
	schema *arrow.Schema
	buf    bytes.Buffer
	w      *lancefile.Writer
}

func newFileStream(schema *arrow.Schema, md map[string]string) (*fileStream, error) {
	ls, err := lanceschema.FromArrow(schema)
	if err != nil {
		return nil, err
	}
	ls.Metadata = md
	fs := &fileStream{schema: schema}
	if fs.w, err = lancefile.NewWriter(&fs.buf, ls, lancefile.WriterOptions{}); err != nil {
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

func (fs *fileStream) finish(ctx context.Context) ([]byte, error) {
	if _, err := fs.w.Finish(ctx); err != nil {
		return nil, err
	}
	return fs.buf.Bytes(), nil
}

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
