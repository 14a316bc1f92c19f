package exec

import (
	"math"
	"testing"
)

// TestKeyBits: a dense key set becomes a bitmap that answers as the map
// does, for keys below, inside and past its span, and for the extreme
// int64s whose distance to Lo wraps; a sparse set gets none.
func TestKeyBits(t *testing.T) {
	set := map[int64]struct{}{}
	for k := int64(-70); k < 2000; k += 3 {
		set[k] = struct{}{}
	}
	f := PublishedKeyFilter(set)
	b := f.Bits()
	if b == nil {
		t.Fatal("no bitmap for a dense set")
	}
	probe := []int64{math.MinInt64, math.MinInt64 + 1, -71, -70, -69, -67, 0, 1, 1997, 1998, 1999, 2000, 2063, 2064, math.MaxInt64}
	for k := int64(-200); k < 2200; k++ {
		probe = append(probe, k)
	}
	for _, k := range probe {
		_, want := set[k]
		if got := b.Has(k); got != want {
			t.Errorf("Has(%d) = %v, want %v", k, got, want)
		}
	}
	sparse := map[int64]struct{}{0: {}, 1 << 40: {}, math.MinInt64: {}, math.MaxInt64: {}}
	if PublishedKeyFilter(sparse).Bits() != nil {
		t.Error("bitmap for a sparse set")
	}
	if PublishedKeyFilter(map[int64]struct{}{}).Bits() != nil || (*KeyFilter)(nil).Bits() != nil {
		t.Error("bitmap for no keys")
	}
}

// TestPublishBuildKeys: a join's build keys are published as a bitmap
// alone when they are dense (no map beside it), as a map when they are
// sparse or many keys repeat over a wide span (the distinct keys decide),
// and as an empty set when every key is NULL; from int64 keys (the int
// path) and from []any keys alike.
func TestPublishBuildKeys(t *testing.T) {
	publish := func(intKey bool, keys []any) *KeyFilter {
		b := newBuildSet(intKey)
		for _, k := range keys {
			b.add(nil, joinRec{Key: []any{k}, Null: k == nil})
		}
		f := &KeyFilter{}
		f.publish(b)
		return f
	}
	var dense, repeated []any
	for k := int64(-70); k < 2000; k += 3 {
		dense = append(dense, k, k) // each key twice
	}
	for i := range 600 {
		repeated = append(repeated, int64(i%2)<<20) // two keys 2^20 apart
	}
	for _, intKey := range []bool{true, false} {
		f := publish(intKey, append(dense, nil))
		if set, ok := f.Keys(); !ok || set != nil || f.Bits() == nil {
			t.Fatalf("int path %v, dense: map %v (ok %v), bitmap %v", intKey, set != nil, ok, f.Bits() != nil)
		}
		for k := int64(-80); k < 2010; k++ {
			if want := k >= -70 && k < 2000 && (k+70)%3 == 0; f.Bits().Has(k) != want {
				t.Fatalf("int path %v: Has(%d) = %v", intKey, k, !want)
			}
		}
		f = publish(intKey, repeated)
		if set, ok := f.Keys(); !ok || len(set) != 2 || f.Bits() != nil {
			t.Fatalf("int path %v, two keys repeated: map of %d (ok %v), bitmap %v", intKey, len(set), ok, f.Bits() != nil)
		}
		f = publish(intKey, []any{nil, nil})
		if set, ok := f.Keys(); !ok || len(set) != 0 || f.Bits() != nil {
			t.Fatalf("int path %v, only NULLs: %v (ok %v)", intKey, set, ok)
		}
	}
	if f := publish(false, []any{int64(1), "x"}); f.Bits() != nil {
		t.Fatal("a string key: a bitmap")
	} else if _, ok := f.Keys(); ok {
		t.Fatal("a string key: a filter")
	}
}
