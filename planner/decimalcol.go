package planner

import (
	"strings"

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
// DECIMAL column whose value is its text.
func (env *rowEnv) exactColumn(e sqlparse.Expr, v any) any {
	s, ok := v.(string)
	if !ok || !decimalColumn(env, e) {
		return v
	}
	if !isDecimalText(s) {
		return v
	}
	return sqltypes.Decimal(s)
}
