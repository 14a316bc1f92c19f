package planner

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// A compact group table for the common shape of a large GROUP BY (TPC-H
// Q18's `GROUP BY l_orderkey HAVING SUM(l_quantity) > 300`, 1.5 million
// groups at SF 1): one signed-integer key and only COUNT, and SUM or AVG
// summed exactly (DECIMAL or integer values). A group is an int64 in a
// map to its index and, per call, a fixed compactState: about 65 bytes a
// group where the general operator's map of boxed keys, accumulators and
// aggStates took over 400. A sum that leaves the int64 (or a value that is
// no exact number) moves that group's call to a general aggState for good,
// so the results are the general path's, exactly.

// compactCallBytes and compactGroupBytes are what a group really holds
// (measured in TestCompactAggregateMemory): its compactState per call and
// its key in their slices, with the quarter spare an append leaves, and
// its map slot with the map's spare slots.
const (
	compactCallBytes  = 30
	compactGroupBytes = 56
)

// compactState is one call's state in one group.
type compactState struct {
	count int64 // the non-NULL values (rows for COUNT(*))
	small int64 // the exact sum scaled by 10^scale (decSum.small)
	scale int32
	full  int32 // 1 + the index of the general state in fulls; 0 none
}

// compactEligible reports whether the aggregate can use the compact table.
func compactEligible(env *rowEnv, a *aggStage) bool {
	if len(a.groupBy) != 1 || len(a.calls) == 0 {
		return false
	}
	if _, ok := sqlparse.StripParens(a.groupBy[0]).(*sqlparse.ColumnRef); !ok {
		return false // an expression's values may be other than int64
	}
	if !signedIntegerType(strings.ToUpper(exprColumn(env, a.groupBy[0], "").DatabaseType)) {
		return false
	}
	for _, c := range a.calls {
		if c.distinct || c.concat != nil || len(c.args) > 1 || c.temporal != 0 {
			return false
		}
		switch {
		case c.star, c.fn == "count":
		case (c.fn == "sum" || c.fn == "avg") && c.exact:
		default:
			return false
		}
	}
	return true
}

// preferCompact reports whether an aggregate the column-batch path could
// run (batchagg.go) takes the compact group table instead: its shape fits
// the table, and the scanned table has rows enough that, were each row
// its own group, the batch path's groups (charged aggGroupBytes and the
// boxed key and its bytes, about twice a compact group) would pass half
// the budget. TPC-H Q18's GROUP BY l_orderkey has 1.5 million groups at
// SF 1: about 130 MB in the compact table, past the 256 MiB budget in the
// batch path. The batch path is the faster one, so it keeps the rest.
func preferCompact(ctx context.Context, b *batchAgg, budget *exec.Budget) bool {
	if budget == nil || budget.Limit <= 0 || !compactEligible(b.env, b.a) {
		return false
	}
	rows, err := b.d.dp.ds.CountRows(ctx)
	if err != nil {
		return false
	}
	const batchKeyBytes = 16 + 8 + 9 // the boxed key in its slice, and its encoded bytes
	return int64(rows)*(aggGroupBytes(b.a)+batchKeyBytes) > budget.Limit/2
}

// compactAggregateOp is exec.Aggregate's contract (groups in order of
// first appearance, each its key then its calls' results) over the
// compact table.
type compactAggregateOp struct {
	in     exec.Operator
	a      *aggStage
	env    *rowEnv
	budget *exec.Budget
	name   string

	// index maps a key to its group once the keys stop coming in
	// ascending order (or a NULL key comes); nil while sorted.
	index map[int64]int32
	// sorted: every new int64 key so far was above the ones before it
	// (lineitem's l_orderkey, in the order the table was written), so
	// the keys in order of appearance are sorted: a key above maxKey is
	// a new group without a map lookup, and a key seen before is found
	// by binary search. The first key out of order builds index.
	sorted bool
	maxKey int64
	// keys and states are pages of compactPage groups (the first one
	// grows by append): groups are added without copying the ones
	// before, which a single slice's doubling did (a third of Q18's
	// aggregate time at SF 1).
	keys   [][]int64 // the groups' keys in order of first appearance
	groups int32
	nullAt int32 // the NULL key's group (its keys entry unused), -1 none
	// last is the group of the last int64 key looked up (lastOK: there is
	// one): rows of a group often come together (lineitem's rows of an
	// order), and those skip the map.
	lastKey   int64
	lastGroup int32
	lastOK    bool
	states    [][]compactState
	fulls     []*aggState
	// scratch and scratchDec are the general states row computes a
	// compact state's result from.
	scratch    aggState
	scratchDec decSum
	// cols, when set, is the same aggregate planned over column batches
	// (in is nil then): fold reads the table's column batches, the key
	// and the exact sums straight from the Arrow values (no row of Go
	// values per scanned row), and only a value the int64 path does not
	// hold goes through the row path (add on the row's Go values).
	cols    *batchAgg
	charged int64

	done  bool
	err   error
	pos   int
	batch [][]any
}

func newCompactAggregate(in exec.Operator, env *rowEnv, a *aggStage, budget *exec.Budget, name string) *compactAggregateOp {
	return &compactAggregateOp{in: in, a: a, env: env, budget: budget, name: name, sorted: true, nullAt: -1}
}

// compactPageShift sets the groups of a page of keys and states (4,096).
const (
	compactPageShift = 12
	compactPage      = 1 << compactPageShift
)

// key is group g's key.
func (o *compactAggregateOp) key(g int32) int64 {
	return o.keys[g>>compactPageShift][g&(compactPage-1)]
}

// stateOf is group g's states, one per call.
func (o *compactAggregateOp) stateOf(g int32) []compactState {
	n := len(o.a.calls)
	at := int(g&(compactPage-1)) * n
	return o.states[g>>compactPageShift][at : at+n]
}

// find is the group of int64 key k (ok false: none yet).
func (o *compactAggregateOp) find(k int64) (int32, bool) {
	if !o.sorted {
		g, ok := o.index[k]
		return g, ok
	}
	if o.groups == 0 || k > o.maxKey {
		return 0, false
	}
	n := int(o.groups)
	g := sort.Search(n, func(i int) bool { return o.key(int32(i)) >= k })
	if g < n && o.key(int32(g)) == k {
		return int32(g), true
	}
	o.unsort()
	return 0, false
}

// unsort leaves the sorted mode: index maps every key seen to its group.
func (o *compactAggregateOp) unsort() {
	o.sorted = false
	o.index = make(map[int64]int32, o.groups)
	for g := range o.groups {
		if g != o.nullAt {
			o.index[o.key(g)] = g
		}
	}
}

func (o *compactAggregateOp) charge(n int64) error {
	if o.budget == nil {
		return nil
	}
	o.charged += n
	return o.budget.Grow(o.name, n)
}

// group is the index of the row's group, a new one if need be.
func (o *compactAggregateOp) group(row []any) (int32, error) {
	v, err := o.env.eval(o.a.groupBy[0], row)
	if err != nil {
		return 0, err
	}
	return o.groupOf(v)
}

// groupOf is the index of key v's group (an int64 or nil), a new one if
// need be, charged what it holds.
func (o *compactAggregateOp) groupOf(v any) (int32, error) {
	g := o.groups
	var key int64
	switch k := v.(type) {
	case nil:
		if o.nullAt >= 0 {
			return o.nullAt, nil
		}
		if o.sorted {
			o.unsort() // the NULL group's unused key would break the order
		}
		o.nullAt = g
	case int64:
		if o.lastOK && k == o.lastKey {
			return o.lastGroup, nil
		}
		i, ok := o.find(k)
		if !ok {
			i = g
			if o.sorted {
				o.maxKey = k
			} else {
				o.index[k] = g
			}
		}
		o.lastKey, o.lastGroup, o.lastOK = k, i, true
		if ok {
			return i, nil
		}
		key = k
	default:
		return 0, errorf(catalog.CodeInternal, "internal: compact GROUP BY key is a %T", v)
	}
	calls := len(o.a.calls)
	if g&(compactPage-1) == 0 {
		if g == 0 {
			o.keys, o.states = append(o.keys, nil), append(o.states, nil)
		} else {
			o.keys = append(o.keys, make([]int64, 0, compactPage))
			o.states = append(o.states, make([]compactState, 0, compactPage*calls))
		}
	}
	last := len(o.keys) - 1
	o.keys[last] = append(o.keys[last], key)
	o.states[last] = append(o.states[last], make([]compactState, calls)...)
	o.groups++
	return g, o.charge(compactGroupBytes + compactCallBytes*int64(calls))
}

// add folds one row's value of call i into its state.
func (o *compactAggregateOp) add(c aggCall, cs *compactState, row []any) error {
	if cs.full != 0 {
		return c.add(o.fulls[cs.full-1], o.env, row)
	}
	if c.star {
		cs.count++
		return nil
	}
	v, err := o.env.eval(c.arg, row)
	if err != nil || v == nil {
		return err
	}
	if c.fn == "count" {
		cs.count++
		return nil
	}
	d := decSum{small: cs.small, scale: int(cs.scale), any: cs.count > 0}
	if d.add(v); d.v == nil && !d.bad && d.scale <= 1<<30 {
		cs.small, cs.scale = d.small, int32(d.scale)
		cs.count++
		return nil
	}
	// Past an int64 (or no exact number): the general state from here on,
	// starting from the sum of the values before this one.
	st := o.general(c, cs)
	o.fulls = append(o.fulls, st)
	cs.full = int32(len(o.fulls))
	if err := o.charge(int64(160)); err != nil {
		return err
	}
	return c.add(st, o.env, row)
}

// general is the aggState equal to the compact state.
func (o *compactAggregateOp) general(c aggCall, cs *compactState) *aggState {
	st := &aggState{count: cs.count}
	if c.fn != "count" && !c.star && cs.count > 0 {
		st.dec = &decSum{small: cs.small, scale: int(cs.scale), any: true}
	}
	return st
}

func (o *compactAggregateOp) fold(ctx context.Context) error {
	if o.cols != nil {
		return o.foldBatches(ctx)
	}
	defer o.in.Close()
	calls := o.a.calls
	n := 0
	for {
		batch, err := o.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, r := range batch {
			if n++; n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			g, err := o.group(r)
			if err != nil {
				return err
			}
			states := o.stateOf(g)
			for i, c := range calls {
				if err := o.add(c, &states[i], r); err != nil {
					return err
				}
			}
		}
	}
}

// row sets out to group g's key and results. A compact state's result
// is computed from scratch states of o (no aggState or decSum allocated
// per group: Q18's subquery makes 1.5 million rows of which the HAVING
// keeps 57); aggCall.result keeps no pointer to them.
func (o *compactAggregateOp) row(g int, out []any) error {
	calls := o.a.calls
	if int32(g) != o.nullAt {
		out[0] = o.key(int32(g))
	}
	states := o.stateOf(int32(g))
	for i, c := range calls {
		cs := &states[i]
		var s *aggState
		if cs.full != 0 {
			s = o.fulls[cs.full-1]
		} else {
			o.scratch = aggState{count: cs.count}
			if c.fn != "count" && !c.star && cs.count > 0 {
				o.scratchDec = decSum{small: cs.small, scale: int(cs.scale), any: true}
				o.scratch.dec = &o.scratchDec
			}
			s = &o.scratch
		}
		v, err := c.result(s)
		if err != nil {
			return err
		}
		out[1+i] = v
	}
	return nil
}

func (o *compactAggregateOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	if !o.done {
		o.done = true
		if err := o.fold(ctx); err != nil {
			o.err = err
			return nil, err
		}
		o.index = nil // looked up no more
	}
	if o.pos >= int(o.groups) {
		o.err = io.EOF
		return nil, io.EOF
	}
	o.batch = o.batch[:0]
	width := 1 + len(o.a.calls)
	// One allocation for the batch's rows (each its own part of it).
	slab := make([]any, width*min(exec.BatchSize, int(o.groups)-o.pos))
	for ; o.pos < int(o.groups) && len(o.batch) < exec.BatchSize; o.pos++ {
		r := slab[:width:width]
		slab = slab[width:]
		if err := o.row(o.pos, r); err != nil {
			o.err = err
			return nil, err
		}
		o.batch = append(o.batch, r)
	}
	return o.batch, nil
}

func (o *compactAggregateOp) Close() error {
	if o.budget != nil {
		o.budget.Release(o.charged)
	}
	o.charged = 0
	o.index, o.keys, o.states, o.fulls = nil, nil, nil, nil
	if o.err == nil {
		o.err = io.EOF
	}
	if o.in == nil {
		return nil
	}
	return o.in.Close()
}

// newCompactBatchAggregate is the compact group table over b's column
// batches: an aggregate preferCompact sends to the compact table, read
// as the batch path reads it.
func newCompactBatchAggregate(b *batchAgg, budget *exec.Budget) *compactAggregateOp {
	o := newCompactAggregate(nil, b.env, b.a, budget, "the Aggregate's groups")
	o.cols = b
	return o
}

// foldBatches folds the rows of the batch plan's scan (fold's work over
// column batches). Each call's state is the one the row path would
// reach: a value is added with decSum.addSmall at its column scale, as
// the row path adds its parsed text, and a value the batch path cannot
// give (vecFallback), an int64 overflow or a call already on the
// general state takes add on the row's Go values.
func (o *compactAggregateOp) foldBatches(ctx context.Context) error {
	b := o.cols
	scan, err := b.d.newFilterScan(ctx, b.cond)
	if err != nil {
		return err
	}
	defer scan.Close()
	r := &batchAggRun{b: b}
	r.readers = make([]sqltypes.ValueReader, len(b.d.dp.read))
	r.row = make([]any, b.d.dp.schema.NumFields())
	calls := o.a.calls
	countsValid := make([]bool, len(b.calls))
	for {
		err := scan.selectNext(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		sel := scan.alive
		if len(sel) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if scan.rec != r.rec {
			r.rec = scan.rec
			clear(r.readers)
		}
		r.chunks++
		key := r.keyReader(b.keys[0])
		for ci, bc := range b.calls {
			switch bc.kind {
			case batchCountCol:
				countsValid[ci] = nullMeansNil(r.rec.Column(bc.col), b.d.dp.schema.Field(b.d.dp.read[bc.col]))
			case batchCountNum, batchSum:
				bc.num.eval(r.rec, sel, r.chunks)
			}
		}
		for k, i := range sel {
			var v any
			if key.int != nil {
				if !key.arr.IsNull(int(i)) {
					v = key.int(int(i))
				}
			} else if v, err = r.value(key.j, int(i)); err != nil {
				return err
			}
			g, err := o.groupOf(v)
			if err != nil {
				return err
			}
			states := o.stateOf(g)
			filled := false
			for ci, bc := range b.calls {
				cs := &states[ci]
				if cs.full == 0 {
					switch bc.kind {
					case batchCountStar:
						cs.count++
						continue
					case batchCountCol:
						if countsValid[ci] {
							if !r.rec.Column(bc.col).IsNull(int(i)) {
								cs.count++
							}
							continue
						}
					case batchCountNum:
						switch bc.num.st[k] {
						case vecOK:
							cs.count++
							continue
						case vecNull:
							continue
						}
					case batchSum:
						switch bc.num.st[k] {
						case vecOK:
							d := decSum{small: cs.small, scale: int(cs.scale), any: cs.count > 0}
							if d.addSmall(bc.num.vals[k], bc.num.scale) && d.scale <= 1<<30 {
								cs.small, cs.scale = d.small, int32(d.scale)
								cs.count++
								continue
							}
						case vecNull:
							continue
						}
					}
				}
				if !filled {
					if err := r.fillRow(int(i)); err != nil {
						return err
					}
					filled = true
				}
				if err := o.add(calls[ci], cs, r.row); err != nil {
					return err
				}
			}
		}
	}
}
