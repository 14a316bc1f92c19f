package planner

import (
	"context"
	"io"
	"sync/atomic"
)

// LoadProgress is how far a LOAD DATA or IMPORT INTO has got: the input
// rows read (counted as they are read, before the one commit that publishes
// them) and the bytes read from its files or objects.
type LoadProgress struct {
	Rows  int64
	Bytes int64
}

// progressKey is the context key of WithLoadProgress's callback.
type progressKey struct{}

// WithLoadProgress returns a context under which a LOAD DATA or IMPORT INTO
// statement calls fn, on the statement's goroutine, every
// progressEveryRows rows and once more when its input is read, with
// counts that never shrink. It is a context value rather than an Options
// field so that a caller (the CLI) can watch one statement through
// database/sql without a driver option; fn must return quickly.
func WithLoadProgress(ctx context.Context, fn func(LoadProgress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressEveryRows is how many rows pass between two calls of the
// progress callback: rare enough to cost nothing per row.
const progressEveryRows = 8192

// loadTracker counts one statement's progress; a nil *loadTracker (no
// callback in the context) counts nothing.
type loadTracker struct {
	fn    func(LoadProgress)
	rows  int64
	bytes atomic.Int64 // added by readers
}

func newLoadTracker(ctx context.Context) *loadTracker {
	fn, _ := ctx.Value(progressKey{}).(func(LoadProgress))
	if fn == nil {
		return nil
	}
	return &loadTracker{fn: fn}
}

// row counts one input row and reports every progressEveryRows.
func (t *loadTracker) row() {
	if t == nil {
		return
	}
	t.rows++
	if t.rows%progressEveryRows == 0 {
		t.report()
	}
}

// rowsRead counts n input rows read at once, reporting as row would have
// at least once when they pass a multiple of progressEveryRows.
func (t *loadTracker) rowsRead(n int) {
	if t == nil || n <= 0 {
		return
	}
	before := t.rows
	t.rows += int64(n)
	if t.rows/progressEveryRows != before/progressEveryRows {
		t.report()
	}
}

// report calls the callback with the current counts.
func (t *loadTracker) report() {
	if t == nil {
		return
	}
	t.fn(LoadProgress{Rows: t.rows, Bytes: t.bytes.Load()})
}

// reader counts the bytes read through r (r itself when there is nothing
// to count).
func (t *loadTracker) reader(r importReader) importReader {
	if t == nil {
		return r
	}
	return &countedReader{importReader: r, t: t}
}

// importReader is an input file: read in sequence (CSV) or at offsets
// (Parquet's footer and column chunks).
type importReader interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
}

type countedReader struct {
	importReader
	t *loadTracker
}

func (c *countedReader) Read(p []byte) (int, error) {
	n, err := c.importReader.Read(p)
	c.t.bytes.Add(int64(n))
	return n, err
}

func (c *countedReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.importReader.ReadAt(p, off)
	c.t.bytes.Add(int64(n))
	return n, err
}
