package planner

import (
	"fmt"
	"strings"
	"testing"
)

// semiDomainFixture has an outer table o (ok with NULLs, a filter column
// grp, sk with NULLs) and an inner table l (lk with NULLs and keys o has
// not, sk with NULLs, flag).
func semiDomainFixture(t *testing.T, opts Options) *fixture {
	f := newDataFixture(t, opts)
	f.exec(`CREATE TABLE o (ok BIGINT, grp INT, sk BIGINT, name VARCHAR(8))`)
	f.exec(`CREATE TABLE l (lk BIGINT, sk BIGINT, flag INT, name VARCHAR(8))`)
	insertRows(f, "o", 300, func(i int) string {
		return fmt.Sprintf("(%s, %d, %s, 'n%d')", keyOrNull(i, i*2, 41), i%5, keyOrNull(i, i%4, 37), i*2)
	})
	insertRows(f, "l", 3000, func(i int) string {
		return fmt.Sprintf("(%s, %s, %d, 'n%d')", keyOrNull(i, i%900, 67), keyOrNull(i, i*7%5, 43), i*13%3, i%900)
	})
	return f
}

// TestSemiDomain: a Filter's correlated EXISTS / NOT EXISTS on an
// integer key gets the outer key values of all the rows it filters
// (EXPLAIN says so), its decorrelated table then holds only those keys,
// and every answer is the one without the domains: over one table (TPC-H
// Q4's shape, under an aggregate) and over a join with a <> residual
// (Q21's), NULL outer and inner keys and NULL <> operands, NOT EXISTS
// beside NOT IN, an EXISTS inside OR.
func TestSemiDomain(t *testing.T) {
	f := semiDomainFixture(t, Options{})
	queries := []string{
		"SELECT grp, COUNT(*) FROM o WHERE grp < 2 AND EXISTS (SELECT * FROM l WHERE l.lk = o.ok AND l.flag = 1) GROUP BY grp ORDER BY grp",
		"SELECT o.grp, COUNT(*) FROM l l1 JOIN o ON o.ok = l1.lk WHERE o.grp = 1 " +
			"AND EXISTS (SELECT * FROM l l2 WHERE l2.lk = l1.lk AND l2.sk <> l1.sk) " +
			"AND NOT EXISTS (SELECT * FROM l l3 WHERE l3.lk = l1.lk AND l3.sk <> l1.sk AND l3.flag = 0) GROUP BY o.grp",
		"SELECT ok, sk FROM o WHERE grp = 0 AND NOT EXISTS (SELECT * FROM l WHERE l.lk = o.ok AND l.sk <> o.sk) ORDER BY ok, sk",
		"SELECT ok FROM o WHERE grp = 0 AND NOT EXISTS (SELECT * FROM l WHERE l.lk = o.ok) ORDER BY ok",
		"SELECT ok FROM o WHERE grp = 0 AND ok NOT IN (SELECT lk FROM l) ORDER BY ok",
		"SELECT ok FROM o WHERE grp = 3 OR EXISTS (SELECT * FROM l WHERE l.lk = o.ok AND l.flag = 2) ORDER BY ok",
		"SELECT ok FROM o WHERE grp = 2 AND EXISTS (SELECT * FROM l WHERE l.name = o.name) ORDER BY ok",
	}
	sameWithAndWithout(t, f, &semiDomains, queries)
	const line = "EXISTS semi/anti joins get the outer keys of every input row first"
	for i, q := range queries {
		e := explainText(f, q)
		want := i != 4 && i != 6 // NOT IN, a string key: no domain
		if strings.Contains(e, line) != want {
			t.Errorf("EXPLAIN %s:\n%s\nwant the outer keys line: %v", q, e, want)
		}
	}
	// The decorrelated table holds the keys of o's rows with grp < 2 (at
	// most 120 of l's 900), not every key of l.
	f.rows(queries[0])
	n := 0
	for _, sq := range f.s.subq {
		if sq.decor == nil {
			continue
		}
		n++
		if len(sq.domains) == 0 || len(sq.decor.ints) == 0 || len(sq.decor.ints) > 120 {
			t.Errorf("decorrelated table of %d keys, domains %d; want at most 120 keys of one domain", len(sq.decor.ints), len(sq.domains))
		}
	}
	if n != 1 {
		t.Errorf("%d decorrelated subqueries, want 1", n)
	}
}

// TestSemiDomainPastBudget: when the Filter's rows pass its share of the
// memory budget the subquery gets no domain (it reads its table whole)
// and the answers are the same.
func TestSemiDomainPastBudget(t *testing.T) {
	f := semiDomainFixture(t, Options{JoinMemory: 16 << 10})
	q := "SELECT grp, COUNT(*) FROM o WHERE EXISTS (SELECT * FROM l WHERE l.lk = o.ok AND l.flag = 1) GROUP BY grp ORDER BY grp"
	sameWithAndWithout(t, f, &semiDomains, []string{q})
	f.rows(q)
	for _, sq := range f.s.subq {
		if len(sq.domains) > 0 {
			t.Errorf("subquery got a domain of %d keys past the budget", len(sq.domains))
		}
	}
}

// TestDecorrelationOutsideDomain: an outer value outside the domains a
// decorrelated table was read within is not answered from it.
func TestDecorrelationOutsideDomain(t *testing.T) {
	d := &decorrelation{domains: []keyDomain{{outer: 1, set: map[int64]struct{}{4: {}}}}}
	for _, c := range []struct {
		vals []any
		want bool
	}{
		{[]any{"x", int64(4)}, true},
		{[]any{"x", nil}, true},
		{[]any{"x", int64(5)}, false},
		{[]any{"x", "4"}, false},
	} {
		if got := d.inDomains(c.vals); got != c.want {
			t.Errorf("inDomains(%v) = %v, want %v", c.vals, got, c.want)
		}
	}
}
