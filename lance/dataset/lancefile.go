package dataset

import (
	"context"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"
	"io"

	lancefile "github.com/lancecat/lancecat/lance/file"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// lancefileFormat adapts lance/file to fileFormat.
type lancefileFormat struct{}

func (lancefileFormat) Open(ctx context.Context, store storage.Store, path string, size int64) (dataFileReader, error) {
	src, err := lancefile.NewStoreSource(ctx, store, path, size)
	if err != nil {
		return nil, err
	}
	return lancefile.Open(ctx, src)
}

func (lancefileFormat) NewWriter(w io.Writer, schema *lanceschema.Schema, version string) (dataFileWriter, error) {
	var v lancefile.Version
	switch version {
	case "2.1":
		v = lancefile.V2_1
	case "2.2":
		v = lancefile.V2_2
	case "2.0":
		v = lancefile.V2_0
	default:
		return nil, fmt.Errorf("%w: data storage version %q", ErrReadOnlyFeature, version)
	}
	fw, err := lancefile.NewWriter(w, schema, lancefile.WriterOptions{Version: v})
	if err != nil {
		return nil, err
	}
	return lancefileWriter{fw}, nil
}

type lancefileWriter struct{ w *lancefile.Writer }

func (l lancefileWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	return l.w.Write(ctx, rec)
}

func (l lancefileWriter) Finish(ctx context.Context) (writtenFile, error) {
	s, err := l.w.Finish(ctx)
	if err != nil {
		return writtenFile{}, err
	}
	return writtenFile{NumRows: s.NumRows, Size: uint64(s.Size), Fields: s.Fields, ColumnIndices: s.ColumnIndices, Major: s.Major, Minor: s.Minor}, nil
}
