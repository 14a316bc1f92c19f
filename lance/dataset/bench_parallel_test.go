//go:build unix

package dataset

// BenchmarkScanFragments measures a scan of every column of a
// four-fragment dataset on a local store (scanParallel's case: no offset,
// no limit), reporting user CPU beside wall time: on two cores the wall
// time is what decoding two chunks at once shortens.

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/storage"
)

func userCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}

func BenchmarkScanFragments(b *testing.B) {
	ctx := context.Background()
	store, err := storage.Open(ctx, b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	const perFragment = 65536
	d, err := CreateWithData(ctx, store, "t", rangeSchema, []arrow.RecordBatch{rangeRecord(b, 0, perFragment)}, CreateOptions{DataStorageVersion: "2.1"})
	if err != nil {
		b.Fatal(err)
	}
	for i := int64(1); i < 4; i++ {
		if d, err = d.Append(ctx, []arrow.RecordBatch{rangeRecord(b, i*perFragment, perFragment)}); err != nil {
			b.Fatal(err)
		}
	}
	scan := func() {
		var sum int64
		if err := d.Scan(ctx, ScanOptions{}, func(rec arrow.RecordBatch) error {
			for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
				sum += v
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if want := int64(4*perFragment) * (4*perFragment - 1) / 2; sum != want {
			b.Fatalf("sum of ids %d, want %d", sum, want)
		}
	}
	scan() // open and cache the readers
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := userCPU()
	for i := 0; i < b.N; i++ {
		scan()
	}
	b.StopTimer()
	b.ReportMetric(float64(userCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "user-ms/op")
}
