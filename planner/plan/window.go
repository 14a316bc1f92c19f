package plan

import (
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/sqlparse"
)

// Window computes window function calls (ROW_NUMBER() OVER (...), SUM(x)
// OVER w, ...) over the rows of Input: each output row is the input row
// followed by one value per call, named by SlotNames. The calls'
// arguments, PARTITION BY and ORDER BY keys are bound to Input's layout.
// The operator holds every input row (charged to the query's budget) and
// sorts row positions once per distinct window ordering.
type Window struct {
	Input Node
	Calls []*sqlparse.FuncCall
	// SlotNames names the output slots of the calls; Display maps the
	// quoted names of Input's slots and of the calls to the text they stand
	// for, for EXPLAIN.
	SlotNames []string
	Display   map[string]string
	// Budget is the query's memory budget the rows are charged to.
	Budget int64
}

// Slots implements Node.
func (w *Window) Slots() (int, int) {
	lo, hi := w.Input.Slots()
	return 0, hi - lo + len(w.Calls)
}

// Orderings counts the distinct (PARTITION BY, ORDER BY) sorts.
func (w *Window) Orderings() int {
	seen := map[string]bool{}
	for _, c := range w.Calls {
		_, part, order := c.WindowArgs()
		seen[windowKey(part, order, c.Over.Desc)] = true
	}
	return len(seen)
}

// WindowKey is the text identifying a call's window ordering.
func WindowKey(c *sqlparse.FuncCall) string {
	_, part, order := c.WindowArgs()
	return windowKey(part, order, c.Over.Desc)
}

func windowKey(part, order []sqlparse.Expr, desc []bool) string {
	var b strings.Builder
	for _, p := range part {
		b.WriteString(p.String())
		b.WriteByte(0)
	}
	b.WriteByte(1)
	for i, o := range order {
		b.WriteString(o.String())
		if desc[i] {
			b.WriteString(" DESC")
		}
		b.WriteByte(0)
	}
	return b.String()
}

func (w *Window) explain() string {
	var calls []string
	for _, c := range w.Calls {
		calls = append(calls, render(c, w.Display))
	}
	return fmt.Sprintf("Window %s (%d sort(s) of the rows, in memory within %d bytes)",
		strings.Join(calls, ", "), w.Orderings(), w.Budget)
}

// Render prints a bound expression with the quoted slot names of names
// replaced by what they stand for.
func Render(e sqlparse.Expr, names map[string]string) string { return render(e, names) }
