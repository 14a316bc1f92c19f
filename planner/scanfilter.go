package planner

import (
	"cmp"
	"context"
	"io"
	"iter"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// The scan of a table with its WHERE, column-wise where it can be. The
// plain scan (scanOp) turns every column it reads into Go values (a DECIMAL
// into its text, a DATE into a time.Time), and the Filter above then
// throws most of those rows away: in TPC-H's scans of lineitem that
// boxing was most of the query's time. filterScanOp evaluates the
// conjuncts of WHERE in their order over each batch of the scan: those
// comparing a column with a constant or with another column of the row
// (=, <>, <, <=, >, >=, BETWEEN, IS [NOT] NULL, [NOT] IN a list of fewer
// than 16 constants, over integer, DECIMAL, DATE, string and DOUBLE
// columns) straight on the Arrow arrays, the others on
// the Go values of just their columns; only the rows that pass get the
// rest of their columns converted (late materialization).
//
// The answers are those of the Filter over scanOp's rows: a row is dropped
// at its first FALSE conjunct, a conjunct is evaluated for every row no
// earlier one made FALSE (as AND does: after a NULL it still evaluates its
// right side, which may raise warnings), and only rows whose conjuncts are
// all TRUE come out. A column-wise comparison is the one compare makes on
// the Go values (exact for DECIMALs and integers, instants for DATEs,
// bytes for strings, compareFloat for DOUBLEs); a value it cannot compare
// in an int64 (a DECIMAL past 18 digits, scales too far apart) is compared
// through the row-wise evaluation of its conjunct.

// columnWiseFilter turns the filtered scan on (tests compare it with the
// Filter over the plain scan).
var columnWiseFilter = true

// filterConjunct is one conjunct of the WHERE of a filtered scan.
type filterConjunct struct {
	expr sqlparse.Expr
	cols []int    // the schema positions it reads
	vec  *vecTest // nil: evaluated on Go values
	n    *sqlparse.Binary
}

// vecKind is the shape of a column-wise conjunct.
type vecKind int

const (
	vecCmpConst vecKind = iota + 1 // col op constant
	vecBetween                     // col [NOT] BETWEEN constant AND constant
	vecCmpCols                     // col op col
	vecIsNull                      // col IS [NOT] NULL
	vecIn                          // col [NOT] IN (constant, ...), a short list
	vecKeySet                      // a join's key filter on col (keyfilter.go)
	vecInQuery                     // col IN (an uncorrelated subquery of integers)
)

// vecTest is a conjunct evaluated on the scan's Arrow arrays.
type vecTest struct {
	kind     vecKind
	op       sqlparse.BinaryOp // vecCmpConst, vecCmpCols: col op const / col op col2
	col      int               // schema positions
	col2     int
	consts   []sqlparse.Expr // the constants (one; two for BETWEEN)
	not      bool            // NOT BETWEEN, IS NOT NULL, NOT IN
	vals     []any           // the constants' values, once evaluated
	constErr error
	keys     *exec.KeyFilter // vecKeySet
	query    sqlparse.Expr   // vecInQuery: the IN node
	// vecInQuery: the subquery's integers, once read (inSet false: not
	// integers, the row-wise evaluation answers).
	inDone, inSet, inNull bool
	ints                  map[int64]struct{}
}

// filteredScan returns the operator of the table's scan under the Filter
// of cond (the plan's WHERE).
func (d *dataSource) filteredScan(ctx context.Context, cond sqlparse.Expr) (exec.Operator, error) {
	if d.dp.limit == 0 && !d.dp.countStar {
		return exec.Values(nil), nil // no need to open a scan
	}
	return d.newFilterScan(ctx, cond)
}

// newFilterScan opens the table's scan filtered by cond (nil: every row).
func (d *dataSource) newFilterScan(ctx context.Context, cond sqlparse.Expr) (*filterScanOp, error) {
	sc, err := d.dp.scanner(ctx)
	if err != nil {
		return nil, err
	}
	o := &filterScanOp{dp: d.dp, env: d.dp.env, sc: sc}
	o.readAt = make([]int, d.dp.schema.NumFields())
	for i := range o.readAt {
		o.readAt[i] = -1
	}
	for j, c := range d.dp.read {
		o.readAt[c] = j
	}
	for _, e := range plan.Conjuncts(cond) {
		fc := filterConjunct{expr: e, cols: o.columnsOf(e)}
		fc.vec = o.vecTestOf(e)
		if b, ok := e.(*sqlparse.Binary); ok {
			fc.n = b
		}
		o.conj = append(o.conj, fc)
	}
	// The join key filters last: WHERE's own conjuncts decide first (a
	// row they drop is dropped either way; one they make an error of
	// raises it as before).
	for _, kf := range d.dp.keyFilters {
		if o.readAt[kf.column] < 0 {
			continue
		}
		o.conj = append(o.conj, filterConjunct{cols: []int{kf.column}, vec: &vecTest{kind: vecKeySet, col: kf.column, keys: kf.filter}})
	}
	return o, nil
}

// columnsOf lists the read columns e names (its row-wise evaluation needs
// their values).
func (o *filterScanOp) columnsOf(e sqlparse.Expr) []int {
	seen := map[int]bool{}
	var cols []int
	all := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		switch x := n.(type) {
		case *sqlparse.Subquery, *sqlparse.Quantified, *sqlparse.Exists:
			all = true // a subquery may read any column of the row
		case *sqlparse.InList:
			all = all || x.Subquery != nil
		}
		if ref, ok := n.(*sqlparse.ColumnRef); ok {
			if c, err := o.env.column(ref); err == nil && c < len(o.readAt) && o.readAt[c] >= 0 && !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
		return true
	})
	if all {
		return o.dp.read
	}
	return cols
}

// readColumn is the schema position of e when it is a column the scan
// reads.
func (o *filterScanOp) readColumn(e sqlparse.Expr) (int, bool) {
	ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
	if !ok {
		return 0, false
	}
	c, err := o.env.column(ref)
	if err != nil || c < 0 || c >= len(o.readAt) || o.readAt[c] < 0 {
		return 0, false
	}
	if sqltypes.IsJSON(o.dp.schema.Field(c)) {
		return 0, false // JSON compares by its own rules (jsonOperand)
	}
	return c, true
}

// constant reports whether e is a constant operand the column-wise
// comparisons take: foldable, and not JSON-typed.
func (o *filterScanOp) constant(e sqlparse.Expr) bool {
	if !o.env.foldable(e) {
		return false
	}
	return exprColumn(o.env, e, "").DatabaseType != "JSON"
}

// flipped is op with its operands swapped (c op col as col op' c).
func flipped(op sqlparse.BinaryOp) sqlparse.BinaryOp {
	switch op {
	case sqlparse.OpLT:
		return sqlparse.OpGT
	case sqlparse.OpLE:
		return sqlparse.OpGE
	case sqlparse.OpGT:
		return sqlparse.OpLT
	case sqlparse.OpGE:
		return sqlparse.OpLE
	}
	return op
}

func isComparison(op sqlparse.BinaryOp) bool {
	switch op {
	case sqlparse.OpEQ, sqlparse.OpNE, sqlparse.OpLT, sqlparse.OpLE, sqlparse.OpGT, sqlparse.OpGE:
		return true
	}
	return false
}

// vecTestOf is the column-wise form of conjunct e, nil when it has none.
func (o *filterScanOp) vecTestOf(e sqlparse.Expr) *vecTest {
	switch n := e.(type) {
	case *sqlparse.Binary:
		if !isComparison(n.Op) {
			return nil
		}
		lc, lok := o.readColumn(n.L)
		rc, rok := o.readColumn(n.R)
		switch {
		case lok && rok:
			return &vecTest{kind: vecCmpCols, op: n.Op, col: lc, col2: rc}
		case lok && o.constant(n.R):
			return &vecTest{kind: vecCmpConst, op: n.Op, col: lc, consts: []sqlparse.Expr{n.R}}
		case rok && o.constant(n.L):
			return &vecTest{kind: vecCmpConst, op: flipped(n.Op), col: rc, consts: []sqlparse.Expr{n.L}}
		}
	case *sqlparse.Between:
		if c, ok := o.readColumn(n.X); ok && o.constant(n.Lo) && o.constant(n.Hi) {
			return &vecTest{kind: vecBetween, col: c, consts: []sqlparse.Expr{n.Lo, n.Hi}, not: n.Not}
		}
	case *sqlparse.IsNull:
		if c, ok := o.readColumn(n.X); ok {
			return &vecTest{kind: vecIsNull, col: c, not: n.Not}
		}
	case *sqlparse.InList:
		if n.Subquery != nil && !n.Not {
			// An uncorrelated subquery's integers are one set for the scan.
			if c, ok := o.readColumn(n.X); ok && intColumn(o.dp.schema.Field(c).Type) {
				if sq, ok := o.env.subq[n]; ok && len(sq.outer) == 0 {
					return &vecTest{kind: vecInQuery, col: c, query: n}
				}
			}
			return nil
		}
		// A long list is a hash set in the row-wise evaluation (inlist.go);
		// walking it per row here would be slower.
		if n.Subquery != nil || len(n.List) == 0 || len(n.List) >= inListSetMin {
			return nil
		}
		c, ok := o.readColumn(n.X)
		if !ok {
			return nil
		}
		for _, item := range n.List {
			if !o.constant(item) {
				return nil
			}
		}
		return &vecTest{kind: vecIn, col: c, consts: n.List, not: n.Not}
	}
	return nil
}

// filterScanOp is the scan of a dataPlan with its WHERE (see above). Each
// batch's rows share one freshly allocated backing array, so operators
// above may keep them.
type filterScanOp struct {
	dp     *dataPlan
	env    *rowEnv
	sc     *scan.Scanner
	conj   []filterConjunct
	readAt []int // per schema position, its position among the read columns (-1: not read)
	next   func() (arrow.RecordBatch, error, bool)
	pulled
	pos     int // next row of rec
	readers []sqltypes.ValueReader
	caches  []valueCache               // per read column, across batches (valuecache.go)
	tests   []func(i int) (int8, bool) // per conjunct, this batch's column-wise test (nil: row-wise)
	scratch []any                      // a row for the row-wise evaluation of single rows
	// Per chunk of the batch: the rows no conjunct made FALSE, whether
	// one made them NULL, and their rows of Go values (slot) once some
	// column of theirs is converted.
	alive  []int32
	null   []bool
	slots  []int32
	slab   []any
	filled []bool // per read column: converted for the rows holding slots
	out    [][]any
}

func (o *filterScanOp) Next(ctx context.Context) ([][]any, error) {
	for {
		if err := o.selectNext(ctx); err != nil {
			return nil, err
		}
		if len(o.alive) == 0 {
			continue
		}
		rows, err := o.rows()
		if err != nil {
			o.fail(err)
			return nil, err
		}
		return rows, nil
	}
}

// selectNext filters the next chunk of the scan: o.rec is then its record
// batch and o.alive the rows of it every conjunct made TRUE (maybe none).
// Its error (io.EOF after the last batch) ends the operator.
func (o *filterScanOp) selectNext(ctx context.Context) error {
	if o.err != nil {
		return o.err
	}
	if o.next == nil {
		o.readers = make([]sqltypes.ValueReader, len(o.dp.read))
		o.caches = make([]valueCache, len(o.dp.read))
		o.tests = make([]func(int) (int8, bool), len(o.conj))
		o.scratch = make([]any, o.dp.schema.NumFields())
		o.filled = make([]bool, len(o.dp.read))
		if err := o.sc.SetFilter(o.rowFilter(ctx)); err != nil {
			o.fail(err)
			return err
		}
		o.next, o.stop = iter.Pull2(o.sc.Records(ctx))
	}
	if err := ctx.Err(); err != nil {
		o.fail(err)
		return err
	}
	for o.rec == nil || o.pos >= int(o.rec.NumRows()) {
		rec, err, ok := o.next()
		if !ok {
			o.fail(io.EOF)
			return io.EOF
		}
		if err != nil {
			o.fail(err)
			return err
		}
		if err := o.bind(rec); err != nil {
			o.fail(err)
			return err
		}
		o.rec, o.pos = rec, 0
	}
	n := min(int(o.rec.NumRows())-o.pos, filterChunkRows)
	err := o.filterChunk(o.pos, o.pos+n)
	o.pos += n
	if err != nil {
		o.fail(err)
		return err
	}
	return nil
}

// filterChunkRows is how many rows of a record batch the filtered scan
// handles at once (exec.BatchSize, the most an operator returns).
const filterChunkRows = 1024

// bind makes the readers and column-wise tests of a new record batch.
func (o *filterScanOp) bind(rec arrow.RecordBatch) error {
	for j, c := range o.dp.read {
		r, err := cachedReaderFor(&o.caches[j], o.dp.schema.Field(c), rec.Column(j))
		if err != nil {
			return err
		}
		o.readers[j] = r
	}
	for k := range o.conj {
		o.tests[k] = nil
		if t := o.conj[k].vec; t != nil {
			f, err := o.bindTest(t, rec, k)
			if err != nil {
				return err
			}
			o.tests[k] = f
		}
	}
	return nil
}

// filterChunk filters rows [from, to) of the batch: o.alive is then the
// rows that pass.
func (o *filterScanOp) filterChunk(from, to int) error {
	o.alive, o.null = o.alive[:0], o.null[:0]
	for i := from; i < to; i++ {
		o.alive = append(o.alive, int32(i))
		o.null = append(o.null, false)
	}
	o.slots, o.slab = o.slots[:0], nil
	clear(o.filled)
	for k := range o.conj {
		if len(o.alive) == 0 {
			return nil
		}
		var err error
		if f := o.tests[k]; f != nil {
			err = o.filterVec(k, f)
		} else {
			err = o.filterRows(k)
		}
		if err != nil {
			return err
		}
	}
	// Only the rows every conjunct made TRUE.
	w := 0
	for a := range o.alive {
		if o.null[a] {
			continue
		}
		o.alive[w] = o.alive[a]
		if o.slab != nil {
			o.slots[w] = o.slots[a]
		}
		w++
	}
	o.alive, o.null = o.alive[:w], o.null[:w]
	if o.slab != nil {
		o.slots = o.slots[:w]
	}
	return nil
}

// rows converts all read columns of the alive rows and returns their rows.
func (o *filterScanOp) rows() ([][]any, error) {
	for j := range o.dp.read {
		if err := o.fill(j); err != nil {
			return nil, err
		}
	}
	width := o.dp.schema.NumFields()
	o.out = o.out[:0]
	for a := range o.alive {
		s := int(o.slots[a])
		o.out = append(o.out, o.slab[s*width:(s+1)*width:(s+1)*width])
	}
	return o.out, nil
}

// keep drops the alive rows whose result is FALSE and marks those whose
// result is NULL.
func (o *filterScanOp) keep(result func(a int) (int8, error)) error {
	w := 0
	for a := range o.alive {
		t, err := result(a)
		if err != nil {
			return err
		}
		if t == 0 {
			continue
		}
		o.alive[w], o.null[w] = o.alive[a], o.null[a] || t < 0
		if o.slab != nil {
			o.slots[w] = o.slots[a]
		}
		w++
	}
	o.alive, o.null = o.alive[:w], o.null[:w]
	if o.slab != nil {
		o.slots = o.slots[:w]
	}
	return nil
}

// filterVec applies conjunct k's column-wise test; a row it cannot decide
// is evaluated row-wise.
func (o *filterScanOp) filterVec(k int, f func(i int) (int8, bool)) error {
	return o.keep(func(a int) (int8, error) {
		i := int(o.alive[a])
		if t, ok := f(i); ok {
			return t, nil
		}
		return o.evalOne(k, i)
	})
}

// evalOne evaluates conjunct k on row i alone.
func (o *filterScanOp) evalOne(k, i int) (int8, error) {
	for _, c := range o.conj[k].cols {
		v, err := o.readers[o.readAt[c]](i)
		if err != nil {
			return 0, err
		}
		o.scratch[c] = v
	}
	v, err := o.env.eval(o.conj[k].expr, o.scratch)
	if err != nil {
		return 0, err
	}
	return int8(truth(v)), nil
}

// filterRows evaluates conjunct k on the Go values of the alive rows.
func (o *filterScanOp) filterRows(k int) error {
	o.giveRows() // also when it names no column of the row (an outer one)
	for _, c := range o.conj[k].cols {
		if err := o.fill(o.readAt[c]); err != nil {
			return err
		}
	}
	width := o.dp.schema.NumFields()
	return o.keep(func(a int) (int8, error) {
		s := int(o.slots[a])
		v, err := o.env.eval(o.conj[k].expr, o.slab[s*width:(s+1)*width:(s+1)*width])
		if err != nil {
			return 0, err
		}
		return int8(truth(v)), nil
	})
}

// fill converts read column j for the alive rows, giving them their rows
// first if they have none yet.
func (o *filterScanOp) fill(j int) error {
	width := o.dp.schema.NumFields()
	o.giveRows()
	if o.filled[j] {
		return nil
	}
	o.filled[j] = true
	c, r := o.dp.read[j], o.readers[j]
	for a, i := range o.alive {
		v, err := r(int(i))
		if err != nil {
			return err
		}
		o.slab[int(o.slots[a])*width+c] = v
	}
	return nil
}

// giveRows gives the alive rows their rows of Go values, if they have
// none yet.
func (o *filterScanOp) giveRows() {
	if o.slab != nil {
		return
	}
	o.slab = make([]any, len(o.alive)*o.dp.schema.NumFields())
	o.slots = o.slots[:0]
	for a := range o.alive {
		o.slots = append(o.slots, int32(a))
	}
}

// bindTest makes t's test over rec: per row 1 TRUE, 0 FALSE, -1 NULL, or
// ok false for a row to evaluate row-wise. It returns nil (the whole
// conjunct row-wise for this batch) when the column's type and the
// constants' values have no column-wise comparison.
func (o *filterScanOp) bindTest(t *vecTest, rec arrow.RecordBatch, k int) (func(i int) (int8, bool), error) {
	arr := rec.Column(o.readAt[t.col])
	switch t.kind {
	case vecKeySet:
		return keySetTest(arr, t.keys), nil
	case vecInQuery:
		return o.inQueryTest(arr, t), nil
	}
	var arr2 arrow.Array
	if t.kind == vecCmpCols {
		arr2 = rec.Column(o.readAt[t.col2])
	}
	o.evalConsts(t)
	return pureTest(t, arr, arr2), nil
}

// evalConsts evaluates t's constants once (an error is kept in
// t.constErr: the row-wise evaluation reports it).
func (o *filterScanOp) evalConsts(t *vecTest) {
	if t.vals != nil || t.constErr != nil {
		return
	}
	for _, e := range t.consts {
		v, err := o.env.eval(e, o.scratch)
		if err != nil {
			t.constErr = err
			break
		}
		t.vals = append(t.vals, v)
	}
}

// pureTest is the test of t (not a key filter nor a subquery; constants
// evaluated) over the column arr (and arr2 for vecCmpCols), nil when it has
// no column-wise form. It reads only the arrays and t's values, so it may
// run on another goroutine (the scan's row filter, latemat.go).
func pureTest(t *vecTest, arr, arr2 arrow.Array) func(i int) (int8, bool) {
	switch t.kind {
	case vecIsNull:
		not := t.not
		return func(i int) (int8, bool) {
			if arr.IsNull(i) != not {
				return 1, true
			}
			return 0, true
		}
	case vecCmpCols:
		c := columnsComparer(arr, arr2)
		if c == nil {
			return nil
		}
		test := cmpTest(t.op)
		return func(i int) (int8, bool) {
			if arr.IsNull(i) || arr2.IsNull(i) {
				return -1, true
			}
			r, ok := c(i)
			if !ok {
				return 0, false
			}
			return boolTruth(test(r)), true
		}
	}
	if t.constErr != nil {
		return nil // the row-wise evaluation reports it, as before
	}
	if t.kind == vecIn {
		return inTest(arr, t.vals, t.not)
	}
	for _, v := range t.vals {
		if v == nil {
			return func(int) (int8, bool) { return -1, true }
		}
	}
	cs := make([]func(i int) (int, bool), len(t.vals))
	for n, v := range t.vals {
		if cs[n] = constComparer(arr, v); cs[n] == nil {
			return nil
		}
	}
	if t.kind == vecBetween {
		lo, hi, not := cs[0], cs[1], t.not
		return func(i int) (int8, bool) {
			if arr.IsNull(i) {
				return -1, true
			}
			l, ok := lo(i)
			if !ok {
				return 0, false
			}
			h, ok := hi(i)
			if !ok {
				return 0, false
			}
			return boolTruth((l >= 0 && h <= 0) != not), true
		}
	}
	c, test := cs[0], cmpTest(t.op)
	return func(i int) (int8, bool) {
		if arr.IsNull(i) {
			return -1, true
		}
		r, ok := c(i)
		if !ok {
			return 0, false
		}
		return boolTruth(test(r)), true
	}
}

// inTest is x [NOT] IN (vals) over the column arr, as the row-wise
// evaluation has it: NULL for a NULL x; TRUE (FALSE for NOT IN) at the
// first item x equals by compare; else NULL when an item is NULL, FALSE
// (TRUE) otherwise. nil when some item has no column-wise comparison.
func inTest(arr arrow.Array, vals []any, not bool) func(i int) (int8, bool) {
	hit, miss := boolTruth(!not), boolTruth(not)
	sawNull := false
	var items []any
	for _, v := range vals {
		if v == nil {
			sawNull = true
			continue
		}
		items = append(items, v)
	}
	if sawNull {
		miss = -1
	}
	// Strings against string items, the common case (TPC-H's l_shipmode
	// IN ('MAIL', 'SHIP')): one read of the value, byte-wise equality
	// (compare's order of two strings, so = 0 exactly when equal).
	if get := stringGetter(arr); get != nil {
		strs := make([]string, 0, len(items))
		for _, v := range items {
			s, ok := v.(string)
			if !ok {
				strs = nil
				break
			}
			strs = append(strs, s)
		}
		if len(strs) == len(items) {
			return func(i int) (int8, bool) {
				if arr.IsNull(i) {
					return -1, true
				}
				s := get(i)
				for _, w := range strs {
					if s == w {
						return hit, true
					}
				}
				return miss, true
			}
		}
	}
	cs := make([]func(i int) (int, bool), len(items))
	for n, v := range items {
		if cs[n] = constComparer(arr, v); cs[n] == nil {
			return nil
		}
	}
	return func(i int) (int8, bool) {
		if arr.IsNull(i) {
			return -1, true
		}
		for _, c := range cs {
			r, ok := c(i)
			if !ok {
				return 0, false
			}
			if r == 0 {
				return hit, true
			}
		}
		return miss, true
	}
}

func boolTruth(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// cmpTest is the test of a comparison operator on compare's result.
func cmpTest(op sqlparse.BinaryOp) func(c int) bool {
	switch op {
	case sqlparse.OpEQ:
		return func(c int) bool { return c == 0 }
	case sqlparse.OpNE:
		return func(c int) bool { return c != 0 }
	case sqlparse.OpLT:
		return func(c int) bool { return c < 0 }
	case sqlparse.OpLE:
		return func(c int) bool { return c <= 0 }
	case sqlparse.OpGT:
		return func(c int) bool { return c > 0 }
	}
	return func(c int) bool { return c >= 0 }
}

// intGetter reads an integer column whose Go values are int64 (what
// sqltypes.Reader makes of these types), nil for other arrays.
func intGetter(arr arrow.Array) func(i int) int64 {
	switch a := arr.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int64:
		return a.Value
	case *array.Uint8:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Uint16:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Uint32:
		return func(i int) int64 { return int64(a.Value(i)) }
	}
	return nil
}

// decimalGetter reads a DECIMAL column as int64 unscaled values and its
// scale; ok is false for a value past an int64.
func decimalGetter(arr arrow.Array) (get func(i int) (int64, bool), scale int) {
	a, isDec := arr.(*array.Decimal128)
	if !isDec {
		return nil, 0
	}
	t := a.DataType().(*arrow.Decimal128Type)
	if t.Scale < 0 || t.Scale > t.Precision || t.Precision > 38 {
		return nil, 0
	}
	return func(i int) (int64, bool) {
		v := a.Value(i)
		hi, lo := v.HighBits(), v.LowBits()
		if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
			return int64(lo), true
		}
		return 0, false
	}, int(t.Scale)
}

// stringGetter reads a string column (nil for other arrays).
func stringGetter(arr arrow.Array) func(i int) string {
	switch a := arr.(type) {
	case *array.String:
		return a.Value
	case *array.LargeString:
		return a.Value
	case *array.StringView:
		return a.Value
	}
	return nil
}

// cmpScaled compares a/10^as with b/10^bs exactly; ok is false when the
// rescaling passes an int64.
func cmpScaled(a int64, as int, b int64, bs int) (int, bool) {
	for as < bs {
		d := min(bs-as, maxSmallDigits)
		p := pow10s[d]
		if a > math.MaxInt64/p || a < math.MinInt64/p {
			return 0, false
		}
		a, as = a*p, as+d
	}
	for bs < as {
		d := min(as-bs, maxSmallDigits)
		p := pow10s[d]
		if b > math.MaxInt64/p || b < math.MinInt64/p {
			return 0, false
		}
		b, bs = b*p, bs+d
	}
	return cmp.Compare(a, b), true
}

// exactConst is v as an int64 unscaled value and its scale, for an integer
// or a DECIMAL of at most 18 digits.
func exactConst(v any) (int64, int, bool) {
	switch x := v.(type) {
	case int64:
		return x, 0, true
	case sqltypes.Decimal:
		return parseSmallDecimal(string(x))
	}
	return 0, 0, false
}

// constComparer returns compare(value of arr at i, v) for the column
// types and constants it knows (nil otherwise; ok false for a value to
// compare row-wise).
func constComparer(arr arrow.Array, v any) func(i int) (int, bool) {
	if get := intGetter(arr); get != nil {
		u, s, ok := exactConst(v)
		if !ok {
			return nil
		}
		if s == 0 {
			return func(i int) (int, bool) { return cmp.Compare(get(i), u), true }
		}
		return func(i int) (int, bool) { return cmpScaled(get(i), 0, u, s) }
	}
	if get, scale := decimalGetter(arr); get != nil {
		u, s, ok := exactConst(v)
		if !ok {
			return nil
		}
		return func(i int) (int, bool) {
			x, ok := get(i)
			if !ok {
				return 0, false
			}
			return cmpScaled(x, scale, u, s)
		}
	}
	switch a := arr.(type) {
	case *array.Date32:
		tm, ok := v.(time.Time)
		if !ok {
			return nil
		}
		// compare orders times by instant: the column's is midnight UTC.
		sec, frac := tm.Unix(), tm.Nanosecond()
		return func(i int) (int, bool) {
			c := cmp.Compare(int64(a.Value(i))*86400, sec)
			if c == 0 && frac != 0 {
				c = -1
			}
			return c, true
		}
	case *array.Float64:
		f, ok := v.(float64)
		if !ok {
			return nil
		}
		return func(i int) (int, bool) { return compareFloat(a.Value(i), f), true }
	}
	if get := stringGetter(arr); get != nil {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		return func(i int) (int, bool) { return cmpString(get(i), s), true }
	}
	return nil
}

// cmpString is strings.Compare (compare's order of two strings).
func cmpString(a, b string) int { return cmp.Compare(a, b) }

// columnsComparer returns compare(a at i, b at i) for two columns of the
// same kind (nil otherwise).
func columnsComparer(a, b arrow.Array) func(i int) (int, bool) {
	if ga, gb := intGetter(a), intGetter(b); ga != nil && gb != nil {
		return func(i int) (int, bool) { return cmp.Compare(ga(i), gb(i)), true }
	}
	if da, ok := a.(*array.Date32); ok {
		db, ok := b.(*array.Date32)
		if !ok {
			return nil
		}
		return func(i int) (int, bool) { return cmp.Compare(da.Value(i), db.Value(i)), true }
	}
	if sa, sb := stringGetter(a), stringGetter(b); sa != nil && sb != nil {
		return func(i int) (int, bool) { return cmpString(sa(i), sb(i)), true }
	}
	if fa, ok := a.(*array.Float64); ok {
		if fb, ok := b.(*array.Float64); ok {
			return func(i int) (int, bool) { return compareFloat(fa.Value(i), fb.Value(i)), true }
		}
	}
	return nil
}

// inQueryTest is col IN (subquery) over the integer column arr when the
// subquery's values are integers (and NULLs), as the row-wise evaluation
// has it: NULL for a NULL col (FALSE when the subquery has no rows), TRUE
// for a value in the set, else NULL when the set holds a NULL, FALSE
// otherwise. nil (the row-wise evaluation) for other results, or when the
// subquery fails (that evaluation reports it).
func (o *filterScanOp) inQueryTest(arr arrow.Array, t *vecTest) func(i int) (int8, bool) {
	if !t.inDone {
		t.inDone = true
		if res, err := o.env.subqueryOf(t.query, o.scratch); err == nil {
			t.ints, t.inNull, t.inSet = intList(res.list)
		}
	}
	get := intGetter(arr)
	if !t.inSet || get == nil {
		return nil
	}
	ints, miss := t.ints, int8(0)
	if t.inNull {
		miss = -1
	}
	return func(i int) (int8, bool) {
		if arr.IsNull(i) {
			return -1, true
		}
		if _, in := ints[get(i)]; in {
			return 1, true
		}
		return miss, true
	}
}
