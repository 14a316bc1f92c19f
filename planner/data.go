package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// SELECT over table data:
//
//	SELECT * | col [AS label], ... | COUNT(*) | COUNT(col)
//	FROM [ns.]table
//	[WHERE cond] [ORDER BY col [ASC|DESC], ...] [LIMIT n [OFFSET m] | LIMIT m, n]
//
// or an aggregating query (GROUP BY, HAVING, COUNT/SUM/AVG/MIN/MAX; see
// aggregate.go), whose WHERE and scan are the same.
//
// cond combines, with AND, OR, NOT, XOR and parentheses, comparisons of
// columns, literals, arithmetic (arith.go), @@variables, scalar functions
// (the registry of planner/expr) and subqueries, correlated or not (subquery.go):
// =, <=>, <>, !=, <, <=, >, >=, [NOT] IN (list or subquery), [NOT] BETWEEN, IS [NOT] NULL, IS [NOT] TRUE/FALSE, [NOT]
// LIKE (with ESCAPE), [NOT] EXISTS, op ANY/ALL. Anything else (CASE, ...)
// fails with CodeUnsupported naming the expression. The select list holds
// *, such expressions or one COUNT; SELECT DISTINCT is a GROUP BY
// (distinctAsGroupBy; DISTINCT * and DISTINCT with GROUP BY over a derived
// table, derived.go). Floats compare in one total order (compareFloat).
//
// Execution (datarun.go): one lance/scan scanner over the table's latest
// version, reading only the columns the query uses. Every top-level
// conjunct of WHERE comparing an indexed column with literals (=, <=>, <,
// <=, >, >=, IN, BETWEEN, IS NULL, LIKE 'prefix%', array_has_any/all on a
// LABEL_LIST) that a scalar index can
// answer with the planner's comparison semantics (see IndexLookup and
// ScalarIndexes) is pushed into the scan: the scanner answers the most
// selective through its index, intersects the others' answers, and scans
// the fragments an index does not cover. WHERE is still evaluated on each
// row the scan returns. Without WHERE and ORDER BY, LIMIT and OFFSET are
// pushed into the scan; with WHERE and no ORDER BY the scan stops once
// LIMIT rows matched. COUNT(*) without WHERE is answered from the
// manifest's row counts (no data read). Results without ORDER BY stream,
// with no row cap. ORDER BY (NULLs first, as MySQL) with LIMIT is a top-k
// keeping LIMIT+OFFSET rows, handing over to the spilling sort when those
// rows pass Options.SortMemory bytes; otherwise it sorts within
// Options.MaxRows rows and Options.SortMemory bytes, spilling sorted runs
// to disk beyond them (or failing with Options.NoSpill). Comparisons
// follow MySQL: a number against a string compares numerically; a
// date/time column against a string literal parses the literal
// ('2024-01-02', '2024-01-02 10:00:00.5', RFC 3339); decimals compare as
// float64 (exact only to ~15 significant digits).

// DefaultMaxRows is the default of Options.MaxRows.
const DefaultMaxRows = 1_000_000

// DefaultSortMemory is the default of Options.SortMemory: 32 MiB of
// buffered rows per sort run.
const DefaultSortMemory = 32 << 20

// queryPlan is a planned SELECT.
type queryPlan interface {
	run(ctx context.Context, s *Session) (*Result, error)
	Explain() []string
	resultColumns() []Column
}

// planQuery plans a SELECT: over table data when FROM names a table, else
// over the information_schema views (or no FROM).
func (s *Session) planQuery(ctx context.Context, st *sqlparse.Select) (queryPlan, error) {
	if src, ok := s.fts[st]; ok {
		return src, nil // the rows of a full-text query (fts.go)
	}
	if k := placeholderKey(st); k != "" {
		if d, ok := s.recursive[k]; ok {
			return s.planRecursive(ctx, d) // recursive.go
		}
		if w, ok := s.working[k]; ok {
			return w, nil // the working table of a recursive CTE
		}
		if r, ok := s.renamed[k]; ok {
			return s.planRenamed(ctx, r) // cte.go
		}
		if c, ok := s.shared[k]; ok {
			return s.planShared(ctx, c) // sharedcte.go
		}
	}
	if len(st.With) > 0 {
		q, err := s.inlineWith(st, nil, true)
		if err != nil {
			return nil, err
		}
		st = q
	}
	if len(st.SetOps) > 0 {
		return s.planSetOp(ctx, st)
	}
	if err := s.checkQualifiers(st); err != nil {
		return nil, err
	}
	if hasWindows(st) {
		return s.planWindowed(ctx, st) // window.go
	}
	if hasJoin(st.From) {
		if hasHybrid(st) {
			return nil, errorf(catalog.CodeUnsupported, "not supported: HYBRID_RRF over a join (it searches one table)")
		}
		return s.planJoinQuery(ctx, st)
	}
	if ts, err := singleTable(st.From); err == nil && ts.Table != nil && st.Where != nil &&
		(len(ts.Table) < 2 || !strings.EqualFold(ts.Table[0], "information_schema")) {
		st = s.reduceBySiblingIn(ctx, st, ts) // siblingreduce.go
	}
	if err := s.planSubqueries(ctx, s.lazyScope(ctx, st.From), selectExprs(st)...); err != nil {
		return nil, err
	}
	if distinctOverDerived(st) {
		return s.planSelectTree(ctx, distinctDerived(st))
	}
	st, err := distinctAsGroupBy(st)
	if err != nil {
		return nil, err
	}
	if st.From != nil {
		if ts, err := singleTable(st.From); err == nil && ts.Table != nil {
			name := ts.Table
			if len(name) < 2 || !strings.EqualFold(name[0], "information_schema") {
				if hasHybrid(st) {
					return s.planHybrid(ctx, st, name) // hybrid.go
				}
				if hasMatch(st) {
					return s.planFTS(ctx, st, name)
				}
				if vp, ok, err := s.planVectorSearch(ctx, st, name); ok || err != nil {
					return vp, err // vector.go
				}
				if outer, ok := orderByComputed(st); ok {
					return s.planQuery(ctx, outer)
				}
				dp, err := s.planDataSelect(ctx, st, name)
				if err != nil {
					return nil, err
				}
				return s.dataTree(dp), nil
			}
		}
	}
	return s.planSelectTree(ctx, st)
}

// distinctAsGroupBy answers SELECT DISTINCT items as SELECT items GROUP BY
// items: the aggregation stage keeps one row per distinct combination
// (memory grows with the distinct rows, never with the rows scanned), and
// an ORDER BY outside the select list fails as MySQL's does. With
// aggregates and no GROUP BY the query has one row and DISTINCT changes
// nothing. DISTINCT with GROUP BY and DISTINCT * are answered over a
// derived table before this (distinctOverDerived); the errors below are
// for a query that did not go that way.
func distinctAsGroupBy(st *sqlparse.Select) (*sqlparse.Select, error) {
	if !st.Distinct || len(st.SetOps) > 0 {
		return st, nil
	}
	q := *st
	q.Distinct = false
	if len(st.GroupBy) > 0 {
		return nil, notSupportedSelect("SELECT DISTINCT with GROUP BY")
	}
	if hasAggregates(st) {
		return &q, nil
	}
	q.GroupBy = nil
	selected := map[string]bool{}
	// byBare finds a select item by its text without the table's own
	// qualifier: ORDER BY t.a names the item a, and the reverse.
	byBare := map[string]sqlparse.Expr{}
	for _, it := range st.Items {
		if it.Star {
			return nil, notSupportedSelect("SELECT DISTINCT * (name the columns)")
		}
		q.GroupBy = append(q.GroupBy, it.Expr)
		selected[it.Expr.String()] = true
		if _, ok := byBare[unqualify(it.Expr, st.From).String()]; !ok {
			byBare[unqualify(it.Expr, st.From).String()] = it.Expr
		}
		if it.Alias != "" {
			selected[strings.ToLower(sqlparse.QuoteIdent(it.Alias))] = true
		}
	}
	q.OrderBy = append([]sqlparse.OrderItem(nil), st.OrderBy...)
	for i, o := range st.OrderBy {
		if _, pos := o.Expr.(*sqlparse.ColumnPosition); pos || selected[o.Expr.String()] {
			continue
		}
		if e, ok := byBare[unqualify(o.Expr, st.From).String()]; ok {
			q.OrderBy[i].Expr = e
			continue
		}
		if ref, ok := o.Expr.(*sqlparse.ColumnRef); ok && ref.Qualifier == nil && selected[strings.ToLower(sqlparse.QuoteIdent(ref.Column))] {
			continue
		}
		return nil, errorf(catalog.CodeInvalidInput, "ORDER BY %s is not in the select list, which SELECT DISTINCT requires", o.Expr)
	}
	return &q, nil
}

// dataPlan is a planned SELECT over a table's data: a scan of the table
// feeding the shared selectPipeline.
type dataPlan struct {
	selectPipeline // over every schema field; ORDER BY keys are columns
	id             catalog.Ident
	ds             *dataset.Dataset
	schema         *arrow.Schema
	// countCol is the schema position of the column of COUNT(col), -1 for
	// COUNT(*) (answered from the manifest when there is no WHERE).
	countCol int
	// read lists the schema positions the scan reads.
	read []int
	// indexable are conjuncts of WHERE a scalar index could answer.
	indexable []IndexPredicate
	indexes   IndexLookup
	// scanPlan and pushed (the labels of the conjuncts pushed into the
	// scan) are set by prepareExplain for EXPLAIN.
	scanPlan *scan.Plan
	pushed   []string
	// keyFilters are join key filters on columns this scan reads
	// (scanfilter.go): the rows whose key no build row has are dropped.
	keyFilters []dataKeyFilter
}

// openTableData opens the latest version of a table's dataset through the
// catalog (catalog.Catalog.OpenTable); the catalog's Datasets must be the
// Lance-backed one (manifest.Datasets), whose datasets expose Lance().
func (s *Session) openTableData(ctx context.Context, name sqlparse.Name) (catalog.Ident, *dataset.Dataset, error) {
	id, err := s.tableIdent(name)
	if err != nil {
		return nil, nil, err
	}
	ds, err := s.openTableID(ctx, id)
	return id, ds, err
}

// openTableID opens the latest version of table id's dataset.
func (s *Session) openTableID(ctx context.Context, id catalog.Ident) (*dataset.Dataset, error) {
	if ds, ok := s.pinned[displayName(id)]; ok {
		return ds, nil
	}
	ds, err := s.openLatest(ctx, id)
	if err == nil && s.pinned != nil {
		s.pinned[displayName(id)] = ds
	}
	return ds, err
}

// vanished says whether opening a table's latest version failed because
// its files went away while it was opened (a concurrent DROP of the
// location the name resolved to).
func vanished(err error) bool {
	if errors.Is(err, catalog.ErrDatasetNotFound) {
		return true
	}
	code, _ := catalog.CodeOf(err)
	return code == catalog.CodeTableVersionNotFound
}

// openLatest opens the latest version of table id's dataset.
func (s *Session) openLatest(ctx context.Context, id catalog.Ident) (*dataset.Dataset, error) {
	if s.opts.Store == nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: reading or writing table data without the catalog's object store (planner.Options.Store)")
	}
	h, err := s.cat.OpenTable(ctx, id, 0)
	for retry := 0; retry < 3 && vanished(err); retry++ {
		// The location this read resolved may have been dropped since by a
		// concurrent commit that moved the name to another table (a
		// CREATE ... SELECT + RENAME + DROP swap): resolve the name again.
		h, err = s.cat.OpenTable(ctx, id, 0)
	}
	if errors.Is(err, catalog.ErrDatasetNotFound) {
		return nil, errorf(catalog.CodeInvalidTableState, "table %s is declared but has no data yet", displayName(id))
	}
	if err != nil {
		return nil, err
	}
	l, ok := h.(interface{ Lance() *dataset.Dataset })
	if !ok {
		return nil, errorf(catalog.CodeUnsupported, "not supported: reading table data from a %T (the catalog's Datasets is not Lance-backed)", h)
	}
	return l.Lance(), nil
}

func (s *Session) planDataSelect(ctx context.Context, st *sqlparse.Select, name sqlparse.Name) (*dataPlan, error) {
	if err := checkSelectShape(st); err != nil {
		return nil, err
	}
	id, ds, err := s.openSelectTable(ctx, st, name)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	p := &dataPlan{id: id, ds: ds, schema: schema, countCol: -1, indexes: s.opts.Indexes,
		selectPipeline: s.newPipeline(displayName(id))}
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = dataColumn(f, "")
	}
	p.env = newRowEnv(cols)
	p.env.session = s
	p.env.subq = s.subq
	p.keyFilters = s.dataKeyFilters(id, schema)
	used := map[int]bool{}
	markUsed := func(e sqlparse.Expr) {
		p.env.columnRefs(e, func(ref *sqlparse.ColumnRef) bool {
			if i, err := p.env.column(ref); err == nil {
				used[i] = true
			}
			return true
		})
	}
	if hasAggregates(st) && !loneCount(st, true) {
		if err := p.planGrouped(s, st, markUsed); err != nil {
			return nil, err
		}
		for i := range cols {
			if used[i] {
				p.read = append(p.read, i)
			}
		}
		if len(p.read) == 0 {
			p.read = []int{0} // only the row count matters
		}
		p.keep = p.read
		return p, nil
	}
	for _, f := range st.Items {
		if f.Star {
			for i, c := range cols {
				p.fields = append(p.fields, selectField{col: c, expr: &sqlparse.ColumnRef{Column: c.Name}})
				p.outCols = append(p.outCols, c)
				used[i] = true
			}
			continue
		}
		if agg, ok := f.Expr.(*sqlparse.FuncCall); ok && agg.Aggregate {
			// loneCount: the only item, a COUNT without DISTINCT.
			if err := p.planCount(agg, used); err != nil {
				return nil, err
			}
			label := f.Alias
			if label == "" {
				label = fieldText(f)
			}
			p.outCols = append(p.outCols, bigint(label))
			continue
		}
		switch e := f.Expr.(type) {
		case *sqlparse.ColumnRef:
			i, err := p.env.column(e)
			if err != nil {
				return nil, err
			}
			c := dataColumn(schema.Field(i), f.Alias)
			p.fields = append(p.fields, selectField{col: c, expr: e})
			p.outCols = append(p.outCols, c)
			used[i] = true
		default:
			// A computed item: literals, operators, functions and subqueries
			// over the row's columns (the WHERE grammar).
			if err := checkDataCondition(e); err != nil {
				return nil, errorf(catalog.CodeUnsupported, "not supported: %s in the select list of a query over table data", e)
			}
			if err := p.env.check(e); err != nil {
				return nil, err
			}
			markUsed(e)
			label := f.Alias
			if label == "" {
				label = fieldText(f)
			}
			c := exprColumn(p.env, e, label)
			p.fields = append(p.fields, selectField{col: c, expr: e})
			p.outCols = append(p.outCols, c)
		}
	}
	if st.Where != nil {
		if err := checkDataCondition(st.Where); err != nil {
			return nil, err
		}
		if err := p.env.check(st.Where); err != nil {
			return nil, err
		}
		p.where = st.Where
		markUsed(st.Where)
		p.indexable = p.indexCandidates(st.Where)
	}
	if !p.countStar {
		for _, item := range st.OrderBy {
			i, err := p.orderColumn(item.Expr)
			if err != nil {
				return nil, err
			}
			used[i] = true
			p.order = append(p.order, orderKey{expr: &sqlparse.ColumnRef{Column: schema.Field(i).Name}, desc: item.Desc})
		}
	}
	if st.Limit != nil {
		if p.limit, err = limitValue(st.Limit.Count); err != nil {
			return nil, err
		}
		if st.Limit.Offset != nil {
			if p.offset, err = limitValue(st.Limit.Offset); err != nil {
				return nil, err
			}
		}
	}
	for i := range cols {
		if used[i] {
			p.read = append(p.read, i)
		}
	}
	p.keep = p.read // what a spilled sort writes
	if len(p.read) == 0 && !(p.countStar && p.where == nil) {
		// Only the row count matters (SELECT 1 FROM t): read the first column.
		p.read = []int{0}
	}
	p.pushLimit = p.where == nil && len(p.order) == 0 && !p.countStar
	return p, nil
}

// planGrouped plans an aggregating query (aggregate.go): WHERE on the
// scanned rows, then the aggregation stage.
func (p *dataPlan) planGrouped(s *Session, st *sqlparse.Select, mark func(sqlparse.Expr)) error {
	if st.Where != nil {
		if containsAggregate(st.Where) {
			return errorf(catalog.CodeInvalidInput, "invalid use of an aggregate function in WHERE (%s); filter groups with HAVING", st.Where)
		}
		if err := checkDataCondition(st.Where); err != nil {
			return err
		}
		if err := p.env.check(st.Where); err != nil {
			return err
		}
		p.where = st.Where
		mark(st.Where)
		p.indexable = p.indexCandidates(st.Where)
	}
	post := s.newPipeline(p.source)
	if err := setLimit(&post, st.Limit); err != nil {
		return err
	}
	agg, err := planAggregate(p.env, st, post, mark)
	if err != nil {
		return err
	}
	p.agg = agg
	p.outCols = agg.post.outCols
	return nil
}

// planCount plans the lone COUNT(*), COUNT(column) or COUNT(literal) of a
// query loneCount admits (other aggregate queries go to planGrouped): from
// the manifest's row counts without WHERE, else counted on the scan.
func (p *dataPlan) planCount(agg *sqlparse.FuncCall, used map[int]bool) error {
	p.countStar = true
	if agg.Star {
		return nil
	}
	if len(agg.Args) != 1 {
		return errorf(catalog.CodeInvalidInput, "COUNT takes one argument")
	}
	switch a := agg.Args[0].(type) {
	case *sqlparse.ColumnRef:
		i, err := p.env.column(a)
		if err != nil {
			return err
		}
		p.countCol = i
		p.countArg = a
		used[i] = true
	case *sqlparse.Literal: // COUNT(1) counts rows, as COUNT(*)
		if a.Value == nil {
			return errorf(catalog.CodeUnsupported, "not supported: COUNT(NULL)")
		}
	default:
		return errorf(catalog.CodeUnsupported, "not supported: COUNT(%s) (COUNT(*) and COUNT(column) only)", a)
	}
	return nil
}

// orderColumn resolves an ORDER BY item: a column, the label of a select
// item naming a column, or a position in the select list.
func (p *dataPlan) orderColumn(e sqlparse.Expr) (int, error) {
	switch n := e.(type) {
	case *sqlparse.ColumnRef:
		if i, err := p.env.column(n); err == nil {
			return i, nil
		}
		for _, f := range p.fields {
			if ref, ok := f.expr.(*sqlparse.ColumnRef); ok && strings.EqualFold(f.col.Name, n.Column) {
				return p.env.column(ref)
			}
		}
		return p.env.column(n)
	case *sqlparse.ColumnPosition:
		if n.N >= 1 && n.N <= len(p.fields) {
			if ref, ok := p.fields[n.N-1].expr.(*sqlparse.ColumnRef); ok {
				return p.env.column(ref)
			}
		}
		return 0, errorf(catalog.CodeInvalidInput, "ORDER BY position %d does not name a column of the select list", n.N)
	}
	return 0, errorf(catalog.CodeUnsupported, "not supported: ORDER BY %s over table data (columns only)", e)
}

// checkDataCondition accepts the WHERE forms evaluated over table data and
// names the first one it does not.
func checkDataCondition(e sqlparse.Expr) error {
	var bad sqlparse.Expr
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if bad != nil {
			return false
		}
		switch x := n.(type) {
		case *sqlparse.Paren, *sqlparse.ColumnRef, *sqlparse.Literal,
			*sqlparse.IsNull, *sqlparse.IsTruth, *sqlparse.Between, *sqlparse.Like, *sqlparse.Regexp:
		case *sqlparse.FuncCall:
			if x.Aggregate || !isScalarFunction(x.Name) {
				bad = n
			}
		case *sqlparse.InList, *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified, *sqlparse.Variable:
			// subqueries are resolved before the scan (subquery.go)
		case *sqlparse.Binary:
			if !x.Op.IsComparison() && !x.Op.IsLogical() && !isArithmetic(x.Op) {
				bad = n
			}
		case *sqlparse.Unary:
			switch x.Op {
			case sqlparse.OpNot:
			case sqlparse.OpNeg, sqlparse.OpPlus:
			default:
				bad = n
			}
		default:
			bad = n
		}
		return bad == nil
	})
	if bad != nil {
		return errorf(catalog.CodeUnsupported, "not supported: %s in WHERE over table data (supported: =, <>, <, <=, >, >=, <=>, IN, BETWEEN, IS [NOT] NULL, LIKE, ANY, ALL, AND, OR, XOR, NOT, +, -, *, /, DIV, %%, the functions %s over columns, literals and subqueries)", bad, scalarFunctionList())
	}
	return nil
}

// scalarFunctionList names the registry's functions (planner/expr).
func scalarFunctionList() string {
	return strings.Join(expr.Names(), ", ")
}

// isArrayHas reports whether a function is array_has_any or array_has_all
// (the label list predicates, see arrayHas).
func isArrayHas(name string) bool {
	return strings.EqualFold(name, "array_has_any") || strings.EqualFold(name, "array_has_all")
}

// indexCandidates lists the top-level conjuncts of where a scalar index
// could answer: column = literal (or <=>), column IN (literals), column <,
// <=, >, >= literal (either side), column BETWEEN literal AND literal,
// column IS NULL (or <=> NULL), column LIKE 'prefix%', array_has_any and
// array_has_all(column, literals). Each is a necessary
// condition of WHERE, so the scan may drop every row failing one of them.
func (p *dataPlan) indexCandidates(where sqlparse.Expr) []IndexPredicate {
	return indexCandidates(p.env, p.schema, where)
}

// indexCandidates lists the conjuncts of where over rows of schema (laid
// out as env says) that a scalar index could answer; see
// dataPlan.indexCandidates.
func indexCandidates(env *rowEnv, schema *arrow.Schema, where sqlparse.Expr) []IndexPredicate {
	var out []IndexPredicate
	colOf := func(e sqlparse.Expr) (string, bool) {
		ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
		if !ok {
			return "", false
		}
		i, err := env.column(ref)
		if err != nil {
			return "", false
		}
		return schema.Field(i).Name, true
	}
	// constOf evaluates a literal or arithmetic over literals (-5, 4 + 1:
	// what a correlated subquery's `i.id = o.id + 1` becomes per outer
	// row); ok is false for anything else and for NULL.
	constOf := func(e sqlparse.Expr) (any, bool) {
		switch x := sqlparse.StripParens(e).(type) {
		case *sqlparse.Literal:
			v := literalValue(x)
			return v, v != nil
		case *sqlparse.Unary, *sqlparse.Binary:
			if !literalArithmetic(x) {
				return nil, false
			}
			v, err := env.eval(x, nil)
			return v, err == nil && v != nil
		}
		return nil, false
	}
	isNullLit := func(e sqlparse.Expr) bool {
		l, ok := sqlparse.StripParens(e).(*sqlparse.Literal)
		return ok && l.Value == nil
	}
	// flipped is the comparison with its sides swapped (5 < x is x > 5).
	flipped := map[sqlparse.BinaryOp]sqlparse.BinaryOp{
		sqlparse.OpEQ: sqlparse.OpEQ, sqlparse.OpNullEQ: sqlparse.OpNullEQ,
		sqlparse.OpLT: sqlparse.OpGT, sqlparse.OpLE: sqlparse.OpGE,
		sqlparse.OpGT: sqlparse.OpLT, sqlparse.OpGE: sqlparse.OpLE,
	}
	for _, c := range conjuncts(where) {
		switch n := sqlparse.StripParens(c).(type) {
		case *sqlparse.Binary:
			op, ok := flipped[n.Op]
			if !ok {
				continue
			}
			col, colOK := colOf(n.L)
			other := n.R
			if !colOK {
				if col, colOK = colOf(n.R); !colOK {
					continue
				}
				other = n.L
			} else {
				op = n.Op
			}
			if op == sqlparse.OpNullEQ && isNullLit(other) {
				out = append(out, IndexPredicate{Column: col, Op: IndexIsNull})
				continue
			}
			v, ok := constOf(other)
			if !ok {
				continue
			}
			switch op {
			case sqlparse.OpEQ, sqlparse.OpNullEQ:
				out = append(out, IndexPredicate{Column: col, Op: IndexEqual, Values: []any{v}})
			case sqlparse.OpLT, sqlparse.OpLE:
				out = append(out, IndexPredicate{Column: col, Op: IndexRange, Hi: &IndexBound{Value: v, Inclusive: op == sqlparse.OpLE}})
			case sqlparse.OpGT, sqlparse.OpGE:
				out = append(out, IndexPredicate{Column: col, Op: IndexRange, Lo: &IndexBound{Value: v, Inclusive: op == sqlparse.OpGE}})
			}
		case *sqlparse.Between:
			col, ok := colOf(n.X)
			if n.Not || !ok {
				continue
			}
			lo, loOK := constOf(n.Lo)
			hi, hiOK := constOf(n.Hi)
			if loOK && hiOK {
				out = append(out, IndexPredicate{Column: col, Op: IndexRange, Lo: &IndexBound{Value: lo, Inclusive: true}, Hi: &IndexBound{Value: hi, Inclusive: true}})
			}
		case *sqlparse.IsNull:
			if col, ok := colOf(n.X); ok && !n.Not {
				out = append(out, IndexPredicate{Column: col, Op: IndexIsNull})
			}
		case *sqlparse.InList:
			col, ok := colOf(n.X)
			if n.Not || n.Subquery != nil || !ok {
				continue
			}
			var vals []any
			for _, item := range n.List {
				if isNullLit(item) {
					continue // x IN (..., NULL) is never true through the NULL
				}
				v, ok := constOf(item)
				if !ok {
					vals = nil
					break
				}
				vals = append(vals, v)
			}
			if vals != nil {
				out = append(out, IndexPredicate{Column: col, Op: IndexIn, Values: vals})
			}
		case *sqlparse.FuncCall:
			if n.Aggregate || !isArrayHas(n.Name) || len(n.Args) < 2 {
				continue
			}
			col, ok := colOf(n.Args[0])
			if !ok {
				continue
			}
			var vals []any
			for _, a := range n.Args[1:] {
				if isNullLit(a) {
					continue // a NULL label never matches
				}
				v, ok := constOf(a)
				if !ok {
					vals = nil
					break
				}
				vals = append(vals, v)
			}
			if vals != nil {
				op := IndexHasAny
				if strings.EqualFold(n.Name, "array_has_all") {
					op = IndexHasAll
				}
				out = append(out, IndexPredicate{Column: col, Op: op, Values: vals})
			}
		case *sqlparse.Like:
			col, ok := colOf(n.X)
			if n.Not || n.CaseInsensitive || !ok {
				continue
			}
			pat, ok := stringLiteral(n.Pattern)
			if !ok {
				continue
			}
			if prefix, ok := likePrefix(pat, n.Escape); ok {
				out = append(out, IndexPredicate{Column: col, Op: IndexPrefix, Values: []any{prefix}})
			}
		}
	}
	return out
}

// literalArithmetic reports whether e is literals combined by signs and
// arithmetic operators only.
func literalArithmetic(e sqlparse.Expr) bool {
	ok := true
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if !ok {
			return false // a sibling already failed: stay failed
		}
		switch x := n.(type) {
		case *sqlparse.Literal, *sqlparse.Paren:
		case *sqlparse.Unary:
			ok = x.Op == sqlparse.OpNeg || x.Op == sqlparse.OpPlus
		case *sqlparse.Binary:
			ok = isArithmetic(x.Op)
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// likePrefix returns the literal prefix of a pattern of the form
// 'literal%' (ok is false for any other pattern, and for '%').
func likePrefix(pat string, esc byte) (string, bool) {
	if esc == 0 {
		esc = '\\'
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == esc && i+1 < len(pat):
			i++
			b.WriteByte(pat[i])
		case c == '%':
			return b.String(), i == len(pat)-1 && b.Len() > 0
		case c == '_':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", false // no wildcard: an equality, not a prefix
}

// explainScan describes the plan's scan: the TableScan line (the
// columns read, a LIMIT pushed into it, the stop after LIMIT matching
// rows), then how the scanner reads (indexes searched, fragments covered
// and scanned) and the WHERE conjuncts no index answers.
func (p *dataPlan) explainScan() []string {
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	var b strings.Builder
	fmt.Fprintf(&b, "TableScan %s (version %d): columns [", displayName(p.id), p.ds.Version())
	for i, c := range p.read {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlparse.QuoteIdent(p.schema.Field(c).Name))
	}
	b.WriteString("]")
	if p.pushLimit && (p.limit >= 0 || p.offset > 0) {
		if p.limit >= 0 {
			fmt.Fprintf(&b, "; limit %d", p.limit)
		}
		if p.offset > 0 {
			fmt.Fprintf(&b, "; offset %d", p.offset)
		}
		b.WriteString(" pushed down")
	} else if p.where != nil && len(p.order) == 0 && p.limit >= 0 {
		fmt.Fprintf(&b, "; stops after %d matching rows", p.limit+p.offset)
	}
	add(b.String())
	sub := func(s string) { lines = append(lines, "  "+s) }
	if p.scanPlan != nil {
		for _, l := range p.scanPlan.Lines() {
			sub(l)
		}
	}
	if p.where != nil && len(p.indexable) == 0 {
		sub("no conjunct of WHERE can use an index (column compared with a literal: =, <=>, <, <=, >, >=, IN, BETWEEN, IS NULL, LIKE 'prefix%', array_has_any/all)")
	}
	have := indexedFields(p.ds)
	for _, pred := range p.indexable {
		if slices.Contains(p.pushed, pred.String()) {
			continue
		}
		switch {
		case len(have[pred.Column]) > 0 && p.indexes == nil:
			sub(fmt.Sprintf("not pushed: %s (%s exists; index lookups are off)", pred, strings.Join(have[pred.Column], ", ")))
		case len(have[pred.Column]) > 0:
			sub(fmt.Sprintf("not pushed: %s (%s cannot answer it: type or index kind)", pred, strings.Join(have[pred.Column], ", ")))
		default:
			sub(fmt.Sprintf("not pushed: %s (no scalar index on %s)", pred, sqlparse.QuoteIdent(pred.Column)))
		}
	}
	return lines
}

// prepareExplain opens the scan the plan would run and keeps its
// scan.Plan (it searches the chosen indices) for Explain.
func (p *dataPlan) prepareExplain(ctx context.Context) error {
	if p.countStar && p.where == nil && p.countCol < 0 {
		return nil // answered from the manifest
	}
	sc, err := p.scanner(ctx)
	if err != nil {
		return err
	}
	p.scanPlan, err = sc.Plan(ctx)
	return err
}

func fragList(ids []uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// orderByComputed answers ORDER BY positions and aliases that name
// computed select items over table data (SELECT a+b, (a+b)/5 FROM t ORDER
// BY 1, 2), which the scan's sort (columns only) cannot: the query without
// ORDER BY and LIMIT becomes a derived table and the outer query sorts its
// labelled columns. ok is false when the query does not need it (or
// cannot use it: a star, aggregates, duplicate labels, an ORDER BY item
// that is not in the select list).
func orderByComputed(st *sqlparse.Select) (*sqlparse.Select, bool) {
	if len(st.OrderBy) == 0 || st.Distinct || len(st.GroupBy) > 0 || st.Having != nil || hasAggregates(st) {
		return nil, false
	}
	labels := map[string]int{}
	for i, it := range st.Items {
		if it.Star {
			return nil, false
		}
		label := it.Alias
		if label == "" {
			label = fieldText(it)
		}
		k := strings.ToLower(label)
		if _, dup := labels[k]; dup {
			return nil, false
		}
		labels[k] = i
	}
	computed := false
	for _, o := range st.OrderBy {
		var i int
		switch n := o.Expr.(type) {
		case *sqlparse.ColumnPosition:
			if n.N < 1 || n.N > len(st.Items) {
				return nil, false
			}
			i = n.N - 1
		case *sqlparse.ColumnRef:
			j, ok := labels[strings.ToLower(n.Column)]
			if !ok || n.Qualifier != nil {
				return nil, false
			}
			i = j
		default:
			return nil, false
		}
		if _, col := sqlparse.StripParens(st.Items[i].Expr).(*sqlparse.ColumnRef); !col {
			computed = true
		}
	}
	if !computed {
		return nil, false
	}
	inner := *st
	inner.OrderBy, inner.Limit = nil, nil
	outer := &sqlparse.Select{Items: []sqlparse.SelectItem{{Star: true, Text: "*"}},
		From: &sqlparse.TableSource{Subquery: &inner, Alias: "ordered"}, OrderBy: st.OrderBy, Limit: st.Limit}
	return outer, true
}
