package dataset

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
