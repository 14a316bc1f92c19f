package planner

import (
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestCTEColumnListOverSetOpAndStar: a CTE's column list renames the
// columns of a set operation or of a SELECT * (MariaDB and MySQL 8 accept
// both), also over a join whose star repeats a name, referenced twice and
// from a subquery; a wrong count is 1353 and a repeated name 1060.
func TestCTEColumnListOverSetOpAndStar(t *testing.T) {
	f := joinTables(t, Options{})
	cases := []struct{ sql, want string }{
		{"WITH x(v) AS (SELECT 1 UNION SELECT 2 UNION SELECT 1) SELECT v FROM x ORDER BY v", "1 | 2"},
		{"WITH x(v, w) AS (SELECT id, name FROM c WHERE id < 2 UNION ALL SELECT oid, 'o' FROM o WHERE oid > 13) SELECT w, v FROM x WHERE v > 0 ORDER BY v", "ann,1 | o,14"},
		{"WITH x(k) AS (SELECT id FROM c EXCEPT SELECT id FROM o) SELECT x.k FROM x ORDER BY k", "3 | 4"},
		{"WITH x(a, b, cc) AS (SELECT * FROM c) SELECT b FROM x WHERE a = 2", "bob"},
		{"WITH x(a, b, cc) AS (SELECT * FROM c) SELECT * FROM x WHERE cc = 'lima'", "4,ann,lima"},
		// The star of a join names id twice: the list makes the names distinct.
		{"WITH x(cid, cname, city, oid, oc, amount) AS (SELECT * FROM c JOIN o ON o.id = c.id) SELECT cname, oid FROM x WHERE oc = cid ORDER BY oid", "ann,10 | ann,11 | bob,12"},
		// Referenced twice, joined to itself.
		{"WITH x(v) AS (SELECT 1 UNION SELECT 2) SELECT a.v, b.v FROM x a JOIN x b ON b.v = a.v + 1", "1,2"},
		// From a subquery, and in a later CTE.
		{"SELECT name FROM c WHERE id IN (WITH x(v) AS (SELECT 2 UNION SELECT 3) SELECT v FROM x) ORDER BY name", "bob | cid"},
		{"WITH x(v) AS (SELECT 5 UNION SELECT 6), y(w) AS (SELECT * FROM x) SELECT SUM(w) FROM y", "11"},
		// Column lists on plain SELECTs keep working.
		{"WITH x(v) AS (SELECT 7) SELECT v FROM x", "7"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
	res := f.exec("WITH x(first, second) AS (SELECT 1, 2 UNION SELECT 3, 4) SELECT * FROM x")
	if len(res.Columns) != 2 || res.Columns[0].Name != "first" || res.Columns[1].Name != "second" {
		t.Errorf("labels %v, want first, second", res.Columns)
	}
	f.fails("WITH x(a, b) AS (SELECT 1 UNION SELECT 2) SELECT * FROM x", catalog.CodeInvalidInput, "1353")
	f.fails("WITH x(a) AS (SELECT * FROM c) SELECT * FROM x", catalog.CodeInvalidInput, "1353")
	f.fails("WITH x(a, A) AS (SELECT 1, 2 UNION SELECT 3, 4) SELECT * FROM x", catalog.CodeInvalidInput, "1060")
	// The old error is gone.
	if _, err := f.try("WITH x(v) AS (SELECT 1 UNION SELECT 2) SELECT * FROM x"); err != nil {
		t.Errorf("set operation: %v", err)
	}
}

// TestCTEColumnListExplain: EXPLAIN plans a renamed CTE's body.
func TestCTEColumnListExplain(t *testing.T) {
	f := joinTables(t, Options{})
	got := show(f.rows("EXPLAIN WITH x(v) AS (SELECT id FROM c UNION SELECT id FROM o) SELECT v FROM x WHERE v > 1"))
	for _, want := range []string{"DerivedTable x", "SetOp UNION", "TableScan c", "TableScan o"} {
		if !strings.Contains(got, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, got)
		}
	}
}
