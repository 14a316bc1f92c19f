package lancefile

import (
	"context"
	"fmt"
	"sync"
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

// read fetches [off, off+n) from the source after checking it lies in the
// file. It serves Open and the metadata reads; the reads of one
// ReadRange/Take call go through that call's fileReads.
func (r *Reader) read(ctx context.Context, off, n uint64) ([]byte, error) {
	size := uint64(r.src.Size())
	if off > size || n > size-off {
		return nil, corruptf("range %d+%d outside file of %d bytes", off, n, size)
	}
	if n == 0 {
		return nil, nil
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

// fileReads is how the decoding of one ReadRange/Take call reads the file,
// handed down explicitly to every function that reads page bytes. Where the
// store can hold a file open (storage.RangeOpener) it reads through one
// open file, straight into the caller's buffers: a scan chunk reads each
// column's page part separately, and opening, stat-ing and closing the file
// for each of those reads cost as much CPU as reading the bytes (TPC-H Q6
// at SF 1: 40 of 90 ms in Reader.read). Otherwise it reads through
// Source.ReadRange. close it when the call is done.
type fileReads struct {
	r *Reader
	f storage.RangeFile // nil: Source.ReadRange (and a copy for readInto)
	// scratch is readTransient's buffer, from scratchBuffers while open.
	scratch *[]byte
}

// scratchBuffers holds readTransient buffers (*[]byte) between calls: a
// scan reads the same few column chunk sizes over and over.
var scratchBuffers sync.Pool

// maxPooledScratch bounds the buffers kept in scratchBuffers.
const maxPooledScratch = 4 << 20

// sourceReads reads through Source.ReadRange, holding nothing open.
func (r *Reader) sourceReads() *fileReads { return &fileReads{r: r} }

// openReads returns the reads of one call: through one open file where the
// store can hold it open, otherwise through Source.ReadRange.
func (r *Reader) openReads(ctx context.Context) (*fileReads, error) {
	fr := &fileReads{r: r}
	if s, ok := r.src.(*storeSource); ok {
		if o, ok := storage.RangeOpenerOf(s.store); ok {
			f, err := o.OpenRange(ctx, s.path)
			if err != nil {
				return nil, fmt.Errorf("lancefile: open %s: %w", s.path, err)
			}
			fr.f = f
		}
	}
	return fr, nil
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

// read returns the file's bytes [off, off+n): a fresh buffer filled from
// the open file, or the Source's bytes.
func (fr *fileReads) read(ctx context.Context, off, n uint64) ([]byte, error) {
	if fr.f == nil {
		return fr.r.read(ctx, off, n)
	}
	if err := fr.r.checkRange(off, n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	b := make([]byte, n)
	if err := fr.readInto(ctx, off, b); err != nil {
		return nil, err
	}
	return b, nil
}

// readTransient is read into a buffer the call's next readTransient
// overwrites, for bytes that are decoded into buffers of their own at once
// (nothing built from them keeps a slice of them): a mini-block chunk range
// of bit-packed or dictionary values. It saves allocating and zeroing a
// buffer per column per chunk. From a source that is not a held file it
// is read.
func (fr *fileReads) readTransient(ctx context.Context, off, n uint64) ([]byte, error) {
	if fr.f == nil {
		return fr.r.read(ctx, off, n)
	}
	if err := fr.r.checkRange(off, n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	if fr.scratch == nil {
		if p, ok := scratchBuffers.Get().(*[]byte); ok {
			fr.scratch = p
		} else {
			fr.scratch = new([]byte)
		}
	}
	if uint64(cap(*fr.scratch)) < n {
		*fr.scratch = make([]byte, n)
	}
	b := (*fr.scratch)[:n]
	if err := fr.readInto(ctx, off, b); err != nil {
		return nil, err
	}
	return b, nil
}

// readAt is read served from the tail read when the range lies inside it
// (column metadata, global buffers).
func (fr *fileReads) readAt(ctx context.Context, off, n uint64) ([]byte, error) {
	if b, ok := fr.r.fromTail(off, n); ok {
		return b, nil
	}
	return fr.read(ctx, off, n)
}

// checkRange checks that [off, off+n) lies in the file.
func (r *Reader) checkRange(off, n uint64) error {
	if size := uint64(r.src.Size()); off > size || n > size-off {
		return corruptf("range %d+%d outside file of %d bytes", off, n, size)
	}
	return nil
}

// readInto fills dst with the file's bytes at off, after checking they lie
// in the file.
func (fr *fileReads) readInto(ctx context.Context, off uint64, dst []byte) error {
	n := uint64(len(dst))
	if fr.f == nil {
		b, err := fr.r.read(ctx, off, n)
		if err != nil {
			return err
		}
		copy(dst, b)
		return nil
	}
	if err := fr.r.checkRange(off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := fr.f.ReadRangeInto(ctx, int64(off), dst); err != nil {
		return fmt.Errorf("lancefile: read %s [%d,+%d): %w", fr.r.src.(*storeSource).path, off, n, err)
	}
	fr.r.stats.reads.Add(1)
	fr.r.stats.bytesRead.Add(int64(n))
	return nil
}

// close closes the held file, if any.
func (fr *fileReads) close() {
	if fr.f != nil {
		fr.f.Close()
	}
	if fr.scratch != nil && cap(*fr.scratch) <= maxPooledScratch {
		scratchBuffers.Put(fr.scratch)
	}
	fr.scratch = nil
}
