package dataset

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/storage"
)

// maxDeletionFileSize bounds a deletion file we load (a fragment has at most
// 2^32 rows; real deletion files are far smaller).
const maxDeletionFileSize = 1 << 30

// bitmapThreshold: deletion vectors with more rows than this are written as
// roaring bitmaps, smaller ones as Arrow arrays (Lance makes the same kind
// of choice: arrays for sparse deletions, bitmaps for dense ones).
const bitmapThreshold = 4096

func deletionFilePath(dir string, fragmentID uint64, d *DeletionFile) string {
	return joinPath(dir, deletionsDir, fmt.Sprintf("%d-%d-%d.%s", fragmentID, d.ReadVersion, d.ID, d.Type.suffix()))
}

// readDeletionVector loads the deleted row offsets of a fragment.
func readDeletionVector(ctx context.Context, store storage.Store, dir string, f *Fragment) (*roaring.Bitmap, error) {
	d := f.Deletion
	if d == nil {
		return roaring.New(), nil
	}
	if d.BaseID != nil {
		return nil, fmt.Errorf("%w: deletion file of fragment %d lives in base path %d", ErrUnsupported, f.ID, *d.BaseID)
	}
	p := deletionFilePath(dir, f.ID, d)
	info, err := store.Stat(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("dataset: deletion file of fragment %d: %w", f.ID, err)
	}
	if info.Size > maxDeletionFileSize {
		return nil, corruptf("deletion file %s of %d bytes exceeds the limit", p, info.Size)
	}
	b, err := store.Read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("dataset: deletion file of fragment %d: %w", f.ID, err)
	}
	var bm *roaring.Bitmap
	switch d.Type {
	case DeletionArrow:
		rows := f.PhysicalRows
		if rows == 0 {
			rows = 1 << 32 // not recorded: a fragment's most
		}
		bm, err = decodeArrowDeletions(b, rows)
	case DeletionBitmap:
		bm, err = decodeRoaring(b)
	default:
		err = fmt.Errorf("unknown deletion file type %d", d.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", store.Location(p), corruptf("deletion file: %v", err))
	}
	if f.PhysicalRows > 0 && !bm.IsEmpty() && uint64(bm.Maximum()) >= f.PhysicalRows {
		return nil, fmt.Errorf("%s: %w", store.Location(p), corruptf("deletes row %d of a fragment with %d rows", bm.Maximum(), f.PhysicalRows))
	}
	return bm, nil
}

// maxArrowDeletionBytes caps the decoded values of one Arrow deletion file
// (Lance writes Arrow deletion files only for small deletion vectors;
// larger ones are roaring bitmaps).
const maxArrowDeletionBytes = 256 << 20

// encodeDeletionVector renders deleted offsets in the file type chosen for
// their count.
func encodeDeletionVector(bm *roaring.Bitmap) (DeletionFileType, []byte, error) {
	if bm.GetCardinality() > bitmapThreshold {
		bm.RunOptimize()
		b, err := bm.ToBytes()
		return DeletionBitmap, b, err
	}
	// Arrow IPC file, schema exactly {row_id: uint32 not null} as Lance
	// expects (it compares the schema).
	schema := arrow.NewSchema([]arrow.Field{{Name: "row_id", Type: arrow.PrimitiveTypes.Uint32}}, nil)
	bld := array.NewUint32Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.AppendValues(bm.ToArray(), nil)
	col := bld.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithZstd())
	if err != nil {
		return 0, nil, err
	}
	if err := w.Write(rec); err != nil {
		return 0, nil, err
	}
	if err := w.Close(); err != nil {
		return 0, nil, err
	}
	return DeletionArrow, buf.Bytes(), nil
}

func randomU64() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return binary.LittleEndian.Uint64(b[:])
}
