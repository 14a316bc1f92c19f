package driver_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"strings"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
)

// benchTypedRows is the size of BenchmarkArrowTypedColumns' table.
const benchTypedRows = 50_000

// BenchmarkArrowTypedColumns reads a table of DECIMAL, TIME, TIMESTAMP and
// VECTOR columns through the Arrow escape hatch (native Arrow types, values
// put back by sqltypes.Append) and through database/sql, reporting rows/s
// of each: the cost of returning native types instead of text.
func BenchmarkArrowTypedColumns(b *testing.B) {
	ctx := context.Background()
	db, err := sql.Open("lancecat", "memory://arrow-bench")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT NOT NULL, d DECIMAL(18,4), tm TIME, ts TIMESTAMP(6), v VECTOR(8))"); err != nil {
		b.Fatal(err)
	}
	for chunk := 0; chunk < benchTypedRows/1000; chunk++ {
		vals := make([]string, 1000)
		for i := range vals {
			n := chunk*1000 + i
			vals[i] = fmt.Sprintf("(%d, %d.%04d, '%02d:%02d:%02d.%06d', '2024-01-01 00:00:%02d.%06d', '[%d,0.5,1,2,3,4,5,6]')",
				n, n, n%10000, n%24, n%60, n%60, n%1000000, n%60, n%1000000, n%100)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
			b.Fatal(err)
		}
	}
	const q = "SELECT id, d, tm, ts, v FROM t"
	b.Run("arrow", func(b *testing.B) {
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		b.ResetTimer()
		for range b.N {
			rows := 0
			err := conn.Raw(func(dc any) error {
				a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
				if err != nil {
					return err
				}
				rdr, err := a.QueryContext(ctx, q)
				if err != nil {
					return err
				}
				defer rdr.Release()
				for rdr.Next() {
					rows += int(rdr.RecordBatch().NumRows())
				}
				return rdr.Err()
			})
			if err != nil || rows != benchTypedRows {
				b.Fatalf("%d rows, %v", rows, err)
			}
		}
		b.ReportMetric(float64(benchTypedRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("database-sql", func(b *testing.B) {
		for range b.N {
			rs, err := db.QueryContext(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			var id int64
			var d, tm, v string
			var ts sql.NullTime
			rows := 0
			for rs.Next() {
				if err := rs.Scan(&id, &d, &tm, &ts, &v); err != nil {
					b.Fatal(err)
				}
				rows++
			}
			if err := rs.Err(); err != nil || rows != benchTypedRows {
				b.Fatalf("%d rows, %v", rows, err)
			}
			rs.Close()
		}
		b.ReportMetric(float64(benchTypedRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
