package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/sqlparse"
)

// BenchmarkWherePushdown measures SELECTs whose WHERE conjuncts go through
// scalar indices against the same SELECTs scanning without indices, over
// 100,000 rows in 10 fragments (BTREE on id, BITMAP on k, BTREE on s).
func BenchmarkWherePushdown(b *testing.B) {
	lc := benchCatalog(b, "planner-bench")
	indexed := NewSession(lc.Catalog, Options{Store: lc.Store})
	plain := NewSession(lc.Catalog, Options{Store: lc.Store, NoIndexes: true})
	exec := func(q string) {
		st, err := sqlparse.Parse(q)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range st {
			res, err := indexed.Exec(context.Background(), s)
			if err == nil {
				err = res.Collect()
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	exec("CREATE TABLE t (id BIGINT NOT NULL, k INT, s VARCHAR(20), pad VARCHAR(40))")
	for frag := range 10 {
		var rows []string
		for i := range 10_000 {
			id := frag*10_000 + i
			rows = append(rows, fmt.Sprintf("(%d, %d, 's%06d', '%s')", id, id%50, (id*7919)%100_000, strings.Repeat("x", 30)))
		}
		exec("INSERT INTO t VALUES " + strings.Join(rows, ", "))
	}
	exec("CREATE INDEX id_bt ON t (id); CREATE INDEX k_bm ON t (k) USING BITMAP; CREATE INDEX s_bt ON t (s)")
	for _, q := range []string{
		"SELECT id, pad FROM t WHERE id BETWEEN 41000 AND 41100",
		"SELECT id, pad FROM t WHERE k = 7 AND id >= 90000",
		"SELECT COUNT(*) FROM t WHERE k IN (3, 4) AND s < 's001000'",
		"SELECT id FROM t WHERE s IS NULL",
	} {
		st, err := sqlparse.ParseOne(q)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			s    *Session
		}{{"indexed", indexed}, {"scan", plain}} {
			b.Run(c.name+"/"+q, func(b *testing.B) {
				rows := 0
				for b.Loop() {
					res, err := c.s.Exec(context.Background(), st)
					if err == nil {
						err = res.Collect()
					}
					if err != nil {
						b.Fatal(err)
					}
					rows = len(res.Rows)
				}
				b.ReportMetric(float64(rows), "rows")
			})
		}
	}
}

// benchCatalog is an empty catalog in memory for a benchmark, removed when
// it ends.
func benchCatalog(b *testing.B, name string) *manifest.Catalog {
	b.Helper()
	lc, err := manifest.OpenCatalog(context.Background(), fmt.Sprintf("memory://%s-%d/lake", name, dataSeq.Add(1)), manifest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_, _ = lc.Store.DeletePrefix(context.Background(), "")
		lc.Close()
	})
	return lc
}
