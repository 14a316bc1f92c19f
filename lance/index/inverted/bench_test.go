package inverted

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	"github.com/lancecat/lancecat/storage"
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

// BenchmarkBuildPeakHeap builds a position index over LANCECAT_FTS_DOCS
// (default 100,000) Zipf-distributed documents of 20 to 80 words in a
// local dataset, the corpus dropped and collected first, with
// BuildMemoryBytes of LANCECAT_FTS_BUILD_MEMORY (default 32 MiB), and
// reports the highest heap in use during the build (sampled every 10 ms)
// and the spills: the build's memory should follow the budget, not the
// corpus. LANCECAT_FTS_HEAPPROFILE=FILE writes the heap profile there at
// each new peak.
//
//	LANCECAT_FTS_DOCS=300000 go test ./lance/index/inverted -run '^$' -bench BuildPeakHeap -benchtime 1x
func BenchmarkBuildPeakHeap(b *testing.B) {
	ctx := context.Background()
	docs, budget := 100000, 32<<20
	if v, err := strconv.Atoi(os.Getenv("LANCECAT_FTS_DOCS")); err == nil {
		docs = v
	}
	if v, err := strconv.Atoi(os.Getenv("LANCECAT_FTS_BUILD_MEMORY")); err == nil {
		budget = v
	}
	st, err := storage.Open(ctx, b.TempDir(), storage.Options{Durability: storage.DurabilityNone})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String}}, nil)
	r := rand.New(rand.NewSource(1))
	z := rand.NewZipf(r, 1.1, 1, 19999)
	var recs []arrow.RecordBatch
	for from := 0; from < docs; from += 10000 {
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		var s strings.Builder
		for i := from; i < min(from+10000, docs); i++ {
			s.Reset()
			for j, m := 0, 20+r.Intn(61); j < m; j++ {
				fmt.Fprintf(&s, "w%d ", z.Uint64())
			}
			sb.Append(s.String())
		}
		n := int64(sb.Len())
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{sb.NewArray()}, n))
	}
	ds, err := dataset.CreateWithData(ctx, st, "t", schema, recs, dataset.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	recs = nil
	defer func(old int) { BuildMemoryBytes = old }(BuildMemoryBytes)
	BuildMemoryBytes = budget
	spills := 0
	defer func() { onSpill = nil }()
	onSpill = func(int) error { spills++; return nil }
	params := tokenize.DefaultParams()
	params.WithPosition = true
	for i := 0; i < b.N; i++ {
		runtime.GC()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(sample)
		base := sample[0].Value.Uint64()
		done := make(chan uint64)
		stop := make(chan struct{})
		go func() {
			var peak uint64
			for {
				select {
				case <-stop:
					done <- peak
					return
				case <-time.After(10 * time.Millisecond):
				}
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > peak {
					peak = v
					if f := os.Getenv("LANCECAT_FTS_HEAPPROFILE"); f != "" {
						writeHeapProfile(b, f)
					}
				}
			}
		}()
		spills = 0
		if _, err := Build(ctx, ds, "text", params, BuildOptions{}); err != nil {
			b.Fatal(err)
		}
		stop <- struct{}{}
		peak := <-done
		b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(spills), "spills")
	}
}

// writeHeapProfile writes the heap profile (as of the last GC) to file.
func writeHeapProfile(b *testing.B, file string) {
	f, err := os.Create(file)
	if err != nil {
		b.Error(err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Error(err)
	}
}
