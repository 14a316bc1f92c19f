package planner

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// The aggregates beyond COUNT/SUM/AVG/MIN/MAX, with MariaDB's semantics:
//
//   - GROUP_CONCAT([DISTINCT] x, ... [ORDER BY k [DESC], ...] [SEPARATOR s]):
//     each row's arguments as text, concatenated, the rows joined by s; a
//     row with a NULL argument is skipped, no row at all is NULL. The
//     result is cut at group_concat_max_len bytes (on a character
//     boundary) with warning 1260 (SHOW WARNINGS).
//   - COUNT(DISTINCT a, b, ...): the distinct tuples without a NULL.
//   - BIT_AND, BIT_OR, BIT_XOR: BIGINT UNSIGNED over the arguments as
//     64-bit integers; over no row BIT_AND is 18446744073709551615 and the
//     others 0 (never NULL).
//   - STD, STDDEV, STDDEV_POP, VARIANCE, VAR_POP (population) and
//     STDDEV_SAMP, VAR_SAMP (sample): DOUBLE, NULL over no row and the
//     sample ones over one row too; Welford's recurrence keeps them stable.
//   - JSON_ARRAYAGG(x) and JSON_OBJECTAGG(k, v): the JSON_ARRAY and
//     JSON_OBJECT of the group's values (NULLs kept as JSON null; a row
//     with a NULL key skipped, as MariaDB does, where MySQL fails with
//     error 3158); NULL over no row. MariaDB prints them without the
//     space after ',' and ':' that lancecat's JSON text has (MySQL's).
//
// What a group holds beyond its fixed state (GROUP_CONCAT's text and
// ordered rows, the JSON aggregates' values, DISTINCT's seen keys) is
// counted in aggState.held and charged to the query's memory budget by the
// Aggregate operator (exec.GrowingAccumulator).

// defaultGroupConcatMaxLen is MariaDB's default group_concat_max_len.
const defaultGroupConcatMaxLen = 1 << 20

// concatSpec is what GROUP_CONCAT adds to a call.
type concatSpec struct {
	order []sqlparse.Expr // ORDER BY keys over the source row
	desc  []bool
	// decimal marks the DECIMAL keys, whose text values sort as numbers
	// (orderValue).
	decimal []bool
	sep     string
	maxLen  int // group_concat_max_len when the statement was planned
}

// concatState is a GROUP_CONCAT group: without ORDER BY the text so far,
// with it the rows to sort when the group is done.
type concatState struct {
	buf  []byte
	any  bool // a row was added (buf may be empty text)
	cut  bool // buf reached maxLen: later rows change nothing
	rows []concatRow
}

type concatRow struct {
	text string
	keys []any
	seq  int
}

// jsonState holds a JSON aggregate's values, in arrival order (JSON
// aggregates have no ORDER BY in MariaDB).
type jsonState struct {
	vals []any // JSON_OBJECTAGG: key, value, key, value, ...
}

// aggEntryBytes is the bookkeeping charged per held value (map entry or
// slice element with its header) on top of its bytes.
const aggEntryBytes = 48

// normalAggName maps the aliases to one name.
func normalAggName(fn string) string {
	switch fn {
	case "std", "stddev":
		return "stddev_pop"
	case "variance":
		return "var_pop"
	}
	return fn
}

// newMoreAggCall completes call for the aggregates of this file; ok is
// false for the others.
func newMoreAggCall(env *rowEnv, n *sqlparse.FuncCall, call aggCall) (aggCall, bool, error) {
	name := strings.ToUpper(n.Name)
	switch call.fn {
	case "group_concat":
		vals, order := n.Args, []sqlparse.Expr(nil)
		if n.Concat != nil {
			vals, order = n.ConcatArgs()
		}
		if len(vals) == 0 {
			return aggCall{}, true, errorf(catalog.CodeInvalidInput, "GROUP_CONCAT takes at least one argument")
		}
		spec := &concatSpec{sep: ",", maxLen: groupConcatMaxLen(env)}
		if n.Concat != nil {
			spec.sep, spec.desc = n.Concat.Separator, n.Concat.Desc
		}
		for _, o := range order {
			// ORDER BY 2 names the second argument, as in MySQL.
			if p, ok := o.(*sqlparse.ColumnPosition); ok {
				if p.N < 1 || p.N > len(vals) {
					return aggCall{}, true, errorf(catalog.CodeInvalidInput, "unknown column '%d' in 'order clause' of %s", p.N, n)
				}
				o = vals[p.N-1]
			}
			spec.order = append(spec.order, o)
			spec.decimal = append(spec.decimal, decimalExpr(env, o))
		}
		if err := checkAggArgs(env, n, append(slices.Clone(vals), spec.order...)); err != nil {
			return aggCall{}, true, err
		}
		call.args, call.concat = vals, spec
		call.arg = vals[0]
		call.stmt = env.statement()
		for _, a := range vals {
			call.datetime = append(call.datetime, isDatetimeKind(env.argInfo(a).Kind))
		}
		return call, true, nil
	case "bit_and", "bit_or", "bit_xor", "stddev_pop", "stddev_samp", "var_pop", "var_samp", "json_arrayagg":
		if n.Star || len(n.Args) != 1 {
			return aggCall{}, true, errorf(catalog.CodeInvalidInput, "%s takes one argument", name)
		}
	case "json_objectagg":
		if n.Star || len(n.Args) != 2 {
			return aggCall{}, true, errorf(catalog.CodeInvalidInput, "JSON_OBJECTAGG takes two arguments (key, value)")
		}
	default:
		return aggCall{}, false, nil
	}
	if n.Distinct && call.fn != "json_arrayagg" {
		return aggCall{}, true, errorf(catalog.CodeInvalidInput, "%s(DISTINCT ...) is not valid", name)
	}
	if err := checkAggArgs(env, n, n.Args); err != nil {
		return aggCall{}, true, err
	}
	call.args, call.arg = n.Args, n.Args[0]
	if strings.HasPrefix(call.fn, "json_") {
		for _, a := range n.Args {
			call.jsonArgs = append(call.jsonArgs, env.argInfo(a))
		}
		call.stmt = env.statement()
	}
	if strings.HasPrefix(call.fn, "bit_") {
		call.decimal = strings.HasPrefix(strings.ToUpper(exprColumn(env, call.arg, "").DatabaseType), "DECIMAL")
	}
	return call, true, nil
}

// checkAggArgs checks an aggregate's arguments over the source rows.
func checkAggArgs(env *rowEnv, n *sqlparse.FuncCall, args []sqlparse.Expr) error {
	for _, a := range args {
		if containsAggregate(a) {
			return errorf(catalog.CodeInvalidInput, "invalid use of an aggregate function inside %s", n)
		}
		if err := env.check(a); err != nil {
			return err
		}
	}
	return nil
}

// groupConcatMaxLen is the session's group_concat_max_len.
func groupConcatMaxLen(env *rowEnv) int {
	if env.session != nil {
		if v, ok := env.session.variable("group_concat_max_len"); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
				return int(min(n, math.MaxInt32*2)) // more than any value lancecat builds
			}
		}
	}
	return defaultGroupConcatMaxLen
}

// moreColumn is the result column of the calls of this file.
func (c aggCall) moreColumn(name string) (Column, bool) {
	switch c.fn {
	case "group_concat":
		return varcharNull(name), true
	case "bit_and", "bit_or", "bit_xor":
		return Column{Name: name, DatabaseType: "BIGINT UNSIGNED", scan: reflect.TypeOf(uint64(0))}, true
	case "stddev_pop", "stddev_samp", "var_pop", "var_samp":
		return Column{Name: name, DatabaseType: "DOUBLE", Nullable: true}, true
	case "json_arrayagg", "json_objectagg":
		return kindColumn(sqltypes.KindJSON, name), true
	}
	return Column{}, false
}

// tupleKey evaluates args on row: the values' key, or ok false when one
// is NULL.
func tupleKey(env *rowEnv, args []sqlparse.Expr, row []any, vals []any) (string, []any, bool, error) {
	var key []byte
	vals = vals[:0]
	for _, a := range args {
		v, err := env.eval(a, row)
		if err != nil || v == nil {
			return "", nil, false, err
		}
		vals = append(vals, v)
		key = appendKey(key, v)
	}
	return string(key), vals, true, nil
}

// firstSeen records key in the group's DISTINCT set and reports whether
// it is new.
func (st *aggState) firstSeen(key string) bool {
	if st.seen == nil {
		st.seen = map[string]struct{}{}
	}
	if _, dup := st.seen[key]; dup {
		return false
	}
	st.seen[key] = struct{}{}
	st.held += int64(len(key)) + aggEntryBytes
	return true
}

// addMore folds one row into the state of a call of this file (or a
// COUNT(DISTINCT a, b, ...)); handled is false for the others.
func (c aggCall) addMore(st *aggState, env *rowEnv, row []any) (bool, error) {
	switch {
	case c.concat != nil:
		return true, c.addConcat(st, env, row)
	case c.fn == "count" && len(c.args) > 1:
		key, _, ok, err := tupleKey(env, c.args, row, nil)
		if err != nil || !ok {
			return true, err
		}
		if st.firstSeen(key) {
			st.count++
		}
		return true, nil
	case c.fn == "json_arrayagg", c.fn == "json_objectagg":
		return true, c.addJSON(st, env, row)
	}
	return false, nil
}

func (c aggCall) addConcat(st *aggState, env *rowEnv, row []any) error {
	if st.concat == nil {
		st.concat = &concatState{}
	}
	cs := st.concat
	if cs.cut && len(c.concat.order) == 0 && !c.distinct {
		return nil // the text is complete: later rows are cut anyway
	}
	key, vals, ok, err := tupleKey(env, c.args, row, nil)
	if err != nil || !ok {
		return err
	}
	if c.distinct && !st.firstSeen(key) {
		return nil
	}
	st.count++
	var text []byte
	for i, v := range vals {
		if t, ok := v.(time.Time); ok && c.datetime[i] {
			// A DATETIME keeps its time at midnight too (ToString prints
			// a midnight time as a date).
			text = t.UTC().AppendFormat(text, "2006-01-02 15:04:05.999999")
			continue
		}
		text = append(text, expr.ToString(v)...)
	}
	if len(c.concat.order) > 0 {
		keys := make([]any, len(c.concat.order))
		for i, o := range c.concat.order {
			if keys[i], err = env.eval(o, row); err != nil {
				return err
			}
			keys[i] = orderValue(keys[i], c.concat.decimal[i])
		}
		keys = cloneValues(keys)
		cs.rows = append(cs.rows, concatRow{text: string(text), keys: keys, seq: len(cs.rows)})
		st.held += int64(len(text)) + aggEntryBytes + rowBytes(keys)
		return nil
	}
	if cs.cut {
		return nil
	}
	before := len(cs.buf)
	if cs.any {
		cs.buf = append(cs.buf, c.concat.sep...)
	}
	cs.any = true
	cs.buf = append(cs.buf, text...)
	if len(cs.buf) > c.concat.maxLen {
		cs.buf = cutUTF8(cs.buf, c.concat.maxLen)
		cs.cut = true
		c.warnCut(int(st.count))
	}
	st.held += int64(len(cs.buf) - before)
	return nil
}

// cutUTF8 is b cut to at most n bytes, not inside a character (MariaDB
// keeps the result well-formed).
func cutUTF8(b []byte, n int) []byte {
	b = b[:n]
	j := len(b) - 1
	for j > 0 && len(b)-j < utf8.UTFMax && !utf8.RuneStart(b[j]) {
		j--
	}
	if j >= 0 && !utf8.FullRune(b[j:]) {
		b = b[:j]
	}
	return b
}

func (c aggCall) addJSON(st *aggState, env *rowEnv, row []any) error {
	if st.json == nil {
		st.json = &jsonState{}
	}
	var vals []any
	for _, a := range c.args {
		v, err := env.eval(a, row)
		if err != nil {
			return err
		}
		vals = append(vals, v)
	}
	if c.fn == "json_objectagg" && vals[0] == nil {
		return nil // MariaDB skips a row whose key is NULL (MySQL fails with error 3158)
	}
	if c.distinct {
		var key []byte
		for _, v := range vals {
			key = appendKey(key, v)
		}
		if !st.firstSeen(string(key)) {
			return nil
		}
	}
	vals = cloneValues(vals)
	st.count++
	st.json.vals = append(st.json.vals, vals...)
	st.held += rowBytes(vals)
	return nil
}

func isDatetimeKind(k expr.Kind) bool {
	return k == sqltypes.KindDatetime || k == sqltypes.KindTimestamp
}

// foldBits folds one value into BIT_AND, BIT_OR or BIT_XOR: the value as
// a 64-bit integer (a negative one in two's complement, as MySQL does).
func (c aggCall) foldBits(st *aggState, v any) {
	var x uint64
	switch n := v.(type) {
	case uint64:
		x = n
	case sqltypes.Decimal:
		x = uint64(expr.ToInt(string(n), sqltypes.KindDecimal))
	default:
		k := sqltypes.KindString
		if c.decimal {
			k = sqltypes.KindDecimal
		}
		x = uint64(expr.ToInt(v, k))
	}
	switch {
	case c.fn == "bit_and" && st.count == 1:
		st.bits = x
	case c.fn == "bit_and":
		st.bits &= x
	case c.fn == "bit_or":
		st.bits |= x
	default:
		st.bits ^= x
	}
}

// foldVariance adds one value to the running mean and sum of squared
// deviations (Welford).
func foldVariance(st *aggState, v any) {
	f, ok := toNumber(v)
	if !ok {
		f = expr.ToFloat(v)
	}
	d := f - st.mean
	st.mean += d / float64(st.count)
	st.m2 += d * (f - st.mean)
}

// moreResult is the value of a call of this file; ok is false for the
// others.
func (c aggCall) moreResult(st *aggState) (any, bool, error) {
	switch c.fn {
	case "bit_and":
		if st.count == 0 {
			return uint64(math.MaxUint64), true, nil
		}
		return st.bits, true, nil
	case "bit_or", "bit_xor":
		return st.bits, true, nil
	case "var_pop", "stddev_pop", "var_samp", "stddev_samp":
		n := float64(st.count)
		if strings.HasSuffix(c.fn, "_samp") {
			n--
		}
		if st.count == 0 || n <= 0 {
			return nil, true, nil
		}
		v := max(st.m2/n, 0)
		if strings.HasPrefix(c.fn, "stddev") {
			v = math.Sqrt(v)
		}
		return v, true, nil
	case "group_concat":
		return c.concatResult(st), true, nil
	case "json_arrayagg", "json_objectagg":
		v, err := c.jsonResult(st)
		return v, true, err
	}
	return nil, false, nil
}

func (c aggCall) concatResult(st *aggState) any {
	cs := st.concat
	if cs == nil || st.count == 0 {
		return nil
	}
	if len(c.concat.order) == 0 {
		return string(cs.buf)
	}
	slices.SortStableFunc(cs.rows, func(a, b concatRow) int {
		for i := range c.concat.order {
			r := compareNullsFirst(a.keys[i], b.keys[i])
			if c.concat.desc[i] {
				r = -r
			}
			if r != 0 {
				return r
			}
		}
		return a.seq - b.seq
	})
	var b []byte
	for i, r := range cs.rows {
		if i > 0 {
			b = append(b, c.concat.sep...)
		}
		b = append(b, r.text...)
		if len(b) > c.concat.maxLen {
			// The rows are in order only now, so MariaDB's warning names
			// the row here too.
			b = cutUTF8(b, c.concat.maxLen)
			c.warnCut(i + 1)
			break
		}
	}
	return string(b)
}

func (c aggCall) warnCut(row int) {
	if c.stmt != nil {
		c.stmt.Warn(1260, "Row %d was cut by GROUP_CONCAT()", row)
	}
}

func (c aggCall) jsonResult(st *aggState) (any, error) {
	if st.json == nil || st.count == 0 {
		return nil, nil
	}
	name := "JSON_ARRAY"
	if c.fn == "json_objectagg" {
		name = "JSON_OBJECT"
	}
	args := make([]expr.Arg, len(st.json.vals))
	for i := range args {
		args[i] = c.jsonArgs[i%len(c.jsonArgs)]
	}
	call, err := expr.BindCall(name, args, c.stmt)
	if err != nil {
		return nil, registryError(err)
	}
	v, err := call.EvalValues(st.json.vals)
	if err != nil {
		return nil, registryError(err)
	}
	return v, nil
}

// orderValue is a sort key's value as compare orders it: the exact text
// of a DECIMAL expression (decimalExpr) as a sqltypes.Decimal, compared as
// a number ('97.313' before '7934.435'), not byte-wise.
func orderValue(v any, decimal bool) any {
	if s, ok := v.(string); ok && decimal && numericText(s) {
		return sqltypes.Decimal(s)
	}
	return v
}
