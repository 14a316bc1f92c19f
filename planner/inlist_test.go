package planner

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

// TestInListSetMatchesLoop: a long IN list answers through a hash set
// (inlist.go); every answer equals the item-by-item comparison's, which
// the same list split into short lists (below inListSetMin) still uses.
func TestInListSetMatchesLoop(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE m (id BIGINT, i BIGINT, u BIGINT UNSIGNED, d DECIMAL(20,4), fl DOUBLE, s VARCHAR(20))")
	var rows []string
	for k := range 60 {
		rows = append(rows, fmt.Sprintf("(%d, %d, %d, %d.%04d, %d.5, '%s')", k, k-30, k*3, k-30, k*7%10000, k-30, fmt.Sprint(k%17)))
	}
	rows = append(rows, "(100, NULL, NULL, NULL, NULL, NULL)", "(101, 9223372036854775807, 18446744073709551615, 0, 0, '5abc')")
	f.exec("INSERT INTO m VALUES " + strings.Join(rows, ", "))
	lists := map[string][]string{
		"ints":     {"-30", "-1", "0", "1", "2", "3", "7", "9", "11", "13", "29", "9223372036854775807", "18446744073709551615", "40", "44", "50", "-29.0000"},
		"decimals": {"-30.0000", "1.0007", "-29.0007", "2.0014", "3.0021", "0", "5.00", "6", "7.5", "-8", "9.99", "10", "11", "12", "13", "14", "15"},
		"strings":  {"'1'", "'2'", "'3'", "'5'", "'7'", "'11'", "'13'", "'16'", "'0'", "'x'", "'5abc'", "'12'", "'4'", "'6'", "'8'", "'9'", "'10'"},
		"mixed":    {"1", "'2'", "3.5e0", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17"},
		"withnull": {"NULL", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"},
	}
	for name, items := range lists {
		if len(items) < inListSetMin {
			t.Fatalf("%s: %d items do not reach the set", name, len(items))
		}
		for _, col := range []string{"i", "u", "d", "fl", "s"} {
			for _, not := range []string{"", "NOT "} {
				whole := fmt.Sprintf("%s %sIN (%s)", col, not, strings.Join(items, ", "))
				var parts []string
				for k := 0; k < len(items); k += 8 {
					parts = append(parts, fmt.Sprintf("%s IN (%s)", col, strings.Join(items[k:min(k+8, len(items))], ", ")))
				}
				split := "(" + strings.Join(parts, " OR ") + ")"
				if not != "" {
					split = "NOT " + split
				}
				q := "SELECT id, (%s) FROM m ORDER BY id"
				got, want := f.rows(fmt.Sprintf(q, whole)), f.rows(fmt.Sprintf(q, split))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s differs from %s:\n%v\n%v", name, whole, split, got, want)
				}
			}
		}
	}
}

// BenchmarkInListMillion: x IN (1,000,000 integers) per row is a set lookup.
func BenchmarkInListMillion(b *testing.B) {
	var items []string
	for k := range 1_000_000 {
		items = append(items, fmt.Sprint(k*2))
	}
	env := newRowEnv([]Column{{Name: "x"}})
	stmt := "SELECT x IN (" + strings.Join(items, ",") + ")"
	e := parseExpr(b, stmt)
	row := []any{int64(0)}
	if _, err := env.eval(e, row); err != nil { // builds the set
		b.Fatal(err)
	}
	for b.Loop() {
		row[0] = int64(b.N % 2_000_000)
		if _, err := env.eval(e, row); err != nil {
			b.Fatal(err)
		}
	}
}

// parseExpr parses "SELECT expr" and returns expr.
func parseExpr(tb testing.TB, q string) sqlparse.Expr {
	tb.Helper()
	st, err := sqlparse.ParseOne(q)
	if err != nil {
		tb.Fatal(err)
	}
	return st.(*sqlparse.Select).Items[0].Expr
}

// TestInListUsesSet: a long constant list becomes a set, once; a list with
// a column or a DOUBLE item does not (it is compared item by item).
func TestInListUsesSet(t *testing.T) {
	items := make([]string, 100_000)
	for k := range items {
		items[k] = fmt.Sprint(k)
	}
	env := newRowEnv([]Column{{Name: "x"}})
	e := parseExpr(t, "SELECT x IN ("+strings.Join(items, ",")+")").(*sqlparse.InList)
	for _, x := range []int64{0, 99_999, 100_000, -1} {
		v, err := env.eval(e, []any{x})
		if err != nil || v != (x >= 0 && x < 100_000) {
			t.Errorf("%d IN (0..99999) = %v, %v", x, v, err)
		}
	}
	if s := env.inSets[e]; s == nil || len(s.keys) != 100_000 {
		t.Fatalf("no set built for a constant list")
	}
	for _, q := range []string{
		"SELECT x IN (1" + strings.Repeat(", x", 20) + ")",
		"SELECT x IN (1" + strings.Repeat(", 2", 20) + ", 1e0)",
	} {
		e := parseExpr(t, q).(*sqlparse.InList)
		if _, err := env.eval(e, []any{int64(1)}); err != nil {
			t.Fatal(err)
		}
		if env.inSets[e] != nil {
			t.Errorf("%.30s...: built a set", q)
		}
	}
}
