package planner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index/inverted"
	"github.com/lancecat/lancecat/sqlparse"
)

// Hybrid search: a vector search and a full-text search over one table,
// fused by reciprocal-rank fusion as the reference's hybrid query
// (LanceDB's nearestTo(v).fullTextSearch(q) with its default RRFReranker):
//
//	SELECT ..., HYBRID_RRF(VEC_<metric>_DISTANCE(col, '<vector>'),
//	                       MATCH (text) AGAINST ('q') [, k]) AS score
//	FROM t [WHERE prefilter] ORDER BY score DESC LIMIT n
//
// Each leg returns its top n (the reference runs both legs with the
// query's limit): the vector leg as ORDER BY VEC_..._DISTANCE LIMIT n does
// (its index, nprobes, refine; in the order the search found the rows), the
// full-text leg as MATCH ... ORDER BY score DESC LIMIT n does (BM25 over
// the INVERTED index). WHERE is a prefilter of both legs. A row's score is
// the sum over the legs it is in of 1 / (rank + k), rank counted from 0
// and k = 60 unless given, in float32 as the reference computes it; the
// rows are the vector leg's followed by the full-text leg's not already
// seen, sorted by score descending with ties kept in that order (the
// reference's sort keeps it for up to 20 rows), then cut to n.

// hybridScoreColumn names the hidden column holding a row's fused score.
const hybridScoreColumn = "__lancecat_hybrid_score"

// defaultRRFK is the reference RRFReranker's k.
const defaultRRFK = 60

func isHybridCall(e sqlparse.Expr) (*sqlparse.FuncCall, bool) {
	c, ok := sqlparse.StripParens(e).(*sqlparse.FuncCall)
	if !ok || !strings.EqualFold(c.Name, "hybrid_rrf") {
		return nil, false
	}
	return c, true
}

// containsHybrid reports whether e uses HYBRID_RRF.
func containsHybrid(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if _, ok := isHybridCall(n); ok {
			found = true
		}
		return !found
	})
	return found
}

// hasHybrid reports whether the statement uses HYBRID_RRF.
func hasHybrid(st *sqlparse.Select) bool {
	exprs := []sqlparse.Expr{st.Where, st.Having}
	for _, it := range st.Items {
		exprs = append(exprs, it.Expr)
	}
	exprs = append(exprs, st.GroupBy...)
	for _, o := range st.OrderBy {
		exprs = append(exprs, o.Expr)
	}
	return slices.ContainsFunc(exprs, containsHybrid)
}

// rrfHit is one fused row.
type rrfHit struct {
	Row   uint64
	Score float32
}

// fuseRRF fuses two ranked lists of row addresses: each row scores
// 1 / (rank + k) per list it is in (rank from 0), summed in float32; the
// rows, the first list's then the second's not yet seen, are sorted by
// score descending, ties keeping that order.
func fuseRRF(vec, fts []uint64, k float32) []rrfHit {
	score := make(map[uint64]float32, len(vec)+len(fts))
	var out []rrfHit
	add := func(rank int, row uint64) {
		s := 1 / (float32(rank) + k)
		if old, ok := score[row]; ok {
			score[row] = old + s
			return
		}
		score[row] = s
		out = append(out, rrfHit{Row: row})
	}
	for i, r := range vec {
		add(i, r)
	}
	for i, r := range fts {
		add(i, r)
	}
	for i := range out {
		out[i].Score = score[out[i].Row]
	}
	slices.SortStableFunc(out, func(a, b rrfHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}

// hybridPlan is a planned hybrid search: the derived table of the table's
// columns plus the fused score, in fused order.
type hybridPlan struct {
	call  *sqlparse.FuncCall
	vec   *vectorPlan // the vector leg; its data plan holds WHERE (the prefilter)
	fts   *ftsSource  // the full-text leg's index and query (matches[0])
	k     float32
	limit int
	cols  []Column
}

func (p *hybridPlan) resultColumns() []Column { return p.cols }

func hybridUsage(format string, args ...any) error {
	return errorf(catalog.CodeInvalidInput, "HYBRID_RRF: "+format+" (usage: SELECT ..., HYBRID_RRF(VEC_<metric>_DISTANCE(col, '<vector>'), MATCH (col) AGAINST ('query') [, k]) AS score FROM t [WHERE ...] ORDER BY score DESC LIMIT n)", args...)
}

// hybridOrderCall finds the HYBRID_RRF call an ORDER BY item names:
// itself, or a select-list alias or position of it.
func hybridOrderCall(st *sqlparse.Select, e sqlparse.Expr) *sqlparse.FuncCall {
	e = sqlparse.StripParens(e)
	if c, ok := isHybridCall(e); ok {
		return c
	}
	switch n := e.(type) {
	case *sqlparse.ColumnRef:
		if len(n.Qualifier) > 0 {
			return nil
		}
		for _, it := range st.Items {
			if !it.Star && it.Alias != "" && strings.EqualFold(it.Alias, n.Column) {
				if c, ok := isHybridCall(it.Expr); ok {
					return c
				}
			}
		}
	case *sqlparse.ColumnPosition:
		if n.N >= 1 && n.N <= len(st.Items) && !st.Items[n.N-1].Star {
			if c, ok := isHybridCall(st.Items[n.N-1].Expr); ok {
				return c
			}
		}
	}
	return nil
}

// planHybrid plans a statement using HYBRID_RRF over the table name.
func (s *Session) planHybrid(ctx context.Context, st *sqlparse.Select, name sqlparse.Name) (queryPlan, error) {
	if err := checkSelectShape(st); err != nil {
		return nil, err
	}
	if len(st.GroupBy) > 0 || st.Having != nil || st.Distinct || hasAggregates(st) {
		return nil, errorf(catalog.CodeUnsupported, "not supported: HYBRID_RRF with GROUP BY, HAVING, DISTINCT or aggregates")
	}
	if containsHybrid(st.Where) {
		return nil, hybridUsage("not allowed in WHERE")
	}
	if st.Where != nil && hasMatch(&sqlparse.Select{Where: st.Where}) {
		return nil, errorf(catalog.CodeUnsupported, "not supported: MATCH in the WHERE of a HYBRID_RRF query (the full-text leg is HYBRID_RRF's second argument; WHERE is the prefilter of both legs)")
	}
	if len(st.OrderBy) != 1 {
		return nil, hybridUsage("the query must be ordered by the HYBRID_RRF value alone, descending")
	}
	call := hybridOrderCall(st, st.OrderBy[0].Expr)
	if call == nil || !st.OrderBy[0].Desc {
		return nil, hybridUsage("the query must be ordered by the HYBRID_RRF value alone, descending")
	}
	if st.Limit == nil {
		return nil, hybridUsage("LIMIT n is required (each leg returns its top n)")
	}
	if st.Limit.Offset != nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: OFFSET with HYBRID_RRF (the reference applies the offset to each leg before fusing)")
	}
	// Every HYBRID_RRF in the select list is the ORDER BY's; MATCH appears
	// only inside it.
	for _, it := range st.Items {
		if it.Star {
			continue
		}
		var bad error
		sqlparse.Inspect(it.Expr, func(n sqlparse.Expr) bool {
			if bad != nil {
				return false
			}
			if c, ok := isHybridCall(n); ok {
				if c.String() != call.String() {
					bad = hybridUsage("one fusion per query: %s differs from the ORDER BY's %s", c, call)
				}
				return false
			}
			if _, ok := n.(*sqlparse.Match); ok {
				bad = errorf(catalog.CodeUnsupported, "not supported: MATCH outside HYBRID_RRF in a hybrid query")
			}
			return bad == nil
		})
		if bad != nil {
			return nil, bad
		}
	}
	if len(call.Args) != 2 && len(call.Args) != 3 {
		return nil, hybridUsage("takes 2 or 3 arguments, not %d", len(call.Args))
	}
	var dist *sqlparse.FuncCall
	var match *sqlparse.Match
	for _, a := range call.Args[:2] {
		switch n := sqlparse.StripParens(a).(type) {
		case *sqlparse.FuncCall:
			if _, _, ok := distanceMetric(n.Name); ok && !n.Aggregate && dist == nil {
				dist = n
				continue
			}
		case *sqlparse.Match:
			if match == nil {
				match = n
				continue
			}
		}
		return nil, hybridUsage("argument %s is neither a vector distance nor a MATCH", a)
	}
	if dist == nil || match == nil {
		return nil, hybridUsage("needs one VEC_<metric>_DISTANCE(col, '<vector>') and one MATCH (col) AGAINST ('query')")
	}
	k := float32(defaultRRFK)
	if len(call.Args) == 3 {
		var err error
		if k, err = rrfK(call.Args[2]); err != nil {
			return nil, err
		}
	}
	ts, ok := st.From.(*sqlparse.TableSource)
	if !ok {
		return nil, errorf(catalog.CodeUnsupported, "not supported: HYBRID_RRF over a join")
	}
	// The vector leg: the vector search the same WHERE and LIMIT plan.
	leg := &sqlparse.Select{
		Items:   []sqlparse.SelectItem{{Expr: dist, Text: dist.String()}},
		From:    st.From,
		Where:   st.Where,
		OrderBy: []sqlparse.OrderItem{{Expr: dist}},
		Limit:   st.Limit,
	}
	qp, ok, err := s.planVectorSearch(ctx, leg, name)
	if err != nil {
		return nil, err
	}
	vp, isVec := qp.(*vectorPlan)
	if !ok || !isVec {
		return nil, hybridUsage("the vector leg %s must be a distance between a vector column and a constant vector", dist)
	}
	d := vp.data
	p := &hybridPlan{call: call, vec: vp, k: k, limit: int(vp.limit)}
	p.fts = &ftsSource{ds: d.ds, schema: d.schema, table: name[len(name)-1], primary: 0, limit: p.limit, where: d.where}
	if _, err := p.fts.addMatch(s, match); err != nil {
		return nil, err
	}
	for _, f := range d.schema.Fields() {
		p.cols = append(p.cols, dataColumn(f, ""))
	}
	p.cols = append(p.cols, Column{Name: hybridScoreColumn, DatabaseType: "FLOAT"})

	// The outer statement: the select list and ORDER BY over the fused rows,
	// HYBRID_RRF read from the score column. WHERE is already applied.
	score := func(e sqlparse.Expr) sqlparse.Expr {
		return sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
			if _, ok := isHybridCall(n); ok {
				return &sqlparse.ColumnRef{Column: hybridScoreColumn}
			}
			return n
		})
	}
	out := *st
	out.Where = nil
	out.Items = nil
	for _, it := range st.Items {
		if it.Star {
			if len(it.Qualifier) > 0 && !strings.EqualFold(it.Qualifier[len(it.Qualifier)-1], tableAlias(ts, name)) {
				return nil, errorf(catalog.CodeInvalidInput, "unknown table %s", sqlparse.QuoteIdent(it.Qualifier[len(it.Qualifier)-1]))
			}
			for _, f := range d.schema.Fields() {
				out.Items = append(out.Items, sqlparse.SelectItem{Expr: &sqlparse.ColumnRef{Column: f.Name}, Text: f.Name})
			}
			continue
		}
		if it.Alias == "" {
			it.Alias = fieldText(it)
		}
		it.Expr = score(it.Expr)
		out.Items = append(out.Items, it)
	}
	out.OrderBy = []sqlparse.OrderItem{{Expr: score(st.OrderBy[0].Expr), Desc: true}}
	inner := &sqlparse.Select{}
	out.From = &sqlparse.TableSource{Subquery: inner, Alias: tableAlias(ts, name)}
	if s.fts == nil {
		s.fts = map[*sqlparse.Select]queryPlan{}
	}
	s.fts[inner] = p
	defer delete(s.fts, inner)
	return s.planSelectTree(ctx, &out)
}

func tableAlias(ts *sqlparse.TableSource, name sqlparse.Name) string {
	if ts.Alias != "" {
		return ts.Alias
	}
	return name[len(name)-1]
}

// rrfK reads HYBRID_RRF's third argument: a positive number constant.
func rrfK(e sqlparse.Expr) (float32, error) {
	l, ok := sqlparse.StripParens(e).(*sqlparse.Literal)
	var f float64
	var err error
	if ok {
		switch v := l.Value.(type) {
		case int64:
			f = float64(v)
		case uint64:
			f = float64(v)
		case float64:
			f = v
		case sqlparse.Decimal:
			f, err = strconv.ParseFloat(fmt.Sprint(v), 64)
		default:
			ok = false
		}
	}
	if !ok || err != nil || !(f > 0) || f > math.MaxFloat32 {
		return 0, hybridUsage("k (the third argument) must be a positive number constant, not %s", e)
	}
	return float32(f), nil
}

// Explain shows the fusion and both legs.
func (p *hybridPlan) Explain() []string {
	d := p.vec.data
	pre := "none"
	if d.where != nil {
		pre = d.where.String() + " (rows collected first, both legs)"
	}
	lines := []string{fmt.Sprintf("HybridSearch %s (version %d): reciprocal-rank fusion, score = sum of 1 / (rank + %g) over the legs a row is in (rank from 0); top %d of each leg, rows in one leg only score that leg; ties: vector leg's order, then the full-text leg's",
		displayName(d.id), d.ds.Version(), p.k, p.limit)}
	for i, l := range p.vec.searchLines(pre) {
		if i == 0 {
			l = "leg 1: " + l
		}
		lines = append(lines, "  "+l)
	}
	for _, l := range p.fts.Explain() {
		lines = append(lines, "  leg 2: "+l)
	}
	if d.where != nil {
		lines = append(lines, "  "+p.vec.prefilterLine())
	}
	return lines
}

func (p *hybridPlan) run(ctx context.Context, s *Session) (*Result, error) {
	if p.limit == 0 {
		return &Result{Columns: p.cols}, nil
	}
	var pre *roaring64.Bitmap
	if p.vec.data.where != nil {
		var err error
		if pre, err = p.vec.prefilter(ctx); err != nil {
			return nil, err
		}
	}
	vhits, err := p.vec.search(ctx, pre)
	if err != nil {
		return nil, err
	}
	vec := make([]uint64, len(vhits))
	for i, h := range vhits {
		vec[i] = h.Row
	}
	fts, err := p.ftsLeg(ctx, pre)
	if err != nil {
		return nil, err
	}
	fused := fuseRRF(vec, fts, p.k)
	if len(fused) > p.limit {
		fused = fused[:p.limit]
	}
	return p.rows(ctx, fused)
}

// ftsLeg is the full-text leg: the best p.limit matches allowed by pre,
// best first.
func (p *hybridPlan) ftsLeg(ctx context.Context, pre *roaring64.Bitmap) ([]uint64, error) {
	m := p.fts.matches[0]
	ix, err := inverted.OpenCached(ctx, p.fts.ds, m.meta)
	if err != nil {
		return nil, errorf(catalog.CodeInvalidTableState, "full-text index %s: %v", sqlparse.QuoteIdent(m.meta.Name), err)
	}
	docs, err := p.fts.unindexed(ctx, ix, m.column)
	if err != nil {
		return nil, err
	}
	opts := inverted.SearchOptions{Limit: p.limit, Unindexed: docs}
	if pre != nil {
		opts.Allow = pre.Contains
	}
	hits, _, err := ix.Search(ctx, m.query, opts)
	if err != nil {
		return nil, errorf(catalog.CodeInvalidInput, "%s: %v", m.expr, err)
	}
	out := make([]uint64, len(hits))
	for i, h := range hits {
		out[i] = h.RowAddr
	}
	return out, nil
}

// rows reads the fused rows' columns, in fused order, each with its score.
func (p *hybridPlan) rows(ctx context.Context, fused []rrfHit) (*Result, error) {
	res := &Result{Columns: p.cols}
	if len(fused) == 0 {
		return res, nil
	}
	sorted := make([]uint64, len(fused))
	for i, h := range fused {
		sorted[i] = h.Row
	}
	slices.Sort(sorted)
	rec, err := p.fts.ds.Take(ctx, sorted, dataset.TakeOptions{WithRowAddress: true})
	if err != nil {
		return nil, err
	}
	byAddr := make(map[uint64][]any, len(fused))
	err = p.fts.eachRow(rec, func(addr uint64, vals []any) {
		byAddr[addr] = slices.Clone(vals)
	})
	rec.Release()
	if err != nil {
		return nil, err
	}
	n := p.fts.schema.NumFields()
	for _, h := range fused {
		vals, ok := byAddr[h.Row]
		if !ok {
			return nil, errorf(catalog.CodeInternal, "hybrid search: row %d not read", h.Row)
		}
		row := make([]any, n+1)
		copy(row, vals)
		row[n] = float64(h.Score)
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}
