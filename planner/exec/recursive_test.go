package exec

import (
	"context"
	"errors"
	"io"
	"testing"
)

// counting is a step yielding, for each working row {n}, the row {n+1}.
func counting(ctx context.Context, working [][]any) (Operator, error) {
	var out [][]any
	for _, r := range working {
		out = append(out, []any{r[0].(int64) + 1})
	}
	return &sliceOp{rows: out}, nil
}

type sliceOp struct {
	rows [][]any
	done bool
}

func (s *sliceOp) Next(context.Context) ([][]any, error) {
	if s.done || len(s.rows) == 0 {
		return nil, io.EOF
	}
	s.done = true
	return s.rows, nil
}

func (s *sliceOp) Close() error { return nil }

// TestRecursiveOperator: the iterations stop at MaxDepth with a
// *DepthError, a cancelled context stops them, and Close returns every
// byte charged to the budget.
func TestRecursiveOperator(t *testing.T) {
	budget := NewBudget(0)
	r := &Recursive{Anchor: &sliceOp{rows: [][]any{{int64(1)}}}, Step: counting, MaxDepth: 10, Budget: budget, Name: "rec"}
	ctx := context.Background()
	var got []int64
	var err error
	for {
		var b [][]any
		if b, err = r.Next(ctx); err != nil {
			break
		}
		for _, row := range b {
			got = append(got, row[0].(int64))
		}
	}
	var de *DepthError
	if !errors.As(err, &de) || de.Iterations != 11 || len(got) != 11 || got[10] != 11 {
		t.Fatalf("got %v, %v", got, err)
	}
	if budget.Used() == 0 {
		t.Fatal("nothing charged")
	}
	r.Close()
	if budget.Used() != 0 {
		t.Fatalf("%d bytes still charged after Close", budget.Used())
	}

	cctx, cancel := context.WithCancel(ctx)
	r = &Recursive{Anchor: &sliceOp{rows: [][]any{{int64(1)}}}, Step: counting, MaxDepth: 1 << 40, Budget: NewBudget(0), Name: "rec"}
	for i := 0; i < 5; i++ {
		if _, err := r.Next(cctx); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if _, err := r.Next(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	r.Close()

	// UNION DISTINCT: a step making only rows seen before ends the recursion.
	r = &Recursive{Anchor: &sliceOp{rows: [][]any{{int64(1)}, {int64(1)}}}, Budget: NewBudget(0), MaxDepth: 5,
		Step: func(ctx context.Context, w [][]any) (Operator, error) {
			return &sliceOp{rows: [][]any{{int64(1)}}}, nil
		},
		Key: func(row []any) string { return string(rune(row[0].(int64))) }}
	n := 0
	for {
		b, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
	}
	if n != 1 {
		t.Fatalf("UNION DISTINCT: %d rows", n)
	}
	r.Close()
}
