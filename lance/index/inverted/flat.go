package inverted

import (
	"context"
	"fmt"
)

// flatScores scores rows the index does not cover as the reference's flat
// search does (measured against the peer): BM25 whose statistics are the
// index's plus those of every non-null unindexed row (document count, total
// tokens, and for a term each of its occurrences in those rows counting as
// a document), with the row's own length. Rows scoring 0 do not match.
func (ix *Index) flatScores(ctx context.Context, q Query, docs []Doc) ([]Hit, error) {
	switch q.Kind {
	case Match, Prefix:
	case Boolean:
		scores, err := ix.flatBoolean(ctx, q, docs)
		if err != nil {
			return nil, err
		}
		out := make([]Hit, 0, len(scores))
		for _, d := range docs {
			if s, ok := scores[d.RowAddr]; ok {
				out = append(out, Hit{d.RowAddr, s})
			}
		}
		return out, nil
	default:
		// The reference searches only indexed rows for a phrase.
		return nil, nil
	}
	terms := ix.an.Terms(q.Text)
	if q.Kind == Prefix {
		// No token list to expand against: the row's own tokens are tested
		// for the prefix below.
		return ix.flatPrefix(ctx, terms, docs)
	}
	// Statistics: the index's documents plus every non-null unindexed row;
	// a term's document count adds its occurrences in those rows.
	n := ix.numDocs
	total := ix.totalTokens
	tokenDocs := map[string]uint64{}
	for _, t := range terms {
		var df uint64
		for _, p := range ix.parts {
			id, ok, err := p.tokens.get(t)
			if err != nil {
				return nil, err
			}
			if ok && int(id) < len(p.lengths) {
				df += uint64(p.lengths[id])
			}
		}
		tokenDocs[t] = df
	}
	toks := make([][]string, len(docs))
	an := ix.an.Memo() // this scan's own: each distinct word stemmed once
	for i, d := range docs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if d.Text == nil {
			continue
		}
		toks[i] = an.Terms(*d.Text)
		n++
		total += uint64(len(toks[i]))
		for _, t := range toks[i] {
			if _, ok := tokenDocs[t]; ok {
				tokenDocs[t]++
			}
		}
	}
	if n == 0 {
		return nil, nil
	}
	avg := float32(total) / float32(n)
	qset := map[string]bool{}
	for _, t := range terms {
		qset[t] = true
	}
	var out []Hit
	for i, d := range docs {
		if d.Text == nil {
			continue
		}
		counts := map[string]uint32{}
		for _, t := range toks[i] {
			if qset[t] {
				counts[t]++
			}
		}
		var score float32
		for _, t := range terms {
			if f := counts[t]; f > 0 {
				score += IDF(tokenDocs[t], n) * docWeight(f, uint32(len(toks[i])), avg)
			}
		}
		if score > 0 {
			out = append(out, Hit{d.RowAddr, score})
		}
	}
	return out, nil
}

func (ix *Index) flatBoolean(ctx context.Context, q Query, docs []Doc) (map[uint64]float32, error) {
	var must map[uint64]float32
	hasMust := false
	sub := func(c Clause) (map[uint64]float32, error) {
		hits, err := ix.flatScores(ctx, c.Query, docs)
		if err != nil {
			return nil, err
		}
		m := make(map[uint64]float32, len(hits))
		for _, h := range hits {
			m[h.RowAddr] = h.Score
		}
		return m, nil
	}
	for _, c := range q.Clauses {
		if c.Occur != Must {
			continue
		}
		r, err := sub(c)
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
		if c.Occur == Must {
			continue
		}
		r, err := sub(c)
		if err != nil {
			return nil, err
		}
		for a, s := range r {
			switch {
			case c.Occur == MustNot:
				delete(res, a)
			case hasMust:
				if o, ok := res[a]; ok {
					res[a] = o + s
				}
			default:
				res[a] += s
			}
		}
	}
	return res, nil
}

// flatPrefix matches uncovered rows holding a token that starts with one of
// the prefixes; there is no reference behaviour to follow (the reference
// has no prefix query), so it scores them like a flat match of the tokens
// they hold.
func (ix *Index) flatPrefix(ctx context.Context, prefixes []string, docs []Doc) ([]Hit, error) {
	expanded := map[string]bool{}
	for _, d := range docs {
		if d.Text == nil {
			continue
		}
		for _, t := range ix.an.Terms(*d.Text) {
			for _, p := range prefixes {
				if len(t) >= len(p) && t[:len(p)] == p {
					expanded[t] = true
				}
			}
		}
	}
	if len(expanded) == 0 {
		return nil, nil
	}
	text := ""
	for t := range expanded {
		text += " " + t
	}
	if len(text) > 1<<20 {
		return nil, fmt.Errorf("%w: prefix matches too many terms in unindexed rows", ErrUnsupported)
	}
	return ix.flatScores(ctx, Query{Kind: Match, Text: text}, docs)
}
