package plan

import (
	"context"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

// hashAll lets every equality be a hash key.
func hashAll(_, _ sqlparse.Expr) bool { return true }

// TestChooseKeyFilters: an inner hash join filters the scan under its
// probe side that holds its probe key, through inner joins only; not
// through an outer join, not for a <=> key, not where usable refuses.
func TestChooseKeyFilters(t *testing.T) {
	all := func(*Scan, int) bool { return true }
	s, sc := starScans(map[string]int64{"f": 1000, "a": 10, "b": 10}, "f", "a", "b")
	// (f JOIN a ON f.k = a.k) JOIN b ON f.k2 = b.k: both joins filter f.
	low := &Join{Kind: Inner, Left: sc["f"], Right: sc["a"]}
	top := &Join{Kind: Inner, Left: low, Right: sc["b"]}
	PushFilters(top, bound(t, s, "f.k = a.k AND f.k2 = b.k"), s)
	SplitJoinKeys(top, s, hashAll)
	ChooseKeyFilters(context.Background(), top, s, all)
	if kf := low.KeyFilter; kf == nil || kf.Scan != sc["f"] || kf.Column != 1 || kf.Key != 0 {
		t.Errorf("low join's filter: %+v", kf)
	}
	if kf := top.KeyFilter; kf == nil || kf.Scan != sc["f"] || kf.Column != 2 {
		t.Errorf("top join's filter: %+v", kf)
	}
	// usable refuses: no filters.
	ChooseKeyFilters(context.Background(), top, s, func(*Scan, int) bool { return false })
	if low.KeyFilter != nil || top.KeyFilter != nil {
		t.Errorf("filters kept though usable refuses: %+v %+v", low.KeyFilter, top.KeyFilter)
	}

	// (f LEFT JOIN a ON f.k = a.k) JOIN b ON a.k2 = b.k: the probe key is
	// on a, the NULL-supplied side of the outer join: no filter on a.
	s, sc = starScans(map[string]int64{"f": 1000, "a": 10, "b": 10}, "f", "a", "b")
	left := &Join{Kind: Left, Left: sc["f"], Right: sc["a"], On: bound(t, s, "f.k = a.k")}
	top = &Join{Kind: Inner, Left: left, Right: sc["b"]}
	PushFilters(top, bound(t, s, "a.k2 = b.k"), s)
	SplitJoinKeys(top, s, hashAll)
	ChooseKeyFilters(context.Background(), top, s, all)
	if top.KeyFilter != nil || left.KeyFilter != nil {
		t.Errorf("filters through an outer join: %+v %+v", top.KeyFilter, left.KeyFilter)
	}

	// f JOIN a ON f.k <=> a.k AND f.k2 = a.k2: the <=> key is skipped,
	// the = key filters.
	s, sc = starScans(map[string]int64{"f": 1000, "a": 10}, "f", "a")
	j := &Join{Kind: Inner, Left: sc["f"], Right: sc["a"]}
	PushFilters(j, bound(t, s, "f.k <=> a.k AND f.k2 = a.k2"), s)
	SplitJoinKeys(j, s, hashAll)
	ChooseKeyFilters(context.Background(), j, s, all)
	if kf := j.KeyFilter; kf == nil || kf.Column != 2 || !j.Keys[0].NullSafe || kf.Key != 1 {
		t.Errorf("filter with a <=> key: %+v, keys %v", kf, j.Keys)
	}
}

// TestChooseKeyFiltersPrefersFilteredBuild: of f's two keys, the one
// whose build column is of a filtered scan (a.v = 1) filters f's scan,
// though written second; with neither filtered, the first.
func TestChooseKeyFiltersPrefersFilteredBuild(t *testing.T) {
	all := func(*Scan, int) bool { return true }
	for _, c := range []struct {
		where string
		col   int
	}{
		{"f.k = b.k AND f.k2 = a.k2 AND a.v = 1", 2},
		{"f.k = b.k AND f.k2 = a.k2", 1},
	} {
		s, sc := starScans(map[string]int64{"f": 1000, "a": 10, "b": 10}, "f", "a", "b")
		low := &Join{Kind: Inner, Left: sc["a"], Right: sc["b"]}
		top := &Join{Kind: Inner, Left: sc["f"], Right: low}
		PushFilters(top, bound(t, s, c.where), s)
		SplitJoinKeys(top, s, hashAll)
		ChooseKeyFilters(context.Background(), top, s, all)
		if kf := top.KeyFilter; kf == nil || kf.Scan != sc["f"] || kf.Column != c.col {
			t.Errorf("%s: filter %+v, want f's column %d", c.where, kf, c.col)
		}
	}
}
