package planner

import (
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Compiled expressions. eval used to walk an expression's tree on every
// row: a map lookup per column reference, the DECIMAL and JSON typing of
// each operand, and constant subexpressions such as DATE '1994-01-01' +
// INTERVAL 1 YEAR or 0.06 - 0.01 computed again for each row. An
// expression is now compiled once per rowEnv into a tree of closures:
// column positions and operand typing resolved, and every constant
// subexpression (no column, subquery, variable or statement-dependent or
// volatile function) evaluated once, when first needed, as MySQL folds
// constants. The nodes it does not compile (subqueries, REGEXP, lock
// functions...) run evalNode, the tree walk, whose operands are compiled
// in turn; each compiled node computes exactly what evalNode does.

// evalFn evaluates a compiled expression on a row.
type evalFn func(row []any) (any, error)

// eval evaluates e on row through its compiled form.
func (env *rowEnv) eval(e sqlparse.Expr, row []any) (any, error) {
	f, ok := env.compiled[e]
	if !ok {
		f = env.compile(e)
		if env.compiled == nil {
			env.compiled = map[sqlparse.Expr]evalFn{}
		}
		env.compiled[e] = f
	}
	return f(row)
}

// compile compiles e.
func (env *rowEnv) compile(e sqlparse.Expr) evalFn {
	if lit, ok := e.(*sqlparse.Literal); ok {
		v := literalValue(lit)
		return func([]any) (any, error) { return v, nil }
	}
	f := env.compileNode(e)
	if !env.foldable(e) {
		return f
	}
	var done bool
	var v any
	var err error
	return func(row []any) (any, error) {
		if !done {
			if env.checking {
				// Planning's check runs with warnings muted: its value is
				// not kept, so the statement's own evaluation raises them.
				return f(row)
			}
			v, err = f(row)
			done = true
		}
		return v, err
	}
}

// foldable reports whether e is a constant expression: it reads no
// column, runs no subquery, reads no variable, and calls only functions
// of the registry whose value depends on their arguments alone. Each
// node's answer is kept (env.folds): compile asks it of every node of a
// tree, which would otherwise walk each node's whole subtree again,
// quadratic in a 9,999-term 1+1+... (most of its planning time, during
// which a cancelled context went unnoticed).
func (env *rowEnv) foldable(e sqlparse.Expr) bool {
	if v, ok := env.folds[e]; ok {
		return v
	}
	ok := foldableNode(e)
	if ok {
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			if n == e {
				return true // into e's children, each answered (and kept) below
			}
			if ok && !env.foldable(n) {
				ok = false
			}
			return false
		})
	}
	if env.folds == nil {
		env.folds = map[sqlparse.Expr]bool{}
	}
	env.folds[e] = ok
	return ok
}

// foldableNode reports whether the node e itself (not its operands) may
// be part of a constant expression.
func foldableNode(e sqlparse.Expr) bool {
	switch x := e.(type) {
	case *sqlparse.Paren, *sqlparse.Literal, *sqlparse.Unary, *sqlparse.Binary, *sqlparse.IsNull,
		*sqlparse.IsTruth, *sqlparse.Like, *sqlparse.Between:
		return true
	case *sqlparse.InList:
		return x.Subquery == nil
	case *sqlparse.FuncCall:
		return !x.Aggregate && x.Over == nil && x.Concat == nil && !x.Star && pureFunction(x.Name)
	}
	return false
}

// pureFunction reports whether the registry function name gives the same
// value for the same arguments within a statement and has no side effect.
func pureFunction(name string) bool {
	if isLockFunction(name) || volatileFuncs[strings.ToLower(name)] {
		return false
	}
	f, ok := expr.Lookup(name)
	return ok && !f.NeedsStatement
}

// compileNode compiles the node e (its operands compiled by compile).
func (env *rowEnv) compileNode(e sqlparse.Expr) evalFn {
	generic := func(row []any) (any, error) { return env.evalNode(e, row) }
	switch n := e.(type) {
	case *sqlparse.Paren:
		return env.compile(n.X)
	case *sqlparse.ColumnRef:
		i, err := env.column(n)
		if err != nil {
			return generic // reports the error on each evaluation, as before
		}
		return func(row []any) (any, error) { return row[i], nil }
	case *sqlparse.Binary:
		return env.compileBinary(n)
	case *sqlparse.Unary:
		return env.compileUnary(n, generic)
	case *sqlparse.IsNull:
		x := env.compile(n.X)
		not := n.Not
		return func(row []any) (any, error) {
			v, err := x(row)
			if err != nil {
				return nil, err
			}
			return (v == nil) != not, nil
		}
	case *sqlparse.Between:
		x, lo, hi := env.compile(n.X), env.compile(n.Lo), env.compile(n.Hi)
		not := n.Not
		return func(row []any) (any, error) {
			v, err := x(row)
			if err != nil {
				return nil, err
			}
			l, err := lo(row)
			if err != nil {
				return nil, err
			}
			h, err := hi(row)
			if err != nil {
				return nil, err
			}
			if v == nil || l == nil || h == nil {
				return nil, nil
			}
			in := compare(v, l) >= 0 && compare(v, h) <= 0
			return in != not, nil
		}
	case *sqlparse.Like:
		return env.compileLike(n)
	case *sqlparse.FuncCall:
		return env.compileCall(n, generic)
	}
	return generic
}

func (env *rowEnv) compileUnary(n *sqlparse.Unary, generic evalFn) evalFn {
	x := env.compile(n.X)
	switch n.Op {
	case sqlparse.OpNot:
		return func(row []any) (any, error) {
			v, err := x(row)
			if err != nil {
				return nil, err
			}
			t := truth(v)
			if t < 0 {
				return nil, nil
			}
			return t == 0, nil
		}
	case sqlparse.OpNeg:
		exact := env.exactOperand(n.X)
		return func(row []any) (any, error) {
			v, err := x(row)
			if err != nil {
				return nil, err
			}
			switch x := exact(v).(type) {
			case float64:
				return -x, nil
			case sqltypes.Decimal:
				return negateDecimal(x), nil
			default:
				return negate(x)
			}
		}
	case sqlparse.OpPlus:
		return x
	}
	return generic
}

// exactOperand is exactColumn for operand e, its DECIMAL typing resolved
// once.
func (env *rowEnv) exactOperand(e sqlparse.Expr) func(v any) any {
	// A time operand is read as its number (temporalNumber), e's kind
	// resolved at its first time value: typing e when compiling would walk
	// each node's subtree again, quadratic in a long chain of operators.
	var kind expr.Kind
	known := false
	temporal := func(t time.Time) any {
		if !known {
			kind, known = columnKind(exprColumn(env, e, "")), true
		}
		return temporalNumber(kind, t)
	}
	if fn := dateArithCall(e); fn != "" {
		return func(v any) any { return dateArithOperand(fn, v) }
	}
	if !decimalColumn(env, e) {
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return temporal(t)
			}
			return v
		}
	}
	return func(v any) any {
		if s, ok := v.(string); ok && isDecimalText(s) {
			return sqltypes.Decimal(s)
		}
		return v
	}
}

// jsonOperandOf is jsonOperand for operand e, its JSON typing resolved at
// its first string value (as jsonOperand does).
func (env *rowEnv) jsonOperandOf(e sqlparse.Expr) func(v any) any {
	known, isJSON := false, false
	return func(v any) any {
		s, ok := v.(string)
		if !ok {
			return v
		}
		if !known {
			isJSON, known = exprColumn(env, e, "").DatabaseType == "JSON", true
		}
		if !isJSON {
			return v
		}
		return jsonScalar(s, v)
	}
}

func (env *rowEnv) compileBinary(n *sqlparse.Binary) evalFn {
	l, r := env.compile(n.L), env.compile(n.R)
	op := n.Op
	switch op {
	case sqlparse.OpAnd:
		return func(row []any) (any, error) {
			lv, err := l(row)
			if err != nil {
				return nil, err
			}
			lt := truth(lv)
			if lt == 0 {
				return false, nil
			}
			rv, err := r(row)
			if err != nil {
				return nil, err
			}
			rt := truth(rv)
			switch {
			case rt == 0:
				return false, nil
			case lt < 0 || rt < 0:
				return nil, nil
			}
			return true, nil
		}
	case sqlparse.OpOr:
		return func(row []any) (any, error) {
			lv, err := l(row)
			if err != nil {
				return nil, err
			}
			lt := truth(lv)
			if lt == 1 {
				return true, nil
			}
			rv, err := r(row)
			if err != nil {
				return nil, err
			}
			rt := truth(rv)
			switch {
			case rt == 1:
				return true, nil
			case lt < 0 || rt < 0:
				return nil, nil
			}
			return false, nil
		}
	case sqlparse.OpXor:
		return func(row []any) (any, error) {
			lv, err := l(row)
			if err != nil {
				return nil, err
			}
			rv, err := r(row)
			if err != nil {
				return nil, err
			}
			lt, rt := truth(lv), truth(rv)
			if lt < 0 || rt < 0 {
				return nil, nil
			}
			return lt != rt, nil
		}
	}
	jl, jr := env.jsonOperandOf(n.L), env.jsonOperandOf(n.R)
	operands := func(row []any) (any, any, error) {
		lv, err := l(row)
		if err != nil {
			return nil, nil, err
		}
		rv, err := r(row)
		if err != nil {
			return nil, nil, err
		}
		return jl(lv), jr(rv), nil
	}
	switch op {
	case sqlparse.OpNullEQ:
		return func(row []any) (any, error) {
			lv, rv, err := operands(row)
			if err != nil {
				return nil, err
			}
			if lv == nil || rv == nil {
				return lv == nil && rv == nil, nil
			}
			return compare(lv, rv) == 0, nil
		}
	case sqlparse.OpEQ, sqlparse.OpNE, sqlparse.OpLT, sqlparse.OpLE, sqlparse.OpGT, sqlparse.OpGE:
		var test func(c int) bool
		switch op {
		case sqlparse.OpEQ:
			test = func(c int) bool { return c == 0 }
		case sqlparse.OpNE:
			test = func(c int) bool { return c != 0 }
		case sqlparse.OpLT:
			test = func(c int) bool { return c < 0 }
		case sqlparse.OpLE:
			test = func(c int) bool { return c <= 0 }
		case sqlparse.OpGT:
			test = func(c int) bool { return c > 0 }
		default:
			test = func(c int) bool { return c >= 0 }
		}
		return func(row []any) (any, error) {
			lv, rv, err := operands(row)
			if err != nil {
				return nil, err
			}
			if lv == nil || rv == nil {
				return nil, nil
			}
			return test(env.compareWarned(n, lv, rv)), nil
		}
	}
	if isArithmetic(op) {
		el, er := env.exactOperand(n.L), env.exactOperand(n.R)
		return env.fusedArithmetic(n, func(row []any) (any, error) {
			lv, rv, err := operands(row)
			if err != nil {
				return nil, err
			}
			return env.arithmeticWarned(op, el(lv), er(rv))
		})
	}
	return func(row []any) (any, error) {
		if _, _, err := operands(row); err != nil {
			return nil, err
		}
		return nil, errorf(catalog.CodeUnsupported, "not supported: operator %s", op)
	}
}

func (env *rowEnv) compileLike(n *sqlparse.Like) evalFn {
	x, pattern := env.compile(n.X), env.compile(n.Pattern)
	return func(row []any) (any, error) {
		v, err := x(row)
		if err != nil {
			return nil, err
		}
		p, err := pattern(row)
		if err != nil {
			return nil, err
		}
		if v == nil || p == nil {
			return nil, nil
		}
		return env.likeValue(n, v, p)
	}
}

// compileCall compiles a call of a registry function (evalCall); other
// calls (aggregates, lock functions, unknown names) stay with evalNode.
func (env *rowEnv) compileCall(n *sqlparse.FuncCall, generic evalFn) evalFn {
	if n.Aggregate || !isScalarFunction(n.Name) || isLockFunction(n.Name) {
		return generic
	}
	c, err := env.boundCall(n)
	if err != nil {
		return generic
	}
	args := make([]evalFn, len(n.Args))
	for i, a := range n.Args {
		if _, v, ok := constArg(a); ok {
			args[i] = func([]any) (any, error) { return v, nil }
		} else {
			args[i] = env.compile(a)
		}
	}
	return func(row []any) (any, error) {
		if env.checking {
			// As evalCallChecking: planning's evaluation raises no warnings.
			c.Stmt.Mute(true)
			defer c.Stmt.Mute(false)
		}
		v, err := c.Eval(func(i int) (any, error) { return args[i](row) })
		if err != nil {
			return nil, registryError(err)
		}
		if c.Stmt.TakeOverflow() {
			return nil, env.chargeValue(env.maxValueBytes()+1, strings.ToUpper(c.Func.Name))
		}
		return v, nil
	}
}
