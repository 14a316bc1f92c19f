package planner

import (
	"strings"
	"testing"
)

// TestSubqueryFilterPushedToScan: a WHERE conjunct of a join that filters
// one relation by an uncorrelated subquery runs in that relation's scan
// (EXPLAIN shows it there, in the scan's own column names), except below
// the NULL-padded side of an outer join; a correlated one stays above the
// join. The answers are the ones the placement must not change.
func TestSubqueryFilterPushedToScan(t *testing.T) {
	f := joinTables(t, Options{})
	f.exec(`INSERT INTO e VALUES (1, 5), (2, 100), (NULL, 7)`)
	cases := []struct {
		sql, want string
		pushed    string // a line EXPLAIN shows when the filter is in the scan
		above     string // a line EXPLAIN shows when it stays above the join
	}{
		{sql: "SELECT c.name, o.oid FROM c JOIN o ON c.id = o.id WHERE o.amount IN (SELECT x FROM e) ORDER BY o.oid",
			want: "ann,10 | ann,11", pushed: "Filter amount IN (SELECT x FROM e)"},
		{sql: "SELECT c.name, o.oid FROM c, o WHERE c.id = o.id AND c.city IN (SELECT 'oslo') AND o.amount > 1 ORDER BY o.oid",
			want: "ann,10 | ann,11", pushed: "Filter city IN (SELECT 'oslo')"},
		// The preserved side of a LEFT JOIN takes it; the padded side must not
		// (its NULL rows would survive a filter run before the padding).
		{sql: "SELECT c.name, o.oid FROM c LEFT JOIN o ON c.id = o.id WHERE c.city IN (SELECT 'oslo') ORDER BY c.name, o.oid",
			want: "ann,10 | ann,11 | cid,NULL", pushed: "Filter city IN (SELECT 'oslo')"},
		{sql: "SELECT c.name, o.oid FROM c LEFT JOIN o ON c.id = o.id WHERE o.amount NOT IN (SELECT x FROM e WHERE x IS NOT NULL) ORDER BY o.oid",
			want: "bob,12", above: "Filter `o.amount` NOT IN"},
		// Correlated to the other relation: per joined row, above the join.
		{sql: "SELECT c.name, o.oid FROM c JOIN o ON c.id = o.id WHERE o.amount IN (SELECT x FROM e WHERE e.id = c.id)",
			want: "ann,10", above: "Filter `o.amount` IN"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
		var lines []string
		for _, r := range f.rows("EXPLAIN " + tc.sql) {
			lines = append(lines, strings.TrimSpace(r[0].(string)))
		}
		text := strings.Join(lines, "\n")
		if tc.pushed != "" && !strings.Contains(text, tc.pushed) {
			t.Errorf("%s: not pushed into the scan:\n%s", tc.sql, text)
		}
		if tc.above != "" && !strings.Contains(text, tc.above) {
			t.Errorf("%s: not kept above the join:\n%s", tc.sql, text)
		}
	}
}
