package planner

import (
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index/inverted"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/storage"
)

// Full-text search: MATCH (col) AGAINST ('query' [IN NATURAL LANGUAGE MODE |
// IN BOOLEAN MODE]) and FTS_MATCH_WORD('query', col) over a table with a
// Lance INVERTED index on col. This is a narrow hook in front of the table
// scan: planFTS answers each MATCH through lance/index/inverted (BM25 as the
// reference scores it, deleted rows skipped, rows of fragments the index
// does not cover scored by the reference's flat search) and hands the rows,
// with one score column per MATCH, to the ordinary SELECT pipeline as a
// derived table; the MATCH expressions become references to those columns.
// When a MATCH is a top-level conjunct of WHERE only its hits are read (the
// other conjuncts filter them: k rows come back when k match); with nothing
// else in WHERE and ORDER BY that MATCH DESC LIMIT k, the index returns only
// the top k.

// ftsScoreColumn names the hidden score column of the i-th MATCH.
func ftsScoreColumn(i int) string { return "__lancecat_fts_score_" + strconv.Itoa(i) }

// hasMatch reports whether the statement uses MATCH.
func hasMatch(st *sqlparse.Select) bool {
	found := false
	visit := func(e sqlparse.Expr) {
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			if _, ok := n.(*sqlparse.Match); ok {
				found = true
			}
			return !found
		})
	}
	for _, it := range st.Items {
		visit(it.Expr)
	}
	visit(st.Where)
	visit(st.Having)
	for _, g := range st.GroupBy {
		visit(g)
	}
	for _, o := range st.OrderBy {
		visit(o.Expr)
	}
	return found
}

// ftsMatch is one planned MATCH.
type ftsMatch struct {
	expr   *sqlparse.Match
	column string
	query  inverted.Query
	meta   *dataset.IndexMetadata
}

// ftsSource is the derived table of a full-text query: the table's
// columns plus a score per MATCH.
type ftsSource struct {
	ds      *dataset.Dataset
	schema  *arrow.Schema
	table   string
	matches []*ftsMatch
	primary int // the MATCH whose hits are the rows; -1: every row
	limit   int // top-k hint for the primary MATCH (0: all hits)
	where   sqlparse.Expr
	cols    []Column
}

func (s *Session) planFTS(ctx context.Context, st *sqlparse.Select, name sqlparse.Name) (queryPlan, error) {
	if err := checkSelectShape(st); err != nil {
		return nil, err
	}
	_, ds, err := s.openTableData(ctx, name)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	src := &ftsSource{ds: ds, schema: schema, table: name[len(name)-1], primary: -1}
	for _, f := range schema.Fields() {
		src.cols = append(src.cols, dataColumn(f, ""))
	}
	var planErr error
	rewrite := func(e sqlparse.Expr) sqlparse.Expr {
		if e == nil || planErr != nil {
			return e
		}
		out, err := replaceMatches(e, func(m *sqlparse.Match) (sqlparse.Expr, error) {
			i, err := src.addMatch(s, m)
			if err != nil {
				return nil, err
			}
			return &sqlparse.ColumnRef{Column: ftsScoreColumn(i)}, nil
		})
		if err != nil {
			planErr = err
		}
		return out
	}
	out := *st
	// The primary MATCH: a top-level conjunct of WHERE.
	var rest []sqlparse.Expr
	var where []sqlparse.Expr
	if st.Where != nil {
		where = conjuncts(st.Where)
	}
	for _, c := range where {
		if m, ok := sqlparse.StripParens(c).(*sqlparse.Match); ok && src.primary < 0 {
			i, err := src.addMatch(s, m)
			if err != nil {
				return nil, err
			}
			src.primary = i
			continue
		}
		rest = append(rest, c)
	}
	out.Where = nil
	for _, c := range rest {
		c = rewrite(c)
		if out.Where == nil {
			out.Where = c
		} else {
			out.Where = &sqlparse.Binary{Op: sqlparse.OpAnd, L: out.Where, R: c}
		}
	}
	src.where = out.Where
	out.Items = nil
	for _, it := range st.Items {
		if it.Star {
			for _, f := range schema.Fields() {
				out.Items = append(out.Items, sqlparse.SelectItem{Expr: &sqlparse.ColumnRef{Column: f.Name}, Text: f.Name})
			}
			continue
		}
		if it.Alias == "" {
			it.Alias = fieldText(it)
		}
		it.Expr = rewrite(it.Expr)
		out.Items = append(out.Items, it)
	}
	out.OrderBy = nil
	for _, o := range st.OrderBy {
		o.Expr = rewrite(o.Expr)
		out.OrderBy = append(out.OrderBy, o)
	}
	out.GroupBy = nil
	for _, g := range st.GroupBy {
		out.GroupBy = append(out.GroupBy, rewrite(g))
	}
	out.Having = rewrite(st.Having)
	if planErr != nil {
		return nil, planErr
	}
	for i := range src.matches {
		src.cols = append(src.cols, Column{Name: ftsScoreColumn(i), DatabaseType: "DOUBLE"})
	}
	src.limit = topKHint(&out, src.primary)
	inner := &sqlparse.Select{}
	out.From = &sqlparse.TableSource{Subquery: inner, Alias: src.table}
	if s.fts == nil {
		s.fts = map[*sqlparse.Select]queryPlan{}
	}
	s.fts[inner] = src
	defer delete(s.fts, inner)
	return s.planSelectTree(ctx, &out)
}

// topKHint is k when the statement is "WHERE <the primary MATCH> ORDER BY
// it DESC LIMIT k [OFFSET o]" (k + o then): the index's top k are the
// answer. 0 otherwise.
func topKHint(st *sqlparse.Select, primary int) int {
	if primary < 0 || st.Where != nil || len(st.GroupBy) > 0 || st.Having != nil || hasAggregates(st) || st.Limit == nil || len(st.OrderBy) != 1 || !st.OrderBy[0].Desc {
		return 0
	}
	ref, ok := st.OrderBy[0].Expr.(*sqlparse.ColumnRef)
	if !ok {
		return 0
	}
	if ref.Column != ftsScoreColumn(primary) {
		// ORDER BY an alias of the score.
		found := false
		for _, it := range st.Items {
			if r, ok := it.Expr.(*sqlparse.ColumnRef); ok && it.Alias == ref.Column && r.Column == ftsScoreColumn(primary) {
				found = true
			}
		}
		if !found {
			return 0
		}
	}
	n, err := limitValue(st.Limit.Count)
	if err != nil {
		return 0
	}
	if st.Limit.Offset != nil {
		o, err := limitValue(st.Limit.Offset)
		if err != nil {
			return 0
		}
		n += o
	}
	if n <= 0 || n > math.MaxInt32 {
		return 0
	}
	return int(n)
}

// addMatch plans one MATCH: its column, its index, its query.
func (src *ftsSource) addMatch(s *Session, m *sqlparse.Match) (int, error) {
	if len(m.Columns) != 1 {
		return 0, errorf(catalog.CodeUnsupported, "not supported: MATCH over %d columns (a Lance FULLTEXT index covers one column)", len(m.Columns))
	}
	col := m.Columns[0].Column
	f, ok := schemaField(src.schema, col)
	if !ok {
		return 0, errorf(catalog.CodeInvalidInput, "unknown column %s in MATCH", sqlparse.QuoteIdent(col))
	}
	lit, ok := m.Query.(*sqlparse.Literal)
	if !ok || lit.Kind != sqlparse.LitString {
		return 0, errorf(catalog.CodeInvalidInput, "incorrect arguments to MATCH: AGAINST takes a string constant, not %s", m.Query)
	}
	text := lit.Value.(string)
	fm := &ftsMatch{expr: m, column: f.Name}
	var ids []int32
	if lf := src.ds.Schema().Field(f.Name); lf != nil {
		ids = []int32{lf.ID}
	}
	for _, ix := range src.ds.Indices() {
		if ix.Type() == "Inverted" && len(ix.Fields) == 1 && len(ids) == 1 && ix.Fields[0] == ids[0] {
			fm.meta = ix
		}
	}
	if fm.meta == nil {
		return 0, errorf(catalog.CodeInvalidInput, "can't find FULLTEXT index matching the column list: %s has no full-text index on %s (create one: CREATE FULLTEXT INDEX %s ON %s (%s))",
			sqlparse.QuoteIdent(src.table), sqlparse.QuoteIdent(f.Name), sqlparse.QuoteIdent(f.Name+"_idx"), sqlparse.QuoteIdent(src.table), sqlparse.QuoteIdent(f.Name))
	}
	var err error
	if m.Boolean {
		if fm.query, err = booleanModeQuery(text); err != nil {
			return 0, err
		}
	} else {
		fm.query = inverted.Query{Kind: inverted.Match, Text: text}
	}
	for i, o := range src.matches {
		if o.column == fm.column && o.query.String() == fm.query.String() {
			return i, nil
		}
	}
	src.matches = append(src.matches, fm)
	return len(src.matches) - 1, nil
}

func schemaField(s *arrow.Schema, name string) (arrow.Field, bool) {
	for _, f := range s.Fields() {
		if f.Name == name {
			return f, true
		}
	}
	for _, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return arrow.Field{}, false
}

// booleanModeQuery maps MySQL's boolean-mode operators onto Lance's query
// types: +word must, -word must_not, "a phrase" a phrase query, word* a
// prefix of the index's terms, a plain word should. The operators MySQL
// also has (> < ~ and parenthesized groups) are refused.
func booleanModeQuery(text string) (inverted.Query, error) {
	q := inverted.Query{Kind: inverted.Boolean}
	i := 0
	for i < len(text) {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		occ := inverted.Should
		switch c {
		case '+':
			occ = inverted.Must
			i++
		case '-':
			occ = inverted.MustNot
			i++
		case '>', '<', '~', '(', ')', '@':
			return q, errorf(catalog.CodeUnsupported, "not supported: the boolean-mode operator %q in MATCH ... AGAINST (lancecat maps + - \"phrase\" and word*)", string(c))
		}
		if i >= len(text) {
			break
		}
		var sub inverted.Query
		if text[i] == '"' {
			end := strings.IndexByte(text[i+1:], '"')
			if end < 0 {
				return q, errorf(catalog.CodeInvalidInput, "unterminated phrase in MATCH ... AGAINST boolean-mode query %q", text)
			}
			sub = inverted.Query{Kind: inverted.Phrase, Text: text[i+1 : i+1+end]}
			i += end + 2
		} else {
			j := i
			for j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' && text[j] != '\r' {
				j++
			}
			w := text[i:j]
			i = j
			if strings.HasSuffix(w, "*") {
				sub = inverted.Query{Kind: inverted.Prefix, Text: strings.TrimRight(w, "*")}
			} else {
				sub = inverted.Query{Kind: inverted.Match, Text: w}
			}
		}
		q.Clauses = append(q.Clauses, inverted.Clause{Occur: occ, Query: sub})
	}
	return q, nil
}

// replaceMatches returns e with every MATCH replaced by f's expression.
func replaceMatches(e sqlparse.Expr, f func(*sqlparse.Match) (sqlparse.Expr, error)) (sqlparse.Expr, error) {
	var err error
	var walk func(sqlparse.Expr) sqlparse.Expr
	walk = func(e sqlparse.Expr) sqlparse.Expr {
		if e == nil || err != nil {
			return e
		}
		switch n := e.(type) {
		case *sqlparse.Match:
			var out sqlparse.Expr
			out, err = f(n)
			return out
		case *sqlparse.Paren:
			c := *n
			c.X = walk(n.X)
			return &c
		case *sqlparse.Unary:
			c := *n
			c.X = walk(n.X)
			return &c
		case *sqlparse.Binary:
			c := *n
			c.L, c.R = walk(n.L), walk(n.R)
			return &c
		case *sqlparse.IsNull:
			c := *n
			c.X = walk(n.X)
			return &c
		case *sqlparse.IsTruth:
			c := *n
			c.X = walk(n.X)
			return &c
		case *sqlparse.Between:
			c := *n
			c.X, c.Lo, c.Hi = walk(n.X), walk(n.Lo), walk(n.Hi)
			return &c
		case *sqlparse.InList:
			c := *n
			c.X = walk(n.X)
			c.List = make([]sqlparse.Expr, len(n.List))
			for i, x := range n.List {
				c.List[i] = walk(x)
			}
			return &c
		case *sqlparse.FuncCall:
			c := *n
			c.Args = make([]sqlparse.Expr, len(n.Args))
			for i, x := range n.Args {
				c.Args[i] = walk(x)
			}
			return &c
		}
		found := false
		sqlparse.Inspect(e, func(x sqlparse.Expr) bool {
			if _, ok := x.(*sqlparse.Match); ok {
				found = true
			}
			return !found
		})
		if found {
			err = errorf(catalog.CodeUnsupported, "not supported: MATCH inside %s", e)
		}
		return e
	}
	out := walk(e)
	return out, err
}

func (src *ftsSource) resultColumns() []Column { return src.cols }

// Explain names the index, the query type, the prefilter and the
// fragments the index covers and the ones scanned.
func (src *ftsSource) Explain() []string {
	var lines []string
	for i, m := range src.matches {
		var covered, scanned []uint64
		for _, f := range src.ds.Fragments() {
			if m.meta.FragmentBitmap != nil && f.ID <= math.MaxUint32 && m.meta.FragmentBitmap.Contains(uint32(f.ID)) {
				covered = append(covered, f.ID)
			} else {
				scanned = append(scanned, f.ID)
			}
		}
		role := "scores every row"
		if i == src.primary {
			role = "rows: its matches"
			if src.limit > 0 {
				role = fmt.Sprintf("rows: its top %d through the index", src.limit)
			}
		}
		pre := "none"
		if i == src.primary && src.where != nil {
			pre = src.where.String() + " (on the matches)"
		}
		lines = append(lines, fmt.Sprintf("FullTextSearch %s: index %s (INVERTED) on %s, query %s, BM25; %s; prefilter: %s; fragments covered %s, scanned %s",
			m.expr, sqlparse.QuoteIdent(m.meta.Name), sqlparse.QuoteIdent(m.column), m.query, role, pre, fragList(covered), fragList(scanned)))
	}
	if src.primary < 0 {
		lines = append(lines, "TableScan "+sqlparse.QuoteIdent(src.table)+" (every row, with its scores)")
	}
	return lines
}

func (src *ftsSource) run(ctx context.Context, s *Session) (*Result, error) {
	scores := make([]map[uint64]float32, len(src.matches))
	var order []uint64
	for i, m := range src.matches {
		ix, err := inverted.OpenCached(ctx, src.ds, m.meta)
		if err != nil {
			return nil, errorf(catalog.CodeInvalidTableState, "full-text index %s: %v", sqlparse.QuoteIdent(m.meta.Name), err)
		}
		docs, err := src.unindexed(ctx, ix, m.column)
		if err != nil {
			return nil, err
		}
		opts := inverted.SearchOptions{Unindexed: docs}
		if i == src.primary {
			opts.Limit = src.limit
		}
		hits, _, err := ix.Search(ctx, m.query, opts)
		if err != nil {
			return nil, errorf(catalog.CodeInvalidInput, "%s: %v", m.expr, err)
		}
		scores[i] = make(map[uint64]float32, len(hits))
		for _, h := range hits {
			scores[i][h.RowAddr] = h.Score
		}
		if i == src.primary {
			order = make([]uint64, len(hits))
			for k, h := range hits {
				order[k] = h.RowAddr
			}
		}
	}
	ncols := src.schema.NumFields()
	var rows [][]any
	addRow := func(addr uint64, vals []any) {
		row := make([]any, ncols+len(src.matches))
		copy(row, vals)
		for i := range src.matches {
			row[ncols+i] = float64(scores[i][addr])
		}
		rows = append(rows, row)
	}
	if src.primary >= 0 {
		if len(order) > s.opts.MaxRows {
			return nil, errorf(catalog.CodeInvalidInput, "MATCH found %d rows, more than the %d a query may hold: add LIMIT", len(order), s.opts.MaxRows)
		}
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		byAddr := map[uint64][]any{}
		if len(sorted) > 0 {
			rec, err := src.ds.Take(ctx, sorted, dataset.TakeOptions{WithRowAddress: true})
			if err != nil {
				return nil, err
			}
			err = src.eachRow(rec, func(addr uint64, vals []any) {
				byAddr[addr] = slices.Clone(vals)
			})
			rec.Release()
			if err != nil {
				return nil, err
			}
		}
		for _, a := range order {
			addRow(a, byAddr[a])
		}
	} else {
		err := src.ds.Scan(ctx, dataset.ScanOptions{WithRowAddress: true}, func(rec arrow.RecordBatch) error {
			if len(rows) > s.opts.MaxRows {
				return errorf(catalog.CodeInvalidInput, "a query with MATCH outside WHERE scores every row: more than %d rows", s.opts.MaxRows)
			}
			return src.eachRow(rec, addRow)
		})
		if err != nil {
			return nil, err
		}
	}
	return &Result{Columns: src.cols, Rows: rows}, nil
}

// eachRow calls fn with each row's address and column values.
func (src *ftsSource) eachRow(rec arrow.RecordBatch, fn func(uint64, []any)) error {
	n := src.schema.NumFields()
	addrs, ok := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
	if !ok || int(rec.NumCols()) != n+1 {
		return errorf(catalog.CodeInternal, "full-text rows: unexpected batch layout")
	}
	readers := make([]func(int) (any, error), n)
	for c := 0; c < n; c++ {
		r, err := readerFor(src.schema.Field(c), rec.Column(c))
		if err != nil {
			return err
		}
		readers[c] = r
	}
	vals := make([]any, n)
	for r := 0; r < int(rec.NumRows()); r++ {
		for c := 0; c < n; c++ {
			v, err := readers[c](r)
			if err != nil {
				return err
			}
			vals[c] = v
		}
		fn(addrs.Value(r), vals)
	}
	return nil
}

// unindexed reads the column's text in the fragments the index does not
// cover, in scan order.
func (src *ftsSource) unindexed(ctx context.Context, ix *inverted.Index, col string) ([]inverted.Doc, error) {
	frags := ix.Uncovered()
	if len(frags) == 0 {
		return nil, nil
	}
	var docs []inverted.Doc
	err := src.ds.Scan(ctx, dataset.ScanOptions{Columns: []string{col}, Fragments: frags, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		addrs := rec.Column(1).(*array.Uint64)
		texts := rec.Column(0)
		for i := 0; i < int(rec.NumRows()); i++ {
			d := inverted.Doc{RowAddr: addrs.Value(i)}
			if texts.IsValid(i) {
				var v string
				switch t := texts.(type) {
				case *array.String:
					v = t.Value(i)
				case *array.LargeString:
					v = t.Value(i)
				default:
					return errorf(catalog.CodeUnsupported, "not supported: MATCH over a %s column", texts.DataType())
				}
				d.Text = &v
			}
			docs = append(docs, d)
		}
		return nil
	})
	return docs, err
}

// ftsSpillArea is where a full-text index build spills its postings: the
// per-process spill directory under Options.SpillDir (spilldir.go).
func (s *Session) ftsSpillArea() inverted.SpillArea {
	base := s.opts.SpillDir
	if base == "" {
		base = os.TempDir()
	}
	return joinSpillArea{base: base}
}

// createFullTextIndex is CREATE FULLTEXT INDEX name ON t (col) [WITH
// PROPERTIES (...)]: an INVERTED index in Lance's layout with the
// reference's defaults, the properties overriding its tokenizer settings.
func (s *Session) createFullTextIndex(ctx context.Context, st *sqlparse.CreateIndex) (*Result, error) {
	if st.Unique {
		return nil, errorf(catalog.CodeInvalidInput, "a FULLTEXT index cannot be UNIQUE")
	}
	params, err := fullTextParams(st.Properties)
	if err != nil {
		return nil, err
	}
	id, ds, err := s.indexTarget(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	for _, m := range ds.Indices() {
		if m.Name == st.Name {
			if st.IfNotExists {
				return okResult(0), nil
			}
			return nil, errorf(catalog.CodeTableIndexAlreadyExists, "table %s already has an index named %s", displayName(id), sqlparse.QuoteIdent(st.Name))
		}
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	f, ok := schemaField(schema, st.Column)
	if !ok {
		return nil, errorf(catalog.CodeTableColumnNotFound, "table %s has no column %s", displayName(id), sqlparse.QuoteIdent(st.Column))
	}
	if f.Type.ID() != arrow.STRING && f.Type.ID() != arrow.LARGE_STRING {
		return nil, errorf(catalog.CodeInvalidInput, "a FULLTEXT index needs a text column; %s is %s", sqlparse.QuoteIdent(f.Name), typeName(f))
	}
	dirID := uuid.NewString()
	cleanup := func() {
		_, _ = ds.Store().DeletePrefix(context.WithoutCancel(ctx), path.Join(ds.Dir(), "_indices", dirID)+"/")
	}
	meta, err := inverted.Build(ctx, ds, f.Name, params, inverted.BuildOptions{Name: st.Name, UUID: dirID, SpillArea: s.ftsSpillArea()})
	if err != nil {
		cleanup()
		return nil, errorf(catalog.CodeInvalidInput, "CREATE FULLTEXT INDEX %s: %v", sqlparse.QuoteIdent(st.Name), err)
	}
	if _, err := ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, nil); err != nil {
		cleanup()
		return nil, indexError(id, st.Name, err)
	}
	return okResult(0), nil
}

// fullTextParams applies CREATE FULLTEXT INDEX properties to the
// reference's default tokenizer settings.
func fullTextParams(props []sqlparse.Property) (tokenize.Params, error) {
	p := tokenize.DefaultParams()
	for _, pr := range props {
		key := strings.ToLower(pr.Key)
		v := pr.Value
		boolean := func(dst *bool) error {
			switch strings.ToLower(v) {
			case "true", "1", "on":
				*dst = true
			case "false", "0", "off":
				*dst = false
			default:
				return errorf(catalog.CodeInvalidInput, "FULLTEXT property %s must be true or false, not %q", key, v)
			}
			return nil
		}
		number := func(dst *int) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > 1<<16 {
				return errorf(catalog.CodeInvalidInput, "FULLTEXT property %s must be a positive integer, not %q", key, v)
			}
			*dst = n
			return nil
		}
		var err error
		switch key {
		case "base_tokenizer":
			p.BaseTokenizer = strings.ToLower(v)
		case "language":
			p.Language = v
		case "with_position":
			err = boolean(&p.WithPosition)
		case "lower_case":
			err = boolean(&p.LowerCase)
		case "stem":
			err = boolean(&p.Stem)
		case "remove_stop_words":
			err = boolean(&p.RemoveStopWords)
		case "ascii_folding":
			err = boolean(&p.ASCIIFolding)
		case "prefix_only":
			err = boolean(&p.PrefixOnly)
		case "max_token_length":
			n := 0
			if err = number(&n); err == nil {
				p.MaxTokenLength = &n
			}
		case "min_ngram_length":
			err = number(&p.MinNgramLength)
		case "max_ngram_length":
			err = number(&p.MaxNgramLength)
		default:
			err = errorf(catalog.CodeInvalidInput, "unknown FULLTEXT property %s (base_tokenizer, language, with_position, lower_case, stem, remove_stop_words, ascii_folding, max_token_length, min_ngram_length, max_ngram_length, prefix_only)", pr.Key)
		}
		if err != nil {
			return p, err
		}
	}
	if _, err := tokenize.New(p); err != nil {
		return p, errorf(catalog.CodeInvalidInput, "CREATE FULLTEXT INDEX: %v", err)
	}
	return p, nil
}

// ForgetStore drops what the engine caches process-wide for tables read
// through store (the full-text segments and their decoded posting lists).
// The driver calls it when it closes a catalog's store, so that a closed
// sql.DB leaves no index data in memory.
func ForgetStore(store storage.Store) { inverted.ForgetStore(store) }
