package exec

// The group join: a GROUP BY whose groups are the rows of a hash join's
// build side (GROUP BY c_custkey over customer LEFT JOIN orders, built on
// customer: TPC-H Q13) is folded during the probe. Each build row holds
// its group's aggregate states; a probe row's matches are folded into
// them in a scratch row, so no joined row is allocated, emitted or looked
// up again in a group table; the join's output is one row per group.
//
// The rows folded are exactly the joined rows the join would have
// emitted: each matching pair that passes Cond, then (a build side that
// keeps its unmatched rows, LEFT JOIN built on the left) each unmatched
// build row padded with NULLs, as the general Aggregate would have seen
// them. Build rows with equal keys (a build side that breaks the
// uniqueness the planner relied on, or several NULL keys) share the
// states of the first of them, so the groups stay the GROUP BY's.

// GroupJoin is what a group join folds (JoinSpec.Group).
type GroupJoin struct {
	// Bytes is charged to the join's budget with each build row, for its
	// states (a build side past the budget spills as a hash join's does:
	// each partition's build rows are groups of their own, equal keys
	// falling in the same partition).
	Bytes int64
	// New makes the states of n build rows, numbered in build order.
	New func(n int) GroupStates
}

// GroupStates holds the aggregate states of a group join's build rows.
type GroupStates interface {
	// Fold adds a joined row (valid during the call only) to the group
	// of build row i.
	Fold(i int, row []any) error
	// Result is the output row of build row i's group; row is the build
	// row padded with NULLs on the probe side (valid during the call).
	Result(i int, row []any) ([]any, error)
}

// ProbeFolder is GroupStates whose calls read the probe side's columns
// only (COUNT(*), COUNT of a probe column): a join without Cond folds the
// probe row itself (the NULLs padding a build row for an unmatched one)
// without making the joined row.
type ProbeFolder interface {
	FoldProbe(i int, probe []any) error
}

// place is combine into row: the probe row p and the build row b at their
// sides of the output row. Positions the build rows do not hold
// (BuildCols) are never written, so they stay NULL.
func (j *joiner) place(row, p, b []any) {
	probeAt, buildAt := 0, j.spec.LeftWidth
	if j.buildIsLeft {
		probeAt, buildAt = j.spec.LeftWidth, 0
	}
	copy(row[probeAt:], p)
	if j.buildCols == nil {
		copy(row[buildAt:], b)
		return
	}
	for k, pos := range j.buildCols {
		row[buildAt+pos] = b[k]
	}
}

// groupProbe is run's probe and end for a group join: bs is the build
// side, table its hash table.
func (j *joiner) groupProbe(bs *buildSet, table *hashTable, probe recSource) error {
	all := bs.rows
	states := j.spec.Group.New(len(all))
	rep := groupReps(bs, table, j.spec.KeyEqual)
	group := func(i int) int {
		if rep == nil {
			return i
		}
		return int(rep[i])
	}
	row := make([]any, j.spec.LeftWidth+j.spec.RightWidth)
	pf, _ := states.(ProbeFolder)
	if j.spec.Cond != nil {
		pf = nil // Cond reads the joined row
	}
	for n := 0; ; n++ {
		if n%BatchSize == 0 {
			if err := j.ctx.Err(); err != nil {
				return err
			}
		}
		p, ok, err := probe()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if p.Null {
			continue // matches nothing, and the probe side keeps nothing
		}
		ci, pInt, intCmp := table.chain(all, p)
		for ; ci != 0; ci = table.next[ci-1] {
			if intCmp && table.ints[ci-1] != pInt {
				continue
			}
			b := &all[ci-1]
			if !intCmp {
				bk := bs.key(int(ci - 1))
				lk, rk := p.Key, bk
				if j.buildIsLeft {
					lk, rk = bk, p.Key
				}
				if !j.spec.KeyEqual(lk, rk) {
					continue
				}
			}
			if pf != nil {
				b.matched = true
				if err := pf.FoldProbe(group(int(ci-1)), p.Row); err != nil {
					return err
				}
				continue
			}
			j.place(row, p.Row, b.row)
			if j.spec.Cond != nil {
				ok, err := j.spec.Cond(row)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			b.matched = true
			if err := states.Fold(group(int(ci-1)), row); err != nil {
				return err
			}
		}
	}
	// A group has rows when one of its build rows matched, or the build
	// side keeps its unmatched rows (each then folds its NULL-padded row).
	var live []bool
	if rep != nil {
		live = make([]bool, len(all))
	}
	for i := range all {
		if i%BatchSize == 0 {
			if err := j.ctx.Err(); err != nil {
				return err
			}
		}
		if !all[i].matched && j.buildKeep {
			var err error
			if pf != nil {
				err = pf.FoldProbe(group(i), j.buildNulls)
			} else {
				j.place(row, j.buildNulls, all[i].row)
				err = states.Fold(group(i), row)
			}
			if err != nil {
				return err
			}
		}
		if live != nil && (all[i].matched || j.buildKeep) {
			live[rep[i]] = true
		}
	}
	for i := range all {
		if i%BatchSize == 0 {
			if err := j.ctx.Err(); err != nil {
				return err
			}
		}
		if live != nil && (rep[i] != int32(i) || !live[i]) || live == nil && !all[i].matched && !j.buildKeep {
			continue
		}
		j.place(row, j.buildNulls, all[i].row)
		out, err := states.Result(i, row)
		if err != nil {
			return err
		}
		if err := j.emit(out); err != nil {
			return err
		}
	}
	return nil
}

// groupReps maps each build row to the first build row of its key (its
// group), nil when every key is its own (no two rows share a hash, and at
// most one key is NULL: the planner's unique build side). The rows of
// one hash are its chain in table; distinct keys within a chain (hash
// collisions) are few, so each row is compared with the chain's distinct
// keys so far.
func groupReps(bs *buildSet, table *hashTable, keyEqual func(l, r []any) bool) []int32 {
	all := bs.rows
	shared, nulls := false, 0
	for i := range all {
		if all[i].null {
			nulls++
		} else if table.next[i] != 0 {
			shared = true
		}
	}
	if !shared && nulls <= 1 {
		return nil
	}
	rep := make([]int32, len(all))
	firstNull := int32(-1)
	for i := range all {
		rep[i] = int32(i)
		if all[i].null {
			if firstNull < 0 {
				firstNull = int32(i)
			}
			rep[i] = firstNull
		}
	}
	same := func(a, b int32) bool {
		if table.ints != nil {
			return table.ints[a] == table.ints[b]
		}
		return keyEqual(bs.key(int(a)), bs.key(int(b)))
	}
	var keys []int32 // the chain's distinct keys so far (their first rows)
	for _, s := range table.slots {
		if s.row == 0 || table.next[s.row-1] == 0 {
			continue
		}
		keys = keys[:0]
		for ci := s.row; ci != 0; ci = table.next[ci-1] {
			i := ci - 1
			found := false
			for _, k := range keys {
				if same(k, i) {
					rep[i], found = k, true
					break
				}
			}
			if !found {
				keys = append(keys, i)
			}
		}
	}
	return rep
}
