package plan

import (
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/sqlparse"
)

// The nodes above the sources: what a query block computes over the rows
// of its FROM tree (WHERE's remainder, GROUP BY and aggregates, HAVING,
// ORDER BY, LIMIT, the select list), each a node of the one tree.
//
// A node's expressions are bound to its input's row layout: the joined
// row's slots below an Aggregate, the Aggregate's output (its group keys,
// then its calls, named by Aggregate.Slots) above it. Filter, Sort and
// Limit keep their input's layout; Aggregate and Project make a new one.

// Filter keeps the rows of Input for which Cond is TRUE.
type Filter struct {
	Input Node
	Cond  sqlparse.Expr
	// Having: the filter is a HAVING over groups (EXPLAIN says so).
	Having bool
	// OuterKeys, when set, names the outer columns whose values the
	// filter collects from all its input rows before it evaluates its
	// correlated EXISTS (or scalar subquery) conjuncts, whose decorrelated
	// runs then read only the inner rows of those keys (the planner's
	// semidomain.go).
	OuterKeys []string
	// OuterKinds names the kinds of subqueries OuterKeys serve, for
	// EXPLAIN ("" reads as EXISTS semi/anti joins).
	OuterKinds string
}

// Slots implements Node.
func (f *Filter) Slots() (int, int) { return f.Input.Slots() }

// Project evaluates the select list over each row of Input.
type Project struct {
	Input Node
	Exprs []sqlparse.Expr
	Names []string // the result's column labels
}

// Slots implements Node.
func (p *Project) Slots() (int, int) { return 0, len(p.Exprs) }

// Aggregate folds the rows of Input into one row per group: the values of
// GroupBy, then the results of Calls (aggregate function calls over the
// input's layout). Without GroupBy an empty input still yields one row.
type Aggregate struct {
	Input   Node
	GroupBy []sqlparse.Expr
	Calls   []*sqlparse.FuncCall
	// Slots names the output columns (group keys, then calls) as the
	// expressions above refer to them; EXPLAIN prints what they stand for.
	SlotNames []string
}

// Slots implements Node.
func (a *Aggregate) Slots() (int, int) { return 0, len(a.GroupBy) + len(a.Calls) }

// SortKey is one ORDER BY key.
type SortKey struct {
	Expr sqlparse.Expr
	Desc bool
}

// Sort orders the rows of Input by Keys (NULLs first, ties in input
// order). TopK >= 0 keeps only the first TopK rows (a heap under a
// LIMIT); otherwise every row is sorted within MaxRows rows, and past
// SpillBytes bytes (0: never) sorted runs go to disk.
type Sort struct {
	Input      Node
	Keys       []SortKey
	TopK       int64
	MaxRows    int
	SpillBytes int64
}

// Slots implements Node.
func (s *Sort) Slots() (int, int) { return s.Input.Slots() }

// Limit skips Offset rows of Input and passes at most Count (-1: all).
type Limit struct {
	Input  Node
	Count  int64
	Offset int64
}

// Slots implements Node.
func (l *Limit) Slots() (int, int) { return l.Input.Slots() }

// Values is literal rows with no source: the one empty row of a SELECT
// without FROM.
type Values struct {
	Rows [][]any
}

// Slots implements Node.
func (v *Values) Slots() (int, int) {
	if len(v.Rows) == 0 {
		return 0, 0
	}
	return 0, len(v.Rows[0])
}

// Source is a leaf whose rows a Table produces and whose EXPLAIN is the
// table's own lines (an information_schema view's CatalogScan, a derived
// table, a set operation under ORDER BY).
type Source struct {
	Table Table
	Spec  ScanSpec
	Width int
}

// Slots implements Node.
func (s *Source) Slots() (int, int) { return 0, s.Width }

// Input is the node's one input (nil for sources and joins).
func Input(n Node) Node {
	switch x := n.(type) {
	case *Filter:
		return x.Input
	case *Project:
		return x.Input
	case *Aggregate:
		return x.Input
	case *Sort:
		return x.Input
	case *Limit:
		return x.Input
	case *Window:
		return x.Input
	}
	return nil
}

// render prints a bound expression; names maps the quoted slot names of
// an Aggregate below to what they stand for.
func render(e sqlparse.Expr, names map[string]string) string {
	s := e.String()
	for k, v := range names {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// slotNames maps the quoted output names of the first Aggregate under n
// to the text of its keys and calls.
func slotNames(n Node) map[string]string {
	for ; n != nil; n = Input(n) {
		if w, ok := n.(*Window); ok {
			return w.Display
		}
		a, ok := n.(*Aggregate)
		if !ok {
			continue
		}
		out := map[string]string{}
		for i, name := range a.SlotNames {
			q := sqlparse.QuoteIdent(name)
			if i < len(a.GroupBy) {
				out[q] = a.GroupBy[i].String()
			} else {
				out[q] = a.Calls[i-len(a.GroupBy)].String()
			}
		}
		return out
	}
	return nil
}

// explainLine is the EXPLAIN line of an operator node (not a source).
func explainLine(n Node) string {
	names := slotNames(Input(n))
	switch x := n.(type) {
	case *Filter:
		if x.Having {
			return "Having " + render(x.Cond, names)
		}
		l := "Filter " + render(x.Cond, names)
		if len(x.OuterKeys) > 0 {
			kinds := x.OuterKinds
			if kinds == "" {
				kinds = "EXISTS semi/anti joins"
			}
			l += " (" + kinds + " get the outer keys of every input row first: " + strings.Join(x.OuterKeys, ", ") + ")"
		}
		return l
	case *Project:
		return "Project " + strings.Join(x.Names, ", ")
	case *Aggregate:
		var calls, keys []string
		for _, c := range x.Calls {
			calls = append(calls, c.String())
		}
		for _, g := range x.GroupBy {
			keys = append(keys, g.String())
		}
		l := "Aggregate " + strings.Join(calls, ", ")
		if len(keys) > 0 {
			l += " group by " + strings.Join(keys, ", ") + " (one state per group)"
		}
		return l
	case *Sort:
		var keys []string
		for _, k := range x.Keys {
			t := render(k.Expr, names)
			if k.Desc {
				t += " DESC"
			}
			keys = append(keys, t)
		}
		l := "Sort " + strings.Join(keys, ", ")
		switch {
		case x.TopK >= 0 && x.SpillBytes > 0:
			l += fmt.Sprintf(" (top-k: keeps %d rows; past %d bytes, sorted runs on disk)", x.TopK, x.SpillBytes)
		case x.TopK >= 0:
			l += fmt.Sprintf(" (top-k: keeps %d rows)", x.TopK)
		case x.SpillBytes > 0:
			l += fmt.Sprintf(" (in memory within %d rows and %d bytes, then sorted runs on disk)", x.MaxRows, x.SpillBytes)
		default:
			l += fmt.Sprintf(" (in memory, at most %d rows)", x.MaxRows)
		}
		return l
	case *Limit:
		l := "Limit none"
		if x.Count >= 0 {
			l = fmt.Sprintf("Limit %d", x.Count)
		}
		if x.Offset > 0 {
			l += fmt.Sprintf(" offset %d", x.Offset)
		}
		return l
	case *Window:
		return x.explain()
	case *Values:
		if len(x.Rows) == 1 && len(x.Rows[0]) == 0 {
			return "OneRow"
		}
		return fmt.Sprintf("Values (%d rows)", len(x.Rows))
	}
	return fmt.Sprintf("%T", n)
}
