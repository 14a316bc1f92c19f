package planner

import (
	"context"
	"encoding/binary"
	"iter"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Aggregation (GROUP BY, HAVING, COUNT/SUM/AVG/MIN/MAX and the aggregates
// of aggmore.go) is a stage of the selectPipeline: the rows that pass
// WHERE are folded into one state per group (memory grows with the number
// of groups, with the distinct values of a COUNT(DISTINCT x) and with the
// text and values a GROUP_CONCAT or JSON aggregate holds, all charged to
// the query's budget), then the groups, one
// row each laid out as [group keys..., aggregate results...], feed a second
// selectPipeline that evaluates HAVING, ORDER BY, LIMIT and the select
// list over them. The select list, HAVING and ORDER BY are rewritten for
// that layout: each aggregate call and each GROUP BY expression becomes a
// reference to its slot; a column outside an aggregate that GROUP BY does
// not name is an error (MySQL's ONLY_FULL_GROUP_BY).
//
// Result types, as MySQL reports them where lancecat's value types allow:
// COUNT is BIGINT (0 over no rows); SUM and AVG of integers and of DECIMAL
// are exact DECIMALs (decsum.go: SUM keeps the argument's scale, 0 for an
// integer, and never overflows; AVG adds 4 digits), SUM and AVG of
// anything else are DOUBLE; MIN and MAX keep the argument column's type. NULLs are skipped; SUM, AVG, MIN and MAX over no
// non-NULL value are NULL. Without GROUP BY an empty input still yields
// one row.

// aggStage is the aggregation step of a pipeline.
type aggStage struct {
	groupBy []sqlparse.Expr // over the source row
	calls   []aggCall
	post    selectPipeline // over the grouped rows
}

// aggCall is one distinct aggregate call of the query.
type aggCall struct {
	fn  string // count, sum, avg, min, max, group_concat, bit_and, var_pop, ... (aggmore.go)
	arg sqlparse.Expr
	// args are all the arguments (arg is the first): COUNT(DISTINCT a,
	// b), GROUP_CONCAT's values, JSON_OBJECTAGG's key and value.
	args     []sqlparse.Expr
	star     bool
	distinct bool
	text     string             // the call's normal form, to share equal calls
	call     *sqlparse.FuncCall // the call as written, for the plan's Aggregate node
	// decimal: the argument is a DECIMAL column, whose values are exact
	// text; MIN and MAX compare it numerically (compareDecimalText).
	decimal bool
	// exact: SUM or AVG of a DECIMAL, summed exactly (decsum.go) at
	// exactScale digits (-1: the values' own).
	exact      bool
	exactScale int
	// temporal: SUM or AVG of a DATE, DATETIME or TIMESTAMP of this kind,
	// whose values are summed as numbers (temporalNumber); 0 otherwise.
	temporal expr.Kind
	concat   *concatSpec     // GROUP_CONCAT (aggmore.go)
	datetime []bool          // GROUP_CONCAT: argument i is a DATETIME or TIMESTAMP
	jsonArgs []expr.Arg      // JSON_ARRAYAGG, JSON_OBJECTAGG: the arguments' kinds
	stmt     *expr.Statement // for the JSON functions and warnings
}

// aggState accumulates one aggregate call within one group.
type aggState struct {
	count    int64
	isum     int64
	fsum     float64
	floating bool     // fsum is in use (a non-integer was summed)
	bsum     *big.Int // exact sum once a uint64 was summed (BIGINT UNSIGNED)
	best     any      // MIN or MAX so far
	seen     map[string]struct{}
	dec      *decSum // exact DECIMAL sum (decsum.go)
	bits     uint64  // BIT_AND, BIT_OR, BIT_XOR
	mean, m2 float64 // variances: Welford's running mean and squared deviations
	concat   *concatState
	json     *jsonState
	// held is the bytes the state holds beyond its fixed size (DISTINCT
	// keys, GROUP_CONCAT text, JSON values), for the memory budget.
	held int64
}

// hasAggregates reports whether a query aggregates: GROUP BY, HAVING, or
// an aggregate call in the select list or ORDER BY.
func hasAggregates(st *sqlparse.Select) bool {
	if len(st.GroupBy) > 0 || st.Having != nil || (st.Where != nil && containsAggregate(st.Where)) {
		return true
	}
	for _, it := range st.Items {
		if containsAggregate(it.Expr) {
			return true
		}
	}
	for _, o := range st.OrderBy {
		if containsAggregate(o.Expr) {
			return true
		}
	}
	return false
}

// loneCount reports whether st is the one-COUNT query the older fast
// path answers (a COUNT(*) without WHERE from the manifest's row counts):
// a single non-DISTINCT COUNT and no GROUP BY or HAVING. withArg admits
// COUNT(column) and COUNT(literal) too.
func loneCount(st *sqlparse.Select, withArg bool) bool {
	if len(st.GroupBy) > 0 || st.Having != nil || len(st.Items) != 1 || st.Items[0].Star ||
		(st.Where != nil && containsAggregate(st.Where)) {
		return false
	}
	f, ok := st.Items[0].Expr.(*sqlparse.FuncCall)
	if !ok || !f.Aggregate || f.Distinct || !strings.EqualFold(f.Name, "count") {
		return false
	}
	for _, o := range st.OrderBy {
		if containsAggregate(o.Expr) {
			return false
		}
	}
	if f.Star {
		return true
	}
	// COUNT(column) and COUNT(literal); COUNT of an expression goes to the
	// aggregation stage.
	if len(f.Args) == 1 {
		switch f.Args[0].(type) {
		case *sqlparse.ColumnRef, *sqlparse.Literal:
			return withArg
		}
	}
	return false
}

// containsAggregate reports whether e calls an aggregate function.
func containsAggregate(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if f, ok := n.(*sqlparse.FuncCall); ok && f.Aggregate {
			found = true
		}
		return !found
	})
	return found
}

// aggSlot names the slot of the i-th group key or aggregate in the grouped
// row; the NUL byte keeps it from clashing with a real column name.
func aggSlot(kind string, i int) string { return "\x00" + kind + strconv.Itoa(i) }

// planAggregate plans the aggregation of st over rows laid out as env
// describes. post starts the pipeline over the groups (its limits and
// budget); the returned stage's post pipeline holds the select list,
// HAVING, ORDER BY and LIMIT. mark is called for every source column the
// query reads.
func planAggregate(env *rowEnv, st *sqlparse.Select, post selectPipeline, mark func(sqlparse.Expr)) (*aggStage, error) {
	if st.Where != nil && containsAggregate(st.Where) {
		return nil, errorf(catalog.CodeInvalidInput, "invalid use of an aggregate function in WHERE (%s); filter groups with HAVING", st.Where)
	}
	a := &aggStage{}
	var cols []Column
	groupText := map[string]int{}
	for _, g := range st.GroupBy {
		if pos, ok := g.(*sqlparse.ColumnPosition); ok {
			if pos.N < 1 || pos.N > len(st.Items) || st.Items[pos.N-1].Star {
				return nil, errorf(catalog.CodeInvalidInput, "GROUP BY position %d does not name an expression of the select list", pos.N)
			}
			g = st.Items[pos.N-1].Expr
		} else if ref, ok := g.(*sqlparse.ColumnRef); ok && ref.Qualifier == nil {
			if _, err := env.column(ref); err != nil { // GROUP BY alias
				for _, it := range st.Items {
					if !it.Star && strings.EqualFold(it.Alias, ref.Column) {
						g = it.Expr
					}
				}
			}
		}
		if containsAggregate(g) {
			return nil, errorf(catalog.CodeInvalidInput, "invalid use of an aggregate function in GROUP BY (%s)", g)
		}
		if err := env.check(g); err != nil {
			return nil, err
		}
		mark(g)
		key := g.String()
		if _, dup := groupText[key]; dup {
			continue
		}
		groupText[key] = len(a.groupBy)
		a.groupBy = append(a.groupBy, g)
		c := exprColumn(env, g, aggSlot("g", len(cols)))
		if ref, ok := sqlparse.StripParens(g).(*sqlparse.ColumnRef); ok {
			if i, err := env.column(ref); err == nil {
				c.Nullable = env.cols[i].Nullable // a group key is NULL only if its column can be
			}
		}
		cols = append(cols, c)
	}
	callIndex := map[string]int{}
	// rewrite maps an expression over source rows to one over grouped rows.
	var rewrite func(e sqlparse.Expr) (sqlparse.Expr, error)
	rewrite = func(e sqlparse.Expr) (sqlparse.Expr, error) {
		if e == nil {
			return nil, nil
		}
		if i, ok := groupText[e.String()]; ok {
			return &sqlparse.ColumnRef{Column: aggSlot("g", i)}, nil
		}
		switch n := e.(type) {
		case *sqlparse.FuncCall:
			if !n.Aggregate {
				c := *n
				c.Args = make([]sqlparse.Expr, len(n.Args))
				for i, x := range n.Args {
					r, err := rewrite(x)
					if err != nil {
						return nil, err
					}
					c.Args[i] = r
				}
				return &c, nil
			}
			call, err := newAggCall(env, n)
			if err != nil {
				return nil, err
			}
			i, ok := callIndex[call.text]
			if !ok {
				i = len(a.calls)
				callIndex[call.text] = i
				a.calls = append(a.calls, call)
				cols = append(cols, call.column(env, aggSlot("a", i)))
				for _, x := range call.args {
					mark(x)
				}
				if call.concat != nil {
					for _, x := range call.concat.order {
						mark(x)
					}
				}
			}
			return &sqlparse.ColumnRef{Column: aggSlot("a", i)}, nil
		case *sqlparse.ColumnRef:
			if _, err := env.column(n); err != nil {
				return nil, err
			}
			return nil, errorf(catalog.CodeInvalidInput, "column %s is neither aggregated nor named in GROUP BY (each select item must be an aggregate or a GROUP BY expression)", n)
		case *sqlparse.Literal:
			return n, nil
		case *sqlparse.Paren:
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X = x
			return &c, nil
		case *sqlparse.Unary:
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X = x
			return &c, nil
		case *sqlparse.Binary:
			l, err := rewrite(n.L)
			if err != nil {
				return nil, err
			}
			r, err := rewrite(n.R)
			if err != nil {
				return nil, err
			}
			c := *n
			c.L, c.R = l, r
			return &c, nil
		case *sqlparse.IsNull:
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X = x
			return &c, nil
		case *sqlparse.Between:
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			lo, err := rewrite(n.Lo)
			if err != nil {
				return nil, err
			}
			hi, err := rewrite(n.Hi)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X, c.Lo, c.Hi = x, lo, hi
			return &c, nil
		case *sqlparse.Like:
			// HAVING GROUP_CONCAT(x) LIKE '%y%'
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			p, err := rewrite(n.Pattern)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X, c.Pattern = x, p
			return &c, nil
		case *sqlparse.Variable:
			return n, nil
		case *sqlparse.Subquery:
			c := *n
			return &c, regroup(env, n, &c, rewrite)
		case *sqlparse.Exists:
			c := *n
			return &c, regroup(env, n, &c, rewrite)
		case *sqlparse.Quantified:
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X = x
			return &c, regroup(env, n, &c, rewrite)
		case *sqlparse.InList:
			if n.Subquery != nil {
				x, err := rewrite(n.X)
				if err != nil {
					return nil, err
				}
				c := *n
				c.X = x
				return &c, regroup(env, n, &c, rewrite)
			}
			x, err := rewrite(n.X)
			if err != nil {
				return nil, err
			}
			c := *n
			c.X = x
			c.List = make([]sqlparse.Expr, len(n.List))
			for i, item := range n.List {
				if c.List[i], err = rewrite(item); err != nil {
					return nil, err
				}
			}
			return &c, nil
		}
		return nil, errorf(catalog.CodeUnsupported, "not supported: %s over grouped rows", e)
	}
	type item struct {
		label string
		expr  sqlparse.Expr
	}
	var items []item
	for _, it := range st.Items {
		if it.Star {
			return nil, errorf(catalog.CodeInvalidInput, "SELECT * cannot be combined with GROUP BY or aggregates (name the grouped columns)")
		}
		e, err := rewrite(it.Expr)
		if err != nil {
			return nil, err
		}
		label := it.Alias
		if label == "" {
			label = fieldText(it)
		}
		items = append(items, item{label, e})
	}
	having, err := rewrite(st.Having)
	if err != nil {
		return nil, err
	}
	var order []orderKey
	for _, o := range st.OrderBy {
		var e sqlparse.Expr
		switch n := o.Expr.(type) {
		case *sqlparse.ColumnPosition:
			if n.N < 1 || n.N > len(items) {
				return nil, errorf(catalog.CodeInvalidInput, "ORDER BY position %d is out of range", n.N)
			}
			e = items[n.N-1].expr
		case *sqlparse.ColumnRef:
			for _, it := range items {
				if n.Qualifier == nil && strings.EqualFold(it.label, n.Column) {
					e = it.expr
					break
				}
			}
		}
		if e == nil {
			if e, err = rewrite(o.Expr); err != nil {
				return nil, err
			}
		}
		order = append(order, orderKey{expr: e, desc: o.Desc})
	}
	post.env = newRowEnv(cols)
	post.env.session = env.session
	post.env.subq = env.subq
	post.where = having
	post.order = order
	for _, it := range items {
		c := exprColumn(post.env, it.expr, it.label)
		post.fields = append(post.fields, selectField{col: c, expr: it.expr})
		post.outCols = append(post.outCols, c)
	}
	for _, e := range append([]sqlparse.Expr{having}, func() []sqlparse.Expr {
		var es []sqlparse.Expr
		for _, f := range post.fields {
			es = append(es, f.expr)
		}
		for _, o := range order {
			es = append(es, o.expr)
		}
		return es
	}()...) {
		if e == nil {
			continue
		}
		if err := post.env.check(e); err != nil {
			return nil, err
		}
	}
	a.post = post
	return a, nil
}

// exprColumn describes the result column of e labelled label: a column
// (or a group or aggregate slot) keeps its type, a numeric literal is
// BIGINT or DOUBLE, an operator BIGINT (comparisons yield 1 or 0),
// anything else a VARCHAR.
func exprColumn(env *rowEnv, e sqlparse.Expr, label string) Column {
	if ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef); ok {
		if i, err := env.column(ref); err == nil {
			c := env.cols[i]
			c.Name = label
			// A group key or an aggregate keeps its nullability (COUNT is
			// never NULL); a source column's MIN or MAX is NULL over no rows.
			c.Nullable = c.Nullable || !strings.HasPrefix(ref.Column, "\x00")
			return c
		}
	}
	switch n := sqlparse.StripParens(e).(type) {
	case *sqlparse.Literal:
		switch v := literalValue(n).(type) {
		case int64, bool:
			return bigintNull(label)
		case uint64:
			return Column{Name: label, DatabaseType: "BIGINT UNSIGNED", Nullable: true}
		case float64:
			return Column{Name: label, DatabaseType: "DOUBLE", Nullable: true}
		case sqltypes.Decimal:
			return Column{Name: label, DatabaseType: decimalTypeOf(v), Nullable: true}
		}
	case *sqlparse.Binary:
		if decimalExpr(env, n) {
			return Column{Name: label, DatabaseType: "DECIMAL", Nullable: true}
		}
		if isArithmetic(n.Op) && !integerExpr(env, n) {
			return Column{Name: label, DatabaseType: "DOUBLE", Nullable: true}
		}
		return bigintNull(label)
	case *sqlparse.Unary:
		if decimalExpr(env, n) {
			return Column{Name: label, DatabaseType: "DECIMAL", Nullable: true}
		}
		if n.Op != sqlparse.OpNot && !integerExpr(env, n) {
			return Column{Name: label, DatabaseType: "DOUBLE", Nullable: true}
		}
		return bigintNull(label)
	case *sqlparse.IsNull, *sqlparse.Between, *sqlparse.InList, *sqlparse.Exists, *sqlparse.Quantified, *sqlparse.Like, *sqlparse.IsTruth:
		return bigintNull(label)
	case *sqlparse.Subquery:
		if c, ok := env.subqueryColumn(n, label); ok {
			return c
		}
	case *sqlparse.FuncCall:
		if c, ok := funcColumn(env, n, label); ok && !n.Aggregate {
			return c
		}
	case *sqlparse.Regexp:
		return bigintNull(label)
	}
	return varcharNull(label)
}

// integerExpr reports whether e evaluates to an int64 (or NULL) on every
// row: signed integer columns and literals combined by +, -, *, DIV and %
// (arithmetic.go keeps two integers exact; only a result beyond int64,
// which fails for signed operands, would not be one).
func integerExpr(env *rowEnv, e sqlparse.Expr) bool {
	switch n := sqlparse.StripParens(e).(type) {
	case *sqlparse.ColumnRef:
		i, err := env.column(n)
		if err != nil {
			return false
		}
		// A group key or aggregate slot keeps its source type; BIGINT
		// UNSIGNED reads as uint64. A DATE, DATETIME or TIMESTAMP is an
		// integer in arithmetic (temporalNumber): ts + 0 is a BIGINT.
		return signedIntegerType(env.cols[i].DatabaseType) || temporalKind(columnKind(env.cols[i]))
	case *sqlparse.Literal:
		_, ok := literalValue(n).(int64)
		return ok
	case *sqlparse.Unary:
		return n.Op != sqlparse.OpBitNeg && integerExpr(env, n.X)
	case *sqlparse.Binary:
		switch n.Op {
		case sqlparse.OpAdd, sqlparse.OpSub, sqlparse.OpMul, sqlparse.OpIntDiv, sqlparse.OpMod:
			return integerExpr(env, n.L) && integerExpr(env, n.R)
		}
		return n.Op.IsComparison() || n.Op.IsLogical() // 1, 0 or NULL
	}
	return false
}

// decimalExpr reports whether e evaluates to an exact decimal: a decimal
// literal, or +, -, *, % and signs over decimal literals and integers with
// at least one decimal (decimal.go).
func decimalExpr(env *rowEnv, e sqlparse.Expr) bool {
	switch n := sqlparse.StripParens(e).(type) {
	case *sqlparse.Literal:
		return n.Kind == sqlparse.LitDecimal
	case *sqlparse.ColumnRef:
		// A DECIMAL column, or an exact SUM / AVG of one over grouped
		// rows (decsum.go): 0.2 * AVG(l_quantity) is a DECIMAL.
		return decimalColumn(env, n) // its exact text (decimalcol.go)
	case *sqlparse.Unary:
		return (n.Op == sqlparse.OpNeg || n.Op == sqlparse.OpPlus) && decimalExpr(env, n.X)
	case *sqlparse.Binary:
		switch n.Op {
		case sqlparse.OpAdd, sqlparse.OpSub, sqlparse.OpMul, sqlparse.OpMod:
			l, r := decimalExpr(env, n.L), decimalExpr(env, n.R)
			return (l || r) && (l || integerExpr(env, n.L)) && (r || integerExpr(env, n.R))
		}
	}
	return false
}

func newAggCall(env *rowEnv, n *sqlparse.FuncCall) (aggCall, error) {
	fn := normalAggName(strings.ToLower(n.Name))
	call := aggCall{fn: fn, star: n.Star, distinct: n.Distinct, text: n.String(), call: n}
	switch fn {
	case "count", "sum", "avg", "min", "max":
	default:
		if call, ok, err := newMoreAggCall(env, n, call); ok {
			return call, err
		}
		return aggCall{}, errorf(catalog.CodeUnsupported, "not supported: aggregate %s", strings.ToUpper(n.Name))
	}
	if n.Star {
		if fn != "count" {
			return aggCall{}, errorf(catalog.CodeInvalidInput, "%s(*) is not valid (only COUNT(*))", strings.ToUpper(fn))
		}
		return call, nil
	}
	if fn == "count" && n.Distinct && len(n.Args) > 1 {
		if err := checkAggArgs(env, n, n.Args); err != nil {
			return aggCall{}, err
		}
		call.args, call.arg = n.Args, n.Args[0]
		return call, nil
	}
	if len(n.Args) != 1 {
		return aggCall{}, errorf(catalog.CodeInvalidInput, "%s takes one argument", strings.ToUpper(fn))
	}
	if containsAggregate(n.Args[0]) {
		return aggCall{}, errorf(catalog.CodeInvalidInput, "invalid use of an aggregate function inside %s", n)
	}
	if err := env.check(n.Args[0]); err != nil {
		return aggCall{}, err
	}
	call.arg, call.args = n.Args[0], n.Args
	if fn == "sum" || fn == "avg" {
		switch t := strings.ToUpper(exprColumn(env, call.arg, "").DatabaseType); {
		case strings.HasPrefix(t, "DECIMAL"):
			call.exact, call.exactScale = true, decimalScaleOf(t)
		case signedIntegerType(t) || t == "BIGINT UNSIGNED" || integerExpr(env, call.arg):
			// MySQL sums exact integers into a DECIMAL (no BIGINT
			// overflow) and averages them at div_precision_increment
			// (4) decimals: AVG over 1..7 is 4.0000, 30/7 is 4.2857.
			call.exact, call.exactScale = true, 0
		}
	}
	if k := columnKind(exprColumn(env, call.arg, "")); (fn == "sum" || fn == "avg") && temporalKind(k) {
		call.temporal = k // SUM(dt) sums 20240102, ... (temporalNumber)
	}
	if ref, ok := sqlparse.StripParens(call.arg).(*sqlparse.ColumnRef); ok {
		if i, err := env.column(ref); err == nil {
			call.decimal = strings.HasPrefix(strings.ToUpper(env.cols[i].DatabaseType), "DECIMAL")
		}
	}
	return call, nil
}

// column is the result column of the call.
func (c aggCall) column(env *rowEnv, name string) Column {
	if col, ok := c.moreColumn(name); ok {
		return col
	}
	switch c.fn {
	case "count":
		return bigint(name)
	case "avg":
		if c.exact {
			return c.exactColumn(name)
		}
		return Column{Name: name, DatabaseType: "DOUBLE", Nullable: true}
	case "sum":
		if c.exact {
			return c.exactColumn(name)
		}
		if integerExpr(env, c.arg) {
			return bigintNull(name)
		}
		if unsignedExpr(env, c.arg) {
			return Column{Name: name, DatabaseType: "DECIMAL(41,0)", Nullable: true}
		}
		return Column{Name: name, DatabaseType: "DOUBLE", Nullable: true}
	}
	return exprColumn(env, c.arg, name) // MIN, MAX: the argument's type
}

// unsignedExpr reports whether e is a BIGINT UNSIGNED column (or slot),
// whose SUM is an exact DECIMAL.
func unsignedExpr(env *rowEnv, e sqlparse.Expr) bool {
	ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
	if !ok {
		return false
	}
	i, err := env.column(ref)
	return err == nil && strings.EqualFold(env.cols[i].DatabaseType, "BIGINT UNSIGNED")
}

// temporalKind reports whether k is DATE, DATETIME or TIMESTAMP.
func temporalKind(k expr.Kind) bool {
	return k == sqltypes.KindDate || k == sqltypes.KindDatetime || k == sqltypes.KindTimestamp
}

// signedIntegerType reports whether a column of type t reads as int64
// (every integer type but BIGINT UNSIGNED, which reads as uint64).
func signedIntegerType(t string) bool {
	switch strings.ToUpper(t) {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT",
		"TINYINT UNSIGNED", "SMALLINT UNSIGNED", "MEDIUMINT UNSIGNED", "INT UNSIGNED":
		return true
	}
	return false
}

// explain adds the stage's lines, outermost first: the post pipeline's
// LIMIT, ORDER BY and HAVING, the projection, then the aggregation.
func (a *aggStage) explain(add func(string)) {
	post := &a.post
	name := func(e sqlparse.Expr) string { return slotText(a, e.String()) }
	if post.limit >= 0 || post.offset > 0 {
		l := "Limit none"
		if post.limit >= 0 {
			l = "Limit " + strconv.FormatInt(post.limit, 10)
		}
		if post.offset > 0 {
			l += " offset " + strconv.FormatInt(post.offset, 10)
		}
		add(l)
	}
	if len(post.order) > 0 {
		var keys []string
		for _, o := range post.order {
			k := name(o.expr)
			if o.desc {
				k += " DESC"
			}
			keys = append(keys, k)
		}
		add("Sort " + strings.Join(keys, ", "))
	}
	if post.where != nil {
		add("Having " + name(post.where))
	}
	var items []string
	for _, f := range post.fields {
		items = append(items, f.col.Name)
	}
	add("Project " + strings.Join(items, ", "))
	var calls, keys []string
	for _, c := range a.calls {
		calls = append(calls, c.text)
	}
	for _, g := range a.groupBy {
		keys = append(keys, g.String())
	}
	l := "Aggregate " + strings.Join(calls, ", ")
	if len(keys) > 0 {
		l += " group by " + strings.Join(keys, ", ") + " (one state per group)"
	}
	add(l)
}

// slotText renders an expression over grouped rows with its slots
// replaced by what they stand for.
func slotText(a *aggStage, s string) string {
	for i, c := range a.calls {
		s = strings.ReplaceAll(s, sqlparse.QuoteIdent(aggSlot("a", i)), c.text)
	}
	for i, g := range a.groupBy {
		s = strings.ReplaceAll(s, sqlparse.QuoteIdent(aggSlot("g", i)), g.String())
	}
	return s
}

// group is one group's key values and aggregate states.
type group struct {
	keys   []any
	states []aggState
}

// run folds the source rows into groups and runs the post pipeline over
// them.
func (a *aggStage) run(ctx context.Context, env *rowEnv, rows iter.Seq2[[]any, error]) (*Result, error) {
	groups := map[string]*group{}
	var order []*group // first-seen order, so results are deterministic
	keyBuf := []byte{}
	keys := make([]any, len(a.groupBy))
	env.ctx = ctx
	for row, err := range rows {
		if err != nil {
			return nil, err
		}
		keyBuf = keyBuf[:0]
		for i, g := range a.groupBy {
			v, err := env.eval(g, row)
			if err != nil {
				return nil, err
			}
			keys[i] = v
			keyBuf = appendKey(keyBuf, v)
		}
		gr, ok := groups[string(keyBuf)]
		if !ok {
			gr = &group{keys: cloneValues(keys), states: make([]aggState, len(a.calls))}
			groups[string(keyBuf)] = gr
			order = append(order, gr)
		}
		for i, c := range a.calls {
			if err := c.add(&gr.states[i], env, row); err != nil {
				return nil, err
			}
		}
	}
	if len(a.groupBy) == 0 && len(order) == 0 {
		order = append(order, &group{states: make([]aggState, len(a.calls))})
	}
	out := make([][]any, len(order))
	for i, gr := range order {
		r := make([]any, 0, len(gr.keys)+len(a.calls))
		r = append(r, gr.keys...)
		for j, c := range a.calls {
			v, err := c.result(&gr.states[j])
			if err != nil {
				return nil, err
			}
			r = append(r, v)
		}
		out[i] = r
	}
	return a.post.execute(ctx, sliceRows(out))
}

func cloneValues(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		if b, ok := v.([]byte); ok {
			v = slices.Clone(b)
		}
		out[i] = v
	}
	return out
}

// appendKey appends a type-tagged encoding of v that equal values (and
// only they) share.
func appendKey(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0)
	case bool:
		if x {
			return append(b, 'i', 0, 0, 0, 0, 0, 0, 0, 1)
		}
		return append(b, 'i', 0, 0, 0, 0, 0, 0, 0, 0)
	case int64:
		return binary.BigEndian.AppendUint64(append(b, 'i'), uint64(x))
	case uint64:
		if x <= math.MaxInt64 {
			return binary.BigEndian.AppendUint64(append(b, 'i'), x)
		}
		return binary.BigEndian.AppendUint64(append(b, 'u'), x)
	case float64:
		if x == 0 {
			x = 0 // -0 groups with 0
		}
		return binary.BigEndian.AppendUint64(append(b, 'f'), math.Float64bits(x))
	case time.Time:
		return binary.BigEndian.AppendUint64(append(b, 't'), uint64(x.UnixNano()))
	case []byte:
		b = binary.AppendUvarint(append(b, 's'), uint64(len(x)))
		return append(b, x...)
	}
	s := toString(v)
	b = binary.AppendUvarint(append(b, 's'), uint64(len(s)))
	return append(b, s...)
}

// add folds one row into the state.
func (c aggCall) add(st *aggState, env *rowEnv, row []any) error {
	if c.star {
		st.count++
		return nil
	}
	if handled, err := c.addMore(st, env, row); handled {
		return err
	}
	v, err := env.eval(c.arg, row)
	if err != nil || v == nil {
		return err
	}
	if c.distinct && !st.firstSeen(string(appendKey(nil, v))) {
		return nil
	}
	st.count++
	switch c.fn {
	case "bit_and", "bit_or", "bit_xor":
		c.foldBits(st, v)
	case "var_pop", "var_samp", "stddev_pop", "stddev_samp":
		foldVariance(st, v)
	case "sum", "avg":
		if t, ok := v.(time.Time); ok && c.temporal != 0 {
			v = temporalNumber(c.temporal, t)
		}
		if c.exact && (st.dec == nil || !st.dec.bad) {
			if st.dec == nil {
				st.dec = &decSum{}
			}
			if st.dec.add(v); !st.dec.bad {
				// The exact sum is the result: no DOUBLE sum beside it
				// (parsing every value as a float was a fifth of Q1).
				return nil
			}
			// v is no exact number: the DOUBLE sum goes on from the
			// exact sum of the values before it.
			st.floating, st.fsum = true, st.dec.float()
		}
		if u, ok := v.(uint64); ok && !st.floating {
			// BIGINT UNSIGNED: an exact sum (MySQL's is a DECIMAL), not a
			// float that silently rounds past 2^53.
			if st.bsum == nil {
				st.bsum = big.NewInt(st.isum)
			}
			st.bsum.Add(st.bsum, new(big.Int).SetUint64(u))
			return nil
		}
		if i, ok := v.(int64); ok && !st.floating && st.bsum != nil {
			st.bsum.Add(st.bsum, big.NewInt(i))
			return nil
		}
		if i, ok := v.(int64); ok && !st.floating {
			s := st.isum + i
			if (s > st.isum) == (i > 0) || i == 0 {
				st.isum = s
				return nil
			}
			if c.fn == "sum" {
				return errorf(catalog.CodeInvalidInput, "%s overflows BIGINT", c.text)
			}
		}
		f, ok := toNumber(v)
		if !ok {
			f, _ = strconv.ParseFloat(strings.TrimSpace(toString(v)), 64)
		}
		if !st.floating {
			st.floating = true
			st.fsum = float64(st.isum)
			if st.bsum != nil {
				st.fsum, _ = new(big.Float).SetInt(st.bsum).Float64()
			}
		}
		st.fsum += f
	case "min", "max":
		if st.best == nil {
			st.best = cloneValues([]any{v})[0]
			return nil
		}
		var cmp int
		ds, dok := v.(string)
		bs, bok := st.best.(string)
		if c.decimal && dok && bok {
			cmp = compareDecimalText(ds, bs)
		} else {
			cmp = compare(v, st.best)
		}
		if (c.fn == "min" && cmp < 0) || (c.fn == "max" && cmp > 0) {
			st.best = cloneValues([]any{v})[0]
		}
	}
	return nil
}

// compareDecimalText orders two plain decimal texts ("-12.50", "3")
// exactly, without a float's rounding.
func compareDecimalText(a, b string) int {
	an, bn := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	ai, af, _ := strings.Cut(strings.TrimPrefix(a, "-"), ".")
	bi, bf, _ := strings.Cut(strings.TrimPrefix(b, "-"), ".")
	ai, bi = strings.TrimLeft(ai, "0"), strings.TrimLeft(bi, "0")
	af, bf = strings.TrimRight(af, "0"), strings.TrimRight(bf, "0")
	zero := func(i, f string) bool { return i == "" && f == "" }
	if zero(ai, af) {
		an = false
	}
	if zero(bi, bf) {
		bn = false
	}
	if an != bn {
		if an {
			return -1
		}
		return 1
	}
	c := len(ai) - len(bi)
	if c == 0 {
		c = strings.Compare(ai, bi)
	}
	if c == 0 {
		c = strings.Compare(af, bf) // trailing zeros trimmed: byte order is numeric order
	}
	switch {
	case c < 0:
		c = -1
	case c > 0:
		c = 1
	}
	if an {
		c = -c
	}
	return c
}

// result is the aggregate's value for the group.
func (c aggCall) result(st *aggState) (any, error) {
	if v, ok, err := c.moreResult(st); ok {
		return v, err
	}
	switch c.fn {
	case "count":
		return st.count, nil
	case "min", "max":
		return st.best, nil
	}
	if st.count == 0 {
		return nil, nil
	}
	if v, ok := c.exactResult(st); ok {
		return v, nil
	}
	sum := st.fsum
	if !st.floating && st.bsum != nil {
		if c.fn == "sum" {
			return sqltypes.Decimal(st.bsum.String()), nil
		}
		sum, _ = new(big.Float).SetInt(st.bsum).Float64()
	} else if !st.floating {
		if c.fn == "sum" {
			return st.isum, nil
		}
		sum = float64(st.isum)
	}
	if c.fn == "avg" {
		return sum / float64(st.count), nil
	}
	return sum, nil
}
