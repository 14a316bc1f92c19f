package planner

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// aggRef is the reference aggregation of one group, computed directly
// from the generated rows.
type aggRef struct {
	count, countX, countDistinct int64
	sum                          int64
	min, max                     any
	seen                         map[int64]bool
}

// TestAggregatesMatchReference: COUNT(*), COUNT(x), COUNT(DISTINCT x),
// SUM, AVG, MIN and MAX with GROUP BY, HAVING, WHERE and ORDER BY over
// random rows (with NULLs) equal a direct computation over those rows.
func TestAggregatesMatchReference(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT NOT NULL, g VARCHAR(8), x INT, PRIMARY KEY (id))`)
	r := rand.New(rand.NewPCG(1, 9))
	refs := map[any]*aggRef{}
	var values []string
	for id := range 500 {
		var g, x any
		if r.IntN(10) > 0 {
			g = fmt.Sprintf("g%d", r.IntN(7))
		}
		if r.IntN(5) > 0 {
			x = int64(r.IntN(41) - 20)
		}
		values = append(values, fmt.Sprintf("(%d, %s, %s)", id, sqlValue(g), sqlValue(x)))
		ref := refs[g]
		if ref == nil {
			ref = &aggRef{seen: map[int64]bool{}}
			refs[g] = ref
		}
		ref.count++
		if x != nil {
			xi := x.(int64)
			ref.countX++
			ref.sum += xi
			if !ref.seen[xi] {
				ref.seen[xi] = true
				ref.countDistinct++
			}
			if ref.min == nil || xi < ref.min.(int64) {
				ref.min = xi
			}
			if ref.max == nil || xi > ref.max.(int64) {
				ref.max = xi
			}
		}
	}
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))

	var want [][]any
	for g, ref := range refs {
		if ref.count < 60 { // the HAVING below
			continue
		}
		var sum, avg any
		if ref.countX > 0 {
			// MySQL's: an exact DECIMAL sum, the mean at 4 decimals
			// rounded half away from zero.
			sum, avg = strconv.FormatInt(ref.sum, 10), avgText(ref.sum, ref.countX)
		}
		want = append(want, []any{g, ref.count, ref.countX, ref.countDistinct, sum, avg, ref.min, ref.max})
	}
	slices.SortFunc(want, func(a, b []any) int { // ORDER BY n DESC, g
		if c := compareNullsFirst(b[1], a[1]); c != 0 {
			return c
		}
		return compareNullsFirst(a[0], b[0])
	})
	got := f.exec(`SELECT g, COUNT(*) AS n, COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(x)
		FROM s.t GROUP BY g HAVING COUNT(*) >= 60 ORDER BY n DESC, g`)
	if !reflect.DeepEqual(got.Rows, want) {
		t.Fatalf("got\n%v\nwant\n%v", got.Rows, want)
	}
	types := []string{"VARCHAR", "BIGINT", "BIGINT", "BIGINT", "DECIMAL(65,0)", "DECIMAL(65,4)", "INT", "INT"}
	for i, c := range got.Columns {
		if c.DatabaseType != types[i] {
			t.Errorf("column %d %q: type %s, want %s", i, c.Name, c.DatabaseType, types[i])
		}
	}

	// Without GROUP BY: one row, over all rows; over no rows COUNT is 0
	// and the others NULL.
	var all aggRef
	all.seen = map[int64]bool{}
	for _, ref := range refs {
		all.count += ref.count
		all.countX += ref.countX
		all.sum += ref.sum
		if ref.min != nil && (all.min == nil || ref.min.(int64) < all.min.(int64)) {
			all.min = ref.min
		}
		if ref.max != nil && (all.max == nil || ref.max.(int64) > all.max.(int64)) {
			all.max = ref.max
		}
	}
	row := f.rows(`SELECT COUNT(*), COUNT(x), SUM(x), MIN(x), MAX(x) FROM s.t`)
	if w := [][]any{{all.count, all.countX, strconv.FormatInt(all.sum, 10), all.min, all.max}}; !reflect.DeepEqual(row, w) {
		t.Fatalf("ungrouped: got %v, want %v", row, w)
	}
	row = f.rows(`SELECT COUNT(*), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(id) FROM s.t WHERE id < 0`)
	if w := [][]any{{int64(0), int64(0), nil, nil, nil, nil}}; !reflect.DeepEqual(row, w) {
		t.Fatalf("empty input: got %v, want %v", row, w)
	}
	row = f.rows(`SELECT MAX(id) FROM s.t`)
	if w := [][]any{{int64(499)}}; !reflect.DeepEqual(row, w) {
		t.Fatalf("MAX(id): got %v, want %v", row, w)
	}
	if rows := f.rows(`SELECT g, COUNT(*) FROM s.t WHERE id < 0 GROUP BY g`); len(rows) != 0 {
		t.Fatalf("grouped empty input: %v", rows)
	}
}

// avgText is sum/n at 4 decimals, rounded half away from zero (as
// FloatString rounds, and MySQL's AVG).
func avgText(sum, n int64) string { return new(big.Rat).SetFrac64(sum, n).FloatString(4) }

func sqlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + x + "'"
	}
	return fmt.Sprint(v)
}

// TestAggregatesOverInfoSchema: GROUP BY and COUNT over an
// information_schema view.
func TestAggregatesOverInfoSchema(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA a; CREATE SCHEMA b; CREATE TABLE a.t1 (x INT); CREATE TABLE a.t2 (x INT); CREATE TABLE b.t3 (x INT)`)
	rows := f.rows(`SELECT table_schema, COUNT(*) AS n, MIN(table_name), MAX(table_name) FROM information_schema.tables
		WHERE table_schema IN ('a', 'b') GROUP BY table_schema ORDER BY n DESC`)
	want := [][]any{{"a", int64(2), "t1", "t2"}, {"b", int64(1), "t3", "t3"}}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("got %v, want %v", rows, want)
	}
}

// TestAggregateErrors: aggregates in WHERE and columns neither grouped nor
// aggregated are refused with InvalidInput.
func TestAggregateErrors(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, g VARCHAR(8))`)
	f.fails(`SELECT COUNT(*) FROM s.t WHERE MAX(id) > 1`, catalog.CodeInvalidInput, "aggregate function in WHERE")
	f.fails(`SELECT g, id, COUNT(*) FROM s.t GROUP BY g`, catalog.CodeInvalidInput, "neither aggregated nor named in GROUP BY")
	f.fails(`SELECT id, COUNT(*) FROM s.t`, catalog.CodeInvalidInput, "neither aggregated nor named in GROUP BY")
}

// TestAggregateDecimalMinMax: MIN and MAX of a DECIMAL column (exact text
// values) order numerically, not byte-wise.
func TestAggregateDecimalMinMax(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (d DECIMAL(10,2)); INSERT INTO s.t VALUES (9.5), (10.25), (-3), (-12), (NULL)`)
	rows := f.rows(`SELECT MIN(d), MAX(d), COUNT(d) FROM s.t`)
	if want := [][]any{{"-12.00", "10.25", int64(4)}}; !reflect.DeepEqual(rows, want) {
		t.Fatalf("got %v, want %v", rows, want)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"9.50", "10.25", -1}, {"-12.00", "-3.00", -1}, {"0.00", "-0.00", 0}, {"1.5", "1.50", 0}, {"-0.01", "0.00", -1}, {"100", "99.99", 1}} {
		if got := compareDecimalText(c.a, c.b); got != c.want {
			t.Errorf("compareDecimalText(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestSumAvgOfIntegersAreDecimal: as MySQL, SUM of integers is an exact
// DECIMAL with no fraction that does not overflow BIGINT, AVG of integers
// a DECIMAL at 4 decimals (div_precision_increment) and AVG of a
// DECIMAL(p,s) one at s+4, windows alike (values checked against MariaDB
// 10.11).
func TestSumAvgOfIntegersAreDecimal(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE n (id BIGINT NOT NULL, i BIGINT, k INT, d DECIMAL(12,3), PRIMARY KEY (id))`)
	f.exec(`INSERT INTO n VALUES (1, 9223372036854775807, 1, 1.5), (2, 9223372036854775807, 2, 2.25), (3, 1, 3, NULL),
		(4, -5, 4, 1), (5, NULL, 5, NULL), (6, 0, 6, NULL), (7, 0, 9, NULL)`)
	res := f.exec(`SELECT SUM(i), AVG(k), SUM(k), AVG(d), SUM(d), SUM(k > 3), AVG(id) FROM n`)
	want := [][]any{{"18446744073709551610", "4.2857", "30", "1.5833333", "4.750", "4", "4.0000"}}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("got %v, want %v", res.Rows, want)
	}
	// (A DECIMAL column's SUM and AVG keep the column's type name, whose
	// scale the values show.)
	types := []string{"DECIMAL(65,0)", "DECIMAL(65,4)", "DECIMAL(65,0)", "DECIMAL", "DECIMAL", "DECIMAL(65,0)", "DECIMAL(65,4)"}
	for i, c := range res.Columns {
		if !strings.HasPrefix(c.DatabaseType, types[i]) {
			t.Errorf("column %d %q: type %s, want %s", i, c.Name, c.DatabaseType, types[i])
		}
	}
	// A negative mean rounds half away from zero; the sum goes on in
	// arithmetic as a DECIMAL.
	if got := f.rows(`SELECT AVG(-k), SUM(i) + 1, SUM(i) - SUM(i) FROM n WHERE id IN (1, 2, 4)`); !reflect.DeepEqual(got, [][]any{{"-2.3333", "18446744073709551610", "0"}}) {
		t.Errorf("AVG(-k), SUM(i) + 1: %v", got)
	}
	if got := show(f.rows(`SELECT id, SUM(i) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), AVG(k) OVER (ORDER BY id) FROM n WHERE id <= 3 ORDER BY id`)); got != "1,9223372036854775807,1.0000 | 2,18446744073709551614,1.5000 | 3,9223372036854775808,2.0000" {
		t.Errorf("windows: %s", got)
	}
}
