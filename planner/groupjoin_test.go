package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/planner/plan"
)

// TestGroupJoin: an Aggregate grouping by the join key of a hash join's
// build side that is unique on it (a PRIMARY KEY, a NOT NULL UNIQUE
// column) folds during the probe (EXPLAIN says group join) and answers as
// the general plan (the join's rows into a group table) does: COUNT(*) of
// 1 and COUNT(col) of 0, SUM, AVG, MIN, MAX NULL for an unmatched build
// row of a LEFT join, several matches per build row, NULL probe keys and
// values, an ON condition over both sides, INNER joins, empty sides, in
// memory and spilled. A build side without such a key (duplicate keys)
// keeps the general plan.
func TestGroupJoin(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE cust (k BIGINT PRIMARY KEY, bal BIGINT, name VARCHAR(20))`)
	f.exec(`CREATE TABLE ucust (k BIGINT NOT NULL UNIQUE, bal BIGINT)`)
	f.exec(`CREATE TABLE dcust (k BIGINT, bal BIGINT)`)
	f.exec(`CREATE TABLE ord (ok BIGINT, k BIGINT, amt DECIMAL(10,2), note VARCHAR(40))`)
	f.exec(`CREATE TABLE noord (ok BIGINT, k BIGINT, amt DECIMAL(10,2), note VARCHAR(40))`)
	f.exec(`CREATE TABLE nocust (k BIGINT PRIMARY KEY, bal BIGINT, name VARCHAR(20))`)
	// Customer keys 0, 3, ..., 117; orders on keys below 100 (every
	// third customer has some, several each), some NULL keys and amounts.
	f.exec("INSERT INTO cust VALUES " + valuesList(40, func(i int) string {
		return fmt.Sprintf("(%d, %d, 'c%d')", i*3, i*50, i)
	}))
	f.exec("INSERT INTO ucust VALUES " + valuesList(40, func(i int) string {
		return fmt.Sprintf("(%d, %d)", i*3, i*50)
	}))
	// dcust repeats every key twice: no unique key.
	f.exec("INSERT INTO dcust VALUES " + valuesList(40, func(i int) string {
		return fmt.Sprintf("(%d, %d)", (i%20)*3, i*50)
	}))
	f.exec("INSERT INTO ord VALUES " + valuesList(3000, func(i int) string {
		note := "plain"
		if i%4 == 0 {
			note = "a special pending requests"
		}
		key := fmt.Sprint(i % 100)
		if i%101 == 7 {
			key = "NULL"
		}
		amt := fmt.Sprintf("%d.%02d", i%37, i%100)
		if i%17 == 3 {
			amt = "NULL"
		}
		return fmt.Sprintf("(%d, %s, %s, '%s')", i, key, amt, note)
	}))
	grouped := []string{
		// TPC-H Q13's shape.
		"SELECT cnt, COUNT(*) FROM (SELECT cust.k, COUNT(ord.ok) AS cnt FROM cust LEFT JOIN ord ON cust.k = ord.k AND ord.note NOT LIKE '%special%requests%' GROUP BY cust.k) AS x GROUP BY cnt",
		"SELECT cust.k, COUNT(ord.ok) FROM cust LEFT JOIN ord ON cust.k = ord.k GROUP BY cust.k",
		"SELECT cust.k, COUNT(*), COUNT(ord.amt), SUM(ord.amt), AVG(ord.amt), MIN(ord.note), MAX(ord.ok) FROM cust LEFT JOIN ord ON cust.k = ord.k GROUP BY cust.k",
		// An ON condition over both sides: evaluated on each pair.
		"SELECT cust.k, COUNT(*), COUNT(ord.ok), SUM(ord.amt) FROM cust LEFT JOIN ord ON cust.k = ord.k AND ord.ok > cust.bal GROUP BY cust.k",
		"SELECT cust.k, COUNT(ord.ok) AS n FROM cust LEFT JOIN ord ON cust.k = ord.k AND ord.ok + cust.bal < 1500 GROUP BY cust.k HAVING n > 2 ORDER BY n DESC, cust.k",
		"SELECT ucust.k, COUNT(*), SUM(ord.amt), MIN(ord.amt) FROM ucust LEFT JOIN ord ON ucust.k = ord.k GROUP BY ucust.k",
		"SELECT cust.k, COUNT(*), SUM(ord.amt), MAX(ord.note) FROM ord JOIN cust ON ord.k = cust.k GROUP BY cust.k",
		"SELECT cust.k, COUNT(*) FROM ord JOIN cust ON ord.k = cust.k AND ord.ok < cust.bal * 10 GROUP BY cust.k",
		// No probe row passes the ON filter pushed into ord's scan.
		"SELECT cust.k, COUNT(*), COUNT(ord.ok), MAX(ord.note) FROM cust LEFT JOIN ord ON cust.k = ord.k AND ord.ok < 0 GROUP BY cust.k",
		"SELECT nocust.k, COUNT(ord.ok) FROM nocust LEFT JOIN ord ON nocust.k = ord.k GROUP BY nocust.k",
	}
	general := []string{
		// Duplicate build keys: no unique key, no group join.
		"SELECT dcust.k, COUNT(*), COUNT(ord.ok), SUM(ord.amt) FROM dcust LEFT JOIN ord ON dcust.k = ord.k GROUP BY dcust.k",
		"SELECT dcust.k, COUNT(*) FROM ord JOIN dcust ON ord.k = dcust.k GROUP BY dcust.k",
		// A GROUP BY of the probe side's key, or of more than the key.
		"SELECT ord.k, COUNT(*) FROM cust LEFT JOIN ord ON cust.k = ord.k GROUP BY ord.k",
		"SELECT cust.k, cust.name, COUNT(*) FROM cust LEFT JOIN ord ON cust.k = ord.k GROUP BY cust.k, cust.name",
		// An empty right side is the smaller one: the LEFT join builds
		// it, so its probe side keeps its unmatched rows.
		"SELECT cust.k, COUNT(*), COUNT(noord.ok), SUM(noord.amt) FROM cust LEFT JOIN noord ON cust.k = noord.k GROUP BY cust.k",
		"SELECT cust.k, COUNT(*) FROM noord JOIN cust ON noord.k = cust.k GROUP BY cust.k",
		// COUNT(DISTINCT) is not folded.
		"SELECT cust.k, COUNT(DISTINCT ord.amt) FROM cust LEFT JOIN ord ON cust.k = ord.k GROUP BY cust.k",
	}
	explain := func(fx *fixture, q string) string {
		var lines []string
		for _, r := range fx.rows("EXPLAIN " + q) {
			lines = append(lines, r[0].(string))
		}
		return strings.Join(lines, "\n")
	}
	old := plan.BuildLeftMinRows
	defer func() { plan.BuildLeftMinRows = old }()
	plan.BuildLeftMinRows = 0 // every LEFT join here builds its left side
	all := append(append([]string(nil), grouped...), general...)
	groupJoins = false
	want := map[string]string{}
	for _, q := range all {
		if text := explain(f, q); strings.Contains(text, "group join") {
			t.Fatalf("group joins off, %s:\n%s", q, text)
		}
		want[q] = sortedShow(f.rows(q))
	}
	groupJoins = true
	defer func() { groupJoins = true }()
	spilled := &fixture{t: t, s: NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, JoinMemory: 4 << 10, SpillDir: t.TempDir()})}
	for i, q := range all {
		text := explain(f, q)
		if isGroup := strings.Contains(text, "(group join: one state per build row"); isGroup != (i < len(grouped)) {
			t.Errorf("group join %v, want %v: %s:\n%s", isGroup, i < len(grouped), q, text)
		}
		if got := sortedShow(f.rows(q)); got != want[q] {
			t.Errorf("%s: gives\n%s\nwant\n%s", q, got, want[q])
		}
		if i >= len(grouped) {
			continue // the general Aggregate does not spill its groups
		}
		if got := sortedShow(spilled.rows(q)); got != want[q] {
			t.Errorf("%s: spilled gives\n%s\nwant\n%s", q, got, want[q])
		}
	}
	// The unmatched customers of the LEFT join: COUNT(*) 1, COUNT and SUM
	// of the order side 0 and NULL.
	got := sortedShow(f.rows("SELECT cust.k, COUNT(*), COUNT(ord.ok), SUM(ord.amt) FROM cust LEFT JOIN ord ON cust.k = ord.k GROUP BY cust.k HAVING cust.k = 111"))
	if got != sortedShow([][]any{{int64(111), int64(1), int64(0), nil}}) {
		t.Errorf("an unmatched customer gives %s", got)
	}
}
