package exec

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// A partitioned hash join's files: each partition of each side is one
// temporary file of records (row, key; rowcodec.go), written through a buffer and
// read back once. They live in the spill area's directory (the planner's
// per-process spill directory, with its sweep of dead processes' files)
// and are removed as soon as their partition is joined, and all of them
// when the join ends, fails, is cancelled or closed.

// SpillArea is where an operator's temporary files go: Acquire returns
// the directory (created on first use), Release ends one Acquire.
type SpillArea interface {
	Acquire() (dir string, err error)
	Release()
}

const (
	// spillFanout is how many partitions a spilling join splits each
	// side into per level.
	spillFanout = 16
	// maxSpillDepth bounds re-partitioning (16^3 partitions): a build
	// side whose one key is bigger than the budget still fails.
	maxSpillDepth = 3
	spillBuffer   = 32 << 10
)

func init() {
	// Values of rows that gob carries inside interfaces, for the records
	// the spill layout sends through gob: times, and lists and structs as
	// []any and map[string]any.
	gob.Register(time.Time{})
	gob.Register([]any(nil))
	gob.Register(map[string]any(nil))
}

// partitionOf is the partition of hash h at level depth (each level
// hashes differently, so a partition re-split spreads).
func partitionOf(h uint64, depth int) int {
	return int(mix64(h^(uint64(depth+1)*0x9e3779b97f4a7c15)) >> 32 % spillFanout)
}

type spillFiles struct {
	area     SpillArea
	dir      string
	acquired bool
	open     map[*spillFile]bool
}

type spillFile struct {
	f       *os.File
	w       *bufio.Writer
	scratch []byte // one encoded record
	n       int64
}

// SpillError is a failure of a join's temporary files.
type SpillError struct{ Err error }

func (e *SpillError) Error() string { return fmt.Sprintf("hash join spill: %v", e.Err) }
func (e *SpillError) Unwrap() error { return e.Err }

func (s *spillFiles) create(n int, side string) ([]*spillFile, error) {
	if !s.acquired {
		dir, err := s.area.Acquire()
		if err != nil {
			return nil, &SpillError{err}
		}
		s.dir, s.acquired = dir, true
		s.open = map[*spillFile]bool{}
	}
	out := make([]*spillFile, n)
	for i := range out {
		f, err := os.CreateTemp(s.dir, "lancecat-join-"+side+"-*.part")
		if err != nil {
			return nil, &SpillError{err}
		}
		sf := &spillFile{f: f, w: bufio.NewWriterSize(f, spillBuffer)}
		s.open[sf] = true
		out[i] = sf
	}
	return out, nil
}

func (f *spillFile) write(r joinRec) error {
	f.n++
	var err error
	if f.scratch, err = appendRecord(f.scratch[:0], &r); err != nil {
		return &SpillError{fmt.Errorf("encode: %w", err)}
	}
	if _, err := f.w.Write(f.scratch); err != nil {
		return &SpillError{err}
	}
	return nil
}

// finish flushes the file and rewinds it for reading.
func (f *spillFile) finish() error {
	if err := f.w.Flush(); err != nil {
		return &SpillError{err}
	}
	f.w, f.scratch = nil, nil
	if _, err := f.f.Seek(0, io.SeekStart); err != nil {
		return &SpillError{err}
	}
	return nil
}

// source reads the file's records back (hash recomputes their hashes).
func (f *spillFile) source(ctx context.Context, hash func([]any) (uint64, bool)) recSource {
	dec := &recordReader{r: bufio.NewReaderSize(f.f, spillBuffer)}
	var read int64
	return func() (joinRec, bool, error) {
		if read >= f.n {
			return joinRec{}, false, nil
		}
		if read%BatchSize == 0 {
			if err := ctx.Err(); err != nil {
				return joinRec{}, false, err
			}
		}
		read++
		r, err := dec.read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return joinRec{}, false, &SpillError{fmt.Errorf("decode: %w", err)}
		}
		if !r.Null {
			r.h, _ = hash(r.Key)
		}
		return r, true, nil
	}
}

func (s *spillFiles) remove(f *spillFile) {
	if !s.open[f] {
		return
	}
	delete(s.open, f)
	f.f.Close()
	os.Remove(f.f.Name())
}

// close removes every file left and releases the area.
func (s *spillFiles) close() {
	for f := range s.open {
		s.remove(f)
	}
	if s.acquired {
		s.area.Release()
		s.acquired = false
	}
}
