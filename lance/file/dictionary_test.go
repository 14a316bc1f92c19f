package lancefile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// referenceDictionary is tryDictionary's rules written plainly, with a Go
// map: distinct values in first-seen order, each value's index, nil once
// the distinct values reach the limit.
func referenceDictionary(vals [][]byte, limit int) (data []byte, offsets []uint64, indices []uint32, ok bool) {
	seen := map[string]uint32{}
	offsets = []uint64{0}
	for _, v := range vals {
		k, found := seen[string(v)]
		if !found {
			k = uint32(len(seen))
			if int(k)+1 >= limit {
				return nil, nil, nil, false
			}
			seen[string(v)] = k
			data = append(data, v...)
			offsets = append(offsets, uint64(len(data)))
		}
		indices = append(indices, k)
	}
	return data, offsets, indices, true
}

// TestTryDictionaryMatchesReference: the value set tryDictionary builds
// its dictionary with gives the same distinct values, order and indices as
// a Go map, across cardinalities that make its table grow, empty values,
// values that are prefixes of others, and pages whose distinct values
// reach the limit (no dictionary).
func TestTryDictionaryMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n, card int
		cycle   bool // value i is i % card: exactly card distinct values
	}{{100, 1, false}, {1000, 4, false}, {5000, 300, false}, {20000, 9000, false}, {3000, 2999, false}, {250000, 100001, false},
		{200, 99, true}, {200, 100, true}, {400, 150, true}} {
		vals := make([][]byte, tc.n)
		acc := &leafAccum{numValues: tc.n, offsets: []uint64{0}}
		for i := range vals {
			c := rng.IntN(tc.card)
			if tc.cycle {
				c = i % tc.card
			}
			switch c % 3 {
			case 0:
				vals[i] = fmt.Appendf(nil, "v%d", c)
			case 1:
				vals[i] = bytes.Repeat([]byte{'a'}, c%50) // "" and prefixes of each other
			default:
				vals[i] = binary.LittleEndian.AppendUint64(nil, uint64(c)*0x9e3779b97f4a7c15)
			}
			acc.data = append(acc.data, vals[i]...)
			acc.offsets = append(acc.offsets, uint64(len(acc.data)))
		}
		limit := min(tc.n/dictDivisor, dictMaxCardinality)
		wantData, wantOffsets, wantIdx, wantOK := referenceDictionary(vals, limit)
		d := tryDictionary(&leafSpec{}, acc)
		if !wantOK {
			if d != nil {
				t.Fatalf("%+v: a dictionary of %d values past the limit %d", tc, d.card, limit)
			}
			continue
		}
		if d == nil {
			// Refused by the size rule only: the reference's sizes say so.
			if dictionaryFits(tc.n, len(wantOffsets)-1, len(wantData)+4*len(wantOffsets), len(acc.data)+4*(tc.n+1)) {
				t.Fatalf("%+v: no dictionary, the reference builds one that fits", tc)
			}
			continue
		}
		var idx []uint32
		for i := 0; i < len(d.indices); i += 4 {
			idx = append(idx, binary.LittleEndian.Uint32(d.indices[i:]))
		}
		if !bytes.Equal(d.data, wantData) || fmt.Sprint(d.offsets) != fmt.Sprint(wantOffsets) || fmt.Sprint(idx) != fmt.Sprint(wantIdx) || d.card != len(wantOffsets)-1 {
			t.Fatalf("%+v: dictionary of %d values differs from the reference's %d", tc, d.card, len(wantOffsets)-1)
		}
	}
}
