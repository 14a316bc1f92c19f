package storage

import (
	"context"
	"os"
)

// RangeOpener is implemented by stores that can hold an object open for
// several range reads (the local store). A scan or take reads one data file
// many times: opening, stat-ing and closing it for every read of a few KiB
// costs more than the read, and each ReadRange allocates a buffer the caller
// then copies from.
type RangeOpener interface {
	// OpenRange opens path for range reads. A missing object fails with
	// ErrNotFound. The caller closes the file.
	OpenRange(ctx context.Context, path string) (RangeFile, error)
}

// RangeFile is one object held open for range reads into the caller's
// buffers. It is safe for concurrent reads.
type RangeFile interface {
	// ReadRangeInto fills dst with the len(dst) bytes at offset. A range
	// that does not lie within the object fails with ErrOutOfRange.
	ReadRangeInto(ctx context.Context, offset int64, dst []byte) error
	// Size is the object's size in bytes when it was opened.
	Size() int64
	Close() error
}

// OpenRange implements RangeOpener: the file stays open until Close, so it
// should be closed soon (per scan batch or take), not cached: on some
// platforms an open file cannot be deleted.
func (s *localStore) OpenRange(ctx context.Context, path string) (RangeFile, error) {
	f, size, err := s.openObject(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	return &localRangeFile{s: s, f: f, path: path, size: size}, nil
}

type localRangeFile struct {
	s    *localStore
	f    *os.File
	path string
	size int64
}

func (l *localRangeFile) Size() int64 { return l.size }

func (l *localRangeFile) Close() error { return l.f.Close() }

func (l *localRangeFile) ReadRangeInto(ctx context.Context, offset int64, dst []byte) error {
	if err := l.s.check(ctx); err != nil {
		return err
	}
	length := int64(len(dst))
	if err := checkRange(l.path, offset, length, l.size); err != nil {
		return err
	}
	return readAtFull(l.f, l.path, offset, dst)
}

// RangeOpenerOf returns s as a RangeOpener, looking through a read-only
// view (reads are what it allows); ok is false when s cannot hold an object
// open.
func RangeOpenerOf(s Store) (o RangeOpener, ok bool) {
	if ro, isRO := s.(readOnlyStore); isRO {
		s = ro.Store
	}
	o, ok = s.(RangeOpener)
	return o, ok
}
