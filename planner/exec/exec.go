// Package exec holds the query engine's physical operators: each pulls
// batches of rows from its inputs with Next(ctx), is cancelled by the
// context, releases what it holds with Close, and charges what it buffers
// to the query's one Budget. Operators know no SQL: the planner hands them
// the evaluation of keys and conditions as functions.
//
// Rows are []any (the planner's value types) in batches; operators over
// Arrow record batches replace these where the expressions can evaluate
// over columns (so far an Aggregate over a table's scan, which the planner
// computes over the scan's batches and hands on as a Computed operator;
// joins still evaluate their conditions per row pair).
package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// BatchSize is how many rows an operator returns per Next at most.
const BatchSize = 1024

// Operator is a node of a running plan.
type Operator interface {
	// Next returns the next rows (at least one) or io.EOF after the last.
	// The batch and its rows are valid until the next call.
	Next(ctx context.Context) ([][]any, error)
	// Close releases the operator and its inputs. It is idempotent.
	Close() error
}

// ErrBudgetExceeded is returned (wrapped in a *BudgetError) when a query
// buffers more than its memory budget.
var ErrBudgetExceeded = errors.New("query memory budget exceeded")

// BudgetError says which operator exceeded the budget and by how much.
type BudgetError struct {
	Operator string
	Limit    int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s needs more than the query's memory budget of %d bytes (planner.Options.JoinMemory)", e.Operator, e.Limit)
}

func (e *BudgetError) Unwrap() error { return ErrBudgetExceeded }

// Budget is the memory one query may buffer, shared by its operators. It
// is used by one goroutine.
type Budget struct {
	Limit int64 // <= 0: unlimited
	used  int64
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{Limit: limit} }

// Grow charges n bytes to op; it fails once the total passes the limit.
func (b *Budget) Grow(op string, n int64) error {
	b.used += n
	if b.Limit > 0 && b.used > b.Limit {
		return &BudgetError{Operator: op, Limit: b.Limit}
	}
	return nil
}

// Release returns n bytes.
func (b *Budget) Release(n int64) { b.used -= n }

// Used is the bytes currently charged.
func (b *Budget) Used() int64 { return b.used }

// RowBytes estimates the memory a buffered row holds.
func RowBytes(row []any) int64 {
	n := int64(24 + 16*len(row))
	for _, v := range row {
		switch x := v.(type) {
		case string:
			n += int64(len(x))
		case sqltypes.Decimal: // an exact number's text (arithmetic, aggregates)
			n += int64(len(x))
		case []byte:
			n += int64(len(x))
		case time.Time:
			n += 24
		}
	}
	return n
}

// seqOp adapts a row iterator (a scan of today's planner, a derived
// table's cursor) to an Operator.
type seqOp struct {
	next  func() ([]any, error, bool)
	stop  func()
	err   error
	batch [][]any
}

// FromSeq returns an operator yielding the rows of seq; Close stops seq.
func FromSeq(seq iter.Seq2[[]any, error]) Operator {
	next, stop := iter.Pull2(seq)
	return &seqOp{next: next, stop: stop}
}

func (o *seqOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	o.batch = o.batch[:0]
	for len(o.batch) < BatchSize {
		row, err, ok := o.next()
		if !ok {
			o.err = io.EOF
			break
		}
		if err != nil {
			o.err = err
			o.stop()
			return nil, err
		}
		o.batch = append(o.batch, row)
	}
	if len(o.batch) == 0 {
		return nil, o.err
	}
	if err := ctx.Err(); err != nil {
		o.err = err
		return nil, err
	}
	return o.batch, nil
}

func (o *seqOp) Close() error {
	o.stop()
	if o.err == nil {
		o.err = io.EOF
	}
	return nil
}

// Rows yields an operator's rows one at a time and closes it when the
// consumer stops or the rows end.
func Rows(ctx context.Context, op Operator) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		defer op.Close()
		for {
			batch, err := op.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			for _, r := range batch {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// Batches yields an operator's batches (copies of the row slices, so a
// consumer may keep them) and closes it at the end.
func Batches(ctx context.Context, op Operator) iter.Seq2[[][]any, error] {
	return func(yield func([][]any, error) bool) {
		defer op.Close()
		for {
			batch, err := op.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(append([][]any(nil), batch...), nil) {
				return
			}
		}
	}
}
