package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

// BenchmarkCorrelatedSubquery measures a correlated EXISTS (one plan and
// run per distinct outer value, the inner equality through a BTREE)
// against the uncorrelated IN that answers the same question (one run),
// over 20,000 outer rows with 1,000 distinct keys and a 10,000-row inner
// table; and a derived table streaming the outer table.
func BenchmarkCorrelatedSubquery(b *testing.B) {
	lc := benchCatalog(b, "planner-subq-bench")
	s := NewSession(lc.Catalog, Options{Store: lc.Store})
	exec := func(q string) *Result {
		st, err := sqlparse.Parse(q)
		if err != nil {
			b.Fatal(err)
		}
		var res *Result
		for _, x := range st {
			res, err = s.Exec(context.Background(), x)
			if err == nil {
				err = res.Collect()
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		return res
	}
	exec("CREATE TABLE o (id BIGINT NOT NULL, k BIGINT); CREATE TABLE c (k BIGINT, tier INT)")
	var rows []string
	for i := range 20_000 {
		rows = append(rows, fmt.Sprintf("(%d, %d)", i, (i*7)%1_000))
	}
	exec("INSERT INTO o VALUES " + strings.Join(rows, ", "))
	rows = rows[:0]
	for i := range 10_000 {
		rows = append(rows, fmt.Sprintf("(%d, %d)", i*2, i%3))
	}
	exec("INSERT INTO c VALUES " + strings.Join(rows, ", "))
	exec("CREATE INDEX c_k ON c (k)")
	for _, q := range []struct{ name, sql string }{
		{"correlated-exists", "SELECT COUNT(*) FROM o WHERE EXISTS (SELECT 1 FROM c WHERE c.k = o.k)"},
		{"uncorrelated-in", "SELECT COUNT(*) FROM o WHERE k IN (SELECT k FROM c)"},
		{"correlated-scalar", "SELECT SUM((SELECT tier FROM c WHERE c.k = o.k)) FROM o WHERE id < 5000"},
		{"derived-table", "SELECT COUNT(*) FROM (SELECT id, k * 2 AS k2 FROM o) AS d WHERE k2 > 100"},
		{"plain-scan", "SELECT COUNT(*) FROM o WHERE k * 2 > 100"},
	} {
		b.Run(q.name, func(b *testing.B) {
			want := fmt.Sprint(exec(q.sql).Rows)
			b.ReportAllocs()
			for b.Loop() {
				if got := fmt.Sprint(exec(q.sql).Rows); got != want {
					b.Fatalf("%s: %s, then %s", q.sql, want, got)
				}
			}
		})
	}
}
