package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/lance/vector"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// Vector search: the VEC_ functions and the narrow planner hook that runs
//
//	SELECT ... FROM t [IGNORE INDEX (name)] [WHERE cond]
//	ORDER BY VEC_<metric>_DISTANCE(col, '<vector>') [ASC] LIMIT k [OFFSET m]
//
// (also ordered by a select-list alias or position of that call) as a Lance
// vector search: through the column's vector index whose metric matches
// (L2 <-> VEC_L2_DISTANCE, cosine <-> VEC_COSINE_DISTANCE, dot <->
// VEC_NEGATIVE_INNER_PRODUCT), else exactly (lance/vector.Exact). WHERE is
// a prefilter: the matching row addresses are collected first (scalar
// indices narrowing the scan as in SELECT), and the search returns k rows
// whenever k match. Each returned row's distance is the SQL function's
// value, computed exactly. This hook stands until the query engine's
// nearest-neighbour seam replaces it.

// Session variables tuning a vector search, and their defaults (the
// reference's: 20 partitions at least, no refine, ef = 1.5 * k * refine).
const (
	varNProbes = "lancecat_nprobes"
	varRefine  = "lancecat_refine_factor"
	varEf      = "lancecat_ef"
)

// maxVectorK bounds LIMIT + OFFSET of a vector search.
const maxVectorK = vector.MaxK

// parseVectorValue reads a vector argument (expr.ParseVector) with its
// error as InvalidInput.
func parseVectorValue(v any) ([]float64, error) {
	out, err := expr.ParseVector(v)
	if err != nil {
		return nil, &catalog.Error{Code: catalog.CodeInvalidInput, Cause: err}
	}
	return out, nil
}

// distanceMetric maps a distance function to the index metric it can use
// (indexable false for VEC_L1_DISTANCE: exact only). The MaxSim functions
// are indexable: a multivector index is cosine, so only
// VEC_MAXSIM_COSINE_DISTANCE finds one whose metric matches.
func distanceMetric(name string) (m vector.Metric, indexable, isDistance bool) {
	switch strings.ToLower(name) {
	case "vec_l2_distance":
		return vector.L2, true, true
	case "vec_cosine_distance":
		return vector.Cosine, true, true
	case "vec_negative_inner_product":
		return vector.Dot, true, true
	case "vec_l1_distance":
		return vector.L2, false, true
	}
	if m, ok := multiVectorMetric(name); ok {
		return m, true, true
	}
	return 0, false, false
}

// multiVectorMetric maps a MaxSim distance function (expr/multivector.go)
// to its metric.
func multiVectorMetric(name string) (vector.Metric, bool) {
	switch strings.ToLower(name) {
	case "vec_maxsim_cosine_distance":
		return vector.Cosine, true
	case "vec_maxsim_dot_distance":
		return vector.Dot, true
	}
	return 0, false
}

// vectorPlan is a planned vector search.
type vectorPlan struct {
	data *dataPlan // the SELECT without ORDER BY / LIMIT: select list, WHERE, columns
	call *sqlparse.FuncCall
	// distCall is call with its constant vector as the parsed []float64,
	// so ordering the hits does not parse the query's text once per row.
	distCall *sqlparse.FuncCall
	column   string
	colPos   int
	// colShown: the select list (or WHERE) reads the vector column other
	// than as a distance function's operand, so rows hands it over as SQL
	// text; otherwise only distances read it and get the stored float32s
	// without a round trip through text (onlyDistanceOperand).
	colShown bool
	query    []float32
	multi    [][]float32 // a multivector (MaxSim) search's query vectors; query unused
	metric   vector.Metric
	useIndex bool // the function has an index metric
	k        int
	limit    int64
	offset   int64
	ignored  []string
	nprobes  int
	fixedNP  bool
	refine   int
	ef       int
	ix       *vector.Index // nil: exact
	why      string        // why exact
}

func (p *vectorPlan) resultColumns() []Column { return p.data.outCols }

// planVectorSearch recognises the search shape; ok false leaves st to the
// ordinary planner.
func (s *Session) planVectorSearch(ctx context.Context, st *sqlparse.Select, name sqlparse.Name) (queryPlan, bool, error) {
	if len(st.OrderBy) != 1 || st.Limit == nil || len(st.GroupBy) > 0 || st.Having != nil || st.Distinct || hasAggregates(st) {
		return nil, false, nil
	}
	ob := st.OrderBy[0]
	call := distanceCall(st, ob.Expr)
	if call == nil {
		return nil, false, nil
	}
	if ob.Desc {
		return nil, false, nil // farthest first: an ordinary sort, not a search
	}
	if len(call.Args) != 2 {
		return nil, true, errorf(catalog.CodeInvalidInput, "%s takes 2 arguments", strings.ToUpper(call.Name))
	}
	ref, lit := call.Args[0], call.Args[1]
	if _, ok := sqlparse.StripParens(ref).(*sqlparse.ColumnRef); !ok {
		ref, lit = lit, ref
	}
	cref, ok := sqlparse.StripParens(ref).(*sqlparse.ColumnRef)
	if !ok {
		return nil, false, nil
	}
	l, ok := sqlparse.StripParens(lit).(*sqlparse.Literal)
	if !ok {
		return nil, false, nil
	}
	bare := *st
	bare.OrderBy, bare.Limit = nil, nil
	dp, err := s.planDataSelect(ctx, &bare, name)
	if err != nil {
		return nil, true, err
	}
	col, err := dp.env.column(cref)
	if err != nil {
		return nil, true, err
	}
	p := &vectorPlan{data: dp, call: call, column: dp.schema.Field(col).Name, colPos: col}
	var parsed any // the query vector(s), parsed once for every row's distance
	if _, multi := multiVectorMetric(call.Name); multi {
		if parsed, err = p.multiVectorQuery(dp.schema.Field(col), literalValue(l)); err != nil {
			return nil, true, err
		}
	} else {
		fsl, ok := dp.schema.Field(col).Type.(*arrow.FixedSizeListType)
		if !ok || !isFloat(fsl.Elem()) {
			return nil, true, errorf(catalog.CodeInvalidInput, "%s: column %s is not a vector column", strings.ToUpper(call.Name), sqlparse.QuoteIdent(cref.Column))
		}
		qv, err := parseVectorValue(literalValue(l))
		if err != nil {
			return nil, true, err
		}
		if len(qv) != int(fsl.Len()) {
			return nil, true, errorf(catalog.CodeInvalidInput, "vector of dimension %d, column %s has %d", len(qv), sqlparse.QuoteIdent(cref.Column), fsl.Len())
		}
		for _, f := range qv {
			p.query = append(p.query, float32(f))
		}
		parsed = qv
	}
	dc := *call
	dc.Args = slices.Clone(call.Args)
	for i, a := range dc.Args {
		if a == lit {
			dc.Args[i] = &sqlparse.Literal{Kind: l.Kind, Value: parsed}
		}
	}
	p.distCall = &dc
	if p.limit, err = limitValue(st.Limit.Count); err != nil {
		return nil, true, err
	}
	if st.Limit.Offset != nil {
		if p.offset, err = limitValue(st.Limit.Offset); err != nil {
			return nil, true, err
		}
	}
	if p.limit+p.offset > maxVectorK {
		return nil, true, errorf(catalog.CodeInvalidInput, "a vector search returns at most %d rows (LIMIT + OFFSET is %d)", maxVectorK, p.limit+p.offset)
	}
	p.k = int(p.limit + p.offset)
	read := slices.Contains(dp.read, col)
	if !read {
		dp.read = append(dp.read, col)
		slices.Sort(dp.read)
	}
	fieldExprs := []sqlparse.Expr{dp.where}
	for _, f := range dp.fields {
		fieldExprs = append(fieldExprs, f.expr)
	}
	p.colShown = read && !onlyDistanceOperand(dp.env, col, fieldExprs...)
	if ts, ok := st.From.(*sqlparse.TableSource); ok {
		p.ignored = ts.IgnoreIndex
	}
	p.metric, p.useIndex, _ = distanceMetric(call.Name)
	if p.nprobes, p.fixedNP, err = s.intVariable(varNProbes, vector.DefaultNProbes); err != nil {
		return nil, true, err
	}
	if p.refine, _, err = s.intVariable(varRefine, 0); err != nil {
		return nil, true, err
	}
	if p.ef, _, err = s.intVariable(varEf, 0); err != nil {
		return nil, true, err
	}
	if err := p.chooseIndex(ctx); err != nil {
		return nil, true, err
	}
	return p, true, nil
}

func isFloat(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// distanceCall finds the VEC_..._DISTANCE call an ORDER BY item names:
// itself, or a select-list alias or position of it.
func distanceCall(st *sqlparse.Select, e sqlparse.Expr) *sqlparse.FuncCall {
	e = sqlparse.StripParens(e)
	switch n := e.(type) {
	case *sqlparse.FuncCall:
		if _, _, ok := distanceMetric(n.Name); ok && !n.Aggregate {
			return n
		}
	case *sqlparse.ColumnRef:
		if len(n.Qualifier) > 0 {
			return nil
		}
		for _, it := range st.Items {
			if !it.Star && it.Alias != "" && strings.EqualFold(it.Alias, n.Column) {
				return distanceCall(&sqlparse.Select{}, it.Expr)
			}
		}
	case *sqlparse.ColumnPosition:
		if n.N >= 1 && n.N <= len(st.Items) && !st.Items[n.N-1].Star {
			return distanceCall(&sqlparse.Select{}, st.Items[n.N-1].Expr)
		}
	}
	return nil
}

// intVariable reads a non-negative integer session variable; set reports
// whether the session set it.
func (s *Session) intVariable(name string, def int) (int, bool, error) {
	v, ok := s.vars[name]
	if !ok || v == "" || strings.EqualFold(v, "default") {
		return def, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1<<20 {
		return 0, false, errorf(catalog.CodeInvalidInput, "@@%s = %q: want an integer from 0 to %d", name, v, 1<<20)
	}
	if n == 0 {
		return def, false, nil
	}
	return n, true, nil
}

// chooseIndex picks the column's vector index whose metric matches.
func (p *vectorPlan) chooseIndex(ctx context.Context) error {
	ds := p.data.ds
	if !p.useIndex {
		p.why = fmt.Sprintf("%s has no index metric", strings.ToUpper(p.call.Name))
		return nil
	}
	seen := map[string]bool{}
	var skipped []string
	for _, m := range ds.Indices() {
		if seen[m.Name] || index.KindOf(m) != index.KindVector || len(m.Fields) != 1 {
			continue
		}
		seen[m.Name] = true
		f := ds.Schema().FieldByID(m.Fields[0])
		if f == nil || f.Name != p.column {
			continue
		}
		if slices.ContainsFunc(p.ignored, func(n string) bool { return strings.EqualFold(n, m.Name) }) {
			skipped = append(skipped, m.Name+" ignored (IGNORE INDEX)")
			continue
		}
		ix, err := openVectorIndex(ctx, ds, m.Name)
		if err != nil {
			if errors.Is(err, vector.ErrUnsupported) {
				skipped = append(skipped, fmt.Sprintf("%s unreadable: %v", m.Name, err))
				continue
			}
			return errorf(catalog.CodeInvalidTableState, "vector index %s: %v", m.Name, err)
		}
		if ix.Metric() != p.metric {
			skipped = append(skipped, fmt.Sprintf("%s has metric %s", m.Name, ix.Metric()))
			continue
		}
		if p.multi != nil && ix.Metric() != vector.Cosine {
			// the reference's multivector search reads cosine indices only
			skipped = append(skipped, fmt.Sprintf("%s is a %s multivector index (searched through: cosine)", m.Name, ix.Metric()))
			continue
		}
		p.ix = ix
		return nil
	}
	if len(skipped) > 0 {
		p.why = strings.Join(skipped, "; ")
	} else {
		p.why = "no vector index on " + sqlparse.QuoteIdent(p.column)
	}
	return nil
}

// Explain describes the search.
func (p *vectorPlan) Explain() []string {
	d := p.data
	var lines []string
	add := func(s string) { lines = append(lines, strings.Repeat("  ", len(lines))+s) }
	l := fmt.Sprintf("Limit %d", p.limit)
	if p.offset > 0 {
		l += fmt.Sprintf(" offset %d", p.offset)
	}
	add(l)
	var names []string
	for _, c := range d.outCols {
		names = append(names, c.Name)
	}
	add("Project " + strings.Join(names, ", "))
	add(fmt.Sprintf("Sort %s (exact distances of the %d rows found)", p.call, p.k))
	pre := "none"
	if d.where != nil {
		pre = d.where.String() + " (rows collected first; k rows whenever k match)"
	}
	for _, l := range p.searchLines(pre) {
		add(l)
	}
	if d.where != nil {
		add(p.prefilterLine())
	}
	return lines
}

// searchLines describe the search itself: the index (or the exact scan),
// its parameters, the prefilter and the fragments.
func (p *vectorPlan) searchLines(pre string) []string {
	d := p.data
	if p.ix == nil {
		var frags []uint64
		for _, f := range d.ds.Fragments() {
			frags = append(frags, f.ID)
		}
		return []string{fmt.Sprintf("ExactVectorSearch %s (version %d): column %s, metric %s, k=%d, parallel top-k over fragments %s (%s); prefilter: %s",
			displayName(d.id), d.ds.Version(), sqlparse.QuoteIdent(p.column), strings.ToUpper(p.call.Name), p.k, fragList(frags), p.why, pre)}
	}
	np := fmt.Sprintf("nprobes=%d", p.nprobes)
	if !p.fixedNP {
		np = fmt.Sprintf("nprobes=%d..all (more while fewer than k found)", p.nprobes)
	}
	refine := "refine_factor=none"
	if p.refine > 0 {
		refine = fmt.Sprintf("refine_factor=%d", p.refine)
	}
	// each query vector of a multivector search fetches k * XTROverfetch
	// entries, as a single-vector search with that refine factor
	perVector := p.k * max(p.refine, 1)
	if p.multi != nil {
		perVector = p.k * vector.XTROverfetch
	}
	ef := ""
	if p.ix.HNSW() {
		if p.ef > 0 {
			ef = fmt.Sprintf(", ef=%d", p.ef)
		} else {
			ef = fmt.Sprintf(", ef=%d", max(perVector*3/2, p.k))
		}
	}
	if p.multi != nil {
		rescore := "estimates are the distances"
		if p.refine > 0 || len(p.ix.Uncovered()) > 0 {
			rescore = fmt.Sprintf("the best %d estimates re-scored by exact MaxSim", p.k*max(p.refine, 1))
		}
		return []string{
			fmt.Sprintf("MultiVectorSearch %s (version %d): index %s (%s, metric %s, %d partitions, %d segment(s)); k=%d, %d query vectors each searched for %d entries (%s, %s%s), rows scored by the MaxSim estimate, %s; prefilter: %s",
				displayName(d.id), d.ds.Version(), p.ix.Name(), p.ix.Type(), p.ix.Metric(), p.ix.Partitions(), p.ix.Segments(), p.k, len(p.multi), perVector, np, refine, ef, rescore, pre),
			fmt.Sprintf("fragments covered by the index %s; scanned exactly %s", fragList(p.ix.Covered()), fragList(p.ix.Uncovered())),
		}
	}
	return []string{
		fmt.Sprintf("VectorSearch %s (version %d): index %s (%s, metric %s, %d partitions, %d segment(s)); k=%d, %s, %s%s; prefilter: %s",
			displayName(d.id), d.ds.Version(), p.ix.Name(), p.ix.Type(), p.ix.Metric(), p.ix.Partitions(), p.ix.Segments(), p.k, np, refine, ef, pre),
		fmt.Sprintf("fragments covered by the index %s; scanned exactly %s", fragList(p.ix.Covered()), fragList(p.ix.Uncovered())),
	}
}

// prefilterLine describes how the rows matching WHERE are collected.
func (p *vectorPlan) prefilterLine() string {
	d := p.data
	var cols []string
	for _, c := range p.prefilterColumns() {
		cols = append(cols, sqlparse.QuoteIdent(d.schema.Field(c).Name))
	}
	served := "no conjunct served by a scalar index"
	if preds := servedPredicates(d.ds, d.indexes, d.indexable); len(preds) > 0 {
		var ls []string
		for _, pr := range preds {
			ls = append(ls, pr.Label+" via "+pr.Index)
		}
		served = "index-narrowed: " + strings.Join(ls, ", ")
	}
	return fmt.Sprintf("Prefilter %s: scan of columns [%s] with row addresses; %s", d.where, strings.Join(cols, ", "), served)
}

// run executes the search.
func (p *vectorPlan) run(ctx context.Context, s *Session) (*Result, error) {
	d := p.data
	if p.limit == 0 {
		return rowsResult(d.outCols, nil), nil
	}
	var pre *roaring64.Bitmap
	if d.where != nil {
		var err error
		if pre, err = p.prefilter(ctx); err != nil {
			return nil, err
		}
	}
	hits, err := p.search(ctx, pre)
	if err != nil {
		return nil, err
	}
	rows, err := p.rows(ctx, hits)
	if err != nil {
		return nil, err
	}
	return rowsResult(d.outCols, rows), nil
}

// search returns the k nearest rows allowed by pre (nil: every row) in the
// order the search found them: through the index, ascending by the index's
// distance (PQ / SQ codes unless refined), else exactly.
func (p *vectorPlan) search(ctx context.Context, pre *roaring64.Bitmap) ([]vector.Hit, error) {
	d := p.data
	if p.ix == nil {
		hits, err := vector.Exact(ctx, d.ds, vector.ExactQuery{Column: p.column, Vector: p.query, Multi: p.multi, K: p.k, Metric: p.metric, Prefilter: pre})
		if err != nil {
			return nil, vectorErr(err)
		}
		return hits, nil
	}
	q := vector.Query{Vector: p.query, K: p.k, NProbes: p.nprobes, RefineFactor: p.refine, Ef: p.ef, Prefilter: pre}
	if p.fixedNP {
		q.MaxNProbes = p.nprobes
	}
	if pre != nil && pre.GetCardinality() <= uint64(p.k) {
		q.MaxNProbes = 0 // k rows whenever k match: every partition
	}
	var res *vector.Result
	var err error
	if p.multi != nil {
		res, err = p.ix.SearchMulti(ctx, vector.MultiQuery{Vectors: p.multi, K: q.K, NProbes: q.NProbes, MaxNProbes: q.MaxNProbes, RefineFactor: q.RefineFactor, Ef: q.Ef, Prefilter: pre})
	} else {
		res, err = p.ix.Search(ctx, q)
	}
	if err != nil {
		return nil, vectorErr(err)
	}
	hits := res.Hits
	if pre != nil && len(hits) < p.k && uint64(len(hits)) < pre.GetCardinality() {
		// the probed partitions held fewer than k allowed rows: the
		// rest of the allowed rows, exactly
		more, err := vector.Exact(ctx, d.ds, vector.ExactQuery{Column: p.column, Vector: p.query, Multi: p.multi, K: p.k, Metric: p.metric, Prefilter: pre})
		if err != nil {
			return nil, vectorErr(err)
		}
		hits = mergeHits(hits, more, p.k)
	}
	return hits, nil
}

// onlyDistanceOperand reports whether every reference to the schema column
// col in exprs is an operand of a distance function (SELECT id,
// VEC_L2_DISTANCE(v, ?) AS d ... ORDER BY d), which takes the stored
// []float32 as it takes a bound one: then the rows need not carry the
// vector as text. A subquery, or the column anywhere else, answers false.
func onlyDistanceOperand(env *rowEnv, col int, exprs ...sqlparse.Expr) bool {
	refs, operands := 0, 0
	isCol := func(e sqlparse.Expr) bool {
		r, ok := e.(*sqlparse.ColumnRef)
		if !ok {
			return false
		}
		i, err := env.column(r)
		return err == nil && i == col
	}
	simple := true
	for _, e := range exprs {
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			switch x := n.(type) {
			case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified:
				simple = false
			case *sqlparse.InList:
				if x.Subquery != nil {
					simple = false
				}
			case *sqlparse.ColumnRef:
				if isCol(x) {
					refs++
				}
			case *sqlparse.FuncCall:
				if _, _, ok := distanceMetric(x.Name); ok {
					for _, a := range x.Args {
						if isCol(a) {
							operands++
						}
					}
				}
			}
			return true
		})
	}
	return simple && refs == operands
}

// float32Vectors reads a fixed-size list of float32 as each row's []float32
// (a view of the column, nil for a NULL row), which the distance functions
// take as they take a bound []float32: formatting 768 floats as text per
// row and parsing them back cost more than the search itself. nil when col
// is not such a list.
func float32Vectors(col arrow.Array) func(int) (any, error) {
	fsl, ok := col.(*array.FixedSizeList)
	if !ok {
		return nil
	}
	vals, ok := fsl.ListValues().(*array.Float32)
	if !ok {
		return nil
	}
	dim := int(fsl.DataType().(*arrow.FixedSizeListType).Len())
	all := vals.Float32Values()
	return func(i int) (any, error) {
		if fsl.IsNull(i) {
			return nil, nil
		}
		lo := (fsl.Offset() + i) * dim
		if lo < 0 || lo+dim > len(all) {
			return nil, fmt.Errorf("vector search: row %d past the vector column's %d values", i, len(all))
		}
		return all[lo : lo+dim], nil
	}
}

func mergeHits(a, b []vector.Hit, k int) []vector.Hit {
	seen := map[uint64]bool{}
	var out []vector.Hit
	for _, h := range a {
		seen[h.Row] = true
		out = append(out, h)
	}
	for _, h := range b {
		if !seen[h.Row] && len(out) < k {
			seen[h.Row] = true
			out = append(out, h)
		}
	}
	return out
}

func vectorErr(err error) error {
	if errors.Is(err, vector.ErrInvalidQuery) {
		return errorf(catalog.CodeInvalidInput, "%v", err)
	}
	return err
}

// prefilter collects the addresses of the rows matching WHERE: a scan of
// the columns WHERE reads (scalar-indexed conjuncts narrowing it).
func (p *vectorPlan) prefilter(ctx context.Context) (*roaring64.Bitmap, error) {
	d := p.data
	read := p.prefilterColumns()
	opts := scanOptionsFor(d, read)
	sc, _, err := openScanner(ctx, d.ds, opts)
	if err != nil {
		return nil, err
	}
	out := roaring64.New()
	row := make([]any, d.schema.NumFields())
	for rec, err := range sc.Records(ctx) {
		if err != nil {
			return nil, err
		}
		addrs, ok := rec.Column(len(read)).(*array.Uint64)
		if !ok {
			return nil, fmt.Errorf("vector search: scan returned no row addresses")
		}
		readers := make([]func(int) (any, error), len(read))
		for j, c := range read {
			r, err := readerFor(d.schema.Field(c), rec.Column(j))
			if err != nil {
				return nil, err
			}
			readers[j] = r
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			for j, c := range read {
				v, err := readers[j](i)
				if err != nil {
					return nil, err
				}
				row[c] = v
			}
			ok, err := d.env.matches(d.where, row)
			if err != nil {
				return nil, err
			}
			if ok {
				out.Add(addrs.Value(i))
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// prefilterColumns are the schema positions WHERE reads.
func (p *vectorPlan) prefilterColumns() []int {
	d := p.data
	var read []int
	d.env.columnRefs(d.where, func(ref *sqlparse.ColumnRef) bool {
		if i, err := d.env.column(ref); err == nil && !slices.Contains(read, i) {
			read = append(read, i)
		}
		return true
	})
	if len(read) == 0 {
		read = []int{0}
	}
	slices.Sort(read)
	return read
}

// rows reads the hits' columns, projects the select list and orders the
// rows by the SQL function's exact value.
func (p *vectorPlan) rows(ctx context.Context, hits []vector.Hit) ([][]any, error) {
	d := p.data
	if len(hits) == 0 {
		return nil, nil
	}
	addrs := make([]uint64, len(hits))
	for i, h := range hits {
		addrs[i] = h.Row
	}
	var names []string
	for _, c := range d.read {
		names = append(names, d.schema.Field(c).Name)
	}
	rec, err := d.ds.Take(ctx, addrs, dataset.TakeOptions{Columns: names})
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	type keyed struct {
		dist any
		out  []any
	}
	var all []keyed
	row := make([]any, d.schema.NumFields())
	readers := make([]func(int) (any, error), len(d.read))
	for j, c := range d.read {
		if c == p.colPos && !p.colShown {
			if r := float32Vectors(rec.Column(j)); r != nil {
				readers[j] = r
				continue
			}
		}
		r, err := readerFor(d.schema.Field(c), rec.Column(j))
		if err != nil {
			return nil, err
		}
		readers[j] = r
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		for j, c := range d.read {
			v, err := readers[j](i)
			if err != nil {
				return nil, err
			}
			row[c] = v
		}
		dist, err := d.env.eval(p.distCall, row)
		if err != nil {
			return nil, err
		}
		out, err := d.project(row)
		if err != nil {
			return nil, err
		}
		all = append(all, keyed{dist, out})
	}
	// NULL distances (a NULL vector, a zero vector's cosine) sort first,
	// as MySQL sorts NULLs; then ascending.
	slices.SortStableFunc(all, func(a, b keyed) int { return compareDistance(a.dist, b.dist) })
	var out [][]any
	for i, k := range all {
		if int64(i) < p.offset {
			continue
		}
		if int64(len(out)) >= p.limit {
			break
		}
		out = append(out, k.out)
	}
	return out, nil
}

func compareDistance(a, b any) int {
	af, aok := a.(float64)
	bf, bok := b.(float64)
	switch {
	case !aok && !bok:
		return 0
	case !aok:
		return -1
	case !bok:
		return 1
	}
	return compareFloat(af, bf)
}

// scanOptionsFor is a scan of the given schema positions with row
// addresses, WHERE's index-served conjuncts pushed as in SELECT.
func scanOptionsFor(d *dataPlan, read []int) scan.Options {
	opts := scan.Options{WithRowAddress: true}
	for _, c := range read {
		opts.Columns = append(opts.Columns, d.schema.Field(c).Name)
	}
	opts.Predicates = servedPredicates(d.ds, d.indexes, d.indexable)
	return opts
}

// openedVectorIndices keeps the last few opened vector indices (by dataset
// URI, version and name) so that their loaded partitions serve the next
// searches of the same version instead of being read again.
var openedVectorIndices struct {
	sync.Mutex
	keys []string
	ixs  []*vector.Index
}

const keptVectorIndices = 8

func openVectorIndex(ctx context.Context, ds *dataset.Dataset, name string) (*vector.Index, error) {
	// the segments' UUIDs too: a table dropped and created again can reach
	// the same URI and version with other index files
	key := fmt.Sprintf("%s\x00%d\x00%s", ds.URI(), ds.Version(), name)
	for _, m := range ds.Indices() {
		if m.Name == name {
			key += "\x00" + m.UUID
		}
	}
	c := &openedVectorIndices
	c.Lock()
	for i, k := range c.keys {
		if k == key {
			ix := c.ixs[i]
			c.Unlock()
			return ix, nil
		}
	}
	c.Unlock()
	ix, err := vector.Open(ctx, ds, name)
	if err != nil {
		return nil, err
	}
	c.Lock()
	defer c.Unlock()
	c.keys = append(c.keys, key)
	c.ixs = append(c.ixs, ix)
	if len(c.keys) > keptVectorIndices {
		c.keys, c.ixs = c.keys[1:], c.ixs[1:]
	}
	return ix, nil
}

// multiVectorQuery checks that f is a multivector column
// (list<fixed_size_list<float32>[d]>) and reads the query vectors v, each
// of dimension d, into p.multi; it returns them as the distance function
// takes them.
func (p *vectorPlan) multiVectorQuery(f arrow.Field, v any) ([][]float64, error) {
	name := strings.ToUpper(p.call.Name)
	lt, ok := f.Type.(*arrow.ListType)
	var fsl *arrow.FixedSizeListType
	if ok {
		fsl, ok = lt.Elem().(*arrow.FixedSizeListType)
	}
	if !ok || !isFloat(fsl.Elem()) {
		return nil, errorf(catalog.CodeInvalidInput, "%s: column %s is not a multivector column", name, sqlparse.QuoteIdent(f.Name))
	}
	qs, err := expr.ParseMultiVector(v, false)
	if err != nil {
		return nil, &catalog.Error{Code: catalog.CodeInvalidInput, Cause: err}
	}
	if len(qs[0]) != int(fsl.Len()) {
		return nil, errorf(catalog.CodeInvalidInput, "multivector of dimension %d, column %s has %d", len(qs[0]), sqlparse.QuoteIdent(f.Name), fsl.Len())
	}
	p.multi = make([][]float32, len(qs))
	for i, q := range qs {
		p.multi[i] = make([]float32, len(q))
		for j, x := range q {
			p.multi[i][j] = float32(x)
		}
	}
	return qs, nil
}
