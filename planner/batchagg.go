package planner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Aggregation over column batches (issue 15; TPC-H Q1). The row path
// turns every scanned value into a Go value (a DECIMAL into its text),
// evaluates each aggregate's argument on the row and parses the text
// again to sum it: in Q1 that was ~2 us per lineitem row. An Aggregate
// straight over a table's scan (under its WHERE, filtered column-wise by
// filterScanOp) whose calls are COUNT(*), COUNT(x), SUM(x) and AVG(x) of
// exact numbers runs here instead, over each chunk of the rows WHERE
// keeps: the group of each row is found from the key columns' Arrow
// values (the same key encoding as appendKey of their Go values), and the
// arguments (+, -, * trees over DECIMAL and integer columns and numeric
// literals, the fused path's shapes, decimalfused.go) are computed on
// int64 unscaled values a column at a time and summed into 128-bit
// integers.
//
// The answers are the row path's: a value the int64 path cannot hold (a
// DECIMAL past 18 digits, an overflow, an Arrow type it does not read)
// sends that row's call to the row path (aggCall.add on the row's Go
// values, in row order), whose state is merged with the batch sums at the
// end (decSum.addInt128: an exact sum is the same whatever the order).
// COUNT is the number of non-NULL values; SUM and AVG skip NULLs and are
// NULL over none; the results are aggCall.result's, so their types and
// scales (SUM keeps the scale, AVG adds 4) are unchanged.

// batchAggregates turns the batch path on; tests turn it off for the row
// path's answers they compare it with.
var batchAggregates = true

// compactBatches runs the compact group table over column batches
// (compactagg.go) where preferCompact takes it; tests turn it off for the
// compact table over rows they compare it with.
var compactBatches = true

// batchAgg is an Aggregate planned over column batches.
type batchAgg struct {
	d     *dataSource
	cond  sqlparse.Expr // WHERE; nil without one
	a     *aggStage
	env   *rowEnv
	keys  []int // per GROUP BY expression, the read position of its column
	calls []batchCall
	// shared holds the compiled nodes by what they compute (num).
	shared map[string]*vecNum
}

// batchCallKind is what a call computes over batches.
type batchCallKind int8

const (
	batchCountStar batchCallKind = iota
	batchCountCol                // COUNT(column): its non-NULL values
	batchCountNum                // COUNT(exact expression)
	batchSum                     // SUM or AVG of an exact expression
)

type batchCall struct {
	kind batchCallKind
	col  int     // batchCountCol: read position
	num  *vecNum // batchCountNum, batchSum
}

// batchAggregate returns x planned over column batches, nil when its
// input, keys or calls are not ones the batch path takes.
func (t *treePlan) batchAggregate(x *plan.Aggregate) *batchAgg {
	if !batchAggregates || !columnWiseFilter {
		return nil
	}
	var cond sqlparse.Expr
	in := x.Input
	if f, ok := in.(*plan.Filter); ok {
		if f.Having || len(f.OuterKeys) > 0 {
			return nil // OuterKeys: the Filter reads its rows ahead (semidomain.go)
		}
		cond, in = f.Cond, f.Input
		if src, ok := f.Input.(*plan.Source); !ok || !t.filteredSource(f, src) {
			return nil
		}
	}
	src, ok := in.(*plan.Source)
	if !ok {
		return nil
	}
	d, ok := src.Table.(*dataSource)
	if !ok || t.envs[x] != d.dp.env {
		return nil
	}
	a := t.aggs[x]
	if a == nil {
		return nil
	}
	b := &batchAgg{d: d, cond: cond, a: a, env: d.dp.env}
	readAt := map[int]int{}
	for j, c := range d.dp.read {
		readAt[c] = j
	}
	column := func(e sqlparse.Expr) (int, bool) {
		ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
		if !ok {
			return 0, false
		}
		c, err := b.env.column(ref)
		if err != nil {
			return 0, false
		}
		j, ok := readAt[c]
		return j, ok
	}
	for _, g := range a.groupBy {
		j, ok := column(g)
		if !ok {
			return nil
		}
		b.keys = append(b.keys, j)
	}
	for _, c := range a.calls {
		if c.distinct || c.concat != nil || len(c.args) > 1 || c.temporal != 0 {
			return nil
		}
		var bc batchCall
		switch {
		case c.fn == "count" && c.star:
			bc.kind = batchCountStar
		case c.fn == "count":
			if j, ok := column(c.arg); ok {
				bc.kind, bc.col = batchCountCol, j
				break
			}
			if bc.num = b.compileNum(c.arg, readAt); bc.num == nil {
				return nil
			}
			bc.kind = batchCountNum
		case (c.fn == "sum" || c.fn == "avg") && c.exact:
			if bc.num = b.compileNum(c.arg, readAt); bc.num == nil {
				return nil
			}
			bc.kind = batchSum
		default:
			return nil
		}
		b.calls = append(b.calls, bc)
	}
	return b
}

// filteredSource reports whether the Filter f over src is the table's
// WHERE that filterScanOp evaluates as it scans (build's condition).
func (t *treePlan) filteredSource(f *plan.Filter, src *plan.Source) bool {
	d, ok := src.Table.(*dataSource)
	return ok && !f.Having && columnWiseFilter && t.envs[f] == d.dp.env &&
		sqlparse.StripParens(f.Cond) == sqlparse.StripParens(d.dp.where)
}

// Per-row states of a vecNum's values.
const (
	vecOK       uint8 = iota
	vecNull           // SQL NULL
	vecFallback       // not on the int64 path: the row path evaluates it
)

// vecNum is an exact-number expression evaluated over a chunk of rows:
// each node's values are int64s unscaled by 10^scale, as on the fused
// path (smallArith's rules), with a state per row.
type vecNum struct {
	op    sqlparse.BinaryOp // OpAdd, OpSub, OpMul; 0 for a leaf
	l, r  *vecNum
	col   int // a column leaf's read position; -1 for a constant
	field arrow.Field
	c     int64 // a constant's unscaled value
	scale int
	dec   bool // DECIMAL (not BIGINT) valued
	// chunk is the chunk vals and st were computed for (a node shared by
	// several calls is evaluated once per chunk).
	chunk int
	// lm, rm rescale the operands of + and - to scale.
	lm, rm int64
	vals   []int64
	st     []uint8
}

// compileNum is e as a vecNum, nil for a shape or type it does not take.
// It takes what compileSmallNode takes, except a node with no DECIMAL
// below it (BIGINT arithmetic, whose overflow is an error): a leaf may be
// an integer column or literal.
func (b *batchAgg) compileNum(e sqlparse.Expr, readAt map[int]int) *vecNum {
	if fusedNodes(e) > maxFusedNodes {
		return nil
	}
	return b.num(e, readAt)
}

// fusedNodes counts e's nodes as compileSmallNode does (its bound).
func fusedNodes(e sqlparse.Expr) int {
	switch n := e.(type) {
	case *sqlparse.Paren:
		return fusedNodes(n.X) + 1
	case *sqlparse.Binary:
		return fusedNodes(n.L) + fusedNodes(n.R) + 1
	}
	return 1
}

// num compiles e, sharing the nodes of equal subexpressions (the same
// column, constant or operation on shared operands) across the calls: Q1
// reads l_extendedprice * (1 - l_discount) in two sums.
func (b *batchAgg) num(e sqlparse.Expr, readAt map[int]int) *vecNum {
	v := b.numNode(e, readAt)
	if v == nil {
		return nil
	}
	key := fmt.Sprintf("%d:%d:%d:%d:%v:%p:%p", v.op, v.col, v.c, v.scale, v.dec, v.l, v.r)
	if w, ok := b.shared[key]; ok {
		return w
	}
	if b.shared == nil {
		b.shared = map[string]*vecNum{}
	}
	b.shared[key] = v
	return v
}

func (b *batchAgg) numNode(e sqlparse.Expr, readAt map[int]int) *vecNum {
	switch n := e.(type) {
	case *sqlparse.Paren:
		return b.num(n.X, readAt)
	case *sqlparse.ColumnRef:
		c, err := b.env.column(n)
		if err != nil {
			return nil
		}
		j, ok := readAt[c]
		if !ok {
			return nil
		}
		f := b.d.dp.schema.Field(c)
		v := &vecNum{col: j, field: f}
		switch t := f.Type.(type) {
		case *arrow.Decimal128Type:
			if !decimalColumn(b.env, n) || t.Scale < 0 || t.Scale > t.Precision || t.Precision > 38 {
				return nil
			}
			v.scale, v.dec = int(t.Scale), true
		case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
			*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type:
		default:
			return nil
		}
		if sqltypes.IsJSON(f) {
			return nil
		}
		return v
	case *sqlparse.Literal:
		if n.Kind != sqlparse.LitInt && n.Kind != sqlparse.LitDecimal {
			return nil
		}
		x, err := b.env.compile(n)(nil)
		if err != nil {
			return nil
		}
		s, st := smallOf(x)
		if st != smallOK {
			return nil
		}
		return &vecNum{col: -1, c: s.u, scale: s.scale, dec: s.dec}
	case *sqlparse.Binary:
		if n.Op != sqlparse.OpAdd && n.Op != sqlparse.OpSub && n.Op != sqlparse.OpMul {
			return nil
		}
		l, r := b.num(n.L, readAt), b.num(n.R, readAt)
		if l == nil || r == nil || (!l.dec && !r.dec) {
			return nil
		}
		v := &vecNum{op: n.Op, l: l, r: r, col: -1, dec: true, lm: 1, rm: 1}
		if n.Op == sqlparse.OpMul {
			if v.scale = l.scale + r.scale; v.scale > maxDecimalScale {
				return nil // the row path rounds it
			}
			return v
		}
		v.scale = max(l.scale, r.scale)
		if v.scale-l.scale >= len(pow10s) || v.scale-r.scale >= len(pow10s) {
			return nil
		}
		v.lm, v.rm = pow10s[v.scale-l.scale], pow10s[v.scale-r.scale]
		return v
	}
	return nil
}

// eval computes v over the rows sel of rec, the chunk-th chunk of the run
// (from 1).
func (v *vecNum) eval(rec arrow.RecordBatch, sel []int32, chunk int) {
	if v.chunk == chunk {
		return
	}
	v.chunk = chunk
	n := len(sel)
	v.vals, v.st = grown(v.vals, n), grown(v.st, n)
	switch {
	case v.op == 0 && v.col < 0:
		for k := range n {
			v.vals[k], v.st[k] = v.c, vecOK
		}
	case v.op == 0:
		v.gather(rec.Column(v.col), sel)
	default:
		v.l.eval(rec, sel, chunk)
		v.r.eval(rec, sel, chunk)
		v.combine()
	}
}

func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// gather reads a column leaf's values; a batch of another Arrow type than
// the table's sends its rows to the row path.
func (v *vecNum) gather(arr arrow.Array, sel []int32) {
	vals, st := v.vals, v.st
	if arr.NullN() == arr.Len() {
		// All NULL (its value buffer may be missing).
		for k := range sel {
			st[k] = vecNull
		}
		return
	}
	if !arrow.TypeEqual(arr.DataType(), v.field.Type) || !valuesCover(arr) {
		for k := range sel {
			st[k] = vecFallback
		}
		return
	}
	switch a := arr.(type) {
	case *array.Decimal128:
		xs := a.Values()
		for k, i := range sel {
			x := xs[i]
			hi, lo := x.HighBits(), x.LowBits()
			if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
				vals[k], st[k] = int64(lo), vecOK
			} else {
				st[k] = vecFallback // past an int64: its text on the row path
			}
		}
	case *array.Int64:
		gatherInts(a.Int64Values(), sel, vals, st)
	case *array.Int32:
		gatherInts(a.Int32Values(), sel, vals, st)
	case *array.Int16:
		gatherInts(a.Int16Values(), sel, vals, st)
	case *array.Int8:
		gatherInts(a.Int8Values(), sel, vals, st)
	case *array.Uint32:
		gatherInts(a.Uint32Values(), sel, vals, st)
	case *array.Uint16:
		gatherInts(a.Uint16Values(), sel, vals, st)
	case *array.Uint8:
		gatherInts(a.Uint8Values(), sel, vals, st)
	default:
		for k := range sel {
			st[k] = vecFallback
		}
		return
	}
	if arr.NullN() > 0 {
		for k, i := range sel {
			if arr.IsNull(int(i)) {
				st[k] = vecNull
			}
		}
	}
}

// valuesCover reports whether arr's fixed-width value buffer holds a
// value for each of its slots (the gathers index it directly).
func valuesCover(arr arrow.Array) bool {
	switch a := arr.(type) {
	case *array.Decimal128:
		return len(a.Values()) >= a.Len()
	case *array.Int64:
		return len(a.Int64Values()) >= a.Len()
	case *array.Int32:
		return len(a.Int32Values()) >= a.Len()
	case *array.Int16:
		return len(a.Int16Values()) >= a.Len()
	case *array.Int8:
		return len(a.Int8Values()) >= a.Len()
	case *array.Uint32:
		return len(a.Uint32Values()) >= a.Len()
	case *array.Uint16:
		return len(a.Uint16Values()) >= a.Len()
	case *array.Uint8:
		return len(a.Uint8Values()) >= a.Len()
	case *array.Date32:
		return len(a.Date32Values()) >= a.Len()
	case *array.String:
		return len(a.ValueOffsets()) > a.Len()
	}
	return true // read through Value(i)
}

func gatherInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](xs []T, sel []int32, vals []int64, st []uint8) {
	for k, i := range sel {
		vals[k], st[k] = int64(xs[i]), vecOK
	}
}

// combine computes an operator node from its operands' values.
func (v *vecNum) combine() {
	lv, ls, rv, rs := v.l.vals, v.l.st, v.r.vals, v.r.st
	vals, st := v.vals, v.st
	for k := range vals {
		if s := max(ls[k], rs[k]); s != vecOK {
			st[k] = s // NULL, or the row path's when either operand is
			continue
		}
		x, y := lv[k], rv[k]
		var z int64
		ok := true
		switch v.op {
		case sqlparse.OpMul:
			z, ok = mulSmall(x, y)
		default:
			if v.lm != 1 {
				x, ok = mulSmall(x, v.lm)
			}
			if ok && v.rm != 1 {
				y, ok = mulSmall(y, v.rm)
			}
			if !ok {
				break
			}
			if v.op == sqlparse.OpAdd {
				z = x + y
				ok = !((x >= 0) == (y >= 0) && (z >= 0) != (x >= 0))
			} else {
				z = x - y
				ok = !((x >= 0) != (y >= 0) && (z >= 0) != (x >= 0))
			}
		}
		if !ok || z == math.MinInt64 {
			st[k] = vecFallback
			continue
		}
		vals[k], st[k] = z, vecOK
	}
}

// batchAcc is one call's batch part in one group: a 128-bit sum (two's
// complement hi:lo) of n values.
type batchAcc struct {
	hi int64
	lo uint64
	n  int64
}

func (a *batchAcc) add(v int64) {
	lo, carry := bits.Add64(a.lo, uint64(v), 0)
	a.hi += v>>63 + int64(carry)
	a.lo = lo
	a.n++
}

// batchGroup is one group: its key values and, once a row of it went to
// the row path, the row path's states of its calls.
type batchGroup struct {
	keys []any
	fall []aggState
}

// batchAggRun is one run of a batchAgg.
type batchAggRun struct {
	b      *batchAgg
	charge func(int64) error
	groups map[string]int32
	packed packedTable // the groups of short keys (groupsOf)
	order  []batchGroup
	accs   []batchAcc // [group*len(calls)+call]
	keyBuf []byte
	gids   []int32
	fall   []bool // per row of the chunk: some call of it takes the row path
	chunks int    // chunks folded so far
	// words and packed1 are the chunk's packed keys (groupsOf).
	words   [][2]uint64
	packed1 []bool
	// per batch: the Go value readers of the read columns (bound when a
	// row needs them) and the row they fill.
	rec     arrow.RecordBatch
	readers []sqltypes.ValueReader
	row     []any
}

// operator is the Aggregate's operator.
func (b *batchAgg) operator(budget *exec.Budget) exec.Operator {
	return exec.Computed(budget, "the Aggregate's groups", func(ctx context.Context, charge func(int64) error) ([][]any, error) {
		r := &batchAggRun{b: b, charge: charge, groups: map[string]int32{}}
		return r.run(ctx)
	})
}

func (r *batchAggRun) run(ctx context.Context) ([][]any, error) {
	b := r.b
	r.readers = make([]sqltypes.ValueReader, len(b.d.dp.read))
	r.row = make([]any, b.d.dp.schema.NumFields())
	if dp := b.d.dp; dp.limit != 0 || dp.countStar {
		o, err := b.d.newFilterScan(ctx, b.cond)
		if err != nil {
			return nil, err
		}
		defer o.Close()
		for {
			err := o.selectNext(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if len(o.alive) == 0 {
				continue
			}
			if o.rec != r.rec {
				r.rec = o.rec
				clear(r.readers)
			}
			if err := r.chunk(o.alive); err != nil {
				return nil, err
			}
		}
	}
	if len(b.keys) == 0 && len(r.order) == 0 {
		if _, err := r.newGroup(nil, 0); err != nil {
			return nil, err
		}
	}
	return r.results()
}

// value is the Go value of read column j at row i of the batch.
func (r *batchAggRun) value(j, i int) (any, error) {
	if r.readers[j] == nil {
		dp := r.b.d.dp
		rd, err := readerFor(dp.schema.Field(dp.read[j]), r.rec.Column(j))
		if err != nil {
			return nil, err
		}
		r.readers[j] = rd
	}
	return r.readers[j](i)
}

// chunk folds the rows sel of the batch.
func (r *batchAggRun) chunk(sel []int32) error {
	b, rec, nc := r.b, r.rec, len(r.b.calls)
	r.chunks++
	if err := r.groupsOf(sel); err != nil {
		return err
	}
	r.fall = grown(r.fall, len(sel))
	clear(r.fall)
	anyFall := false
	for ci, bc := range b.calls {
		switch bc.kind {
		case batchCountStar:
			for _, g := range r.gids {
				r.accs[int(g)*nc+ci].n++
			}
		case batchCountCol:
			arr := rec.Column(bc.col)
			if !nullMeansNil(arr, b.d.dp.schema.Field(b.d.dp.read[bc.col])) {
				for k := range sel {
					r.fall[k] = true
				}
				anyFall = true
				continue
			}
			for k, i := range sel {
				if !arr.IsNull(int(i)) {
					r.accs[int(r.gids[k])*nc+ci].n++
				}
			}
		default:
			bc.num.eval(rec, sel, r.chunks)
			for k, s := range bc.num.st {
				switch s {
				case vecOK:
					a := &r.accs[int(r.gids[k])*nc+ci]
					if bc.kind == batchSum {
						a.add(bc.num.vals[k])
					} else {
						a.n++
					}
				case vecFallback:
					r.fall[k], anyFall = true, true
				}
			}
		}
	}
	if !anyFall {
		return nil
	}
	// The row path's rows, in row order and each call in its order.
	for k, i := range sel {
		if !r.fall[k] {
			continue
		}
		if err := r.fillRow(int(i)); err != nil {
			return err
		}
		gr := &r.order[r.gids[k]]
		if gr.fall == nil {
			gr.fall = make([]aggState, nc)
		}
		for ci, bc := range b.calls {
			switch bc.kind {
			case batchCountStar:
				continue
			case batchCountCol:
				if nullMeansNil(rec.Column(bc.col), b.d.dp.schema.Field(b.d.dp.read[bc.col])) {
					continue
				}
			default:
				if bc.num.st[k] != vecFallback {
					continue
				}
			}
			if err := b.a.calls[ci].add(&gr.fall[ci], b.env, r.row); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillRow sets r.row to row i's Go values of the read columns.
func (r *batchAggRun) fillRow(i int) error {
	for j, c := range r.b.d.dp.read {
		v, err := r.value(j, i)
		if err != nil {
			return err
		}
		r.row[c] = v
	}
	return nil
}

// nullMeansNil reports whether arr's Go values are nil exactly where it
// is NULL (COUNT of it counts its valid slots).
func nullMeansNil(arr arrow.Array, f arrow.Field) bool {
	if sqltypes.IsJSON(f) || !arrow.TypeEqual(arr.DataType(), f.Type) {
		return false
	}
	switch arr.(type) {
	case *array.Boolean, *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64, *array.Float32, *array.Float64,
		*array.String, *array.LargeString, *array.StringView, *array.Binary, *array.LargeBinary,
		*array.Date32, *array.Date64, *array.Timestamp, *array.Decimal128:
		return true
	}
	return false
}

// groupsOf sets r.gids to the group of each row of sel, making the groups
// first seen (in row order).
func (r *batchAggRun) groupsOf(sel []int32) error {
	r.gids = grown(r.gids, len(sel))
	if len(r.b.keys) == 0 {
		if len(r.order) == 0 {
			if _, err := r.newGroup(nil, 0); err != nil {
				return err
			}
		}
		clear(r.gids)
		return nil
	}
	keys := make([]keyReader, len(r.b.keys))
	packs := len(keys) <= maxPackedKeys
	for n, j := range r.b.keys {
		keys[n] = r.keyReader(j)
		packs = packs && !keys[n].generic()
	}
	if packs {
		// Short keys are looked up by their packed words first (no key
		// bytes to build and hash), each column's packed at once.
		r.words = grown(r.words, len(sel)*len(keys))
		r.packed1 = grown(r.packed1, len(sel))
		for k := range r.packed1 {
			r.packed1[k] = true
		}
		for n := range keys {
			keys[n].packAll(sel, r.words[n*len(sel):(n+1)*len(sel)], r.packed1)
		}
	}
	for k, i := range sel {
		var pk packedKey
		packed := packs && r.packed1[k]
		if packed {
			for n := range keys {
				w := r.words[n*len(sel)+k]
				pk[2*n], pk[2*n+1] = w[0], w[1]
			}
			if g := r.packed.get(pk); g >= 0 {
				r.gids[k] = g
				continue
			}
		}
		buf := r.keyBuf[:0]
		var err error
		for n := range keys {
			if buf, err = keys[n].appendKey(buf, int(i)); err != nil {
				return err
			}
		}
		r.keyBuf = buf
		g, ok := r.groups[string(buf)]
		if !ok {
			if g, err = r.newGroup(buf, int(i)); err != nil {
				return err
			}
		}
		if packed {
			r.packed.put(pk, g)
		}
		r.gids[k] = g
	}
	return nil
}

// maxPackedKeys is the most key columns a packedKey holds.
const maxPackedKeys = 2

// packedKey is a group key of short values, two words a column (keyReader.pack).
type packedKey [2 * maxPackedKeys]uint64

// packBytes is up to 8 bytes as one word (little-endian, zero-padded).
func packBytes(b []byte) uint64 {
	if len(b) == 1 {
		return uint64(b[0])
	}
	var w [8]byte
	copy(w[:], b)
	return binary.LittleEndian.Uint64(w[:])
}

// packedTable maps packed keys to groups: open addressing with linear
// probing, kept at most half full (a Go map's hashing of the 32-byte key
// was a fifth of Q1's aggregation).
type packedTable struct {
	keys []packedKey
	gids []int32 // -1: empty
	n    int
}

func (t *packedTable) slot(k packedKey) uint64 {
	h := k[0]*0x9E3779B97F4A7C15 ^ k[1]*0xC2B2AE3D27D4EB4F ^ k[2]*0x165667B19E3779F9 ^ k[3]*0x27D4EB2F165667C5
	return (h ^ h>>29) & uint64(len(t.gids)-1)
}

// get is k's group, -1 when k has none.
func (t *packedTable) get(k packedKey) int32 {
	if len(t.gids) == 0 {
		return -1
	}
	for i := t.slot(k); ; i = (i + 1) & uint64(len(t.gids)-1) {
		g := t.gids[i]
		if g < 0 || t.keys[i] == k {
			return g
		}
	}
}

// put adds k (not in t) for group g.
func (t *packedTable) put(k packedKey, g int32) {
	if 2*(t.n+1) > len(t.gids) {
		old, oldGids := t.keys, t.gids
		size := max(64, 2*len(t.gids))
		t.keys, t.gids, t.n = make([]packedKey, size), make([]int32, size), 0
		for i := range t.gids {
			t.gids[i] = -1
		}
		for i, og := range oldGids {
			if og >= 0 {
				t.put(old[i], og)
			}
		}
	}
	i := t.slot(k)
	for t.gids[i] >= 0 {
		i = (i + 1) & uint64(len(t.gids)-1)
	}
	t.keys[i], t.gids[i] = k, g
	t.n++
}

// generic reports whether the key column is read through its Go values.
func (k *keyReader) generic() bool { return k.str == nil && k.int == nil && k.date == nil }

// packAll sets words[k] to the value at row sel[k] as two words that
// equal values of the column (and only they) share: a string of up to 8
// bytes (its bytes, then its length + 1), an integer or a date (its
// value, then a tag), NULL (0, 0); a longer string clears packed[k].
func (k *keyReader) packAll(sel []int32, words [][2]uint64, packed []bool) {
	switch a := k.arr.(type) {
	case *array.String:
		offs, data := a.ValueOffsets(), a.ValueBytes()
		for n, i := range sel {
			beg, end := offs[i], offs[i+1]
			if end-beg > 8 {
				packed[n] = false
				continue
			}
			words[n] = [2]uint64{packBytes(data[beg:end]), uint64(end-beg) + 1}
		}
	case *array.Date32:
		days := a.Date32Values()
		for n, i := range sel {
			words[n] = [2]uint64{uint64(days[i]), 17}
		}
	default:
		for n, i := range sel {
			if k.int != nil {
				words[n] = [2]uint64{uint64(k.int(int(i))), 16}
				continue
			}
			s := k.str(int(i))
			if len(s) > 8 {
				packed[n] = false
				continue
			}
			words[n] = [2]uint64{packBytes([]byte(s)), uint64(len(s)) + 1}
		}
	}
	if k.arr.NullN() > 0 {
		for n, i := range sel {
			if k.arr.IsNull(int(i)) {
				words[n], packed[n] = [2]uint64{}, true
			}
		}
	}
}

// keyReader appends a key column's value at a row as appendKey encodes its
// Go value, from the Arrow value where it can.
type keyReader struct {
	arr  arrow.Array
	str  func(i int) string
	int  func(i int) int64
	date *array.Date32
	j    int
	r    *batchAggRun
}

func (r *batchAggRun) keyReader(j int) keyReader {
	arr := r.rec.Column(j)
	k := keyReader{arr: arr, j: j, r: r}
	dp := r.b.d.dp
	if f := dp.schema.Field(dp.read[j]); sqltypes.IsJSON(f) || !arrow.TypeEqual(arr.DataType(), f.Type) ||
		arr.NullN() == arr.Len() || !valuesCover(arr) {
		return k // through the Go values
	}
	switch a := arr.(type) {
	case *array.Date32:
		k.date = a
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32:
		k.int = intGetter(a)
	default:
		k.str = stringGetter(arr)
	}
	return k
}

func (k *keyReader) appendKey(buf []byte, i int) ([]byte, error) {
	if k.generic() {
		v, err := k.r.value(k.j, i)
		if err != nil {
			return nil, err
		}
		return appendKey(buf, v), nil
	}
	if k.arr.IsNull(i) {
		return append(buf, 0), nil
	}
	switch {
	case k.str != nil:
		s := k.str(i)
		buf = binary.AppendUvarint(append(buf, 's'), uint64(len(s)))
		return append(buf, s...), nil
	case k.int != nil:
		return binary.BigEndian.AppendUint64(append(buf, 'i'), uint64(k.int(i))), nil
	}
	t := time.Unix(int64(k.date.Value(i))*86400, 0).UTC()
	return binary.BigEndian.AppendUint64(append(buf, 't'), uint64(t.UnixNano())), nil
}

// newGroup adds the group of key (row i's) and charges it as the
// Aggregate operator does.
func (r *batchAggRun) newGroup(key []byte, i int) (int32, error) {
	g := int32(len(r.order))
	var vals []any
	if len(r.b.keys) > 0 {
		vals = make([]any, len(r.b.keys))
		for n, j := range r.b.keys {
			v, err := r.value(j, i)
			if err != nil {
				return 0, err
			}
			vals[n] = v
		}
		vals = cloneValues(vals)
	}
	r.groups[string(key)] = g
	r.order = append(r.order, batchGroup{keys: vals})
	r.accs = append(r.accs, make([]batchAcc, len(r.b.calls))...)
	return g, r.charge(aggGroupBytes(r.b.a) + exec.RowBytes(vals) + int64(len(key)))
}

// results are the groups' rows: keys, then each call's result over the
// batch part and the row path's state merged.
func (r *batchAggRun) results() ([][]any, error) {
	nc := len(r.b.calls)
	out := make([][]any, len(r.order))
	for g := range r.order {
		gr := &r.order[g]
		row := append(make([]any, 0, len(gr.keys)+nc), gr.keys...)
		for ci, bc := range r.b.calls {
			var st aggState
			if gr.fall != nil {
				st = gr.fall[ci]
			}
			a := r.accs[g*nc+ci]
			st.count += a.n
			if bc.kind == batchSum && a.n > 0 {
				switch {
				case st.floating:
					// Cannot arise (every value here is exact), but the
					// row path would have gone on as a DOUBLE.
					ds := decSum{}
					ds.addInt128(a.hi, a.lo, bc.num.scale)
					st.fsum += ds.float()
				default:
					if st.dec == nil {
						st.dec = &decSum{}
					}
					st.dec.addInt128(a.hi, a.lo, bc.num.scale)
				}
			}
			v, err := r.b.a.calls[ci].result(&st)
			if err != nil {
				return nil, err
			}
			row = append(row, v)
		}
		out[g] = row
	}
	return out, nil
}
