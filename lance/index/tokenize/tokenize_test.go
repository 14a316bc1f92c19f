package tokenize

import (
	"reflect"
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
