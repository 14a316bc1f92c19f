package inverted

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestPeerTieBandSameRows: when top k cuts through rows of equal score,
// lancecat keeps the same rows as the peer, the tied rows of lowest row
// address (its order inside a band of equal scores is the reference's
// heap's and is not reproduced: lancecat orders a band by row address).
// The corpus has few distinct (frequency, length) pairs, so every query's
// top k ends inside a wide tie band.
func TestPeerTieBandSameRows(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := t.TempDir()
	texts := []string{"alpha", "alpha beta", "alpha alpha beta", "beta gamma", "alpha gamma delta"}
	const n = 3000
	ids := make([]int64, n)
	docs := make([]string, n)
	for i := range ids {
		ids[i] = int64(i)
		if i < 100 {
			docs[i] = "omega" // the matches start past the first rows
		} else {
			docs[i] = texts[(i*7/3)%len(texts)]
		}
	}
	rows := filepath.Join(dir, "rows.jsonl")
	writeJSONL(t, rows, ids, strs(docs))
	of := filepath.Join(dir, "o.json")
	writeJSON(t, of, map[string]any{})
	cat := filepath.Join(dir, "cat")
	if out, err := peer.Run(ctx, t, "fts.mjs", "create", cat, "t", rows, of); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var qs []peerQuery
	for _, q := range []string{"alpha", "beta", "alpha beta", "gamma delta"} {
		for _, k := range []int{1, 3, 10, 25, 200} {
			qs = append(qs, peerQuery{Kind: "match", Q: q, Limit: k})
		}
	}
	want := runPeerSearch(t, cat, "t", qs)
	pt := openPeerTable(t, cat, "t")
	for i, q := range qs {
		label := fmt.Sprintf("%q limit %d", q.Q, q.Limit)
		hits, _, err := pt.ix.Search(ctx, q.toQuery(t), SearchOptions{Limit: q.Limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != len(want[i]) || len(hits) == 0 {
			t.Errorf("%s: %d hits, peer %d", label, len(hits), len(want[i]))
			continue
		}
		// Bands of equal score, in order: the same scores, the same rows.
		band := func(k int, score func(int) float64, id func(int) int64, n int) (float64, []int64, int) {
			s := score(k)
			var out []int64
			for ; k < n && close(score(k), s); k++ {
				out = append(out, id(k))
			}
			slices.Sort(out)
			return s, out, k
		}
		all, _, err := pt.ix.Search(ctx, q.toQuery(t), SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cut := false
		for a, b := 0, 0; a < len(hits) && b < len(want[i]); {
			ps, pids, nb := band(b, func(k int) float64 { return want[i][k].Score }, func(k int) int64 { return want[i][k].ID }, len(want[i]))
			os, oids, na := band(a, func(k int) float64 { return float64(hits[k].Score) }, func(k int) int64 { return pt.ids[hits[k].RowAddr] }, len(hits))
			if !close(ps, os) || !slices.Equal(pids, oids) {
				t.Errorf("%s: band at %d: score %v rows %v, peer score %v rows %v", label, a, os, oids, ps, pids)
				break
			}
			if nb == len(want[i]) {
				// the last band: more rows share its score than came back
				tied := 0
				for _, h := range all {
					if close(float64(h.Score), ps) {
						tied++
					}
				}
				cut = tied > len(pids)
			}
			a, b = na, nb
		}
		if q.Limit <= 25 && !cut {
			t.Errorf("%s: the top k does not end inside a tie band: the case tests nothing", label)
		}
	}
}
