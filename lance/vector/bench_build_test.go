//go:build unix

package vector

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// userCPU is the process's user CPU time so far: on a shared machine it
// compares runs better than wall time (reported as cpu-ms/op).
func userCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(userCPU()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkBuild measures one index build per type over 20,000 x 128
// clustered rows (seed 9, in-memory store), sizes as the bench suite picks
// them.
func BenchmarkBuild(b *testing.B) {
	ds := vectorDataset(b, 20000, 128)
	for _, typ := range []string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ"} {
		b.Run(typ, func(b *testing.B) {
			start := userCPU()
			for b.Loop() {
				o := BuildOptions{Type: typ, Metric: L2, NumPartitions: 141, NumSubVectors: 16, Seed: 1}
				if _, _, err := Build(context.Background(), ds, "v", o); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkExact measures an exact top-10 over 100,000 x dim rows.
func BenchmarkExact(b *testing.B) {
	for _, dim := range []int{128, 768} {
		ds := vectorDataset(b, 100000, dim)
		q := randVecs(1, dim, 5)
		b.Run(fmt.Sprint(dim), func(b *testing.B) {
			b.SetBytes(int64(100000 * dim * 4))
			start := userCPU()
			for b.Loop() {
				if _, err := Exact(context.Background(), ds, ExactQuery{Column: "v", Vector: q, K: 10, Metric: L2}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkExactPrefilter measures an exact top-10 over the 10% of
// 100,000 x dim rows a prefilter allows (every tenth row, as the bench
// suite's cat = 3).
func BenchmarkExactPrefilter(b *testing.B) {
	for _, dim := range []int{128, 768} {
		ds := vectorDataset(b, 100000, dim)
		q := randVecs(1, dim, 5)
		pre := roaring64.New()
		for r := uint64(3); r < 100000; r += 10 {
			pre.Add(r)
		}
		b.Run(fmt.Sprint(dim), func(b *testing.B) {
			b.SetBytes(int64(10000 * dim * 4))
			start := userCPU()
			for b.Loop() {
				if _, err := Exact(context.Background(), ds, ExactQuery{Column: "v", Vector: q, K: 10, Metric: L2, Prefilter: pre}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkDistanceCPU: one distance at 128 and 768 floats, and one 8-float
// PQ sub-vector against 256 centroids in row layout (the batch kernel) and
// in columns (what PQ training and encoding use), with the user CPU per
// operation beside the wall-clock ns/op.
func BenchmarkDistanceCPU(b *testing.B) {
	for _, dim := range []int{128, 768} {
		x, y := randVecs(1, dim, 1), randVecs(1, dim, 2)
		b.Run(fmt.Sprintf("L2Squared%d", dim), func(b *testing.B) {
			b.SetBytes(int64(dim * 4))
			var s float32
			start := userCPU()
			for b.Loop() {
				s += L2Squared(x, y)
			}
			b.ReportMetric(float64(userCPU()-start)/float64(b.N), "cpu-ns/op")
			_ = s
		})
	}
	x, cent := randVecs(1, 8, 3), randVecs(256, 8, 4)
	cs := newCentSet(cent, 8, false)
	out := cs.buf()
	b.Run("rows8x256", func(b *testing.B) {
		start := userCPU()
		for b.Loop() {
			l2sqBatch(x, cent, out[:256])
		}
		b.ReportMetric(float64(userCPU()-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("columns8x256", func(b *testing.B) {
		start := userCPU()
		for b.Loop() {
			cs.distances(x, out)
		}
		b.ReportMetric(float64(userCPU()-start)/float64(b.N), "cpu-ns/op")
	})
}
