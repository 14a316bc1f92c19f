package planner

import (
	"fmt"
	"strings"
	"testing"
)

// showWarnings runs SHOW WARNINGS and returns its rows as "Level Code
// Message" lines.
func (f *fixture) warnings() string {
	f.t.Helper()
	res := f.exec("SHOW WARNINGS")
	var out []string
	for _, r := range res.Rows {
		out = append(out, fmt.Sprintf("%v %v %v", r[0], r[1], r[2]))
	}
	return strings.Join(out, "\n")
}

func TestWarningsSmoke(t *testing.T) {
	f := newFixture(t)
	f.exec("SELECT 1/0, 5 DIV 0, 5 % 0, MOD(5, 0), 'abc' + 1, '1 ' + 0, 1 = 'x', 1.5e0 < 'y'")
	t.Log(f.warnings())
}

func TestInsertIgnoreSmoke(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE tj (id BIGINT PRIMARY KEY, a TINYINT, b INT NOT NULL, u INT UNSIGNED, s VARCHAR(10) NOT NULL, f DOUBLE NOT NULL)")
	res := f.exec("INSERT IGNORE INTO tj VALUES (1, '12abc', NULL, -5, NULL, NULL), (2, '1.5', 1, 1, 'a', 'x'), (3, ' 7 ', 1, 99999999999, 'b', '1.5x'), (2, 1, 1, 1, 'c', 1)")
	t.Log(res.RowsAffected)
	t.Log(f.warnings())
	t.Log(f.exec("SELECT * FROM tj ORDER BY id").Rows)
}
