package planner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// rowEnv resolves column references of a WHERE clause against one row of a
// SHOW result or an information_schema view. Column names match
// case-insensitively, as in MySQL; string comparisons are byte-wise (names
// in a Lance catalog are case-sensitive).
type rowEnv struct {
	cols  []Column
	index map[string]int // lower-case name -> position
	exact map[string]int // name -> position (wins over a case-insensitive match)
	// session answers DATABASE() and friends (nil: they are NULL).
	session *Session
	// subq holds the statement's planned subqueries (subquery.go).
	subq subqueryValues
	// checking: check is evaluating on a row of NULLs at planning time,
	// when subqueries must not run.
	checking bool
	// calls are the registry calls bound so far; stmt is the statement
	// context of an env without a session (funcs.go).
	calls   map[*sqlparse.FuncCall]*expr.Call
	regexps map[*sqlparse.Regexp]*sqlparse.FuncCall
	stmt    *expr.Statement
	// jsonExprs caches which operands are JSON-typed (jsonOperand).
	jsonExprs map[sqlparse.Expr]bool
	// compiled holds the expressions compiled so far (compile.go), small
	// their forms on the fused DECIMAL path (decimalfused.go).
	compiled map[sqlparse.Expr]evalFn
	small    map[sqlparse.Expr]smallCompiled
	// folds keeps which nodes are constant expressions (foldable).
	folds map[sqlparse.Expr]bool
	// ctx is the running statement's context, for checks inside long
	// per-row work (LIKE over a huge value, sorts); nil outside execution.
	ctx context.Context
	// likeCache holds compiled LIKE patterns (like.go), inSetCache the
	// sets of long IN lists (inlist.go).
	likeCache
	inSetCache
	// warnedConsts are the constant strings whose conversion warning the
	// statement raised (warnings.go).
	warnedConsts map[sqlparse.Expr]bool
}

// cancelled reports whether the statement's context has ended.
func (env *rowEnv) cancelled() bool { return env.ctx != nil && env.ctx.Err() != nil }

// ctxErr is the statement context's error, nil while it runs.
func (env *rowEnv) ctxErr() error {
	if env.ctx == nil {
		return nil
	}
	return env.ctx.Err()
}

func newRowEnv(cols []Column) *rowEnv {
	env := &rowEnv{cols: cols, index: make(map[string]int, len(cols)), exact: make(map[string]int, len(cols))}
	for i, c := range cols {
		if _, dup := env.index[strings.ToLower(c.Name)]; !dup {
			env.index[strings.ToLower(c.Name)] = i
		}
		env.exact[c.Name] = i
	}
	return env
}

// column resolves a column reference by its column name (a qualifier is
// not checked: every query reads one source).
func (env *rowEnv) column(ref *sqlparse.ColumnRef) (int, error) {
	name := ref.Column
	if i, ok := env.exact[name]; ok {
		return i, nil
	}
	i, ok := env.index[strings.ToLower(name)]
	if !ok {
		return 0, errorf(catalog.CodeInvalidInput, "unknown column %s", sqlparse.QuoteIdent(name))
	}
	return i, nil
}

// check resolves every column reference of e once, so a bad column is
// reported even when there are no rows.
func (env *rowEnv) check(e sqlparse.Expr) error {
	var err error
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if ref, ok := n.(*sqlparse.ColumnRef); ok && err == nil {
			_, err = env.column(ref)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	env.checking = true
	defer func() { env.checking = false }()
	_, err = env.eval(e, make([]any, len(env.cols)))
	return err
}

// matches evaluates e as a condition: only TRUE keeps the row.
func (env *rowEnv) matches(e sqlparse.Expr, row []any) (bool, error) {
	v, err := env.eval(e, row)
	if err != nil {
		return false, err
	}
	return truth(v) == 1, nil
}

// truth is SQL three-valued logic: 1 true, 0 false, -1 NULL.
func truth(v any) int {
	switch x := v.(type) {
	case nil:
		return -1
	case bool:
		if x {
			return 1
		}
		return 0
	case int64:
		if x != 0 {
			return 1
		}
		return 0
	case uint64:
		if x != 0 {
			return 1
		}
		return 0
	case float64:
		if x != 0 {
			return 1
		}
		return 0
	case string:
		if leadingNumber(x) != 0 {
			return 1
		}
		return 0
	case sqltypes.Decimal:
		if u, _, ok := parseSmallDecimal(string(x)); ok {
			if u == 0 {
				return 0
			}
			return 1
		}
		if d, ok := parseDecimalText(string(x)); ok && d.unscaled.Sign() == 0 {
			return 0
		}
		return 1
	}
	return 0
}

func boolOrNull(t int) any {
	switch t {
	case 1:
		return true
	case 0:
		return false
	}
	return nil
}

// evalNode evaluates e by walking its tree (its operands through eval):
// the nodes compile (compile.go) leaves to it, and the meaning of those
// it compiles.
func (env *rowEnv) evalNode(e sqlparse.Expr, row []any) (any, error) {
	switch n := e.(type) {
	case *sqlparse.Paren:
		return env.eval(n.X, row)
	case *sqlparse.ColumnRef:
		i, err := env.column(n)
		if err != nil {
			return nil, err
		}
		return row[i], nil
	case *sqlparse.Literal:
		return literalValue(n), nil
	case *sqlparse.Param:
		return nil, errorf(catalog.CodeInvalidInput, "unbound placeholder ? (number %d)", n.Ordinal)
	case *sqlparse.Unary:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		switch n.Op {
		case sqlparse.OpNot:
			t := truth(v)
			if t < 0 {
				return nil, nil
			}
			return t == 0, nil
		case sqlparse.OpNeg:
			switch x := env.exactColumn(n.X, v).(type) {
			case float64:
				return -x, nil
			case sqltypes.Decimal:
				return negateDecimal(x), nil
			default:
				return negate(x)
			}
		case sqlparse.OpPlus:
			return v, nil
		}
		return nil, errorf(catalog.CodeUnsupported, "not supported: operator %s", strings.TrimSpace(n.Op.String()))
	case *sqlparse.Binary:
		return env.evalBinary(n, row)
	case *sqlparse.IsNull:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		return (v == nil) != n.Not, nil
	case *sqlparse.IsTruth:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		want := 0
		if n.True {
			want = 1
		}
		return (truth(v) == want) != n.Not, nil
	case *sqlparse.Like:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		p, err := env.eval(n.Pattern, row)
		if err != nil {
			return nil, err
		}
		if v == nil || p == nil {
			return nil, nil
		}
		return env.likeValue(n, v, p)
	case *sqlparse.InList:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		if n.Subquery != nil {
			sq, err := env.subqueryOf(n, row)
			if err != nil {
				return nil, err
			}
			return sq.in(v, n.Not), nil
		}
		if v == nil {
			return nil, nil
		}
		if set := env.inSetOf(n); set != nil {
			if found, ok := set.lookup(v); ok {
				switch {
				case found:
					return !n.Not, nil
				case set.sawNull:
					return nil, nil
				}
				return n.Not, nil
			}
		}
		sawNull := false
		for i, item := range n.List {
			if i&4095 == 4095 {
				if err := env.ctxErr(); err != nil {
					return nil, err
				}
			}
			w, err := env.eval(item, row)
			if err != nil {
				return nil, err
			}
			if w == nil {
				sawNull = true
				continue
			}
			if compare(v, w) == 0 {
				return !n.Not, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return n.Not, nil
	case *sqlparse.Subquery:
		sq, err := env.subqueryOf(n, row)
		if err != nil {
			return nil, err
		}
		return sq.scalar, nil
	case *sqlparse.Quantified:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		sq, err := env.subqueryOf(n, row)
		if err != nil {
			return nil, err
		}
		switch {
		case n.Op == sqlparse.OpEQ && !n.All: // = ANY is IN
			return sq.in(v, false), nil
		case n.Op == sqlparse.OpNE && n.All: // <> ALL is NOT IN
			return sq.in(v, true), nil
		}
		return evalQuantified(v, n.Op, n.All, sq.list), nil
	case *sqlparse.Variable:
		return env.session.variableValue(n)
	case *sqlparse.Exists:
		sq, err := env.subqueryOf(n, row)
		if err != nil {
			return nil, err
		}
		return sq.exists != n.Not, nil
	case *sqlparse.Between:
		v, err := env.eval(n.X, row)
		if err != nil {
			return nil, err
		}
		lo, err := env.eval(n.Lo, row)
		if err != nil {
			return nil, err
		}
		hi, err := env.eval(n.Hi, row)
		if err != nil {
			return nil, err
		}
		if v == nil || lo == nil || hi == nil {
			return nil, nil
		}
		in := compare(v, lo) >= 0 && compare(v, hi) <= 0
		return in != n.Not, nil
	case *sqlparse.FuncCall:
		if !n.Aggregate {
			return env.evalFunc(n, row)
		}
	case *sqlparse.Regexp:
		return env.evalRegexp(n, row)
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: expression %s", e)
}

func (env *rowEnv) evalFunc(n *sqlparse.FuncCall, row []any) (any, error) {
	if !isScalarFunction(n.Name) {
		if _, ok := isHybridCall(n); ok {
			// it has no per-row value: only the hybrid plan computes it
			return nil, errorf(catalog.CodeUnsupported, "not supported: HYBRID_RRF here: it is the ORDER BY (and select-list value) of a SELECT over one table: SELECT ..., HYBRID_RRF(...) AS score FROM t [WHERE ...] ORDER BY score DESC LIMIT n")
		}
		return nil, errorf(catalog.CodeUnsupported, "not supported: function %s", strings.ToUpper(n.Name))
	}
	if name := strings.ToLower(n.Name); isLockFunction(name) {
		// GET_LOCK and friends act on the session (locks.go), so they
		// are evaluated here rather than in the function registry.
		if env.checking {
			return nil, nil // side effects: not while checking the statement
		}
		args := make([]any, len(n.Args))
		for i, a := range n.Args {
			v, err := env.eval(a, row)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return env.evalLockFunc(name, args)
	}
	return env.evalCall(n, row)
}

func (env *rowEnv) evalBinary(n *sqlparse.Binary, row []any) (any, error) {
	l, err := env.eval(n.L, row)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case sqlparse.OpAnd:
		lt := truth(l)
		if lt == 0 {
			return false, nil
		}
		r, err := env.eval(n.R, row)
		if err != nil {
			return nil, err
		}
		rt := truth(r)
		switch {
		case rt == 0:
			return false, nil
		case lt < 0 || rt < 0:
			return nil, nil
		}
		return true, nil
	case sqlparse.OpOr:
		lt := truth(l)
		if lt == 1 {
			return true, nil
		}
		r, err := env.eval(n.R, row)
		if err != nil {
			return nil, err
		}
		rt := truth(r)
		switch {
		case rt == 1:
			return true, nil
		case lt < 0 || rt < 0:
			return nil, nil
		}
		return false, nil
	}
	r, err := env.eval(n.R, row)
	if err != nil {
		return nil, err
	}
	if n.Op != sqlparse.OpXor {
		l, r = env.jsonOperand(n.L, l), env.jsonOperand(n.R, r)
	}
	switch n.Op {
	case sqlparse.OpXor:
		lt, rt := truth(l), truth(r)
		if lt < 0 || rt < 0 {
			return nil, nil
		}
		return lt != rt, nil
	case sqlparse.OpNullEQ:
		if l == nil || r == nil {
			return l == nil && r == nil, nil
		}
		return compare(l, r) == 0, nil
	case sqlparse.OpEQ, sqlparse.OpNE, sqlparse.OpLT, sqlparse.OpLE, sqlparse.OpGT, sqlparse.OpGE:
		if l == nil || r == nil {
			return nil, nil
		}
		c := env.compareWarned(n, l, r)
		switch n.Op {
		case sqlparse.OpEQ:
			return c == 0, nil
		case sqlparse.OpNE:
			return c != 0, nil
		case sqlparse.OpLT:
			return c < 0, nil
		case sqlparse.OpLE:
			return c <= 0, nil
		case sqlparse.OpGT:
			return c > 0, nil
		default:
			return c >= 0, nil
		}
	}
	if isArithmetic(n.Op) {
		return env.arithmeticWarned(n.Op, env.exactColumn(n.L, l), env.exactColumn(n.R, r))
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: operator %s", n.Op)
}

// literalValue turns a literal into one of the row value types that
// expressions compare (string, int64, uint64, float64, sqltypes.Decimal,
// nil): TRUE and FALSE are the integers 1 and 0 (as in MySQL), integers
// beyond int64 stay uint64 and numbers with a decimal point exact decimals
// (decimal.go), binary literals are the string of their bytes.
func literalValue(l *sqlparse.Literal) any {
	switch x := l.Value.(type) {
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case []byte:
		return string(x)
	}
	return l.Value
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "1"
		}
		return "0"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case uint64:
		return strconv.FormatUint(x, 10)
	case sqltypes.Decimal:
		return string(x)
	case []byte:
		return string(x)
	case time.Time:
		return formatTimeValue(x)
	}
	return fmt.Sprint(v)
}

// formatTimeValue prints a time as MySQL does: "2006-01-02 15:04:05" with
// the fractional digits it has ("2006-01-02" for a midnight date).
func formatTimeValue(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05.999999999")
}

func toNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case sqltypes.Decimal:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f, true
	}
	return 0, false
}

// compare orders two non-NULL values: numerically when either side is a
// number (MySQL converts the string side), else byte-wise.
func compare(a, b any) int {
	// The pairs of one type the rules below order the same way, first.
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return compareFloat(x, y)
		}
	}
	if c, ok := compareTimeNumber(a, b); ok {
		return c
	}
	if c, ok := compareExact(a, b); ok {
		return c
	}
	if c, ok := compareDecimal(a, b); ok {
		return c
	}
	if ai, ok := a.(int64); ok {
		if bi, ok := b.(int64); ok {
			switch {
			case ai < bi:
				return -1
			case ai > bi:
				return 1
			}
			return 0
		}
	}
	af, aNum := toNumber(a)
	bf, bNum := toNumber(b)
	if aNum || bNum {
		if !aNum {
			af = leadingNumber(toString(a)) // MySQL: '3abc' = 3
		}
		if !bNum {
			bf = leadingNumber(toString(b))
		}
		return compareFloat(af, bf)
	}
	return strings.Compare(toString(a), toString(b))
}

// compareFloat is the planner's total order of floats: IEEE 754 totalOrder
// (the order of Lance's BTREE and BITMAP indices, Rust's f64::total_cmp),
// except that -0 equals 0 as SQL requires. So a NaN equals a NaN with the
// same bits and sorts above +Infinity (below -Infinity when its sign bit is
// set, as NaN results of x86 arithmetic can be); every interval of this
// order is an interval of totalOrder, which is what lets an index answer
// float ranges and equalities (index.go).
func compareFloat(a, b float64) int {
	if a == 0 && b == 0 {
		return 0 // -0 = 0
	}
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	ia ^= int64(uint64(ia>>63) >> 1)
	ib ^= int64(uint64(ib>>63) >> 1)
	return cmp.Compare(ia, ib)
}

// compareExact orders integers of either signedness exactly, times as
// instants (a string side parsed as a date/datetime literal), and bytes
// byte-wise. ok is false for other pairs.
func compareExact(a, b any) (int, bool) {
	ai, aInt := intParts(a)
	bi, bInt := intParts(b)
	if aInt && bInt {
		switch {
		case ai.neg != bi.neg:
			if ai.neg {
				return -1, true
			}
			return 1, true
		case ai.mag == bi.mag:
			return 0, true
		case (ai.mag < bi.mag) != ai.neg:
			return -1, true
		}
		return 1, true
	}
	if at, ok := a.(time.Time); ok {
		if bt, ok := timeOf(b); ok {
			return at.Compare(bt), true
		}
		return 0, false
	}
	if bt, ok := b.(time.Time); ok {
		if at, ok := timeOf(a); ok {
			return at.Compare(bt), true
		}
		return 0, false
	}
	if ab, ok := a.([]byte); ok {
		return strings.Compare(string(ab), toString(b)), true
	}
	if bb, ok := b.([]byte); ok {
		return strings.Compare(toString(a), string(bb)), true
	}
	return 0, false
}

// compareDecimal orders a decimal value exactly against an integer, a
// decimal or a string of plain decimal text (a DECIMAL column's value);
// ok is false for other pairs (a DOUBLE compares as float64).
func compareDecimal(a, b any) (int, bool) {
	_, as := a.(string)
	_, bs := b.(string)
	if !hasDecimal(a, b) && !(as && exactNumber(b)) && !(bs && exactNumber(a)) {
		return 0, false
	}
	if c, ok := compareSmallDecimal(a, b); ok {
		return c, true
	}
	return compareBigDecimal(a, b)
}

// compareBigDecimal is compareDecimal's order over big.Int.
func compareBigDecimal(a, b any) (int, bool) {
	x, ok := exactOf(a, true)
	if !ok {
		return 0, false
	}
	y, ok := exactOf(b, true)
	if !ok {
		return 0, false
	}
	return x.cmp(y), true
}

// exactNumber reports whether v is an integer or a decimal value.
func exactNumber(v any) bool {
	switch v.(type) {
	case int64, uint64, sqltypes.Decimal:
		return true
	}
	return false
}

type intVal struct {
	neg bool
	mag uint64
}

func intParts(v any) (intVal, bool) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return intVal{true, uint64(-(x + 1)) + 1}, true
		}
		return intVal{false, uint64(x)}, true
	case uint64:
		return intVal{false, x}, true
	}
	return intVal{}, false
}

func timeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		return sqltypes.ParseTime(x)
	}
	return time.Time{}, false
}

// compareTimeNumber orders a date or datetime against a number as MySQL
// does: the number read as YYYYMMDD[hhmmss] ('ts > 20200101' is 'ts >
// 2020-01-01 00:00:00'), 0 as the zero date below every date. A number
// that is no date is not handled here (ok false).
func compareTimeNumber(a, b any) (int, bool) {
	if t, ok := a.(time.Time); ok {
		if isNumberValue(b) {
			return compareTimeWithNumber(t, b)
		}
		return 0, false
	}
	if t, ok := b.(time.Time); ok && isNumberValue(a) {
		c, ok := compareTimeWithNumber(t, a)
		return -c, ok
	}
	return 0, false
}

func isNumberValue(v any) bool {
	switch v.(type) {
	case int64, uint64, float64, sqltypes.Decimal:
		return true
	}
	return false
}

// compareTimeWithNumber is compare(t, n) for a number n.
func compareTimeWithNumber(t time.Time, n any) (int, bool) {
	if f, _ := toNumber(n); f == 0 {
		return 1, true // the zero date
	}
	if nt, ok := expr.ToTime(n); ok {
		return t.Compare(nt), true
	}
	return 0, false
}
