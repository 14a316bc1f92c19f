package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

// countingOp yields n rows {i} in batches of size and records Close.
type countingOp struct {
	n, size, next int
	closed        int
}

func (o *countingOp) Next(ctx context.Context) ([][]any, error) {
	if o.closed > 0 {
		return nil, errors.New("Next after Close")
	}
	if o.next >= o.n {
		return nil, io.EOF
	}
	var b [][]any
	for ; o.next < o.n && len(b) < o.size; o.next++ {
		b = append(b, []any{int64(o.next)})
	}
	return b, nil
}

func (o *countingOp) Close() error { o.closed++; return nil }

func drain(t *testing.T, op Operator) [][]any {
	t.Helper()
	var out [][]any
	for r, err := range Rows(context.Background(), op) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestFilterProjectLimit(t *testing.T) {
	in := &countingOp{n: 100, size: 7}
	even := Filter(in, func(r []any) (bool, error) { return r[0].(int64)%2 == 0, nil })
	twice := Project(even, func(r []any) ([]any, error) { return []any{r[0].(int64) * 2}, nil })
	got := drain(t, Limit(twice, 3, 2))
	if fmt.Sprint(got) != "[[8] [12] [16]]" {
		t.Errorf("got %v", got)
	}
	if in.closed == 0 {
		t.Error("the input was not closed")
	}
	// LIMIT stops pulling its input once it has its rows.
	if in.next >= 100 {
		t.Errorf("read all %d rows under LIMIT 3", in.next)
	}
	if got := drain(t, Limit(&countingOp{n: 5, size: 2}, -1, 4)); fmt.Sprint(got) != "[[4]]" {
		t.Errorf("offset only: %v", got)
	}
	if got := drain(t, Limit(&countingOp{n: 5, size: 2}, 0, 0)); len(got) != 0 {
		t.Errorf("LIMIT 0: %v", got)
	}
}

func TestFilterError(t *testing.T) {
	boom := errors.New("boom")
	op := Filter(&countingOp{n: 10, size: 3}, func(r []any) (bool, error) {
		if r[0].(int64) == 4 {
			return false, boom
		}
		return true, nil
	})
	var err error
	for _, e := range Rows(context.Background(), op) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
}

type sumAcc struct {
	n, sum int64
}

func (a *sumAcc) Add(r []any) error       { a.n++; a.sum += r[0].(int64); return nil }
func (a *sumAcc) Results() ([]any, error) { return []any{a.n, a.sum}, nil }

func TestAggregate(t *testing.T) {
	spec := AggregateSpec{
		KeyWidth: 1,
		Key: func(dst, r []any) ([]byte, error) {
			dst[0] = r[0].(int64) % 3
			return fmt.Append(nil, dst[0]), nil
		},
		NewGroup: func() Accumulator { return &sumAcc{} },
	}
	got := drain(t, Aggregate(&countingOp{n: 10, size: 4}, spec))
	// groups in first-seen order: 0, 1, 2.
	if fmt.Sprint(got) != "[[0 4 18] [1 3 12] [2 3 15]]" {
		t.Errorf("got %v", got)
	}
	// No GROUP BY over no rows: one group.
	one := AggregateSpec{Key: func([]any, []any) ([]byte, error) { return nil, nil }, NewGroup: func() Accumulator { return &sumAcc{} }}
	if got := drain(t, Aggregate(&countingOp{}, one)); fmt.Sprint(got) != "[[0 0]]" {
		t.Errorf("empty: %v", got)
	}
	// Groups are charged to the budget.
	spec.Budget, spec.GroupBytes, spec.Name = NewBudget(100), 64, "the aggregate"
	var err error
	for _, e := range Rows(context.Background(), Aggregate(&countingOp{n: 10, size: 4}, spec)) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("got %v, want ErrBudgetExceeded", err)
	}
	if spec.Budget.Used() != 0 {
		t.Errorf("budget still holds %d bytes after Close", spec.Budget.Used())
	}
}

func TestLazyAndValues(t *testing.T) {
	in := &countingOp{n: 3, size: 3}
	opened := false
	op := Lazy(in, func(ctx context.Context, in Operator) (Operator, error) {
		opened = true
		return in, nil
	})
	op.Close()
	if opened || in.closed == 0 {
		t.Errorf("Close before Next: opened %v, input closed %d", opened, in.closed)
	}
	if got := drain(t, Values([][]any{{}})); len(got) != 1 {
		t.Errorf("one row: %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Values([][]any{{}}).Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
