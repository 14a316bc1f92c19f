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
