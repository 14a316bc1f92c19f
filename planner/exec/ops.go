package exec

import (
	"context"
	"errors"
	"io"
)

// ctxCheckRows is how often (in rows) the row-at-a-time operators check
// their context between batches' own checks.
const ctxCheckRows = 1024

// Starter is an operator with blocking work (a sort's or an aggregate's
// read of its whole input) it can do before its first Next.
type Starter interface {
	Start(ctx context.Context) error
}

// Start has op (and the operators it streams from) do its blocking
// work now, so its errors come before any row; operators without any do
// nothing.
func Start(ctx context.Context, op Operator) error {
	if s, ok := op.(Starter); ok {
		return s.Start(ctx)
	}
	return nil
}

// filterOp keeps the rows a predicate accepts.
type filterOp struct {
	in   Operator
	keep func(row []any) (bool, error)
	out  [][]any
	err  error
}

// Filter returns the rows of in for which keep is true.
func Filter(in Operator, keep func(row []any) (bool, error)) Operator {
	return &filterOp{in: in, keep: keep}
}

func (o *filterOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	for {
		batch, err := o.in.Next(ctx)
		if err != nil {
			o.err = err
			return nil, err
		}
		o.out = o.out[:0]
		for _, r := range batch {
			ok, err := o.keep(r)
			if err != nil {
				o.err = err
				return nil, err
			}
			if ok {
				o.out = append(o.out, r)
			}
		}
		if len(o.out) > 0 {
			return o.out, nil
		}
		if err := ctx.Err(); err != nil {
			o.err = err
			return nil, err
		}
	}
}

func (o *filterOp) Start(ctx context.Context) error { return Start(ctx, o.in) }

func (o *filterOp) Close() error {
	if o.err == nil {
		o.err = io.EOF
	}
	return o.in.Close()
}

// projectOp maps each row to a new one.
type projectOp struct {
	in  Operator
	f   func(row []any) ([]any, error)
	out [][]any
	err error
}

// Project returns f of each row of in. The rows f returns are kept by the
// consumer (they are not reused).
func Project(in Operator, f func(row []any) ([]any, error)) Operator {
	return &projectOp{in: in, f: f}
}

func (o *projectOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	batch, err := o.in.Next(ctx)
	if err != nil {
		o.err = err
		return nil, err
	}
	o.out = o.out[:0]
	for _, r := range batch {
		p, err := o.f(r)
		if err != nil {
			o.err = err
			return nil, err
		}
		o.out = append(o.out, p)
	}
	return o.out, nil
}

func (o *projectOp) Start(ctx context.Context) error { return Start(ctx, o.in) }

func (o *projectOp) Close() error {
	if o.err == nil {
		o.err = io.EOF
	}
	return o.in.Close()
}

// limitOp skips offset rows and passes at most count.
type limitOp struct {
	in           Operator
	skip, left   int64 // left < 0: no limit
	err          error
	closedOnDone bool
}

// Limit skips offset rows of in and returns at most count rows (count <
// 0: all). Once count rows passed it closes in (a scan below stops
// reading).
func Limit(in Operator, count, offset int64) Operator {
	return &limitOp{in: in, skip: offset, left: count}
}

func (o *limitOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.left == 0 {
		o.done()
		return nil, io.EOF
	}
	for {
		batch, err := o.in.Next(ctx)
		if err != nil {
			o.err = err
			return nil, err
		}
		if o.skip > 0 {
			n := min(o.skip, int64(len(batch)))
			o.skip -= n
			batch = batch[n:]
		}
		if len(batch) == 0 {
			continue
		}
		if o.left >= 0 && int64(len(batch)) >= o.left {
			batch = batch[:o.left]
			o.left = 0
			return batch, nil
		}
		if o.left > 0 {
			o.left -= int64(len(batch))
		}
		return batch, nil
	}
}

func (o *limitOp) Start(ctx context.Context) error {
	if o.left == 0 {
		return nil
	}
	return Start(ctx, o.in)
}

func (o *limitOp) done() {
	if !o.closedOnDone {
		o.closedOnDone = true
		o.in.Close()
	}
	o.err = io.EOF
}

func (o *limitOp) Close() error {
	if o.err == nil {
		o.err = io.EOF
	}
	if o.closedOnDone {
		return nil
	}
	o.closedOnDone = true
	return o.in.Close()
}

// valuesOp returns fixed rows.
type valuesOp struct {
	rows [][]any
	done bool
}

// Values returns the rows given, in one batch.
func Values(rows [][]any) Operator { return &valuesOp{rows: rows} }

func (o *valuesOp) Next(ctx context.Context) ([][]any, error) {
	if o.done || len(o.rows) == 0 {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.done = true
	return o.rows, nil
}

func (o *valuesOp) Close() error { o.done = true; return nil }

// AggregateSpec says how to fold rows into groups. The planner supplies
// the SQL: the group key of a row, its encoding (equal keys, and only
// they, encode alike), and the accumulators of the aggregate calls.
type AggregateSpec struct {
	// Key evaluates the group-by values of a row into dst (len = the
	// number of keys) and returns their encoding, valid until the next
	// call (a group copies it: looking a group up allocates nothing).
	Key func(dst []any, row []any) ([]byte, error)
	// KeyWidth is the number of group-by values (0: one group).
	KeyWidth int
	// NewGroup returns the accumulators of a new group.
	NewGroup func() Accumulator
	// Budget is charged GroupBytes per group (plus its key); Name names
	// the operator in a budget error.
	Budget     *Budget
	GroupBytes int64
	Name       string
}

// Accumulator folds the rows of one group and yields its results.
type Accumulator interface {
	Add(row []any) error
	Results() ([]any, error)
}

// GrowingAccumulator is an Accumulator whose groups hold more as rows
// come (GROUP_CONCAT's text, DISTINCT's seen values): after each Add the
// Aggregate operator charges what Grown reports, the bytes added since
// the last call.
type GrowingAccumulator interface {
	Accumulator
	Grown() int64
}

// Aggregate returns one row per group of in: the group's key values then
// its accumulator's results, groups in order of first appearance. With
// KeyWidth 0 there is exactly one group, also over no rows. The groups
// are held in memory, charged to spec.Budget.
func Aggregate(in Operator, spec AggregateSpec) Operator {
	a := &aggregateFold{in: in, spec: spec}
	return &computedOp{in: in, fold: a.fold, held: heldRows{budget: spec.Budget, name: spec.Name}}
}

// aggregateFold folds an Aggregate's input into its groups' rows.
type aggregateFold struct {
	in   Operator
	spec AggregateSpec
}

// heldRows is the result an operator computed in full (an aggregate's
// groups, a window's rows), charged to the query's budget while held and
// handed out BatchSize rows at a time.
type heldRows struct {
	budget  *Budget
	name    string
	rows    [][]any
	pos     int
	charged int64
}

// charge adds n bytes to the budget (its typed error past it).
func (h *heldRows) charge(n int64) error {
	if h.budget == nil {
		return nil
	}
	h.charged += n
	return h.budget.Grow(h.name, n)
}

// next is the next batch of rows, or io.EOF.
func (h *heldRows) next() ([][]any, error) {
	if h.pos >= len(h.rows) {
		return nil, io.EOF
	}
	end := min(h.pos+BatchSize, len(h.rows))
	b := h.rows[h.pos:end]
	h.pos = end
	return b, nil
}

// release gives the charged bytes back and drops the rows.
func (h *heldRows) release() {
	if h.budget != nil {
		h.budget.Release(h.charged)
	}
	h.charged = 0
	h.rows = nil
}

type aggGroup struct {
	keys []any
	acc  Accumulator
}

func (o *aggregateFold) fold(ctx context.Context, charge func(n int64) error) ([][]any, error) {
	defer o.in.Close()
	groups := map[string]*aggGroup{}
	var order []*aggGroup
	keys := make([]any, o.spec.KeyWidth)
	n := 0
	for {
		batch, err := o.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, r := range batch {
			if n++; n%ctxCheckRows == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			k, err := o.spec.Key(keys, r)
			if err != nil {
				return nil, err
			}
			g, ok := groups[string(k)]
			if !ok {
				g = &aggGroup{keys: append([]any(nil), keys...), acc: o.spec.NewGroup()}
				groups[string(k)] = g
				order = append(order, g)
				if err := charge(o.spec.GroupBytes + RowBytes(g.keys) + int64(len(k))); err != nil {
					return nil, err
				}
			}
			if err := g.acc.Add(r); err != nil {
				return nil, err
			}
			if ga, ok := g.acc.(GrowingAccumulator); ok {
				if n := ga.Grown(); n != 0 {
					if err := charge(n); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if o.spec.KeyWidth == 0 && len(order) == 0 {
		order = append(order, &aggGroup{acc: o.spec.NewGroup()})
	}
	rows := make([][]any, len(order))
	for i, g := range order {
		res, err := g.acc.Results()
		if err != nil {
			return nil, err
		}
		rows[i] = append(g.keys, res...)
	}
	return rows, nil
}

// Lazy defers building the operator over in to its first Next (a sort
// reads all its input then), so building the tree does no work. Once
// open returned, the operator it made owns in; before, Close closes in.
func Lazy(in Operator, open func(ctx context.Context, in Operator) (Operator, error)) Operator {
	return &lazyOp{in: in, open: open}
}

type lazyOp struct {
	in   Operator
	open func(ctx context.Context, in Operator) (Operator, error)
	op   Operator
	err  error
}

func (o *lazyOp) Start(ctx context.Context) error {
	if o.err != nil {
		return o.err
	}
	if o.op == nil {
		op, err := o.open(ctx, o.in)
		if err != nil {
			o.err = err
			o.in.Close()
			return err
		}
		o.op = op
	}
	return nil
}

func (o *lazyOp) Next(ctx context.Context) ([][]any, error) {
	if err := o.Start(ctx); err != nil {
		return nil, err
	}
	return o.op.Next(ctx)
}

func (o *lazyOp) Close() error {
	if o.err == nil {
		o.err = io.EOF
	}
	if o.op != nil {
		return o.op.Close()
	}
	return o.in.Close()
}

// Computed returns an operator whose rows fold computes in full on the
// first Next (or Start): an aggregate the planner evaluates over column
// batches rather than rows. fold charges what it holds through charge (to
// budget, naming the operator name in a budget error); the charge is
// given back on Close.
func Computed(budget *Budget, name string, fold func(ctx context.Context, charge func(n int64) error) ([][]any, error)) Operator {
	return &computedOp{fold: fold, held: heldRows{budget: budget, name: name}}
}

// computedOp holds the rows fold computed (the Aggregate's groups); in,
// when set, is the input fold reads, closed on Close if fold never ran.
type computedOp struct {
	in   Operator
	fold func(ctx context.Context, charge func(n int64) error) ([][]any, error)
	held heldRows
	done bool
	err  error
}

func (o *computedOp) Start(ctx context.Context) error {
	if o.err != nil && !errors.Is(o.err, io.EOF) {
		return o.err
	}
	if !o.done {
		o.done = true
		rows, err := o.fold(ctx, o.held.charge)
		if err != nil {
			o.err = err
			return err
		}
		o.held.rows = rows
	}
	return nil
}

func (o *computedOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	if err := o.Start(ctx); err != nil {
		return nil, err
	}
	b, err := o.held.next()
	o.err = err
	return b, err
}

func (o *computedOp) Close() error {
	o.held.release()
	if o.err == nil {
		o.err = io.EOF
	}
	if o.in != nil {
		return o.in.Close()
	}
	return nil
}
