package planner

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Queries with joins run on the new engine (packages plan, exec, expr):
//
//	FROM a [INNER | CROSS] JOIN b [ON cond | USING (cols)], a LEFT|RIGHT
//	[OUTER] JOIN b ..., a FULL [OUTER] JOIN b ON cond, a NATURAL
//	[LEFT|RIGHT] JOIN b, a, b (commas), any
//	number of tables, views or derived tables, each under its alias
//
// The FROM clause becomes one plan tree (plan.Scan leaves, plan.Join
// nodes); every column reference of the query is bound (expr.Scope) to a
// slot of the joined row, with MySQL's errors 1052 (ambiguous) and 1054
// (unknown) and USING/NATURAL columns coalesced. The rules push each WHERE
// and ON conjunct into the scan of the one relation it reads (the scan
// then uses that table's indexes, as a single-table SELECT does) or into
// the lowest inner join covering it, split equality conditions into
// hash-join keys, and prune the columns each scan reads. Joins with keys
// run as hash joins: the build side is held in memory within
// Options.JoinMemory, and past it both sides are partitioned to files in
// the spill directory (a grace hash join, exec/spill.go; with
// Options.NoSpill the join fails with exec.ErrBudgetExceeded). A join of
// a small table to one at least plan.IndexJoinRatio times bigger with an
// index on the key column (plan.Stats, from the table's manifest) runs as
// an index nested-loop join instead: the inner table is scanned with
// `col IN (a batch of outer keys)`, which its index answers. Others run
// as nested loops, their build side within the budget.
//
// What runs above the joined rows (the rest of WHERE, GROUP BY and
// aggregates, HAVING, ORDER BY, LIMIT, the projection) is planned as the
// selectPipeline over the join as a derived table (s.preplanned) would
// be, and then made nodes of the same tree (tree.go, joinSelect), so the
// meanings and result types stay the pipeline's. DISTINCT * and DISTINCT
// with GROUP BY over a join still run through a nested derived table
// (joinQuery). Each scan is today's single-table SELECT path
// (sourceTable, the plan.Table over planDataSelect and planSelect), so
// index lookups and their EXPLAIN come from there.

// DefaultJoinMemory is the default of Options.JoinMemory.
const DefaultJoinMemory = 256 << 20

// joinAlias is the name of the derived table the join is to the
// selectPipeline above it (EXPLAIN leaves that level out).
const joinAlias = "join"

// hasJoin reports whether a FROM clause joins relations.
func hasJoin(from sqlparse.FromItem) bool {
	_, ok := from.(*sqlparse.Join)
	return ok
}

// sourceTable is the plan.Table over one FROM item of today's
// single-table SELECT path: a table's data (planDataSelect, with its
// index lookups), an information_schema view or a derived table
// (planSelect).
type sourceTable struct {
	s    *Session
	ts   *sqlparse.TableSource
	cols []Column
	desc string
	ds   *dataset.Dataset // the table's data, for plan.Stats
	noDS bool             // dataset was asked
}

func (s *Session) newSourceTable(ctx context.Context, ts *sqlparse.TableSource) (*sourceTable, error) {
	if ts.Subquery != nil && ts.Alias == "" {
		return nil, errorf(catalog.CodeInvalidInput, "every derived table must have its own alias: (%s) AS name", ts.Subquery)
	}
	t := &sourceTable{s: s, ts: ts}
	p, err := s.fork().planQuery(ctx, &sqlparse.Select{Items: []sqlparse.SelectItem{{Star: true, Text: "*"}}, From: t.from()})
	if err != nil {
		return nil, err
	}
	t.cols = p.resultColumns()
	if ts.Subquery != nil {
		t.desc = "derived table"
	} else {
		t.desc = ts.Table.String()
	}
	return t, nil
}

func (t *sourceTable) from() *sqlparse.TableSource {
	return &sqlparse.TableSource{Table: t.ts.Table, Subquery: t.ts.Subquery, Alias: t.ts.Alias, Pos: t.ts.Pos, AsOf: t.ts.AsOf}
}

func (t *sourceTable) Describe() string { return t.desc }

func (t *sourceTable) ColumnNames() []string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.Name
	}
	return names
}

// query is the single-table SELECT answering spec.
func (t *sourceTable) query(spec plan.ScanSpec) (*sqlparse.Select, []int) {
	cols := spec.Columns
	if len(cols) == 0 {
		cols = []int{0} // rows are still needed (COUNT(*) over a join)
	}
	q := &sqlparse.Select{From: t.from(), Where: plan.And(spec.Predicates)}
	for _, c := range cols {
		name := t.cols[c].Name
		q.Items = append(q.Items, sqlparse.SelectItem{Expr: &sqlparse.ColumnRef{Column: name}, Alias: name, Text: name})
	}
	if spec.Limit >= 0 {
		q.Limit = &sqlparse.Limit{Count: &sqlparse.Literal{Kind: sqlparse.LitInt, Value: spec.Limit}}
	}
	return q, cols
}

func (t *sourceTable) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	q, cols := t.query(spec)
	f := t.s.fork()
	if len(spec.KeyFilters) > 0 && t.ts.Table != nil {
		if id, err := t.s.tableIdent(t.ts.Table); err == nil {
			for _, kf := range spec.KeyFilters {
				f.keyFilters = append(f.keyFilters, tableKeyFilter{table: displayName(id), column: t.cols[kf.Column].Name, filter: kf.Filter})
			}
		}
	}
	p, err := f.planQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	res, err := p.run(ctx, f)
	if err != nil {
		return nil, err
	}
	width := len(t.cols)
	rows := cursorRows(res)
	return exec.FromSeq(func(yield func([]any, error) bool) {
		var slab []any // rows are cut from it: one allocation per 256
		for row, err := range rows {
			if err != nil {
				yield(nil, err)
				return
			}
			if len(slab) < width {
				slab = make([]any, width*256)
			}
			full := slab[:width:width]
			slab = slab[width:]
			for i, c := range cols {
				full[c] = row[i]
			}
			if !yield(full, nil) {
				return
			}
		}
	}), nil
}

// dataset opens the table's data for join planning (nil: not a plain
// table of the catalog: a derived table, a view, information_schema, a
// past version, a CTE).
func (t *sourceTable) dataset(ctx context.Context) *dataset.Dataset {
	if t.ds != nil || t.noDS {
		return t.ds
	}
	t.noDS = true
	if t.ts.Subquery != nil || t.ts.AsOf != nil || t.ts.Table == nil {
		return nil
	}
	_, ds, err := t.s.openTableData(ctx, t.ts.Table)
	if err != nil {
		return nil
	}
	t.ds = ds
	return ds
}

// RowCount implements plan.Stats: the live rows of the table's data.
func (t *sourceTable) RowCount(ctx context.Context) (int64, bool) {
	ds := t.dataset(ctx)
	if ds == nil {
		return 0, false
	}
	n, err := ds.CountRows(ctx)
	if err != nil {
		return 0, false
	}
	return int64(n), true
}

// KeyFilterable reports whether a join's integer build keys can filter
// the scan of column col (plan.ChooseKeyFilters): a column of a plain
// table's latest data whose values are int64s.
func (t *sourceTable) KeyFilterable(ctx context.Context, col int) bool {
	return col < len(t.cols) && t.dataset(ctx) != nil && intColumn(t.cols[col].Field.Type)
}

// LookupIndex implements plan.Stats: the index that would answer `col IN
// (...)` (index lookups on, an integer or string column).
func (t *sourceTable) LookupIndex(col int) (string, sqlparse.Expr) {
	if t.ds == nil || t.s.opts.Indexes == nil || col >= len(t.cols) {
		return "", nil
	}
	var probe any
	switch lookupClass(t.cols[col]) {
	case "int":
		probe = int64(0)
	case "string":
		probe = ""
	default:
		return "", nil
	}
	lit, _ := lookupLiteral(probe)
	return t.s.opts.Indexes.Choose(t.ds, IndexPredicate{Column: t.cols[col].Name, Op: IndexIn, Values: []any{probe}}), lit
}

// lookupClass is the class of a column whose values an index join can
// look up as literals: integers or strings ("" otherwise).
func lookupClass(c Column) string {
	t := strings.ToUpper(c.DatabaseType)
	switch {
	case strings.Contains(t, "INT") && !strings.Contains(t, "POINT"):
		return "int"
	case typeClass(c) == "string":
		return "string"
	}
	return ""
}

// lookupLiteral is a key value as a literal of an index join's IN list.
func lookupLiteral(v any) (sqlparse.Expr, bool) {
	switch x := v.(type) {
	case int64:
		return &sqlparse.Literal{Kind: sqlparse.LitInt, Value: x}, true
	case uint64:
		return &sqlparse.Literal{Kind: sqlparse.LitUint, Value: x}, true
	case string:
		return &sqlparse.Literal{Kind: sqlparse.LitString, Value: x}, true
	}
	return nil, false
}

func (t *sourceTable) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	q, _ := t.query(spec)
	f := t.s.fork()
	p, err := f.planQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	return f.explainPlan(ctx, p, f.subq, q, 0)
}

// joinPlan is a planned FROM clause with joins: the rows of the plan
// tree, over the scope's slots.
type joinPlan struct {
	root    plan.Node
	scope   *expr.Scope
	cols    []Column // one per slot, named by the slot's bound reference
	budget  int64
	spill   exec.SpillArea // nil: hash joins fail past the budget (Options.NoSpill)
	explain []string
	// subq holds the planned subqueries of the join conditions
	// (planOnSubqueries).
	subq subqueryValues
	s    *Session
}

// joinSpillArea is the per-process spill directory under base (spilldir.go)
// as an exec.SpillArea.
type joinSpillArea struct{ base string }

func (a joinSpillArea) Acquire() (string, error) { return acquireSpillDir(a.base) }
func (a joinSpillArea) Release()                 { releaseSpillDir(a.base) }

func (p *joinPlan) resultColumns() []Column { return p.cols }
func (p *joinPlan) Explain() []string       { return p.explain }

func (p *joinPlan) prepareExplain(ctx context.Context) error {
	if err := p.s.explainOn(ctx, p.root, p.subq); err != nil {
		return err
	}
	var err error
	p.explain, err = plan.Explain(ctx, p.root, p.budget)
	return err
}

func (p *joinPlan) run(ctx context.Context, s *Session) (*Result, error) {
	env := newRowEnv(p.cols)
	env.session = s
	op, err := p.build(ctx, p.root, env, exec.NewBudget(p.budget))
	if err != nil {
		return nil, err
	}
	return streamResult(p.cols, exec.Batches(ctx, op)), nil
}

// build makes the operator of the FROM tree at n, its rows in slot order.
func (p *joinPlan) build(ctx context.Context, n plan.Node, env *rowEnv, budget *exec.Budget) (exec.Operator, error) {
	op, err := p.buildNode(ctx, n, env, budget, map[*plan.Scan][]plan.ScanKeyFilter{})
	if err != nil {
		return nil, err
	}
	layout := plan.Layout(n)
	if plan.InOrder(layout) {
		return op, nil
	}
	// ReorderJoins changed the order of the relations: put their values
	// back in the slots' order.
	lo, _ := n.Slots()
	width := plan.Width(layout)
	return exec.Project(op, func(row []any) ([]any, error) {
		out := make([]any, width)
		pos := 0
		for _, s := range layout {
			pos += copy(out[s.Lo-lo:s.Hi-lo], row[pos:])
		}
		return out, nil
	}), nil
}

// buildNode makes the operator of a node; its rows hold the slots of
// plan.Layout(n). filters holds the key filters of the joins above for
// the scans below (made per run: each run's joins publish their own).
func (p *joinPlan) buildNode(ctx context.Context, n plan.Node, env *rowEnv, budget *exec.Budget, filters map[*plan.Scan][]plan.ScanKeyFilter) (exec.Operator, error) {
	switch x := n.(type) {
	case *plan.Scan:
		spec := x.Spec
		spec.KeyFilters = filters[x]
		return x.Table.Scan(ctx, spec)
	case *plan.Join:
		var keyFilter *exec.KeyFilter
		if kf := x.KeyFilter; kf != nil {
			keyFilter = &exec.KeyFilter{Key: kf.Key}
			filters[kf.Scan] = append(filters[kf.Scan], plan.ScanKeyFilter{Column: kf.Column, Filter: keyFilter})
		}
		if env.subq == nil {
			env.subq = p.subq // the subqueries of the conditions
		}
		// An index join opens only its outer side; the inner is looked up.
		var left, right exec.Operator
		var err error
		if x.Lookup == nil || x.Kind != plan.Right {
			if left, err = p.buildNode(ctx, x.Left, env, budget, filters); err != nil {
				return nil, err
			}
		}
		if x.Lookup == nil || x.Kind == plan.Right {
			if right, err = p.buildNode(ctx, x.Right, env, budget, filters); err != nil {
				if left != nil {
					left.Close()
				}
				return nil, err
			}
		}
		ll, rl := plan.Layout(x.Left), plan.Layout(x.Right)
		both := append(append([]plan.Seg(nil), ll...), rl...)
		spec := exec.JoinSpec{Kind: x.Kind, LeftWidth: plan.Width(ll), RightWidth: plan.Width(rl), Budget: budget, BuildLeft: x.BuildLeft,
			Name: "the " + x.Strategy() + "'s build side"}
		if len(x.Keys) > 0 {
			spec.Spill = p.spill
			spec.KeyFilter = keyFilter
		}
		// Conditions are bound to the query's slots; each evaluation
		// places the node's row (its layout's ranges) in a scratch full
		// row.
		scratch := make([]any, len(p.cols))
		at := func(row []any, layout []plan.Seg) []any {
			pos := 0
			for _, s := range layout {
				pos += copy(scratch[s.Lo:s.Hi], row[pos:])
			}
			return scratch
		}
		if len(x.Keys) > 0 {
			keyFn := func(layout []plan.Seg, side func(plan.EquiKey) sqlparse.Expr) func([]any) ([]any, error) {
				// A key that is a column is read from its place in the
				// row; others are evaluated over the scratch row.
				direct := make([]int, len(x.Keys))
				all := true
				for i, k := range x.Keys {
					direct[i] = rowPos(p.scope, side(k), layout)
					all = all && direct[i] >= 0
				}
				// Keys are cut from a slab of keySlabRows keys instead
				// of one allocation a row: the build side holds its
				// keys, so each key keeps its own place in the slab.
				var slab []any
				return func(row []any) ([]any, error) {
					if len(slab) < len(x.Keys) {
						slab = make([]any, len(x.Keys)*keySlabRows)
					}
					key := slab[:len(x.Keys):len(x.Keys)]
					slab = slab[len(x.Keys):]
					var full []any
					if !all {
						full = at(row, layout)
					}
					for i, k := range x.Keys {
						if direct[i] >= 0 {
							key[i] = row[direct[i]]
							continue
						}
						v, err := env.eval(side(k), full)
						if err != nil {
							return nil, err
						}
						key[i] = v
					}
					return key, nil
				}
			}
			spec.LeftKey = keyFn(ll, func(k plan.EquiKey) sqlparse.Expr { return k.L })
			spec.RightKey = keyFn(rl, func(k plan.EquiKey) sqlparse.Expr { return k.R })
			nullSafe := make([]bool, len(x.Keys))
			anySafe := false
			for i, k := range x.Keys {
				nullSafe[i] = k.NullSafe
				anySafe = anySafe || k.NullSafe
			}
			spec.Hash = func(key []any) (uint64, bool) { return hashKey64(key, nil) }
			if anySafe {
				spec.Hash = func(key []any) (uint64, bool) { return hashKey64(key, nullSafe) }
			}
			// KeyEqual below compares two int64s with ==, as IntKey
			// asks.
			spec.IntKey = len(x.Keys) == 1
			spec.KeyEqual = func(l, r []any) bool {
				for i := range l {
					if l[i] == nil || r[i] == nil {
						if nullSafe[i] && l[i] == nil && r[i] == nil {
							continue // NULL <=> NULL
						}
						return false
					}
					// The common case first: two integers (compare's
					// first check, without its type switches).
					if a, ok := l[i].(int64); ok {
						if b, ok := r[i].(int64); ok {
							if a != b {
								return false
							}
							continue
						}
					}
					if compare(l[i], r[i]) != 0 {
						return false
					}
				}
				return true
			}
		}
		if cond := plan.And(x.On); cond != nil {
			spec.Cond = func(row []any) (bool, error) { return env.matches(cond, at(row, both)) }
		}
		if x.Lookup == nil {
			buildNode := x.Right
			if x.Kind == plan.Right || x.BuildLeft && x.Kind == plan.Left && len(x.Keys) > 0 {
				buildNode = x.Left
			}
			spec.BuildCols = heldColumns(buildNode)
		}
		if lk := x.Lookup; lk != nil {
			innerNode, _ := x.Inner()
			is := innerNode.(*plan.Scan)
			outer := left
			if x.Kind == plan.Right {
				outer = right
			}
			col := is.Table.ColumnNames()[lk.Column]
			lookup := func(ctx context.Context, keys []any) (exec.Operator, error) {
				in := &sqlparse.InList{X: &sqlparse.ColumnRef{Column: col}}
				for _, k := range keys {
					lit, ok := lookupLiteral(k)
					if !ok {
						return nil, errorf(catalog.CodeInternal, "index join: key %T cannot be looked up", k)
					}
					in.List = append(in.List, lit)
				}
				sp := is.Spec
				sp.Predicates = append(append([]sqlparse.Expr(nil), sp.Predicates...), in)
				return is.Table.Scan(ctx, sp)
			}
			return exec.IndexJoin(ctx, outer, lookup, lk.Key, plan.IndexJoinBatch, spec), nil
		}
		return exec.Join(ctx, left, right, spec), nil
	}
	return nil, errorf(catalog.CodeInternal, "no operator for plan node %T", n)
}

// keySlabRows is how many join keys a join's key function allocates at
// once.
const keySlabRows = 256

// heldColumns lists the positions of n's rows (its layout) that its scans
// read, nil when that is all of them: the others are NULL in every row
// (plan.PruneColumns), so a join building n need not hold them
// (exec.JoinSpec.BuildCols).
func heldColumns(n plan.Node) []int {
	scans := map[int]*plan.Scan{}
	for _, sc := range plan.Scans(n) {
		scans[sc.Lo] = sc
	}
	var cols []int
	pos := 0
	for _, seg := range plan.Layout(n) {
		sc := scans[seg.Lo]
		if sc == nil || sc.Hi != seg.Hi {
			return nil // a layout range that is not one scan's: keep all
		}
		for _, c := range sc.Spec.Columns {
			cols = append(cols, pos+c)
		}
		pos += seg.Hi - seg.Lo
	}
	if len(cols) == pos {
		return nil
	}
	return cols
}

// rowPos is where the value of e, when it is a bound column reference,
// sits in a row of layout (-1: e is not one, or not in the layout).
func rowPos(scope *expr.Scope, e sqlparse.Expr, layout []plan.Seg) int {
	ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
	if !ok {
		return -1
	}
	slot, ok := scope.SlotOfRef(ref)
	if !ok {
		return -1
	}
	pos := 0
	for _, s := range layout {
		if slot >= s.Lo && slot < s.Hi {
			return pos + slot - s.Lo
		}
		pos += s.Hi - s.Lo
	}
	return -1
}

// hashKey is the hash-table key of a join key (the decorrelated
// subqueries' tables): numbers by their float64 value's bits (the exact
// comparison follows), strings and bytes as they are,
// times by their instant. A NULL joins nothing.
func hashKey(key []any) (string, bool) {
	var b []byte
	for _, v := range key {
		switch x := v.(type) {
		case nil:
			return "", false
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil && numericText(x) {
				b = binary.LittleEndian.AppendUint64(append(b, 'n'), math.Float64bits(f+0))
			} else {
				b = append(strconv.AppendInt(append(b, 's'), int64(len(x)), 10), x...)
			}
		case []byte:
			b = append(strconv.AppendInt(append(b, 'b'), int64(len(x)), 10), x...)
		case time.Time:
			b = strconv.AppendInt(append(b, 't'), x.UnixNano(), 10)
		default:
			if f, ok := toNumber(v); ok {
				b = binary.LittleEndian.AppendUint64(append(b, 'n'), math.Float64bits(f+0))
			} else {
				s := toString(v)
				b = append(strconv.AppendInt(append(b, 'o'), int64(len(s)), 10), s...)
			}
		}
		b = append(b, 0)
	}
	return string(b), true
}

// joinSeed seeds the hashes of join keys' strings (a process's hash
// tables and spill partitions only: never stored).
var joinSeed = maphash.MakeSeed()

// hashKey64 is the 64-bit hash of a join key, alike for keys hashKey
// encodes alike (numbers by their float64 value, so 1, 1.0 and '1.00'
// collide and KeyEqual tells them apart exactly): no text is formatted or
// allocated per row. A NULL joins nothing, except at the positions
// nullSafe marks (`<=>` keys; nil: none), where it hashes as itself.
func hashKey64(key []any, nullSafe []bool) (uint64, bool) {
	h := uint64(len(key))
	for i, v := range key {
		var x uint64
		switch t := v.(type) {
		case nil:
			if nullSafe == nil || !nullSafe[i] {
				return 0, false
			}
			x = 0x6e756c6c // "null"
		case int64:
			x = numberHash(float64(t))
		case string:
			if numericText(t) {
				if f, err := strconv.ParseFloat(t, 64); err == nil {
					x = numberHash(f)
					break
				}
			}
			x = maphash.String(joinSeed, t) ^ 's'
		case []byte:
			x = maphash.Bytes(joinSeed, t) ^ 'b'
		case time.Time:
			x = uint64(t.UnixNano())*0x9e3779b97f4a7c15 ^ 't'
		default:
			if f, ok := toNumber(v); ok {
				x = numberHash(f)
			} else {
				x = maphash.String(joinSeed, toString(v)) ^ 'o'
			}
		}
		h = (h^x)*0x100000001b3 + uint64(i)
		h ^= h >> 29
	}
	return h, true
}

// numberHash hashes a number by its float64 value (-0 as 0).
func numberHash(f float64) uint64 {
	return math.Float64bits(f+0)*0xff51afd7ed558ccd ^ 'n'
}

// hashKeyNullSafe is hashKey where the positions of `<=>` keys hash a
// NULL too (NULL <=> NULL is TRUE); a NULL at an `=` position joins
// nothing.
func hashKeyNullSafe(key []any, nullSafe []bool) (string, bool) {
	var b []byte
	for i, v := range key {
		if v == nil {
			if !nullSafe[i] {
				return "", false
			}
			b = append(b, 'N', 0)
			continue
		}
		h, _ := hashKey(key[i : i+1])
		b = append(b, h...)
	}
	return string(b), true
}

// numericText reports whether s is plain decimal text (a DECIMAL value):
// digits with an optional sign and point.
func numericText(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || (i == 0 && (c == '-' || c == '+'))) {
			return false
		}
	}
	return true
}

// typeClass groups column types whose values hashKey keys alike.
func typeClass(c Column) string {
	t := strings.ToUpper(c.DatabaseType)
	switch {
	case strings.Contains(t, "INT"), t == "DECIMAL", t == "DOUBLE", t == "FLOAT", t == "REAL", t == "NUMERIC":
		return "number"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "TEXT"), t == "STRING":
		return "string"
	case t == "DATE", t == "DATETIME", t == "TIMESTAMP":
		return "time:" + t
	case strings.Contains(t, "BINARY"), strings.Contains(t, "BLOB"):
		return "bytes"
	}
	return ""
}

// planJoinQuery plans a SELECT whose FROM joins relations.
func (s *Session) planJoinQuery(ctx context.Context, st *sqlparse.Select) (queryPlan, error) {
	scope := expr.NewScope()
	b := &expr.Binder{Scope: scope}
	root, err := s.buildFrom(ctx, st.From, scope, b)
	if err != nil {
		return nil, err
	}
	markNullSupplied(root, false)
	if st, err = s.qualifyOuterRefs(ctx, st, scope); err != nil { // correlate.go
		return nil, err
	}
	// Columns of the joined row, one per slot.
	jp := &joinPlan{root: root, scope: scope, budget: s.joinBudget(), s: s}
	if !s.opts.NoSpill {
		base := s.opts.SpillDir
		if base == "" {
			base = os.TempDir()
		}
		jp.spill = joinSpillArea{base: base}
	}
	for _, sc := range plan.Scans(root) {
		src := sc.Table.(*sourceTable)
		for _, c := range src.cols {
			c.Name = scope.Slots[len(jp.cols)].Ref
			if sc.NullSupplied {
				c.Nullable = true
			}
			jp.cols = append(jp.cols, c)
		}
	}
	// Bind the query block.
	q := *st
	q.Items = nil
	aliases := map[string]bool{}
	for _, it := range st.Items {
		if it.Alias != "" {
			aliases[strings.ToLower(it.Alias)] = true
		}
	}
	for _, it := range st.Items {
		if it.Star {
			slots, err := scope.Star(it.Qualifier)
			if err != nil {
				return nil, err
			}
			for _, sl := range slots {
				name := scope.Slots[sl].Column
				q.Items = append(q.Items, sqlparse.SelectItem{Expr: scope.Ref(sl), Alias: name, Text: name, Pos: it.Pos})
			}
			continue
		}
		e, err := b.BindAll(it.Expr, "field list")
		if err != nil {
			return nil, err
		}
		if ref, ok := sqlparse.StripParens(it.Expr).(*sqlparse.ColumnRef); ok && it.Alias == "" {
			it.Alias = ref.Column // MySQL labels t.col as col
		}
		it.Expr = e
		q.Items = append(q.Items, it)
	}
	resolvable := func(ref *sqlparse.ColumnRef) bool {
		_, err := scope.Resolve(ref, "", 0, len(scope.Rels))
		return err == nil
	}
	where, err := b.BindAll(st.Where, "where clause")
	if err != nil {
		return nil, err
	}
	gb := &expr.Binder{Scope: scope, Keep: func(ref *sqlparse.ColumnRef) bool {
		return aliases[strings.ToLower(ref.Column)] && !resolvable(ref)
	}}
	q.GroupBy = nil
	for _, g := range st.GroupBy {
		e, err := gb.BindAll(g, "group statement")
		if err != nil {
			return nil, err
		}
		q.GroupBy = append(q.GroupBy, e)
	}
	// HAVING may name a select item's alias (HAVING n > 1 for COUNT(*) AS
	// n): the alias stands for the item's expression.
	having := sqlparse.Rewrite(st.Having, func(n sqlparse.Expr) sqlparse.Expr {
		ref, ok := n.(*sqlparse.ColumnRef)
		if !ok || len(ref.Qualifier) > 0 || resolvable(ref) {
			return n
		}
		for _, it := range st.Items {
			if !it.Star && strings.EqualFold(it.Alias, ref.Column) {
				return it.Expr
			}
		}
		return n
	})
	if q.Having, err = gb.BindAll(having, "having clause"); err != nil {
		return nil, err
	}
	ob := &expr.Binder{Scope: scope, Keep: func(ref *sqlparse.ColumnRef) bool { return aliases[strings.ToLower(ref.Column)] }}
	q.OrderBy = nil
	for _, o := range st.OrderBy {
		e, err := ob.BindAll(o.Expr, "order clause")
		if err != nil {
			return nil, err
		}
		o.Expr = e
		q.OrderBy = append(q.OrderBy, o)
	}
	// Rules: filters into scans and joins, equi-join keys, projection.
	conjuncts := pushSubqueryFilters(root, plan.Conjuncts(where), scope)                // subqpush.go
	rest := plan.PushFilters(root, impliedOrFilters(factorOr(conjuncts), scope), scope) // orfactor.go
	// Correlated subqueries get the keys of filtered relations (semireduce.go).
	q.Where = s.reduceCorrelated(ctx, plan.And(rest), root, scope)
	// Equalities chain into implied join keys only between columns that
	// compare alike (lookupClass: integers with integers, strings with
	// strings), where `=` is transitive.
	root = plan.ReorderJoins(ctx, root, scope, func(l, r sqlparse.Expr) bool {
		ls, lok := sqlparse.StripParens(l).(*sqlparse.ColumnRef)
		rs, rok := sqlparse.StripParens(r).(*sqlparse.ColumnRef)
		if !lok || !rok {
			return false
		}
		li, lok := scope.SlotOfRef(ls)
		ri, rok := scope.SlotOfRef(rs)
		if !lok || !rok {
			return false
		}
		lc, rc := lookupClass(jp.cols[li]), lookupClass(jp.cols[ri])
		return lc != "" && lc == rc
	})
	jp.root = root
	plan.SplitJoinKeys(root, scope, func(l, r sqlparse.Expr) bool {
		ls, lok := sqlparse.StripParens(l).(*sqlparse.ColumnRef)
		rs, rok := sqlparse.StripParens(r).(*sqlparse.ColumnRef)
		if !lok || !rok {
			return false
		}
		li, _ := scope.SlotOfRef(ls)
		ri, _ := scope.SlotOfRef(rs)
		lc, rc := typeClass(jp.cols[li]), typeClass(jp.cols[ri])
		return lc != "" && lc == rc
	})
	if s.opts.Indexes != nil {
		plan.ChooseIndexJoins(ctx, root, scope, func(outer, inner sqlparse.Expr) bool {
			os, ook := sqlparse.StripParens(outer).(*sqlparse.ColumnRef)
			is, iok := sqlparse.StripParens(inner).(*sqlparse.ColumnRef)
			if !ook || !iok {
				return false
			}
			oi, _ := scope.SlotOfRef(os)
			ii, _ := scope.SlotOfRef(is)
			oc, ic := lookupClass(jp.cols[oi]), lookupClass(jp.cols[ii])
			return oc != "" && oc == ic
		})
	}
	plan.ChooseKeyFilters(ctx, root, scope, func(sc *plan.Scan, col int) bool {
		t, ok := sc.Table.(*sourceTable)
		return ok && joinKeyFilters && t.KeyFilterable(ctx, col)
	})
	plan.ChooseBuildSides(ctx, root)
	used := map[int]bool{}
	var exprs []sqlparse.Expr
	for _, it := range q.Items {
		exprs = append(exprs, it.Expr)
	}
	exprs = append(exprs, q.Where, q.Having)
	exprs = append(exprs, q.GroupBy...)
	for _, o := range q.OrderBy {
		exprs = append(exprs, o.Expr)
	}
	exprs = append(exprs, plan.Exprs(root)...)
	for _, e := range exprs {
		inspectDeep(e, func(ref *sqlparse.ColumnRef) { // correlate.go: subqueries read slots too
			if i, ok := scope.SlotOfRef(ref); ok {
				used[i] = true
			}
		})
	}
	plan.PruneColumns(root, used)
	if err := s.planOnSubqueries(ctx, jp); err != nil {
		return nil, err
	}
	if jp.spill != nil {
		plan.MarkSpill(root)
	}
	// The rest of the query runs over the joined rows.
	src := &sqlparse.TableSource{Subquery: &sqlparse.Select{}, Alias: joinAlias}
	if s.preplanned == nil {
		s.preplanned = map[*sqlparse.TableSource]queryPlan{}
	}
	s.preplanned[src] = jp
	q.From = src
	p, err := s.planQuery(ctx, &q)
	if err != nil {
		return nil, err
	}
	if t, ok := p.(*treePlan); ok && t.from == jp {
		return t, nil // one tree, the join and what runs above it (tree.go)
	}
	return &joinQuery{queryPlan: p}, nil
}

// joinQuery is a query over a join: the selectPipeline's plan over the
// joined rows, whose EXPLAIN leaves out the derived-table level between
// them.
type joinQuery struct {
	queryPlan
	alias string // the placeholder's alias ("": joinAlias)
}

func (q *joinQuery) Explain() []string {
	alias := q.alias
	if alias == "" {
		alias = joinAlias
	}
	marker := "DerivedTable " + sqlparse.QuoteIdent(alias) + " (streams the rows of:)"
	var out []string
	dedent := -1
	for _, l := range q.queryPlan.Explain() {
		t := strings.TrimLeft(l, " ")
		if t == marker && dedent < 0 {
			dedent = len(l) - len(t)
			continue
		}
		if dedent >= 0 && len(l)-len(t) > dedent {
			l = l[2:]
		}
		out = append(out, l)
	}
	return out
}

// markNullSupplied marks the scans an outer join pads with NULLs.
func markNullSupplied(n plan.Node, padded bool) {
	switch x := n.(type) {
	case *plan.Scan:
		x.NullSupplied = padded
	case *plan.Join:
		markNullSupplied(x.Left, padded || x.Kind == plan.Right || x.Kind == plan.Full)
		markNullSupplied(x.Right, padded || x.Kind == plan.Left || x.Kind == plan.Full)
	}
}

// buildFrom builds the plan tree of a FROM clause, adding its relations
// to scope in FROM order and binding each ON to the relations of its
// join.
func (s *Session) buildFrom(ctx context.Context, from sqlparse.FromItem, scope *expr.Scope, b *expr.Binder) (plan.Node, error) {
	switch f := from.(type) {
	case *sqlparse.TableSource:
		t, err := s.newSourceTable(ctx, f)
		if err != nil {
			return nil, err
		}
		name := f.Alias
		var table sqlparse.Name
		if name == "" {
			name = f.Table[len(f.Table)-1]
		}
		if f.Table != nil {
			// db.t.col (db.alias.col) names the relation when db is the
			// table's schema (the current one for FROM t).
			table = sqlparse.Name{s.tableSchema(f.Table), name}
		}
		r, err := scope.Add(name, table, t.ColumnNames())
		if err != nil {
			return nil, err
		}
		return &plan.Scan{Table: t, Name: name, Lo: r.Base, Hi: r.Base + len(r.Columns), Spec: plan.ScanSpec{Limit: -1}}, nil
	case *sqlparse.Join:
		firstRel := len(scope.Rels)
		left, err := s.buildFrom(ctx, f.Left, scope, b)
		if err != nil {
			return nil, err
		}
		midRel := len(scope.Rels)
		right, err := s.buildFrom(ctx, f.Right, scope, b)
		if err != nil {
			return nil, err
		}
		endRel := len(scope.Rels)
		j := &plan.Join{Left: left, Right: right, Natural: f.Natural}
		switch f.Kind {
		case sqlparse.LeftJoin:
			j.Kind = plan.Left
		case sqlparse.RightJoin:
			j.Kind = plan.Right
		case sqlparse.FullJoin:
			j.Kind = plan.Full
			if f.Natural || len(f.Using) > 0 {
				// The joined column would be COALESCE(l, r), not one side's slot.
				return nil, errorf(catalog.CodeUnsupported, "not supported: FULL JOIN with USING or NATURAL (write ON l.c = r.c and COALESCE(l.c, r.c))")
			}
		default:
			j.Kind = plan.Inner
		}
		using := f.Using
		if f.Natural {
			using = naturalColumns(scope, firstRel, midRel, endRel)
		}
		for _, u := range using {
			ref := &sqlparse.ColumnRef{Column: u}
			l, err := scope.Resolve(ref, "from clause", firstRel, midRel)
			if err != nil {
				return nil, err
			}
			r, err := scope.Resolve(ref, "from clause", midRel, endRel)
			if err != nil {
				return nil, err
			}
			j.On = append(j.On, &sqlparse.Binary{Op: sqlparse.OpEQ, L: scope.Ref(l), R: scope.Ref(r)})
			keep, drop := l, r
			if j.Kind == plan.Right {
				keep, drop = r, l
			}
			scope.Coalesce(u, keep, drop)
			j.Using = append(j.Using, sqlparse.QuoteIdent(u))
		}
		if f.Natural {
			j.Using = nil
		}
		if f.On != nil {
			on, err := s.bindOn(ctx, f.On, scope, b, firstRel, endRel)
			if err != nil {
				return nil, err
			}
			j.On = append(j.On, plan.Conjuncts(on)...)
		}
		return j, nil
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: FROM item %T", from)
}

// bindOn binds a join's ON to the relations [firstRel, endRel) of its two
// sides. A subquery in it may read those relations' columns (qualified, or
// unqualified where its own FROM lacks the name: qualifyOuterRefs); the
// rules keep a conjunct holding one in the join's condition, evaluated on
// each candidate pair (planOnSubqueries), so an outer join's ON subquery
// decides the match and never drops the preserved side's rows. An
// aggregate is MySQL's 1111 there.
func (s *Session) bindOn(ctx context.Context, on sqlparse.Expr, scope *expr.Scope, b *expr.Binder, firstRel, endRel int) (sqlparse.Expr, error) {
	if hasSubquery(on) {
		q, err := s.qualifyOuterRefs(ctx, &sqlparse.Select{Where: on}, scope)
		if err != nil {
			return nil, err
		}
		on = q.Where
	}
	bound, err := b.Bind(on, "on clause", firstRel, endRel)
	if err != nil {
		return nil, err
	}
	var bad error
	sqlparse.Inspect(bound, func(n sqlparse.Expr) bool {
		if f, ok := n.(*sqlparse.FuncCall); ok && f.Aggregate && bad == nil {
			bad = errorf(catalog.CodeInvalidInput, "invalid use of group function %s in the ON of a join (MySQL error 1111)", f)
		}
		return bad == nil
	})
	// A subquery's outer references were bound to any relation in scope
	// (BindOuter); one to a relation outside the two sides would read a
	// slot the join's rows do not hold.
	inspectDeep(bound, func(ref *sqlparse.ColumnRef) {
		if i, ok := scope.SlotOfRef(ref); ok && bad == nil {
			if r := scope.Slots[i].Rel; r < firstRel || r >= endRel {
				bad = expr.UnknownColumn(&sqlparse.ColumnRef{Qualifier: sqlparse.Name{scope.Rels[r].Name}, Column: scope.Slots[i].Column}, "on clause")
			}
		}
	})
	if bad != nil {
		return nil, bad
	}
	return bound, nil
}

// hasSubquery reports whether e holds a subquery (outside nested bodies).
func hasSubquery(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		switch x := n.(type) {
		case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified:
			found = true
		case *sqlparse.InList:
			found = found || x.Subquery != nil
		}
		return !found
	})
	return found
}

// planOnSubqueries plans the subqueries left in the join conditions of the
// tree (after the rules: none of them moves) over the joined row's slots:
// a correlated one reads the candidate pair's columns by their bound
// names, and runs per distinct value of them, cached, as any correlated
// subquery. Their plans go to p.subq, which the conditions' rowEnv reads.
func (s *Session) planOnSubqueries(ctx context.Context, p *joinPlan) error {
	var conds []sqlparse.Expr
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		if j, ok := n.(*plan.Join); ok {
			walk(j.Left)
			walk(j.Right)
			for _, c := range j.On {
				if hasSubquery(c) {
					conds = append(conds, c)
				}
			}
		}
	}
	walk(p.root)
	if len(conds) == 0 {
		return nil
	}
	f := s.fork()
	outer := func() (*scope, error) { return newScope("", p.cols), nil }
	if err := f.planSubqueries(ctx, outer, conds...); err != nil {
		return err
	}
	p.subq = f.subq
	return nil
}

// explainOn gives each join of the tree whose condition holds subqueries
// the plans of those subqueries, printed under the join's line.
func (s *Session) explainOn(ctx context.Context, root plan.Node, subq subqueryValues) error {
	j, ok := root.(*plan.Join)
	if !ok || len(subq) == 0 {
		return nil
	}
	if err := s.explainOn(ctx, j.Left, subq); err != nil {
		return err
	}
	if err := s.explainOn(ctx, j.Right, subq); err != nil {
		return err
	}
	j.Notes = nil
	for _, c := range j.On {
		lines, err := s.explainSubqueries(ctx, subq, 0, c)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			j.Notes = append(j.Notes, "in the condition "+c.String()+", evaluated per candidate row pair:")
			for _, l := range lines {
				j.Notes = append(j.Notes, "  "+l)
			}
		}
	}
	return nil
}

// naturalColumns lists the column names a NATURAL JOIN joins on: those
// the left side's relations [first, mid) and the right side's [mid, end)
// both show (each side's SELECT * columns), in the left side's order.
func naturalColumns(scope *expr.Scope, first, mid, end int) []string {
	names := func(from, to int) []string {
		var out []string
		seen := map[string]bool{}
		for ri := from; ri < to; ri++ {
			for _, c := range scope.Rels[ri].Columns {
				k := strings.ToLower(c)
				if !seen[k] {
					seen[k] = true
					out = append(out, c)
				}
			}
		}
		return out
	}
	right := map[string]bool{}
	for _, c := range names(mid, end) {
		right[strings.ToLower(c)] = true
	}
	var out []string
	for _, c := range names(first, mid) {
		if right[strings.ToLower(c)] {
			out = append(out, c)
		}
	}
	return out
}
