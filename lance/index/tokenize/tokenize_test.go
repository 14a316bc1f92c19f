package tokenize

import (
	"reflect"
	"slices"
	"testing"
)

// TestDefaultPipeline: the reference's default analyzer splits on
// non-alphanumerics, drops tokens of 40+ bytes, lower-cases, stems, then
// removes tantivy's English stop words (after stemming) and folds to ASCII;
// positions keep the gaps of removed tokens.
func TestDefaultPipeline(t *testing.T) {
	a, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	got := a.Tokens(nil, "The Runners were running; a café, Ærø and naïve x2y3 "+string(make([]byte, 0))+"abcdefghijabcdefghijabcdefghijabcdefghij")
	want := []Token{{"runner", 1}, {"were", 2}, {"run", 3}, {"cafe", 5}, {"aero", 6}, {"naiv", 8}, {"x2y3", 9}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens %v, want %v", got, want)
	}
}

// TestParamsDefaults: absent JSON fields take the reference's serde
// defaults; unsupported settings are refused.
func TestParamsDefaults(t *testing.T) {
	p, err := ParseParams(`{"base_tokenizer":"whitespace","language":"English"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !p.LowerCase || !p.Stem || !p.RemoveStopWords || !p.ASCIIFolding || p.WithPosition || p.MaxTokenLength != nil || p.MinNgramLength != 3 {
		t.Errorf("defaults: %+v", p)
	}
	for _, bad := range []string{`{"base_tokenizer":"jieba/default","language":"English"}`, `{"base_tokenizer":"simple","language":"French","stem":true}`} {
		p, err := ParseParams(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(p); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestMemoSameTokens: a memoizing analyzer gives exactly the tokens of the
// plain one, the first time a word is seen and from its memory after, for
// stemming, stop words, case, folding, the length limit and n-grams.
func TestMemoSameTokens(t *testing.T) {
	texts := []string{
		"The running dogs ran quickly, and the dog RUNS; running again.",
		"Crème brûlée ÉTÉ straße İstanbul naïve café cafés",
		"connection connections connected connecting the THE a an",
		"supercalifragilisticexpialidocious supercalifragilisticexpialidocious x",
		"",
	}
	limit := 12
	for _, p := range []Params{
		DefaultParams(),
		func() Params { p := DefaultParams(); p.Stem, p.RemoveStopWords = false, false; return p }(),
		func() Params { p := DefaultParams(); p.LowerCase, p.ASCIIFolding = false, false; return p }(),
		func() Params { p := DefaultParams(); p.MaxTokenLength = &limit; return p }(),
		func() Params {
			p := DefaultParams()
			p.BaseTokenizer, p.MinNgramLength, p.MaxNgramLength = "ngram", 2, 3
			return p
		}(),
	} {
		a, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		m := a.Memo()
		for round := 0; round < 2; round++ {
			for _, text := range texts {
				want := a.Tokens(nil, text)
				got := m.Tokens(nil, text)
				if !slices.Equal(got, want) {
					t.Errorf("%+v round %d %q: memo %v, plain %v", p, round, text, got, want)
				}
			}
		}
		if a.memo != nil {
			t.Error("Memo changed the analyzer it copies")
		}
		if len(m.memo) == 0 {
			t.Error("the memoizing analyzer remembered nothing")
		}
	}
}
