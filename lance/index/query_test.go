package index

import (
	"errors"
	"slices"
	"testing"
)

func TestPrefixUpperBound(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"ns1$", "ns1%", true},
		{"a\xff", "b", true},
		{"a\xff\xff", "b", true},
		{"\xff", "", false},
		{"", "", false},
	} {
		got, ok := prefixUpperBound(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("prefixUpperBound(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestCandidatePages checks page pruning on a lookup shaped like Lance's:
// pages sorted, nulls first (page 0 starts with nulls so its min is null),
// a value spanning a page boundary, and an all-null page.
func TestCandidatePages(t *testing.T) {
	s := &btreeSegment{kind: kindString, pages: []btreePage{
		{idx: 0, nullCount: 4096},
		{idx: 1, nullCount: 10, max: "c", hasMax: true},
		{idx: 2, min: "c", hasMin: true, max: "f", hasMax: true},
		{idx: 3, min: "f", hasMin: true, max: "f", hasMax: true},
		{idx: 4, min: "g", hasMin: true, max: "m", hasMax: true},
	}}
	for _, tc := range []struct {
		q    Query
		want []uint32
	}{
		{Eq("c"), []uint32{1, 2}},
		{Eq("f"), []uint32{2, 3}},
		{Eq("a"), []uint32{1}},
		{Eq("z"), nil},
		{Eq("fa"), nil},
		{IsNull(), []uint32{0, 1}},
		{In("a", "h", "zz"), []uint32{1, 4}},
		{Prefix("f"), []uint32{2, 3}},
		{Range(&Bound{Value: "f", Inclusive: false}, nil), []uint32{4}},
		{Range(nil, &Bound{Value: "c", Inclusive: false}), []uint32{1}},
		{Range(&Bound{Value: "d", Inclusive: true}, &Bound{Value: "c", Inclusive: true}), nil},
	} {
		p, err := normalize(tc.q, s.kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.candidatePages(p); !slices.Equal(got, tc.want) {
			t.Errorf("%s: pages %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestNormalizeRejectsBadQueries(t *testing.T) {
	for _, tc := range []struct {
		q Query
		k valueKind
	}{
		{Eq("x"), kindInt},
		{Eq(int64(1)), kindString},
		{Prefix("a"), kindInt},
		{Range(&Bound{Value: 1.5}, nil), kindUint},
		{Range(&Bound{Value: nil}, nil), kindInt},
		{HasAny("a"), kindString},
	} {
		if _, err := normalize(tc.q, tc.k); !errors.Is(err, ErrBadQuery) {
			t.Errorf("%s on %s: err = %v, want ErrBadQuery", tc.q, tc.k, err)
		}
	}
	// Bounds beyond an integer type clamp: k > -1 on an unsigned column is
	// every value, k < -1 is none.
	if p, err := normalize(Range(&Bound{Value: int64(-1)}, nil), kindUint); err != nil || len(p.intervals) != 1 || p.intervals[0].hasLo {
		t.Errorf("k > -1 on unsigned: %+v, %v", p, err)
	}
	if p, err := normalize(Range(nil, &Bound{Value: int64(-1)}), kindUint); err != nil || len(p.intervals) != 0 {
		t.Errorf("k < -1 on unsigned: %+v, %v", p, err)
	}
	// A value no row can hold matches nothing rather than failing.
	p, err := normalize(Eq(int64(-5)), kindUint)
	if err != nil || len(p.intervals) != 0 {
		t.Errorf("Eq(-5) on unsigned: %+v, %v", p, err)
	}
}
