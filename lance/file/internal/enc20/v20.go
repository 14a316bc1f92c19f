// Package enc20 decodes the pages of Lance file format 2.0 files (footer
// version 0.3): the legacy "array encodings" of encodings_v2_0.proto
// (nullable, flat, bit-packed, binary, FSST, dictionary, fixed-size list,
// fixed-size binary) and the 2.0 mapping of fields to columns, where every
// field of the schema owns one column: a struct has a header column without
// data followed by its children's columns, a list has a column of offsets
// followed by its item field's columns, and a fixed-size list of a
// primitive is a single column.
//
// The container (footer, column metadata, buffer reads) belongs to package
// lancefile, which calls Read through the small ColumnSource interface.
package enc20

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// Errors. Match with errors.Is; package lancefile also wraps them in its own
// ErrCorrupt / ErrUnsupportedEncoding.
var (
	// ErrCorrupt: a length, offset, count or encoding is inconsistent.
	ErrCorrupt = errors.New("lance 2.0: corrupt page")
	// ErrUnsupported: a valid 2.0 encoding (or type) this package does not decode.
	ErrUnsupported = errors.New("lance 2.0: unsupported encoding")
)

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// Range is a byte range of the file.
type Range struct {
	Position uint64
	Size     uint64
}

// ColumnSource is what the decoder needs from the file container.
type ColumnSource interface {
	// ColumnIndex maps a field id to its column (-1: none).
	ColumnIndex(fieldID int32) int
	// ColumnMetadata returns column col's metadata as stored (not validated).
	ColumnMetadata(ctx context.Context, col int) (*file2pb.ColumnMetadata, error)
	// DataEnd is the end of the data area: page and column buffers lie before it.
	DataEnd() uint64
	// ReadRanges reads byte ranges of the file (each already checked to lie
	// before DataEnd).
	ReadRanges(ctx context.Context, ranges []Range) ([][]byte, error)
	// GlobalBuffer reads global buffer i of the file.
	GlobalBuffer(ctx context.Context, i int) ([]byte, error)
}

// Limits that bound what corrupt metadata can make the decoder allocate.
const (
	// maxDecompressed bounds the output of one general (zstd / lz4) buffer.
	maxDecompressed = 1 << 30
	// maxItems bounds the values materialized for one request (rows times
	// fixed-size-list dimensions, list items).
	maxItems = 1 << 31
	// maxPageValues bounds the values of one page (or one nested array in it).
	maxPageValues = 1 << 28
	// maxDimension bounds a fixed-size list dimension or binary width.
	maxDimension = 1 << 24
)

// Read decodes fields (top-level fields of the file's schema) for the row
// ranges ([start, end), in the order and with the repeats wanted) and returns one array per
// field, each of nRows rows (the sum of the range lengths).
func Read(ctx context.Context, src ColumnSource, fields []*lanceschema.Field, ranges [][2]uint64, nRows uint64) ([]arrow.Array, error) {
	var sum uint64
	for _, r := range ranges {
		if r[0] > r[1] {
			return nil, fmt.Errorf("lance 2.0: bad row range %v", r)
		}
		sum += r[1] - r[0]
	}
	if sum != nRows {
		return nil, fmt.Errorf("lance 2.0: ranges hold %d rows, want %d", sum, nRows)
	}
	rd := &reader{src: src, cols: map[int]*column{}, pages: map[pageKey]*vals{}}
	out := make([]arrow.Array, 0, len(fields))
	for _, f := range fields {
		dt, err := f.ArrowType()
		if err != nil {
			releaseAll(out)
			return nil, unsupportedf("field %q: %v", f.Name, err)
		}
		d, err := rd.readField(ctx, f, dt, ranges)
		if err != nil {
			releaseAll(out)
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		if uint64(d.Len()) != nRows {
			d.Release()
			releaseAll(out)
			return nil, corruptf("field %q decoded %d rows, want %d", f.Name, d.Len(), nRows)
		}
		out = append(out, array.MakeFromData(d))
		d.Release()
	}
	return out, nil
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}
