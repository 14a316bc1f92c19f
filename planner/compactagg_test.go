package planner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/planner/exec"
)

// TestCompactAggregateSameAsGeneral: GROUP BY an integer column (the
// compact group table) gives the groups, order and sums of GROUP BY the
// same key as an expression (the general operator): NULL keys, NULL
// values, DECIMAL scales, sums that overflow the int64 into big sums and
// integer sums past BIGINT.
func TestCompactAggregateSameAsGeneral(t *testing.T) {
	// A budget under which the 3,000 rows could not all be batch-path
	// groups, so GROUP BY k takes the compact table (checked below).
	f := newDataFixture(t, Options{JoinMemory: 1 << 20})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (k BIGINT, d DECIMAL(20,2), w DECIMAL(38,6), i BIGINT)`)
	r := rand.New(rand.NewPCG(18, 15))
	var values []string
	for n := range 3000 {
		key := fmt.Sprint(r.IntN(400) - 200)
		if r.IntN(20) == 0 {
			key = "NULL"
		}
		d := fmt.Sprintf("%d.%02d", r.IntN(100000)-50000, r.IntN(100))
		if r.IntN(10) == 0 {
			d = "NULL"
		}
		w := fmt.Sprintf("%d.%06d", r.Int64N(1000000), r.IntN(1000000))
		i := fmt.Sprint(r.Int64N(1000) - 500)
		if n%50 == 7 { // past an int64 scaled by 10^2 / 10^6, past BIGINT
			d, w, i = "999999999999999999.99", "99999999999999999999999999999999.999999", "9223372036854775807"
		}
		values = append(values, fmt.Sprintf("(%s, %s, %s, %s)", key, d, w, i))
	}
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	const calls = `SUM(d), COUNT(*), COUNT(d), AVG(d), SUM(w), SUM(i), AVG(i)`
	if !usesCompact(t, f, `SELECT k, `+calls+` FROM s.t GROUP BY k`) {
		t.Fatal("GROUP BY k does not take the compact group table")
	}
	compact := f.rows(`SELECT k, ` + calls + ` FROM s.t GROUP BY k`)
	general := f.rows(`SELECT k + 0, ` + calls + ` FROM s.t GROUP BY k + 0`)
	if len(compact) < 400 || !reflect.DeepEqual(compact, general) {
		t.Fatalf("compact %d groups, general %d; first differing:\n%v", len(compact), len(general), firstDiff(compact, general))
	}
	var nullGroup, big bool
	for _, row := range compact {
		nullGroup = nullGroup || row[0] == nil
		big = big || len(fmt.Sprint(row[5])) > 30
	}
	if !nullGroup || !big {
		t.Fatalf("data misses a case: NULL group %v, big sum %v", nullGroup, big)
	}
	// Q18's shape: the HAVING over the compact groups.
	if got, want := f.rows(`SELECT k FROM s.t GROUP BY k HAVING SUM(d) > 100000 ORDER BY k`),
		f.rows(`SELECT k + 0 FROM s.t GROUP BY k + 0 HAVING SUM(d) > 100000 ORDER BY 1`); !reflect.DeepEqual(got, want) {
		t.Fatalf("HAVING: %v, want %v", got, want)
	}
}

func firstDiff(a, b [][]any) string {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("row %d: %v vs %v", i, a[i], b[i])
		}
	}
	return "lengths differ"
}

// TestCompactAggregateBudget reproduces issue #15 small: 20,000 groups of
// one SUM(DECIMAL) pass the general operator's charge (~190 bytes a group)
// of a 2 MiB budget but fit in the compact table's (86), and a budget
// below even that fails with the typed error.
func TestCompactAggregateBudget(t *testing.T) {
	var values []string
	want := int64(0)
	for i := range 20000 {
		values = append(values, fmt.Sprintf("(%d, %d.50)", i, i%7))
		if i%7 >= 5 {
			want++ // 5.50 and 6.50 pass the HAVING
		}
	}
	const sum = `SELECT COUNT(*) FROM (SELECT %s AS k FROM s.t GROUP BY %s HAVING SUM(q) > 5) d`
	f := newDataFixture(t, Options{JoinMemory: 2 << 20})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (k BIGINT, q DECIMAL(15,2))`)
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	if got := f.rows(fmt.Sprintf(sum, "k", "k")); !reflect.DeepEqual(got, [][]any{{want}}) {
		t.Errorf("compact within the budget: %v", got)
	}
	if _, err := f.try(fmt.Sprintf(sum, "k + 0", "k + 0")); !errors.Is(err, exec.ErrBudgetExceeded) {
		t.Errorf("general: got %v, want ErrBudgetExceeded", err)
	}
	g := newDataFixture(t, Options{JoinMemory: 1 << 20})
	g.exec(`CREATE SCHEMA s; CREATE TABLE s.t (k BIGINT, q DECIMAL(15,2))`)
	g.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	if _, err := g.try(fmt.Sprintf(sum, "k", "k")); !errors.Is(err, exec.ErrBudgetExceeded) {
		t.Errorf("compact past the budget: got %v, want ErrBudgetExceeded", err)
	}
}

// TestCompactAggregateMemory: the bytes a compact group really holds on
// the heap (its key, map slot and per-call state, as runtime.MemStats
// sees them after a collection) are not more than the charge, so a
// budget that admits the groups admits the memory they take.
func TestCompactAggregateMemory(t *testing.T) {
	for _, calls := range []int{1, 3} {
		for _, groups := range []int{100_000, 300_000} {
			o := newCompactAggregate(nil, nil, &aggStage{calls: make([]aggCall, calls)}, nil, "")
			before := heapInUse()
			for i := range groups {
				// Keys spread like l_orderkey's (sparse, 4 apart).
				if _, err := o.groupOf(int64(i) * 4); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := o.groupOf(nil); err != nil {
				t.Fatal(err)
			}
			real := float64(heapInUse()-before) / float64(groups)
			charged := float64(compactGroupBytes + compactCallBytes*calls)
			t.Logf("%d calls, %d groups: %.1f bytes a group on the heap, %.0f charged", calls, groups, real, charged)
			if real > charged {
				t.Errorf("%d calls, %d groups: a group holds %.1f bytes, charged only %.0f", calls, groups, real, charged)
			}
			if o.groups != int32(groups)+1 || o.nullAt != int32(groups) || o.index == nil {
				t.Fatalf("groups %d, NULL group at %d, index built %v", o.groups, o.nullAt, o.index != nil)
			}
			runtime.KeepAlive(o)
		}
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// usesCompact reports whether q's aggregate takes the compact group table
// under f's budget rather than the column-batch path.
func usesCompact(t *testing.T, f *fixture, q string) bool {
	t.Helper()
	tp, agg := aggregateOfQuery(t, f, q)
	b := tp.batchAggregate(agg)
	return b != nil && preferCompact(context.Background(), b, exec.NewBudget(f.s.opts.JoinMemory))
}

// TestCompactAggregateSortedKeys: keys that come in ascending order (a
// group's rows together, as lineitem's l_orderkey) are grouped without the
// map, an older key seen again is found by binary search, and the first
// key out of order or a NULL builds the map; the groups stay those of
// first appearance throughout, across pages of groups.
func TestCompactAggregateSortedKeys(t *testing.T) {
	for _, tail := range []string{"out of order", "NULL"} {
		o := newCompactAggregate(nil, nil, &aggStage{calls: make([]aggCall, 2)}, nil, "")
		want := map[any]int32{}
		check := func(k any) {
			t.Helper()
			g, err := o.groupOf(k)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[k]
			if !ok {
				w = int32(len(want))
				want[k] = w
			}
			if g != w {
				t.Fatalf("%s: key %v in group %d, want %d", tail, k, g, w)
			}
		}
		r := rand.New(rand.NewPCG(18, 4))
		for i := range 3 * compactPage {
			k := int64(i)*4 + 1
			for range 1 + r.IntN(3) {
				check(k)
			}
			if i%100 == 99 {
				check(int64(r.IntN(i))*4 + 1) // an older group again
			}
		}
		if o.index != nil || !o.sorted {
			t.Fatalf("ascending keys built the map")
		}
		if tail == "NULL" {
			check(nil)
		} else {
			check(int64(2)) // between two keys seen: a new group
		}
		if o.index == nil || o.sorted {
			t.Fatalf("%s: the map is not built", tail)
		}
		for range 5000 {
			check(int64(r.IntN(4*compactPage))*4 + 1)
		}
		check(int64(-7))
		if int(o.groups) != len(want) {
			t.Fatalf("%s: %d groups, want %d", tail, o.groups, len(want))
		}
		for k, g := range want {
			if kk, ok := k.(int64); ok && o.key(g) != kk {
				t.Fatalf("%s: group %d has key %d, want %d", tail, g, o.key(g), kk)
			}
		}
	}
}

// TestCompactAggregateAscendingSameAsGeneral: GROUP BY a key inserted in
// ascending order, with some older keys again (the sorted mode, then the
// map) gives the general operator's groups, order and sums.
func TestCompactAggregateAscendingSameAsGeneral(t *testing.T) {
	f := newDataFixture(t, Options{JoinMemory: 1 << 20})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (k BIGINT, d DECIMAL(15,2))`)
	r := rand.New(rand.NewPCG(18, 5))
	var values []string
	for i := range 6000 {
		k := i / 2
		if i%97 == 0 {
			k = r.IntN(i+1) / 2 // an older key again
		}
		if i == 5000 {
			k = -1 // out of order and new
		}
		values = append(values, fmt.Sprintf("(%d, %d.%02d)", k, r.IntN(200), r.IntN(100)))
	}
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	q := `SELECT k, SUM(d), COUNT(*) FROM s.t GROUP BY k`
	if !usesCompact(t, f, q) {
		t.Fatal("GROUP BY k does not take the compact group table")
	}
	compact := f.rows(q)
	general := f.rows(`SELECT k + 0, SUM(d), COUNT(*) FROM s.t GROUP BY k + 0`)
	if len(compact) < 3000 || !reflect.DeepEqual(compact, general) {
		t.Fatalf("compact %d groups, general %d; first differing:\n%v", len(compact), len(general), firstDiff(compact, general))
	}
	if got, want := f.rows(`SELECT COUNT(*) FROM s.t WHERE k IN (SELECT k FROM s.t GROUP BY k HAVING SUM(d) > 250)`),
		f.rows(`SELECT COUNT(*) FROM s.t WHERE k IN (SELECT k + 0 FROM s.t GROUP BY k + 0 HAVING SUM(d) > 250)`); !reflect.DeepEqual(got, want) {
		t.Fatalf("IN (GROUP BY HAVING): %v, want %v", got, want)
	}
}

// TestCompactAggregateOverColumnBatches: an aggregate the compact table
// takes over a table's scan reads the scan's column batches (no row of Go
// values per scanned row), and gives the compact table over rows' and the
// general operator's groups, order and results: NULL keys and values,
// DECIMAL scales, sums past the int64 and past BIGINT, COUNT of a column
// and of an expression, under a WHERE, and as Q18's IN (GROUP BY HAVING).
func TestCompactAggregateOverColumnBatches(t *testing.T) {
	f := newDataFixture(t, Options{JoinMemory: 4 << 20})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (k BIGINT, d DECIMAL(20,2), w DECIMAL(38,6), i BIGINT)`)
	r := rand.New(rand.NewPCG(18, 6))
	var values []string
	for n := range 4000 {
		key := fmt.Sprint(n/3 - r.IntN(2)*r.IntN(600))
		if r.IntN(25) == 0 {
			key = "NULL"
		}
		d := fmt.Sprintf("%d.%02d", r.IntN(100000)-50000, r.IntN(100))
		if r.IntN(10) == 0 {
			d = "NULL"
		}
		w := fmt.Sprintf("%d.%06d", r.Int64N(1000000), r.IntN(1000000))
		i := fmt.Sprint(r.Int64N(1000) - 500)
		if n%50 == 7 {
			d, w, i = "999999999999999999.99", "99999999999999999999999999999999.999999", "9223372036854775807"
		}
		values = append(values, fmt.Sprintf("(%s, %s, %s, %s)", key, d, w, i))
	}
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	const calls = `SUM(d), COUNT(*), COUNT(d), COUNT(d * 2), AVG(d), SUM(w), SUM(i), AVG(i), SUM(d * i)`
	q := `SELECT k, ` + calls + ` FROM s.t WHERE i <> 3 GROUP BY k`
	tp, agg := aggregateOfQuery(t, f, q)
	op, err := tp.build(context.Background(), agg, exec.NewBudget(f.s.opts.JoinMemory))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := op.(*compactAggregateOp); !ok || c.cols == nil {
		t.Fatalf("GROUP BY k runs on %T, not the compact table over column batches", op)
	}
	op.Close()
	in := `SELECT COUNT(*), SUM(i) FROM s.t WHERE k IN (SELECT k FROM s.t GROUP BY k HAVING SUM(d) > 20000)`
	batches, batchesIn := f.rows(q), f.rows(in)
	compactBatches = false
	t.Cleanup(func() { compactBatches = true })
	rows, rowsIn := f.rows(q), f.rows(in)
	compactBatches = true
	general := f.rows(`SELECT k + 0, ` + calls + ` FROM s.t WHERE i <> 3 GROUP BY k + 0`)
	if len(batches) < 1000 || !reflect.DeepEqual(batches, rows) || !reflect.DeepEqual(batches, general) {
		t.Fatalf("over batches %d groups, over rows %d, general %d; first differing:\n%v\n%v",
			len(batches), len(rows), len(general), firstDiff(batches, rows), firstDiff(batches, general))
	}
	if !reflect.DeepEqual(batchesIn, rowsIn) || batchesIn[0][0] == int64(0) {
		t.Fatalf("IN (GROUP BY HAVING): over batches %v, over rows %v", batchesIn, rowsIn)
	}
}
