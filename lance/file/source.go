package lancefile

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/lancecat/lancecat/storage"
)

// Source is random access to the bytes of one file.
type Source interface {
	// ReadRange returns exactly length bytes at offset.
	ReadRange(ctx context.Context, offset, length int64) ([]byte, error)
	// Size is the file size in bytes.
	Size() int64
}

// BytesSource serves a file held in memory.
type BytesSource []byte

// ReadRange implements Source.
func (b BytesSource) ReadRange(_ context.Context, offset, length int64) ([]byte, error) {
	if offset < 0 || length < 0 || offset > int64(len(b)) || length > int64(len(b))-offset {
		return nil, fmt.Errorf("%w: range %d+%d outside %d bytes", ErrCorrupt, offset, length, len(b))
	}
	return b[offset : offset+length : offset+length], nil
}

// Size implements Source.
func (b BytesSource) Size() int64 { return int64(len(b)) }

type storeSource struct {
	store storage.Store
	path  string
	size  int64
}

// NewStoreSource serves path of store. A size <= 0 is looked up with Stat.
func NewStoreSource(ctx context.Context, store storage.Store, path string, size int64) (Source, error) {
	if size <= 0 {
		info, err := store.Stat(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("lancefile: stat %s: %w", path, err)
		}
		size = info.Size
	}
	return &storeSource{store: store, path: path, size: size}, nil
}

func (s *storeSource) ReadRange(ctx context.Context, offset, length int64) ([]byte, error) {
	if length == 0 {
		return nil, nil
	}
	b, err := s.store.ReadRange(ctx, s.path, offset, length)
	if err != nil {
		return nil, fmt.Errorf("lancefile: read %s [%d,+%d): %w", s.path, offset, length, err)
	}
	if int64(len(b)) != length {
		return nil, fmt.Errorf("%w: short read of %s: %d of %d bytes", ErrCorrupt, s.path, len(b), length)
	}
	return b, nil
}

func (s *storeSource) Size() int64 { return s.size }

// Stats counts the I/O and decoding work of a Reader.
type Stats struct {
	BytesRead     int64 // bytes fetched from the Source
	Reads         int64 // ReadRange calls on the Source
	PagesDecoded  int64 // pages (or page parts) decoded
	ChunksDecoded int64 // mini-block chunks decoded
}

type counters struct {
	bytesRead, reads, pages, chunks atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{BytesRead: c.bytesRead.Load(), Reads: c.reads.Load(), PagesDecoded: c.pages.Load(), ChunksDecoded: c.chunks.Load()}
}

// read fetches [off, off+n) from the source after checking it lies in the file.
func (r *Reader) read(ctx context.Context, off, n uint64) ([]byte, error) {
	size := uint64(r.src.Size())
	if off > size || n > size-off {
		return nil, corruptf("range %d+%d outside file of %d bytes", off, n, size)
	}
	if n == 0 {
		return nil, nil
	}
	if rr, ok := ctx.Value(heldFileKey{}).(*rangeReads); ok && rr.r == r && rr.f != nil {
		b := make([]byte, n)
		if err := rr.readInto(ctx, off, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := r.src.ReadRange(ctx, int64(off), int64(n))
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) != n {
		return nil, corruptf("short read: %d of %d bytes", len(b), n)
	}
	r.stats.reads.Add(1)
	r.stats.bytesRead.Add(int64(n))
	return b, nil
}

// rangeReads reads parts of the file straight into the caller's buffers,
// through one open file where the store can hold it open
// (storage.RangeOpener): a read of many ranges (a take of scattered rows, a
// scan chunk over several pages) neither reopens the file per range nor
// allocates and copies a buffer per range. close it when done.
type rangeReads struct {
	r *Reader
	f storage.RangeFile // nil: Source.ReadRange and a copy
}

func (r *Reader) openReads(ctx context.Context) (*rangeReads, error) {
	rr := &rangeReads{r: r}
	if s, ok := r.src.(*storeSource); ok {
		if o, ok := storage.RangeOpenerOf(s.store); ok {
			f, err := o.OpenRange(ctx, s.path)
			if err != nil {
				return nil, fmt.Errorf("lancefile: open %s: %w", s.path, err)
			}
			rr.f = f
		}
	}
	return rr, nil
}

// opensRanges reports whether the source's store holds a file open for
// several reads (storage.RangeOpener).
func (r *Reader) opensRanges() bool {
	s, ok := r.src.(*storeSource)
	if !ok {
		return false
	}
	_, ok = storage.RangeOpenerOf(s.store)
	return ok
}

// readInto fills dst with the file's bytes at off, after checking they lie
// in the file.
func (rr *rangeReads) readInto(ctx context.Context, off uint64, dst []byte) error {
	n := uint64(len(dst))
	if rr.f == nil {
		b, err := rr.r.read(ctx, off, n)
		if err != nil {
			return err
		}
		copy(dst, b)
		return nil
	}
	if size := uint64(rr.r.src.Size()); off > size || n > size-off {
		return corruptf("range %d+%d outside file of %d bytes", off, n, size)
	}
	if n == 0 {
		return nil
	}
	if err := rr.f.ReadRangeInto(ctx, int64(off), dst); err != nil {
		return fmt.Errorf("lancefile: read %s [%d,+%d): %w", rr.r.src.(*storeSource).path, off, n, err)
	}
	rr.r.stats.reads.Add(1)
	rr.r.stats.bytesRead.Add(int64(n))
	return nil
}

// heldFileKey is the context key of the rangeReads that Reader.read uses
// instead of Source.ReadRange while one ReadRange/Take call of that Reader
// runs (withHeldFile).
type heldFileKey struct{}

// withHeldFile opens r's file once for the reads of one ReadRange/Take call
// where the store can hold it open: a scan chunk reads each column's page
// part separately, and opening, stat-ing and closing the file for each of
// those reads cost as much CPU as reading the bytes (TPC-H Q6 at SF 1: 40
// of 90 ms in Reader.read). The returned done closes the file; ctx is
// returned unchanged when the store cannot hold files open.
func (r *Reader) withHeldFile(ctx context.Context) (context.Context, func(), error) {
	if !r.opensRanges() {
		return ctx, func() {}, nil
	}
	rr, err := r.openReads(ctx)
	if err != nil {
		return nil, nil, err
	}
	return context.WithValue(ctx, heldFileKey{}, rr), rr.close, nil
}

func (rr *rangeReads) close() {
	if rr.f != nil {
		rr.f.Close()
	}
}
