package inverted

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// BenchmarkSearchVsPeer times top-10 one-word, multi-word and phrase
// queries over one peer-built index of 6,000 real paragraphs, in lancecat
// (index opened once, as a cached index would be) and in the peer (its
// search(q, "fts") with the table open), and reports both medians and p99s.
//
//	LANCECAT_REQUIRE_PEER=1 go test ./lance/index/inverted -run '^$' -bench SearchVsPeer -benchtime 1x
func BenchmarkSearchVsPeer(b *testing.B) {
	peer.Require(b)
	ctx := context.Background()
	paras := corpus(b, 6000)
	dir := b.TempDir()
	rows := filepath.Join(dir, "rows.jsonl")
	ids := make([]int64, len(paras))
	for i := range ids {
		ids[i] = int64(i)
	}
	writeJSONL(b, rows, ids, strs(paras))
	of := filepath.Join(dir, "o.json")
	writeJSON(b, of, map[string]any{"withPosition": true})
	cat := filepath.Join(dir, "cat")
	if out, err := peer.Run(ctx, b, "fts.mjs", "create", cat, "t", rows, of); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	pt := openPeerTable(b, cat, "t")
	qs := []peerQuery{
		{Kind: "match", Q: "goroutine", Limit: 10},
		{Kind: "match", Q: "concurrent use by multiple goroutines", Limit: 10},
		{Kind: "phrase", Q: "returns an error", Limit: 10},
	}
	names := []string{"one-word", "multi-word", "phrase"}
	qf := filepath.Join(dir, "q.json")
	writeJSON(b, qf, qs)
	out, err := peer.Run(ctx, b, "fts.mjs", "time", cat, "t", qf, "50")
	if err != nil {
		b.Fatal(err)
	}
	var peerT []struct{ Median, P99 float64 }
	if err := json.Unmarshal(out[bytesLastLine(out):], &peerT); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	for i, q := range qs {
		var ms []float64
		for r := 0; r < 50; r++ {
			t0 := time.Now()
			if _, _, err := pt.ix.Search(ctx, q.toQuery(b), SearchOptions{Limit: 10}); err != nil {
				b.Fatal(err)
			}
			ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		}
		sort.Float64s(ms)
		b.Logf("%-10s lancecat median %.2f ms p99 %.2f ms | peer median %.2f ms p99 %.2f ms", names[i], ms[25], ms[49], peerT[i].Median, peerT[i].P99)
	}
}

func bytesLastLine(b []byte) int {
	end := len(b)
	for end > 0 && (b[end-1] == '\n' || b[end-1] == '\r') {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return 0
}
