package inverted

import (
	"math/rand"
	"slices"
	"sort"
	"testing"
)

// TestTopKMatchesSortAndCut: the heap keeps exactly the first k hits of
// the full sort (score descending, row address ascending), ties included,
// whatever order the hits arrive in.
func TestTopKMatchesSortAndCut(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for round := 0; round < 200; round++ {
		n := r.Intn(300)
		hits := make([]Hit, n)
		for i := range hits {
			// few distinct scores: many ties
			hits[i] = Hit{RowAddr: uint64(r.Intn(1000)), Score: float32(r.Intn(8)) / 4}
		}
		want := slices.Clone(hits)
		sort.Slice(want, func(i, j int) bool { return better(want[i], want[j]) })
		for _, k := range []int{0, 1, 3, 10, 500} {
			top := topK{limit: k}
			for _, h := range hits {
				if top.wants(h.RowAddr, h.Score) {
					top.push(h)
				}
			}
			got := top.sorted()
			w := want
			if k > 0 && len(w) > k {
				w = w[:k]
			}
			if !slices.Equal(got, w) {
				t.Fatalf("round %d, k %d: got %v, want %v", round, k, got, w)
			}
		}
	}
}

// TestPostingCacheBudget: the posting cache stays within its byte budget,
// evicting the least recently used list, and keeps a token's position
// list apart from its posting list.
func TestPostingCacheBudget(t *testing.T) {
	c := newPostingCache(64 << 10)
	mk := func(n int) *posting {
		return &posting{docs: make([]uint32, n), freqs: make([]uint32, n)}
	}
	for i := 0; i < 100; i++ {
		c.put(postingKey{tok: uint32(i)}, mk(1000)) // ~8 KB each
		if c.bytes > c.max {
			t.Fatalf("after %d puts: %d bytes cached, budget %d", i+1, c.bytes, c.max)
		}
		// keep token 0 in use: it must survive the evictions
		if c.get(postingKey{tok: 0}) == nil {
			t.Fatalf("after %d puts: the list in use was evicted", i+1)
		}
	}
	if c.get(postingKey{tok: 1}) != nil {
		t.Error("an old unused list is still cached past the budget")
	}
	if c.get(postingKey{tok: 99}) == nil {
		t.Error("the newest list is not cached")
	}
	pos := &positionList{data: make([]byte, 10), skip: make([]uint32, 1), docs: 10}
	c.put(postingKey{tok: 99, positions: true}, pos)
	if c.get(postingKey{tok: 99, positions: true}) != pos {
		t.Error("a token's position list is not cached")
	}
	if c.get(postingKey{tok: 99}) == cachedList(pos) {
		t.Error("a position list served a request for the posting list")
	}
	huge := mk(1 << 20)
	c.put(postingKey{tok: 7}, huge)
	if c.get(postingKey{tok: 7}) != nil || c.bytes > c.max {
		t.Errorf("a list larger than a quarter of the budget was cached (%d bytes cached)", c.bytes)
	}
}
