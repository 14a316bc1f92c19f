package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Recursive runs a recursive common table expression: the anchor's rows,
// then the rows of the recursive step run over the previous iteration's
// rows (the working table), again and again until an iteration yields no
// row. Rows stream out as each iteration makes them, so what is held is
// the working table and the iteration being built (and, for UNION
// DISTINCT, the key of every row produced), all charged to the budget.
type Recursive struct {
	// Anchor yields the non-recursive rows; Recursive closes it.
	Anchor Operator
	// Step opens the recursive part over the working table (rows of the
	// previous iteration, which stay unchanged until the step is closed).
	Step func(ctx context.Context, working [][]any) (Operator, error)
	// Key, when set, makes the CTE a UNION DISTINCT: a row whose key was
	// produced before is dropped, and the recursion ends when an iteration
	// adds no new row.
	Key func(row []any) string
	// MaxDepth bounds the iterations of the step (MySQL's
	// cte_max_recursion_depth): needing one more is a *DepthError.
	MaxDepth int64
	Budget   *Budget
	// Name names the operator in budget errors.
	Name string

	step      Operator
	iteration int64
	working   [][]any
	next      [][]any
	held      int64 // bytes of working + next charged
	seen      map[string]bool
	seenBytes int64
	out       [][]any
	done      bool
}

// ErrRecursionDepth is matched (errors.Is) by a *DepthError.
var ErrRecursionDepth = errors.New("recursive query aborted")

// DepthError is MySQL's error 3636: the recursion needs more iterations
// than cte_max_recursion_depth allows.
type DepthError struct{ Iterations int64 }

func (e *DepthError) Error() string {
	return fmt.Sprintf("Recursive query aborted after %d iterations. Try increasing @@cte_max_recursion_depth to a larger value. (MySQL error 3636)", e.Iterations)
}

func (e *DepthError) Unwrap() error { return ErrRecursionDepth }

// Next implements Operator.
func (r *Recursive) Next(ctx context.Context) ([][]any, error) {
	for {
		if r.done {
			return nil, io.EOF
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in := r.Anchor
		if r.iteration > 0 {
			in = r.step
		}
		batch, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			if err := r.advance(ctx); err != nil {
				r.done = true
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		r.out = r.out[:0]
		for _, row := range batch {
			row = append([]any(nil), row...)
			if r.Key != nil {
				k := r.Key(row)
				if r.seen[k] {
					continue
				}
				if r.seen == nil {
					r.seen = map[string]bool{}
				}
				r.seen[k] = true
				n := int64(len(k) + 48)
				r.seenBytes += n
				if err := r.Budget.Grow(r.Name, n); err != nil {
					return nil, err
				}
			}
			n := RowBytes(row)
			r.held += n
			if err := r.Budget.Grow(r.Name, n); err != nil {
				return nil, err
			}
			r.next = append(r.next, row)
			r.out = append(r.out, row)
		}
		if len(r.out) > 0 {
			return r.out, nil
		}
	}
}

// advance ends the current iteration: the rows it made become the working
// table of the next, which is opened unless there are none.
func (r *Recursive) advance(ctx context.Context) error {
	if r.step != nil {
		r.step.Close()
		r.step = nil
	}
	// The previous working table is no longer read.
	var freed int64
	for _, row := range r.working {
		freed += RowBytes(row)
	}
	r.Budget.Release(freed)
	r.held -= freed
	r.working, r.next = r.next, nil
	if len(r.working) == 0 {
		r.done = true
		return nil
	}
	r.iteration++
	if r.iteration > r.MaxDepth {
		return &DepthError{Iterations: r.iteration}
	}
	step, err := r.Step(ctx, r.working)
	if err != nil {
		return err
	}
	r.step = step
	return nil
}

// Close implements Operator.
func (r *Recursive) Close() error {
	r.done = true
	if r.step != nil {
		r.step.Close()
		r.step = nil
	}
	if r.Anchor != nil {
		r.Anchor.Close()
	}
	r.Budget.Release(r.held + r.seenBytes)
	r.held, r.seenBytes = 0, 0
	r.working, r.next, r.seen = nil, nil, nil
	return nil
}
