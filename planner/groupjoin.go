package planner

import (
	"context"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Group joins (exec/groupjoin.go): an Aggregate straight over a hash
// join, grouping by the build side's join key where the build side is a
// table unique on that key (its one-column PRIMARY KEY, or a NOT NULL
// UNIQUE column), has one group per build row. TPC-H Q13's GROUP BY
// c_custkey over customer LEFT JOIN orders (built on customer) is the
// case: the join folds each order into its customer's states as it probes
// instead of emitting 1.5 million joined rows to a group table.

// groupJoins turns group joins on (tests compare with the general plan).
var groupJoins = true

// markGroupJoins marks the Aggregates of t that a group join answers.
func (t *treePlan) markGroupJoins(ctx context.Context) {
	if !groupJoins {
		return
	}
	for n := t.root; n != nil; n = plan.Input(n) {
		if x, ok := n.(*plan.Aggregate); ok && t.groupJoinOf(ctx, x) != nil {
			x.GroupJoin = true
		}
	}
}

// groupJoinOf is the hash join under x whose build rows are x's groups,
// nil when there is none: x's input is the FROM tree's root join, an
// INNER join (built on its right side) or a LEFT join built on its left
// side (the probe side keeps no unmatched rows), on one integer key, x
// groups by the build side's key column alone, that column is unique in
// its table, and x's calls are COUNT, SUM, AVG, MIN or MAX without
// DISTINCT.
func (t *treePlan) groupJoinOf(ctx context.Context, x *plan.Aggregate) *plan.Join {
	if t.from == nil || x.Input != t.from.root {
		return nil
	}
	j, ok := x.Input.(*plan.Join)
	if !ok || j.Lookup != nil || len(j.Keys) != 1 || j.Keys[0].NullSafe {
		return nil
	}
	var build plan.Node
	var buildKey sqlparse.Expr
	switch {
	case j.Kind == plan.Inner:
		build, buildKey = j.Right, j.Keys[0].R
	case j.Kind == plan.Left && j.BuildLeft:
		build, buildKey = j.Left, j.Keys[0].L
	default:
		return nil
	}
	a := t.aggs[x]
	if a == nil || len(a.groupBy) != 1 {
		return nil
	}
	for _, c := range a.calls {
		if c.distinct || c.concat != nil || len(c.args) > 1 {
			return nil
		}
		switch c.fn {
		case "count", "sum", "avg", "min", "max":
		default:
			return nil
		}
	}
	scope := t.from.scope
	slotOf := func(e sqlparse.Expr) (int, bool) {
		ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
		if !ok {
			return 0, false
		}
		return scope.SlotOfRef(ref)
	}
	keySlot, ok := slotOf(buildKey)
	if !ok {
		return nil
	}
	if g, ok := slotOf(a.groupBy[0]); !ok || g != keySlot {
		return nil
	}
	sc, ok := build.(*plan.Scan)
	if !ok || keySlot < sc.Lo || keySlot >= sc.Hi {
		return nil
	}
	src, ok := sc.Table.(*sourceTable)
	if !ok || src.dataset(ctx) == nil {
		return nil
	}
	if !signedIntegerType(t.from.cols[keySlot].DatabaseType) || !uniqueColumn(src.cols, keySlot-sc.Lo) {
		return nil
	}
	return j
}

// uniqueColumn reports whether column i of a table's columns holds no
// value twice and no NULL: the table's one-column PRIMARY KEY, or a NOT
// NULL UNIQUE column (lancecat's writes keep both; a table written by
// another writer that breaks them still gets the GROUP BY's groups, as
// the group join merges build rows of equal keys).
func uniqueColumn(cols []Column, i int) bool {
	if i < 0 || i >= len(cols) {
		return false
	}
	f := cols[i].Field
	if isUnique(f) && !f.Nullable {
		return true
	}
	if _, ok := primaryKeyPosition(f); !ok {
		return false
	}
	for k, c := range cols {
		if _, ok := primaryKeyPosition(c.Field); ok && k != i {
			return false // a key of several columns: this one repeats
		}
	}
	return true
}

// groupJoinOp is the operator of an Aggregate marked GroupJoin: its hash
// join with the Aggregate's states folded in (exec.GroupJoin).
func (t *treePlan) groupJoinOp(ctx context.Context, x *plan.Aggregate, budget *exec.Budget) (exec.Operator, error) {
	j := t.groupJoinOf(ctx, x)
	if j == nil {
		return nil, errorf(catalog.CodeInternal, "group join: the Aggregate no longer fits one")
	}
	a, env := t.aggs[x], t.envs[x]
	joinEnv := newRowEnv(t.from.cols)
	joinEnv.session = t.s
	// The join's rows hold its relations in its layout's order; the
	// Aggregate's expressions are bound to the slots' order.
	layout := plan.Layout(j)
	toSlots := func(row []any) []any { return row }
	if !plan.InOrder(layout) {
		scratch := make([]any, plan.Width(layout))
		toSlots = func(row []any) []any {
			pos := 0
			for _, s := range layout {
				pos += copy(scratch[s.Lo:s.Hi], row[pos:])
			}
			return scratch
		}
	}
	group := &exec.GroupJoin{
		Bytes: aggGroupBytes(a),
		New: func(n int) exec.GroupStates {
			return &groupJoinStates{a: a, env: env, toSlots: toSlots, states: make([]aggState, n*len(a.calls))}
		},
	}
	if probeAt, slotAt, ok := t.probeCounts(j, a); ok {
		group = &exec.GroupJoin{
			Bytes: int64(8 * len(a.calls)),
			New: func(n int) exec.GroupStates {
				return &groupJoinCounts{a: a, env: env, toSlots: toSlots, probeAt: probeAt, slotAt: slotAt, counts: make([]int64, n*len(a.calls))}
			},
		}
	}
	return t.from.buildJoin(ctx, j, joinEnv, budget, map[*plan.Scan][]plan.ScanKeyFilter{}, group)
}

// groupJoinStates is the Aggregate's states of each build row of a group
// join, len(calls) per row.
type groupJoinStates struct {
	a       *aggStage
	env     *rowEnv
	toSlots func([]any) []any
	states  []aggState
}

func (g *groupJoinStates) Fold(i int, row []any) error {
	row = g.toSlots(row)
	n := len(g.a.calls)
	st := g.states[i*n : i*n+n]
	for k, c := range g.a.calls {
		if err := c.add(&st[k], g.env, row); err != nil {
			return err
		}
	}
	return nil
}

func (g *groupJoinStates) Result(i int, row []any) ([]any, error) {
	row = g.toSlots(row)
	n := len(g.a.calls)
	st := g.states[i*n : i*n+n]
	out := make([]any, len(g.a.groupBy)+n)
	for k, e := range g.a.groupBy {
		v, err := g.env.eval(e, row)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	for k, c := range g.a.calls {
		v, err := c.result(&st[k])
		if err != nil {
			return nil, err
		}
		out[len(g.a.groupBy)+k] = v
	}
	return out, nil
}

// probeCounts reports whether every call of a is COUNT(*) or COUNT of a
// column of j's probe side, with each counted column's position in a
// probe row and in the slots' row (-1 for COUNT(*)).
func (t *treePlan) probeCounts(j *plan.Join, a *aggStage) (probeAt, slotAt []int, ok bool) {
	probe := j.Left
	if j.Kind == plan.Left {
		probe = j.Right // built on its left side (groupJoinOf)
	}
	layout := plan.Layout(probe)
	for _, c := range a.calls {
		if c.fn != "count" {
			return nil, nil, false
		}
		if c.star {
			probeAt, slotAt = append(probeAt, -1), append(slotAt, -1)
			continue
		}
		ref, isRef := sqlparse.StripParens(c.arg).(*sqlparse.ColumnRef)
		if !isRef {
			return nil, nil, false
		}
		slot, found := t.from.scope.SlotOfRef(ref)
		pos := rowPos(t.from.scope, c.arg, layout)
		if !found || pos < 0 {
			return nil, nil, false
		}
		probeAt, slotAt = append(probeAt, pos), append(slotAt, slot)
	}
	return probeAt, slotAt, true
}

// groupJoinCounts is groupJoinStates for calls that are all COUNT(*) or
// COUNT of a probe column (probeCounts): a count per call and build row.
type groupJoinCounts struct {
	a       *aggStage
	env     *rowEnv
	toSlots func([]any) []any
	// probeAt and slotAt are each call's counted column in a probe row and
	// in the slots' row; -1: COUNT(*).
	probeAt, slotAt []int
	counts          []int64
}

func (g *groupJoinCounts) FoldProbe(i int, probe []any) error {
	n := len(g.probeAt)
	for k, pos := range g.probeAt {
		if pos < 0 || probe[pos] != nil {
			g.counts[i*n+k]++
		}
	}
	return nil
}

func (g *groupJoinCounts) Fold(i int, row []any) error {
	row = g.toSlots(row)
	n := len(g.slotAt)
	for k, pos := range g.slotAt {
		if pos < 0 || row[pos] != nil {
			g.counts[i*n+k]++
		}
	}
	return nil
}

func (g *groupJoinCounts) Result(i int, row []any) ([]any, error) {
	row = g.toSlots(row)
	n := len(g.slotAt)
	out := make([]any, len(g.a.groupBy)+n)
	for k, e := range g.a.groupBy {
		v, err := g.env.eval(e, row)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	for k := range g.slotAt {
		out[len(g.a.groupBy)+k] = g.counts[i*n+k]
	}
	return out, nil
}
