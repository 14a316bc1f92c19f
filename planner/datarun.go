package planner

import (
	"container/heap"
	"context"
	"errors"
	"iter"
	"slices"
	"time"

	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/scan"
)

// Execution of a dataPlan. Rows come from one lance/scan scanner over the
// table's version: the columns the query uses, LIMIT/OFFSET pushed into it
// when nothing else filters or orders, and at most one WHERE conjunct
// pushed as a scan predicate through the index the IndexLookup names. The
// planner then evaluates the whole WHERE on every row it receives.
//
// Results stream: without ORDER BY, rows are produced batch by batch as
// the consumer pulls them, with no cap. ORDER BY with LIMIT keeps a top-k
// heap of LIMIT+OFFSET rows. A full ORDER BY sorts in memory within the
// sort budget (Options.MaxRows rows and Options.SortMemory bytes); beyond
// it, sorted runs spill to temporary files that are merged as the result streams
// (spill.go), or, with Options.NoSpill, the query fails with
// CodeInvalidInput.

// run executes the plan.
func (p *dataPlan) run(ctx context.Context, s *Session) (*Result, error) {
	if p.countStar && p.where == nil && p.countCol < 0 {
		n, err := p.ds.CountRows(ctx)
		if err != nil {
			return nil, err
		}
		return rowsResult(p.outCols, [][]any{{int64(n)}}), nil
	}
	if p.limit == 0 && !p.countStar {
		return rowsResult(p.outCols, nil), nil
	}
	sc, err := p.scanner(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case p.countStar:
		var count int64
		for row, err := range p.matching(ctx, sc) {
			if err != nil {
				return nil, err
			}
			if p.countCol < 0 || row[p.countCol] != nil {
				count++
			}
		}
		return rowsResult(p.outCols, [][]any{{count}}), nil
	case len(p.order) == 0:
		return streamResult(p.outCols, p.stream(ctx, sc)), nil
	case p.limit >= 0 && p.limit+p.offset <= int64(p.maxRows):
		return p.topK(ctx, sc)
	}
	return p.sortAll(ctx, sc)
}

// scanner builds the scan: columns read, LIMIT/OFFSET when pushable, and
// the first indexable conjunct an index serves as a scan predicate.
func (p *dataPlan) scanner(ctx context.Context) (*scan.Scanner, error) {
	opts := scan.Options{Columns: []string{}}
	for _, c := range p.read {
		opts.Columns = append(opts.Columns, p.schema.Field(c).Name)
	}
	if p.pushLimit {
		opts.Offset = uint64(p.offset)
		if p.limit > 0 {
			opts.Limit = uint64(p.limit)
		}
	}
	if p.indexes != nil {
		for _, pred := range p.indexable {
			name, q, ok := p.indexes.Serve(p.ds, pred)
			if !ok {
				continue
			}
			opts.Index = name
			opts.Predicates = []scan.Predicate{{Column: pred.Column, Query: q}}
			break
		}
	}
	sc, err := scan.New(p.ds, opts)
	if err == nil && len(opts.Predicates) > 0 {
		_, err = sc.Plan(ctx) // searches the index now, so that a failure can fall back
	}
	if err != nil && len(opts.Predicates) > 0 && (errors.Is(err, index.ErrUnsupported) || errors.Is(err, index.ErrBadQuery)) {
		// The index cannot serve this dataset (e.g. stable row ids): scan.
		opts.Index, opts.Predicates = "", nil
		sc, err = scan.New(p.ds, opts)
	}
	return sc, err
}

// matching yields the rows (width: the schema; only read columns set) that
// satisfy WHERE. A row is valid until the next one is yielded.
func (p *dataPlan) matching(ctx context.Context, sc *scan.Scanner) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		row := make([]any, p.schema.NumFields())
		readers := make([]valueReader, len(p.read))
		for rec, err := range sc.Records(ctx) {
			if err != nil {
				yield(nil, err)
				return
			}
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			for j, c := range p.read {
				r, err := readerFor(p.schema.Field(c), rec.Column(j))
				if err != nil {
					yield(nil, err)
					return
				}
				readers[j] = r
			}
			for r := 0; r < int(rec.NumRows()); r++ {
				for j, c := range p.read {
					v, err := readers[j](r)
					if err != nil {
						yield(nil, err)
						return
					}
					row[c] = v
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
}

// project evaluates the select list on a row.
func (p *dataPlan) project(row []any) ([]any, error) {
	out := make([]any, len(p.fields))
	for j, f := range p.fields {
		v, err := p.env.eval(f.expr, row)
		if err != nil {
			return nil, err
		}
		out[j] = v
	}
	return out, nil
}

// streamBatch is the number of rows a streamed result hands over at a time.
const streamBatch = 1024

// stream yields the projected matching rows in scan order, applying OFFSET
// and LIMIT unless the scan already did.
func (p *dataPlan) stream(ctx context.Context, sc *scan.Scanner) iter.Seq2[[][]any, error] {
	return func(yield func([][]any, error) bool) {
		var skip, left int64 = 0, -1
		if !p.pushLimit {
			skip, left = p.offset, p.limit
		}
		batch := make([][]any, 0, streamBatch)
		for row, err := range p.matching(ctx, sc) {
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

// sortedRow is a matching row with its arrival number (ties keep scan
// order, as a stable sort does).
type sortedRow struct {
	row []any
	seq int64
}

// less orders rows by the ORDER BY keys (NULLs first), then arrival.
func (p *dataPlan) less(a, b sortedRow) bool {
	for _, o := range p.order {
		c := compareNullsFirst(a.row[o.col], b.row[o.col])
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
	p    *dataPlan
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
func (p *dataPlan) topK(ctx context.Context, sc *scan.Scanner) (*Result, error) {
	k := int(p.limit + p.offset)
	h := &worstFirst{p: p, rows: make([]sortedRow, 0, k)}
	var seq int64
	for row, err := range p.matching(ctx, sc) {
		if err != nil {
			return nil, err
		}
		cand := sortedRow{row: row, seq: seq}
		seq++
		if h.Len() < k {
			cand.row = slices.Clone(row)
			heap.Push(h, cand)
			continue
		}
		if p.less(cand, h.rows[0]) {
			cand.row = slices.Clone(row)
			h.rows[0] = cand
			heap.Fix(h, 0)
		}
	}
	return p.finish(h.rows)
}

// sortAll answers ORDER BY without a top-k: in memory up to the sort
// budget, beyond it through sorted runs on disk (spill.go) unless NoSpill.
func (p *dataPlan) sortAll(ctx context.Context, sc *scan.Scanner) (*Result, error) {
	var rows []sortedRow
	var seq, bytes int64
	var sp *spiller
	for row, err := range p.matching(ctx, sc) {
		if err != nil {
			if sp != nil {
				sp.remove()
			}
			return nil, err
		}
		if len(rows) >= p.maxRows || (!p.noSpill && p.sortMemory > 0 && bytes >= p.sortMemory) {
			if p.noSpill {
				return nil, p.tooMany()
			}
			if sp == nil {
				sp = &spiller{p: p, dir: p.spillDir()}
			}
			if err := sp.writeRun(rows); err != nil {
				sp.remove()
				return nil, err
			}
			rows, bytes = rows[:0], 0
		}
		rows = append(rows, sortedRow{row: slices.Clone(row), seq: seq})
		bytes += rowBytes(row)
		seq++
	}
	if sp == nil {
		return p.finish(rows)
	}
	if len(rows) > 0 {
		if err := sp.writeRun(rows); err != nil {
			sp.remove()
			return nil, err
		}
	}
	return streamResult(p.outCols, sp.merge()), nil
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
func (p *dataPlan) cmpRows(a, b sortedRow) int {
	switch {
	case p.less(a, b):
		return -1
	case p.less(b, a):
		return 1
	}
	return 0
}

// finish sorts rows, applies OFFSET and LIMIT and projects.
func (p *dataPlan) finish(rows []sortedRow) (*Result, error) {
	slices.SortFunc(rows, p.cmpRows)
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
