package plan

import (
	"context"

	"github.com/lancecat/lancecat/sqlparse"
)

// Semi-join reduction. An inner hash join reads its build side whole
// before its probe side's first row; when a probe key is a column of a
// table scanned under the probe side (through inner joins only), the
// build side's keys tell that scan which rows can join at all. TPC-H's
// lineitem scans feed joins with a filtered part, orders or supplier:
// Q8 keeps one lineitem row in 150 for its part, Q5 one in 7 for its
// orders, and the scan converts only those rows' other columns to Go
// values (exec.KeyFilter) instead of all six million. The join still
// matches every row it gets, so the answers are the same.

// KeyFilterPlan is a join's key filter: its key Key (an equality over a
// column of Scan on the probe side) filters Scan's Column.
type KeyFilterPlan struct {
	Key    int
	Scan   *Scan
	Column int
}

// ChooseKeyFilters gives each inner hash join under n a key filter where
// one of its keys qualifies (see above); usable says whether a scan can
// filter its column by a set of integer keys. It runs after
// SplitJoinKeys and ChooseIndexJoins.
func ChooseKeyFilters(ctx context.Context, n Node, b Binding, usable func(s *Scan, col int) bool) {
	j, ok := n.(*Join)
	if !ok {
		return
	}
	ChooseKeyFilters(ctx, j.Left, b, usable)
	ChooseKeyFilters(ctx, j.Right, b, usable)
	j.KeyFilter = nil
	if j.Kind != Inner || j.Lookup != nil {
		return
	}
	// Of several qualifying keys the first whose build column comes from
	// a filtered scan: its keys are a part of its table's, where an
	// unfiltered dimension's (Q9's supplier beside its green parts)
	// likely hold every key and the filter would drop nothing.
	var first *KeyFilterPlan
	for i, k := range j.Keys {
		if k.NullSafe {
			continue // NULL <=> NULL joins: the scan must keep NULL keys
		}
		if _, ok := sqlparse.StripParens(k.L).(*sqlparse.ColumnRef); !ok {
			continue
		}
		slots, ok := b.SlotsOf(k.L)
		if !ok || len(slots) != 1 {
			continue
		}
		s := probeScan(j.Left, slots[0])
		if s == nil || !usable(s, slots[0]-s.Lo) {
			continue
		}
		kf := &KeyFilterPlan{Key: i, Scan: s, Column: slots[0] - s.Lo}
		if filteredBuild(j.Right, k.R, b) {
			j.KeyFilter = kf
			return
		}
		if first == nil {
			first = kf
		}
	}
	j.KeyFilter = first
}

// filteredBuild reports whether build key e is a column of a scan under
// n with predicates of its own.
func filteredBuild(n Node, e sqlparse.Expr, b Binding) bool {
	if _, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef); !ok {
		return false
	}
	slots, ok := b.SlotsOf(e)
	if !ok || len(slots) != 1 {
		return false
	}
	s := probeScan(n, slots[0])
	return s != nil && len(s.Spec.Predicates) > 0
}

// probeScan is the scan under n holding slot, reached through inner
// joins only (nil: none).
func probeScan(n Node, slot int) *Scan {
	switch x := n.(type) {
	case *Scan:
		if slot >= x.Lo && slot < x.Hi {
			return x
		}
	case *Join:
		if x.Kind != Inner || x.Lookup != nil {
			return nil
		}
		if covers([]int{slot}, x.Left) {
			return probeScan(x.Left, slot)
		}
		return probeScan(x.Right, slot)
	}
	return nil
}
