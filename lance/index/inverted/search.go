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
	top := topK{limit: opts.Limit}
	// offer admits one covered document: only a row that would take a place
	// in the top k is checked for liveness and the prefilter.
	offer := func(addr uint64, s float32) error {
		if !top.wants(addr, s) {
			return nil
		}
		live, err := ix.isLive(ctx, addr)
		if err != nil {
			return err
		}
		if live && (opts.Allow == nil || opts.Allow(addr)) {
			top.push(Hit{addr, s})
		}
		return nil
	}
	// A boolean query of one MUST or SHOULD clause scores as that clause
	// ('"a phrase"' IN BOOLEAN MODE is one): stream it into the top k
	// instead of collecting every match in a map first.
	for q.Kind == Boolean && len(q.Clauses) == 1 && q.Clauses[0].Occur != MustNot {
		q = q.Clauses[0].Query
	}
	if q.Kind == Boolean {
		scores, err := ix.eval(ctx, q, &st)
		if err != nil {
			return nil, st, err
		}
		n := 0
		for addr, s := range scores {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, st, err
				}
			}
			if err := offer(addr, s); err != nil {
				return nil, st, err
			}
		}
	} else if err := ix.scoreTerms(ctx, q, &st, offer); err != nil {
		return nil, st, err
	}
	if len(opts.Unindexed) > 0 {
		flat, err := ix.flatScores(ctx, q, opts.Unindexed)
		if err != nil {
			return nil, st, err
		}
		st.UnindexedScanned = len(opts.Unindexed)
		for _, h := range flat {
			if (opts.Allow == nil || opts.Allow(h.RowAddr)) && top.wants(h.RowAddr, h.Score) {
				top.push(h)
			}
		}
	}
	return top.sorted(), st, nil
}

// better is the order of hits: higher score first, then lower row address.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.RowAddr < b.RowAddr
}

// topK keeps the best limit hits (all of them when limit is 0) in a heap
// whose root is the worst kept.
type topK struct {
	limit int
	hits  []Hit
}

// wants reports whether a hit would be kept.
func (t *topK) wants(addr uint64, s float32) bool {
	return t.limit <= 0 || len(t.hits) < t.limit || better(Hit{addr, s}, t.hits[0])
}

func (t *topK) push(h Hit) {
	if t.limit <= 0 {
		t.hits = append(t.hits, h)
		return
	}
	if len(t.hits) < t.limit {
		t.hits = append(t.hits, h)
		// sift up
		i := len(t.hits) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !better(t.hits[p], t.hits[i]) {
				break
			}
			t.hits[p], t.hits[i] = t.hits[i], t.hits[p]
			i = p
		}
		return
	}
	t.hits[0] = h
	// sift down: the root must be the worst
	i, n := 0, len(t.hits)
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < n && better(t.hits[w], t.hits[l]) {
			w = l
		}
		if r < n && better(t.hits[w], t.hits[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.hits[i], t.hits[w] = t.hits[w], t.hits[i]
		i = w
	}
}

// sorted returns the kept hits best first.
func (t *topK) sorted() []Hit {
	out := t.hits
	if out == nil {
		out = []Hit{}
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
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
	out := map[uint64]float32{}
	err := ix.scoreTerms(ctx, q, st, func(addr uint64, s float32) error {
		out[addr] = s
		return nil
	})
	return out, err
}

// scoreTerms calls emit with the row address and score of every covered
// document (deleted ones included) matching a match, phrase or prefix
// query, partition by partition.
func (ix *Index) scoreTerms(ctx context.Context, q Query, st *Stats, emit func(addr uint64, score float32) error) error {
	toks := ix.an.Tokens(nil, q.Text)
	terms := make([]string, len(toks))
	qpos := make([]uint32, len(toks)) // a phrase's term offsets (stop words leave gaps)
	for i, tk := range toks {
		terms[i] = tk.Text
		qpos[i] = uint32(tk.Position)
	}
	phrase := q.Kind == Phrase
	if phrase && !ix.HasPositions() {
		return fmt.Errorf("%w: phrase query on an index built without positions (with_position = false)", ErrUnsupported)
	}
	if q.Kind == Prefix {
		expanded, err := ix.expandPrefix(terms)
		if err != nil {
			return err
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
	if len(terms) == 0 {
		return nil
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
				return err
			}
			if !ok {
				ids[pi][ti] = -1
				continue
			}
			if int(id) >= len(p.lengths) {
				return corrupt("token %q id %d of %d", t, id, len(p.lengths))
			}
			ids[pi][ti] = int64(id)
			df[ti] += uint64(p.lengths[id])
		}
	}
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
		weights := make([]float32, len(present))
		toks := make([]uint32, len(present))
		for k, ti := range present {
			toks[k] = uint32(ids[pi][ti])
			if err := ctx.Err(); err != nil {
				return err
			}
			pl, err := ix.cachedPosting(ctx, p, uint32(ids[pi][ti]))
			if err != nil {
				return fmt.Errorf("partition %d token %q: %w", p.id, terms[ti], err)
			}
			lists[k] = pl
			weights[k] = idf[ti]
			st.PostingsRead++
		}
		norms := ix.norms(p)
		var err error
		switch {
		case len(lists) == 1 && !phrase:
			err = scoreOne(p, lists[0], weights[0], norms, st, emit)
		case phrase:
			err = ix.scorePhrase(ctx, p, lists, toks, weights, norms, qpos, st, emit)
		case q.And:
			err = scoreAll(ctx, p, lists, weights, norms, st, emit)
		default:
			err = ix.scoreAny(ctx, p, lists, weights, norms, st, emit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scoreOne emits every document of one term's list.
func scoreOne(p *partition, pl *posting, idf float32, norms []float32, st *Stats, emit func(uint64, float32) error) error {
	for i, d := range pl.docs {
		var s float32 // the sum of one term, as the multi-term paths add it
		s += idf * weight(pl.freqs[i], norms[d])
		if err := emit(p.rowAddrs[d], s); err != nil {
			return err
		}
	}
	st.DocsScored += len(pl.docs)
	return nil
}

// scoreScratch is a partition-sized score accumulator, reused across
// searches: a term at a time adds into scores (documents first reached
// listed in touched), and the touched entries are zeroed afterwards.
type scoreScratch struct {
	scores  []float32
	seen    []bool
	touched []uint32
}

// keptScratch is how many accumulators a segment keeps for its next
// searches (a sync.Pool would drop them at every GC, and reallocating a
// million-document accumulator is a millisecond).
const keptScratch = 2

// scoreAny emits the documents holding any of the lists' terms, each
// scored by the sum over its terms in list order.
func (seg *segment) scoreAny(ctx context.Context, p *partition, lists []*posting, idf []float32, norms []float32, st *Stats, emit func(uint64, float32) error) error {
	nd := len(p.rowAddrs)
	var sc *scoreScratch
	select {
	case sc = <-seg.scratch:
	default:
		sc = &scoreScratch{}
	}
	defer func() {
		select {
		case seg.scratch <- sc:
		default:
		}
	}()
	if len(sc.scores) < nd {
		sc.scores = make([]float32, nd)
		sc.seen = make([]bool, nd)
	}
	scores, seen := sc.scores[:nd], sc.seen[:nd]
	touched := sc.touched[:0]
	defer func() {
		for _, d := range touched {
			scores[d], seen[d] = 0, false
		}
		sc.touched = touched[:0]
	}()
	for k, pl := range lists {
		if err := ctx.Err(); err != nil {
			return err
		}
		w := idf[k]
		for i, d := range pl.docs {
			if !seen[d] {
				seen[d] = true
				touched = append(touched, d)
			}
			scores[d] += w * weight(pl.freqs[i], norms[d])
		}
	}
	st.DocsScored += len(touched)
	for _, d := range touched {
		if err := emit(p.rowAddrs[d], scores[d]); err != nil {
			return err
		}
	}
	return nil
}

// intersect calls fn with every document holding every list's term, in
// doc-id order, and each list's index of it (at, reused across calls). The
// shortest list leads; the others gallop to each of its documents, so a
// rare term paired with a frequent one costs about the rare one's length
// times the log of the frequent one's.
func intersect(ctx context.Context, lists []*posting, fn func(d uint32, at []int) error) error {
	lead := 0
	for k, pl := range lists {
		if len(pl.docs) < len(lists[lead].docs) {
			lead = k
		}
	}
	at := make([]int, len(lists))
	for n, d := range lists[lead].docs {
		if n%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		all := true
		for k, pl := range lists {
			if k == lead {
				at[k] = n
				continue
			}
			i := gallop(pl.docs, at[k], d)
			at[k] = i
			if i == len(pl.docs) {
				return nil // a list ran out: nothing further matches
			}
			if pl.docs[i] != d {
				all = false
				break
			}
		}
		if all {
			if err := fn(d, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// gallop returns the first index from i on of docs (ascending) whose doc
// is d or above (len(docs) if none): steps doubling from i, then a binary
// search within the last step.
func gallop(docs []uint32, i int, d uint32) int {
	if i >= len(docs) || docs[i] >= d {
		return i
	}
	// docs[lo] < d throughout
	lo, step := i, 1
	for lo+step < len(docs) && docs[lo+step] < d {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(docs)) // docs[hi] >= d, or hi is the end
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if docs[m] < d {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// scoreAll emits the documents holding every list's term.
func scoreAll(ctx context.Context, p *partition, lists []*posting, idf []float32, norms []float32, st *Stats, emit func(uint64, float32) error) error {
	return intersect(ctx, lists, func(d uint32, at []int) error {
		var s float32
		for k, pl := range lists {
			s += idf[k] * weight(pl.freqs[at[k]], norms[d])
		}
		st.DocsScored++
		return emit(p.rowAddrs[d], s)
	})
}

// scorePhrase emits the documents holding the lists' terms (tokens toks)
// at the query's relative positions qpos. Document ids are intersected
// first; positions are read only once a document holds every term, and
// decoded only for such documents, each distinct token's once.
func (seg *segment) scorePhrase(ctx context.Context, p *partition, lists []*posting, toks []uint32, idf []float32, norms []float32, qpos []uint32, st *Stats, emit func(uint64, float32) error) error {
	// slot[k] is list k's token among the distinct ones (a phrase may
	// repeat a term: its positions are decoded once a document).
	slot := make([]int, len(lists))
	var distinct []int // a list of each distinct token
	for k, t := range toks {
		slot[k] = len(distinct)
		for j, k0 := range distinct {
			if toks[k0] == t {
				slot[k] = j
				break
			}
		}
		if slot[k] == len(distinct) {
			distinct = append(distinct, k)
		}
	}
	var pls []*positionList // read at the first candidate
	curs := make([]posCursor, len(distinct))
	bufs := make([][]uint32, len(distinct))
	pos := make([][]uint32, len(lists))
	return intersect(ctx, lists, func(d uint32, at []int) error {
		if pls == nil {
			pls = make([]*positionList, len(distinct))
			for j, k := range distinct {
				pl, err := seg.cachedPositions(ctx, p, toks[k])
				if err != nil {
					return fmt.Errorf("partition %d token id %d positions: %w", p.id, toks[k], err)
				}
				if pl.docs != len(lists[k].docs) {
					return corrupt("partition %d token id %d: %d position lists for %d docs", p.id, toks[k], pl.docs, len(lists[k].docs))
				}
				pls[j] = pl
			}
		}
		for j, k := range distinct {
			var err error
			if bufs[j], err = pls[j].positions(&curs[j], at[k], bufs[j]); err != nil {
				return fmt.Errorf("partition %d token id %d: %w", p.id, toks[k], err)
			}
		}
		for k := range lists {
			pos[k] = bufs[slot[k]]
		}
		if !phraseAt(pos, qpos) {
			return nil
		}
		var s float32
		for k, pl := range lists {
			s += idf[k] * weight(pl.freqs[at[k]], norms[d])
		}
		st.DocsScored++
		return emit(p.rowAddrs[d], s)
	})
}

// phraseAt reports whether pos[k], the positions of the phrase's k-th
// term in one document, hold the terms at the query's relative positions.
func phraseAt(pos [][]uint32, qpos []uint32) bool {
	for _, p0 := range pos[0] {
		// The reference aligns on the query's own positions: a term must
		// sit at least as far into the document as into the query.
		if p0 < qpos[0] {
			continue
		}
		ok := true
		for k := 1; k < len(pos); k++ {
			ps := pos[k]
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
	return weight(freq, docNorm(docTokens, avgdl))
}

// docNorm is BM25's length normalization of a document of docTokens
// tokens.
func docNorm(docTokens uint32, avgdl float32) float32 {
	return float32(K1 * (1 - B + B*float32(docTokens)/avgdl))
}

// weight is BM25's term-frequency part for a document of norm docNorm.
func weight(freq uint32, norm float32) float32 {
	f := float32(freq)
	return (K1 + 1) * f / (f + norm)
}

// norms is partition p's docNorm per document under the index's average
// document length, computed on first use and kept with the segment.
func (seg *segment) norms(p *partition) []float32 {
	p.normsOnce.Do(func() {
		avgdl := float32(seg.totalTokens) / float32(seg.numDocs)
		p.norms = make([]float32, len(p.numTokens))
		for d, n := range p.numTokens {
			p.norms[d] = docNorm(n, avgdl)
		}
	})
	return p.norms
}
