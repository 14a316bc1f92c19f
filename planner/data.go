package planner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/sqlparse"
)

// SELECT over table data:
//
//	SELECT * | col [AS label], ... | COUNT(*) | COUNT(col)
//	FROM [ns.]table
//	[WHERE cond] [ORDER BY col [ASC|DESC], ...] [LIMIT n [OFFSET m] | LIMIT m, n]
//
// cond combines, with AND, OR, NOT, XOR and parentheses, comparisons of
// columns and literals: =, <=>, <>, !=, <, <=, >, >=, [NOT] IN (list),
// [NOT] BETWEEN, IS [NOT] NULL, IS [NOT] TRUE/FALSE, [NOT] LIKE (with
// ESCAPE). Anything else (functions, arithmetic, subqueries) fails with
// CodeUnsupported naming the expression. The select list holds columns,
// literals, * or one COUNT.
//
// Execution: one scan of the table's latest version through
// lance/dataset (narrowed by one scalar-index lookup when a conjunct of
// WHERE is column = literal, IN or LIKE 'prefix%' on an indexed column; see
// IndexLookup and ScalarIndexes), reading only the columns the query uses. Without WHERE
// and ORDER BY, LIMIT and OFFSET are pushed into the scan; with WHERE and no
// ORDER BY the scan stops once LIMIT rows matched. WHERE is evaluated on
// each row of the Arrow batches. COUNT(*) without WHERE is answered from
// the manifest's row counts (no data read). ORDER BY sorts in memory (NULLs
// first, as MySQL); at most Options.MaxRows rows may be sorted or returned
// (DefaultMaxRows), beyond which the query fails with a message naming the
// limit. Comparisons follow MySQL: a number against a string compares
// numerically; a date/time column against a string literal parses the
// literal ('2024-01-02', '2024-01-02 10:00:00.5', RFC 3339); decimals
// compare as float64 (exact only to ~15 significant digits).

// DefaultMaxRows is the default of Options.MaxRows.
const DefaultMaxRows = 1_000_000

// queryPlan is a planned SELECT.
type queryPlan interface {
	run(ctx context.Context, s *Session) (*Result, error)
	Explain() []string
}

// planQuery plans a SELECT: over table data when FROM names a table, else
// over the information_schema views (or no FROM).
func (s *Session) planQuery(ctx context.Context, st *sqlparse.Select) (queryPlan, error) {
	if sel := st.SelectStmt(); sel != nil && sel.From != nil && sel.Kind == ast.SelectStmtKindSelect {
		if tn, err := singleTable(sel.From); err == nil {
			name := st.Names.Table(tn)
			if len(name) < 2 || !strings.EqualFold(name[0], "information_schema") {
				return s.planDataSelect(ctx, st, sel, name)
			}
		}
	}
	p, err := s.planSelect(st)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// dataPlan is a planned SELECT over a table's data.
type dataPlan struct {
	id      catalog.Ident
	ds      *dataset.Dataset
	schema  *arrow.Schema
	env     *rowEnv // over every schema field
	fields  []selectField
	outCols []Column
	// countStar: COUNT(*) (countCol < 0) or COUNT(col) (countCol is the
	// schema position of col).
	countStar bool
	countCol  int
	where     ast.ExprNode
	order     []dataOrderKey
	limit     int64 // -1: none
	offset    int64
	// read lists the schema positions the scan reads.
	read []int
	// pushLimit: LIMIT/OFFSET go into the scan.
	pushLimit bool
	// indexable are conjuncts of WHERE a scalar index could answer.
	indexable []IndexPredicate
	maxRows   int
	indexes   IndexLookup
}

type dataOrderKey struct {
	col  int // schema position
	desc bool
}

func checkSelectShape(sel *ast.SelectStmt) error {
	switch {
	case sel.With != nil:
		return notSupportedSelect("WITH (common table expressions)")
	case sel.GroupBy != nil || sel.Having != nil || len(sel.WindowSpecs) > 0:
		return notSupportedSelect("GROUP BY, HAVING and window functions")
	case sel.Distinct:
		return notSupportedSelect("SELECT DISTINCT")
	case sel.LockInfo != nil && sel.LockInfo.LockType != ast.SelectLockNone:
		return notSupportedSelect("SELECT ... FOR UPDATE / SHARE")
	case sel.SelectIntoOpt != nil:
		return notSupportedSelect("SELECT ... INTO")
	}
	return nil
}

// openTableData opens the latest version of a table's dataset.
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
	if s.opts.Store == nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: reading or writing table data without the catalog's object store (planner.Options.Store)")
	}
	d, err := s.cat.DescribeTable(ctx, id, catalog.DescribeTableOptions{MetadataOnly: true})
	if err != nil {
		return nil, err
	}
	if d.DeclaredOnly {
		return nil, errorf(catalog.CodeInvalidTableState, "table %s is declared but has no data yet", displayName(id))
	}
	ds, err := dataset.Open(ctx, s.opts.Store, d.Location, dataset.OpenOptions{})
	if err != nil {
		if errors.Is(err, dataset.ErrNotFound) {
			return nil, &catalog.Error{Code: catalog.CodeTableNotFound, Message: fmt.Sprintf("table %s has no dataset at %s", displayName(id), d.URI), Cause: err}
		}
		return nil, err
	}
	return ds, nil
}

func (s *Session) planDataSelect(ctx context.Context, st *sqlparse.Select, sel *ast.SelectStmt, name sqlparse.Name) (*dataPlan, error) {
	if err := checkSelectShape(sel); err != nil {
		return nil, err
	}
	id, ds, err := s.openTableData(ctx, name)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	p := &dataPlan{id: id, ds: ds, schema: schema, limit: -1, countCol: -1, maxRows: s.opts.MaxRows, indexes: s.opts.Indexes}
	if p.maxRows <= 0 {
		p.maxRows = DefaultMaxRows
	}
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = dataColumn(f, "")
	}
	p.env = newRowEnv(cols, st.Names)
	p.env.session = s
	used := map[int]bool{}
	markUsed := func(e ast.ExprNode) {
		e.Accept(&visitor{enter: func(n ast.Node) bool {
			if cn, ok := n.(*ast.ColumnNameExpr); ok {
				if i, err := p.env.column(cn.Name); err == nil {
					used[i] = true
				}
			}
			return true
		}})
	}
	for _, f := range sel.Fields.Fields {
		switch {
		case f.WildCard != nil:
			for i, c := range cols {
				p.fields = append(p.fields, selectField{col: c, expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(c.Name)}}})
				p.outCols = append(p.outCols, c)
				used[i] = true
			}
		default:
			if agg, ok := f.Expr.(*ast.AggregateFuncExpr); ok {
				if err := p.planCount(agg, len(sel.Fields.Fields), used); err != nil {
					return nil, err
				}
				label := f.AsName.O
				if label == "" {
					label = fieldText(f)
				}
				p.outCols = append(p.outCols, bigint(label))
				continue
			}
			switch e := f.Expr.(type) {
			case *ast.ColumnNameExpr:
				i, err := p.env.column(e.Name)
				if err != nil {
					return nil, err
				}
				c := dataColumn(schema.Field(i), f.AsName.O)
				p.fields = append(p.fields, selectField{col: c, expr: e})
				p.outCols = append(p.outCols, c)
				used[i] = true
			case ast.ValueExpr:
				v, err := normalizeLiteral(e.GetValue())
				if err != nil {
					return nil, err
				}
				label := f.AsName.O
				if label == "" {
					label = fieldText(f)
				}
				c := varcharNull(label)
				switch v.(type) {
				case int64, bool:
					c = Column{Name: label, DatabaseType: "BIGINT", Nullable: true}
				case float64:
					c = Column{Name: label, DatabaseType: "DOUBLE", Nullable: true}
				}
				p.fields = append(p.fields, selectField{col: c, expr: e})
				p.outCols = append(p.outCols, c)
			default:
				return nil, errorf(catalog.CodeUnsupported, "not supported: %s in the select list of a query over table data (columns, *, literals and one COUNT only)", restore(f.Expr))
			}
		}
	}
	if p.countStar && len(p.fields) > 0 {
		return nil, notSupportedSelect("COUNT together with other select items (no GROUP BY)")
	}
	if sel.Where != nil {
		if err := checkDataCondition(sel.Where); err != nil {
			return nil, err
		}
		if err := p.env.check(sel.Where); err != nil {
			return nil, err
		}
		p.where = sel.Where
		markUsed(sel.Where)
		p.indexable = p.indexCandidates(sel.Where)
	}
	if sel.OrderBy != nil && !p.countStar {
		for _, item := range sel.OrderBy.Items {
			i, err := p.orderColumn(item.Expr)
			if err != nil {
				return nil, err
			}
			used[i] = true
			p.order = append(p.order, dataOrderKey{col: i, desc: item.Desc})
		}
	}
	if sel.Limit != nil {
		if p.limit, err = limitValue(sel.Limit.Count); err != nil {
			return nil, err
		}
		if sel.Limit.Offset != nil {
			if p.offset, err = limitValue(sel.Limit.Offset); err != nil {
				return nil, err
			}
		}
	}
	for i := range cols {
		if used[i] {
			p.read = append(p.read, i)
		}
	}
	if len(p.read) == 0 && !(p.countStar && p.where == nil) {
		// Only the row count matters (SELECT 1 FROM t): read the first column.
		p.read = []int{0}
	}
	p.pushLimit = p.where == nil && len(p.order) == 0 && !p.countStar
	return p, nil
}

func (p *dataPlan) planCount(agg *ast.AggregateFuncExpr, nFields int, used map[int]bool) error {
	if !strings.EqualFold(agg.F, "count") {
		return errorf(catalog.CodeUnsupported, "not supported: aggregate %s over table data (only COUNT)", strings.ToUpper(agg.F))
	}
	if agg.Distinct {
		return notSupportedSelect("COUNT(DISTINCT ...)")
	}
	if nFields != 1 {
		return notSupportedSelect("COUNT together with other select items (no GROUP BY)")
	}
	p.countStar = true
	if len(agg.Args) != 1 {
		return errorf(catalog.CodeInvalidInput, "COUNT takes one argument")
	}
	switch a := agg.Args[0].(type) {
	case *ast.ColumnNameExpr:
		i, err := p.env.column(a.Name)
		if err != nil {
			return err
		}
		p.countCol = i
		used[i] = true
	case ast.ValueExpr: // COUNT(*) parses as COUNT(1)
		if a.GetValue() == nil {
			return errorf(catalog.CodeUnsupported, "not supported: COUNT(NULL)")
		}
	default:
		return errorf(catalog.CodeUnsupported, "not supported: COUNT(%s) (COUNT(*) and COUNT(column) only)", restore(a))
	}
	return nil
}

// orderColumn resolves an ORDER BY item: a column, the label of a select
// item naming a column, or a position in the select list.
func (p *dataPlan) orderColumn(e ast.ExprNode) (int, error) {
	switch n := e.(type) {
	case *ast.ColumnNameExpr:
		if i, err := p.env.column(n.Name); err == nil {
			return i, nil
		}
		for _, f := range p.fields {
			if cn, ok := f.expr.(*ast.ColumnNameExpr); ok && strings.EqualFold(f.col.Name, n.Name.Name.O) {
				return p.env.column(cn.Name)
			}
		}
		return p.env.column(n.Name)
	case *ast.PositionExpr:
		if n.P == nil && n.N >= 1 && n.N <= len(p.fields) {
			if cn, ok := p.fields[n.N-1].expr.(*ast.ColumnNameExpr); ok {
				return p.env.column(cn.Name)
			}
		}
		return 0, errorf(catalog.CodeInvalidInput, "ORDER BY position %d does not name a column of the select list", n.N)
	}
	return 0, errorf(catalog.CodeUnsupported, "not supported: ORDER BY %s over table data (columns only)", restore(e))
}

// checkDataCondition accepts the WHERE forms evaluated over table data and
// names the first one it does not.
func checkDataCondition(e ast.ExprNode) error {
	var bad ast.Node
	e.Accept(&visitor{enter: func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		switch x := n.(type) {
		case *ast.ParenthesesExpr, *ast.ColumnNameExpr, *ast.ColumnName, ast.ValueExpr,
			*ast.IsNullExpr, *ast.IsTruthExpr, *ast.BetweenExpr, *ast.PatternLikeOrIlikeExpr:
		case *ast.PatternInExpr:
			if x.Sel != nil {
				bad = n
			}
		case *ast.BinaryOperationExpr:
			switch x.Op {
			case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ,
				opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
			default:
				bad = n
			}
		case *ast.UnaryOperationExpr:
			switch x.Op {
			case opcode.Not, opcode.Not2:
			case opcode.Minus, opcode.Plus:
				if _, ok := stripParens(x.V).(ast.ValueExpr); !ok {
					bad = n
				}
			default:
				bad = n
			}
		default:
			bad = n
		}
		return bad == nil
	}})
	if bad != nil {
		return errorf(catalog.CodeUnsupported, "not supported: %s in WHERE over table data (supported: =, <>, <, <=, >, >=, <=>, IN, BETWEEN, IS [NOT] NULL, LIKE, AND, OR, XOR, NOT over columns and literals)", restore(bad))
	}
	return nil
}

// indexCandidates lists the top-level conjuncts of where a scalar index
// could answer: column = literal, column IN (literals), column LIKE
// 'prefix%'.
func (p *dataPlan) indexCandidates(where ast.ExprNode) []IndexPredicate {
	var out []IndexPredicate
	colOf := func(e ast.ExprNode) (string, bool) {
		cn, ok := stripParens(e).(*ast.ColumnNameExpr)
		if !ok {
			return "", false
		}
		i, err := p.env.column(cn.Name)
		if err != nil {
			return "", false
		}
		return p.schema.Field(i).Name, true
	}
	litOf := func(e ast.ExprNode) (any, bool) {
		ve, ok := stripParens(e).(ast.ValueExpr)
		if !ok {
			return nil, false
		}
		v, err := normalizeLiteral(ve.GetValue())
		return v, err == nil && v != nil
	}
	for _, c := range conjuncts(where) {
		switch n := stripParens(c).(type) {
		case *ast.BinaryOperationExpr:
			if n.Op != opcode.EQ {
				continue
			}
			if col, ok := colOf(n.L); ok {
				if v, ok := litOf(n.R); ok {
					out = append(out, IndexPredicate{Column: col, Op: IndexEqual, Values: []any{v}})
				}
			} else if col, ok := colOf(n.R); ok {
				if v, ok := litOf(n.L); ok {
					out = append(out, IndexPredicate{Column: col, Op: IndexEqual, Values: []any{v}})
				}
			}
		case *ast.PatternInExpr:
			col, ok := colOf(n.Expr)
			if n.Not || n.Sel != nil || !ok {
				continue
			}
			var vals []any
			for _, item := range n.List {
				v, ok := litOf(item)
				if !ok {
					vals = nil
					break
				}
				vals = append(vals, v)
			}
			if vals != nil {
				out = append(out, IndexPredicate{Column: col, Op: IndexIn, Values: vals})
			}
		case *ast.PatternLikeOrIlikeExpr:
			col, ok := colOf(n.Expr)
			if n.Not || !n.IsLike || !ok {
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

// Explain describes the plan, one operator per line, outermost first.
func (p *dataPlan) Explain() []string {
	var lines []string
	add := func(s string) { lines = append(lines, strings.Repeat("  ", len(lines))+s) }
	if !p.pushLimit && (p.limit >= 0 || p.offset > 0) && !p.countStar {
		l := "Limit none"
		if p.limit >= 0 {
			l = fmt.Sprintf("Limit %d", p.limit)
		}
		if p.offset > 0 {
			l += fmt.Sprintf(" offset %d", p.offset)
		}
		add(l)
	}
	if len(p.order) > 0 {
		var keys []string
		for _, o := range p.order {
			k := sqlparse.QuoteIdent(p.schema.Field(o.col).Name)
			if o.desc {
				k += " DESC"
			}
			keys = append(keys, k)
		}
		add(fmt.Sprintf("Sort %s (in memory, at most %d rows)", strings.Join(keys, ", "), p.maxRows))
	}
	switch {
	case p.countStar && p.where == nil && p.countCol < 0:
		add("Count from the manifest's fragment row counts (no data read)")
	case p.countStar:
		add("Count")
	default:
		var names []string
		for _, c := range p.outCols {
			names = append(names, c.Name)
		}
		add("Project " + strings.Join(names, ", "))
	}
	if p.where != nil {
		add("Filter " + restore(p.where))
	}
	if p.countStar && p.where == nil && p.countCol < 0 {
		return lines
	}
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
	if p.where != nil {
		if len(p.indexable) == 0 {
			add("Index: none (no conjunct of WHERE is column = literal, column IN (literals) or column LIKE 'prefix%')")
		} else {
			have := indexedFields(p.ds)
			used := false
			for _, pred := range p.indexable {
				choice := ""
				if p.indexes != nil {
					choice = p.indexes.Choose(p.ds, pred)
				}
				switch {
				case choice != "" && !used:
					used = true
					add(fmt.Sprintf("IndexLookup %s: %s (%s)", choice, pred, p.coverage(choice)))
				case choice != "":
					add(fmt.Sprintf("Index candidate %s: could use %s (not used: one index lookup per query)", pred, choice))
				case len(have[pred.Column]) > 0 && p.indexes == nil:
					add(fmt.Sprintf("Index candidate %s: %s exists (not used: index lookups are off)", pred, strings.Join(have[pred.Column], ", ")))
				case len(have[pred.Column]) > 0:
					add(fmt.Sprintf("Index candidate %s: %s cannot answer it (type or index kind); scanned", pred, strings.Join(have[pred.Column], ", ")))
				default:
					add(fmt.Sprintf("Index candidate %s: no scalar index on %s", pred, sqlparse.QuoteIdent(pred.Column)))
				}
			}
		}
	}
	return lines
}

// coverage describes which fragments a lookup through the index named in
// choice ("KIND 'name'") reads through the index and which it scans.
func (p *dataPlan) coverage(choice string) string {
	for _, info := range index.Describe(p.ds) {
		if choice != fmt.Sprintf("%s %s", info.Kind, quoteString(info.Name)) {
			continue
		}
		if len(info.Uncovered) == 0 {
			return fmt.Sprintf("covers all %d fragments; reads only the rows it returns", len(info.Covered))
		}
		return fmt.Sprintf("covers %d of %d fragments; reads only the rows it returns there and scans fragments %s in full",
			len(info.Covered), len(info.Covered)+len(info.Uncovered), fragList(info.Uncovered))
	}
	return "reads only the rows it returns"
}

func fragList(ids []uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

var errStopScan = errors.New("stop scan")

func (p *dataPlan) tooMany() error {
	return errorf(catalog.CodeInvalidInput, "query over %s would materialize more than %d rows (the in-memory limit for results and ORDER BY); add a LIMIT or a narrower WHERE", displayName(p.id), p.maxRows)
}

// run executes the plan.
func (p *dataPlan) run(ctx context.Context, s *Session) (*Result, error) {
	if p.countStar && p.where == nil && p.countCol < 0 {
		n, err := p.ds.CountRows(ctx)
		if err != nil {
			return nil, err
		}
		return rowsResult(p.outCols, [][]any{{int64(n)}}), nil
	}
	if p.limit == 0 && !p.countStar {
		return rowsResult(p.outCols, nil), nil
	}
	opts := dataset.ScanOptions{}
	for _, c := range p.read {
		opts.Columns = append(opts.Columns, p.schema.Field(c).Name)
	}
	if p.pushLimit {
		opts.Offset = uint64(p.offset)
		if p.limit > 0 {
			opts.Limit = uint64(p.limit)
		}
	}
	// An index lookup narrows the scan to the fragments holding the rows it
	// returns, plus the fragments it does not cover (scanned in full).
	var keep *roaring64.Bitmap
	var scanAll map[uint64]bool
	if p.indexes != nil {
		for _, pred := range p.indexable {
			ans, err := p.indexes.Lookup(ctx, p.ds, pred)
			if err != nil {
				return nil, err
			}
			if ans == nil {
				continue
			}
			keep = roaring64.New()
			keep.AddMany(ans.Rows)
			frags := map[uint64]bool{}
			for _, a := range ans.Rows {
				frags[a>>32] = true
			}
			scanAll = map[uint64]bool{}
			for _, id := range ans.Uncovered {
				frags[id] = true
				scanAll[id] = true
			}
			opts.Fragments = []uint64{}
			for _, f := range p.ds.Fragments() {
				if frags[f.ID] {
					opts.Fragments = append(opts.Fragments, f.ID)
				}
			}
			opts.WithRowAddress = true
			break
		}
		if keep != nil && len(opts.Fragments) == 0 {
			if p.countStar {
				return rowsResult(p.outCols, [][]any{{int64(0)}}), nil
			}
			return rowsResult(p.outCols, nil), nil
		}
	}
	var rows [][]any
	var count int64
	skip := int64(0)
	if !p.pushLimit && len(p.order) == 0 {
		skip = p.offset
	}
	width := p.schema.NumFields()
	err := p.ds.Scan(ctx, opts, func(rec arrow.RecordBatch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		readers := make([]valueReader, len(p.read))
		for j, c := range p.read {
			r, err := readerFor(p.schema.Field(c), rec.Column(j))
			if err != nil {
				return err
			}
			readers[j] = r
		}
		var addrs *array.Uint64
		if keep != nil {
			addrs, _ = rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			if addrs != nil && !keep.Contains(addrs.Value(r)) && !scanAll[addrs.Value(r)>>32] {
				continue
			}
			row := make([]any, width)
			for j, c := range p.read {
				v, err := readers[j](r)
				if err != nil {
					return err
				}
				row[c] = v
			}
			if p.where != nil {
				ok, err := p.env.matches(p.where, row)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			if p.countStar {
				if p.countCol < 0 || row[p.countCol] != nil {
					count++
				}
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			if len(rows) >= p.maxRows {
				return p.tooMany()
			}
			rows = append(rows, row)
			if len(p.order) == 0 && p.limit >= 0 && int64(len(rows)) >= p.limit {
				return errStopScan
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return nil, err
	}
	if p.countStar {
		return rowsResult(p.outCols, [][]any{{count}}), nil
	}
	if len(p.order) > 0 {
		sort.SliceStable(rows, func(a, b int) bool {
			for _, o := range p.order {
				c := compareNullsFirst(rows[a][o.col], rows[b][o.col])
				if o.desc {
					c = -c
				}
				if c != 0 {
					return c < 0
				}
			}
			return false
		})
		if p.offset > 0 {
			if p.offset >= int64(len(rows)) {
				rows = nil
			} else {
				rows = rows[p.offset:]
			}
		}
		if p.limit >= 0 && int64(len(rows)) > p.limit {
			rows = rows[:p.limit]
		}
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		o := make([]any, len(p.fields))
		for j, f := range p.fields {
			v, err := p.env.eval(f.expr, r)
			if err != nil {
				return nil, err
			}
			o[j] = v
		}
		out[i] = o
	}
	return rowsResult(p.outCols, out), nil
}
