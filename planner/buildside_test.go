package planner

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
)

// TestLeftJoinBuildsSmallerLeft: a LEFT hash join whose left side is
// estimated far smaller than its right holds the left side
// (plan.ChooseBuildSides; EXPLAIN says build: left) and gives the rows of
// the right-built join: matches, unmatched and NULL-key left rows padded
// with NULLs, an ON condition on the right side, in memory and spilled.
func TestLeftJoinBuildsSmallerLeft(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE cust (k BIGINT, name VARCHAR(20))`)
	f.exec(`CREATE TABLE ord (ok BIGINT, k BIGINT, note VARCHAR(40))`)
	// Every third customer key has orders (keys below 100); some keys
	// of both sides are NULL.
	nullOr := func(null bool, k int) string {
		if null {
			return "NULL"
		}
		return fmt.Sprint(k)
	}
	f.exec("INSERT INTO cust VALUES " + valuesList(40, func(i int) string {
		return fmt.Sprintf("(%s, 'c%d')", nullOr(i%13 == 5, i*3), i)
	}))
	f.exec("INSERT INTO ord VALUES " + valuesList(3000, func(i int) string {
		note := "plain"
		if i%4 == 0 {
			note = "a special pending requests"
		}
		return fmt.Sprintf("(%d, %s, '%s')", i, nullOr(i%101 == 7, i%100), note)
	}))
	queries := []string{
		"SELECT cust.name, ord.ok FROM cust LEFT JOIN ord ON cust.k = ord.k",
		"SELECT cust.name, ord.ok, ord.note FROM cust LEFT JOIN ord ON cust.k = ord.k AND ord.note NOT LIKE '%special%requests%'",
		"SELECT cnt, COUNT(*) FROM (SELECT cust.k, COUNT(ord.ok) AS cnt FROM cust LEFT JOIN ord ON cust.k = ord.k AND ord.ok % 3 = 0 GROUP BY cust.k) AS x GROUP BY cnt",
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
	plan.BuildLeftMinRows = 1e12 // the rule off: the right side is built
	want := map[string]string{}
	for _, q := range queries {
		if text := explain(f, q); !strings.Contains(text, "(build: right") {
			t.Fatalf("rule off, %s:\n%s", q, text)
		}
		want[q] = sortedShow(f.rows(q))
	}
	plan.BuildLeftMinRows = 200 // under the estimates of ord behind its ON filters
	spilled := &fixture{t: t, s: NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, JoinMemory: 4 << 10, SpillDir: t.TempDir()})}
	for _, q := range queries {
		if text := explain(f, q); !strings.Contains(text, "HashJoin LEFT") || !strings.Contains(text, "(build: left") {
			t.Errorf("rule on, %s:\n%s", q, text)
		}
		if got := sortedShow(f.rows(q)); got != want[q] {
			t.Errorf("%s: built left gives\n%s\nwant\n%s", q, got, want[q])
		}
		if got := sortedShow(spilled.rows(q)); got != want[q] {
			t.Errorf("%s: built left and spilled gives\n%s\nwant\n%s", q, got, want[q])
		}
	}
	// The same budget without spilling fails: the left build side did
	// spill above.
	strict := &fixture{t: t, s: NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, JoinMemory: 4 << 10, NoSpill: true})}
	if _, err := strict.try(queries[0]); !errors.Is(err, exec.ErrBudgetExceeded) {
		t.Errorf("without spilling: %v, want ErrBudgetExceeded", err)
	}
	// A right side under the threshold keeps the usual build side.
	plan.BuildLeftMinRows = 5000
	if text := explain(f, queries[0]); !strings.Contains(text, "(build: right") {
		t.Errorf("under the threshold:\n%s", text)
	}
}

// valuesList is the VALUES list of n rows, row(i) giving each one's
// parenthesised text.
func valuesList(n int, row func(i int) string) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = row(i)
	}
	return strings.Join(rows, ", ")
}
