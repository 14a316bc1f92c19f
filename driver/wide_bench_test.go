package driver_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	lancecat "github.com/lancecat/lancecat/driver"
)

// wideRows is the size of the peer's types-100000 fixture.
const wideRows = 100_000

// openTypes100k opens a catalog whose root table "types" is the peer's
// types-100000 fixture (every common type, 35 columns, a VECTOR(8)
// fixed_size_list<float32> among them), linked in read-only.
func openTypes100k(b *testing.B) *sql.DB {
	b.Helper()
	src := peer.Fixture(b, "types-100000")
	root := b.TempDir()
	if err := os.Symlink(src, filepath.Join(root, "types.lance")); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("lancecat", root)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// reportRead reports rows/s, CPU seconds per op and the peak RSS since
// canPeak's reset.
func reportRead(b *testing.B, rows int64, start time.Time, cpu0 time.Duration, canPeak bool) {
	b.ReportMetric(float64(rows*int64(b.N))/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu_s/op")
	if canPeak {
		b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS_MB")
	}
}

// BenchmarkVectorRead reads the VECTOR(8) column (fixed_size_list<float32>)
// of a 100,000-row peer-written table through database/sql, where each
// value is the vector's JSON text: the cost of rendering float32s.
func BenchmarkVectorRead(b *testing.B) {
	db := openTypes100k(b)
	ctx := context.Background()
	b.ReportAllocs()
	runtime.GC()
	canPeak := resetPeakRSS()
	start, cpu0 := time.Now(), cpuTime()
	for range b.N {
		rs, err := db.QueryContext(ctx, "SELECT vector FROM types")
		if err != nil {
			b.Fatal(err)
		}
		var v sql.NullString
		var n, bytes int64
		for rs.Next() {
			if err := rs.Scan(&v); err != nil {
				b.Fatal(err)
			}
			n++
			bytes += int64(len(v.String))
		}
		if err := rs.Err(); err != nil || n != wideRows || bytes == 0 {
			b.Fatalf("%d rows, %d bytes, %v", n, bytes, err)
		}
		rs.Close()
	}
	reportRead(b, wideRows, start, cpu0, canPeak)
}

// BenchmarkArrowWide reads every column of a 100,000-row peer-written table
// of every common type through the Arrow escape hatch (SELECT *).
func BenchmarkArrowWide(b *testing.B) {
	db := openTypes100k(b)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	b.ReportAllocs()
	runtime.GC()
	canPeak := resetPeakRSS()
	start, cpu0 := time.Now(), cpuTime()
	for range b.N {
		var rows int64
		err := conn.Raw(func(dc any) error {
			a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
			if err != nil {
				return err
			}
			rdr, err := a.QueryContext(ctx, "SELECT * FROM types")
			if err != nil {
				return err
			}
			defer rdr.Release()
			for rdr.Next() {
				rows += rdr.RecordBatch().NumRows()
			}
			return rdr.Err()
		})
		if err != nil || rows != wideRows {
			b.Fatalf("%d rows, %v", rows, err)
		}
	}
	reportRead(b, wideRows, start, cpu0, canPeak)
}
