package lancefile

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// tailReadSize is how much of the file end Open fetches in its first read:
// enough for the footer, offset tables, schema and usually all column
// metadata of a small file.
const tailReadSize = 64 << 10

// maxMetadataBytes bounds a single column metadata or global buffer we are
// willing to decode.
const maxMetadataBytes = 256 << 20

// Reader reads one Lance 2.x data file.
type Reader struct {
	src     Source
	footer  Footer
	schema  *lanceschema.Schema
	numRows uint64
	alloc   memory.Allocator

	tailStart uint64 // file position of tail[0]
	tail      []byte

	colMetaRefs []BufferRef
	globalBufs  []BufferRef

	// leafColumn maps a field id to its column index (leaves in 2.1, all fields in 2.0).
	fieldColumn map[int32]int

	mu      sync.Mutex
	colMeta map[int]*columnInfo

	stats counters
}

type columnInfo struct {
	meta  *file2pb.ColumnMetadata
	pages []*pageInfo
}

type pageInfo struct {
	firstRow uint64
	numRows  uint64
	bufs     []BufferRef
	layout   *enc21pb.PageLayout

	mu     sync.Mutex
	loaded any // page-type specific state (e.g. *miniState), nil until loaded
}

// Option configures Open.
type Option func(*Reader)

// WithAllocator sets the Arrow allocator for decoded records.
func WithAllocator(a memory.Allocator) Option { return func(r *Reader) { r.alloc = a } }

// Open reads the footer, the offset tables and the file descriptor (global
// buffer 0). Column metadata is read lazily, per column, when first needed.
func Open(ctx context.Context, src Source, opts ...Option) (*Reader, error) {
	size := src.Size()
	if size < FooterSize {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrNotLance, size)
	}
	r := &Reader{src: src, alloc: memory.DefaultAllocator, colMeta: map[int]*columnInfo{}}
	for _, o := range opts {
		o(r)
	}
	n := uint64(min(size, tailReadSize))
	r.tailStart = uint64(size) - n
	tail, err := r.read(ctx, r.tailStart, n)
	if err != nil {
		return nil, err
	}
	r.tail = tail
	f, err := ParseFooter(tail, size)
	if err != nil {
		return nil, err
	}
	r.footer = f
	end := uint64(size) - FooterSize
	tables, err := r.readAt(ctx, f.ColumnMetaOffsetsStart, end-f.ColumnMetaOffsetsStart)
	if err != nil {
		return nil, err
	}
	split := f.GlobalBuffOffsetsStart - f.ColumnMetaOffsetsStart
	if r.colMetaRefs, err = parseOffsetTable(tables[:split], int(f.NumColumns), f.ColumnMetaOffsetsStart, "column metadata"); err != nil {
		return nil, err
	}
	if r.globalBufs, err = parseOffsetTable(tables[split:], int(f.NumGlobalBuffers), end, "global buffer"); err != nil {
		return nil, err
	}
	if len(r.globalBufs) == 0 {
		return nil, corruptf("no global buffers (the file descriptor is missing)")
	}
	gb := r.globalBufs[0]
	if gb.Size > maxMetadataBytes {
		return nil, corruptf("file descriptor of %d bytes", gb.Size)
	}
	desc, err := r.readAt(ctx, gb.Position, gb.Size)
	if err != nil {
		return nil, err
	}
	var fd tablepb.FileDescriptor
	if err := proto.Unmarshal(desc, &fd); err != nil {
		return nil, corruptf("file descriptor: %v", err)
	}
	if fd.Schema == nil {
		return nil, corruptf("file descriptor has no schema")
	}
	schema, err := lanceschema.FromProto(fd.Schema.Fields, fd.Schema.Metadata)
	if err != nil {
		return nil, fmt.Errorf("%w: file schema: %v", ErrCorrupt, err)
	}
	r.schema = schema
	r.numRows = fd.Length
	r.fieldColumn = map[int32]int{}
	col := 0
	var walk func(fs []*lanceschema.Field)
	walk = func(fs []*lanceschema.Field) {
		for _, fl := range fs {
			if r.footer.Version.Is20() || isLeafField(fl) {
				r.fieldColumn[fl.ID] = col
				col++
			}
			if r.footer.Version.Is20() || !isLeafField(fl) {
				walk(fl.Children)
			}
		}
	}
	walk(schema.Fields)
	if col != int(f.NumColumns) {
		return nil, corruptf("schema has %d columns, footer %d", col, f.NumColumns)
	}
	return r, nil
}

// isLeafField: in 2.1 only leaves (and packed structs / blobs) own columns.
func isLeafField(f *lanceschema.Field) bool {
	if len(f.Children) == 0 {
		return true
	}
	if f.Metadata != nil {
		if _, ok := f.Metadata["lance-encoding:packed"]; ok && f.LogicalType == "struct" {
			return true
		}
		if _, ok := f.Metadata["packed"]; ok && f.LogicalType == "struct" {
			return true
		}
	}
	return false
}

// readAt serves a range from the tail read when it lies inside it.
func (r *Reader) readAt(ctx context.Context, off, n uint64) ([]byte, error) {
	if b, ok := r.fromTail(off, n); ok {
		return b, nil
	}
	return r.read(ctx, off, n)
}

// fromTail returns [off, off+n) from the tail read, ok false when the range
// is not all inside it.
func (r *Reader) fromTail(off, n uint64) ([]byte, bool) {
	if off >= r.tailStart && off-r.tailStart <= uint64(len(r.tail)) && n <= uint64(len(r.tail))-(off-r.tailStart) {
		s := off - r.tailStart
		return r.tail[s : s+n : s+n], true
	}
	return nil, false
}

// Version is the file format version from the footer.
func (r *Reader) Version() Version { return r.footer.Version }

// NumRows is the number of rows in the file.
func (r *Reader) NumRows() uint64 { return r.numRows }

// Schema is the file's own schema (with the dataset's field ids).
func (r *Reader) Schema() *lanceschema.Schema { return r.schema }

// NumColumns is the number of physical columns.
func (r *Reader) NumColumns() int { return int(r.footer.NumColumns) }

// Stats returns the I/O and decode counters so far.
func (r *Reader) Stats() Stats { return r.stats.snapshot() }

// ColumnIndex maps a field id to its first column index, -1 when the field
// has no column of its own (a list or struct in 2.1, or an unknown id).
func (r *Reader) ColumnIndex(fieldID int32) int {
	if c, ok := r.fieldColumn[fieldID]; ok {
		return c
	}
	return -1
}

// GlobalBuffer reads global buffer i (0 is the file descriptor).
func (r *Reader) GlobalBuffer(ctx context.Context, i int) ([]byte, error) {
	if i < 0 || i >= len(r.globalBufs) {
		return nil, fmt.Errorf("%w: global buffer %d of %d", ErrInvalidArgument, i, len(r.globalBufs))
	}
	g := r.globalBufs[i]
	return r.readAt(ctx, g.Position, g.Size)
}

// column returns the (lazily read and cached) metadata of column c.
func (r *Reader) column(ctx context.Context, c int) (*columnInfo, error) {
	r.mu.Lock()
	ci := r.colMeta[c]
	r.mu.Unlock()
	if ci != nil {
		return ci, nil
	}
	if c < 0 || c >= len(r.colMetaRefs) {
		return nil, fmt.Errorf("%w: column %d of %d", ErrInvalidArgument, c, len(r.colMetaRefs))
	}
	ref := r.colMetaRefs[c]
	if ref.Position < r.footer.ColumnMetaStart || ref.Size > maxMetadataBytes {
		return nil, corruptf("column %d metadata at %d+%d", c, ref.Position, ref.Size)
	}
	b, err := r.readAt(ctx, ref.Position, ref.Size)
	if err != nil {
		return nil, err
	}
	ci, err = r.parseColumn(c, b)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.colMeta[c] = ci
	r.mu.Unlock()
	return ci, nil
}

func (r *Reader) parseColumn(c int, b []byte) (*columnInfo, error) {
	var cm file2pb.ColumnMetadata
	if err := proto.Unmarshal(b, &cm); err != nil {
		return nil, corruptf("column %d metadata: %v", c, err)
	}
	ci := &columnInfo{meta: &cm}
	dataEnd := r.footer.ColumnMetaStart
	var row uint64
	for pi, p := range cm.Pages {
		if len(p.BufferOffsets) != len(p.BufferSizes) {
			return nil, corruptf("column %d page %d: %d buffer offsets, %d sizes", c, pi, len(p.BufferOffsets), len(p.BufferSizes))
		}
		bufs := make([]BufferRef, len(p.BufferOffsets))
		for i := range bufs {
			o, s := p.BufferOffsets[i], p.BufferSizes[i]
			if o > dataEnd || s > dataEnd-o {
				return nil, corruptf("column %d page %d buffer %d at %d+%d outside data (%d bytes)", c, pi, i, o, s, dataEnd)
			}
			bufs[i] = BufferRef{o, s}
		}
		if p.Length > r.numRows-row || row > r.numRows {
			return nil, corruptf("column %d pages hold more than %d rows", c, r.numRows)
		}
		pg := &pageInfo{firstRow: row, numRows: p.Length, bufs: bufs}
		if r.footer.Version.IsStructural() {
			layout, err := decodePageLayout(p.Encoding)
			if err != nil {
				return nil, fmt.Errorf("column %d page %d: %w", c, pi, err)
			}
			pg.layout = layout
		}
		ci.pages = append(ci.pages, pg)
		row += p.Length
	}
	if row != r.numRows {
		return nil, corruptf("column %d pages hold %d rows, file %d", c, row, r.numRows)
	}
	return ci, nil
}

func decodePageLayout(enc *file2pb.Encoding) (*enc21pb.PageLayout, error) {
	if enc == nil {
		return nil, corruptf("page has no encoding")
	}
	d, ok := enc.Location.(*file2pb.Encoding_Direct)
	if !ok || d.Direct == nil {
		return nil, unsupportedf("page encoding is not stored inline")
	}
	var a anypb.Any
	if err := proto.Unmarshal(d.Direct.Encoding, &a); err != nil {
		return nil, corruptf("page encoding: %v", err)
	}
	if !strings.HasSuffix(a.TypeUrl, "lance.encodings21.PageLayout") {
		return nil, unsupportedf("page encoding type %q", a.TypeUrl)
	}
	var l enc21pb.PageLayout
	if err := proto.Unmarshal(a.Value, &l); err != nil {
		return nil, corruptf("page layout: %v", err)
	}
	return &l, nil
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
