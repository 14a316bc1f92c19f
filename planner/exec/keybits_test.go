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
