package planner

import (
	"context"
	"io"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqltypes"
)

// A SELECT over table data as a tree: planDataSelect plans the query
// block (the columns read, the WHERE conjuncts an index can answer, a
// LIMIT the scan can apply) and dataTree puts its scan (dataSource, a
// Source leaf whose EXPLAIN is the TableScan with its index lookups)
// under the query block's nodes. A lone COUNT(*) without WHERE is a leaf
// of its own, answered from the manifest's fragment row counts.

// dataTree makes the tree of a planned SELECT over table data.
func (s *Session) dataTree(dp *dataPlan) *treePlan {
	t := &treePlan{s: s, envs: map[plan.Node]*rowEnv{}, aggs: map[*plan.Aggregate]*aggStage{},
		budget: s.joinBudget(), source: dp.source, data: dp}
	if dp.countStar && dp.where == nil && dp.countCol < 0 {
		t.cols = dp.outCols
		t.root = &plan.Source{Table: &manifestCount{dp: dp}, Width: 1}
		return t
	}
	t.above(&plan.Source{Table: &dataSource{dp: dp}, Width: dp.schema.NumFields()}, &dp.selectPipeline)
	return t
}

// manifestCount is COUNT(*) of a table from its manifest: no data read.
type manifestCount struct{ dp *dataPlan }

func (m *manifestCount) Describe() string      { return "count of " + displayName(m.dp.id) }
func (m *manifestCount) ColumnNames() []string { return []string{m.dp.outCols[0].Name} }

func (m *manifestCount) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	n, err := m.dp.ds.CountRows(ctx)
	if err != nil {
		return nil, err
	}
	return exec.Values([][]any{{int64(n)}}), nil
}

func (m *manifestCount) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	return []string{"Count from the manifest's fragment row counts (no data read)"}, nil
}

// dataSource is the scan of a dataPlan: rows over the table's schema
// (only the read columns set), the indexable conjuncts an index serves
// pushed into the scanner, and LIMIT/OFFSET when the plan pushes them.
type dataSource struct{ dp *dataPlan }

func (d *dataSource) Describe() string { return "table " + displayName(d.dp.id) }

func (d *dataSource) ColumnNames() []string {
	var out []string
	for _, c := range d.dp.env.cols {
		out = append(out, c.Name)
	}
	return out
}

func (d *dataSource) Scan(ctx context.Context, spec plan.ScanSpec) (exec.Operator, error) {
	if d.dp.limit == 0 && !d.dp.countStar {
		return exec.Values(nil), nil // no need to open a scan
	}
	if len(d.dp.keyFilters) > 0 && columnWiseFilter {
		return d.filteredScan(ctx, nil) // the key filters' tests only
	}
	sc, err := d.dp.scanner(ctx)
	if err != nil {
		return nil, err
	}
	return &scanOp{dp: d.dp, sc: sc}, nil
}

func (d *dataSource) Explain(ctx context.Context, spec plan.ScanSpec) ([]string, error) {
	if err := d.dp.prepareExplain(ctx); err != nil {
		return nil, err
	}
	return d.dp.explainScan(), nil
}

// scanOp reads a scanner's record batches as rows over the table's
// schema. Each batch's rows share one freshly allocated backing array, so
// operators above may keep them.
type scanOp struct {
	dp   *dataPlan
	sc   *scan.Scanner
	next func() (arrow.RecordBatch, error, bool)
	pulled
	readers []sqltypes.ValueReader
	caches  []valueCache // per read column, across batches (valuecache.go)
	pos     int          // next row of rec
	out     [][]any
}

func (o *scanOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	if err := ctx.Err(); err != nil {
		o.fail(err)
		return nil, err
	}
	if o.next == nil {
		o.next, o.stop = iter.Pull2(o.sc.Records(ctx))
		o.readers = make([]sqltypes.ValueReader, len(o.dp.read))
		o.caches = make([]valueCache, len(o.dp.read))
	}
	for o.rec == nil || o.pos >= int(o.rec.NumRows()) {
		rec, err, ok := o.next()
		if !ok {
			o.fail(io.EOF)
			return nil, io.EOF
		}
		if err != nil {
			o.fail(err)
			return nil, err
		}
		for j, c := range o.dp.read {
			r, err := cachedReaderFor(&o.caches[j], o.dp.schema.Field(c), rec.Column(j))
			if err != nil {
				o.fail(err)
				return nil, err
			}
			o.readers[j] = r
		}
		o.rec, o.pos = rec, 0
	}
	width := o.dp.schema.NumFields()
	n := min(int(o.rec.NumRows())-o.pos, exec.BatchSize)
	slab := make([]any, n*width)
	o.out = o.out[:0]
	for i := 0; i < n; i++ {
		row := slab[i*width : (i+1)*width : (i+1)*width]
		for j, c := range o.dp.read {
			v, err := o.readers[j](o.pos + i)
			if err != nil {
				o.fail(err)
				return nil, err
			}
			row[c] = v
		}
		o.out = append(o.out, row)
	}
	o.pos += n
	return o.out, nil
}

// pulled is the end of a scan operator's pulled record iterator: the
// iterator's stop, the batch being read and the error that ended it
// (io.EOF once closed).
type pulled struct {
	stop func()
	rec  arrow.RecordBatch
	err  error
}

func (o *pulled) fail(err error) {
	o.err = err
	if o.stop != nil {
		o.stop()
	}
	o.rec = nil
}

func (o *pulled) Close() error {
	if o.err == nil {
		o.fail(io.EOF)
	} else if o.stop != nil {
		o.stop()
	}
	return nil
}

// batchesOf is the result's record batches when a tree over table data
// can hand the scan's batches on (an unordered result of plain columns,
// batches.go): a scanner of its own, opened when the consumer asks.
func (t *treePlan) batchesOf(ctx context.Context) func() BatchCursor {
	dp := t.data
	if dp == nil || dp.countStar {
		return nil
	}
	schema, cols, ok := dp.batchProjection()
	if !ok {
		return nil
	}
	return func() BatchCursor {
		return newBatchCursor(schema, func(yield func(arrow.RecordBatch, error) bool) {
			sc, err := dp.scanner(ctx)
			if err != nil {
				yield(nil, err)
				return
			}
			for rec, err := range dp.batches(ctx, sc, schema, cols) {
				if !yield(rec, err) || err != nil {
					return
				}
			}
		})
	}
}
