package planner

import (
	"fmt"
	"strings"
	"testing"
)

// TestReduceBySiblingIn: in a query over one table, a correlated subquery
// whose outer key also has a top-level IN (SELECT ...) conjunct gets that
// IN on its inner key (EXPLAIN shows it), and every answer is the one
// without it: scalar aggregates and EXISTS, NULL keys on every side, the
// TPC-H Q20 nesting. A NOT IN, an IN under OR and a subquery in the
// select list are left as they are.
func TestReduceBySiblingIn(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE p (pk INT, name VARCHAR(16))`)
	f.exec(`CREATE TABLE ps (ppk INT, psk INT, avail BIGINT)`)
	f.exec(`CREATE TABLE l (lpk INT, lsk INT, q BIGINT)`)
	insertRows(f, "p", 300, func(i int) string {
		return fmt.Sprintf("(%s, '%s%d')", keyOrNull(i, i, 47), []string{"forest", "lemon", "navy"}[i%3], i)
	})
	insertRows(f, "ps", 1200, func(i int) string {
		return fmt.Sprintf("(%s, %d, %d)", keyOrNull(i, i%310, 89), i%7, i*13%60)
	})
	insertRows(f, "l", 5000, func(i int) string {
		return fmt.Sprintf("(%s, %d, %d)", keyOrNull(i, i%305, 71), i%7, i*37%50)
	})
	forest := "(SELECT pk FROM p WHERE name LIKE 'forest%')"
	reduced := []string{
		"SELECT COUNT(*), SUM(avail) FROM ps WHERE ppk IN " + forest + " AND avail > (SELECT 0.5 * SUM(q) FROM l WHERE lpk = ppk AND lsk = psk)",
		"SELECT COUNT(*) FROM ps WHERE ps.ppk IN " + forest + " AND EXISTS (SELECT 1 FROM l WHERE l.lpk = ps.ppk AND q > 45)",
		"SELECT COUNT(*) FROM ps WHERE ppk IN " + forest + " AND NOT EXISTS (SELECT 1 FROM l WHERE ppk = lpk AND q > 40)",
		"SELECT psk, COUNT(*) FROM ps WHERE ppk IN " + forest + " AND (avail > (SELECT SUM(q) FROM l WHERE lpk = ppk) OR psk = 3) GROUP BY psk ORDER BY 1",
	}
	kept := []string{
		"SELECT COUNT(*) FROM ps WHERE ppk NOT IN " + forest + " AND avail > (SELECT 0.5 * SUM(q) FROM l WHERE lpk = ppk)",
		"SELECT COUNT(*) FROM ps WHERE (ppk IN " + forest + " OR psk = 2) AND avail > (SELECT 0.5 * SUM(q) FROM l WHERE lpk = ppk)",
		"SELECT ppk, (SELECT MAX(q) FROM l WHERE lpk = ppk) FROM ps WHERE ppk IN " + forest + " ORDER BY 1, 2",
	}
	q20 := "SELECT COUNT(*) FROM l WHERE lsk IN (SELECT psk FROM ps WHERE ppk IN " + forest +
		" AND avail > (SELECT 0.5 * SUM(q) FROM l WHERE lpk = ppk AND lsk = psk))"
	all := append(append(append([]string{}, reduced...), kept...), q20)
	sameWithAndWithout(t, f, &siblingReduction, all)
	added := "lpk in (select pk from p where name like 'forest%')"
	for _, q := range append(reduced, q20) {
		if e := explainText(f, q); !strings.Contains(strings.ToLower(e), added) {
			t.Errorf("EXPLAIN %s:\n%s\nwant the subquery reduced by %s", q, e, added)
		}
	}
	// information_schema's columns are no table data: nothing to reduce,
	// and no error.
	meta := "SELECT table_name FROM information_schema.tables WHERE table_name IN (SELECT 'ps') AND EXISTS (SELECT 1 FROM l WHERE lpk = table_name)"
	if got := show(f.rows(meta)); !strings.Contains(got, "ps") {
		t.Errorf("%s: got %s, want the row of ps", meta, got)
	}
	for _, q := range kept {
		if e := explainText(f, q); strings.Contains(strings.ToLower(e), added) {
			t.Errorf("EXPLAIN %s:\n%s\nwant no reduction", q, e)
		}
	}
}

// insertRows inserts n rows into table, row(i) the i-th's values.
func insertRows(f *fixture, table string, n int, row func(i int) string) {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = row(i)
	}
	f.exec("INSERT INTO " + table + " VALUES " + strings.Join(rows, ", "))
}

// keyOrNull is key as SQL, NULL for every nullEvery-th row i.
func keyOrNull(i, key, nullEvery int) string {
	if i%nullEvery == 0 {
		return "NULL"
	}
	return fmt.Sprint(key)
}
