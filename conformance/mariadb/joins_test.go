package mariadb

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJoinsMatchMariaDB compares joins over two seeded tables (NULL and
// duplicate keys, a BTREE on one side's key) in both engines: inner, left
// and right joins on `=` and `<=>` keys, with residual conditions, and
// non-equi joins. MariaDB has no FULL OUTER JOIN, so lancecat's FULL JOIN
// is compared with the equivalent LEFT JOIN UNION ALL the RIGHT JOIN's
// unmatched rows.
func TestJoinsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc,
		"CREATE TABLE ja (pk BIGINT NOT NULL, k BIGINT, s VARCHAR(8), PRIMARY KEY (pk)) COLLATE=utf8mb4_bin",
		"CREATE TABLE jb (pk BIGINT NOT NULL, k BIGINT, s VARCHAR(8), PRIMARY KEY (pk)) COLLATE=utf8mb4_bin",
		"CREATE INDEX jb_k ON jb (k)")
	r := rand.New(rand.NewPCG(15, 15))
	for _, tbl := range []string{"ja", "jb"} {
		n := 60 + r.IntN(40)
		var vals []string
		for i := 0; i < n; i++ {
			k := fmt.Sprint(r.IntN(25))
			if r.IntN(8) == 0 {
				k = "NULL"
			}
			s := fmt.Sprintf("'%c'", 'a'+rune(r.IntN(4)))
			if r.IntN(10) == 0 {
				s = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%d, %s, %s)", i, k, s))
		}
		execBoth(t, my, lc, "INSERT INTO "+tbl+" VALUES "+strings.Join(vals, ", "))
	}
	sel := "SELECT ja.pk, ja.k, ja.s, jb.pk, jb.k, jb.s FROM "
	conds := []string{
		"ja.k = jb.k",
		"ja.k <=> jb.k",
		"ja.k = jb.k AND ja.s = jb.s",
		"ja.k <=> jb.k AND ja.s <> jb.s",
		"jb.k = ja.k AND jb.pk < 20",
		"ja.k < jb.k AND ja.s = 'a' AND jb.s = 'b'",
		"ja.s <=> jb.s AND ja.pk = jb.pk",
		"ja.k = jb.k AND ja.k > 20",
	}
	for _, on := range conds {
		for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN"} {
			compareQuery(t, my, lc, sel+"ja "+kind+" jb ON "+on, false)
		}
		compareQuery(t, my, lc, sel+"ja, jb WHERE "+on, false)
		full := sel + "ja FULL JOIN jb ON " + on
		anti := sel + "ja LEFT JOIN jb ON " + on + " UNION ALL " + sel + "ja RIGHT JOIN jb ON " + on + " WHERE ja.pk IS NULL"
		compareTwo(t, my, lc, anti, full)
	}
	// A big table with a BTREE on the key: lancecat runs these as index
	// nested-loop joins (ja is small beside it).
	var vals []string
	for i := 0; i < 1500; i++ {
		k := fmt.Sprint(r.IntN(40))
		if r.IntN(20) == 0 {
			k = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, '%c')", i, k, 'a'+rune(r.IntN(4))))
	}
	execBoth(t, my, lc,
		"CREATE TABLE jc (pk BIGINT NOT NULL, k BIGINT, s VARCHAR(8), PRIMARY KEY (pk)) COLLATE=utf8mb4_bin",
		"INSERT INTO jc VALUES "+strings.Join(vals, ", "),
		"CREATE INDEX jc_k ON jc (k)")
	var plan []string
	rows, err := lc.Query("EXPLAIN SELECT ja.pk, jc.pk FROM ja JOIN jc ON ja.k = jc.k")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, l)
	}
	rows.Close()
	if !strings.Contains(strings.Join(plan, "\n"), "IndexNestedLoopJoin") {
		t.Errorf("not an index join:\n%s", strings.Join(plan, "\n"))
	}
	for _, q := range []string{
		"SELECT ja.pk, jc.pk, jc.s FROM ja JOIN jc ON ja.k = jc.k",
		"SELECT ja.pk, jc.pk FROM ja LEFT JOIN jc ON ja.k = jc.k AND jc.s <> ja.s",
		"SELECT ja.pk, jc.pk FROM jc RIGHT JOIN ja ON jc.k = ja.k",
		"SELECT ja.s, COUNT(*), SUM(jc.pk) FROM ja JOIN jc ON jc.k = ja.k WHERE jc.pk > 100 GROUP BY ja.s",
	} {
		compareQuery(t, my, lc, q, false)
	}
	// Aggregates and a third relation over the joins.
	compareQuery(t, my, lc, "SELECT ja.s, COUNT(*), SUM(jb.pk) FROM ja JOIN jb ON ja.k = jb.k GROUP BY ja.s", false)
	compareQuery(t, my, lc, "SELECT COUNT(*) FROM ja JOIN jb ON ja.k = jb.k JOIN ja AS j3 ON j3.k <=> jb.k", false)
	compareTwo(t, my, lc,
		"SELECT COUNT(*), COUNT(apk), COUNT(bpk) FROM (SELECT ja.pk AS apk, jb.pk AS bpk FROM ja LEFT JOIN jb ON ja.k = jb.k"+
			" UNION ALL SELECT ja.pk, jb.pk FROM ja RIGHT JOIN jb ON ja.k = jb.k WHERE ja.pk IS NULL) AS u",
		"SELECT COUNT(*), COUNT(ja.pk), COUNT(jb.pk) FROM ja FULL JOIN jb ON ja.k = jb.k")
}

// compareTwo runs mySQL in MariaDB and lcSQL in lancecat and compares the
// rows as multisets.
func compareTwo(t *testing.T, my, lc querier, mySQL, lcSQL string) {
	t.Helper()
	want, werr := queryCells(t.Context(), my, mySQL)
	got, gerr := queryCells(t.Context(), lc, lcSQL)
	if werr != nil || gerr != nil {
		t.Errorf("%s\n  MariaDB (%s): %v\n  lancecat: %v", lcSQL, mySQL, werr, gerr)
		return
	}
	if msg := compareResults(Query{SQL: lcSQL}, want.rows, got.rows); msg != "" {
		t.Errorf("%s\n  against MariaDB's %s\n  %s", lcSQL, mySQL, msg)
	}
}

// TestJoinOnSubqueriesMatchMariaDB compares joins whose ON holds a
// subquery (uncorrelated, correlated to the left side, the right side or
// both, IN / EXISTS / NOT EXISTS / scalar / ANY / ALL) under inner, LEFT
// and RIGHT joins over seeded tables with NULL and duplicate keys: an
// outer join's ON subquery decides the match and keeps the preserved
// side's rows. lancecat refused them before.
func TestJoinOnSubqueriesMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc,
		"CREATE TABLE ja (pk BIGINT NOT NULL, k BIGINT, s VARCHAR(8), PRIMARY KEY (pk)) COLLATE=utf8mb4_bin",
		"CREATE TABLE jb (pk BIGINT NOT NULL, k BIGINT, s VARCHAR(8), PRIMARY KEY (pk)) COLLATE=utf8mb4_bin",
		"CREATE TABLE jq (k BIGINT, s VARCHAR(8)) COLLATE=utf8mb4_bin")
	r := rand.New(rand.NewPCG(16, 16))
	for _, tbl := range []string{"ja", "jb", "jq"} {
		n := 25 + r.IntN(15)
		var vals []string
		for i := 0; i < n; i++ {
			k := fmt.Sprint(r.IntN(12))
			if r.IntN(8) == 0 {
				k = "NULL"
			}
			s := fmt.Sprintf("'%c'", 'a'+rune(r.IntN(4)))
			if r.IntN(10) == 0 {
				s = "NULL"
			}
			if tbl == "jq" {
				vals = append(vals, fmt.Sprintf("(%s, %s)", k, s))
				continue
			}
			vals = append(vals, fmt.Sprintf("(%d, %s, %s)", i, k, s))
		}
		execBoth(t, my, lc, "INSERT INTO "+tbl+" VALUES "+strings.Join(vals, ", "))
	}
	subs := []string{
		"jb.k IN (SELECT k FROM jq WHERE s = 'a')",
		"ja.k NOT IN (SELECT k FROM jq WHERE k IS NOT NULL AND s = 'b')",
		"EXISTS (SELECT 1 FROM jq WHERE jq.k = ja.k AND jq.s = 'c')",
		"NOT EXISTS (SELECT 1 FROM jq WHERE jq.k = jb.k)",
		"EXISTS (SELECT 1 FROM jq WHERE jq.k = ja.k AND jq.s = jb.s)",
		"jb.pk > (SELECT MIN(pk) FROM jb AS x WHERE x.k = jb.k)",
		"ja.pk < (SELECT COUNT(*) FROM jq WHERE jq.s = ja.s)",
		"jb.k = (SELECT MAX(k) FROM jq)",
		"jb.k >= ALL (SELECT k FROM jq WHERE jq.s = ja.s AND k IS NOT NULL)",
		"jb.k < ANY (SELECT k FROM jq WHERE jq.s = 'd')",
		"EXISTS (SELECT 1 FROM jq WHERE jq.k > 100)",
		"(SELECT COUNT(*) FROM jq WHERE jq.k = ja.k) = (SELECT COUNT(*) FROM jq WHERE jq.k = jb.k)",
	}
	sel := "SELECT ja.pk, ja.k, jb.pk, jb.k FROM "
	for _, sub := range subs {
		for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN"} {
			compareQuery(t, my, lc, sel+"ja "+kind+" jb ON ja.s = jb.s AND "+sub, false)
			compareQuery(t, my, lc, sel+"ja "+kind+" jb ON ja.k < jb.k AND "+sub, false)
		}
		compareQuery(t, my, lc, sel+"ja LEFT JOIN jb ON "+sub, false)
	}
	// Over three tables, with aggregates above and a nested join's ON.
	compareQuery(t, my, lc, "SELECT ja.s, COUNT(jb.pk), COUNT(jq.k) FROM ja LEFT JOIN jb ON jb.k = ja.k AND jb.pk IN (SELECT pk FROM jb AS x WHERE x.s = ja.s) "+
		"LEFT JOIN jq ON jq.k = jb.k AND EXISTS (SELECT 1 FROM ja AS y WHERE y.s = jq.s AND y.pk < 5) GROUP BY ja.s", false)
	compareQuery(t, my, lc, "SELECT ja.pk, jb.pk, jq.k FROM ja JOIN (jb LEFT JOIN jq ON jq.k = jb.k AND jq.s NOT IN (SELECT s FROM ja AS z WHERE z.pk = jb.pk AND s IS NOT NULL)) ON jb.s = ja.s WHERE ja.pk < 6", false)
}
