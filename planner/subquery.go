package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Subqueries in expressions: a scalar subquery `(SELECT ...)`, `[NOT]
// EXISTS (SELECT ...)`, `x [NOT] IN (SELECT ...)` and `x op ANY|ALL
// (SELECT ...)`, in the select list, WHERE, HAVING and ORDER BY of a SELECT
// (over table data, information_schema, a derived table or no FROM) and in
// the WHERE and SET of UPDATE and DELETE.
//
// Each subquery is planned with the statement (so a bad name fails before
// anything runs, and EXPLAIN prints its plan without running it) and runs
// on first use:
//
//   - An uncorrelated subquery reads only its own FROM; it runs once, the
//     first time a row needs its value, and the value is kept for the rest
//     of the statement.
//   - A correlated subquery names columns of the query around it (`WHERE
//     b.k = a.k`, or an unqualified name its own FROM lacks). Per outer row
//     those columns' values replace the references as literals and the
//     subquery is planned and run again, so an equality on an indexed
//     column is answered through the index. Results are cached by the outer
//     values: at most correlatedCacheEntries results and Options.MaxRows
//     cached IN / ANY / ALL values; past either bound the cache starts over
//     (memory stays bounded, repeated values run again). The tables it
//     reads are opened once, at their first run, and every run reads those
//     versions (one snapshot for the statement, not one per row).
//
// A name resolves in the nearest query that has it: the subquery's own
// FROM first, then the outer query's. A qualified name (a.k) resolves where
// the qualifier is the table's alias (or name). A subquery nested in a
// subquery may read the columns of any query around it: the references to
// the outermost query are replaced in the whole subquery tree before it is
// planned, those to the middle one when that one plans its own.
//
// Memory per run stays bounded: a scalar subquery reads at most two rows (a
// second one is MySQL's ER_SUBQUERY_NO_1_ROW, ErrSubqueryMultipleRows),
// EXISTS at most one (the stream is closed after it), and IN / ANY / ALL
// keep at most Options.MaxRows values.

// ErrSubqueryMultipleRows is MySQL's ER_SUBQUERY_NO_1_ROW (error 1242): a
// scalar subquery returned more than one row. The error the statement fails
// with has code InvalidInput and wraps this sentinel (errors.Is).
var ErrSubqueryMultipleRows = errors.New("subquery returns more than 1 row (MySQL error 1242, ER_SUBQUERY_NO_1_ROW)")

// correlatedCacheEntries bounds the results a correlated subquery caches.
const correlatedCacheEntries = 4096

type subqueryKind int

const (
	subScalar     subqueryKind = iota
	subExists                  // EXISTS
	subIn                      // IN (SELECT ...)
	subQuantified              // op ANY / ALL (SELECT ...)
)

// subqueryResult is what one run of a subquery produced.
type subqueryResult struct {
	scalar any   // a scalar subquery's value (nil: NULL or no row)
	exists bool  // EXISTS: the subquery returned a row
	list   []any // IN / ANY / ALL: the subquery's values
	// set indexes list for IN when its values are all integers or all
	// strings (built on first use; see in).
	set     map[string]struct{}
	ints    map[int64]struct{} // the set of an all-integer list, instead of set
	setType byte               // 'i' (int64), 's' (string), 0: no set
	setNull bool               // list holds a NULL
	setDone bool
}

// inSetMin is the list length from which IN builds a hash set.
const inSetMin = 16

// in evaluates v [NOT] IN the result's list: through a hash set when the
// list is long and v and every value are integers, or all strings (where
// compare is exact equality of the same type), else by evalIn.
func (r *subqueryResult) in(v any, not bool) any {
	if !r.setDone {
		r.setDone = true
		if len(r.list) >= inSetMin {
			r.buildSet()
		}
	}
	var t byte
	switch v.(type) {
	case int64:
		t = 'i'
	case string:
		t = 's'
	}
	if t == 'i' && r.ints != nil {
		if _, ok := r.ints[v.(int64)]; ok {
			return !not
		}
		if r.setNull {
			return nil
		}
		return not
	}
	if r.set == nil || t == 0 || t != r.setType {
		return evalIn(v, r.list, not)
	}
	if _, ok := r.set[string(appendKey(nil, v))]; ok {
		return !not
	}
	if r.setNull {
		return nil
	}
	return not
}

func (r *subqueryResult) buildSet() {
	if ints, null, ok := intList(r.list); ok {
		r.ints, r.setNull, r.setType = ints, null, 'i'
		return
	}
	set := make(map[string]struct{}, len(r.list))
	for _, w := range r.list {
		var t byte
		switch w.(type) {
		case nil:
			r.setNull = true
			continue
		case int64:
			t = 'i'
		case string:
			t = 's'
		default:
			return
		}
		if r.setType == 0 {
			r.setType = t
		} else if t != r.setType {
			r.setType = 0
			return
		}
		set[string(appendKey(nil, w))] = struct{}{}
	}
	if r.setType != 0 {
		r.set = set
	}
}

// intList is the set of a list of int64s and NULLs (null: it holds a
// NULL); ok is false for a list with another type or without integers.
func intList(list []any) (ints map[int64]struct{}, null, ok bool) {
	ints = make(map[int64]struct{}, len(list))
	for _, w := range list {
		switch x := w.(type) {
		case nil:
			null = true
		case int64:
			ints[x] = struct{}{}
		default:
			return nil, false, false
		}
	}
	return ints, null, len(ints) > 0
}

// subquery is one planned subquery node of a statement.
type subquery struct {
	kind subqueryKind
	q    *sqlparse.Select // as written
	// planned is the query plan was made from: q, or for a correlated
	// subquery q with its outer references as NULL literals (the plan then
	// serves EXPLAIN and the result column only).
	planned *sqlparse.Select
	plan    queryPlan
	// subs are the subqueries of planned, planned with it (EXPLAIN).
	subs   subqueryValues
	col    Column // the result column (scalar, IN, ANY / ALL)
	hasCol bool
	// outer lists the references to the outer query's columns (empty:
	// uncorrelated); decimal marks those that are DECIMAL columns.
	outer   []*sqlparse.ColumnRef
	decimal []bool
	// outerExprs, when set, give the outer values instead of outer: over
	// grouped rows, the group slots the references map to (regroup).
	outerExprs []sqlparse.Expr
	sess       *Session        // the statement's session state (namespace, options)
	ctx        context.Context // the statement's: runs happen while its rows stream
	maxRows    int

	// Uncorrelated: the one result, once run.
	done bool
	res  subqueryResult
	err  error

	// Correlated: results by outer values.
	cache       map[string]*subqueryResult
	cacheValues int
	pinned      map[string]*dataset.Dataset // the versions its runs read
	runs        int                         // plans run (tests read it)

	// Decorrelated (decorrelate.go): answered from one run, once tried.
	decor      *decorrelation
	decorTried bool
	// runRowsEst estimates the rows a run per outer value reads, once
	// runRowsDone (decorrelate.go's runRows).
	runRowsEst  int64
	runRowsDone bool
	// domains are outer key domains (semidomain.go): per outer
	// reference, the values every outer row asking has.
	domains map[int]map[int64]struct{}
}

// subqueryValues maps the subquery nodes of one statement (by identity) to
// their plans.
type subqueryValues map[sqlparse.Expr]*subquery

// fork copies the session state a subquery is planned with: the
// namespace and options of the statement, its own subquery map. A
// correlated subquery plans again while the outer result streams, perhaps
// after the session moved on to another statement.
func (s *Session) fork() *Session {
	f := *s
	f.subq = nil
	// Key filters are for the one scan query they were set for, not for
	// the queries planned inside it (a subquery over the same table).
	f.keyFilters = nil
	return &f
}

// planSubqueries plans every subquery found in exprs (not those nested in
// them, which their own planning handles) and records them in s.subq, the
// map the rowEnvs planned next read. outer resolves the columns of the
// query the expressions belong to (nil: it has none), for correlation.
func (s *Session) planSubqueries(ctx context.Context, outer func() (*scope, error), exprs ...sqlparse.Expr) error {
	for _, e := range exprs {
		var err error
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			if err != nil {
				return false
			}
			if _, done := s.subq[n]; done {
				return true
			}
			var q *sqlparse.Select
			kind := subScalar
			switch x := n.(type) {
			case *sqlparse.Subquery:
				q = x.Select
			case *sqlparse.Exists:
				q, kind = x.Select, subExists
			case *sqlparse.InList:
				q, kind = x.Subquery, subIn
			case *sqlparse.Quantified:
				q, kind = x.Select, subQuantified
			}
			if q == nil {
				return true
			}
			var sq *subquery
			if sq, err = s.planSubquery(ctx, q, kind, outer); err != nil {
				return false
			}
			if s.subq == nil {
				s.subq = subqueryValues{}
			}
			s.subq[n] = sq
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// planSubquery finds a subquery's references to the outer query and plans
// it.
func (s *Session) planSubquery(ctx context.Context, q *sqlparse.Select, kind subqueryKind, outer func() (*scope, error)) (*subquery, error) {
	sq := &subquery{kind: kind, q: q, planned: q, sess: s.fork(), ctx: ctx, maxRows: s.opts.MaxRows}
	if sq.maxRows <= 0 {
		sq.maxRows = DefaultMaxRows
	}
	if len(q.With) > 0 {
		// The subquery's own CTEs first: finding its outer references
		// resolves the names of its FROM, which may be CTEs.
		inlined, err := s.inlineCTEs(q, nil)
		if err != nil {
			return nil, err
		}
		sq.q, sq.planned = inlined, inlined // a correlated run substitutes into it
	}
	if outer != nil {
		refs, err := s.outerRefs(ctx, sq.planned, nil, outer)
		if err != nil {
			return nil, err
		}
		if len(refs) > 0 {
			sq.outer = refs
			nulls := map[*sqlparse.ColumnRef]sqlparse.Expr{}
			for _, r := range refs {
				nulls[r] = &sqlparse.Literal{Kind: sqlparse.LitNull}
			}
			sq.planned = substituteSelect(sq.planned, nulls)
		}
	}
	fork := s.fork()
	p, err := fork.planQuery(ctx, sq.planned)
	if err != nil {
		if outer != nil {
			if herr := outerInDerivedError(err, outer); herr != nil {
				return nil, herr
			}
		}
		return nil, subqueryError(err)
	}
	sq.plan, sq.subs = p, fork.subq
	if kind != subExists {
		cols := p.resultColumns()
		if len(cols) != 1 {
			return nil, errorf(catalog.CodeInvalidInput, "operand should contain 1 column(s): the subquery (%s) returns %d", q, len(cols))
		}
		sq.col, sq.hasCol = cols[0], true
	}
	return sq, nil
}

// bindOuter sets the outer rowEnv's view of the correlated references:
// which are DECIMAL columns (their values are exact text, passed on as
// DECIMAL literals).
func (sq *subquery) bindOuter(env *rowEnv) {
	sq.decimal = make([]bool, len(sq.outer))
	for i, r := range sq.outer {
		if sq.outerExprs != nil {
			ref, ok := sq.outerExprs[i].(*sqlparse.ColumnRef)
			if !ok {
				continue
			}
			r = ref
		}
		if c, err := env.column(r); err == nil {
			sq.decimal[i] = strings.HasPrefix(strings.ToUpper(env.cols[c].DatabaseType), "DECIMAL")
		}
	}
}

// result returns the subquery's result for the outer row (run, or from
// the cache).
func (sq *subquery) result(env *rowEnv, row []any) (*subqueryResult, error) {
	if len(sq.outer) == 0 {
		if !sq.done {
			sq.res, sq.err = sq.run(sq.plan, sq.q)
			sq.done = true
		}
		return &sq.res, sq.err
	}
	if sq.decimal == nil {
		sq.bindOuter(env)
	}
	vals := make([]any, len(sq.outer))
	var key []byte
	for i, r := range sq.outer {
		var e sqlparse.Expr = r
		if sq.outerExprs != nil {
			e = sq.outerExprs[i]
		}
		v, err := env.eval(e, row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
		key = appendKey(key, v)
	}
	if r, ok := sq.cache[string(key)]; ok {
		return r, nil
	}
	if sq.shouldDecorrelate() {
		if r, ok := sq.decorrelated(env, vals); ok { // decorrelate.go
			return r, nil
		}
	}
	subst := make(map[*sqlparse.ColumnRef]sqlparse.Expr, len(sq.outer))
	for i, r := range sq.outer {
		subst[r] = valueLiteral(vals[i], sq.decimal[i])
	}
	q := substituteSelect(sq.q, subst)
	fork := sq.sess.fork()
	if sq.pinned == nil {
		sq.pinned = map[string]*dataset.Dataset{}
	}
	fork.pinned = sq.pinned
	p, err := fork.planQuery(sq.ctx, q)
	if err != nil {
		return nil, subqueryError(err)
	}
	res, err := sq.run(p, q)
	if err != nil {
		return nil, err
	}
	sq.runs++
	if sq.cache == nil || len(sq.cache) >= correlatedCacheEntries || sq.cacheValues+len(res.list) > sq.maxRows {
		sq.cache, sq.cacheValues = map[string]*subqueryResult{}, 0
	}
	r := &res
	sq.cache[string(key)] = r
	sq.cacheValues += len(res.list)
	return r, nil
}

// run runs a plan of the subquery, reading no more of its result than its
// kind needs.
func (sq *subquery) run(p queryPlan, q *sqlparse.Select) (subqueryResult, error) {
	var v subqueryResult
	res, err := p.run(sq.ctx, sq.sess)
	if err != nil {
		return v, subqueryError(err)
	}
	cur := res.Cursor()
	defer cur.Close()
	n := 0
	for {
		batch, err := cur.Next()
		if errors.Is(err, io.EOF) {
			return v, nil
		}
		if err != nil {
			return v, err
		}
		for _, row := range batch {
			n++
			switch sq.kind {
			case subExists:
				v.exists = true
				return v, nil
			case subScalar:
				if n > 1 {
					return v, &catalog.Error{Code: catalog.CodeInvalidInput, Message: fmt.Sprintf("scalar subquery (%s)", q), Cause: ErrSubqueryMultipleRows}
				}
				v.scalar = sq.value(row[0])
			default:
				if n > sq.maxRows {
					return v, errorf(catalog.CodeInvalidInput, "the subquery (%s) returns more than %d rows (Options.MaxRows); narrow the subquery", q, sq.maxRows)
				}
				v.list = append(v.list, sq.value(row[0]))
			}
		}
	}
}

// value is a result value as the outer query compares it: a DECIMAL
// column's exact text becomes a sqltypes.Decimal, so that it compares as a
// number (10.50 > 2.96), not byte-wise as two strings would.
func (sq *subquery) value(v any) any {
	if s, ok := v.(string); ok && sq.hasCol && strings.HasPrefix(strings.ToUpper(sq.col.DatabaseType), "DECIMAL") && numericText(s) {
		return sqltypes.Decimal(s)
	}
	return v
}

// outerInDerivedError explains an unknown qualified column of a subquery
// that names a column of the query around it: left unknown, it can only
// sit in a derived table or CTE body of the subquery, whose FROM alone is
// in scope there (outerRefs does not look into them). MySQL 5.7 and
// MariaDB 10.11 refuse such a reference with 1054 as well (MySQL 8.0.14+
// reads it, LATERAL-like). nil when err is another error.
func outerInDerivedError(err error, outer func() (*scope, error)) error {
	var ce *expr.ColumnError
	if !errors.As(err, &ce) || ce.Number != expr.ErBadFieldError || ce.Ref == nil || len(ce.Ref.Qualifier) == 0 {
		return nil
	}
	sc, serr := outer()
	if serr != nil || !sc.has(ce.Ref) {
		return nil
	}
	return &catalog.Error{Code: catalog.CodeInvalidInput, Cause: ce,
		Message: fmt.Sprintf("%s names the query around the subquery from inside a derived table or CTE, whose own FROM alone is in scope there (an outer column may be read in the subquery's own expressions)", ce.Ref)}
}

// subqueryError explains an unknown column inside a subquery.
func subqueryError(err error) error {
	var ce *catalog.Error
	if errors.As(err, &ce) && ce.Code == catalog.CodeInvalidInput && strings.HasPrefix(ce.Message, "unknown column") && !strings.Contains(ce.Message, "in a subquery") {
		return errorf(catalog.CodeInvalidInput, "%s in a subquery (neither its own FROM nor the query around it has that column)", ce.Message)
	}
	return err
}

// subqueryOf returns the result of a subquery node for a row.
func (env *rowEnv) subqueryOf(n sqlparse.Expr, row []any) (*subqueryResult, error) {
	sq, ok := env.subq[n]
	if !ok {
		return nil, errorf(catalog.CodeUnsupported, "not supported: subquery %s here", n)
	}
	if env.checking {
		return &subqueryResult{}, nil // planning: nothing runs
	}
	return sq.result(env, row)
}

// evalIn evaluates x [NOT] IN over values (SQL semantics: NULL when x is
// NULL, or when no value equals x and one of them is NULL).
func evalIn(v any, values []any, not bool) any {
	if v == nil {
		if len(values) == 0 {
			return not // x IN (empty set) is FALSE even for a NULL x
		}
		return nil
	}
	sawNull := false
	for _, w := range values {
		if w == nil {
			sawNull = true
			continue
		}
		if compare(v, w) == 0 {
			return !not
		}
	}
	if sawNull {
		return nil
	}
	return not
}

// evalQuantified evaluates x op ANY (values) and x op ALL (values) in SQL's
// three-valued logic: ANY is TRUE when one comparison is TRUE, FALSE when
// all are FALSE (or there are none), else NULL; ALL is FALSE when one is
// FALSE, TRUE when all are TRUE (or there are none), else NULL.
func evalQuantified(v any, op sqlparse.BinaryOp, all bool, values []any) any {
	sawNull := false
	for _, w := range values {
		t := -1
		if v != nil && w != nil {
			t = 0
			if compareOp(op, compare(v, w)) {
				t = 1
			}
		}
		switch {
		case t < 0:
			sawNull = true
		case t == 1 && !all:
			return true
		case t == 0 && all:
			return false
		}
	}
	if sawNull {
		return nil
	}
	return all
}

// compareOp applies a comparison operator to a three-way comparison c.
func compareOp(op sqlparse.BinaryOp, c int) bool {
	switch op {
	case sqlparse.OpEQ, sqlparse.OpNullEQ:
		return c == 0
	case sqlparse.OpNE:
		return c != 0
	case sqlparse.OpLT:
		return c < 0
	case sqlparse.OpLE:
		return c <= 0
	case sqlparse.OpGT:
		return c > 0
	}
	return c >= 0
}

// subqueryColumn describes the result column of a select item that is a
// scalar subquery (the subquery's column, nullable: no row is NULL) or an
// EXISTS (BIGINT 1 or 0). ok is false for other expressions.
func (env *rowEnv) subqueryColumn(e sqlparse.Expr, label string) (Column, bool) {
	switch n := sqlparse.StripParens(e).(type) {
	case *sqlparse.Subquery:
		if v, ok := env.subq[n]; ok && v.hasCol {
			c := v.col
			c.Name, c.Nullable = label, true
			return c, true
		}
	case *sqlparse.Exists:
		return Column{Name: label, DatabaseType: "BIGINT"}, true
	}
	return Column{}, false
}

// explainSubqueries describes the subqueries of exprs (planned in subq)
// and their plans, indented under each, without running any.
func (s *Session) explainSubqueries(ctx context.Context, subq subqueryValues, depth int, exprs ...sqlparse.Expr) ([]string, error) {
	var lines []string
	var err error
	indent := strings.Repeat("  ", depth)
	for _, e := range exprs {
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			sq, ok := subq[n]
			if !ok || err != nil {
				return err == nil
			}
			how := "uncorrelated: runs once, when first needed"
			if len(sq.outer) > 0 {
				var refs []string
				for _, r := range sq.outer {
					refs = append(refs, r.String())
				}
				how = fmt.Sprintf("correlated on %s: runs per distinct outer value (cache of %d results); plan with those values unknown", strings.Join(refs, ", "), correlatedCacheEntries)
			}
			lines = append(lines, indent+"Subquery "+n.String()+" ("+how+")")
			var sub []string
			if sub, err = s.explainPlan(ctx, sq.plan, sq.subs, sq.planned, depth+1); err != nil {
				return false
			}
			lines = append(lines, sub...)
			return true
		})
	}
	return lines, err
}

// explainPlan prepares a plan for EXPLAIN (reading only metadata and
// indices) and returns its lines indented by depth, followed by the plans
// of its subqueries.
func (s *Session) explainPlan(ctx context.Context, p queryPlan, subq subqueryValues, st *sqlparse.Select, depth int) ([]string, error) {
	if err := s.prepareExplain(ctx, p); err != nil {
		return nil, err
	}
	indent := strings.Repeat("  ", depth)
	var lines []string
	for _, l := range p.Explain() {
		lines = append(lines, indent+l)
	}
	sub, err := s.explainSubqueries(ctx, subq, depth+1, selectExprs(st)...)
	if err != nil {
		return nil, err
	}
	return append(lines, sub...), nil
}

// selectExprs lists the expressions of a query that planSubqueries
// scans.
func selectExprs(st *sqlparse.Select) []sqlparse.Expr {
	var es []sqlparse.Expr
	for _, it := range st.Items {
		es = append(es, it.Expr)
	}
	es = append(es, st.Where, st.Having)
	es = append(es, st.GroupBy...)
	for _, o := range st.OrderBy {
		es = append(es, o.Expr)
	}
	return es
}
