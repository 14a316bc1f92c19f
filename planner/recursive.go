package planner

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/sqlparse"
)

// Recursive common table expressions: WITH RECURSIVE name [(cols)] AS
// (anchor UNION [ALL | DISTINCT] recursive part) SELECT ...
//
// The CTE's query is a set operation: first the SELECTs that do not name
// the CTE (the anchor, itself any set operation), then one or more that
// do (the recursive part), each naming it once in its FROM. Each
// reference to the CTE becomes a derived table of a placeholder query
// (s.recursive) planned as a recursivePlan: the anchor's plan, and the
// plans of the recursive SELECTs in which the CTE's name is the working
// table, a second placeholder (s.working) whose rows are the previous
// iteration's. exec.Recursive runs them: the anchor once, then the
// recursive part over the working table until an iteration yields no row
// (UNION ALL) or no new row (UNION DISTINCT), at most
// @@cte_max_recursion_depth iterations (MySQL's error 3636 past them).
// The columns take the anchor's names and types (MySQL's rule): a
// recursive value is converted to the anchor column's type (a fraction
// rounded into an integer column, a number into text), and one that has
// no such conversion (text into a number column) is refused, as MariaDB's
// strict mode refuses it.
//
// MySQL's restrictions on the recursive SELECTs hold: no aggregate, window
// function, GROUP BY, HAVING, DISTINCT, ORDER BY or LIMIT, the CTE named
// once, not in a subquery and not on the inner side of an outer join.

// recursiveDef is a recursive CTE as the statement defines it, its parts
// with the CTEs they name already inlined.
type recursiveDef struct {
	name     string
	pos      sqlparse.Pos
	columns  []string
	anchor   *sqlparse.Select
	legs     []*sqlparse.Select
	distinct bool
	// work is the placeholder query the legs' references to the CTE are
	// derived tables of.
	work *sqlparse.Select
}

// A placeholder query is SELECT NULL labelled with a key no SQL text can
// give (it starts with a NUL byte): the rewrites that copy a query on its
// way to the planner (a correlated subquery's substitution) copy the label
// with it, where a pointer would be lost.
// The keys are unique in the process: forks of a session (subqueries,
// join inputs) plan into the same maps.
func (s *Session) placeholder(kind string) *sqlparse.Select {
	n := placeholders.Add(1)
	return &sqlparse.Select{Items: []sqlparse.SelectItem{{Expr: &sqlparse.Literal{Kind: sqlparse.LitNull}, Text: fmt.Sprintf("\x00%s %d", kind, n)}}}
}

var placeholders atomic.Int64

// placeholderKey is the key of a placeholder query, "" for any other.
func placeholderKey(q *sqlparse.Select) string {
	if q == nil || len(q.Items) != 1 || q.From != nil || len(q.SetOps) > 0 || !strings.HasPrefix(q.Items[0].Text, "\x00") {
		return ""
	}
	return q.Items[0].Text
}

// refersTo reports whether q names the table name (one part) anywhere:
// in its FROM, a set operand, a derived table or a subquery.
func refersTo(q *sqlparse.Select, name string) bool {
	for _, r := range q.Tables() {
		if len(r.Name) == 1 && strings.EqualFold(r.Name[0], name) {
			return true
		}
	}
	return false
}

// cteError is a positioned error of a recursive CTE's definition.
func cteError(pos sqlparse.Pos, kind error, format string, args ...any) error {
	return &sqlparse.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

// defineRecursive checks a self-referencing CTE of WITH RECURSIVE against
// MySQL's rules, records it, and returns the placeholder query its
// references stand for. scope holds the CTEs it may name besides itself.
func (s *Session) defineRecursive(c sqlparse.CTE, scope map[string]*sqlparse.CTE) (*sqlparse.Select, error) {
	name := sqlparse.QuoteIdent(c.Name)
	body := c.Select
	if len(body.SetOps) == 0 {
		return nil, cteError(c.Pos, sqlparse.ErrSyntax, "Recursive Common Table Expression %s should contain a UNION (MySQL error 3573)", name)
	}
	if len(body.OrderBy) > 0 || body.Limit != nil {
		return nil, cteError(c.Pos, sqlparse.ErrNotSupported, "not supported: ORDER BY or LIMIT over the whole query of the recursive common table expression %s (MariaDB refuses it too: error 1235)", name)
	}
	first := -1
	for i, op := range body.SetOps {
		rec := refersTo(op.Select, c.Name)
		switch {
		case rec && first < 0:
			first = i
		case !rec && first >= 0, rec && i == 0:
			return nil, cteError(c.Pos, sqlparse.ErrSyntax, "Recursive Common Table Expression %s should have one or more non-recursive query blocks followed by one or more recursive ones (MySQL error 3574)", name)
		}
	}
	d := &recursiveDef{name: c.Name, pos: c.Pos, columns: c.Columns, work: s.placeholder("working table")}
	kind := body.SetOps[first].Op
	for _, op := range body.SetOps[first:] {
		switch {
		case op.Op != sqlparse.Union && op.Op != sqlparse.UnionAll:
			return nil, cteError(c.Pos, sqlparse.ErrSyntax, "Recursive Common Table Expression %s should contain a UNION (MySQL error 3573): the recursive query blocks cannot be joined by %s", name, op.Op)
		case op.Op != kind:
			return nil, cteError(c.Pos, sqlparse.ErrNotSupported, "not supported: a mix of UNION ALL and UNION DISTINCT joining the recursive query blocks of %s (MariaDB refuses it too: error 1235)", name)
		}
		if err := checkRecursiveLeg(unparen(op.Select), c); err != nil {
			return nil, err
		}
	}
	d.distinct = kind == sqlparse.Union
	var err error
	anchor := body.SetOps[0].Select
	if first > 1 {
		anchor = &sqlparse.Select{SetOps: body.SetOps[:first]}
	}
	if d.anchor, err = s.inlineCTEs(anchor, scope); err != nil {
		return nil, err
	}
	legScope := make(map[string]*sqlparse.CTE, len(scope)+1)
	for k, v := range scope {
		legScope[k] = v
	}
	legScope[strings.ToLower(c.Name)] = &sqlparse.CTE{Name: c.Name, Select: d.work}
	for _, op := range body.SetOps[first:] {
		leg, err := s.inlineCTEs(unparen(op.Select), legScope)
		if err != nil {
			return nil, err
		}
		d.legs = append(d.legs, leg)
	}
	marker := s.placeholder("recursive CTE")
	s.recursive[placeholderKey(marker)] = d
	return marker, nil
}

// unparen is the SELECT of a parenthesized one, (SELECT ...), which the
// parser gives as a set operation of one operand; its ORDER BY and LIMIT
// come along (for checkRecursiveLeg to refuse).
func unparen(q *sqlparse.Select) *sqlparse.Select {
	for len(q.SetOps) == 1 {
		inner := *q.SetOps[0].Select
		if len(q.OrderBy) > 0 {
			inner.OrderBy = q.OrderBy
		}
		if q.Limit != nil {
			inner.Limit = q.Limit
		}
		q = &inner
	}
	return q
}

// checkRecursiveLeg applies MySQL's restrictions to one recursive SELECT.
func checkRecursiveLeg(q *sqlparse.Select, c sqlparse.CTE) error {
	name := sqlparse.QuoteIdent(c.Name)
	pos := c.Pos
	if len(q.Items) > 0 {
		pos = q.Items[0].Pos
	}
	if len(q.SetOps) > 0 {
		return cteError(pos, sqlparse.ErrNotSupported, "not supported: a nested set operation as a recursive query block of %s", name)
	}
	forbid := func(at sqlparse.Pos, what string) error {
		return cteError(at, sqlparse.ErrSyntax, "Recursive Common Table Expression %s can contain neither aggregation nor window functions in the recursive query block (MySQL error 3575): %s", name, what)
	}
	for _, it := range q.Items {
		if it.Star {
			continue
		}
		if containsAggregate(it.Expr) {
			return forbid(it.Pos, "an aggregate function")
		}
		if containsWindow(it.Expr) {
			return forbid(it.Pos, "a window function")
		}
	}
	switch {
	case len(q.GroupBy) > 0:
		return forbid(q.GroupBy[0].Pos(), "GROUP BY")
	case q.Having != nil:
		return forbid(q.Having.Pos(), "HAVING")
	case hasAggregates(q):
		return forbid(pos, "an aggregate function")
	case hasWindows(q):
		return forbid(pos, "a window function")
	case q.Distinct:
		return cteError(pos, sqlparse.ErrSyntax, "DISTINCT is not allowed in the recursive query block of the common table expression %s (MySQL's rule; write UNION DISTINCT instead)", name)
	case len(q.OrderBy) > 0:
		return cteError(q.OrderBy[0].Expr.Pos(), sqlparse.ErrSyntax, "ORDER BY is not allowed in the recursive query block of the common table expression %s (MySQL's rule)", name)
	case q.Limit != nil:
		return cteError(pos, sqlparse.ErrNotSupported, "not supported: LIMIT in the recursive query block of the common table expression %s (MariaDB refuses it as well)", name)
	}
	// The references in the FROM tree itself; any other is in a subquery.
	direct, inner := 0, false
	var walk func(f sqlparse.FromItem, nullable bool)
	walk = func(f sqlparse.FromItem, nullable bool) {
		switch n := f.(type) {
		case *sqlparse.TableSource:
			if len(n.Table) == 1 && strings.EqualFold(n.Table[0], c.Name) {
				direct++
				inner = inner || nullable
			}
		case *sqlparse.Join:
			walk(n.Left, nullable || n.Kind == sqlparse.RightJoin || n.Kind == sqlparse.FullJoin)
			walk(n.Right, nullable || n.Kind == sqlparse.LeftJoin || n.Kind == sqlparse.FullJoin)
		}
	}
	walk(q.From, false)
	total := 0
	for _, r := range q.Tables() {
		if len(r.Name) == 1 && strings.EqualFold(r.Name[0], c.Name) {
			total++
		}
	}
	switch {
	case total != 1 || direct != 1:
		return cteError(pos, sqlparse.ErrSyntax, "In recursive query block of Recursive Common Table Expression %s, the recursive table must be referenced only once, and not in any subquery (MySQL error 3577)", name)
	case inner:
		return cteError(pos, sqlparse.ErrSyntax, "In recursive query block of Recursive Common Table Expression %s, the recursive table must neither be in the right argument of a LEFT JOIN, nor be forced to be non-first with join order hints (MySQL error 3576)", name)
	}
	return nil
}

// workTable is the rows of the previous iteration, as the recursive part
// reads the CTE's name.
type workTable struct {
	name string
	cols []Column
	rows [][]any
}

func (w *workTable) resultColumns() []Column { return w.cols }

func (w *workTable) Explain() []string {
	return []string{"WorkingTable " + sqlparse.QuoteIdent(w.name) + " (the rows of the previous iteration)"}
}

func (w *workTable) run(context.Context, *Session) (*Result, error) {
	return &Result{Columns: w.cols, Rows: w.rows}, nil
}

// recursivePlan is one reference to a recursive CTE, planned.
type recursivePlan struct {
	def     *recursiveDef
	anchor  queryPlan
	legs    []queryPlan
	work    *workTable
	workKey string             // the placeholder key of work
	queries []*sqlparse.Select // the legs' queries, over this plan's working table
	cols    []Column
	budget  int64
	explain []string
}

func (p *recursivePlan) resultColumns() []Column { return p.cols }
func (p *recursivePlan) Explain() []string       { return p.explain }

// planRecursive plans a reference to a recursive CTE.
func (s *Session) planRecursive(ctx context.Context, d *recursiveDef) (queryPlan, error) {
	anchor, err := s.planQuery(ctx, d.anchor)
	if err != nil {
		return nil, err
	}
	cols := append([]Column(nil), anchor.resultColumns()...)
	if d.columns != nil {
		if len(d.columns) != len(cols) {
			return nil, cteError(d.pos, sqlparse.ErrSyntax, "the common table expression %s names %d columns for a query of %d (MySQL error 1353)", sqlparse.QuoteIdent(d.name), len(d.columns), len(cols))
		}
		for i := range cols {
			cols[i].Name = d.columns[i]
		}
	}
	p := &recursivePlan{def: d, anchor: anchor, budget: s.joinBudget()}
	p.work = &workTable{name: d.name, cols: cols}
	// Each plan of the CTE reads its own working table: the legs' FROM
	// trees are copied onto a placeholder of this plan's (see useWork).
	work := s.placeholder("working table")
	p.workKey = placeholderKey(work)
	defer p.useWork(s)()
	for _, leg := range d.legs {
		leg = withWork(leg, d.work, work)
		p.queries = append(p.queries, leg)
		lp, err := s.planQuery(ctx, leg)
		if err != nil {
			return nil, err
		}
		lc := lp.resultColumns()
		if len(lc) != len(cols) {
			return nil, errorf(catalog.CodeInvalidInput, "the used SELECT statements have a different number of columns (%d and %d; MySQL error 1222)", len(cols), len(lc))
		}
		for i := range cols {
			cols[i].Nullable = cols[i].Nullable || lc[i].Nullable
		}
		p.legs = append(p.legs, lp)
	}
	p.cols = cols
	return p, nil
}

// withWork copies q with the derived tables of the placeholder from in its
// FROM tree reading the placeholder to instead (the legs name the CTE only
// there: checkRecursiveLeg).
func withWork(q *sqlparse.Select, from, to *sqlparse.Select) *sqlparse.Select {
	var walk func(f sqlparse.FromItem) sqlparse.FromItem
	walk = func(f sqlparse.FromItem) sqlparse.FromItem {
		switch n := f.(type) {
		case *sqlparse.TableSource:
			if n.Subquery != nil && placeholderKey(n.Subquery) == placeholderKey(from) {
				c := *n
				c.Subquery = to
				return &c
			}
		case *sqlparse.Join:
			c := *n
			c.Left, c.Right = walk(n.Left), walk(n.Right)
			return &c
		}
		return f
	}
	c := *q
	c.From = walk(q.From)
	return &c
}

// maxRecursionDepth is @@cte_max_recursion_depth.
func (s *Session) maxRecursionDepth() int64 {
	v, _ := s.variable("cte_max_recursion_depth")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 1000
	}
	return n
}

func (p *recursivePlan) union() string {
	if p.def.distinct {
		return "UNION DISTINCT"
	}
	return "UNION ALL"
}

func (s *Session) prepareRecursiveExplain(ctx context.Context, p *recursivePlan) error {
	defer p.useWork(s)()
	stop := "an iteration yields no row"
	if p.def.distinct {
		stop = "an iteration yields no new row"
	}
	p.explain = []string{fmt.Sprintf("RecursiveCTE %s %s (the anchor, then the recursive part over the previous iteration's rows until %s, at most %d iterations (cte_max_recursion_depth); rows held in memory within %d bytes)",
		sqlparse.QuoteIdent(p.def.name), p.union(), stop, s.maxRecursionDepth(), p.budget)}
	p.explain = append(p.explain, "  Anchor")
	lines, err := s.explainPlan(ctx, p.anchor, s.subq, p.def.anchor, 2)
	if err != nil {
		return err
	}
	p.explain = append(p.explain, lines...)
	for i, leg := range p.legs {
		p.explain = append(p.explain, "  Recursive")
		lines, err := s.explainPlan(ctx, leg, s.subq, p.queries[i], 2)
		if err != nil {
			return err
		}
		p.explain = append(p.explain, lines...)
	}
	return nil
}

func (p *recursivePlan) run(ctx context.Context, s *Session) (*Result, error) {
	depth := s.maxRecursionDepth()
	seq := func(yield func([][]any, error) bool) {
		defer p.useWork(s)()
		res, err := p.anchor.run(ctx, s)
		if err != nil {
			yield(nil, err)
			return
		}
		op := &exec.Recursive{
			Anchor: exec.FromSeq(cursorRows(res)),
			Step: func(ctx context.Context, working [][]any) (exec.Operator, error) {
				p.work.rows = working
				return exec.FromSeq(p.stepRows(ctx, s)), nil
			},
			MaxDepth: depth,
			Budget:   exec.NewBudget(p.budget),
			Name:     "the recursive common table expression " + sqlparse.QuoteIdent(p.def.name),
		}
		if p.def.distinct {
			op.Key = setRowKey
		}
		for b, err := range exec.Batches(ctx, op) {
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
	return streamResult(p.cols, seq), nil
}

// useWork registers the plan's working table under its placeholder and
// returns the function that removes it (and the rows it holds): the legs'
// joins plan their inputs again as they scan or explain them, so the
// working table is found while the plan is planned, run or explained, and
// a finished run keeps no rows in the session.
func (p *recursivePlan) useWork(s *Session) func() {
	s.working[p.workKey] = p.work
	return func() {
		delete(s.working, p.workKey)
		p.work.rows = nil
	}
}

// stepRows runs the recursive SELECTs once over the working table.
func (p *recursivePlan) stepRows(ctx context.Context, s *Session) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		for _, leg := range p.legs {
			res, err := leg.run(ctx, s)
			if err != nil {
				yield(nil, err)
				return
			}
			for row, err := range cursorRows(res) {
				if err == nil {
					row, err = p.convert(append([]any(nil), row...))
				}
				if !yield(row, err) || err != nil {
					return
				}
			}
		}
	}
}

// convert gives a recursive row the anchor's column types.
func (p *recursivePlan) convert(row []any) ([]any, error) {
	for i, v := range row {
		if v == nil || i >= len(p.cols) {
			continue
		}
		c := p.cols[i]
		t := strings.ToUpper(c.DatabaseType)
		switch {
		case strings.Contains(t, "INT"):
			if x, ok := v.(string); ok && numericText(x) {
				// A DECIMAL's exact text (over a derived table the leg's
				// column may say VARCHAR: the text itself decides).
				n, ok := roundDecimal(x)
				if !ok {
					return nil, errorf(catalog.CodeInvalidInput, "Out of range value for column %s of the recursive common table expression %s (MySQL error 1264)", sqlparse.QuoteIdent(c.Name), sqlparse.QuoteIdent(p.def.name))
				}
				row[i] = n
				continue
			}
			switch x := v.(type) {
			case float64:
				r := math.Round(x) // half away from zero, as MySQL stores it
				if math.IsNaN(r) || r < -9.223372036854775e18 || r >= 9.223372036854775e18 {
					return nil, errorf(catalog.CodeInvalidInput, "Out of range value for column %s of the recursive common table expression %s (MySQL error 1264)", sqlparse.QuoteIdent(c.Name), sqlparse.QuoteIdent(p.def.name))
				}
				row[i] = int64(r)
			case bool:
				row[i] = int64(0)
				if x {
					row[i] = int64(1)
				}
			case string, []byte:
				return nil, errorf(catalog.CodeInvalidInput, "Incorrect integer value: %s for column %s of the recursive common table expression %s, an integer as its anchor makes it (MySQL error 1366; cast the anchor's column to CHAR to keep text)", quoteString(toString(v)), sqlparse.QuoteIdent(c.Name), sqlparse.QuoteIdent(p.def.name))
			}
		case t == "DOUBLE" || t == "FLOAT" || t == "REAL":
			if x, ok := v.(string); ok && numericText(x) {
				f, err := strconv.ParseFloat(x, 64)
				if err != nil {
					return nil, errorf(catalog.CodeInvalidInput, "Out of range value for column %s of the recursive common table expression %s (MySQL error 1264)", sqlparse.QuoteIdent(c.Name), sqlparse.QuoteIdent(p.def.name))
				}
				row[i] = f
				continue
			}
			switch x := v.(type) {
			case int64:
				row[i] = float64(x)
			case string, []byte:
				return nil, errorf(catalog.CodeInvalidInput, "Incorrect double value: %s for column %s of the recursive common table expression %s, a number as its anchor makes it (MySQL error 1366)", quoteString(toString(v)), sqlparse.QuoteIdent(c.Name), sqlparse.QuoteIdent(p.def.name))
			}
		case typeClass(c) == "string":
			if _, ok := v.(string); !ok {
				row[i] = toString(v)
			}
		}
	}
	return row, nil
}

// roundDecimal rounds a decimal's text to an integer, half away from zero
// (as MySQL stores a DECIMAL into an integer column); false when it is out
// of BIGINT's range.
func roundDecimal(text string) (int64, bool) {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimLeft(text, "+-")
	whole, frac, _ := strings.Cut(text, ".")
	if whole == "" {
		whole = "0"
	}
	u, err := strconv.ParseUint(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	if frac != "" && frac[0] >= '5' {
		u++
	}
	switch {
	case neg && u == 1<<63:
		return math.MinInt64, true
	case u >= 1<<63:
		return 0, false
	case neg:
		return -int64(u), true
	}
	return int64(u), true
}
