package lancefile

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/lance/file/internal/enc20"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// v20Source serves the container of a 2.0 file to package enc20. Column
// metadata is parsed here without the row-count check of 2.1 columns: in 2.0
// the item column of a list holds items, not rows.
type v20Source struct {
	r  *Reader
	fr *fileReads // the reads of the ReadRange/Take call
}

var _ enc20.ColumnSource = v20Source{}

func (s v20Source) ColumnIndex(fieldID int32) int { return s.r.ColumnIndex(fieldID) }

func (s v20Source) DataEnd() uint64 { return s.r.footer.ColumnMetaStart }

func (s v20Source) ColumnMetadata(ctx context.Context, c int) (*file2pb.ColumnMetadata, error) {
	r := s.r
	if c < 0 || c >= len(r.colMetaRefs) {
		return nil, corruptf("column %d of %d", c, len(r.colMetaRefs))
	}
	ref := r.colMetaRefs[c]
	if ref.Position < r.footer.ColumnMetaStart || ref.Size > maxMetadataBytes {
		return nil, corruptf("column %d metadata at %d+%d", c, ref.Position, ref.Size)
	}
	b, err := s.fr.readAt(ctx, ref.Position, ref.Size)
	if err != nil {
		return nil, err
	}
	var cm file2pb.ColumnMetadata
	if err := proto.Unmarshal(b, &cm); err != nil {
		return nil, corruptf("column %d metadata: %v", c, err)
	}
	return &cm, nil
}

func (s v20Source) ReadRanges(ctx context.Context, ranges []enc20.Range) ([][]byte, error) {
	out := make([][]byte, len(ranges))
	for i, rg := range ranges {
		b, err := s.fr.readAt(ctx, rg.Position, rg.Size)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (s v20Source) GlobalBuffer(ctx context.Context, i int) ([]byte, error) {
	if i < 0 || i >= len(s.r.globalBufs) {
		return nil, fmt.Errorf("%w: global buffer %d of %d", ErrInvalidArgument, i, len(s.r.globalBufs))
	}
	g := s.r.globalBufs[i]
	return s.fr.readAt(ctx, g.Position, g.Size)
}

// readRangesV20 is readRanges for 2.0 files (legacy array encodings).
func (r *Reader) readRangesV20(ctx context.Context, fr *fileReads, fieldIDs []int32, ranges [][2]uint64, nRows uint64) (arrow.Record, error) {
	fields := make([]*lanceschema.Field, len(fieldIDs))
	afs := make([]arrow.Field, len(fieldIDs))
	for i, id := range fieldIDs {
		for _, tf := range r.schema.Fields {
			if tf.ID == id {
				fields[i] = tf
			}
		}
		if fields[i] == nil {
			return nil, fmt.Errorf("%w: field id %d is not a top-level field of the file", ErrInvalidArgument, id)
		}
		af, err := fields[i].ArrowField()
		if err != nil {
			return nil, fmt.Errorf("%w: field %q: %v", ErrUnsupportedEncoding, fields[i].Name, err)
		}
		afs[i] = af
	}
	cols, err := enc20.Read(ctx, v20Source{r: r, fr: fr}, fields, ranges, nRows)
	if err != nil {
		switch {
		case errors.Is(err, enc20.ErrCorrupt):
			err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		case errors.Is(err, enc20.ErrUnsupported):
			err = fmt.Errorf("%w: %w", ErrUnsupportedEncoding, err)
		}
		return nil, fmt.Errorf("lancefile: %w", err)
	}
	rec := array.NewRecord(arrow.NewSchema(afs, nil), cols, int64(nRows))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}
