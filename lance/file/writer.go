package lancefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/lancecat/lancecat/lance/internal/pb/enc20pb"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// DefaultPageBytes is how much data a column accumulates before the writer
// cuts a page (Lance's writer uses the same 8 MiB per column).
const DefaultPageBytes = 8 << 20

// Type URLs the writer puts in the protobuf Any messages of page and column
// encodings. They are the URLs Lance's own writer emits (prost: "/" + full
// name); readers match on the message name after the last '/'.
const (
	writerPageLayoutURL     = "/lance.encodings21.PageLayout"
	writerColumnEncodingURL = "/lance.encodings.ColumnEncoding"
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Version is the file format version to write: V2_1 (the zero value means
	// 2.1), V2_2 (2.1's encodings in 2.2's large-chunk mini-block grammar, as
	// appends to a 2.2 dataset need) or V2_0 (2.0, written with the 0.3
	// footer Lance uses).
	Version Version
	// PageBytes is how many bytes of shredded data a column accumulates
	// before a page is written (0: DefaultPageBytes). Pages are cut between
	// Write calls, never inside one.
	PageBytes int
}

// FileSummary describes a finished file the way a manifest's DataFile needs it.
type FileSummary struct {
	NumRows uint64
	Size    int64
	// Fields are the ids of the fields that own a column, in column order:
	// in 2.1 these are the leaves (primitives, strings, fixed-size lists);
	// structs and lists have no column of their own.
	Fields []int32
	// ColumnIndices[i] is the column of Fields[i] (0, 1, 2, ...).
	ColumnIndices []int32
	Major, Minor  uint32
}

// Writer writes one Lance data file. It is not safe for concurrent use.
type Writer struct {
	out     *countingWriter
	schema  *lanceschema.Schema
	version Version
	opts    WriterOptions

	leaves  []*leafSpec
	accums  []*leafAccum
	columns []*file2pb.ColumnMetadata
	rows    uint64
	err     error // sticky: after a failed write the file is unusable
	done    bool

	v20 *v20Writer // set when writing file format 2.0 (write_v20.go)
}

type countingWriter struct {
	w   io.Writer
	pos int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.pos += int64(n)
	return n, err
}

// ErrWriterClosed is returned by Write and Finish after Finish or a failed write.
var ErrWriterClosed = errors.New("lancefile: writer is finished or failed")

// NewWriter writes a Lance file to w. The schema's field ids are the
// dataset's field ids and are stored in the file descriptor.
func NewWriter(w io.Writer, schema *lanceschema.Schema, opts WriterOptions) (*Writer, error) {
	if w == nil || schema == nil {
		return nil, fmt.Errorf("%w: nil writer or schema", ErrInvalidArgument)
	}
	v := opts.Version
	if v == (Version{}) {
		v = V2_1
	}
	if v != V2_1 && v != V2_2 && !v.Is20() {
		return nil, fmt.Errorf("%w: writing file format %s", ErrUnsupportedVersion, v)
	}
	if opts.PageBytes <= 0 {
		opts.PageBytes = DefaultPageBytes
	}
	seen := map[int32]bool{}
	for _, f := range schema.Flatten() {
		if f.ID < 0 {
			return nil, fmt.Errorf("%w: field %q has no id", ErrInvalidArgument, f.Name)
		}
		if seen[f.ID] {
			return nil, fmt.Errorf("%w: duplicate field id %d", ErrInvalidArgument, f.ID)
		}
		seen[f.ID] = true
	}
	if v.Is20() {
		v2, err := newV20Writer(schema)
		if err != nil {
			return nil, err
		}
		wr := &Writer{out: &countingWriter{w: w}, schema: schema.Clone(), version: V2_0, opts: opts, v20: v2}
		wr.columns = make([]*file2pb.ColumnMetadata, v2.enc.NumColumns())
		for i := range wr.columns {
			wr.columns[i] = &file2pb.ColumnMetadata{}
		}
		return wr, nil
	}
	leaves, err := planLeaves(schema)
	if err != nil {
		return nil, err
	}
	wr := &Writer{
		out:     &countingWriter{w: w},
		schema:  schema.Clone(),
		version: v,
		opts:    opts,
		leaves:  leaves,
	}
	for _, l := range leaves {
		// 2.2 readers require the "large chunk" grammar on every mini-block
		// page (u32 chunk metadata and buffer sizes).
		l.largeChunks = v == V2_2
		wr.accums = append(wr.accums, &leafAccum{})
		wr.columns = append(wr.columns, &file2pb.ColumnMetadata{})
	}
	return wr, nil
}

// Write appends the rows of rec. Its columns are the schema's top-level
// fields, in order.
func (w *Writer) Write(ctx context.Context, rec arrow.Record) error {
	if w.done || w.err != nil {
		return ErrWriterClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if int(rec.NumCols()) != len(w.schema.Fields) {
		return fmt.Errorf("%w: record has %d columns, schema %d", ErrInvalidArgument, rec.NumCols(), len(w.schema.Fields))
	}
	for i, f := range w.schema.Fields {
		want, err := f.ArrowType()
		if err != nil {
			return fmt.Errorf("%w: field %q: %v", ErrInvalidArgument, f.Name, err)
		}
		if got := rec.Column(i).DataType(); !sameShape(got, want) {
			return fmt.Errorf("%w: column %d (%q) is %s, schema says %s", ErrInvalidArgument, i, f.Name, got, want)
		}
		if !f.Nullable && rec.Column(i).NullN() > 0 {
			return fmt.Errorf("%w: column %q is not nullable but holds nulls", ErrInvalidArgument, f.Name)
		}
	}
	if w.v20 != nil {
		return w.writeV20(ctx, rec)
	}
	if rec.NumRows() == 0 {
		return nil
	}
	// Shred into copies first so a bad record leaves the writer untouched.
	staged := make([]*leafAccum, len(w.leaves))
	all := make([]int, len(w.leaves))
	for li := range w.leaves {
		staged[li], all[li] = &leafAccum{}, li
	}
	if err := forEachLeaf(all, func(li int) error {
		leaf := w.leaves[li]
		return shredColumn(leaf, staged[li], rec.Column(leaf.topIndex))
	}); err != nil {
		return err
	}
	for li := range w.leaves {
		w.accums[li].merge(w.leaves[li], staged[li])
	}
	w.rows += uint64(rec.NumRows())
	var full []int
	for li := range w.leaves {
		if w.accums[li].byteSize() >= w.opts.PageBytes {
			full = append(full, li)
		}
	}
	if err := w.flushLeaves(full); err != nil {
		w.err = err
		return err
	}
	return nil
}

// forEachLeaf runs fn for every leaf index of lis, on up to GOMAXPROCS
// goroutines: the columns of a batch are independent (each reads its own
// arrow array and fills its own accumulator or page), and a bulk load
// spends most of the writer's time encoding them one after another on one
// core. It returns the error of the first leaf (in lis order) that failed.
func forEachLeaf(lis []int, fn func(li int) error) error {
	workers := min(runtime.GOMAXPROCS(0), len(lis))
	if workers <= 1 {
		for _, li := range lis {
			if err := fn(li); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(lis))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(lis) {
					return
				}
				errs[k] = fn(lis[k])
			}
		}()
	}
	wg.Wait()
	return firstError(errs)
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// flushLeaves encodes the accumulated pages of the leaves lis (ascending)
// in parallel and writes them in lis order, so the file's bytes are the
// ones flushing them one by one writes.
func (w *Writer) flushLeaves(lis []int) error {
	pages := make([]encodedPage, len(lis))
	idx := make([]int, len(lis))
	for k := range lis {
		idx[k] = k
	}
	if err := forEachLeaf(idx, func(k int) error {
		acc := w.accums[lis[k]]
		if acc.numRows == 0 {
			return nil
		}
		p, err := encodePage(w.leaves[lis[k]], acc)
		pages[k] = p
		return err
	}); err != nil {
		return err
	}
	for k, li := range lis {
		acc := w.accums[li]
		if acc.numRows == 0 {
			continue
		}
		if err := w.writePage(li, pages[k], w.rows-acc.numRows); err != nil {
			return err
		}
		pages[k] = encodedPage{} // written: let its buffers go
		acc.reset()
	}
	return nil
}

// sameShape compares arrow types ignoring field names, nullability flags and
// metadata of nested fields (Lance ignores them too).
func sameShape(a, b arrow.DataType) bool {
	if a.ID() != b.ID() {
		return false
	}
	switch ta := a.(type) {
	case *arrow.StructType:
		tb := b.(*arrow.StructType)
		if ta.NumFields() != tb.NumFields() {
			return false
		}
		for i := 0; i < ta.NumFields(); i++ {
			if !sameShape(ta.Field(i).Type, tb.Field(i).Type) {
				return false
			}
		}
		return true
	case *arrow.ListType:
		return sameShape(ta.Elem(), b.(*arrow.ListType).Elem())
	case *arrow.LargeListType:
		return sameShape(ta.Elem(), b.(*arrow.LargeListType).Elem())
	case *arrow.FixedSizeListType:
		tb := b.(*arrow.FixedSizeListType)
		return ta.Len() == tb.Len() && sameShape(ta.Elem(), tb.Elem())
	}
	return arrow.TypeEqual(a, b)
}

// merge appends the rows of o (shredded for the same leaf) to a.
func (a *leafAccum) merge(leaf *leafSpec, o *leafAccum) {
	if a.numRows == 0 && len(a.def) == 0 {
		*a = *o
		return
	}
	a.numRows += o.numRows
	a.rep = append(a.rep, o.rep...)
	a.def = append(a.def, o.def...)
	a.anyDef = a.anyDef || o.anyDef
	switch leaf.kind {
	case valuesFixed:
		if leaf.bitsPerValue == 1 {
			a.fixed = appendBits(a.fixed, a.numValues, o.fixed, o.numValues)
		} else {
			a.fixed = append(a.fixed, o.fixed...)
		}
	case valuesFSL:
		a.fixed = append(a.fixed, o.fixed...)
		a.fslValidity = appendBits(a.fslValidity, a.numValues*leaf.fslDim, o.fslValidity, o.numValues*leaf.fslDim)
		a.fslAnyNull = a.fslAnyNull || o.fslAnyNull
	case valuesVariable:
		if len(a.offsets) == 0 {
			a.offsets = append(a.offsets, 0)
		}
		base := uint64(len(a.data))
		if len(o.offsets) > 0 {
			for _, off := range o.offsets[1:] {
				a.offsets = append(a.offsets, base+off)
			}
		}
		a.data = append(a.data, o.data...)
		a.maxLen = max(a.maxLen, o.maxLen)
	}
	a.numValues += o.numValues
	a.nullValues += o.nullValues
}

// appendBits appends the first m bits of src to dst, which holds n bits.
func appendBits(dst []byte, n int, src []byte, m int) []byte {
	if n%8 == 0 {
		return append(dst[:n/8], src[:(m+7)/8]...)
	}
	for i := 0; i < m; i++ {
		dst = appendBit(dst, n+i, src[i/8]&(1<<(i%8)) != 0)
	}
	return dst
}

func (w *Writer) writePage(li int, page encodedPage, firstRow uint64) error {
	return w.appendPage(li, page.numRows, firstRow, page.buffers, writerPageLayoutURL, page.layout)
}

// appendPage writes a page's buffers (aligned) and records the page in
// column col's metadata, its encoding stored inline as an Any of typeURL.
func (w *Writer) appendPage(col int, numRows, priority uint64, buffers [][]byte, typeURL string, encoding proto.Message) error {
	meta := &file2pb.ColumnMetadata_Page{Length: numRows, Priority: priority}
	for _, b := range buffers {
		meta.BufferOffsets = append(meta.BufferOffsets, uint64(w.out.pos))
		meta.BufferSizes = append(meta.BufferSizes, uint64(len(b)))
		if err := w.writeAligned(b); err != nil {
			return err
		}
	}
	enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(encoding)
	if err != nil {
		return fmt.Errorf("lancefile: encode page encoding: %w", err)
	}
	anyBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(&anypb.Any{TypeUrl: typeURL, Value: enc})
	if err != nil {
		return fmt.Errorf("lancefile: encode page encoding: %w", err)
	}
	meta.Encoding = &file2pb.Encoding{Location: &file2pb.Encoding_Direct{Direct: &file2pb.DirectEncoding{Encoding: anyBytes}}}
	w.columns[col].Pages = append(w.columns[col].Pages, meta)
	return nil
}

var padding [PageBufferAlignment]byte

// writeAligned writes b and pads the file to the next 64-byte boundary.
func (w *Writer) writeAligned(b []byte) error {
	if _, err := w.out.Write(b); err != nil {
		return err
	}
	if r := int(w.out.pos % PageBufferAlignment); r != 0 {
		if _, err := w.out.Write(padding[:PageBufferAlignment-r]); err != nil {
			return err
		}
	}
	return nil
}

// Finish flushes the remaining pages and writes the metadata and footer.
// The writer cannot be used afterwards.
func (w *Writer) Finish(ctx context.Context) (FileSummary, error) {
	if w.done || w.err != nil {
		return FileSummary{}, ErrWriterClosed
	}
	w.done = true
	if w.v20 != nil {
		return w.finishV20(ctx)
	}
	if err := ctx.Err(); err != nil {
		return FileSummary{}, err
	}
	all := make([]int, len(w.leaves))
	for li := range all {
		all[li] = li
	}
	if err := w.flushLeaves(all); err != nil {
		w.err = err
		return FileSummary{}, err
	}
	// Global buffer 0: the file descriptor (schema and row count).
	fields, md := w.schema.Proto()
	fd := &tablepb.FileDescriptor{Schema: &tablepb.Schema{Fields: fields, Metadata: md}, Length: w.rows}
	fdBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(fd)
	if err != nil {
		return FileSummary{}, fmt.Errorf("lancefile: encode file descriptor: %w", err)
	}
	gbo := []BufferRef{{Position: uint64(w.out.pos), Size: uint64(len(fdBytes))}}
	if _, err := w.out.Write(fdBytes); err != nil {
		return FileSummary{}, err
	}
	colEnc, err := columnEncodingBytes()
	if err != nil {
		return FileSummary{}, err
	}
	columnMetaStart := uint64(w.out.pos)
	cmo := make([]BufferRef, 0, len(w.columns))
	for _, cm := range w.columns {
		cm.Encoding = &file2pb.Encoding{Location: &file2pb.Encoding_Direct{Direct: &file2pb.DirectEncoding{Encoding: colEnc}}}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(cm)
		if err != nil {
			return FileSummary{}, fmt.Errorf("lancefile: encode column metadata: %w", err)
		}
		cmo = append(cmo, BufferRef{Position: uint64(w.out.pos), Size: uint64(len(b))})
		if _, err := w.out.Write(b); err != nil {
			return FileSummary{}, err
		}
	}
	cmoStart := uint64(w.out.pos)
	tail := AppendOffsetTable(nil, cmo)
	gboStart := cmoStart + uint64(len(tail))
	tail = AppendOffsetTable(tail, gbo)
	tail = AppendFooter(tail, Footer{
		ColumnMetaStart:        columnMetaStart,
		ColumnMetaOffsetsStart: cmoStart,
		GlobalBuffOffsetsStart: gboStart,
		NumGlobalBuffers:       uint32(len(gbo)),
		NumColumns:             uint32(len(w.columns)),
		Version:                w.version,
	})
	if _, err := w.out.Write(tail); err != nil {
		return FileSummary{}, err
	}
	sum := FileSummary{NumRows: w.rows, Size: w.out.pos, Major: uint32(w.version.Major), Minor: uint32(w.version.Minor)}
	for i, l := range w.leaves {
		sum.Fields = append(sum.Fields, l.fieldID)
		sum.ColumnIndices = append(sum.ColumnIndices, int32(i))
	}
	return sum, nil
}

func columnEncodingBytes() ([]byte, error) {
	ce := &enc20pb.ColumnEncoding{ColumnEncoding: &enc20pb.ColumnEncoding_Values{Values: &emptypb.Empty{}}}
	v, err := proto.MarshalOptions{Deterministic: true}.Marshal(ce)
	if err != nil {
		return nil, fmt.Errorf("lancefile: encode column encoding: %w", err)
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(&anypb.Any{TypeUrl: writerColumnEncodingURL, Value: v})
}
