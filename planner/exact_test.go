package planner

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestExactLiteralBoundaries: numeric literals are exact (int64, uint64,
// DECIMAL) as in MySQL. They used to compare as float64, so DELETE ...
// WHERE x = -9223372036854775808 also removed -9223372036854775807 (both
// are -2^63 as float64), and so for BIGINT UNSIGNED and DECIMAL(38,10)
// neighbours; with and without an index (BTREE and BITMAP) the statement
// now changes exactly the row it names.
func TestExactLiteralBoundaries(t *testing.T) {
	cases := []struct {
		typ    string
		lo, hi string // two neighbours that are one float64
		extra  string // a third value, far away
	}{
		{"BIGINT", "-9223372036854775808", "-9223372036854775807", "0"},
		{"BIGINT", "9223372036854775806", "9223372036854775807", "0"},
		{"BIGINT UNSIGNED", "18446744073709551614", "18446744073709551615", "0"},
		{"DECIMAL(38,10)", "1234567890123456789012345678.0000000001", "1234567890123456789012345678.0000000002", "0.0000000000"},
		{"DECIMAL(38,10)", "-9999999999999999999999999999.9999999999", "-9999999999999999999999999999.9999999998", "0.0000000000"},
	}
	for ci, c := range cases {
		for _, idx := range []string{"", "BTREE", "BITMAP"} {
			if idx != "" && strings.HasPrefix(c.typ, "DECIMAL") {
				continue // no Lance scalar index holds decimals
			}
			t.Run(fmt.Sprintf("%d %s %s", ci, c.typ, idx), func(t *testing.T) {
				f := newDataFixture(t, Options{})
				f.exec("CREATE TABLE s (id BIGINT, x " + c.typ + ")")
				f.exec(fmt.Sprintf("INSERT INTO s VALUES (1, %s), (2, %s), (3, %s)", c.lo, c.hi, c.extra))
				if idx != "" {
					f.exec("CREATE INDEX x_idx ON s (x) USING " + idx)
				}
				check := func(q string, want ...int64) {
					t.Helper()
					if got := ids(t, f.rows(q)); !reflect.DeepEqual(got, want) {
						t.Errorf("%s: ids %v, want %v", q, got, want)
					}
				}
				check("SELECT id FROM s WHERE x = "+c.lo+" ORDER BY id", 1)
				check("SELECT id FROM s WHERE x = "+c.hi+" ORDER BY id", 2)
				check("SELECT id FROM s WHERE x IN ("+c.hi+") ORDER BY id", 2)
				check("SELECT id FROM s WHERE x > "+c.lo+" AND x <= "+c.hi+" ORDER BY id", 2)
				check("SELECT id FROM s WHERE x < "+c.hi+" AND x >= "+c.lo+" ORDER BY id", 1)
				check("SELECT id FROM s WHERE x BETWEEN "+c.hi+" AND "+c.hi+" ORDER BY id", 2)
				f.exec("DELETE FROM s WHERE x = " + c.lo)
				check("SELECT id FROM s ORDER BY id", 2, 3)
				f.exec("UPDATE s SET id = 20 WHERE x = " + c.hi)
				check("SELECT id FROM s ORDER BY id", 3, 20)
			})
		}
	}
}

// TestExactLiteralValues: literals keep their exact type in results,
// arithmetic and EXPLAIN.
func TestExactLiteralValues(t *testing.T) {
	f := newDataFixture(t, Options{})
	for _, c := range []struct {
		q    string
		want any
		typ  string
	}{
		{"SELECT 18446744073709551615", uint64(18446744073709551615), "BIGINT UNSIGNED"},
		{"SELECT -9223372036854775808", int64(-9223372036854775808), ""},
		{"SELECT 1.50", "1.50", "DECIMAL(3,2)"},
		{"SELECT -0.5", "-0.5", "DECIMAL"},
		{"SELECT 1.50 + 1", "2.50", "DECIMAL"},
		{"SELECT 0.1 + 0.2", "0.3", "DECIMAL"},
		{"SELECT 0.1 + 0.2 = 0.3", int64(1), ""},
		{"SELECT 1.25 * 1.5", "1.875", "DECIMAL"},
		{"SELECT 10.5 % 3", "1.5", "DECIMAL"},
		{"SELECT 7.5 DIV 2", int64(3), ""},
		{"SELECT 99999999999999999999 + 1", "100000000000000000000", "DECIMAL"},
		{"SELECT 1e0 + 0.5", 1.5, "DOUBLE"},
		{"SELECT 18446744073709551615 = 18446744073709551614", int64(0), ""},
		{"SELECT 18446744073709551613 < 18446744073709551615", int64(1), ""},
		{"SELECT 18446744073709551614 IN (18446744073709551613, 18446744073709551615)", int64(0), ""},
		{"SELECT 9223372036854775808 > 9223372036854775807", int64(1), ""},
		{"SELECT 9223372036854775807 = 9223372036854775806.9", int64(0), ""},
		{"SELECT 9223372036854775807 < 9223372036854775807.1", int64(1), ""},
	} {
		res := f.exec(c.q)
		if len(res.Rows) != 1 || !reflect.DeepEqual(res.Rows[0][0], c.want) {
			t.Errorf("%s = %#v, want %#v", c.q, res.Rows, c.want)
			continue
		}
		if c.typ != "" && !strings.HasPrefix(res.Columns[0].DatabaseType, c.typ) {
			t.Errorf("%s: type %s, want %s", c.q, res.Columns[0].DatabaseType, c.typ)
		}
	}
	// A BIGINT UNSIGNED column against literals above int64: exact, not
	// as DOUBLEs (which are all 1.8446744073709552e19 here).
	f.exec("CREATE TABLE us (u BIGINT UNSIGNED)")
	f.exec("INSERT INTO us VALUES (18446744073709551614)")
	if got := f.rows("SELECT u < 18446744073709551613, u = 18446744073709551614, u BETWEEN 18446744073709551613 AND 18446744073709551613, u > 18446744073709551613 FROM us"); !reflect.DeepEqual(got, [][]any{{int64(0), int64(1), int64(0), int64(1)}}) {
		t.Errorf("BIGINT UNSIGNED column against literals: %#v", got)
	}
	f.exec("CREATE TABLE s (x BIGINT)")
	f.exec("CREATE INDEX x_idx ON s (x)")
	plan := strings.Join(explainLines(t, f, "EXPLAIN SELECT x FROM s WHERE x = -9223372036854775808"), "\n")
	if !strings.Contains(plan, "-9223372036854775808") || strings.Contains(plan, "e+18") {
		t.Errorf("EXPLAIN shows the literal inexactly:\n%s", plan)
	}
}

func explainLines(t *testing.T, f *fixture, q string) []string {
	t.Helper()
	var out []string
	for _, r := range f.rows(q) {
		out = append(out, fmt.Sprint(r...))
	}
	return out
}
