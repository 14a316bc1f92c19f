package planner

import (
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// A DECIMAL column's values are its exact text (a string in the row). In
// arithmetic they are exact decimals, as in MySQL: `price * 2` over a
// DECIMAL(10,2) column is the DECIMAL 2.50, not the DOUBLE 2.5, and sums
// and differences keep every digit.

// decimalColumn reports whether e is a column (or a group or aggregate
// slot) of a DECIMAL type.
func decimalColumn(env *rowEnv, e sqlparse.Expr) bool {
	ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
	if !ok {
		return false
	}
	i, err := env.column(ref)
	if err != nil {
		return false
	}
	return strings.HasPrefix(strings.ToUpper(env.cols[i].DatabaseType), "DECIMAL")
}

// exactColumn is v, the value of operand e, as an exact decimal when e is a
// DECIMAL column whose value is its text, and as its number when it is a
// time (temporalNumber).
func (env *rowEnv) exactColumn(e sqlparse.Expr, v any) any {
	if t, ok := v.(time.Time); ok {
		return temporalNumber(columnKind(exprColumn(env, e, "")), t)
	}
	if fn := dateArithCall(e); fn != "" {
		return dateArithOperand(fn, v)
	}
	s, ok := v.(string)
	if !ok || !decimalColumn(env, e) {
		return v
	}
	if !isDecimalText(s) {
		return v
	}
	return sqltypes.Decimal(s)
}

// temporalNumber is a DATE, DATETIME or TIMESTAMP of kind k in a numeric
// context, as MySQL reads it: ts + 0 is 20240102030405 (a BIGINT), d - 1
// is 20240101, a time with a fraction of a second the DECIMAL
// 20240102030405.500000. Arithmetic on the time.Time itself was
// unsupported.
func temporalNumber(k expr.Kind, t time.Time) any {
	s := expr.TimeNumber(t, k)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return sqltypes.Decimal(s)
}

// dateArithCall is "DATE_ADD" or "DATE_SUB" when e calls one of them (or
// an alias), else "".
func dateArithCall(e sqlparse.Expr) string {
	f, ok := sqlparse.StripParens(e).(*sqlparse.FuncCall)
	if !ok || f.Aggregate {
		return ""
	}
	if fn, ok := expr.Lookup(f.Name); ok && (fn.Name == "DATE_ADD" || fn.Name == "DATE_SUB") {
		return fn.Name
	}
	return ""
}

// dateArithOperand is v, the value of a DATE_ADD or DATE_SUB call fn, as
// an operand of arithmetic: the text it gave for a string argument is the
// number of its date (expr.DateArithNumber), as MariaDB computes
// DATE_ADD('2024-01-01', INTERVAL 1 DAY) + 0 = 20240102.
func dateArithOperand(fn string, v any) any {
	if t, ok := v.(time.Time); ok {
		return temporalNumber(expr.KindNull, t)
	}
	n, ok := expr.DateArithNumber(fn, v)
	if !ok {
		return v
	}
	if i, err := strconv.ParseInt(n, 10, 64); err == nil {
		return i
	}
	return sqltypes.Decimal(n)
}
