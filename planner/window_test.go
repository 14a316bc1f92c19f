package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
)

// TestWindowFunctions: window functions over a single table, over a join
// and over groups, with named windows, frames and window results in ORDER
// BY (the answers are MariaDB's; conformance/mariadb checks them against
// the server too).
func TestWindowFunctions(t *testing.T) {
	f := joinTables(t, Options{})
	cases := []struct{ sql, want string }{
		{"SELECT name, city, SUM(id) OVER (PARTITION BY city) FROM c ORDER BY name, city",
			"ann,lima,4 | ann,oslo,4 | bob,rome,2 | cid,oslo,4 | nul,rome,2"},
		{"SELECT name, RANK() OVER (ORDER BY name) r, DENSE_RANK() OVER (ORDER BY name), PERCENT_RANK() OVER (ORDER BY name), CUME_DIST() OVER (ORDER BY name) FROM c ORDER BY r, id",
			"ann,1,1,0,0.4 | ann,1,1,0,0.4 | bob,3,2,0.5,0.6 | cid,4,3,0.75,0.8 | nul,5,4,1,1"},
		{"SELECT o.oid, ROW_NUMBER() OVER (ORDER BY o.oid DESC) AS rn FROM c JOIN o ON c.id=o.id ORDER BY rn", "12,1 | 11,2 | 10,3"},
		{"SELECT *, NTILE(2) OVER (ORDER BY oid) FROM o ORDER BY oid", "10,1,5,1 | 11,1,7,1 | 12,2,9,1 | 13,NULL,1,2 | 14,9,2,2"},
		{"SELECT oid, LAG(amount) OVER w, LEAD(amount, 2, -1) OVER w FROM o WINDOW w AS (ORDER BY oid) ORDER BY oid",
			"10,NULL,9 | 11,5,1 | 12,7,2 | 13,9,-1 | 14,1,-1"},
		{"SELECT oid, SUM(amount) OVER (ORDER BY oid ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), AVG(amount) OVER (ORDER BY amount RANGE BETWEEN 2 PRECEDING AND CURRENT ROW), COUNT(*) OVER () FROM o ORDER BY oid",
			"10,12,5.0000,5 | 11,21,6.0000,5 | 12,17,8.0000,5 | 13,12,1.0000,5 | 14,3,1.5000,5"},
		{"SELECT oid, FIRST_VALUE(amount) OVER (ORDER BY oid), LAST_VALUE(amount) OVER (ORDER BY oid), NTH_VALUE(amount, 2) OVER (ORDER BY oid ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM o ORDER BY oid",
			"10,5,5,7 | 11,5,7,7 | 12,5,9,7 | 13,5,1,7 | 14,5,2,7"},
		{"SELECT city, COUNT(*), RANK() OVER (ORDER BY COUNT(*) DESC) FROM c GROUP BY city ORDER BY 3, city", "oslo,2,1 | rome,2,1 | lima,1,3"},
		{"SELECT city, SUM(SUM(id)) OVER () FROM c GROUP BY city ORDER BY city", "lima,10 | oslo,10 | rome,10"},
		{"SELECT ROW_NUMBER() OVER ()", "1"},
		{"SELECT name FROM c ORDER BY ROW_NUMBER() OVER (ORDER BY name DESC) LIMIT 2", "nul | cid"},
		{"SELECT id + ROW_NUMBER() OVER (ORDER BY id) FROM c ORDER BY 1", "NULL | 3 | 5 | 7 | 9"},
		{"SELECT name, MAX(name) OVER (PARTITION BY city ORDER BY id) FROM c ORDER BY name, id", "ann,ann | ann,ann | bob,nul | cid,cid | nul,nul"},
		// RANGE CURRENT ROW: peers are in the frame.
		{"SELECT name, COUNT(*) OVER (ORDER BY name) FROM c ORDER BY name, id", "ann,2 | ann,2 | bob,3 | cid,4 | nul,5"},
		{"SELECT name, COUNT(*) OVER (ORDER BY name ROWS UNBOUNDED PRECEDING) AS n FROM c ORDER BY n", "ann,1 | ann,2 | bob,3 | cid,4 | nul,5"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
	f.fails("SELECT 1 FROM c WHERE ROW_NUMBER() OVER () > 1", catalog.CodeInvalidInput, "error 3593")
	f.fails("SELECT city FROM c GROUP BY city HAVING RANK() OVER () > 1", catalog.CodeInvalidInput, "error 3593")
	f.fails("SELECT SUM(ROW_NUMBER() OVER ()) FROM c", catalog.CodeInvalidInput, "error 3593")
	f.fails("SELECT NTILE(0) OVER () FROM c", catalog.CodeInvalidInput, "error 1210")
	f.fails("SELECT SUM(id) OVER (ORDER BY id, name RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM c", catalog.CodeInvalidInput, "error 3587")

	var lines []string
	for _, r := range f.rows("EXPLAIN SELECT name, ROW_NUMBER() OVER (PARTITION BY city ORDER BY name) rn FROM c ORDER BY rn") {
		lines = append(lines, strings.TrimSpace(r[0].(string)))
	}
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "Window ROW_NUMBER() OVER (PARTITION BY city ORDER BY name) (1 sort(s)") ||
		!strings.Contains(text, "Sort ROW_NUMBER() OVER") || !strings.Contains(text, "TableScan c") {
		t.Errorf("EXPLAIN:\n%s", text)
	}
}

// TestWindowHugeOffsets: frame, LAG/LEAD and NTH_VALUE offsets up to
// 2^64-1 clamp to the partition instead of wrapping (NTH_VALUE of 2^63-1
// over a frame starting past the second row indexed a negative row).
func TestWindowHugeOffsets(t *testing.T) {
	f := joinTables(t, Options{})
	cases := []struct{ sql, want string }{
		{"SELECT oid, NTH_VALUE(amount, 9223372036854775807) OVER (ORDER BY oid ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM o ORDER BY oid",
			"10,NULL | 11,NULL | 12,NULL | 13,NULL | 14,NULL"},
		{"SELECT oid, SUM(amount) OVER (ORDER BY oid ROWS BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING) FROM o ORDER BY oid",
			"10,24 | 11,24 | 12,24 | 13,24 | 14,24"},
		{"SELECT oid, SUM(amount) OVER (ORDER BY oid ROWS BETWEEN 18446744073709551615 FOLLOWING AND UNBOUNDED FOLLOWING) FROM o ORDER BY oid",
			"10,NULL | 11,NULL | 12,NULL | 13,NULL | 14,NULL"},
		{"SELECT oid, SUM(amount) OVER (ORDER BY oid ROWS BETWEEN UNBOUNDED PRECEDING AND 18446744073709551615 PRECEDING) FROM o ORDER BY oid",
			"10,NULL | 11,NULL | 12,NULL | 13,NULL | 14,NULL"},
		{"SELECT oid, LEAD(amount, 9223372036854775807, -1) OVER (ORDER BY oid), LAG(amount, 9223372036854775807, -2) OVER (ORDER BY oid) FROM o ORDER BY oid",
			"10,-1,-2 | 11,-1,-2 | 12,-1,-2 | 13,-1,-2 | 14,-1,-2"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
}

// TestWindowBudget: the Window's rows are charged to the query's budget.
func TestWindowBudget(t *testing.T) {
	f := newDataFixture(t, Options{JoinMemory: 1 << 20})
	f.exec(`CREATE TABLE a (k BIGINT)`)
	var vals []string
	for i := range 2000 {
		vals = append(vals, "("+itoa(i)+")")
	}
	f.exec(`INSERT INTO a VALUES ` + strings.Join(vals, ", "))
	if got := show(f.rows("SELECT k, ROW_NUMBER() OVER (ORDER BY k DESC) FROM a ORDER BY k LIMIT 1")); got != "0,2000" {
		t.Fatalf("got %s", got)
	}
	g := newDataFixture(t, Options{JoinMemory: 64 << 10})
	g.exec(`CREATE TABLE a (k BIGINT)`)
	g.exec(`INSERT INTO a VALUES ` + strings.Join(vals, ", "))
	_, err := g.try("SELECT k, ROW_NUMBER() OVER (ORDER BY k DESC) FROM a")
	if !errors.Is(err, exec.ErrBudgetExceeded) {
		t.Fatalf("over the budget: %v", err)
	}
}
