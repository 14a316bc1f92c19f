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
	var rows []string
	for i := range 300 {
		pk := fmt.Sprint(i)
		if i%47 == 0 {
			pk = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%s, '%s%d')", pk, []string{"forest", "lemon", "navy"}[i%3], i))
	}
	f.exec(`INSERT INTO p VALUES ` + strings.Join(rows, ", "))
	rows = rows[:0]
	for i := range 1200 {
		ppk := fmt.Sprint(i % 310)
		if i%89 == 0 {
			ppk = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%s, %d, %d)", ppk, i%7, i*13%60))
	}
	f.exec(`INSERT INTO ps VALUES ` + strings.Join(rows, ", "))
	rows = rows[:0]
	for i := range 5000 {
		lpk := fmt.Sprint(i % 305)
		if i%71 == 0 {
			lpk = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%s, %d, %d)", lpk, i%7, i*37%50))
	}
	f.exec(`INSERT INTO l VALUES ` + strings.Join(rows, ", "))
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
	for _, q := range kept {
		if e := explainText(f, q); strings.Contains(strings.ToLower(e), added) {
			t.Errorf("EXPLAIN %s:\n%s\nwant no reduction", q, e)
		}
	}
}
