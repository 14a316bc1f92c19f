package dataset

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// dataFileReader is what a scan needs from a Lance data file.
type dataFileReader interface {
	NumRows() uint64
	// ReadRange reads rows [start, end) of the given top-level fields (ids
	// of the file's schema) and returns one column per id, in that order.
	ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64) (arrow.RecordBatch, error)
}

// writtenFile is what a data file writer reports when it finishes.
type writtenFile struct {
	NumRows       uint64
	Size          uint64
	Fields        []int32
	ColumnIndices []int32
	Major, Minor  uint32
}

// dataFileWriter writes one Lance data file.
type dataFileWriter interface {
	Write(ctx context.Context, rec arrow.RecordBatch) error
	Finish(ctx context.Context) (writtenFile, error)
}

// fileFormat opens and creates Lance data files. The production format is
// lance/file (see lancefile.go); tests may substitute their own.
type fileFormat interface {
	Open(ctx context.Context, store storage.Store, path string, size int64) (dataFileReader, error)
	NewWriter(w io.Writer, schema *lanceschema.Schema, version string) (dataFileWriter, error)
}

// formats is the file format in use (replaced by tests).
var formats fileFormat = lancefileFormat{}

// checkWriteFormat reports whether data files of the given storage version
// can be written.
func checkWriteFormat(version string) error {
	switch version {
	case "2.0", "2.1", "2.2":
		return nil
	}
	return fmt.Errorf("%w: data storage version %q", ErrReadOnlyFeature, version)
}
