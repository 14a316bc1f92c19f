package inverted

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// BM25 parameters of the reference.
const (
	K1 float32 = 1.2
	B  float32 = 0.75
)

// QueryKind is the type of a full-text query (Lance's FtsQuery variants).
type QueryKind int

const (
	// Match scores the documents holding any (Or) or every (And) term of Text.
	Match QueryKind = iota
	// Phrase matches the terms of Text at consecutive positions.
	Phrase
	// Prefix matches the terms of the index starting with Text's term
	// (lancecat's mapping of MySQL's word*; scored as a Match of them).
	Prefix
	// Boolean combines Clauses: must (all), should (adds to the score, or
	// any when there is no must), must_not (excluded).
	Boolean
)

func (k QueryKind) String() string {
	return [...]string{"match", "phrase", "prefix", "boolean"}[k]
}

// Occur says how a Boolean clause counts.
type Occur int

const (
	Should Occur = iota
	Must
	MustNot
)

func (o Occur) String() string { return [...]string{"SHOULD", "MUST", "MUST_NOT"}[o] }

// Query is a full-text query.
type Query struct {
	Kind    QueryKind
	Text    string
	And     bool // Match: every term must occur
	Clauses []Clause
}

// Clause is one part of a Boolean query.
type Clause struct {
	Occur Occur
	Query Query
}

func (q Query) String() string {
	switch q.Kind {
	case Boolean:
		s := "boolean("
		for i, c := range q.Clauses {
			if i > 0 {
				s += ", "
			}
			s += c.Occur.String() + " " + c.Query.String()
		}
		return s + ")"
	case Match:
		op := "OR"
		if q.And {
			op = "AND"
		}
		return fmt.Sprintf("match(%q, %s)", q.Text, op)
	}
	return fmt.Sprintf("%s(%q)", q.Kind, q.Text)
}

// Hit is a scored row.
type Hit struct {
	RowAddr uint64
	Score   float32
}

// Doc is a row of a fragment the index does not cover.
type Doc struct {
	RowAddr uint64
	Text    *string
}

// SearchOptions tune Search.
type SearchOptions struct {
	// Limit keeps the best Limit hits (0: all).
	Limit int
	// Allow, when set, is the prefilter: rows for which it returns false
	// are not returned (and do not take a place in the top k).
	Allow func(rowAddr uint64) bool
	// Unindexed are the rows of uncovered fragments, in scan order; they are
	// scored as the reference's flat search does.
	Unindexed []Doc
}

// Stats of one search.
type Stats struct {
	Terms            int
	PostingsRead     int
	DocsScored       int
	UnindexedScanned int
}

// Search answers q over the live rows the index covers plus opts.Unindexed,
// best first (ties by row address), with the reference's BM25 scores.
func (ix *Index) Search(ctx context.Context, q Query, opts SearchOptions) ([]Hit, Stats, error) {
	var st Stats
	scores, err := ix.eval(ctx, q, &st)
	if err != nil {
		return nil, st, err
	}
	hits := make([]Hit, 0, len(scores))
	for addr, s := range scores {
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		live, err := ix.isLive(ctx, addr)
		if err != nil {
			return nil, st, err
		}
		if !live || (opts.Allow != nil && !opts.Allow(addr)) {
			continue
		}
		hits = append(hits, Hit{addr, s})
	}
	if len(opts.Unindexed) > 0 {
		flat, err := ix.flatScores(ctx, q, opts.Unindexed)
		if err != nil {
			return nil, st, err
		}
		st.UnindexedScanned = len(opts.Unindexed)
		for _, h := range flat {
			if opts.Allow == nil || opts.Allow(h.RowAddr) {
				hits = append(hits, h)
			}
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].RowAddr < hits[j].RowAddr
	})
	if opts.Limit > 0 && len(hits) > opts.Limit {
		hits = hits[:opts.Limit]
	}
	return hits, st, nil
}

// eval scores the covered documents matching q (deleted ones included).
func (ix *Index) eval(ctx context.Context, q Query, st *Stats) (map[uint64]float32, error) {
	switch q.Kind {
	case Match, Phrase, Prefix:
		return ix.evalTerms(ctx, q, st)
	case Boolean:
		var must map[uint64]float32
		hasMust := false
		for _, c := range q.Clauses {
			if c.Occur != Must {
				continue
			}
			r, err := ix.eval(ctx, c.Query, st)
			if err != nil {
				return nil, err
			}
			if !hasMust {
				must, hasMust = r, true
				continue
			}
			for a, s := range must {
				if o, ok := r[a]; ok {
					must[a] = s + o
				} else {
					delete(must, a)
				}
			}
		}
		res := must
		if res == nil {
			res = map[uint64]float32{}
		}
		for _, c := range q.Clauses {
			if c.Occur != Should {
				continue
			}
			r, err := ix.eval(ctx, c.Query, st)
			if err != nil {
				return nil, err
			}
			for a, s := range r {
				if o, ok := res[a]; ok {
					res[a] = o + s
				} else if !hasMust {
					res[a] = s
				}
			}
		}
		for _, c := range q.Clauses {
			if c.Occur != MustNot {
				continue
			}
			r, err := ix.eval(ctx, c.Query, st)
			if err != nil {
				return nil, err
			}
			for a := range r {
				delete(res, a)
			}
		}
		return res, nil
	}
	return nil, fmt.Errorf("%w: query kind %d", ErrUnsupported, q.Kind)
}

type termPosting struct {
	token string
	parts []*posting // per partition; nil where the token is absent
}

// evalTerms scores a match, phrase or prefix query.
func (ix *Index) evalTerms(ctx context.Context, q Query, st *Stats) (map[uint64]float32, error) {
	toks := ix.an.Tokens(nil, q.Text)
	terms := make([]string, len(toks))
	qpos := make([]uint32, len(toks)) // a phrase's term offsets (stop words leave gaps)
	for i, tk := range toks {
		terms[i] = tk.Text
		qpos[i] = uint32(tk.Position)
	}
	phrase := q.Kind == Phrase
	if phrase && !ix.HasPositions() {
		return nil, fmt.Errorf("%w: phrase query on an index built without positions (with_position = false)", ErrUnsupported)
	}
	if q.Kind == Prefix {
		expanded, err := ix.expandPrefix(terms)
		if err != nil {
			return nil, err
		}
		terms = expanded
	}
	if !phrase {
		seen := map[string]bool{}
		uniq := terms[:0:0]
		for _, t := range terms {
			if !seen[t] {
				seen[t] = true
				uniq = append(uniq, t)
			}
		}
		terms = uniq
	}
	st.Terms += len(terms)
	out := map[uint64]float32{}
	if len(terms) == 0 {
		return out, nil
	}
	// Document frequencies over every partition (the reference's
	// IndexBM25Scorer).
	df := make([]uint64, len(terms))
	ids := make([][]int64, len(ix.parts))
	for pi, p := range ix.parts {
		ids[pi] = make([]int64, len(terms))
		for ti, t := range terms {
			id, ok, err := p.tokens.get(t)
			if err != nil {
				return nil, err
			}
			if !ok {
				ids[pi][ti] = -1
				continue
			}
			if int(id) >= len(p.lengths) {
				return nil, corrupt("token %q id %d of %d", t, id, len(p.lengths))
			}
			ids[pi][ti] = int64(id)
			df[ti] += uint64(p.lengths[id])
		}
	}
	avgdl := float32(ix.totalTokens) / float32(ix.numDocs)
	idf := make([]float32, len(terms))
	for ti := range terms {
		if df[ti] > 0 {
			idf[ti] = IDF(df[ti], ix.numDocs)
		}
	}
	for pi, p := range ix.parts {
		// Within a partition, the reference drops absent terms (a phrase
		// with an absent term matches nothing).
		var present []int
		for ti := range terms {
			if ids[pi][ti] >= 0 {
				present = append(present, ti)
			} else if phrase {
				present = nil
				break
			}
		}
		if len(present) == 0 {
			continue
		}
		lists := make([]*posting, len(present))
		for k, ti := range present {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			pl, err := p.readPosting(ctx, uint32(ids[pi][ti]), phrase)
			if err != nil {
				return nil, fmt.Errorf("partition %d token %q: %w", p.id, terms[ti], err)
			}
			lists[k] = pl
			st.PostingsRead++
		}
		need := 1
		if q.And || phrase {
			need = len(present)
		}
		type acc struct {
			score float32
			n     int
		}
		cand := map[uint32]*acc{}
		idx := make([]map[uint32]int, len(lists))
		for k, pl := range lists {
			ti := present[k]
			if phrase {
				idx[k] = make(map[uint32]int, len(pl.docs))
			}
			for i, d := range pl.docs {
				a := cand[d]
				if a == nil {
					a = &acc{}
					cand[d] = a
				}
				a.n++
				a.score += idf[ti] * docWeight(pl.freqs[i], p.numTokens[d], avgdl)
				if phrase {
					idx[k][d] = i
				}
			}
		}
		for d, a := range cand {
			if a.n < need {
				continue
			}
			if phrase && !phraseAt(lists, idx, d, qpos) {
				continue
			}
			st.DocsScored++
			out[p.rowAddrs[d]] = a.score
		}
	}
	return out, nil
}

// phraseAt reports whether the terms occur at consecutive positions in doc d.
func phraseAt(lists []*posting, idx []map[uint32]int, d uint32, qpos []uint32) bool {
	first := lists[0].positions[idx[0][d]]
	for _, p0 := range first {
		// The reference aligns on the query's own positions: a term must
		// sit at least as far into the document as into the query.
		if p0 < qpos[0] {
			continue
		}
		ok := true
		for k := 1; k < len(lists); k++ {
			ps := lists[k].positions[idx[k][d]]
			want := p0 + qpos[k] - qpos[0]
			i := sort.Search(len(ps), func(i int) bool { return ps[i] >= want })
			if i == len(ps) || ps[i] != want {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// expandPrefix replaces each term by the index's tokens that start with it.
func (ix *Index) expandPrefix(terms []string) ([]string, error) {
	const maxExpansions = 1 << 12
	seen := map[string]bool{}
	var out []string
	for _, t := range terms {
		for _, p := range ix.parts {
			err := p.tokens.prefix(t, func(tok string, _ uint32) error {
				if !seen[tok] {
					if len(out) >= maxExpansions {
						return fmt.Errorf("%w: prefix %q matches more than %d terms", ErrUnsupported, t, maxExpansions)
					}
					seen[tok] = true
					out = append(out, tok)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// IDF is the reference's inverse document frequency, in float32.
func IDF(docsWithTerm, numDocs uint64) float32 {
	n, nq := float32(numDocs), float32(docsWithTerm)
	return float32(math.Log(float64((n-nq+0.5)/(nq+0.5) + 1)))
}

func docWeight(freq, docTokens uint32, avgdl float32) float32 {
	f := float32(freq)
	norm := K1 * (1 - B + B*float32(docTokens)/avgdl)
	return (K1 + 1) * f / (f + norm)
}
