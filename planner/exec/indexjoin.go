package exec

import (
	"context"
	"errors"
)

// LookupFunc opens the inner side's rows whose key column is one of keys
// (distinct, none NULL).
type LookupFunc func(ctx context.Context, keys []any) (Operator, error)

// IndexJoin returns an index nested-loop join: the outer side (left, or
// right for a RightJoin) is read in batches of batch rows; for each, the
// distinct non-NULL values of its keys' entry keyIndex are looked up in
// the inner side and the rows found are joined to the batch as the build
// side of a hash join (spec's keys, condition, budget and spill apply).
// spec.Kind is InnerJoin, LeftJoin or RightJoin.
func IndexJoin(ctx context.Context, outer Operator, lookup LookupFunc, keyIndex, batch int, spec JoinSpec) Operator {
	return FromSeq(func(yield func([]any, error) bool) {
		defer outer.Close()
		j := &joiner{ctx: ctx, spec: spec, yield: yield, hashed: true}
		outerKey, innerKey := spec.LeftKey, spec.RightKey
		j.probeNulls = make([]any, spec.RightWidth)
		j.buildNulls = make([]any, spec.LeftWidth)
		if spec.Kind == RightJoin {
			outerKey, innerKey = spec.RightKey, spec.LeftKey
			j.probeNulls, j.buildNulls = j.buildNulls, j.probeNulls
			j.buildIsLeft = true // the rows looked up are the left side's
		}
		j.probeKeep = spec.Kind != InnerJoin
		defer j.removeFiles()
		src := j.opSource(outer, outerKey)
		fail := func(err error) {
			if !errors.Is(err, errStopped) {
				yield(nil, err)
			}
		}
		for done := false; !done; {
			var chunk []joinRec
			var keys []any
			seen := map[any]bool{}
			for len(chunk) < batch {
				r, ok, err := src()
				if err != nil {
					fail(err)
					return
				}
				if !ok {
					done = true
					break
				}
				r.Row = append([]any(nil), r.Row...)
				chunk = append(chunk, r)
				if r.Null {
					continue
				}
				v := r.Key[keyIndex]
				switch v.(type) {
				case int64, uint64, string:
					if seen[v] {
						continue
					}
					seen[v] = true
				}
				keys = append(keys, v)
			}
			if len(chunk) == 0 {
				return
			}
			inner := Operator(FromSeq(func(func([]any, error) bool) {}))
			if len(keys) > 0 {
				var err error
				if inner, err = lookup(ctx, keys); err != nil {
					fail(err)
					return
				}
			}
			err := j.run(j.opSource(inner, innerKey), sliceSource(chunk), 0, func() { inner.Close() })
			inner.Close()
			if err != nil {
				fail(err)
				return
			}
		}
	})
}

// sliceSource yields held records.
func sliceSource(rs []joinRec) recSource {
	i := 0
	return func() (joinRec, bool, error) {
		if i >= len(rs) {
			return joinRec{}, false, nil
		}
		i++
		return rs[i-1], true, nil
	}
}
