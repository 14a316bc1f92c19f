package planner

import (
	"strings"
	"testing"
)

// TestJoinKeyFilters: a join's build keys filter the scan under its probe
// side (EXPLAIN says which), and every answer is the one without the
// filters: NULL keys, duplicate keys, several batches of the scan, keys
// of other types (no filter), <=> (no filter), an outer join above.
func TestJoinKeyFilters(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE fact (id BIGINT, k INT, kd DOUBLE, s VARCHAR(8), v BIGINT)`)
	f.exec(`CREATE TABLE dim (k INT, flag INT, name VARCHAR(8))`)
	f.exec(`CREATE TABLE other (k BIGINT, w BIGINT)`)
	var rows []string
	for i := range 3000 {
		k := itoa(i % 40)
		if i%97 == 0 {
			k = "NULL"
		}
		rows = append(rows, "("+itoa(i)+", "+k+", "+itoa(i%40)+".0, 's"+itoa(i%40)+"', "+itoa(i*7%1000)+")")
	}
	f.exec(`INSERT INTO fact VALUES ` + strings.Join(rows, ", "))
	rows = rows[:0]
	for i := range 20 {
		rows = append(rows, "("+itoa(i*2)+", "+itoa(i%3)+", 's"+itoa(i*2)+"')")
	}
	f.exec(`INSERT INTO dim VALUES ` + strings.Join(rows, ", ") + `, (NULL, 1, 'null'), (4, 1, 'dup')`)
	f.exec(`INSERT INTO other VALUES (2, 1), (4, 2), (6, 3), (NULL, 4)`)
	queries := []string{
		"SELECT COUNT(*), SUM(fact.v) FROM fact JOIN dim ON fact.k = dim.k WHERE dim.flag = 1",
		"SELECT dim.name, COUNT(*) FROM fact, dim WHERE fact.k = dim.k GROUP BY dim.name ORDER BY 1",
		"SELECT COUNT(*), SUM(fact.v) FROM fact JOIN dim ON fact.kd = dim.k WHERE dim.flag = 1",
		"SELECT COUNT(*), SUM(fact.v) FROM fact JOIN dim ON fact.s = dim.name",
		"SELECT COUNT(*) FROM fact JOIN dim ON fact.k <=> dim.k",
		"SELECT COUNT(*), SUM(fact.v + other.w) FROM fact JOIN dim ON fact.k = dim.k JOIN other ON other.k = dim.k WHERE fact.v > 100",
		"SELECT other.w, COUNT(x.id) FROM other LEFT JOIN (SELECT fact.id, fact.k FROM fact JOIN dim ON fact.k = dim.k WHERE dim.flag = 2) AS x ON x.k = other.k GROUP BY other.w ORDER BY 1",
		"SELECT COUNT(*) FROM dim LEFT JOIN fact ON fact.k = dim.k",
		"SELECT COUNT(*) FROM fact JOIN dim ON fact.k = dim.k AND dim.flag = 9",
		// A subquery over the filtered table in the scan's own WHERE reads
		// all of it.
		"SELECT COUNT(*), SUM(fact.v) FROM fact JOIN dim ON fact.k = dim.k WHERE dim.flag = 1 AND fact.v > (SELECT AVG(f2.v) FROM fact f2 WHERE f2.k >= 0)",
	}
	want := sameWithAndWithout(t, f, &joinKeyFilters, queries)
	if want[0] == "0,NULL" {
		t.Fatalf("the first query joins no rows: %s", want[0])
	}
	explain := func(q string) string { return explainText(f, q) }
	if e := explain(queries[0]); !strings.Contains(e, "build keys filter the scan of fact on k") {
		t.Errorf("EXPLAIN %s:\n%s\nwant the key filter on fact.k", queries[0], e)
	}
	for _, q := range []string{queries[2], queries[3], queries[4]} {
		if e := explain(q); strings.Contains(e, "build keys filter the scan of fact ") {
			t.Errorf("EXPLAIN %s:\n%s\nwant no key filter on fact (not an integer column of both sides, or <=>)", q, e)
		}
	}
}

// sameWithAndWithout runs queries with *toggle off, then on, and reports
// each whose rows differ; it returns the rows without.
func sameWithAndWithout(t *testing.T, f *fixture, toggle *bool, queries []string) []string {
	t.Helper()
	want := make([]string, len(queries))
	*toggle = false
	defer func() { *toggle = true }()
	for i, q := range queries {
		want[i] = show(f.rows(q))
	}
	*toggle = true
	for i, q := range queries {
		if got := show(f.rows(q)); got != want[i] {
			t.Errorf("%s\n with    %s\n without %s", q, got, want[i])
		}
	}
	return want
}

// explainText is a query's EXPLAIN as lines of text.
func explainText(f *fixture, q string) string {
	var lines []string
	for _, r := range f.rows("EXPLAIN " + q) {
		lines = append(lines, r[0].(string))
	}
	return strings.Join(lines, "\n")
}
