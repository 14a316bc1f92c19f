package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// fakeFormat stands in for the Lance file format in unit tests that
// exercise the table layer only: a data file is a JSON header (top-level
// field ids) followed by an Arrow IPC stream. It never reaches the peer.
type fakeFormat struct{}

type fakeHeader struct {
	TopIDs []int32
	Rows   uint64
}

type fakeWriter struct {
	w      io.Writer
	schema *lanceschema.Schema
	recs   []arrow.RecordBatch
	rows   uint64
}

func (fakeFormat) NewWriter(w io.Writer, schema *lanceschema.Schema, version string) (dataFileWriter, error) {
	return &fakeWriter{w: w, schema: schema}, nil
}

func (f *fakeWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	rec.Retain()
	f.recs = append(f.recs, rec)
	f.rows += uint64(rec.NumRows())
	return nil
}

func (f *fakeWriter) Finish(ctx context.Context) (writtenFile, error) {
	var ids []int32
	for _, fl := range f.schema.Fields {
		ids = append(ids, fl.ID)
	}
	hdr, _ := json.Marshal(fakeHeader{TopIDs: ids, Rows: f.rows})
	var body bytes.Buffer
	as, _ := f.schema.ToArrow()
	iw := ipc.NewWriter(&body, ipc.WithSchema(as))
	for _, r := range f.recs {
		if err := iw.Write(r); err != nil {
			return writtenFile{}, err
		}
		r.Release()
	}
	iw.Close()
	var out bytes.Buffer
	binary.Write(&out, binary.LittleEndian, uint32(len(hdr)))
	out.Write(hdr)
	out.Write(body.Bytes())
	n, err := f.w.Write(out.Bytes())
	if err != nil {
		return writtenFile{}, err
	}
	var fields, cols []int32
	for i, fl := range f.schema.Flatten() {
		fields = append(fields, fl.ID)
		cols = append(cols, int32(i))
	}
	return writtenFile{NumRows: f.rows, Size: uint64(n), Fields: fields, ColumnIndices: cols, Major: 2, Minor: 1}, nil
}

type fakeReader struct {
	hdr fakeHeader
	rec arrow.RecordBatch // all rows
}

func (fakeFormat) Open(ctx context.Context, store storage.Store, path string, size int64) (dataFileReader, error) {
	b, err := store.Read(ctx, path)
	if err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(b)
	var h fakeHeader
	if err := json.Unmarshal(b[4:4+n], &h); err != nil {
		return nil, err
	}
	r, err := ipc.NewReader(bytes.NewReader(b[4+n:]))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	tbl := array.NewTableFromRecords(r.Schema(), recs)
	defer tbl.Release()
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		c, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	if len(recs) == 0 {
		for i := range cols {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, r.Schema().Field(i).Type, 0)
		}
	}
	return &fakeReader{hdr: h, rec: array.NewRecordBatch(r.Schema(), cols, int64(h.Rows))}, nil
}

func (r *fakeReader) NumRows() uint64 { return r.hdr.Rows }

func (r *fakeReader) ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	var fields []arrow.Field
	for _, id := range fieldIDs {
		idx := -1
		for i, t := range r.hdr.TopIDs {
			if t == id {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("no field %d", id)
		}
		cols = append(cols, array.NewSlice(r.rec.Column(idx), int64(start), int64(end)))
		fields = append(fields, r.rec.Schema().Field(idx))
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(end-start))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
