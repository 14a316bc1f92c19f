package planner

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// subqueryTables: orders (with NULLs) and a customer list (with a NULL
// name), in three fragments.
func subqueryTables(t *testing.T) *fixture {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE o (id INT NOT NULL, cust VARCHAR(8), total BIGINT)`)
	f.exec(`INSERT INTO o VALUES (1, 'ada', 100), (2, 'bob', 50), (3, 'ada', 300)`)
	f.exec(`INSERT INTO o VALUES (4, NULL, 10), (5, 'cy', NULL), (6, 'bob', 70)`)
	f.exec(`CREATE TABLE c (name VARCHAR(8), tier INT)`)
	f.exec(`INSERT INTO c VALUES ('ada', 1), ('bob', 2), (NULL, 3)`)
	return f
}

// TestDerivedTable: SELECT over (SELECT ...) AS t: star, aliases,
// WHERE/ORDER/LIMIT and aggregates over it, nesting, information_schema
// inside, streaming, and the errors MySQL gives.
func TestDerivedTable(t *testing.T) {
	f := subqueryTables(t)
	for _, c := range []struct{ sql, want string }{
		{"SELECT * FROM (SELECT id, total * 2 AS dbl FROM o WHERE id < 4) AS t", "[[1 200] [2 100] [3 600]]"},
		{"SELECT t.dbl, id FROM (SELECT id, total * 2 AS dbl FROM o) AS t WHERE dbl > 150 ORDER BY dbl DESC", "[[600 3] [200 1]]"},
		{"SELECT cust, n FROM (SELECT cust, COUNT(*) AS n FROM o GROUP BY cust) AS g WHERE n > 1 ORDER BY cust", "[[ada 2] [bob 2]]"},
		{"SELECT SUM(s) FROM (SELECT cust, SUM(total) AS s FROM o GROUP BY cust) AS g", "[[530]]"},
		{"SELECT * FROM (SELECT * FROM (SELECT id FROM o WHERE id > 4) AS a) AS b", "[[5] [6]]"},
		{"SELECT id FROM (SELECT id FROM o ORDER BY id DESC LIMIT 3) AS top ORDER BY id LIMIT 2", "[[4] [5]]"},
		{"SELECT n FROM (SELECT table_name AS n FROM information_schema.tables) AS x ORDER BY n", "[[c] [o]]"},
		{"SELECT COUNT(*) FROM (SELECT 1 AS one) AS d", "[[1]]"},
	} {
		if got := fmt.Sprint(f.rows(c.sql)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
	// Column types come through from the inner query.
	res := f.exec("SELECT * FROM (SELECT id, cust AS who FROM o) AS t LIMIT 1")
	if res.Columns[0].DatabaseType != "INT" || res.Columns[1].Name != "who" {
		t.Errorf("columns %+v", res.Columns)
	}
	// Without ORDER BY or aggregates the outer result streams.
	st, err := sqlparse.Parse("SELECT id FROM (SELECT id FROM o) AS t WHERE id > 1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.s.Exec(context.Background(), st[0])
	if err != nil {
		t.Fatal(err)
	}
	if !r.Streamed() {
		t.Error("SELECT over a derived table did not stream")
	}
	if err := r.Collect(); err != nil || len(r.Rows) != 5 {
		t.Errorf("streamed rows %v %v", r.Rows, err)
	}
	f.fails("SELECT * FROM (SELECT id, id FROM o) AS t", catalog.CodeInvalidInput, "duplicate column name")
	f.fails("SELECT nope FROM (SELECT id FROM o) AS t", catalog.CodeInvalidInput, "unknown column")
	f.fails("SELECT * FROM (SELECT id FROM nope) AS t", catalog.CodeTableNotFound, "")
}

// TestDistinctStarAndGroupBy: SELECT DISTINCT * and DISTINCT with GROUP BY,
// through a derived table.
func TestDistinctStarAndGroupBy(t *testing.T) {
	f := subqueryTables(t)
	f.exec(`INSERT INTO c VALUES ('ada', 1), ('bob', 9)`)
	if got := fmt.Sprint(f.rows("SELECT DISTINCT * FROM c ORDER BY name, tier")); got != "[[<nil> 3] [ada 1] [bob 2] [bob 9]]" {
		t.Errorf("DISTINCT *: %s", got)
	}
	if got := fmt.Sprint(f.rows("SELECT DISTINCT COUNT(*) AS n FROM c GROUP BY name ORDER BY n")); got != "[[1] [2]]" {
		t.Errorf("DISTINCT with GROUP BY: %s", got)
	}
	if got := fmt.Sprint(f.rows("SELECT DISTINCT name, COUNT(*) FROM c GROUP BY name ORDER BY COUNT(*) DESC, name LIMIT 2")); got != "[[ada 2] [bob 2]]" {
		t.Errorf("DISTINCT with GROUP BY, ORDER BY an aggregate: %s", got)
	}
}

// TestCorrelatedSubqueries: EXISTS, NOT EXISTS, IN, NOT IN and scalar
// subqueries reading the outer row, checked against the answer computed
// in Go from the same rows.
func TestCorrelatedSubqueries(t *testing.T) {
	f := subqueryTables(t)
	type order struct {
		id    int64
		cust  any
		total any
	}
	orders := []order{{1, "ada", int64(100)}, {2, "bob", int64(50)}, {3, "ada", int64(300)}, {4, nil, int64(10)}, {5, "cy", nil}, {6, "bob", int64(70)}}
	pick := func(keep func(order) bool) string {
		var out []int64
		for _, o := range orders {
			if keep(o) {
				out = append(out, o.id)
			}
		}
		return fmt.Sprint(out)
	}
	maxOf := func(cust any) any {
		var best any
		for _, o := range orders {
			if cust != nil && o.cust == cust && o.total != nil && (best == nil || o.total.(int64) > best.(int64)) {
				best = o.total
			}
		}
		return best
	}
	for _, c := range []struct{ where, want string }{
		{"EXISTS (SELECT 1 FROM c WHERE c.name = o.cust)", pick(func(o order) bool { return o.cust == "ada" || o.cust == "bob" })},
		{"NOT EXISTS (SELECT 1 FROM c WHERE name = cust)", pick(func(o order) bool { return o.cust != "ada" && o.cust != "bob" })},
		// The same table inside and out: the alias decides.
		{"total = (SELECT MAX(i.total) FROM o AS i WHERE i.cust = o.cust)", pick(func(o order) bool { return o.total != nil && o.total == maxOf(o.cust) })},
		{"total < (SELECT MAX(i.total) FROM o AS i WHERE i.cust = o.cust)", pick(func(o order) bool {
			m := maxOf(o.cust)
			return o.total != nil && m != nil && o.total.(int64) < m.(int64)
		})},
		{"o.cust IN (SELECT c.name FROM c WHERE c.tier < o.id)", pick(func(o order) bool {
			return (o.cust == "ada" && 1 < o.id) || (o.cust == "bob" && 2 < o.id)
		})},
		// NOT IN over a set with a NULL is never TRUE; over an empty set
		// always TRUE.
		{"cust NOT IN (SELECT name FROM c WHERE tier <= o.id)", pick(func(o order) bool {
			return o.id < 3 && o.cust != nil && o.cust != "ada" && (o.id < 2 || o.cust != "bob")
		})},
		{"id NOT IN (SELECT tier FROM c WHERE c.name = o.cust)", pick(func(o order) bool { return o.id != 1 && !(o.cust == "bob" && o.id == 2) })},
	} {
		if got := fmt.Sprint(ids(t, f.rows("SELECT id FROM o WHERE "+c.where+" ORDER BY id"))); got != c.want {
			t.Errorf("WHERE %s: got %s, want %s", c.where, got, c.want)
		}
	}
	// In the select list, and counted per outer value: three distinct
	// customers (and NULL) mean at most four runs for six rows.
	got := f.rows("SELECT id, (SELECT COUNT(*) FROM o AS i WHERE i.cust = o.cust) AS n FROM o ORDER BY id")
	if fmt.Sprint(got) != "[[1 2] [2 2] [3 2] [4 0] [5 1] [6 2]]" {
		t.Errorf("scalar in the select list: %v", got)
	}
	var runs []int
	for _, sq := range f.s.subq {
		runs = append(runs, sq.runs)
	}
	if !slices.Equal(runs, []int{4}) {
		t.Errorf("correlated runs %v, want [4] (one per distinct outer value)", runs)
	}
	// A scalar subquery with two rows for some outer row: MySQL's error 1242.
	_, err := f.try("SELECT id, (SELECT i.id FROM o AS i WHERE i.cust = o.cust) FROM o")
	if !errors.Is(err, ErrSubqueryMultipleRows) || !errors.Is(err, catalog.ErrInvalidInput) {
		t.Errorf("two rows: %v", err)
	}
	// Over grouped rows the outer values come from the group keys; a
	// column that is not one is refused, as in any select item.
	if got := fmt.Sprint(f.rows("SELECT cust, COUNT(*), (SELECT tier FROM c WHERE c.name = o.cust) AS tier FROM o GROUP BY cust HAVING EXISTS (SELECT 1 FROM c WHERE c.name = o.cust) ORDER BY cust")); got != "[[ada 2 1] [bob 2 2]]" {
		t.Errorf("correlated over groups: %s", got)
	}
	f.fails("SELECT cust, (SELECT COUNT(*) FROM c WHERE c.tier = o.id) FROM o GROUP BY cust", catalog.CodeInvalidInput, "neither aggregated nor named in GROUP BY")
	// In UPDATE and DELETE.
	f.exec("UPDATE o SET total = (SELECT tier FROM c WHERE c.name = o.cust) WHERE EXISTS (SELECT 1 FROM c WHERE c.name = o.cust)")
	if got := fmt.Sprint(f.rows("SELECT id, total FROM o ORDER BY id")); got != "[[1 1] [2 2] [3 1] [4 10] [5 <nil>] [6 2]]" {
		t.Errorf("after UPDATE: %s", got)
	}
	f.exec("DELETE FROM o WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.name = o.cust)")
	if got := fmt.Sprint(ids(t, f.rows("SELECT id FROM o ORDER BY id"))); got != "[1 2 3 6]" {
		t.Errorf("after DELETE: %s", got)
	}
}

// TestInAnyAllNulls: IN, NOT IN, ANY and ALL in SQL's three-valued logic,
// read as values (1, 0, NULL) rather than through WHERE.
func TestInAnyAllNulls(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE v (x INT, g INT)`)
	f.exec(`INSERT INTO v VALUES (1, 1), (2, 1), (NULL, 2), (5, 2), (7, 3)`)
	for _, c := range []struct {
		expr string
		want any
	}{
		{"1 IN (SELECT x FROM v)", int64(1)},
		{"3 IN (SELECT x FROM v)", nil},                  // no match, a NULL in the set
		{"3 IN (SELECT x FROM v WHERE g = 1)", int64(0)}, // no match, no NULL
		{"NULL IN (SELECT x FROM v)", nil},
		{"NULL IN (SELECT x FROM v WHERE g = 9)", int64(0)}, // empty set
		{"3 NOT IN (SELECT x FROM v)", nil},
		{"3 NOT IN (SELECT x FROM v WHERE g = 1)", int64(1)},
		{"NULL NOT IN (SELECT x FROM v WHERE g = 9)", int64(1)},
		{"6 > ANY (SELECT x FROM v)", int64(1)},
		{"0 > ANY (SELECT x FROM v)", nil},                     // no TRUE, one NULL
		{"0 > ANY (SELECT x FROM v WHERE g <> 2)", int64(0)},   // all FALSE
		{"0 > ANY (SELECT x FROM v WHERE g = 9)", int64(0)},    // empty
		{"8 > ALL (SELECT x FROM v)", nil},                     // no FALSE, one NULL
		{"8 > ALL (SELECT x FROM v WHERE g <> 2)", int64(1)},   // all TRUE
		{"6 > ALL (SELECT x FROM v)", int64(0)},                // one FALSE
		{"NULL > ALL (SELECT x FROM v WHERE g = 9)", int64(1)}, // empty
		{"2 = ANY (SELECT x FROM v)", int64(1)},
		{"2 <> ALL (SELECT x FROM v WHERE g <> 2)", int64(0)},
	} {
		got := f.rows("SELECT " + c.expr)
		if len(got) != 1 || !reflect.DeepEqual(got[0][0], c.want) {
			t.Errorf("SELECT %s: got %v, want %v", c.expr, got, c.want)
		}
	}
	// Long lists go through a hash set: same answers, NULL included.
	var vals []string
	for i := range 40 {
		vals = append(vals, fmt.Sprintf("(%d, 7)", i*3))
	}
	f.exec("INSERT INTO v VALUES " + strings.Join(vals, ", "))
	for expr, want := range map[string]any{
		"9 IN (SELECT x FROM v WHERE g = 7)":                                                int64(1),
		"10 IN (SELECT x FROM v WHERE g = 7)":                                               int64(0),
		"10 IN (SELECT x FROM v WHERE g = 7 OR g = 2)":                                      nil, // the NULL of g = 2
		"'9' IN (SELECT x FROM v WHERE g = 7)":                                              int64(1),
		"9.0 IN (SELECT x FROM v WHERE g = 7)":                                              int64(1),
		"10 NOT IN (SELECT x FROM v WHERE g = 7)":                                           int64(1),
		"(SELECT COUNT(*) FROM v AS a WHERE a.x IN (SELECT b.x FROM v AS b WHERE b.g = 7))": int64(40),
	} {
		got := f.rows("SELECT " + expr)
		if len(got) != 1 || !reflect.DeepEqual(got[0][0], want) {
			t.Errorf("SELECT %s: got %v, want %v", expr, got, want)
		}
	}
	// In WHERE, correlated.
	if got := fmt.Sprint(f.rows("SELECT x FROM v AS a WHERE x >= ALL (SELECT b.x FROM v AS b WHERE b.g = a.g AND b.x IS NOT NULL) ORDER BY x")); got != "[[2] [5] [7] [117]]" {
		t.Errorf("correlated ALL: %s", got)
	}
}

// TestExplainDoesNotRunSubqueries: EXPLAIN plans subqueries and prints
// them as children; one that would fail when run (two rows for a scalar)
// does not fail EXPLAIN.
func TestExplainDoesNotRunSubqueries(t *testing.T) {
	f := subqueryTables(t)
	f.fails("SELECT (SELECT id FROM o)", catalog.CodeInvalidInput, "more than 1 row")
	res := f.exec("EXPLAIN SELECT id, (SELECT id FROM o) FROM o WHERE EXISTS (SELECT 1 FROM c WHERE c.name = o.cust)")
	var text []string
	for _, r := range res.Rows {
		text = append(text, r[0].(string))
	}
	plan := strings.Join(text, "\n")
	for _, want := range []string{
		"  Subquery (SELECT id FROM o) (uncorrelated: runs once, when first needed)",
		"  Subquery EXISTS (SELECT 1 FROM c WHERE c.name = o.cust) (correlated on o.cust",
		"TableScan c",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	res = f.exec("EXPLAIN SELECT n FROM (SELECT cust, COUNT(*) AS n FROM o GROUP BY cust) AS g")
	if len(res.Rows) < 3 || !strings.Contains(fmt.Sprint(res.Rows), "DerivedTable g") || !strings.Contains(fmt.Sprint(res.Rows), "TableScan o") {
		t.Errorf("EXPLAIN over a derived table: %v", res.Rows)
	}
}

// TestUpdateSetFunctions: function calls and arithmetic in UPDATE SET.
func TestUpdateSetFunctions(t *testing.T) {
	f := subqueryTables(t)
	f.exec("UPDATE o SET cust = UPPER(cust), total = total + 1 WHERE id <= 2")
	f.exec("UPDATE o SET cust = CONCAT(cust, '!') WHERE LENGTH(cust) = 2")
	if got := fmt.Sprint(f.rows("SELECT id, cust, total FROM o ORDER BY id")); got != "[[1 ADA 101] [2 BOB 51] [3 ada 300] [4 <nil> 10] [5 cy! <nil>] [6 bob 70]]" {
		t.Errorf("after UPDATE: %s", got)
	}
}

// TestCorrelatedRunsUseIndex: each run of a correlated subquery has the
// outer values as literals, so its equality (also `= o.x + 1`) goes through
// the inner table's index.
func TestCorrelatedRunsUseIndex(t *testing.T) {
	counter := &countingIndexes{}
	f := newDataFixture(t, Options{Indexes: counter})
	f.exec(`CREATE TABLE o (id INT NOT NULL, k BIGINT)`)
	f.exec(`INSERT INTO o VALUES (1, 10), (2, 20), (3, 10), (4, 40)`)
	f.exec(`CREATE TABLE c (k BIGINT, v INT)`)
	f.exec(`INSERT INTO c VALUES (10, 1), (21, 2), (40, 3), (41, 4)`)
	f.exec(`CREATE INDEX c_k ON c (k)`)
	before := counter.served
	if got := fmt.Sprint(f.rows("SELECT id, (SELECT v FROM c WHERE c.k = o.k) AS a, (SELECT v FROM c WHERE c.k = o.k + 1) AS b FROM o ORDER BY id")); got != "[[1 1 <nil>] [2 <nil> 2] [3 1 <nil>] [4 3 4]]" {
		t.Fatalf("rows %s", got)
	}
	// Three distinct k: three runs of each subquery, each served.
	if served := counter.served - before; served != 6 {
		t.Errorf("%d runs served by the index, want 6", served)
	}
}
