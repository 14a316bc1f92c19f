package index

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	lancefile "github.com/lancecat/lancecat/lance/file"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// fileReader is what the index needs from a Lance file reader
// (*lancefile.Reader).
type fileReader interface {
	NumRows() uint64
	Schema() *lanceschema.Schema
	ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64) (arrow.Record, error)
	GlobalBuffer(ctx context.Context, i int) ([]byte, error)
	Stats() lancefile.Stats
}

// Stats counts the work done by an index: the bytes and read calls its files
// fetched from storage and the index rows (lookup entries, page values and
// row ids, bitmap keys) it decoded.
type Stats struct {
	BytesRead   int64
	Reads       int64
	RowsDecoded int64
	FilesOpened int64
}

// Sub returns s - o (the work done between two snapshots).
func (s Stats) Sub(o Stats) Stats {
	return Stats{s.BytesRead - o.BytesRead, s.Reads - o.Reads, s.RowsDecoded - o.RowsDecoded, s.FilesOpened - o.FilesOpened}
}

// segmentFiles opens the files of one index segment (the directory
// _indices/<uuid>/ of a dataset) once each and counts their work.
type segmentFiles struct {
	store storage.Store
	dir   string
	sizes map[string]int64

	mu      sync.Mutex
	readers map[string]fileReader

	rows   atomic.Int64
	opened atomic.Int64
}

func newSegmentFiles(store storage.Store, dir string, sizes map[string]int64) *segmentFiles {
	return &segmentFiles{store: store, dir: dir, sizes: sizes, readers: map[string]fileReader{}}
}

func (f *segmentFiles) open(ctx context.Context, name string) (fileReader, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.readers[name]; ok {
		return r, nil
	}
	p := path.Join(f.dir, name)
	src, err := lancefile.NewStoreSource(ctx, f.store, p, f.sizes[name])
	if errors.Is(err, storage.ErrNotFound) {
		// The manifest lists an index file the table does not have.
		return nil, corruptf("index file %s is missing: %v", p, err)
	}
	if err != nil {
		return nil, fmt.Errorf("index file %s: %w", p, err)
	}
	r, err := lancefile.Open(ctx, src)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, corruptf("index file %s is missing: %v", p, err)
	}
	if err != nil {
		return nil, fmt.Errorf("index file %s: %w", p, err)
	}
	f.opened.Add(1)
	f.readers[name] = r
	return r, nil
}

func (f *segmentFiles) readRange(ctx context.Context, r fileReader, ids []int32, start, end uint64) (arrow.Record, error) {
	rec, err := r.ReadRange(ctx, ids, start, end)
	if err != nil {
		return nil, err
	}
	if uint64(rec.NumRows()) != end-start || int(rec.NumCols()) != len(ids) {
		rec.Release()
		return nil, corruptf("read of rows [%d,%d) returned %d rows, %d columns", start, end, rec.NumRows(), rec.NumCols())
	}
	f.rows.Add(int64(end - start))
	return rec, nil
}

func (f *segmentFiles) globalBuffer(ctx context.Context, r fileReader, i int) ([]byte, error) {
	return r.GlobalBuffer(ctx, i)
}

func (f *segmentFiles) stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Stats{RowsDecoded: f.rows.Load(), FilesOpened: f.opened.Load()}
	for _, r := range f.readers {
		rs := r.Stats()
		s.BytesRead += rs.BytesRead
		s.Reads += rs.Reads
	}
	return s
}

// fieldIDs resolves top-level column names of an index file to field ids.
func fieldIDs(s *lanceschema.Schema, names ...string) ([]int32, error) {
	out := make([]int32, len(names))
	for i, n := range names {
		f := s.Field(n)
		if f == nil {
			return nil, corruptf("index file has no column %q", n)
		}
		out[i] = f.ID
	}
	return out, nil
}
