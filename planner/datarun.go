package planner

import (
	"context"
	"errors"
	"iter"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/sqltypes"
)

// Execution of a dataPlan. Rows come from one lance/scan scanner over the
// table's version: the columns the query uses, LIMIT/OFFSET pushed into it
// when nothing else filters or orders, and every WHERE conjunct an index
// serves (through the IndexLookup) pushed as a scan predicate. They
// feed the selectPipeline (pipeline.go), which evaluates the whole WHERE on
// every row, streams unordered results, keeps a top-k for ORDER BY ...
// LIMIT and sorts within the budget (Options.MaxRows rows and
// Options.SortMemory bytes) otherwise, spilling sorted runs beyond it
// (spill.go) unless Options.NoSpill. An unordered result of plain columns
// can instead be read as the scan's record batches (batches.go), for the
// driver's Arrow escape hatch.

// scanner builds the scan: columns read, LIMIT/OFFSET when pushable, and
// every indexable conjunct an index serves as a scan predicate, each
// restricted to the index that served it. The scanner answers the most
// selective of them through its index, intersects the answers of the
// others' indices and checks them all on the fragments an index does not
// cover; WHERE is still evaluated on every row it returns.
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
	opts.Predicates = servedPredicates(p.ds, p.indexes, p.indexable)
	sc, used, err := openScanner(ctx, p.ds, opts)
	p.pushed = p.pushed[:0]
	for _, pred := range used {
		p.pushed = append(p.pushed, pred.Label)
	}
	return sc, err
}

// servedPredicates turns the candidates an index serves into scan
// predicates (none without indexes).
func servedPredicates(ds *dataset.Dataset, indexes IndexLookup, cands []IndexPredicate) []scan.Predicate {
	if indexes == nil {
		return nil
	}
	var out []scan.Predicate
	for _, pred := range cands {
		name, q, ok := indexes.Serve(ds, pred)
		if !ok {
			continue
		}
		out = append(out, scan.Predicate{Column: pred.Column, Query: q, Index: name, Label: pred.String()})
	}
	return out
}

// openScanner opens a scan and searches its indices now, so that an index
// that cannot serve this dataset (e.g. stable row ids) falls back to a scan
// without predicates (WHERE still filters every row). It returns the
// predicates the scanner uses.
func openScanner(ctx context.Context, ds *dataset.Dataset, opts scan.Options) (*scan.Scanner, []scan.Predicate, error) {
	sc, err := scan.New(ds, opts)
	if err == nil && len(opts.Predicates) > 0 {
		_, err = sc.Plan(ctx)
	}
	if err != nil && len(opts.Predicates) > 0 && (errors.Is(err, index.ErrUnsupported) || errors.Is(err, index.ErrBadQuery)) {
		opts.Index, opts.Predicates = "", nil
		sc, err = scan.New(ds, opts)
	}
	return sc, opts.Predicates, err
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
