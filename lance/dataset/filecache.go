package dataset

import (
	"context"
	"errors"
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lancecat/lancecat/storage"
)

// openFileCacheSize bounds the data file readers one Dataset keeps open. A
// reader holds the file's footer, tail and the metadata decoded so far
// (column metadata, mini-block chunk tables, dictionaries): tens of KiB for
// a catalog-sized file. Enough for every fragment of a compact table; a
// dataset with more fragments keeps the most recently read ones.
const openFileCacheSize = 64

// openFiles keeps the data file readers of one dataset version. Lance data
// files are immutable (every write creates a new, uniquely named file), so
// a reader opened once serves every later scan and take of the version:
// they skip re-reading the footer, the file descriptor and the column and
// page metadata (the reference keeps the same things in its session's
// metadata cache).
type openFiles struct {
	once  sync.Once
	cache *lru.Cache[string, dataFileReader]
}

func (o *openFiles) get() *lru.Cache[string, dataFileReader] {
	o.once.Do(func() {
		// New fails only for a size <= 0.
		o.cache, _ = lru.New[string, dataFileReader](openFileCacheSize)
	})
	return o.cache
}

// openDataFile returns a reader of data file df of fragment f, opened once
// per Dataset and kept (bounded by openFileCacheSize). Readers are safe for
// concurrent use; two scans racing to open the same file may both open it,
// and one of the readers is kept.
func (d *Dataset) openDataFile(ctx context.Context, f *Fragment, df *DataFile) (dataFileReader, error) {
	p, err := d.dataFilePath(df)
	if err != nil {
		return nil, err
	}
	cache := d.files.get()
	if r, ok := cache.Get(p); ok {
		return r, nil
	}
	r, err := formats.Open(ctx, d.store, p, int64(df.SizeBytes))
	if errors.Is(err, storage.ErrNotFound) {
		// The manifest names a file the table does not have.
		return nil, fmt.Errorf("dataset: fragment %d: %w", f.ID, corruptf("data file %s is missing: %w", d.store.Location(p), err))
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: fragment %d: open %s: %w", f.ID, d.store.Location(p), err)
	}
	cache.Add(p, r)
	return r, nil
}
