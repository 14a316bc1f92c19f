package dataset

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/storage"
)

// readAheadFixture is a dataset of four fragments (3,000, 5,000, 1 and
// 2,500 rows of the range fixture) on a store whose data reads can fail.
func readAheadFixture(t *testing.T) (*Dataset, *failingStore) {
	t.Helper()
	ctx := context.Background()
	fs := &failingStore{Store: memStore(t)}
	d, err := CreateWithData(ctx, fs, "t", rangeSchema, []arrow.RecordBatch{rangeRecord(t, 0, 3000)}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := int64(3000)
	for _, n := range []int64{5000, 1, 2500} {
		if d, err = d.Append(ctx, []arrow.RecordBatch{rangeRecord(t, from, n)}); err != nil {
			t.Fatal(err)
		}
		from += n
	}
	// A fresh Dataset: no reader is open yet, so reads happen during the scan.
	if d, err = Open(ctx, fs, "t", OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	return d, fs
}

// waitGoroutines fails when the goroutine count does not come back to n
// (the scan's reader goroutine must end with Scan).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < 200 && runtime.NumGoroutine() > n; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > n {
		t.Errorf("%d goroutines after the scan, %d before", g, n)
	}
}

// TestScanReadAheadStops: a scan of many chunks reads ahead on a goroutine
// of its own, and still stops as a sequential scan does: fn's error is
// returned after exactly the batches fn saw, a read error after the batches
// read before it, a cancelled context as the error; every batch read ahead
// is released (nothing left in the allocator) and the reader goroutine ends.
func TestScanReadAheadStops(t *testing.T) {
	d, fs := readAheadFixture(t)
	errStop := errors.New("stop")
	ctx := context.Background()
	before := runtime.NumGoroutine()

	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	calls := 0
	err := d.Scan(ctx, ScanOptions{BatchSize: 333, WithRowAddress: true, Allocator: mem}, func(rec arrow.RecordBatch) error {
		calls++
		if calls == 5 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) || calls != 5 {
		t.Fatalf("fn stopping at batch 5: err %v after %d calls", err, calls)
	}
	mem.AssertSize(t, 0)
	waitGoroutines(t, before)

	// Reads fail from the third batch fn sees: the batches before the
	// failure arrive, then the error.
	mem = memory.NewCheckedAllocator(memory.DefaultAllocator)
	calls = 0
	err = d.Scan(ctx, ScanOptions{BatchSize: 333, WithRowAddress: true, Allocator: mem}, func(rec arrow.RecordBatch) error {
		calls++
		if calls == 2 {
			fs.fail.Store(true)
		}
		return nil
	})
	fs.fail.Store(false)
	if !errors.Is(err, errInjected) || calls < 2 {
		t.Fatalf("failing reads: err %v after %d calls", err, calls)
	}
	mem.AssertSize(t, 0)
	waitGoroutines(t, before)

	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	err = d.Scan(cctx, ScanOptions{BatchSize: 333}, func(rec arrow.RecordBatch) error {
		if calls++; calls == 3 {
			cancel()
		}
		return nil
	})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled scan: %v after %d calls", err, calls)
	}
	waitGoroutines(t, before)
}

// pairingFormat is the real file format whose first ReadRange waits (up to
// a few seconds) for a second one to start: it tells whether a scan
// decodes two chunks at once.
type pairingFormat struct {
	fileFormat
	calls  *atomic.Int64
	second chan struct{} // closed by the second ReadRange
	paired *atomic.Bool  // the first ReadRange saw the second start
}

type pairingReader struct {
	dataFileReader
	p pairingFormat
}

func (p pairingFormat) Open(ctx context.Context, store storage.Store, path string, size int64) (dataFileReader, error) {
	r, err := p.fileFormat.Open(ctx, store, path, size)
	if err != nil {
		return nil, err
	}
	return pairingReader{r, p}, nil
}

func (r pairingReader) ReadRange(ctx context.Context, ids []int32, start, end uint64) (arrow.RecordBatch, error) {
	switch r.p.calls.Add(1) {
	case 1:
		select {
		case <-r.p.second:
			r.p.paired.Store(true)
		case <-time.After(5 * time.Second):
		}
	case 2:
		close(r.p.second)
	}
	return r.dataFileReader.ReadRange(ctx, ids, start, end)
}

// TestScanDecodesChunksInParallel: a scan of many chunks without offset or
// limit decodes two chunks at once (scanParallel) and still returns every
// row in order; a filtered scan too. Stopping it early (fn's error, a
// cancelled context) releases every batch decoded ahead and ends its
// goroutines (the -race run checks the decoders share nothing unguarded).
func TestScanDecodesChunksInParallel(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: the scan decodes one chunk at a time")
	}
	d, want, ids := rangeFixture(t, "2.1", []int64{3000, 5000, 1, 2500}, true)
	for _, filtered := range []bool{false, true} {
		old := formats
		p := pairingFormat{fileFormat: old, calls: &atomic.Int64{}, second: make(chan struct{}), paired: &atomic.Bool{}}
		formats = p
		// A fresh Dataset: no reader is cached, every one goes through p.
		fresh, err := Open(context.Background(), d.store, d.dir, OpenOptions{})
		if err != nil {
			formats = old
			t.Fatal(err)
		}
		opts := ScanOptions{BatchSize: 500, WithRowAddress: true}
		kept := want
		if filtered {
			opts.Filter = idFilter([]string{"id"}, func(id int64) bool { return id%3 != 0 })
			kept = nil
			for i, id := range ids {
				if id%3 != 0 {
					kept = append(kept, want[i])
				}
			}
		}
		got := rowsOf(t, fresh, opts)
		formats = old
		if !p.paired.Load() {
			t.Errorf("filtered=%v: no two chunks were decoded at once", filtered)
		}
		if strings.Join(got, "\n") != strings.Join(kept, "\n") {
			t.Fatalf("filtered=%v: %d rows, want %d; first difference %s", filtered, len(got), len(kept), firstDiff(got, kept))
		}
	}

	before := runtime.NumGoroutine()
	errStop := errors.New("stop")
	for _, filtered := range []bool{false, true} {
		opts := ScanOptions{BatchSize: 250}
		if filtered {
			opts.Filter = idFilter([]string{"id"}, func(id int64) bool { return id%2 == 0 })
		}
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		opts.Allocator = mem
		calls := 0
		err := d.Scan(context.Background(), opts, func(rec arrow.RecordBatch) error {
			if calls++; calls == 4 {
				return errStop
			}
			return nil
		})
		if !errors.Is(err, errStop) || calls != 4 {
			t.Fatalf("filtered=%v: fn stopping at batch 4: err %v after %d calls", filtered, err, calls)
		}
		mem.AssertSize(t, 0)
		waitGoroutines(t, before)

		ctx, cancel := context.WithCancel(context.Background())
		calls = 0
		err = d.Scan(ctx, opts, func(rec arrow.RecordBatch) error {
			if calls++; calls == 2 {
				cancel()
			}
			return nil
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("filtered=%v: cancelled scan: %v after %d calls", filtered, err, calls)
		}
		mem.AssertSize(t, 0)
		waitGoroutines(t, before)

		// Already cancelled: no batch, the context's error.
		err = d.Scan(ctx, opts, func(rec arrow.RecordBatch) error {
			t.Error("a batch from a cancelled scan")
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("filtered=%v: scan under a cancelled context: %v", filtered, err)
		}
		waitGoroutines(t, before)
	}
}
