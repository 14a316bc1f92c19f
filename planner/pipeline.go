package planner

import (
	"container/heap"
	"context"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// selectPipeline is the evaluation every SELECT shares, whatever produces
// its rows (a table's scan, an information_schema view, the one row of a
// SELECT without FROM): WHERE on each row, then COUNT, or ORDER BY (a top-k
// heap of LIMIT+OFFSET rows under a LIMIT, else a sort within the budget
// maxRows), OFFSET and LIMIT, and the projection of the select list. Rows
// are laid out as env describes them; a source may reuse one row slice
// between yields (rows kept for sorting are cloned).
//
// Without ORDER BY, rows stream to the consumer as they are pulled, with no
// cap. A computed select item that evaluates to a boolean yields the
// integer 1 or 0 (MySQL booleans are integers); a BOOLEAN column stays a
// boolean.
type selectPipeline struct {
	env     *rowEnv // the source's row layout
	where   sqlparse.Expr
	fields  []selectField // the select list (empty for COUNT)
	outCols []Column
	// countStar: the result is one row, COUNT(*) (countArg nil) or
	// COUNT(countArg) (rows where it is not NULL).
	countStar bool
	countArg  sqlparse.Expr
	order     []orderKey
	// orderCols holds, per ORDER BY key, its row position when it is a
	// plain column, else -1 (resolved on first use); orderDecimal marks
	// the keys that are DECIMAL columns, whose exact text compares
	// numerically (compareDecimalText), not as strings.
	orderCols    []int
	orderDecimal []bool
	limit        int64 // -1: none
	offset       int64
	// pushLimit: the source applies OFFSET and LIMIT itself (pushed into a
	// scan when nothing filters or orders).
	pushLimit  bool
	maxRows    int    // sort budget (rows)
	sortMemory int64  // Options.SortMemory: bytes a sort buffers before spilling
	spillDir   string // Options.SpillDir
	noSpill    bool   // Options.NoSpill: fail at the budget instead
	// keep lists the row positions a spilled sort writes (nil: all); the
	// others are nil in rows read back.
	keep   []int
	source string // names the source in errors
	// identity: the pipeline only sorts (the operator of a plan.Sort,
	// tree.go); rows come out whole, the select list is a node above.
	identity bool
	// agg, when set, folds the matching rows into groups and hands them to
	// its own pipeline (aggregate.go); the fields above past WHERE are
	// unused.
	agg *aggStage
}

// selectField is one item of the select list.
type selectField struct {
	col  Column
	expr sqlparse.Expr
}

// orderKey is one ORDER BY key.
type orderKey struct {
	expr sqlparse.Expr
	desc bool
}

// resultColumns describes the result's columns.
func (p *selectPipeline) resultColumns() []Column { return p.outCols }

func (p *selectPipeline) tooMany() error {
	return errorf(catalog.CodeInvalidInput, "ORDER BY over %s would sort more than %d rows in memory (Options.MaxRows, the sort budget); add a LIMIT (a top-k keeps only LIMIT+OFFSET rows) or a narrower WHERE", p.source, p.maxRows)
}

// execute runs the pipeline over the rows of a source.
func (p *selectPipeline) execute(ctx context.Context, rows iter.Seq2[[]any, error]) (*Result, error) {
	p.env.ctx = ctx
	switch {
	case p.agg != nil:
		return p.agg.run(ctx, p.env, p.matching(ctx, rows))
	case p.countStar:
		var count int64
		for row, err := range p.matching(ctx, rows) {
			if err != nil {
				return nil, err
			}
			if p.countArg != nil {
				v, err := p.env.eval(p.countArg, row)
				if err != nil {
					return nil, err
				}
				if v == nil {
					continue
				}
			}
			count++
		}
		return rowsResult(p.outCols, [][]any{{count}}), nil
	case p.limit == 0:
		return rowsResult(p.outCols, nil), nil
	case len(p.order) == 0:
		return streamResult(p.outCols, p.stream(ctx, rows)), nil
	case p.limit >= 0 && p.limit+p.offset <= int64(p.maxRows):
		return p.topK(ctx, rows)
	}
	return p.sortAll(ctx, rows)
}

// matching yields the rows that satisfy WHERE.
func (p *selectPipeline) matching(ctx context.Context, rows iter.Seq2[[]any, error]) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		n := 0
		for row, err := range rows {
			if n++; err == nil && n%1024 == 0 { // ctx.Err takes a lock: not on every row
				err = ctx.Err()
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if p.where != nil {
				ok, err := p.env.matches(p.where, row)
				if err != nil {
					yield(nil, err)
					return
				}
				if !ok {
					continue
				}
			}
			if !yield(row, nil) {
				return
			}
		}
	}
}

// project evaluates the select list on a row.
func (p *selectPipeline) project(row []any) ([]any, error) {
	if p.identity {
		return slices.Clone(row), nil // a Sort node's rows pass whole (tree.go)
	}
	out := make([]any, len(p.fields))
	for j, f := range p.fields {
		v, err := p.env.eval(f.expr, row)
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case bool:
			if _, column := f.expr.(*sqlparse.ColumnRef); !column {
				v = int64(0)
				if x {
					v = int64(1)
				}
			}
		case sqltypes.Decimal:
			v = string(x) // a DECIMAL's value is its text, as a DECIMAL column's
		}
		out[j] = v
	}
	return out, nil
}

// streamBatch is the number of rows a streamed result hands over at a time.
const streamBatch = 1024

// stream yields the projected matching rows in source order, applying
// OFFSET and LIMIT unless the source already did.
func (p *selectPipeline) stream(ctx context.Context, rows iter.Seq2[[]any, error]) iter.Seq2[[][]any, error] {
	return func(yield func([][]any, error) bool) {
		var skip, left int64 = 0, -1
		if !p.pushLimit {
			skip, left = p.offset, p.limit
		}
		batch := make([][]any, 0, streamBatch)
		for row, err := range p.matching(ctx, rows) {
			if err != nil {
				yield(nil, err)
				return
			}
			if skip > 0 {
				skip--
				continue
			}
			out, err := p.project(row)
			if err != nil {
				yield(nil, err)
				return
			}
			batch = append(batch, out)
			if left > 0 {
				left--
			}
			if left == 0 {
				break
			}
			if len(batch) == streamBatch {
				if !yield(batch, nil) {
					return
				}
				batch = make([][]any, 0, streamBatch)
			}
		}
		if len(batch) > 0 {
			yield(batch, nil)
		}
	}
}

// sortedRow is a matching row kept for ORDER BY: its sort keys and its
// arrival number (ties keep source order, as a stable sort does).
type sortedRow struct {
	row  []any
	keys []any
	seq  int64
}

// keyed evaluates the ORDER BY keys of a row, keeping a copy of the row.
func (p *selectPipeline) keyed(row []any, seq int64) (sortedRow, error) {
	keys := make([]any, len(p.order))
	if err := p.keysInto(keys, row); err != nil {
		return sortedRow{}, err
	}
	return sortedRow{row: slices.Clone(row), keys: keys, seq: seq}, nil
}

// keysInto evaluates the ORDER BY keys of row into dst. A key that is a
// plain column is read from its position, resolved once (orderCols).
func (p *selectPipeline) keysInto(dst, row []any) error {
	if p.orderCols == nil {
		p.resolveOrderColumns()
	}
	for i, o := range p.order {
		if c := p.orderCols[i]; c >= 0 {
			dst[i] = p.env.jsonOperand(o.expr, row[c])
			continue
		}
		v, err := p.env.eval(o.expr, row)
		if err != nil {
			return err
		}
		// A JSON key (ORDER BY doc->'$.age') sorts by its scalar, numbers
		// numerically, as in MySQL.
		dst[i] = p.env.jsonOperand(o.expr, v)
	}
	return nil
}

// resolveOrderColumns sets orderCols and orderDecimal.
func (p *selectPipeline) resolveOrderColumns() {
	p.orderCols = make([]int, len(p.order))
	p.orderDecimal = make([]bool, len(p.order))
	for i, o := range p.order {
		p.orderCols[i] = -1
		if ref, ok := o.expr.(*sqlparse.ColumnRef); ok {
			if c, err := p.env.column(ref); err == nil {
				p.orderCols[i] = c
				p.orderDecimal[i] = strings.HasPrefix(strings.ToUpper(p.env.cols[c].DatabaseType), "DECIMAL")
			}
		}
	}
}

// less orders rows by the ORDER BY keys (NULLs first), then arrival.
func (p *selectPipeline) less(a, b sortedRow) bool {
	if p.orderCols == nil {
		p.resolveOrderColumns()
	}
	for i, o := range p.order {
		var c int
		as, aok := a.keys[i].(string)
		bs, bok := b.keys[i].(string)
		if p.orderDecimal[i] && aok && bok {
			c = compareDecimalText(as, bs)
		} else {
			c = compareNullsFirst(a.keys[i], b.keys[i])
		}
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.seq < b.seq
}

// worstFirst is a heap whose top is the row that sorts last.
type worstFirst struct {
	p    *selectPipeline
	rows []sortedRow
}

func (h *worstFirst) Len() int           { return len(h.rows) }
func (h *worstFirst) Less(i, j int) bool { return h.p.less(h.rows[j], h.rows[i]) }
func (h *worstFirst) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *worstFirst) Push(x any)         { h.rows = append(h.rows, x.(sortedRow)) }
func (h *worstFirst) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// topK answers ORDER BY ... LIMIT n OFFSET m keeping n+m rows in a heap.
// A row is copied only when it enters the heap, into the slices of the row
// it evicts once the heap is full. When the heap's rows pass the sort
// memory budget (Options.SortMemory; a large LIMIT+OFFSET of wide rows),
// it hands its rows and the rest of the input to the spilling sort, which
// keeps at most n+m rows of each run it writes.
func (p *selectPipeline) topK(ctx context.Context, rows iter.Seq2[[]any, error]) (*Result, error) {
	k := int(p.limit + p.offset)
	h := &worstFirst{p: p, rows: make([]sortedRow, 0, min(k, 4096))}
	keys := make([]any, len(p.order))
	var seq, heapBytes int64
	var ext *externalSort // set once the heap passed the budget
	budget := !p.noSpill && p.sortMemory > 0
	for row, err := range p.matching(ctx, rows) {
		if err != nil {
			if ext != nil {
				return ext.fail(err)
			}
			return nil, err
		}
		if ext != nil {
			if err := ext.add(row, seq); err != nil {
				return ext.fail(err)
			}
			seq++
			continue
		}
		if err := p.keysInto(keys, row); err != nil {
			return nil, err
		}
		cand := sortedRow{row: row, keys: keys, seq: seq}
		seq++
		if h.Len() < k {
			heap.Push(h, sortedRow{row: slices.Clone(row), keys: slices.Clone(keys), seq: cand.seq})
			heapBytes += sortedRowBytes(row, keys)
		} else if p.less(cand, h.rows[0]) {
			top := &h.rows[0]
			heapBytes -= sortedRowBytes(top.row, top.keys)
			top.row = append(top.row[:0], row...)
			top.keys = append(top.keys[:0], keys...)
			top.seq = cand.seq
			heapBytes += sortedRowBytes(top.row, top.keys)
			heap.Fix(h, 0)
		}
		if budget && heapBytes >= p.sortMemory {
			ext = &externalSort{p: p, kept: h.rows, bytes: heapBytes}
			h = nil
		}
	}
	if ext != nil {
		return ext.result()
	}
	return p.finish(h.rows)
}

// sortAll answers ORDER BY without a top-k: in memory up to the sort
// budget, beyond it through sorted runs on disk (spill.go) unless noSpill.
func (p *selectPipeline) sortAll(ctx context.Context, rows iter.Seq2[[]any, error]) (*Result, error) {
	ext := &externalSort{p: p}
	var seq int64
	for row, err := range p.matching(ctx, rows) {
		if err != nil {
			return ext.fail(err)
		}
		if err := ext.add(row, seq); err != nil {
			return ext.fail(err)
		}
		seq++
	}
	return ext.result()
}

// externalSort buffers keyed rows up to the sort budget (maxRows rows,
// sortMemory bytes) and writes each full buffer as a sorted run on disk
// (unless noSpill, which fails at the row budget instead).
type externalSort struct {
	p     *selectPipeline
	kept  []sortedRow
	bytes int64
	sp    *spiller
}

// add buffers a copy of row, arrival number seq, spilling the buffer first
// when it is full.
func (e *externalSort) add(row []any, seq int64) error {
	p := e.p
	if len(e.kept) >= p.maxRows || (!p.noSpill && p.sortMemory > 0 && e.bytes >= p.sortMemory) {
		if p.noSpill {
			return p.tooMany()
		}
		if e.sp == nil {
			e.sp = &spiller{p: p, spillFiles: spillFiles{base: p.spillDirectory()}}
		}
		if err := e.sp.writeRun(e.kept); err != nil {
			return err
		}
		e.kept, e.bytes = e.kept[:0], 0
	}
	r, err := p.keyed(row, seq)
	if err != nil {
		return err
	}
	e.kept = append(e.kept, r)
	e.bytes += rowBytes(row) + int64(24+16*len(r.keys)) // key values share the row's
	return nil
}

// fail removes any runs written and returns err.
func (e *externalSort) fail(err error) (*Result, error) {
	if e.sp != nil {
		e.sp.remove()
	}
	return nil, err
}

// result sorts in memory when nothing spilled, else writes the last run
// and streams the merge of the runs.
func (e *externalSort) result() (*Result, error) {
	if e.sp == nil {
		return e.p.finish(e.kept)
	}
	if len(e.kept) > 0 {
		if err := e.sp.writeRun(e.kept); err != nil {
			return e.fail(err)
		}
	}
	return streamResult(e.p.outCols, e.sp.merge()), nil
}

// sortedRowBytes estimates the memory of a heap row: the row and its own
// copy of the keys.
func sortedRowBytes(row, keys []any) int64 {
	return rowBytes(row) + rowBytes(keys)
}

// rowBytes estimates the memory a buffered row holds: its slot slice and
// the values boxed in it.
func rowBytes(row []any) int64 {
	n := int64(48 + 16*len(row))
	for _, v := range row {
		switch x := v.(type) {
		case nil, bool:
		case string:
			n += 16 + int64(len(x))
		case []byte:
			n += 24 + int64(len(x))
		case time.Time:
			n += 24
		default:
			n += 8
		}
	}
	return n
}

// cmpRows is less as a three-way comparison.
func (p *selectPipeline) cmpRows(a, b sortedRow) int {
	switch {
	case p.less(a, b):
		return -1
	case p.less(b, a):
		return 1
	}
	return 0
}

// sortRows sorts rows by ORDER BY, giving up (with the context's error)
// soon after the statement's context ends: the comparisons check it every
// 4,096 calls and, once it has ended, return 0 so the sort runs out fast.
func (p *selectPipeline) sortRows(rows []sortedRow) error {
	ctx := p.env.ctx
	if ctx == nil {
		slices.SortFunc(rows, p.cmpRows)
		return nil
	}
	calls, stopped := 0, false
	slices.SortFunc(rows, func(a, b sortedRow) int {
		if stopped {
			return 0
		}
		if calls++; calls&4095 == 0 && ctx.Err() != nil {
			stopped = true
			return 0
		}
		return p.cmpRows(a, b)
	})
	if stopped {
		return ctx.Err()
	}
	return nil
}

// finish sorts rows, applies OFFSET and LIMIT and projects.
func (p *selectPipeline) finish(rows []sortedRow) (*Result, error) {
	if err := p.sortRows(rows); err != nil {
		return nil, err
	}
	if p.offset > 0 {
		rows = rows[min(int64(len(rows)), p.offset):]
	}
	if p.limit >= 0 && int64(len(rows)) > p.limit {
		rows = rows[:p.limit]
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		o, err := p.project(r.row)
		if err != nil {
			return nil, err
		}
		out[i] = o
	}
	return rowsResult(p.outCols, out), nil
}

// sliceRows is a source over materialized rows.
func sliceRows(rows [][]any) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// newPipeline starts the pipeline of a query over source (named in errors):
// no LIMIT, the session's sort budget and spill settings.
func (s *Session) newPipeline(source string) selectPipeline {
	p := selectPipeline{limit: -1, maxRows: s.opts.MaxRows, sortMemory: s.opts.SortMemory,
		spillDir: s.opts.SpillDir, noSpill: s.opts.NoSpill, source: source}
	if p.maxRows <= 0 {
		p.maxRows = DefaultMaxRows
	}
	return p
}
