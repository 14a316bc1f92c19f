package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// TestScanRowFilterMatchesWithout: with the scan's row filter
// (latemat.go) every WHERE of the column-wise tests returns the rows,
// warnings and errors it returns without, reading a few of the columns or
// all of them.
func TestScanRowFilterMatchesWithout(t *testing.T) {
	f := filterFixture(t)
	defer func() { scanRowFilter = true }()
	for _, w := range columnWiseWheres {
		for _, sel := range []string{"a, b, p, q, d, e, s, f", "f, s"} {
			q := "SELECT " + sel + " FROM t WHERE " + w
			scanRowFilter = false
			want := filterResult(f, q)
			scanRowFilter = true
			if got := filterResult(f, q); got != want {
				t.Errorf("%s:\n got %.600s\nwant %.600s", q, got, want)
			}
		}
	}
}

// clusteredFixture is a table whose k ascends (a time series): a range of
// k keeps whole chunks and drops whole chunks.
func clusteredFixture(t *testing.T) *fixture {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE c (k BIGINT, v VARCHAR(20), x DECIMAL(10,2))")
	for frag := 0; frag < 3; frag++ {
		var vals []string
		for j := 0; j < 20000; j++ {
			i := frag*20000 + j
			vals = append(vals, fmt.Sprintf("(%d, 'v%d', %d.%02d)", i, i%97, i%1000, i%100))
		}
		f.exec("INSERT INTO c VALUES " + strings.Join(vals, ", "))
	}
	f.exec("DELETE FROM c WHERE k % 101 = 7")
	return f
}

// filterScanOf builds the filtered scan of query q's table.
func filterScanOf(t *testing.T, f *fixture, q string) *filterScanOp {
	t.Helper()
	st, err := sqlparse.ParseOne(q)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tp, err := f.s.buildSelect(ctx, st.(*sqlparse.Select))
	if err != nil {
		t.Fatal(err)
	}
	n := tp.root
	for n != nil {
		if _, ok := n.(*plan.Filter); ok {
			break
		}
		n = plan.Input(n)
	}
	if n == nil {
		t.Fatal("no Filter in the plan")
	}
	op, err := tp.build(ctx, n, exec.NewBudget(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Close() })
	fo, ok := op.(*filterScanOp)
	if !ok {
		t.Fatalf("the Filter runs as %T, not the filtered scan", op)
	}
	return fo
}

// TestScanRowFilterClustered: on clustered data the row filter holds the
// leading column-wise conjuncts' columns, and the answers match those
// without it (chunks skipped, kept whole and cut).
func TestScanRowFilterClustered(t *testing.T) {
	f := clusteredFixture(t)
	defer func() { scanRowFilter = true }()
	ctx := context.Background()
	for _, tc := range []struct {
		where string
		cols  []string // the row filter's columns (nil: none)
	}{
		{"k BETWEEN 21000 AND 23999", []string{"k"}},
		{"k >= 59000 AND x < 500", []string{"k", "x"}},
		{"k < 100 OR k > 59900", nil},                 // no column-wise conjunct
		{"v LIKE 'v1%' AND k < 5000", nil},            // a row-wise conjunct first
		{"k < 30000 AND v LIKE 'v1%'", []string{"k"}}, // only the prefix
		{"k = 12345", []string{"k"}},
		{"k < 0", []string{"k"}},
		{"k > 0 AND v > '' AND x >= 0", nil}, // every column read: nothing later to decode
	} {
		q := "SELECT k, v, x FROM c WHERE " + tc.where
		rf := filterScanOf(t, f, q).rowFilter(ctx)
		var got []string
		if rf != nil {
			got = rf.Columns
		}
		if !slices.Equal(got, tc.cols) {
			t.Errorf("WHERE %s: row filter on %v, want %v", tc.where, got, tc.cols)
		}
		scanRowFilter = false
		want := filterResult(f, q)
		scanRowFilter = true
		if res := filterResult(f, q); res != want {
			t.Errorf("WHERE %s:\n got %.300s\nwant %.300s", tc.where, res, want)
		}
		if tc.cols != nil && strings.HasPrefix(want, "0 ") && tc.where != "k < 0" {
			t.Errorf("WHERE %s keeps no row: it tests nothing", tc.where)
		}
	}
}

// TestScanRowFilterJoinKeys: a join's published build keys go into the
// probe scan's row filter (chunks without a key are skipped), and the
// answers match those without the row filter, for keys dense enough for
// a bitmap and for sparse ones.
func TestScanRowFilterJoinKeys(t *testing.T) {
	f := clusteredFixture(t)
	defer func() { scanRowFilter = true }()
	f.exec("CREATE TABLE dense (k BIGINT)")
	f.exec("INSERT INTO dense VALUES (21000), (21001), (21007), (21050), (NULL)")
	f.exec("CREATE TABLE sparse (k BIGINT)")
	f.exec("INSERT INTO sparse VALUES (3), (40000000000), (59999), (-5)")
	for _, q := range []string{
		"SELECT c.k, c.v, c.x FROM c JOIN dense d ON c.k = d.k",
		"SELECT c.k, c.v, c.x FROM c JOIN sparse d ON c.k = d.k",
		"SELECT c.k, c.v FROM c JOIN dense d ON c.k = d.k WHERE c.x >= 0",
	} {
		scanRowFilter = false
		want := filterResult(f, q)
		scanRowFilter = true
		if got := filterResult(f, q); got != want {
			t.Errorf("%s:\n got %.300s\nwant %.300s", q, got, want)
		}
		if strings.HasPrefix(want, "0 ") {
			t.Errorf("%s keeps no row: it tests nothing", q)
		}
	}
}
