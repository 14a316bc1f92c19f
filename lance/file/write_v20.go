package lancefile

// Writing Lance file format 2.0 (footer version 0.3). The pages come from
// package enc20's Encoder; this file lays out the container exactly like the
// 2.1 writer (64-byte aligned page buffers, column metadata, offset tables,
// the file descriptor as global buffer 0, the footer) with these 2.0
// differences, all as Lance's own 2.0 writer does them:
//   - every field of the schema owns a column (structs and lists too), so
//     FileSummary.Fields lists all field ids in pre-order;
//   - page encodings are lance.encodings.ArrayEncoding messages and every
//     page's priority is 0 (the 2.0 decoder does not use it);
//   - the footer says 0.3 while the manifest's DataFile says 2.0.

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/lance/file/internal/enc20"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// writerArrayEncodingURL is the type URL of 2.0 page encodings (prost's).
const writerArrayEncodingURL = "/lance.encodings.ArrayEncoding"

// v20Writer is the 2.0 state of a Writer.
type v20Writer struct {
	enc *enc20.Encoder
}

// newV20Writer plans the 2.0 columns of schema (ErrInvalidArgument for a
// type the 2.0 writer does not support).
func newV20Writer(schema *lanceschema.Schema) (*v20Writer, error) {
	enc, err := enc20.NewEncoder(schema.Fields)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return &v20Writer{enc: enc}, nil
}

// writeV20 is Write for 2.0 files, after Write checked rec against the schema.
func (w *Writer) writeV20(ctx context.Context, rec arrow.Record) error {
	if rec.NumRows() == 0 {
		return nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = rec.Column(i)
	}
	if err := w.v20.enc.Append(cols); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	w.rows += uint64(rec.NumRows())
	pages, err := w.v20.enc.Flush(w.opts.PageBytes)
	if err == nil {
		err = w.writeV20Pages(pages)
	}
	if err != nil {
		w.err = err
	}
	return err
}

func (w *Writer) writeV20Pages(pages []enc20.EncodedPage) error {
	for _, p := range pages {
		// 2.0 pages carry priority 0, as the peer writes them.
		if err := w.appendPage(p.Column, p.NumRows, 0, p.Buffers, writerArrayEncodingURL, p.Encoding); err != nil {
			return err
		}
	}
	return nil
}

// finishV20 is Finish for 2.0 files.
func (w *Writer) finishV20(ctx context.Context) (FileSummary, error) {
	fail := func(err error) (FileSummary, error) {
		w.err = err
		return FileSummary{}, err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pages, err := w.v20.enc.Finish()
	if err != nil {
		return fail(err)
	}
	if err := w.writeV20Pages(pages); err != nil {
		return fail(err)
	}
	fields, md := w.schema.Proto()
	fd := &tablepb.FileDescriptor{Schema: &tablepb.Schema{Fields: fields, Metadata: md}, Length: w.rows}
	fdBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(fd)
	if err != nil {
		return fail(fmt.Errorf("lancefile: encode file descriptor: %w", err))
	}
	gbo := []BufferRef{{Position: uint64(w.out.pos), Size: uint64(len(fdBytes))}}
	if _, err := w.out.Write(fdBytes); err != nil {
		return fail(err)
	}
	colEnc, err := columnEncodingBytes()
	if err != nil {
		return fail(err)
	}
	columnMetaStart := uint64(w.out.pos)
	cmo := make([]BufferRef, 0, len(w.columns))
	for _, cm := range w.columns {
		cm.Encoding = &file2pb.Encoding{Location: &file2pb.Encoding_Direct{Direct: &file2pb.DirectEncoding{Encoding: colEnc}}}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(cm)
		if err != nil {
			return fail(fmt.Errorf("lancefile: encode column metadata: %w", err))
		}
		cmo = append(cmo, BufferRef{Position: uint64(w.out.pos), Size: uint64(len(b))})
		if _, err := w.out.Write(b); err != nil {
			return fail(err)
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
		Version:                V2_0,
	})
	if _, err := w.out.Write(tail); err != nil {
		return fail(err)
	}
	// The manifest records 2.0 files as major 2, minor 0 (the footer's 0.3
	// is the legacy spelling of the same version).
	sum := FileSummary{NumRows: w.rows, Size: w.out.pos, Major: 2, Minor: 0}
	for i, id := range w.v20.enc.ColumnFields() {
		sum.Fields = append(sum.Fields, id)
		sum.ColumnIndices = append(sum.ColumnIndices, int32(i))
	}
	return sum, nil
}
