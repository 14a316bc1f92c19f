package planner

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Results as Arrow record batches (the driver's Arrow escape hatch). A
// SELECT whose items are plain columns of one table, filtered by WHERE and
// cut by LIMIT/OFFSET but not ordered, aggregated or computed, can hand the
// scan's record batches on in their stored Arrow types: the values are
// never converted to Go and back. WHERE is evaluated on the Go values of
// the columns it names only; the rows it keeps are sliced out of the scan's
// columns (lance/scan.SelectRows). Other results are read as rows.

// BatchCursor streams the rows of a result as Arrow record batches, as the
// consumer pulls them. A cursor is used by one goroutine.
type BatchCursor interface {
	// Schema is the schema of every batch: the result's column labels,
	// their stored Arrow types and field metadata.
	Schema() *arrow.Schema
	// Next returns the next batch (at least one row), which the caller
	// releases, or io.EOF after the last.
	Next() (arrow.RecordBatch, error)
	// Close releases what the cursor holds; Next then returns io.EOF.
	// Close is idempotent.
	Close() error
}

// Batches hands the result's rows over as record batches when it can be
// read that way (see above), instead of Cursor: the caller closes the
// cursor, and the result's rows are then gone. ok is false for every other
// result, whose rows Cursor still reads.
func (r *Result) Batches() (c BatchCursor, ok bool) {
	if r.batches == nil || r.stream == nil {
		return nil, false
	}
	c = r.batches()
	r.batches = nil
	r.stream.Close() // not started: nothing was read
	r.stream = nil
	return c, true
}

// batchProjection returns, when the plan's result can be handed on as the
// scan's batches, the schema of those batches and, per result column, its
// position among the scanned columns (p.read); ok is false otherwise.
func (p *dataPlan) batchProjection() (schema *arrow.Schema, cols []int, ok bool) {
	if p.agg != nil || p.countStar || len(p.order) > 0 || p.limit == 0 || len(p.fields) == 0 {
		return nil, nil, false
	}
	readAt := make(map[int]int, len(p.read))
	for j, c := range p.read {
		readAt[c] = j
	}
	fields := make([]arrow.Field, len(p.fields))
	cols = make([]int, len(p.fields))
	for i, f := range p.fields {
		ref, isRef := f.expr.(*sqlparse.ColumnRef)
		if !isRef || f.col.Field.Type == nil || sqltypes.IsJSON(f.col.Field) {
			return nil, nil, false
		}
		c, err := p.env.column(ref)
		if err != nil {
			return nil, nil, false
		}
		j, read := readAt[c]
		if !read {
			return nil, nil, false
		}
		cols[i] = j
		fields[i] = arrow.Field{Name: f.col.Name, Type: f.col.Field.Type, Nullable: f.col.Nullable, Metadata: f.col.Field.Metadata}
	}
	return arrow.NewSchema(fields, nil), cols, true
}

// batches yields the plan's result as record batches of schema, column i
// being the scanned column cols[i]: every row the scan returns that WHERE
// keeps, after OFFSET and within LIMIT unless the scan applied them.
func (p *dataPlan) batches(ctx context.Context, sc *scan.Scanner, schema *arrow.Schema, cols []int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		// The scanned columns WHERE reads (positions in p.read), whose Go
		// values fill row (laid out over the schema, as p.env expects).
		var whereCols []int
		if p.where != nil {
			named := map[int]bool{}
			sqlparse.Inspect(p.where, func(n sqlparse.Expr) bool {
				if ref, ok := n.(*sqlparse.ColumnRef); ok {
					if c, err := p.env.column(ref); err == nil {
						named[c] = true
					}
				}
				return true
			})
			for j, c := range p.read {
				if named[c] {
					whereCols = append(whereCols, j)
				}
			}
		}
		row := make([]any, p.schema.NumFields())
		readers := make([]sqltypes.ValueReader, len(whereCols))
		var skip, left int64 = 0, -1
		if !p.pushLimit {
			skip, left = p.offset, p.limit
		}
		out := make([]arrow.Array, len(cols))
		var keep []int
		for rec, err := range sc.Records(ctx) {
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				yield(nil, err)
				return
			}
			for i, j := range cols {
				out[i] = rec.Column(j)
				if !arrow.TypeEqual(out[i].DataType(), schema.Field(i).Type) {
					yield(nil, errorf(catalog.CodeInternal, "column %s: the scan returned %s, the table stores %s", schema.Field(i).Name, out[i].DataType(), schema.Field(i).Type))
					return
				}
			}
			for k, j := range whereCols {
				r, err := readerFor(p.schema.Field(p.read[j]), rec.Column(j))
				if err != nil {
					yield(nil, err)
					return
				}
				readers[k] = r
			}
			n := int(rec.NumRows())
			keep = keep[:0]
			for i := 0; i < n && left != 0; i++ {
				if p.where != nil {
					for k, j := range whereCols {
						v, err := readers[k](i)
						if err != nil {
							yield(nil, err)
							return
						}
						row[p.read[j]] = v
					}
					ok, err := p.env.matches(p.where, row)
					if err != nil {
						yield(nil, err)
						return
					}
					if !ok {
						continue
					}
				}
				if skip > 0 {
					skip--
					continue
				}
				keep = append(keep, i)
				if left > 0 {
					left--
				}
			}
			if len(keep) > 0 {
				b, err := scan.SelectRows(nil, schema, out, keep, n)
				if err != nil {
					yield(nil, err)
					return
				}
				if !yield(b, nil) {
					return
				}
			}
			if left == 0 {
				return
			}
		}
	}
}

// batchCursor is a cursor over a record-batch iterator; empty batches are
// released and skipped.
type batchCursor struct {
	pullCursor[arrow.RecordBatch]
	schema *arrow.Schema
}

func newBatchCursor(schema *arrow.Schema, seq iter.Seq2[arrow.RecordBatch, error]) *batchCursor {
	skip := func(b arrow.RecordBatch) bool {
		if b == nil {
			return true
		}
		if b.NumRows() == 0 {
			b.Release()
			return true
		}
		return false
	}
	return &batchCursor{pullCursor: newPullCursor(seq, skip), schema: schema}
}

func (c *batchCursor) Schema() *arrow.Schema { return c.schema }
