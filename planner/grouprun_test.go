package planner

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// TestCompactAggregateKeyRuns: rows of a group that come together (runs
// of one key, as lineitem's rows of an order do), runs revisited later,
// and NULL keys between them give the groups and sums of the general
// operator (the compact table's last-key shortcut keeps each row's group).
func TestCompactAggregateKeyRuns(t *testing.T) {
	f := newDataFixture(t, Options{JoinMemory: 1 << 20})
	f.exec(`CREATE TABLE t (k BIGINT, d DECIMAL(15,2))`)
	var values []string
	for n := range 3000 {
		key := fmt.Sprint(n / 4 % 500) // runs of 4, every key again after 2,000 rows
		if n%37 == 0 {
			key = "NULL"
		}
		values = append(values, fmt.Sprintf("(%s, %d.%02d)", key, n%90, n%100))
	}
	f.exec("INSERT INTO t VALUES " + strings.Join(values, ", "))
	q := `SELECT k, SUM(d), COUNT(*) FROM t GROUP BY k`
	if !usesCompact(t, f, q) {
		t.Fatal("GROUP BY k does not take the compact group table")
	}
	compact := f.rows(q)
	general := f.rows(`SELECT k + 0, SUM(d), COUNT(*) FROM t GROUP BY k + 0`)
	if len(compact) != 501 || !reflect.DeepEqual(compact, general) {
		t.Fatalf("compact %d groups, general %d; first differing:\n%v", len(compact), len(general), firstDiff(compact, general))
	}
}

// TestDecSumTextInt64: the text of a sum held in an int64 (the fast
// path) is the exact quotient's at the result's scale, as math/big gives
// it: padding to more digits, zero, negatives, fractions under one, and
// sums whose padding overflows an int64 or that round (fewer digits).
func TestDecSumTextInt64(t *testing.T) {
	for _, c := range []struct {
		small     int64
		scale, at int
		div       int64
	}{
		{1234, 2, 2, 1}, {1234, 2, 4, 1}, {0, 2, 2, 1}, {-5, 2, 2, 1}, {-5, 0, 3, 1}, {7, 3, 3, 1},
		{math.MaxInt64, 2, 2, 1}, {math.MaxInt64, 0, 2, 1}, {math.MinInt64, 1, 1, 1},
		{12345, 3, 1, 1}, {-12355, 3, 2, 1}, {100, 2, 6, 3},
	} {
		d := decSum{small: c.small, scale: c.scale, any: true}
		got := string(d.text(c.div, c.at))
		// small / 10^scale / div, rounded half away from zero at `at` digits.
		r := new(big.Rat).SetFrac(big.NewInt(c.small), new(big.Int).Mul(pow10(c.scale), big.NewInt(c.div)))
		want := r.FloatString(c.at)
		if want == "-0" || strings.Trim(want, "-0.") == "" {
			want = strings.TrimPrefix(want, "-")
		}
		if got != want {
			t.Errorf("%d at scale %d / %d, %d digits: got %s, want %s", c.small, c.scale, c.div, c.at, got, want)
		}
	}
}
