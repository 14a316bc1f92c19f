// Package tokenize is Lance's full-text tokenizer pipeline (the tantivy
// analyzer an INVERTED index records in its "params"), reproduced in Go so
// that documents and queries split into the same terms as in the reference:
// a base tokenizer (simple, whitespace, raw or ngram), then, in this order,
// the long-token filter, lower-casing, the English Snowball stemmer, the stop
// word filter and ASCII folding.
package tokenize

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// ErrUnsupported reports tokenizer settings lancecat cannot reproduce.
var ErrUnsupported = errors.New("unsupported tokenizer")

// Params are the tokenizer settings of an INVERTED index, as Lance
// serializes them (JSON, the index metadata's "params").
type Params struct {
	LanceTokenizer  *string  `json:"lance_tokenizer"`
	BaseTokenizer   string   `json:"base_tokenizer"`
	Language        string   `json:"language"`
	WithPosition    bool     `json:"with_position"`
	MaxTokenLength  *int     `json:"max_token_length"`
	LowerCase       bool     `json:"lower_case"`
	Stem            bool     `json:"stem"`
	RemoveStopWords bool     `json:"remove_stop_words"`
	CustomStopWords []string `json:"custom_stop_words"`
	ASCIIFolding    bool     `json:"ascii_folding"`
	MinNgramLength  int      `json:"min_ngram_length"`
	MaxNgramLength  int      `json:"max_ngram_length"`
	PrefixOnly      bool     `json:"prefix_only"`
}

// DefaultParams are the reference's defaults (InvertedIndexParams::default).
func DefaultParams() Params {
	forty := 40
	return Params{
		BaseTokenizer: "simple", Language: "English", MaxTokenLength: &forty,
		LowerCase: true, Stem: true, RemoveStopWords: true, ASCIIFolding: true,
		MinNgramLength: 3, MaxNgramLength: 3,
	}
}

// ParseParams decodes the JSON params, filling absent fields with the
// reference's serde defaults (booleans true, n-gram lengths 3).
func ParseParams(s string) (Params, error) {
	p := DefaultParams()
	p.MaxTokenLength = nil
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return Params{}, fmt.Errorf("tokenizer params: %w", err)
	}
	return p, nil
}

// JSON encodes p as the reference does (field order of its struct).
func (p Params) JSON() string {
	b, _ := json.Marshal(p)
	return string(b)
}

// Token is one term of a text and its position (the base tokenizer's
// ordinal: filtered tokens leave gaps, as in tantivy).
type Token struct {
	Text     string
	Position int
}

// Analyzer tokenizes text with one Params.
type Analyzer struct {
	p     Params
	stop  map[string]struct{}
	limit int // tokens of >= limit bytes are dropped; 0: no limit
	// memo, when set, remembers what filter made of each word (see Memo).
	memo map[string]filtered
}

type filtered struct {
	text string
	ok   bool
}

// maxMemo bounds the words a memoizing analyzer remembers.
const maxMemo = 1 << 20

// Memo returns a copy of a that remembers the term each distinct word
// becomes: stemming dominates tokenizing, and a corpus repeats its words
// (Zipf), so an index build or a scan of many documents stems each word
// once. The copy is not safe for concurrent use; a stays as it is.
func (a *Analyzer) Memo() *Analyzer {
	c := *a
	c.memo = make(map[string]filtered, 1024)
	return &c
}

// New builds the analyzer of p.
func New(p Params) (*Analyzer, error) {
	switch p.BaseTokenizer {
	case "simple", "whitespace", "raw":
	case "ngram":
		if p.MinNgramLength <= 0 || p.MaxNgramLength < p.MinNgramLength {
			return nil, fmt.Errorf("%w: ngram lengths %d..%d", ErrUnsupported, p.MinNgramLength, p.MaxNgramLength)
		}
	default:
		return nil, fmt.Errorf("%w: base tokenizer %q (lancecat reproduces simple, whitespace, raw and ngram)", ErrUnsupported, p.BaseTokenizer)
	}
	if p.LanceTokenizer != nil && *p.LanceTokenizer != "text" {
		return nil, fmt.Errorf("%w: lance tokenizer %q (only text documents)", ErrUnsupported, *p.LanceTokenizer)
	}
	if (p.Stem || (p.RemoveStopWords && p.CustomStopWords == nil)) && !strings.EqualFold(p.Language, "English") {
		return nil, fmt.Errorf("%w: language %q (lancecat stems and removes stop words for English only)", ErrUnsupported, p.Language)
	}
	a := &Analyzer{p: p}
	if p.MaxTokenLength != nil {
		a.limit = *p.MaxTokenLength
	}
	if p.RemoveStopWords {
		a.stop = map[string]struct{}{}
		words := englishStopWords
		if p.CustomStopWords != nil {
			words = p.CustomStopWords
		}
		for _, w := range words {
			a.stop[w] = struct{}{}
		}
	}
	return a, nil
}

// Params returns the settings of a.
func (a *Analyzer) Params() Params { return a.p }

// englishStopWords is tantivy's English list (Lucene's classic 33 words),
// checked against the peer: every other word of the Snowball list is indexed.
var englishStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
	"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

// Tokens appends the terms of text to dst.
func (a *Analyzer) Tokens(dst []Token, text string) []Token {
	a.Words(text, func(w string, pos int) {
		if t, ok := a.filter(w); ok {
			dst = append(dst, Token{Text: t, Position: pos})
		}
	})
	return dst
}

// Filter is what the filter chain (length limit, lower case, stemming,
// stop words, folding) makes of one word of Words: its term, or false
// when the word is dropped.
func (a *Analyzer) Filter(word string) (string, bool) { return a.filter(word) }

// Words calls fn with each word the base tokenizer cuts text into, before
// filtering, and its position (filtered words leave gaps; n-grams are all
// at position 0). Tokens is Words then Filter.
func (a *Analyzer) Words(text string, fn func(word string, pos int)) {
	pos := 0
	emit := func(s string) {
		fn(s, pos)
		pos++
	}
	switch a.p.BaseTokenizer {
	case "simple":
		start := -1
		for i, r := range text {
			if isAlnum(r) {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				emit(text[start:i])
				start = -1
			}
		}
		if start >= 0 {
			emit(text[start:])
		}
	case "whitespace":
		start := -1
		for i := 0; i < len(text); i++ {
			if isASCIISpace(text[i]) {
				if start >= 0 {
					emit(text[start:i])
					start = -1
				}
			} else if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			emit(text[start:])
		}
	case "raw":
		emit(text)
	case "ngram":
		a.ngrams(text, func(s string) { fn(s, 0) })
	}
}

// Terms returns the texts of the tokens of text (the query side).
func (a *Analyzer) Terms(text string) []string {
	toks := a.Tokens(nil, text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

// ngrams emits the character n-grams of text as tantivy's NgramTokenizer
// does: for every start character, lengths min..max (only start 0 when
// prefix_only).
func (a *Analyzer) ngrams(text string, emit func(string)) {
	var starts []int
	for i := range text {
		starts = append(starts, i)
	}
	starts = append(starts, len(text))
	nchars := len(starts) - 1
	for s := 0; s < nchars; s++ {
		if a.p.PrefixOnly && s > 0 {
			break
		}
		for n := a.p.MinNgramLength; n <= a.p.MaxNgramLength && s+n <= nchars; n++ {
			emit(text[starts[s]:starts[s+n]])
		}
	}
}

func (a *Analyzer) filter(s string) (string, bool) {
	if a.memo == nil {
		return a.filterWord(s)
	}
	if f, ok := a.memo[s]; ok {
		return f.text, f.ok
	}
	t, ok := a.filterWord(s)
	if len(a.memo) < maxMemo {
		// s may point into a document's buffer: the memo keeps a copy.
		k := strings.Clone(s)
		if t == s {
			t = k
		}
		a.memo[k] = filtered{t, ok}
	}
	return t, ok
}

func (a *Analyzer) filterWord(s string) (string, bool) {
	if a.limit > 0 && len(s) >= a.limit {
		return "", false
	}
	if a.p.LowerCase {
		s = lower(s)
	}
	if a.p.Stem {
		s = stem(s)
	}
	if a.stop != nil {
		if _, ok := a.stop[s]; ok {
			return "", false
		}
	}
	if a.p.ASCIIFolding {
		s = fold(s)
	}
	return s, true
}

// isAlnum is Rust's char::is_alphanumeric: Alphabetic or Numeric.
func isAlnum(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Other_Alphabetic, r)
}

// isASCIISpace is Rust's u8::is_ascii_whitespace.
func isASCIISpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

// lower is tantivy's LowerCaser: char-wise to_lowercase.
func lower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' { // Rust: "i\u{307}"
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// stem is the Snowball English (Porter2) stemmer, as rust-stemmers applies
// it in tantivy's Stemmer filter.
func stem(s string) string {
	if s == "" {
		return s
	}
	return english.Stem(s, true)
}

// fold maps letters and digits to their ASCII equivalents where one exists
// (tantivy's AsciiFoldingFilter, after Lucene): compatibility
// decomposition without combining marks, plus the letters that do not
// decompose (ß, æ, ø, ł, ...).
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if f, ok := foldSpecial[r]; ok {
			b.WriteString(f)
			continue
		}
		if f, ok := foldDecompose(r); ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func foldDecompose(r rune) (string, bool) {
	if unicode.IsSpace(r) {
		return "", false
	}
	d := norm.NFKD.String(string(r))
	var out []byte
	for _, c := range d {
		if unicode.Is(unicode.Mn, c) {
			continue
		}
		if c >= utf8.RuneSelf {
			return "", false
		}
		out = append(out, byte(c))
	}
	if len(out) == 0 {
		return "", false
	}
	return string(out), true
}

var foldSpecial = map[rune]string{
	'Æ': "AE", 'æ': "ae", 'Ø': "O", 'ø': "o", 'Œ': "OE", 'œ': "oe", 'ß': "ss", 'ẞ': "SS",
	'Đ': "D", 'đ': "d", 'Ð': "D", 'ð': "d", 'Ł': "L", 'ł': "l", 'Þ': "TH", 'þ': "th",
	'Ħ': "H", 'ħ': "h", 'ı': "i", 'Ŧ': "T", 'ŧ': "t", 'Ŋ': "N", 'ŋ': "n", 'ĸ': "q",
	'ſ': "s", 'Ɓ': "B", 'ƀ': "b", 'Ƈ': "C", 'ƈ': "c", 'Ɗ': "D", 'Ƒ': "F", 'ƒ': "f",
	'Ɠ': "G", 'Ɨ': "I", 'Ƙ': "K", 'ƙ': "k", 'ƚ': "l", 'Ɲ': "N", 'ƞ': "n", 'Ƥ': "P",
	'ƥ': "p", 'ƫ': "t", 'Ƭ': "T", 'ƭ': "t", 'Ʈ': "T", 'Ʋ': "V", 'Ƴ': "Y", 'ƴ': "y",
	'Ƶ': "Z", 'ƶ': "z", 'ȡ': "d", 'ȴ': "l", 'ȵ': "n", 'ȶ': "t", 'ȷ': "j", 'Ⱥ': "A",
	'Ȼ': "C", 'ȼ': "c", 'Ƚ': "L", 'Ⱦ': "T", 'Ƀ': "B", 'Ɇ': "E", 'ɇ': "e", 'Ɉ': "J",
	'ɉ': "j", 'Ɍ': "R", 'ɍ': "r", 'Ɏ': "Y", 'ɏ': "y", 'ɓ': "b", 'ɕ': "c", 'ɖ': "d",
	'ɗ': "d", 'ɠ': "g", 'ɡ': "g", 'ɦ': "h", 'ɨ': "i", 'ɫ': "l", 'ɬ': "l", 'ɭ': "l",
	'ɱ': "m", 'ɲ': "n", 'ɳ': "n", 'ɼ': "r", 'ɽ': "r", 'ɾ': "r", 'ʂ': "s", 'ʈ': "t",
	'ʉ': "u", 'ʋ': "v", 'ʐ': "z", 'ʑ': "z",
}
