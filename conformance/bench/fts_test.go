package main

import (
	"slices"
	"strings"
	"testing"
)

// The corpus and queries are the same in every run (both sides and runs on
// different days must measure the same work), documents have 20 to 80 words
// of the vocabulary, and every phrase occurs in some document.
func TestFTSCorpusDeterministic(t *testing.T) {
	a, b := ftsCorpus(500), ftsCorpus(500)
	if !slices.Equal(a, b) {
		t.Fatal("two corpora of 500 documents differ")
	}
	if c := ftsCorpus(1000); !slices.Equal(c[:500], a) {
		t.Error("the first 500 of 1,000 documents differ from a corpus of 500")
	}
	vocab := map[string]bool{}
	for _, w := range ftsVocabulary() {
		vocab[w] = true
	}
	if len(vocab) != 20000 {
		t.Errorf("vocabulary has %d distinct words, want 20000", len(vocab))
	}
	distinct := map[string]bool{}
	for i, d := range a {
		f := strings.Fields(d)
		if len(f) < 20 || len(f) > 80 {
			t.Errorf("doc %d has %d words", i, len(f))
		}
		for _, w := range f {
			if !vocab[w] {
				t.Errorf("doc %d: %q is not in the vocabulary", i, w)
			}
			distinct[w] = true
		}
	}
	// Zipf: a long tail, not a handful of words.
	if len(distinct) < 1000 {
		t.Errorf("%d distinct words in 500 documents, want a long tail", len(distinct))
	}
	q1, q2 := ftsQueries(a, 20), ftsQueries(a, 20)
	for _, k := range ftsKinds {
		if !slices.Equal(q1[k.key], q2[k.key]) || len(q1[k.key]) != 20 {
			t.Errorf("%s queries differ between calls or are not 20: %v", k.key, q1[k.key])
		}
	}
	for _, p := range q1["phrase"] {
		if !slices.ContainsFunc(a, func(d string) bool { return strings.Contains(" "+d+" ", " "+p+" ") }) {
			t.Errorf("phrase %q occurs in no document", p)
		}
	}
	for _, q := range q1["multi"] {
		if n := len(strings.Fields(q)); n != 3 {
			t.Errorf("multi-word query %q has %d words", q, n)
		}
	}
}
