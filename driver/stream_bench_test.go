package driver_test

import (
	"bufio"
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	lancecat "github.com/lancecat/lancecat/driver"
)

// streamRows is the size of the streaming measurement's table (issue 11).
const streamRows = 2_500_000

// resetPeakRSS resets the kernel's peak-RSS mark of this process (Linux:
// "5" to /proc/self/clear_refs); false where that is not possible.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS reads VmHWM (peak resident set size) in bytes; 0 if unknown.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// cpuTime is the user+system CPU time of this process so far: on a shared
// machine, a steadier measure of work than wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStream2_5M iterates queries over a 2.5M-row table the peer
// wrote (id int64, s utf8) through database/sql, reporting rows/s and the
// process's peak RSS during the iteration (the goal of issue 11: under 150
// MB), beside the peer's t.query().select(["id","s"]).toArrow() on the same
// table in its own process. Run alone, one iteration:
//
//	LANCECAT_REQUIRE_PEER=1 go test ./driver -run '^$' -bench Stream2_5M -benchtime 1x
func BenchmarkStream2_5M(b *testing.B) {
	dir := peer.StreamTable(b, streamRows)
	db, err := sql.Open("lancecat", "file://"+filepath.ToSlash(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []struct {
		name, sql     string
		rows, scanned int64 // rows returned; table rows read to return them
	}{
		{"SelectAll", "SELECT id, s FROM t", streamRows, streamRows},
		{"OrderByLimit10", "SELECT id, s FROM t ORDER BY s DESC LIMIT 10", 10, streamRows},
		{"WhereLimit", "SELECT id, s FROM t WHERE id >= 2000000 LIMIT 1000", 1000, 2_001_000},
		// Beyond the sort budget (1,000,000 rows): runs spill to disk.
		{"OrderByAll", "SELECT id, s FROM t ORDER BY s DESC", streamRows, streamRows},
	} {
		b.Run(q.name, func(b *testing.B) {
			runtime.GC()
			canPeak := resetPeakRSS()
			start, cpu0 := time.Now(), cpuTime()
			for i := 0; i < b.N; i++ {
				rows, err := db.QueryContext(ctx, q.sql)
				if err != nil {
					b.Fatal(err)
				}
				var n, idSum int64
				var id int64
				var s string
				for rows.Next() {
					if err := rows.Scan(&id, &s); err != nil {
						b.Fatal(err)
					}
					n++
					idSum += id
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				rows.Close()
				if n != q.rows {
					b.Fatalf("%s: %d rows, want %d", q.sql, n, q.rows)
				}
				if q.rows == streamRows && idSum != streamRows*(streamRows-1)/2 {
					b.Fatalf("%s: id sum %d: rows missing or repeated", q.sql, idSum)
				}
			}
			// rows/s counts table rows read (the top-k returns 10 of 2.5M).
			b.ReportMetric(float64(q.scanned*int64(b.N))/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu_s/op")
			if canPeak {
				b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS_MB")
			}
		})
	}
	// The same read through the Arrow escape hatch (record batches, as
	// the peer's toArrow returns), in one connection.
	b.Run("SelectAllArrow", func(b *testing.B) {
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		runtime.GC()
		canPeak := resetPeakRSS()
		start, cpu0 := time.Now(), cpuTime()
		for i := 0; i < b.N; i++ {
			var n, idSum int64
			err := conn.Raw(func(dc any) error {
				a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
				if err != nil {
					return err
				}
				rdr, err := a.QueryContext(ctx, "SELECT id, s FROM t")
				if err != nil {
					return err
				}
				defer rdr.Release()
				for rdr.Next() {
					rec := rdr.RecordBatch()
					n += rec.NumRows()
					for _, id := range rec.Column(0).(*array.Int64).Int64Values() {
						idSum += id
					}
				}
				return rdr.Err()
			})
			if err != nil || n != streamRows || idSum != streamRows*(streamRows-1)/2 {
				b.Fatalf("%d rows, id sum %d, %v", n, idSum, err)
			}
		}
		b.ReportMetric(float64(streamRows*int64(b.N))/time.Since(start).Seconds(), "rows/s")
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu_s/op")
		if canPeak {
			b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS_MB")
		}
	})
	b.Run("PeerToArrow", func(b *testing.B) {
		var total int64
		var secs, cpu float64
		var peak int64
		for i := 0; i < b.N; i++ {
			r, err := peer.ReadStreamTable(ctx, b, dir)
			if err != nil {
				b.Fatal(err)
			}
			if r.Rows != streamRows || r.IDSum != fmt.Sprint(int64(streamRows*(streamRows-1)/2)) {
				b.Fatalf("peer read %d rows, id sum %s", r.Rows, r.IDSum)
			}
			total += r.Rows
			secs += r.Seconds
			cpu += r.CPUSeconds
			peak = max(peak, r.MaxRSSBytes)
		}
		b.ReportMetric(float64(total)/secs, "rows/s")
		b.ReportMetric(cpu/float64(b.N), "cpu_s/op")
		b.ReportMetric(float64(peak)/(1<<20), "peakRSS_MB")
	})
}
