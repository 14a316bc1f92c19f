package planner

import (
	"context"
	"slices"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// One plan tree per SELECT (issue 15's architecture step, under way).
//
// buildSelect is the builder's entry point: the plan tree of a SELECT,
// from its sources (plan.Scan, plan.Join, plan.Values) up through the
// nodes of its query block (plan.Filter for WHERE's remainder,
// plan.Aggregate and a HAVING plan.Filter, plan.Sort, plan.Limit,
// plan.Project), each run by an operator of planner/exec charged to the
// query's one exec.Budget. A feature that adds a node (a window, an
// INSERT ... SELECT consuming the rows) takes the treePlan buildSelect
// returns: its root, its result columns, and run.
//
// Every SELECT is such a tree (doc.go says which file builds which
// source). Plans that are not trees yet (the vector and full-text
// searches) stand in it as one leaf (queryTable).
//
// The nodes above the sources are made from the planned query block
// (treeAbove): the select list, WHERE, GROUP BY, HAVING, ORDER BY and
// LIMIT keep the meanings, errors and result types the selectPipeline
// gave them; each node's expressions are evaluated by the rowEnv of its
// input's layout. The Sort operator is the pipeline's sort (a top-k heap
// under a LIMIT, else a sort spilling sorted runs past
// Options.SortMemory, spill.go).

// treePlan is a SELECT planned as one plan tree.
type treePlan struct {
	s      *Session
	root   plan.Node
	cols   []Column // the result's columns
	from   *joinPlan
	envs   map[plan.Node]*rowEnv // the row layout each node's expressions are bound to
	aggs   map[*plan.Aggregate]*aggStage
	data   *dataPlan // the planned scan of a SELECT over table data (datatree.go)
	budget int64
	source string // names the source in errors
	// collect: the result is read to its end before it is returned (the
	// rows of a view or of no FROM, whose functions run within the
	// statement, as before the tree).
	collect bool
	// explain holds the EXPLAIN lines (prepareExplain).
	explain []string
	// spilled: the run's sort wrote sorted runs to disk (sortOp).
	spilled bool
	// wins holds what the Window nodes run (window.go).
	wins map[*plan.Window]*windowStage
}

func (t *treePlan) resultColumns() []Column { return t.cols }
func (t *treePlan) Explain() []string       { return t.explain }

func (t *treePlan) prepareExplain(ctx context.Context) error {
	if t.from != nil {
		if err := t.s.explainOn(ctx, t.from.root, t.from.subq); err != nil {
			return err
		}
	}
	var err error
	t.explain, err = plan.Explain(ctx, t.root, t.budget)
	return err
}

// buildSelect plans st as one tree (see above).
func (s *Session) buildSelect(ctx context.Context, st *sqlparse.Select) (*treePlan, error) {
	p, err := s.planQuery(ctx, st)
	if err != nil {
		return nil, err
	}
	if t, ok := p.(*treePlan); ok {
		return t, nil
	}
	t := &treePlan{s: s, cols: p.resultColumns(), budget: s.joinBudget(), envs: map[plan.Node]*rowEnv{}}
	t.root = &plan.Scan{Table: &queryTable{p: p, s: s}, Name: "query", Hi: len(t.cols), Spec: plan.ScanSpec{Limit: -1}}
	return t, nil
}

// joinBudget is the per-query memory budget of the operators.
func (s *Session) joinBudget() int64 {
	if s.opts.JoinMemory > 0 {
		return s.opts.JoinMemory
	}
	return DefaultJoinMemory
}

// queryTable is the plan.Table of a query planned by a path not yet on the
// tree: its result's rows.
type queryTable struct {
	s *Session
	p queryPlan
}

func (q *queryTable) Describe() string { return "query" }

func (q *queryTable) ColumnNames() []string {
	var out []string
	for _, c := range q.p.resultColumns() {
		out = append(out, c.Name)
	}
	return out
}

func (q *queryTable) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	res, err := q.p.run(ctx, q.s)
	if err != nil {
		return nil, err
	}
	return exec.FromSeq(cursorRows(res)), nil
}

func (q *queryTable) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	if err := q.s.prepareExplain(ctx, q.p); err != nil {
		return nil, err
	}
	return q.p.Explain(), nil
}

// above sets the tree of the query block sp planned over the rows of
// from (whose layout sp's expressions are bound to).
func (t *treePlan) above(from plan.Node, sp *selectPipeline) {
	t.cols = sp.outCols
	n := from
	if sp.where != nil {
		f := &plan.Filter{Input: n, Cond: sp.where}
		// Not under a LIMIT that stops the rows early: reading them all
		// ahead would read more than the query needs.
		early := sp.limit >= 0 && sp.agg == nil && len(sp.order) == 0
		if _, _, keys := domainConjuncts(sp.where, sp.env); len(keys) > 0 && !early {
			f.OuterKeys, f.OuterKinds = domainKeyNames(keys), domainKeyKinds(keys) // semidomain.go
		}
		n = t.node(f, sp.env)
	}
	switch {
	case sp.agg != nil:
		n = t.aggregate(n, sp.env, sp.agg)
		t.root = t.rest(n, &sp.agg.post, true)
	case sp.countStar:
		// The lone COUNT the pipeline answers itself: an Aggregate of one
		// call.
		fc := &sqlparse.FuncCall{Name: "COUNT", Aggregate: true, Star: sp.countArg == nil}
		if sp.countArg != nil {
			fc.Args = []sqlparse.Expr{sp.countArg}
		}
		a := &aggStage{calls: []aggCall{{fn: "count", star: fc.Star, arg: sp.countArg, text: fc.String(), call: fc}}}
		a.post = *sp
		a.post.env = newRowEnv([]Column{bigint(aggSlot("a", 0))})
		a.post.env.session, a.post.env.subq = sp.env.session, sp.env.subq
		a.post.where, a.post.order = nil, nil
		a.post.fields = []selectField{{col: sp.outCols[0], expr: &sqlparse.ColumnRef{Column: aggSlot("a", 0)}}}
		n = t.aggregate(n, sp.env, a)
		t.root = t.rest(n, &a.post, true)
	default:
		t.root = t.rest(n, sp, false)
	}
}

// node records the row layout n's expressions are bound to.
func (t *treePlan) node(n plan.Node, env *rowEnv) plan.Node {
	t.envs[n] = env
	return n
}

func (t *treePlan) aggregate(in plan.Node, env *rowEnv, a *aggStage) plan.Node {
	an := &plan.Aggregate{Input: in, GroupBy: a.groupBy}
	for i := range a.groupBy {
		an.SlotNames = append(an.SlotNames, aggSlot("g", i))
	}
	for i, c := range a.calls {
		an.Calls = append(an.Calls, c.call)
		an.SlotNames = append(an.SlotNames, aggSlot("a", i))
	}
	t.aggs[an] = a
	return t.node(an, env)
}

// rest adds the nodes past the rows (or groups) of in: HAVING, ORDER BY,
// LIMIT and the select list.
func (t *treePlan) rest(in plan.Node, p *selectPipeline, grouped bool) plan.Node {
	n := in
	if grouped && p.where != nil {
		n = t.node(&plan.Filter{Input: n, Cond: p.where, Having: true}, p.env)
	}
	if len(p.order) > 0 && p.limit != 0 {
		srt := &plan.Sort{Input: n, TopK: -1, MaxRows: p.maxRows}
		for _, o := range p.order {
			srt.Keys = append(srt.Keys, plan.SortKey{Expr: o.expr, Desc: o.desc})
		}
		if k := p.limit + p.offset; p.limit >= 0 && k <= int64(p.maxRows) {
			srt.TopK = k
		}
		if !p.noSpill && p.sortMemory > 0 {
			srt.SpillBytes = p.sortMemory
		}
		n = t.node(srt, p.env)
	}
	if (p.limit >= 0 || p.offset > 0) && !p.pushLimit {
		n = t.node(&plan.Limit{Input: n, Count: p.limit, Offset: p.offset}, p.env)
	}
	pr := &plan.Project{Input: n}
	for _, f := range p.fields {
		pr.Exprs = append(pr.Exprs, f.expr)
	}
	for _, c := range p.outCols {
		pr.Names = append(pr.Names, c.Name)
	}
	return t.node(pr, p.env)
}

func (t *treePlan) run(ctx context.Context, s *Session) (*Result, error) {
	for _, env := range t.envs {
		env.ctx = ctx
	}
	t.spilled = false
	op, err := t.build(ctx, t.root, exec.NewBudget(t.budget))
	if err != nil {
		return nil, err
	}
	if t.buffered() {
		// A sort or aggregate reads its whole input first: run it within
		// the statement (its errors are the statement's), and hand on the
		// rows it holds in memory as they are, unless the sort spilled
		// (its merge then streams as it is read).
		if err := exec.Start(ctx, op); err != nil {
			op.Close()
			return nil, err
		}
		if t.spilled {
			return streamResult(t.cols, exec.Batches(ctx, op)), nil
		}
		var rows [][]any
		for b, err := range exec.Batches(ctx, op) {
			if err != nil {
				return nil, err
			}
			rows = append(rows, b...)
		}
		return rowsResult(t.cols, rows), nil
	}
	res := streamResult(t.cols, exec.Batches(ctx, op))
	res.batches = t.batchesOf(ctx)
	if t.collect {
		if err := res.Collect(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// buffered reports whether the query block's top holds its rows before
// the first is out: a Sort or an Aggregate above the sources, or a count
// from the manifest.
func (t *treePlan) buffered() bool {
	for n := t.root; n != nil; n = plan.Input(n) {
		switch x := n.(type) {
		case *plan.Sort, *plan.Aggregate, *plan.Window:
			return true
		case *plan.Source:
			_, ok := x.Table.(*manifestCount)
			return ok
		}
	}
	return false
}

// build makes the operator of a node.
func (t *treePlan) build(ctx context.Context, n plan.Node, budget *exec.Budget) (exec.Operator, error) {
	switch x := n.(type) {
	case *plan.Source:
		return x.Table.Scan(ctx, x.Spec)
	case *plan.Scan, *plan.Join:
		if t.from == nil {
			return x.(*plan.Scan).Table.Scan(ctx, x.(*plan.Scan).Spec)
		}
		env := newRowEnv(t.from.cols)
		env.session = t.s
		return t.from.build(ctx, n, env, budget)
	case *plan.Values:
		return exec.Values(x.Rows), nil
	}
	if x, ok := n.(*plan.Filter); ok && len(x.OuterKeys) > 0 {
		if op, ok, err := t.domainFilter(ctx, x, budget); ok {
			return op, err
		}
	}
	if x, ok := n.(*plan.Filter); ok {
		// A table's scan under its WHERE: filtered column-wise as it is
		// read (scanfilter.go).
		if src, ok := x.Input.(*plan.Source); ok && t.filteredSource(x, src) {
			return src.Table.(*dataSource).filteredScan(ctx, x.Cond)
		}
	}
	if x, ok := n.(*plan.Aggregate); ok {
		// Over a table's scan: over its column batches where it can
		// (batchagg.go).
		if b := t.batchAggregate(x); b != nil {
			if preferCompact(ctx, b, budget) {
				if compactBatches {
					return newCompactBatchAggregate(b, budget), nil
				}
			} else {
				return b.operator(budget), nil
			}
		}
	}
	inNode := plan.Input(n)
	if inNode == nil {
		return nil, errorf(catalog.CodeInternal, "no operator for plan node %T", n)
	}
	in, err := t.build(ctx, inNode, budget)
	if err != nil {
		return nil, err
	}
	env := t.envs[n]
	switch x := n.(type) {
	case *plan.Filter:
		cond := x.Cond
		return exec.Filter(in, func(row []any) (bool, error) { return env.matches(cond, row) }), nil
	case *plan.Project:
		p := &selectPipeline{env: env}
		for _, e := range x.Exprs {
			p.fields = append(p.fields, selectField{expr: e})
		}
		return exec.Project(in, p.project), nil
	case *plan.Limit:
		return exec.Limit(in, x.Count, x.Offset), nil
	case *plan.Sort:
		return t.sortOp(in, env, x), nil
	case *plan.Aggregate:
		return t.aggregateOp(in, env, x, budget), nil
	case *plan.Window:
		return t.windowOp(in, x, budget), nil
	}
	in.Close()
	return nil, errorf(catalog.CodeInternal, "no operator for plan node %T", n)
}

// sortOp is the operator of a Sort node: the pipeline's sort over the
// input's rows, started on the first Next.
func (t *treePlan) sortOp(in exec.Operator, env *rowEnv, x *plan.Sort) exec.Operator {
	return exec.Lazy(in, func(ctx context.Context, in exec.Operator) (exec.Operator, error) {
		p := t.s.newPipeline(t.source)
		p.env, p.identity, p.outCols = env, true, env.cols
		p.maxRows = x.MaxRows
		if x.SpillBytes == 0 {
			p.noSpill = true
		}
		for _, k := range x.Keys {
			p.order = append(p.order, orderKey{expr: k.Expr, desc: k.Desc})
		}
		rows := exec.Rows(ctx, in)
		var res *Result
		var err error
		if x.TopK >= 0 {
			p.limit = x.TopK
			res, err = p.topK(ctx, rows)
		} else {
			res, err = p.sortAll(ctx, rows)
		}
		if err != nil {
			return nil, err
		}
		if res.Streamed() {
			t.spilled = true // sorted runs on disk, merged as they are read
		}
		return exec.FromSeq(cursorRows(res)), nil
	})
}

// aggregateOp is the operator of an Aggregate node: exec.Aggregate with
// the group keys and accumulators of the planned aggregate calls.
func (t *treePlan) aggregateOp(in exec.Operator, env *rowEnv, x *plan.Aggregate, budget *exec.Budget) exec.Operator {
	a := t.aggs[x]
	if compactEligible(env, a) {
		return newCompactAggregate(in, env, a, budget, "the Aggregate's groups")
	}
	var buf []byte
	spec := exec.AggregateSpec{
		KeyWidth: len(a.groupBy),
		Key: func(dst, row []any) ([]byte, error) {
			buf = buf[:0]
			for i, g := range a.groupBy {
				v, err := env.eval(g, row)
				if err != nil {
					return nil, err
				}
				if b, ok := v.([]byte); ok {
					v = slices.Clone(b) // a group keeps its key
				}
				dst[i] = v
				buf = appendKey(buf, v)
			}
			return buf, nil
		},
		NewGroup: func() exec.Accumulator {
			return &aggAccumulator{a: a, env: env, states: make([]aggState, len(a.calls))}
		},
		Budget:     budget,
		GroupBytes: aggGroupBytes(a),
		Name:       "the Aggregate's groups",
	}
	return exec.Aggregate(in, spec)
}

// aggGroupBytes is what the budget is charged for a group's states.
func aggGroupBytes(a *aggStage) int64 { return int64(48 + 96*len(a.calls)) }

// aggAccumulator folds one group's rows into its aggregate states.
type aggAccumulator struct {
	a       *aggStage
	env     *rowEnv
	states  []aggState
	charged int64 // the states' held bytes reported by Grown so far
}

func (g *aggAccumulator) Add(row []any) error {
	for i, c := range g.a.calls {
		if err := c.add(&g.states[i], g.env, row); err != nil {
			return err
		}
	}
	return nil
}

func (g *aggAccumulator) Results() ([]any, error) {
	out := make([]any, len(g.a.calls))
	for i, c := range g.a.calls {
		v, err := c.result(&g.states[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Grown is the bytes the group's states took on since the last call
// (exec.GrowingAccumulator).
func (g *aggAccumulator) Grown() int64 {
	var n int64
	for i := range g.states {
		n += g.states[i].held
	}
	d := n - g.charged
	g.charged = n
	return d
}

// selectTree makes the tree of a query block planned by planSelect: its
// rows (a view listed by the catalog, a derived table, the one row of no
// FROM, or the join or set operation it was planned over) under the
// nodes of treeAbove.
func (s *Session) selectTree(sp *selectPlan) *treePlan {
	t := &treePlan{s: s, envs: map[plan.Node]*rowEnv{}, aggs: map[*plan.Aggregate]*aggStage{},
		budget: s.joinBudget(), source: sp.source}
	var root plan.Node
	switch {
	case sp.derived != nil && sp.derived.preplanned:
		if jp, ok := sp.derived.plan.(*joinPlan); ok {
			t.from, t.budget, root = jp, jp.budget, jp.root
			break
		}
		root = &plan.Source{Table: &querySource{s: s, p: sp.derived.plan}, Width: len(sp.derived.cols)}
	case sp.derived != nil:
		root = &plan.Source{Table: &derivedSource{s: s, d: sp.derived}, Width: len(sp.derived.cols)}
	case sp.view != nil:
		root = &plan.Source{Table: &viewSource{s: s, p: sp}, Width: len(sp.env.cols)}
		t.collect = true
	default:
		root = &plan.Values{Rows: [][]any{{}}}
		t.collect = true
	}
	t.above(root, &sp.selectPipeline)
	return t
}

// planSelectTree plans a SELECT over a view, a derived table, or no FROM
// as a tree.
func (s *Session) planSelectTree(ctx context.Context, st *sqlparse.Select) (*treePlan, error) {
	sp, err := s.planSelect(ctx, st)
	if err != nil {
		return nil, err
	}
	return s.selectTree(sp), nil
}

// querySource is the rows of a plan standing under a query block (a set
// operation under its ORDER BY and LIMIT); EXPLAIN shows its lines.
type querySource struct {
	s *Session
	p queryPlan
}

func (q *querySource) Describe() string { return "query" }

func (q *querySource) ColumnNames() []string {
	var out []string
	for _, c := range q.p.resultColumns() {
		out = append(out, c.Name)
	}
	return out
}

func (q *querySource) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	res, err := q.p.run(ctx, q.s)
	if err != nil {
		return nil, err
	}
	return exec.FromSeq(cursorRows(res)), nil
}

func (q *querySource) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	if err := q.s.prepareExplain(ctx, q.p); err != nil {
		return nil, err
	}
	return q.p.Explain(), nil
}

// derivedSource is a derived table's rows: its plan's result, streamed.
type derivedSource struct {
	s *Session
	d *derivedTable
}

func (d *derivedSource) Describe() string { return "derived table " + sqlparse.QuoteIdent(d.d.alias) }

func (d *derivedSource) ColumnNames() []string {
	var out []string
	for _, c := range d.d.cols {
		out = append(out, c.Name)
	}
	return out
}

func (d *derivedSource) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	res, err := d.d.plan.run(ctx, d.s)
	if err != nil {
		return nil, err
	}
	return exec.FromSeq(cursorRows(res)), nil
}

func (d *derivedSource) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	lines, err := d.s.explainPlan(ctx, d.d.plan, d.s.subq, d.d.q, 0)
	if err != nil {
		return nil, err
	}
	out := []string{"DerivedTable " + sqlparse.QuoteIdent(d.d.alias) + " (streams the rows of:)"}
	for _, l := range lines {
		out = append(out, "  "+l)
	}
	return out, nil
}

// viewSource is an information_schema view's rows, listed by the catalog
// with the conditions planSelect pushed down (EXPLAIN: CatalogScan).
type viewSource struct {
	s *Session
	p *selectPlan
}

func (v *viewSource) Describe() string { return "information_schema." + v.p.view.name }

func (v *viewSource) ColumnNames() []string {
	var out []string
	for _, c := range v.p.view.columns {
		out = append(out, c.Name)
	}
	return out
}

func (v *viewSource) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	rows, err := v.p.scan(ctx, v.s)
	if err != nil {
		return nil, err
	}
	return exec.FromSeq(sliceRows(rows)), nil
}

func (v *viewSource) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	if err := v.p.explainReads(ctx, v.s); err != nil {
		return nil, err
	}
	return []string{v.p.scanDescription()}, nil
}
