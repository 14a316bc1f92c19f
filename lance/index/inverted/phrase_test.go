package inverted

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	"github.com/lancecat/lancecat/storage"
)

// phraseCorpus is a seeded corpus for phrase queries: "alpha" in nearly
// every document (a list of many posting blocks), "beta" and "gamma"
// frequent, "rare" in a few documents, stop words between them, and some
// long documents where a term occurs more than a position block (128)
// holds.
func phraseCorpus(n int) []string {
	rng := rand.New(rand.NewPCG(17, 4))
	words := []string{"alpha", "alpha", "alpha", "beta", "beta", "gamma", "the", "of", "delta", "epsilon", "zeta", "eta", "theta"}
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		m := 3 + rng.IntN(30)
		if i%97 == 5 {
			m = 400 + rng.IntN(300) // long: several position blocks of one term
		}
		for j := 0; j < m; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			w := words[rng.IntN(len(words))]
			if rng.IntN(200) == 0 {
				w = "rare"
			}
			if rng.IntN(50) == 0 {
				w = fmt.Sprintf("w%d", rng.IntN(40))
			}
			b.WriteString(w)
		}
		docs[i] = b.String()
	}
	return docs
}

// bruteForce holds every document's tokens and the corpus statistics.
type bruteForce struct {
	an    *tokenize.Analyzer
	toks  [][]tokenize.Token
	df    map[string]uint64
	avgdl float32
}

func newBruteForce(an *tokenize.Analyzer, docs []string) *bruteForce {
	bf := &bruteForce{an: an, toks: make([][]tokenize.Token, len(docs)), df: map[string]uint64{}}
	var total uint64
	for i, d := range docs {
		bf.toks[i] = an.Tokens(nil, d)
		total += uint64(len(bf.toks[i]))
		seen := map[string]bool{}
		for _, tk := range bf.toks[i] {
			if !seen[tk.Text] {
				seen[tk.Text] = true
				bf.df[tk.Text]++
			}
		}
	}
	bf.avgdl = float32(total) / float32(len(docs))
	return bf
}

// phrase scores the documents matching the phrase q by reading every
// document's tokens: a document matches when, for a position p0 of the
// query's first term at least as far in as the term is in the query,
// every query term sits at p0 plus its offset from the first in the query.
// The score is the sum over the query's terms (repeats included) of idf
// times the BM25 term weight, over the corpus statistics.
func (bf *bruteForce) phrase(q string) map[int]float32 {
	qt := bf.an.Tokens(nil, q)
	out := map[int]float32{}
	if len(qt) == 0 {
		return out
	}
	for i, toks := range bf.toks {
		at := map[string]map[int]bool{}
		freq := map[string]uint32{}
		for _, tk := range toks {
			if at[tk.Text] == nil {
				at[tk.Text] = map[int]bool{}
			}
			at[tk.Text][tk.Position] = true
			freq[tk.Text]++
		}
		match := false
		for p0 := range at[qt[0].Text] {
			if p0 < qt[0].Position {
				continue
			}
			all := true
			for _, tk := range qt[1:] {
				if !at[tk.Text][p0+tk.Position-qt[0].Position] {
					all = false
					break
				}
			}
			if all {
				match = true
				break
			}
		}
		if !match {
			continue
		}
		var s float32
		for _, tk := range qt {
			s += IDF(bf.df[tk.Text], uint64(len(bf.toks))) * weight(freq[tk.Text], docNorm(uint32(len(toks)), bf.avgdl))
		}
		out[i] = s
	}
	return out
}

// buildPhraseIndex writes docs (id i = document i) to an in-memory dataset
// and builds lancecat's index with positions over it.
func buildPhraseIndex(t *testing.T, docs []string) (*Index, map[uint64]int) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "memory://", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for from := 0; from < len(docs); from += 1000 {
		ib := array.NewInt64Builder(memory.DefaultAllocator)
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		for i := from; i < min(from+1000, len(docs)); i++ {
			ib.Append(int64(i))
			sb.Append(docs[i])
		}
		n := int64(sb.Len())
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), sb.NewArray()}, n))
	}
	ds, err := dataset.CreateWithData(ctx, st, "t", schema, recs, dataset.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	params := tokenize.DefaultParams()
	params.WithPosition = true
	if ds, err = CreateIndex(ctx, ds, "text", params, BuildOptions{Name: "text_idx"}); err != nil {
		t.Fatal(err)
	}
	var meta *dataset.IndexMetadata
	for _, m := range ds.Indices() {
		if m.Type() == "Inverted" {
			meta = m
		}
	}
	ix, err := Open(ctx, ds, meta)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint64]int{}
	err = ds.Scan(ctx, dataset.ScanOptions{Columns: []string{"id"}, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		idc := rec.Column(0).(*array.Int64)
		ac := rec.Column(1).(*array.Uint64)
		for i := 0; i < int(rec.NumRows()); i++ {
			ids[ac.Value(i)] = int(idc.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix, ids
}

// TestPhraseMatchesBruteForce: phrase queries return exactly the
// documents, and the scores, of a brute-force phrase match over the
// documents' tokens: frequent and rare terms, a term repeated in the
// phrase, stop words inside it (their positions still count), an absent
// term, lists spanning many posting blocks and documents with several
// position blocks of one term; with the posting cache as built, with a
// cache too small to keep any list (positions read again per query) and
// through top-k limits.
func TestPhraseMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	docs := phraseCorpus(3000)
	ix, ids := buildPhraseIndex(t, docs)
	bf := newBruteForce(ix.Analyzer(), docs)
	queries := []string{
		"alpha beta", "beta alpha", "alpha alpha", "alpha alpha alpha", "alpha beta alpha",
		"rare alpha", "alpha rare", "rare rare", "gamma rare beta", "alpha the beta", "alpha of the beta",
		"the alpha", "beta gamma delta", "w3 alpha", "alpha w7 beta", "absent alpha", "alpha", "rare",
		"theta eta zeta", "the of",
	}
	for _, cache := range []string{"default", "tiny"} {
		if cache == "tiny" {
			ix.postings = newPostingCache(1)
		}
		for _, q := range queries {
			want := bf.phrase(q)
			hits, _, err := ix.Search(ctx, Query{Kind: Phrase, Text: q}, SearchOptions{})
			if err != nil {
				t.Fatalf("%s %q: %v", cache, q, err)
			}
			got := map[int]float32{}
			for _, h := range hits {
				got[ids[h.RowAddr]] = h.Score
			}
			if len(got) != len(want) {
				t.Errorf("%s %q: %d documents, brute force %d", cache, q, len(got), len(want))
			}
			if t.Failed() {
				t.FailNow()
			}
			for d, s := range want {
				if g, ok := got[d]; !ok {
					t.Errorf("%s %q: document %d missing", cache, q, d)
				} else if g != s {
					t.Errorf("%s %q: document %d scored %v, brute force %v", cache, q, d, g, s)
				}
			}
			for d := range got {
				if _, ok := want[d]; !ok {
					t.Errorf("%s %q: document %d is no phrase match", cache, q, d)
				}
			}
			// top k: the best of the brute force, ties by row address
			top, _, err := ix.Search(ctx, Query{Kind: Phrase, Text: q}, SearchOptions{Limit: 7})
			if err != nil {
				t.Fatal(err)
			}
			all := slices.Clone(hits)
			slices.SortFunc(all, func(a, b Hit) int {
				if better(a, b) {
					return -1
				}
				if better(b, a) {
					return 1
				}
				return 0
			})
			if len(all) > 7 {
				all = all[:7]
			}
			if !slices.Equal(top, all) {
				t.Errorf("%s %q: top 7 %v, want %v", cache, q, top, all)
			}
		}
	}
	if n := len(bf.phrase("alpha beta")); n < 500 {
		t.Fatalf("corpus too thin: %d documents hold \"alpha beta\"", n)
	}
}

// TestPositionListLookups: a positionList returns each document's
// positions for lookups in any order (forward within and across skip
// spans, and backward), with a cursor that is reused.
func TestPositionListLookups(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var want [][]uint32
	pl := &positionList{}
	for d := 0; d < 1000; d++ {
		if d%posSkip == 0 {
			pl.skip = append(pl.skip, uint32(len(pl.data)))
		}
		n := rng.IntN(6)
		if d%50 == 0 {
			n = 300
		}
		var ps []uint32
		at := uint32(rng.IntN(3))
		for i := 0; i < n; i++ {
			ps = append(ps, at)
			at += uint32(rng.IntN(2000)) // gaps of one to three uvarint bytes
		}
		if d == 7 && n > 1 {
			ps[1] = 0 // a decreasing position round-trips too
			ps[0] = 5
		}
		want = append(want, ps)
		pl.data = appendPositions(pl.data, ps)
	}
	pl.docs = len(want)
	var c posCursor
	var buf []uint32
	check := func(i int) {
		t.Helper()
		got, err := pl.positions(&c, i, buf)
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if !slices.Equal(got, want[i]) && !(len(got) == 0 && len(want[i]) == 0) {
			t.Fatalf("document %d: %v, want %v", i, got, want[i])
		}
		buf = got
	}
	for i := range want {
		check(i)
	}
	for r := 0; r < 3000; r++ {
		check(rng.IntN(len(want)))
	}
	if _, err := pl.positions(&c, len(want), buf); err == nil {
		t.Error("a lookup past the list did not fail")
	}
}

// TestGallop: gallop finds the first doc at or above the target from any
// start, as a linear scan does.
func TestGallop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	docs := []uint32{}
	for d := uint32(0); len(docs) < 3000; d += 1 + uint32(rng.IntN(20)) {
		docs = append(docs, d)
	}
	for r := 0; r < 20000; r++ {
		i := rng.IntN(len(docs) + 1)
		d := uint32(rng.IntN(int(docs[len(docs)-1]) + 40))
		want := i
		for want < len(docs) && docs[want] < d {
			want++
		}
		if got := gallop(docs, i, d); got != want {
			t.Fatalf("gallop(docs, %d, %d) = %d, want %d", i, d, got, want)
		}
	}
}
