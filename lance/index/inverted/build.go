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

// Build writes a one-partition INVERTED index of column over the live rows
// of ds in the reference's layout (token set format "arrow", fixed32 posting
// tails, per-document positions when p.WithPosition) and returns its
// metadata for Dataset.CommitIndices.
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
	// A posting list: its documents in order, each one's frequency and,
	// with positions, every document's positions one after the other (a
	// document has as many as its frequency): one flat slice instead of one
	// per (token, document) keeps a 1,000,000-document build's heap and
	// allocations small.
	type post struct {
		docs, freqs []uint32
		pos         []uint32
	}
	tokenID := map[string]uint32{}
	// wordToken maps a word as the base tokenizer cuts it to its token id
	// (-1: dropped), so that the filter chain (stemming above all) and the
	// token lookup run once per distinct word, not once per occurrence.
	wordToken := map[string]int64{}
	const maxWords = 1 << 21
	var tokens []string
	var posts []*post
	var rowAddrs []uint64
	var numTokens []uint32
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
			if len(rowAddrs) == math.MaxUint32 {
				return fmt.Errorf("%w: more than %d documents in one partition", ErrUnsupported, math.MaxUint32)
			}
			doc := uint32(len(rowAddrs))
			rowAddrs = append(rowAddrs, addrs.Value(i))
			var kept uint32
			an.Words(s, func(w string, pos int) {
				id, known := wordToken[w]
				if !known {
					id = -1
					if t, ok := an.Filter(w); ok {
						tid, ok := tokenID[t]
						if !ok {
							t = strings.Clone(t) // not a view of the batch
							tid = uint32(len(tokens))
							tokenID[t] = tid
							tokens = append(tokens, t)
							posts = append(posts, &post{})
						}
						id = int64(tid)
					}
					if len(wordToken) < maxWords {
						// w may point into the batch's buffer: keep a copy
						wordToken[strings.Clone(w)] = id
					}
				}
				if id < 0 {
					return // a stop word, or too long
				}
				kept++
				pl := posts[id]
				if n := len(pl.docs); n == 0 || pl.docs[n-1] != doc {
					pl.docs = append(pl.docs, doc)
					pl.freqs = append(pl.freqs, 0)
				}
				pl.freqs[len(pl.freqs)-1]++
				if p.WithPosition {
					pl.pos = append(pl.pos, uint32(pos))
				}
			})
			numTokens = append(numTokens, kept)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var total uint64
	for _, n := range numTokens {
		total += uint64(n)
	}
	n := uint64(len(rowAddrs))
	avgdl := float32(total) / float32(n)

	// The per-word cache and the token map are done with: release them
	// before the posting lists are encoded.
	wordToken, tokenID = nil, nil

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

	// Tokens, sorted by text as the reference writes an Arrow token set.
	order := make([]int, len(tokens))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case tokens[a] < tokens[b]:
			return -1
		case tokens[a] > tokens[b]:
			return 1
		}
		return 0
	})
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
		return nil, err
	}
	if err := put(tokensFile(0), data); err != nil {
		return nil, err
	}
	tokens, order = nil, nil
	// Posting lists, one row per token id.
	pb := array.NewListBuilder(mem, arrow.BinaryTypes.LargeBinary)
	pv := pb.ValueBuilder().(*array.BinaryBuilder)
	mb := array.NewFloat32Builder(mem)
	lb := array.NewUint32Builder(mem)
	var posb *array.ListBuilder
	var posDoc *array.ListBuilder
	var posBlk *array.BinaryBuilder
	if p.WithPosition {
		posb = array.NewListBuilder(mem, arrow.ListOf(arrow.BinaryTypes.LargeBinary))
		posDoc = posb.ValueBuilder().(*array.ListBuilder)
		posBlk = posDoc.ValueBuilder().(*array.BinaryBuilder)
	}
	invFields := []arrow.Field{
		{Name: colPosting, Type: arrow.ListOf(arrow.BinaryTypes.LargeBinary)},
		{Name: colMaxScore, Type: arrow.PrimitiveTypes.Float32},
		{Name: colLength, Type: arrow.PrimitiveTypes.Uint32},
	}
	builders := []array.Builder{pb, mb, lb}
	if p.WithPosition {
		invFields = append(invFields, arrow.Field{Name: colPosition, Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.LargeBinary))})
		builders = append(builders, posb)
	}
	inv, err := newFileStream(arrow.NewSchema(invFields, nil), nil)
	if err != nil {
		return nil, err
	}
	// The posting file is written in batches of about invertBatchBytes of
	// encoded lists, and each token's raw list is dropped once encoded: a
	// single record of all lists would hold the whole file three times over
	// (builders, the writer's shredded copy, its pages) next to the raw
	// lists (11.7 GiB peak at 1,000,000 documents with positions).
	pending := 0
	var blk [blockSize]uint32
	var b []byte // scratch: the builders copy what they are given
	for tid, pl := range posts {
		posts[tid] = nil
		idf := IDF(uint64(len(pl.docs)), n)
		pb.Append(true)
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
		if p.WithPosition {
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
				return nil, err
			}
			pending = 0
		}
	}
	if pending > 0 {
		if err := inv.write(ctx, builders...); err != nil {
			return nil, err
		}
	}
	posts = nil
	if data, err = inv.finish(ctx); err != nil {
		return nil, err
	}
	if err := put(invertFile(0), data); err != nil {
		return nil, err
	}
	// Docs.
	rb := array.NewUint64Builder(mem)
	rb.AppendValues(rowAddrs, nil)
	nb := array.NewUint32Builder(mem)
	nb.AppendValues(numTokens, nil)
	docSchema := arrow.NewSchema([]arrow.Field{{Name: colRowID, Type: arrow.PrimitiveTypes.Uint64}, {Name: colNumTokens, Type: arrow.PrimitiveTypes.Uint32}}, nil)
	if data, err = writeFile(ctx, docSchema, nil, rb, nb); err != nil {
		return nil, err
	}
	if err := put(docsFile(0), data); err != nil {
		return nil, err
	}
	// Metadata.
	empty, err := roaring.New().ToBytes()
	if err != nil {
		return nil, err
	}
	db := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	db.Append(empty)
	mdSchema := arrow.NewSchema([]arrow.Field{{Name: colDeleted, Type: arrow.BinaryTypes.Binary}}, nil)
	md := map[string]string{"params": p.JSON(), "partitions": "[0]", "token_set_format": "arrow", "posting_tail_codec": "fixed32_v1"}
	if data, err = writeFile(ctx, mdSchema, md, db); err != nil {
		return nil, err
	}
	if err := put(metadataFile, data); err != nil {
		return nil, err
	}
	slices.SortFunc(meta.Files, func(a, b dataset.IndexFile) int { return strings.Compare(a.Path, b.Path) })
	return meta, nil
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
