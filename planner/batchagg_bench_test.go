//go:build unix

package planner

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lancecat/lancecat/sqlparse"
)

// BenchmarkBatchAggregate runs TPC-H Q1's and Q6's shapes over a
// generated lineitem-like table (200,000 rows in 4 fragments; four
// return flags, two line statuses, DECIMAL(15,2) prices and rates, seven
// years of ship dates) over column batches and on the row path
// (batchAggregates off). It reports the process's user CPU per row
// (user-ns/row), steadier than wall time on a shared machine.
func BenchmarkBatchAggregate(b *testing.B) {
	lc := benchCatalog(b, "planner-batchagg")
	s := NewSession(lc.Catalog, Options{Store: lc.Store})
	run := func(q string) int {
		st, err := sqlparse.Parse(q)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, x := range st {
			res, err := s.Exec(context.Background(), x)
			if err == nil {
				err = res.Collect()
			}
			if err != nil {
				b.Fatal(err)
			}
			n = len(res.Rows)
		}
		return n
	}
	run(`CREATE TABLE lineitem (l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL,
		l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL,
		l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL)`)
	const frags, perFrag = 4, 50_000
	for frag := range frags {
		var rows []string
		for i := range perFrag {
			r := frag*perFrag + i
			day := time.Date(1992, 1, 2+(r*7919)%2500, 0, 0, 0, 0, time.UTC)
			rows = append(rows, fmt.Sprintf("(%d, %d.%02d, 0.%02d, 0.%02d, '%c', '%c', '%s')",
				1+r%50, 900+(r*104729)%100000, r%100, r%11, r%9, "ANRA"[r%4], "FO"[(r/3)%2], day.Format("2006-01-02")))
		}
		run("INSERT INTO lineitem VALUES " + strings.Join(rows, ", "))
	}
	queries := map[string]string{
		"Q1": `SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice),
			SUM(l_extendedprice * (1 - l_discount)), SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
			AVG(l_quantity), AVG(l_extendedprice), AVG(l_discount), COUNT(*) FROM lineitem
			WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL 90 DAY GROUP BY l_returnflag, l_linestatus
			ORDER BY l_returnflag, l_linestatus`,
		"Q6": `SELECT SUM(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01'
			AND l_shipdate < DATE '1994-01-01' + INTERVAL 1 YEAR AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
			AND l_quantity < 24`,
	}
	for _, name := range []string{"Q1", "Q6"} {
		for _, batch := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/batch=%v", name, batch), func(b *testing.B) {
				batchAggregates = batch
				defer func() { batchAggregates = true }()
				u0 := userTime()
				for b.Loop() {
					run(queries[name])
				}
				b.ReportMetric(float64(userTime()-u0)/float64(b.N)/(frags*perFrag), "user-ns/row")
			})
		}
	}
}

// userTime is the process's user CPU time so far.
func userTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
