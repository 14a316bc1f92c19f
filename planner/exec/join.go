package exec

import (
	"context"
	"errors"
	"io"
	"iter"
)

// JoinKind is the kind of a join: which side keeps its unmatched rows.
type JoinKind int

const (
	// InnerJoin keeps matching pairs only (also CROSS JOIN and commas).
	InnerJoin JoinKind = iota + 1
	// LeftJoin also keeps each unmatched left row, with NULLs on the right.
	LeftJoin
	// RightJoin also keeps each unmatched right row, with NULLs on the left.
	RightJoin
)

// JoinSpec says how two inputs join. Output rows are the left row's
// values followed by the right row's.
type JoinSpec struct {
	Kind                  JoinKind
	LeftWidth, RightWidth int
	// LeftKey and RightKey compute the equi-join keys of a hash join
	// (nil: a nested-loop join, every pair tested by Cond).
	LeftKey, RightKey func(row []any) ([]any, error)
	// Hash turns a key into a hash-table key; ok is false when the key
	// holds a NULL (it then matches nothing, as = does).
	Hash func(key []any) (h string, ok bool)
	// KeyEqual confirms two keys of the same hash are equal under the
	// engine's comparison (hashes normalize numbers, so they may collide).
	KeyEqual func(l, r []any) bool
	// Cond is the rest of the join condition over the output row (nil:
	// true): only TRUE joins the pair.
	Cond func(row []any) (bool, error)
	// Budget is charged for the build side's rows; Name is the operator
	// named in a budget error.
	Budget *Budget
	Name   string
}

// Join returns the join of left and right: a hash join when spec has
// keys, else a nested-loop join. The build side (right for inner and left
// joins, left for right joins) is read into memory first, charged to the
// budget; the other side streams past it. Both inputs are closed with the
// join.
func Join(ctx context.Context, left, right Operator, spec JoinSpec) Operator {
	return FromSeq(joinRows(ctx, left, right, spec))
}

type buildRow struct {
	row []any
	key []any
}

func joinRows(ctx context.Context, left, right Operator, spec JoinSpec) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		defer left.Close()
		defer right.Close()
		build, probe := right, left
		buildKey, probeKey := spec.RightKey, spec.LeftKey
		if spec.Kind == RightJoin {
			build, probe = left, right
			buildKey, probeKey = spec.LeftKey, spec.RightKey
		}
		hashed := buildKey != nil
		var all []buildRow
		table := map[string][]int{}
		var charged int64
		if spec.Budget != nil {
			defer func() { spec.Budget.Release(charged) }()
		}
		for {
			batch, err := build.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				yield(nil, err)
				return
			}
			for _, r := range batch {
				br := buildRow{row: append([]any(nil), r...)}
				if hashed {
					k, err := buildKey(br.row)
					if err != nil {
						yield(nil, err)
						return
					}
					h, ok := spec.Hash(k)
					if !ok {
						continue // a NULL key joins nothing; the build side is never the preserved one
					}
					br.key = k
					table[h] = append(table[h], len(all))
				}
				n := RowBytes(br.row) + 32
				charged += n
				if spec.Budget != nil {
					if err := spec.Budget.Grow(spec.Name, n); err != nil {
						yield(nil, err)
						return
					}
				}
				all = append(all, br)
			}
		}
		build.Close()
		preserve := spec.Kind != InnerJoin
		if len(all) == 0 && !preserve {
			return
		}
		out := make([]any, spec.LeftWidth+spec.RightWidth)
		combine := func(p, b []any) []any {
			row := make([]any, len(out))
			if spec.Kind == RightJoin {
				copy(row, b)
				copy(row[spec.LeftWidth:], p)
			} else {
				copy(row, p)
				copy(row[spec.LeftWidth:], b)
			}
			return row
		}
		var nulls []any
		if spec.Kind == RightJoin {
			nulls = make([]any, spec.LeftWidth)
		} else {
			nulls = make([]any, spec.RightWidth)
		}
		var every []int
		if !hashed {
			every = make([]int, len(all))
			for i := range every {
				every[i] = i
			}
		}
		for {
			batch, err := probe.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			for _, p := range batch {
				cands := every
				var pk []any
				if hashed {
					cands = nil
					k, err := probeKey(p)
					if err != nil {
						yield(nil, err)
						return
					}
					if h, ok := spec.Hash(k); ok {
						cands, pk = table[h], k
					}
				}
				matched := false
				for _, ci := range cands {
					b := all[ci]
					if hashed {
						lk, rk := pk, b.key
						if spec.Kind == RightJoin {
							lk, rk = b.key, pk
						}
						if !spec.KeyEqual(lk, rk) {
							continue
						}
					}
					row := combine(p, b.row)
					if spec.Cond != nil {
						ok, err := spec.Cond(row)
						if err != nil {
							yield(nil, err)
							return
						}
						if !ok {
							continue
						}
					}
					matched = true
					if !yield(row, nil) {
						return
					}
				}
				if !matched && preserve {
					if !yield(combine(p, nulls), nil) {
						return
					}
				}
			}
		}
	}
}
