// Package plan holds the query engine's logical plan: nodes saying what
// to compute (Scan of a Table, Join, and above them Filter, Aggregate,
// Sort, Limit, Project; Values for no FROM), the rewrite rules that push work
// into scans (filters, projection) and choose join strategies, and the
// one EXPLAIN printer of the tree. A node knows tables only through the
// Table seam: their columns and a Scan taking the columns and predicates
// to apply; index choice and file paths stay behind it.
//
// Every node produces rows over a contiguous range of slots of the
// query's joined row ([Lo, Hi)); expressions in nodes are bound (package
// planner/expr): their column references name slots.
package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/sqlparse"
)

// ScanSpec is what a scan reads: the relation's columns to produce
// (positions in Table.Columns; the others are NULL in the rows), the
// predicates (over the relation's own column names) every produced row
// satisfies, and a row limit (-1: none).
type ScanSpec struct {
	Columns    []int
	Predicates []sqlparse.Expr
	Limit      int64
	// KeyFilters are the build keys of joins above the scan, set when the
	// plan runs (KeyFilterPlan): the scan may drop the rows whose column
	// holds none of them.
	KeyFilters []ScanKeyFilter
}

// ScanKeyFilter is one join's key filter on a scan's column (the
// position among the table's columns).
type ScanKeyFilter struct {
	Column int
	Filter *exec.KeyFilter
}

// Table is the seam between the plan and a data source (table data, an
// information_schema view, a derived table).
type Table interface {
	// Describe names the source for EXPLAIN ("table db.t", "derived
	// table d").
	Describe() string
	// ColumnNames lists the source's columns in order.
	ColumnNames() []string
	// Scan opens the rows of spec; each row has len(ColumnNames()) values.
	Scan(ctx context.Context, spec ScanSpec) (exec.Operator, error)
	// Explain describes how Scan would read spec (the index it searches,
	// the fragments covered and scanned), one line per step.
	Explain(ctx context.Context, spec ScanSpec) ([]string, error)
}

// Node is a node of the logical plan.
type Node interface {
	// Slots is the range [lo, hi) of the joined row the node produces.
	Slots() (lo, hi int)
}

// Scan reads one relation.
type Scan struct {
	Table Table
	// Name is the relation's name in the query (alias or table name).
	Name   string
	Lo, Hi int
	Spec   ScanSpec
	// NullSupplied: an outer join above pads this relation with NULLs.
	NullSupplied bool
}

// Slots implements Node.
func (s *Scan) Slots() (int, int) { return s.Lo, s.Hi }

// JoinKind is the kind of a logical join.
type JoinKind = exec.JoinKind

// Join kinds.
const (
	Inner = exec.InnerJoin
	Left  = exec.LeftJoin
	Right = exec.RightJoin
	Full  = exec.FullJoin
)

// EquiKey is one conjunct `L = R` (NullSafe: `L <=> R`, where two NULLs
// match) of a join condition with L over the left input's slots and R
// over the right's.
type EquiKey struct {
	L, R     sqlparse.Expr
	NullSafe bool
}

func (k EquiKey) String() string {
	op := " = "
	if k.NullSafe {
		op = " <=> "
	}
	return k.L.String() + op + k.R.String()
}

// Join joins two inputs. On holds the condition's conjuncts as written
// (bound); SplitJoinKeys moves the equi-join ones to Keys, the others
// stay in On, evaluated on each candidate pair.
type Join struct {
	Kind        JoinKind
	Left, Right Node
	On          []sqlparse.Expr
	Keys        []EquiKey
	// Using names the USING (or NATURAL) columns, for EXPLAIN.
	Using   []string
	Natural bool
	// Spills: past the budget a hash join partitions both sides to disk
	// (MarkSpill sets it on the joins with keys).
	Spills bool
	// Lookup, when set, makes the join an index nested-loop join
	// (ChooseIndexJoins).
	Lookup *IndexJoin
	// KeyFilter, when set, passes the build side's keys to a scan under
	// the probe side (ChooseKeyFilters).
	KeyFilter *KeyFilterPlan
	// BuildLeft: a LEFT hash join holds its left side in memory and
	// streams the right side (ChooseBuildSides).
	BuildLeft bool
	// Notes are lines EXPLAIN prints under the join's (the plans of the
	// subqueries its condition holds).
	Notes []string
}

// MarkSpill marks the hash joins under n as spilling past the budget.
func MarkSpill(n Node) {
	if j, ok := n.(*Join); ok {
		j.Spills = len(j.Keys) > 0
		MarkSpill(j.Left)
		MarkSpill(j.Right)
	}
}

// Slots implements Node.
// The slots of a cluster of inner joins are one range whatever their
// order (ReorderJoins): the lowest and highest of its inputs'.
func (j *Join) Slots() (int, int) {
	llo, lhi := j.Left.Slots()
	rlo, rhi := j.Right.Slots()
	return min(llo, rlo), max(lhi, rhi)
}

// Strategy names how the join runs: a hash join on its keys, else a
// nested loop over every pair.
func (j *Join) Strategy() string {
	if j.Lookup != nil {
		return "IndexNestedLoopJoin"
	}
	if len(j.Keys) > 0 {
		return "HashJoin"
	}
	return "NestedLoopJoin"
}

func (j *Join) kindText() string {
	switch j.Kind {
	case Left:
		return "LEFT"
	case Right:
		return "RIGHT"
	case Full:
		return "FULL"
	}
	if len(j.Keys) == 0 && len(j.On) == 0 {
		return "CROSS"
	}
	return "INNER"
}

// Explain prints the tree under root, one node per line, children
// indented under their parent. budget is the per-query memory budget the
// build sides are charged to.
func Explain(ctx context.Context, root Node, budget int64) ([]string, error) {
	var lines []string
	var walk func(n Node, depth int) error
	walk = func(n Node, depth int) error {
		ind := strings.Repeat("  ", depth)
		switch x := n.(type) {
		case *Scan:
			lines = append(lines, fmt.Sprintf("%sScan %s AS %s", ind, x.Table.Describe(), sqlparse.QuoteIdent(x.Name)))
			sub, err := x.Table.Explain(ctx, x.Spec)
			if err != nil {
				return err
			}
			for _, l := range sub {
				lines = append(lines, ind+"  "+l)
			}
		case *Join:
			var b strings.Builder
			fmt.Fprintf(&b, "%s%s %s", ind, x.Strategy(), x.kindText())
			if x.Natural {
				b.WriteString(" NATURAL")
			}
			if len(x.Using) > 0 {
				b.WriteString(" USING (" + strings.Join(x.Using, ", ") + ")")
			}
			if len(x.Keys) > 0 {
				var ks []string
				for _, k := range x.Keys {
					ks = append(ks, k.String())
				}
				b.WriteString(" keys " + strings.Join(ks, ", "))
			}
			if len(x.On) > 0 {
				var cs []string
				for _, c := range x.On {
					cs = append(cs, c.String())
				}
				b.WriteString(" on " + strings.Join(cs, " AND "))
			}
			build := "right"
			if x.Kind == Right || x.BuildLeft {
				build = "left"
			}
			if lk := x.Lookup; lk != nil {
				inner, outer := x.Inner()
				is := inner.(*Scan)
				col := is.Table.ColumnNames()[lk.Column]
				fmt.Fprintf(&b, " (outer: %s, %d rows; inner: %s, %d rows, looked up by %s IN (the keys of each %d outer rows) through %s)",
					sideName(x, outer), lk.OuterRows, sideName(x, inner), lk.InnerRows, sqlparse.QuoteIdent(col), IndexJoinBatch, lk.Index)
				lines = append(lines, b.String())
				for _, l := range x.Notes {
					lines = append(lines, ind+"  "+l)
				}
				for _, side := range []Node{x.Left, x.Right} {
					if side != inner {
						if err := walk(side, depth+1); err != nil {
							return err
						}
						continue
					}
					// The inner scan as one lookup reads it.
					sp := is.Spec
					sp.Predicates = append(append([]sqlparse.Expr(nil), sp.Predicates...), lk.Sample)
					lines = append(lines, fmt.Sprintf("%s  Scan %s AS %s per lookup, shown for %s", ind, is.Table.Describe(), sqlparse.QuoteIdent(is.Name), lk.Sample))
					sub, err := is.Table.Explain(ctx, sp)
					if err != nil {
						return err
					}
					for _, l := range sub {
						lines = append(lines, ind+"    "+l)
					}
				}
				return nil
			}
			if x.Spills {
				fmt.Fprintf(&b, " (build: %s, in memory within %d bytes, then both sides partitioned to disk)", build, budget)
			} else {
				fmt.Fprintf(&b, " (build: %s, in memory within %d bytes)", build, budget)
			}
			lines = append(lines, b.String())
			if kf := x.KeyFilter; kf != nil {
				lines = append(lines, fmt.Sprintf("%s  build keys filter the scan of %s on %s",
					ind, sqlparse.QuoteIdent(kf.Scan.Name), sqlparse.QuoteIdent(kf.Scan.Table.ColumnNames()[kf.Column])))
			}
			for _, l := range x.Notes {
				lines = append(lines, ind+"  "+l)
			}
			if err := walk(x.Left, depth+1); err != nil {
				return err
			}
			return walk(x.Right, depth+1)
		case *Values:
			lines = append(lines, ind+explainLine(x))
		case *Source:
			sub, err := x.Table.Explain(ctx, x.Spec)
			if err != nil {
				return err
			}
			for _, l := range sub {
				lines = append(lines, ind+l)
			}
		default:
			in := Input(n)
			if in == nil {
				return fmt.Errorf("plan: no EXPLAIN for node %T", n)
			}
			lines = append(lines, ind+explainLine(x))
			return walk(in, depth+1)
		}
		return nil
	}
	err := walk(root, 0)
	return lines, err
}

func sideName(j *Join, n Node) string {
	if n == j.Left {
		return "left"
	}
	return "right"
}

// Scans lists the scans under n, left to right.
func Scans(n Node) []*Scan {
	switch x := n.(type) {
	case *Scan:
		return []*Scan{x}
	case *Join:
		return append(Scans(x.Left), Scans(x.Right)...)
	}
	if in := Input(n); in != nil {
		return Scans(in)
	}
	return nil
}
