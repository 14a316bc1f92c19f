package index

import (
	"context"
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/dataset"
)

// deletedOffsetsReader is implemented by a dataset that can hand out a
// fragment's deletion vector directly.
type deletedOffsetsReader interface {
	DeletedOffsets(ctx context.Context, fragmentID uint64) (*roaring.Bitmap, error)
}

// deletionCache loads each fragment's deleted offsets once.
type deletionCache struct {
	ds *dataset.Dataset
	mu sync.Mutex
	m  map[uint64]*roaring.Bitmap
}

func newDeletionCache(ds *dataset.Dataset) *deletionCache {
	return &deletionCache{ds: ds, m: map[uint64]*roaring.Bitmap{}}
}

func (c *deletionCache) get(ctx context.Context, f *dataset.Fragment) (*roaring.Bitmap, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bm, ok := c.m[f.ID]; ok {
		return bm, nil
	}
	var bm *roaring.Bitmap
	var err error
	if r, ok := any(c.ds).(deletedOffsetsReader); ok {
		bm, err = r.DeletedOffsets(ctx, f.ID)
	} else {
		bm, err = deletedByScan(ctx, c.ds, f)
	}
	if err != nil {
		return nil, fmt.Errorf("deleted rows of fragment %d: %w", f.ID, err)
	}
	c.m[f.ID] = bm
	return bm, nil
}

// deletedByScan derives a fragment's deleted offsets from the live row
// addresses a column-less scan of the fragment returns.
func deletedByScan(ctx context.Context, ds *dataset.Dataset, f *dataset.Fragment) (*roaring.Bitmap, error) {
	live := roaring.New()
	err := ds.Scan(ctx, dataset.ScanOptions{Columns: []string{}, Fragments: []uint64{f.ID}, WithRowAddress: true},
		func(rec arrow.RecordBatch) error {
			col, ok := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
			if !ok {
				return fmt.Errorf("row address column of type %s", rec.Column(int(rec.NumCols())-1).DataType())
			}
			for _, a := range col.Uint64Values() {
				live.Add(uint32(a))
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	del := roaring.New()
	del.AddRange(0, f.PhysicalRows)
	del.AndNot(live)
	return del, nil
}
