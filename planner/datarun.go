package planner

import (
	"context"
	"errors"
	"iter"

	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/sqltypes"
)

// Execution of a dataPlan. Rows come from one lance/scan scanner over the
// table's version: the columns the query uses, LIMIT/OFFSET pushed into it
// when nothing else filters or orders, and at most one WHERE conjunct
// pushed as a scan predicate through the index the IndexLookup names. They
// feed the selectPipeline (pipeline.go), which evaluates the whole WHERE on
// every row, streams unordered results, keeps a top-k for ORDER BY ...
// LIMIT and sorts within the budget (Options.MaxRows rows and
// Options.SortMemory bytes) otherwise, spilling sorted runs beyond it
// (spill.go) unless Options.NoSpill.

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
		return rowsResult(p.outCols, nil), nil // no need to open a scan
	}
	sc, err := p.scanner(ctx)
	if err != nil {
		return nil, err
	}
	return p.execute(ctx, p.scanRows(ctx, sc))
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

// scanRows yields the scanner's rows (width: the schema; only the read
// columns set). The row is reused: valid until the next one is yielded.
func (p *dataPlan) scanRows(ctx context.Context, sc *scan.Scanner) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		row := make([]any, p.schema.NumFields())
		readers := make([]sqltypes.ValueReader, len(p.read))
		for rec, err := range sc.Records(ctx) {
			if err != nil {
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
				if !yield(row, nil) {
					return
				}
			}
		}
	}
}
