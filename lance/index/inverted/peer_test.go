package inverted

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/prose"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	"github.com/lancecat/lancecat/storage"
)

// peerQuery is one query of fts.mjs search.
type peerQuery struct {
	Kind    string  `json:"kind"`
	Q       string  `json:"q,omitempty"`
	Op      string  `json:"op,omitempty"`
	Limit   int     `json:"limit,omitempty"`
	Where   string  `json:"where,omitempty"`
	Clauses [][]any `json:"clauses,omitempty"`
}

type peerHit struct {
	ID    int64   `json:"id"`
	Score float64 `json:"score"`
}

func (q peerQuery) toQuery(t testing.TB) Query {
	switch q.Kind {
	case "match":
		return Query{Kind: Match, Text: q.Q, And: q.Op == "AND"}
	case "phrase":
		return Query{Kind: Phrase, Text: q.Q}
	case "bool":
		var out Query
		out.Kind = Boolean
		for _, c := range q.Clauses {
			occ := map[string]Occur{"MUST": Must, "SHOULD": Should, "MUST_NOT": MustNot}[c[0].(string)]
			b, _ := json.Marshal(c[1])
			var sub peerQuery
			if err := json.Unmarshal(b, &sub); err != nil {
				t.Fatal(err)
			}
			out.Clauses = append(out.Clauses, Clause{occ, sub.toQuery(t)})
		}
		return out
	}
	t.Fatalf("query kind %q", q.Kind)
	return Query{}
}

func writeJSONL(t testing.TB, path string, ids []int64, texts []*string) {
	t.Helper()
	var b strings.Builder
	for i, id := range ids {
		row := map[string]any{"id": id, "text": texts[i]}
		j, _ := json.Marshal(row)
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func strs(ss []string) []*string {
	out := make([]*string, len(ss))
	for i := range ss {
		out[i] = &ss[i]
	}
	return out
}

// corpus returns n real paragraphs (Go standard library doc comments).
func corpus(t testing.TB, n int) []string {
	t.Helper()
	p, err := prose.Paragraphs(n, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) < n {
		t.Fatalf("corpus: %d paragraphs, want %d", len(p), n)
	}
	return p
}

// corpusQueries derives queries from the corpus: words and word pairs of
// paragraphs spread over it, and fixed common phrases.
func corpusQueries(paras []string, withPhrases bool) []peerQuery {
	var qs []peerQuery
	for _, w := range []string{"buffer", "goroutine", "deadline", "returns", "interface", "Unicode", "cryptographic", "zero"} {
		qs = append(qs, peerQuery{Kind: "match", Q: w})
	}
	for _, m := range []string{"read the file", "zero value", "concurrent use by multiple goroutines", "error if the buffer is too small", "unsafe pointer arithmetic"} {
		qs = append(qs, peerQuery{Kind: "match", Q: m})
		qs = append(qs, peerQuery{Kind: "match", Q: m, Op: "AND"})
	}
	for i := 0; i < 24; i++ {
		words := strings.Fields(paras[(i*251+17)%len(paras)])
		if len(words) < 6 {
			continue
		}
		qs = append(qs, peerQuery{Kind: "match", Q: words[2]})
		qs = append(qs, peerQuery{Kind: "match", Q: words[3] + " " + words[5]})
		if withPhrases {
			qs = append(qs, peerQuery{Kind: "phrase", Q: words[1] + " " + words[2] + " " + words[3]})
		}
	}
	if withPhrases {
		for _, p := range []string{"zero value", "multiple goroutines", "returns an error", "the caller must"} {
			qs = append(qs, peerQuery{Kind: "phrase", Q: p})
		}
	}
	qs = append(qs,
		peerQuery{Kind: "bool", Clauses: [][]any{{"MUST", peerQuery{Kind: "match", Q: "buffer"}}, {"MUST_NOT", peerQuery{Kind: "match", Q: "read"}}}},
		peerQuery{Kind: "bool", Clauses: [][]any{{"SHOULD", peerQuery{Kind: "match", Q: "deadline"}}, {"SHOULD", peerQuery{Kind: "match", Q: "timeout"}}}},
		peerQuery{Kind: "bool", Clauses: [][]any{{"MUST", peerQuery{Kind: "match", Q: "file"}}, {"SHOULD", peerQuery{Kind: "match", Q: "directory"}}}},
	)
	for i := range qs {
		qs[i].Limit = 10
	}
	return qs
}

type peerTable struct {
	dir   string // the catalog
	ds    *dataset.Dataset
	ix    *Index
	ids   map[uint64]int64 // row address -> id
	unidx []Doc
}

func openPeerTable(t testing.TB, dir, name string) *peerTable {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+filepath.Join(dir, name+".lance"), storage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ds, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var meta *dataset.IndexMetadata
	for _, m := range ds.Indices() {
		if m.Type() == "Inverted" {
			meta = m
		}
	}
	if meta == nil {
		t.Fatalf("no inverted index in %s", name)
	}
	ix, err := Open(ctx, ds, meta)
	if err != nil {
		t.Fatal(err)
	}
	pt := &peerTable{dir: dir, ds: ds, ix: ix, ids: map[uint64]int64{}}
	err = ds.Scan(ctx, dataset.ScanOptions{Columns: []string{"id", "text"}, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		idc := rec.Column(0).(*array.Int64)
		tc := rec.Column(1).(*array.String)
		ac := rec.Column(2).(*array.Uint64)
		for i := 0; i < int(rec.NumRows()); i++ {
			pt.ids[ac.Value(i)] = idc.Value(i)
			if !ix.Covers(ac.Value(i) >> 32) {
				var s *string
				if tc.IsValid(i) {
					v := tc.Value(i)
					s = &v
				}
				pt.unidx = append(pt.unidx, Doc{RowAddr: ac.Value(i), Text: s})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

func runPeerSearch(t testing.TB, dir, name string, qs []peerQuery) [][]peerHit {
	t.Helper()
	qf := filepath.Join(t.TempDir(), "queries.json")
	writeJSON(t, qf, qs)
	out, err := peer.Run(context.Background(), t, "fts.mjs", "search", dir, name, qf)
	if err != nil {
		t.Fatal(err)
	}
	var res [][]peerHit
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("peer search output: %v: %.300s", err, out)
	}
	return res
}

// compareHits checks ours against the peer's: the same scores in the same
// order within 1e-4 relative, and the same ids except among rows tied at
// the last score (either side may cut a tie differently).
func compareHits(t testing.TB, label string, peerHits []peerHit, ours []Hit, ids map[uint64]int64) bool {
	t.Helper()
	if len(peerHits) != len(ours) {
		t.Errorf("%s: %d hits, peer %d\nours %v\npeer %v", label, len(ours), len(peerHits), fmtHits(ours, ids), peerHits)
		return false
	}
	ok := true
	for i := range ours {
		if !close(float64(ours[i].Score), peerHits[i].Score) {
			t.Errorf("%s: hit %d score %v, peer %v\nours %v\npeer %v", label, i, ours[i].Score, peerHits[i].Score, fmtHits(ours, ids), peerHits)
			return false
		}
	}
	if len(ours) == 0 {
		return true
	}
	last := peerHits[len(peerHits)-1].Score
	want := map[int64]float64{}
	for _, h := range peerHits {
		if !close(h.Score, last) {
			want[h.ID] = h.Score
		}
	}
	for _, h := range ours {
		id := ids[h.RowAddr]
		if close(float64(h.Score), last) {
			continue
		}
		s, found := want[id]
		if !found || !close(float64(h.Score), s) {
			t.Errorf("%s: id %d (score %v) not in the peer's hits\nours %v\npeer %v", label, id, h.Score, fmtHits(ours, ids), peerHits)
			ok = false
			break
		}
	}
	return ok
}

func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-4*math.Max(math.Abs(a), math.Abs(b)) || math.Abs(a-b) < 1e-7
}

func fmtHits(hs []Hit, ids map[uint64]int64) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "{%d %v} ", ids[h.RowAddr], h.Score)
	}
	return b.String()
}

// ftsConfigs are the index configurations the peer writes and lancecat
// reads (lancedb.Index.fts options).
var ftsConfigs = []struct {
	name    string
	opts    map[string]any
	phrases bool
}{
	{"default", map[string]any{}, false},
	{"positions", map[string]any{"withPosition": true}, true},
	{"whitespace", map[string]any{"baseTokenizer": "whitespace", "withPosition": true}, true},
	{"nostem", map[string]any{"stem": false, "removeStopWords": false}, false},
	{"nolower", map[string]any{"lowercase": false, "stem": false}, false},
	{"nofold", map[string]any{"asciiFolding": false, "maxTokenLength": 12}, false},
	{"ngram", map[string]any{"baseTokenizer": "ngram", "ngramMinLength": 3, "ngramMaxLength": 4, "stem": false, "removeStopWords": false}, false},
}

// TestPeerFTSRealText: over 6,000 real paragraphs, for every index
// configuration the peer writes, lancecat reads the peer's index and returns
// the peer's top 10 with its BM25 scores (within 1e-4 relative) for
// one-word, multi-word (OR and AND), phrase and boolean queries.
func TestPeerFTSRealText(t *testing.T) {
	peer.Require(t)
	paras := corpus(t, 6000)
	dir := t.TempDir()
	if d := os.Getenv("LANCECAT_FTS_KEEP"); d != "" {
		dir = d // keep the peer's tables for inspection
	}
	rows := filepath.Join(dir, "rows.jsonl")
	ids := make([]int64, len(paras))
	for i := range ids {
		ids[i] = int64(i)
	}
	writeJSONL(t, rows, ids, strs(paras))
	ctx := context.Background()
	for _, cfg := range ftsConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			of := filepath.Join(dir, cfg.name+".json")
			writeJSON(t, of, cfg.opts)
			cat := filepath.Join(dir, "cat")
			src := rows
			if cfg.name == "ngram" {
				// The peer's n-gram build is slow on long texts: the
				// first 500 paragraphs' first 60 bytes.
				src = filepath.Join(dir, "short.jsonl")
				short := make([]string, 500)
				for i := range short {
					short[i] = paras[i][:min(60, len(paras[i]))]
				}
				writeJSONL(t, src, ids[:500], strs(short))
			}
			if out, err := peer.Run(ctx, t, "fts.mjs", "create", cat, cfg.name, src, of); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			qs := corpusQueries(paras, cfg.phrases)
			if cfg.name == "ngram" {
				qs = qs[:8] // one-word queries: n-grams of longer ones match most rows
			}
			pt := openPeerTable(t, cat, cfg.name)
			if cfg.name == "ngram" {
				// Reading and tokenizing agree (every document's token count
				// and tokens); the peer's n-gram query scores do not follow
				// the BM25 of the other configurations (identical documents
				// score differently), so they are not compared.
				checkDocTokens(t, pt, paras, 60)
				return
			}
			checkDocTokens(t, pt, paras, 0)
			want := runPeerSearch(t, cat, cfg.name, qs)
			bad := 0
			nonEmpty := 0
			for i, q := range qs {
				hits, _, err := pt.ix.Search(ctx, q.toQuery(t), SearchOptions{Limit: q.Limit, Unindexed: pt.unidx})
				if err != nil {
					t.Fatalf("%+v: %v", q, err)
				}
				if len(want[i]) > 0 {
					nonEmpty++
				}
				if !compareHits(t, fmt.Sprintf("%s %+v", cfg.name, q), want[i], hits, pt.ids) {
					bad++
					if bad > 5 {
						t.Fatal("too many mismatches")
					}
				}
			}
			if nonEmpty < len(qs)/2 {
				t.Errorf("only %d of %d queries found anything: the test does not exercise scoring", nonEmpty, len(qs))
			}
			t.Logf("%s: %d queries (%d with hits) agree with the peer; %d docs, %d partitions", cfg.name, len(qs)-bad, nonEmpty, pt.ix.NumDocs(), pt.ix.Partitions())
		})
	}
}

// checkDocTokens: for every document of the peer's index, lancecat's
// tokenizer yields the token count the peer recorded, and each of its tokens
// is in the peer's token map.
func checkDocTokens(t *testing.T, pt *peerTable, paras []string, maxLen int) {
	t.Helper()
	checked := 0
	for _, p := range pt.ix.parts {
		for d, addr := range p.rowAddrs {
			text := paras[pt.ids[addr]]
			if maxLen > 0 {
				text = text[:min(maxLen, len(text))]
			}
			toks := pt.ix.an.Terms(text)
			if len(toks) != int(p.numTokens[d]) {
				t.Fatalf("doc %d: %d tokens, peer %d: %q", pt.ids[addr], len(toks), p.numTokens[d], text)
			}
			for _, tok := range toks {
				if _, ok, err := p.tokens.get(tok); err != nil || !ok {
					t.Fatalf("doc %d: token %q not in the peer's index (%v)", pt.ids[addr], tok, err)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no documents checked")
	}
}

// TestPeerSearchesLancecatBuiltIndex: lancecat builds the index of a table
// the peer wrote (default settings, and with positions); the peer's
// search(q, "fts") over it returns the same top 10 and scores as over the
// index it builds itself on the same rows, and lancecat reads its own index
// to the same answers.
func TestPeerSearchesLancecatBuiltIndex(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	paras := corpus(t, 6000)
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows.jsonl")
	ids := make([]int64, len(paras))
	for i := range ids {
		ids[i] = int64(i)
	}
	writeJSONL(t, rows, ids, strs(paras))
	cat := filepath.Join(dir, "cat")
	for _, cfg := range []struct {
		name       string
		opts       map[string]any
		phrases    bool
		batchBytes int
		// buildBytes > 0 lowers BuildMemoryBytes: lancecat's build spills
		// many partitions and merges them.
		buildBytes int
	}{{"dflt", map[string]any{}, false, 0, 0}, {"pos", map[string]any{"withPosition": true}, true, 0, 0},
		{"pos-batched", map[string]any{"withPosition": true}, true, 4 << 10, 0},
		{"partitioned", map[string]any{}, false, 0, 64 << 10}, {"pos-partitioned", map[string]any{"withPosition": true}, true, 0, 256 << 10}} {
		t.Run(cfg.name, func(t *testing.T) {
			if cfg.batchBytes > 0 {
				defer func(old int) { invertBatchBytes = old }(invertBatchBytes)
				invertBatchBytes = cfg.batchBytes
			}
			spills := 0
			if cfg.buildBytes > 0 {
				defer func(old int) { BuildMemoryBytes = old }(BuildMemoryBytes)
				BuildMemoryBytes = cfg.buildBytes
				defer func() { onSpill = nil }()
				onSpill = func(int) error { spills++; return nil }
			}
			of := filepath.Join(dir, cfg.name+".json")
			writeJSON(t, of, cfg.opts)
			ref, ours := "ref_"+cfg.name, "ours_"+cfg.name
			if out, err := peer.Run(ctx, t, "fts.mjs", "create", cat, ref, rows, of); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if out, err := peer.Run(ctx, t, "fts.mjs", "table", cat, ours, rows); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			st, err := storage.Open(ctx, "file://"+filepath.Join(cat, ours+".lance"), storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ds, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			params := tokenizeDefault()
			params.WithPosition = cfg.phrases
			if _, err := CreateIndex(ctx, ds, "text", params, BuildOptions{Name: "text_idx"}); err != nil {
				t.Fatal(err)
			}
			qs := corpusQueries(paras, cfg.phrases)
			want := runPeerSearch(t, cat, ref, qs)
			got := runPeerSearch(t, cat, ours, qs)
			pt := openPeerTable(t, cat, ours)
			if cfg.buildBytes > 0 && spills < 2 {
				t.Fatalf("build budget %d: %d spilled partitions, want several", cfg.buildBytes, spills)
			}
			if parts := len(pt.ix.parts); parts != 1 {
				t.Fatalf("lancecat's index has %d partitions, want 1", parts)
			}
			for i, q := range qs {
				label := fmt.Sprintf("%s %+v", cfg.name, q)
				if len(want[i]) != len(got[i]) {
					t.Errorf("%s: peer over lancecat's index: %d hits, over its own %d\n%v\n%v", label, len(got[i]), len(want[i]), got[i], want[i])
					continue
				}
				for k := range want[i] {
					if !close(got[i][k].Score, want[i][k].Score) {
						t.Errorf("%s: hit %d score %v over lancecat's index, %v over the peer's", label, k, got[i][k].Score, want[i][k].Score)
						break
					}
				}
				hits, _, err := pt.ix.Search(ctx, q.toQuery(t), SearchOptions{Limit: q.Limit})
				if err != nil {
					t.Fatal(err)
				}
				compareHits(t, "lancecat over its own index: "+label, want[i], hits, pt.ids)
			}
		})
	}
}

func tokenizeDefault() tokenize.Params { return tokenize.DefaultParams() }
