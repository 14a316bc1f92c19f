package planner

import (
	"database/sql"
	"errors"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/sqltypes/jsonb"
)

// Scalar function calls go to the registry of package planner/expr: it
// names the functions, checks their arity, types their results and
// evaluates them. This file binds a parsed call to a registry call (the
// static kinds of its arguments, the statement it runs in) and maps the
// registry's kinds to result columns.

// statement is the registry's view of the statement being run: one NOW()
// per statement (the session's, reset by Exec), DATABASE().
func (env *rowEnv) statement() *expr.Statement {
	if env.session != nil {
		return env.session.statement(env.maxValueBytes())
	}
	if env.stmt == nil {
		env.stmt = expr.NewStatement(time.Now())
		env.stmt.MaxValueBytes = int(env.maxValueBytes())
	}
	return env.stmt
}

// boundCall returns the registry call of n, bound once per rowEnv.
func (env *rowEnv) boundCall(n *sqlparse.FuncCall) (*expr.Call, error) {
	if c, ok := env.calls[n]; ok {
		return c, nil
	}
	args := make([]expr.Arg, len(n.Args))
	for i, a := range n.Args {
		args[i] = env.argInfo(a)
	}
	c, err := expr.BindCall(n.Name, args, env.statement())
	if err != nil {
		return nil, registryError(err)
	}
	if env.calls == nil {
		env.calls = map[*sqlparse.FuncCall]*expr.Call{}
	}
	env.calls[n] = c
	return c, nil
}

// argInfo describes an argument expression for the registry: its kind and,
// for a literal, its value (a DECIMAL literal as its exact text).
func (env *rowEnv) argInfo(e sqlparse.Expr) expr.Arg {
	col := exprColumn(env, e, "")
	a := expr.Arg{Kind: columnKind(col), Scale: -1}
	if dt, ok := col.Field.Type.(*arrow.Decimal128Type); ok {
		a.Scale = int(dt.Scale)
	}
	a.Folded = true
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		switch n.(type) {
		case *sqlparse.ColumnRef, *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.InList, *sqlparse.Quantified, *sqlparse.Variable:
			a.Folded = false
		}
		return a.Folded
	})
	if f, ok := sqlparse.StripParens(e).(*sqlparse.FuncCall); ok && !f.Aggregate {
		if fn, ok := expr.Lookup(f.Name); ok {
			a.Func = fn.Name
		}
	}
	if lit, v, ok := constArg(e); ok {
		a.Const = true
		a.Value = v
		switch lit.Kind {
		case sqlparse.LitNull:
			a.Kind = expr.KindNull
		case sqlparse.LitDecimal:
			a.Kind = sqltypes.KindDecimal
			if i := strings.IndexByte(v.(string), '.'); i >= 0 {
				a.Scale = len(v.(string)) - i - 1
			} else {
				a.Scale = 0
			}
		case sqlparse.LitString:
			a.Kind = sqltypes.KindString
		case sqlparse.LitBool:
			a.Kind = sqltypes.KindBool // JSON_ARRAY(TRUE) is [true]
		case sqlparse.LitUint:
			a.Kind = sqltypes.KindUint
		}
	}
	return a
}

// constArg reads a literal argument, a negated one included (-0.25 is a
// DECIMAL constant, not a DOUBLE expression).
func constArg(e sqlparse.Expr) (*sqlparse.Literal, any, bool) {
	e = sqlparse.StripParens(e)
	if lit, ok := e.(*sqlparse.Literal); ok {
		return lit, literalArg(lit), true
	}
	u, ok := e.(*sqlparse.Unary)
	if !ok || u.Op != sqlparse.OpNeg {
		return nil, nil, false
	}
	lit, ok := sqlparse.StripParens(u.X).(*sqlparse.Literal)
	if !ok {
		return nil, nil, false
	}
	switch x := lit.Value.(type) {
	case sqlparse.Decimal:
		if strings.HasPrefix(string(x), "-") {
			return lit, strings.TrimPrefix(string(x), "-"), true
		}
		return lit, "-" + string(x), true
	case int64:
		if x != math.MinInt64 {
			return lit, -x, true
		}
	case float64:
		return lit, -x, true
	}
	return nil, nil, false
}

// literalArg is a literal as a function argument: as literalValue, except
// that an exact decimal keeps its text (ROUND(2.5) is 3, as a DECIMAL) and
// a BIGINT UNSIGNED literal its integer.
func literalArg(l *sqlparse.Literal) any {
	switch x := l.Value.(type) {
	case sqlparse.Decimal:
		return string(x)
	case uint64:
		return x
	}
	return literalValue(l)
}

// evalCall evaluates a scalar function call through the registry.
func (env *rowEnv) evalCall(n *sqlparse.FuncCall, row []any) (any, error) {
	if env.checking {
		return env.evalCallChecking(n, row) // warnings.go
	}
	return env.evalCallNow(n, row)
}

func (env *rowEnv) evalCallNow(n *sqlparse.FuncCall, row []any) (any, error) {
	c, err := env.boundCall(n)
	if err != nil {
		return nil, err
	}
	v, err := c.Eval(func(i int) (any, error) {
		if _, v, ok := constArg(n.Args[i]); ok {
			return v, nil
		}
		return env.eval(n.Args[i], row)
	})
	if err != nil {
		return nil, registryError(err)
	}
	if c.Stmt.TakeOverflow() {
		// MySQL answers NULL with warning 1301; lancecat has no SHOW
		// WARNINGS, so the statement fails instead (budget.go).
		return nil, env.chargeValue(env.maxValueBytes()+1, strings.ToUpper(c.Func.Name))
	}
	return v, nil
}

// registryError gives a registry error its catalog code: an unknown
// function is not supported, a bad call is invalid input.
func registryError(err error) error {
	var ce *catalog.Error
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, expr.ErrUnknownFunction):
		return &catalog.Error{Code: catalog.CodeUnsupported, Cause: err}
	}
	return &catalog.Error{Code: catalog.CodeInvalidInput, Cause: err}
}

// isScalarFunction reports whether the registry has a function of that
// name.
func isScalarFunction(name string) bool {
	if isLockFunction(name) {
		return true // locks.go: evaluated on the session, not in the registry
	}
	_, ok := expr.Lookup(name)
	return ok
}

// funcColumn is the result column of a scalar function call, typed by the
// registry.
func funcColumn(env *rowEnv, n *sqlparse.FuncCall, label string) (Column, bool) {
	f, ok := expr.Lookup(n.Name)
	if !ok || f.CheckArity(len(n.Args)) != nil {
		return Column{}, false
	}
	args := make([]expr.Arg, len(n.Args))
	for i, a := range n.Args {
		args[i] = env.argInfo(a)
	}
	c := &expr.Call{Func: f, Args: args}
	return kindColumn(c.ResultKind(), label), true
}

// columnKind is the registry kind of a result column's values.
func columnKind(c Column) expr.Kind {
	t := strings.ToUpper(c.DatabaseType)
	switch {
	case t == "BIGINT UNSIGNED":
		return sqltypes.KindUint
	case signedIntegerType(t):
		return sqltypes.KindInt
	case t == "BOOLEAN":
		return sqltypes.KindBool
	case t == "DOUBLE" || t == "FLOAT" || t == "FLOAT16":
		return sqltypes.KindFloat
	case strings.HasPrefix(t, "DECIMAL"):
		return sqltypes.KindDecimal
	case t == "DATE" || t == "DATE64":
		return sqltypes.KindDate
	case strings.HasPrefix(t, "DATETIME"):
		return sqltypes.KindDatetime
	case strings.HasPrefix(t, "TIMESTAMP"):
		return sqltypes.KindTimestamp
	case strings.HasPrefix(t, "TIME"):
		return sqltypes.KindTime
	case strings.Contains(t, "BLOB") || strings.Contains(t, "BINARY"):
		return sqltypes.KindBinary
	case t == "NULL":
		return expr.KindNull
	case t == "JSON":
		return sqltypes.KindJSON
	}
	return sqltypes.KindString
}

var (
	scanNullTime   = reflect.TypeOf(sql.NullTime{})
	scanNullString = reflect.TypeOf(sql.NullString{})
)

// kindColumn is a nullable result column of a registry kind.
func kindColumn(k expr.Kind, label string) Column {
	switch k {
	case sqltypes.KindInt, sqltypes.KindBool:
		return bigintNull(label)
	case sqltypes.KindUint:
		return Column{Name: label, DatabaseType: "BIGINT UNSIGNED", Nullable: true, scan: reflect.TypeOf(sql.Null[uint64]{})}
	case sqltypes.KindFloat:
		return Column{Name: label, DatabaseType: "DOUBLE", Nullable: true}
	case sqltypes.KindDecimal:
		return Column{Name: label, DatabaseType: "DECIMAL", Nullable: true, scan: scanNullString}
	case sqltypes.KindDate:
		return Column{Name: label, DatabaseType: "DATE", Nullable: true, scan: scanNullTime}
	case sqltypes.KindDatetime, sqltypes.KindTimestamp:
		return Column{Name: label, DatabaseType: "DATETIME", Nullable: true, scan: scanNullTime}
	case sqltypes.KindTime:
		return Column{Name: label, DatabaseType: "TIME", Nullable: true, scan: scanNullString}
	case sqltypes.KindJSON:
		return Column{Name: label, DatabaseType: "JSON", Nullable: true, scan: scanNullString}
	}
	return varcharNull(label)
}

// evalRegexp is x [NOT] REGEXP pattern: REGEXP_LIKE of the registry.
func (env *rowEnv) evalRegexp(n *sqlparse.Regexp, row []any) (any, error) {
	call := &sqlparse.FuncCall{Name: "REGEXP_LIKE", Args: []sqlparse.Expr{n.X, n.Pattern}}
	if c, ok := env.regexps[n]; ok {
		call = c
	} else {
		if env.regexps == nil {
			env.regexps = map[*sqlparse.Regexp]*sqlparse.FuncCall{}
		}
		env.regexps[n] = call
	}
	v, err := env.evalCall(call, row)
	if err != nil || v == nil || !n.Not {
		return v, err
	}
	return 1 - v.(int64), nil
}

// jsonOperand is the value of a JSON-typed operand of a comparison or of
// arithmetic (a JSON column, JSON_EXTRACT, ->): MySQL compares and computes
// with the JSON scalar, so the number 25 is the integer 25 (doc->'$.age' +
// 1 is 26) and the string "Alice" is Alice (doc->'$.name' = 'Alice');
// arrays, objects and null stay their text.
func (env *rowEnv) jsonOperand(e sqlparse.Expr, v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	isJSON, cached := env.jsonExprs[e]
	if !cached {
		isJSON = exprColumn(env, e, "").DatabaseType == "JSON"
		if env.jsonExprs == nil {
			env.jsonExprs = map[sqlparse.Expr]bool{}
		}
		env.jsonExprs[e] = isJSON
	}
	if !isJSON {
		return v
	}
	return jsonScalar(s, v)
}

// jsonScalar is the scalar a JSON operand's text s holds (v, its value,
// when it holds none).
func jsonScalar(s string, v any) any {
	d, err := jsonb.Parse(s)
	if err != nil {
		return v
	}
	switch x := d.(type) {
	case string, int64, uint64, float64, bool:
		return x
	}
	return v
}
