package planner

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// Subqueries in expressions: a scalar subquery `(SELECT ...)`, `[NOT]
// EXISTS (SELECT ...)` and `x [NOT] IN (SELECT ...)`, in the select list,
// WHERE, HAVING and ORDER BY of a SELECT (over table data, information_schema
// or no FROM) and in the WHERE of UPDATE and DELETE.
//
// They are uncorrelated: a subquery reads only its own FROM, so its value is
// the same for every row of the outer query. Each one runs once, through the
// same planQuery and selectPipeline as any SELECT, before the outer query is
// planned; the outer rowEnv then reads the value the way it reads a literal.
// A subquery naming a column of the outer query fails with the unknown
// column error, saying correlated subqueries are not supported.
//
// Memory stays bounded: a scalar subquery reads at most two rows (a second
// one is the MySQL error "Subquery returns more than 1 row"), EXISTS at most
// one (the stream is closed after it), and IN (SELECT ...) keeps at most
// Options.MaxRows values.

// subqueryValue is the result of one subquery.
type subqueryValue struct {
	scalar any    // a scalar subquery's value (nil: NULL or no row)
	exists bool   // EXISTS: the subquery returned a row
	list   []any  // IN: the subquery's values
	col    Column // the subquery's result column (scalar and IN)
	hasCol bool   // col is set
}

// subqueryValues maps the subquery nodes of one statement (by identity) to
// their results.
type subqueryValues map[sqlparse.Expr]*subqueryValue

// resolveSubqueries runs every subquery found in the expressions of st
// (select list, WHERE, GROUP BY, HAVING, ORDER BY; not those inside nested
// queries, which their own planning resolves) and records the results in s.subq,
// the values the rowEnvs planned next read.
func (s *Session) resolveSubqueries(ctx context.Context, exprs ...sqlparse.Expr) error {
	for _, e := range exprs {
		var err error
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			if err != nil {
				return false
			}
			if _, done := s.subq[n]; done {
				return true
			}
			var v *subqueryValue
			switch x := n.(type) {
			case *sqlparse.Subquery:
				v, err = s.runSubquery(ctx, x.Select, subScalar)
			case *sqlparse.Exists:
				v, err = s.runSubquery(ctx, x.Select, subExists)
			case *sqlparse.InList:
				if x.Subquery != nil {
					v, err = s.runSubquery(ctx, x.Subquery, subIn)
				}
			}
			if v != nil {
				if s.subq == nil {
					s.subq = subqueryValues{}
				}
				s.subq[n] = v
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// selectExprs lists the expressions of a query that resolveSubqueries
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

type subqueryKind int

const (
	subScalar subqueryKind = iota
	subExists
	subIn
)

// runSubquery plans and runs one subquery, reading no more of its result
// than its kind needs.
func (s *Session) runSubquery(ctx context.Context, q *sqlparse.Select, kind subqueryKind) (*subqueryValue, error) {
	p, err := s.planQuery(ctx, q)
	if err != nil {
		return nil, subqueryError(err)
	}
	res, err := p.run(ctx, s)
	if err != nil {
		return nil, subqueryError(err)
	}
	cur := res.Cursor()
	defer cur.Close()
	v := &subqueryValue{}
	if kind != subExists {
		if len(res.Columns) != 1 {
			return nil, errorf(catalog.CodeInvalidInput, "operand should contain 1 column(s): the subquery (%s) returns %d", q, len(res.Columns))
		}
		v.col, v.hasCol = res.Columns[0], true
	}
	maxRows := s.opts.MaxRows
	if maxRows <= 0 {
		maxRows = DefaultMaxRows
	}
	n := 0
	for {
		batch, err := cur.Next()
		if errors.Is(err, io.EOF) {
			return v, nil
		}
		if err != nil {
			return nil, err
		}
		for _, row := range batch {
			n++
			switch kind {
			case subExists:
				v.exists = true
				return v, nil
			case subScalar:
				if n > 1 {
					return nil, errorf(catalog.CodeInvalidInput, "subquery returns more than 1 row: (%s)", q)
				}
				v.scalar = row[0]
			case subIn:
				if n > maxRows {
					return nil, errorf(catalog.CodeInvalidInput, "IN (%s) returns more than %d rows (Options.MaxRows); narrow the subquery", q, maxRows)
				}
				v.list = append(v.list, row[0])
			}
		}
	}
}

// subqueryError explains an unknown column inside a subquery: lancecat's
// subqueries cannot read the outer query's columns.
func subqueryError(err error) error {
	var ce *catalog.Error
	if errors.As(err, &ce) && ce.Code == catalog.CodeInvalidInput && strings.HasPrefix(ce.Message, "unknown column") {
		return errorf(catalog.CodeUnsupported, "%s in a subquery (correlated subqueries, which read the outer query's columns, are not supported)", ce.Message)
	}
	return err
}

// subqueryOf returns the result of a resolved subquery node.
func (env *rowEnv) subqueryOf(n sqlparse.Expr) (*subqueryValue, error) {
	if v, ok := env.subq[n]; ok {
		return v, nil
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: subquery %s here", n)
}

// evalIn evaluates x [NOT] IN over values (SQL semantics: NULL when x is
// NULL, or when no value equals x and one of them is NULL).
func evalIn(v any, values []any, not bool) any {
	if v == nil {
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
