package planner

import (
	"context"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Window functions (issue 15). A query block whose select list or ORDER
// BY calls a window function (f(...) OVER (...)) is planned in two
// levels of one tree:
//
//   - the inner query block is the SELECT without its window calls, ORDER
//     BY and LIMIT: FROM (any source, joins included), WHERE, GROUP BY and
//     HAVING as the other paths plan them, selecting the plain select
//     items plus hidden items for every value the windows and the rest
//     need (the columns read, the aggregate calls, the subqueries);
//   - above it stand a plan.Window node (computing every window call over
//     all the inner rows, exec.Window), then Sort (ORDER BY, which may
//     name window results), Limit and Project, as treeAbove makes them.
//
// MySQL's rules: window functions are evaluated after WHERE, GROUP BY and
// HAVING and before ORDER BY and LIMIT; they cannot stand in WHERE, GROUP
// BY or HAVING (error 3593) nor be nested (3592). The default frame is
// RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with an ORDER BY, the
// whole partition without one; ranking functions and LAG/LEAD ignore
// frames.

// isWindowCall reports whether e is a window function call.
func isWindowCall(e sqlparse.Expr) bool {
	f, ok := e.(*sqlparse.FuncCall)
	return ok && f.Over != nil
}

// containsWindow reports whether e calls a window function.
func containsWindow(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if isWindowCall(n) {
			found = true
		}
		return !found
	})
	return found
}

// firstWindow returns the first window call in e.
func firstWindow(e sqlparse.Expr) *sqlparse.FuncCall {
	var w *sqlparse.FuncCall
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if w == nil && isWindowCall(n) {
			w = n.(*sqlparse.FuncCall)
		}
		return w == nil
	})
	return w
}

// hasWindows reports whether the query block st uses window functions.
func hasWindows(st *sqlparse.Select) bool {
	for _, it := range st.Items {
		if !it.Star && containsWindow(it.Expr) {
			return true
		}
	}
	for _, o := range st.OrderBy {
		if containsWindow(o.Expr) {
			return true
		}
	}
	if containsWindow(st.Where) || containsWindow(st.Having) {
		return true
	}
	for _, g := range st.GroupBy {
		if containsWindow(g) {
			return true
		}
	}
	return false
}

func windowContextError(w *sqlparse.FuncCall) error {
	return errorf(catalog.CodeInvalidInput, "you cannot use the window function '%s' in this context (MySQL error 3593)", strings.ToLower(w.Name))
}

// windowRewrite splits a query block's expressions into the inner block's
// hidden items and the expressions above them.
type windowRewrite struct {
	hidden []sqlparse.Expr // the inner items, in the inner query's terms
	byText map[string]int
	orig   map[string]sqlparse.Expr // hidden name -> its expression
	calls  []*sqlparse.FuncCall     // the window calls, over the hidden slots
	callAt map[string]int
	err    error
}

func hiddenName(i int) string { return "\x00h" + strconv.Itoa(i) }
func windowSlot(i int) string { return "\x00w" + strconv.Itoa(i) }
func itemSlot(i int) string   { return "\x00i" + strconv.Itoa(i) }
func starSlot(i int) string   { return "\x00s" + strconv.Itoa(i) }

// hoist makes e (over the inner block's rows, possibly holding hidden
// references from the rewrite below it) a hidden item and returns the
// reference to it.
func (w *windowRewrite) hoist(e sqlparse.Expr) sqlparse.Expr {
	e = sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
		if ref, ok := n.(*sqlparse.ColumnRef); ok && ref.Qualifier == nil {
			if o, ok := w.orig[ref.Column]; ok {
				return o
			}
		}
		return n
	})
	key := e.String()
	i, ok := w.byText[key]
	if !ok {
		i = len(w.hidden)
		w.byText[key] = i
		w.hidden = append(w.hidden, e)
		w.orig[hiddenName(i)] = e
	}
	return &sqlparse.ColumnRef{Column: hiddenName(i)}
}

// rewrite maps an expression of the select list or ORDER BY to one over
// the hidden slots and the window slots.
func (w *windowRewrite) rewrite(e sqlparse.Expr) (sqlparse.Expr, error) {
	if !containsWindow(e) {
		return w.hoist(e), nil
	}
	// Nested windows, windows inside aggregates or subquery operands.
	var bad error
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		if bad != nil {
			return false
		}
		switch x := n.(type) {
		case *sqlparse.FuncCall:
			if x.Over != nil {
				for _, a := range x.Args {
					if containsWindow(a) {
						bad = errorf(catalog.CodeInvalidInput, "you cannot nest a window function in the specification of window '%s' (MySQL error 3592)", strings.ToLower(x.Name))
					}
				}
				return false
			}
			if x.Aggregate {
				for _, a := range x.Args {
					if w := firstWindow(a); w != nil {
						bad = windowContextError(w)
					}
				}
			}
		case *sqlparse.Quantified:
			if containsWindow(x.X) {
				bad = errorf(catalog.CodeUnsupported, "not supported: a window function compared with a subquery (%s)", x)
			}
		case *sqlparse.InList:
			if x.Subquery != nil && containsWindow(x.X) {
				bad = errorf(catalog.CodeUnsupported, "not supported: a window function compared with a subquery (%s)", x)
			}
		}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	// First the aggregate calls and subqueries, whole (their arguments
	// belong to the inner block), then the columns and the window calls.
	e1 := sqlparse.Rewrite(e, func(n sqlparse.Expr) sqlparse.Expr {
		switch x := n.(type) {
		case *sqlparse.FuncCall:
			if x.Over == nil && x.Aggregate {
				return w.hoist(x)
			}
		case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified:
			return w.hoist(x)
		case *sqlparse.InList:
			if x.Subquery != nil {
				return w.hoist(x)
			}
		}
		return n
	})
	out := sqlparse.Rewrite(e1, func(n sqlparse.Expr) sqlparse.Expr {
		switch x := n.(type) {
		case *sqlparse.ColumnRef:
			if x.Qualifier == nil && strings.HasPrefix(x.Column, "\x00") {
				return x
			}
			return w.hoist(x)
		case *sqlparse.FuncCall:
			if x.Over != nil {
				key := x.String()
				i, ok := w.callAt[key]
				if !ok {
					i = len(w.calls)
					w.callAt[key] = i
					w.calls = append(w.calls, x)
				}
				return &sqlparse.ColumnRef{Column: windowSlot(i)}
			}
		}
		return n
	})
	return out, w.err
}

// outItem is one select item of the query block above the windows.
type outItem struct {
	star  bool
	inner int           // the item's position among the inner items (-1: a window item)
	expr  sqlparse.Expr // a window item's expression above the windows
	label string
	text  string
}

// planWindowed plans a query block with window functions (see above).
func (s *Session) planWindowed(ctx context.Context, st *sqlparse.Select) (*treePlan, error) {
	if w := firstWindow(st.Where); w != nil {
		return nil, windowContextError(w)
	}
	if w := firstWindow(st.Having); w != nil {
		return nil, windowContextError(w)
	}
	for _, g := range st.GroupBy {
		if w := firstWindow(g); w != nil {
			return nil, windowContextError(w)
		}
	}
	if st.Distinct {
		return nil, errorf(catalog.CodeUnsupported, "not supported: SELECT DISTINCT with window functions")
	}
	w := &windowRewrite{byText: map[string]int{}, orig: map[string]sqlparse.Expr{}, callAt: map[string]int{}}
	inner := *st
	inner.Items, inner.OrderBy, inner.Limit = nil, nil, nil
	var items []outItem
	stars := 0
	for _, it := range st.Items {
		switch {
		case it.Star:
			stars++
			items = append(items, outItem{star: true, inner: len(inner.Items)})
			inner.Items = append(inner.Items, it)
		case !containsWindow(it.Expr):
			items = append(items, outItem{inner: len(inner.Items)})
			inner.Items = append(inner.Items, it)
		default:
			e, err := w.rewrite(it.Expr)
			if err != nil {
				return nil, err
			}
			label := it.Alias
			if label == "" {
				label = fieldText(it)
			}
			items = append(items, outItem{inner: -1, expr: e, label: label, text: it.Expr.String()})
		}
	}
	if stars > 1 {
		return nil, errorf(catalog.CodeUnsupported, "not supported: more than one * in the select list of a query with window functions")
	}
	// ORDER BY: positions and aliases name select items; other
	// expressions are rewritten like the items.
	itemRef := func(k int) sqlparse.Expr {
		if items[k].inner < 0 {
			return items[k].expr
		}
		return &sqlparse.ColumnRef{Column: itemSlot(k)}
	}
	var order []orderKey
	for _, o := range st.OrderBy {
		var e sqlparse.Expr
		switch x := o.Expr.(type) {
		case *sqlparse.ColumnPosition:
			if x.N < 1 || x.N > len(items) || items[x.N-1].star {
				return nil, errorf(catalog.CodeInvalidInput, "ORDER BY position %d does not name an expression of the select list", x.N)
			}
			e = itemRef(x.N - 1)
		case *sqlparse.ColumnRef:
			if x.Qualifier == nil {
				for k, it := range st.Items {
					if !it.Star && it.Alias != "" && strings.EqualFold(it.Alias, x.Column) {
						e = itemRef(k)
						break
					}
				}
			}
		}
		if e == nil {
			var err error
			if e, err = w.rewrite(o.Expr); err != nil {
				return nil, err
			}
		}
		order = append(order, orderKey{expr: e, desc: o.Desc})
	}
	firstHidden := len(inner.Items)
	for _, h := range w.hidden {
		inner.Items = append(inner.Items, sqlparse.SelectItem{Expr: h, Text: h.String()})
	}
	if len(inner.Items) == 0 {
		inner.Items = []sqlparse.SelectItem{{Expr: &sqlparse.Literal{Value: int64(1)}, Text: "1"}}
	}
	ip, err := s.planQuery(ctx, &inner)
	if err != nil {
		return nil, err
	}
	innerCols := ip.resultColumns()
	starWidth := len(innerCols) - (len(inner.Items) - stars)
	// The layout of the rows under the Window node: the inner columns,
	// named by what they stand for.
	var below []Column
	display := map[string]string{}
	col := 0
	starAt := -1
	for i := range inner.Items {
		if i >= firstHidden && i-firstHidden < len(w.hidden) {
			h := i - firstHidden
			c := innerCols[col]
			c.Name = hiddenName(h)
			below = append(below, c)
			display[sqlparse.QuoteIdent(c.Name)] = w.hidden[h].String()
			col++
			continue
		}
		if inner.Items[i].Star {
			starAt = col
			for j := 0; j < starWidth; j++ {
				c := innerCols[col]
				c.Name = starSlot(col)
				below = append(below, c)
				col++
			}
			continue
		}
		if len(w.hidden) == 0 && i >= firstHidden { // the placeholder item
			c := innerCols[col]
			c.Name = "\x00one"
			below = append(below, c)
			col++
			continue
		}
		k := 0
		for ; k < len(items); k++ {
			if items[k].inner == i {
				break
			}
		}
		c := innerCols[col]
		c.Name = itemSlot(k)
		display[sqlparse.QuoteIdent(c.Name)] = innerCols[col].Name
		below = append(below, c)
		col++
	}
	wenv := newRowEnv(below)
	wenv.session = s
	stage := &windowStage{env: wenv}
	above := append([]Column(nil), below...)
	node := &plan.Window{Budget: s.joinBudget(), Display: display}
	for j, c := range w.calls {
		fn, col, err := s.windowFunc(wenv, c, windowSlot(j))
		if err != nil {
			return nil, err
		}
		key := plan.WindowKey(c)
		oi := -1
		for i, k := range stage.orderKeys {
			if k == key {
				oi = i
			}
		}
		if oi < 0 {
			oi = len(stage.orders)
			stage.orderKeys = append(stage.orderKeys, key)
			stage.orders = append(stage.orders, windowOrder(wenv, c))
		}
		fn.Order = oi
		stage.funcs = append(stage.funcs, fn)
		above = append(above, col)
		node.Calls = append(node.Calls, c)
		node.SlotNames = append(node.SlotNames, windowSlot(j))
		display[sqlparse.QuoteIdent(windowSlot(j))] = plan.Render(c, display)
	}
	t := &treePlan{s: s, envs: map[plan.Node]*rowEnv{}, aggs: map[*plan.Aggregate]*aggStage{},
		wins: map[*plan.Window]*windowStage{}, budget: s.joinBudget(), source: "a query with window functions"}
	node.Input = &plan.Source{Table: &querySource{s: s, p: ip}, Width: len(innerCols)}
	t.wins[node] = stage
	t.node(node, wenv)
	post := s.newPipeline(t.source)
	if err := setLimit(&post, st.Limit); err != nil {
		return nil, err
	}
	post.env = newRowEnv(above)
	post.env.session = s
	post.order = order
	for k, it := range items {
		switch {
		case it.star:
			for j := 0; j < starWidth; j++ {
				c := innerCols[starAt+j]
				post.fields = append(post.fields, selectField{col: c, expr: &sqlparse.ColumnRef{Column: starSlot(starAt + j)}})
			}
		case it.inner >= 0:
			var c Column
			for _, b := range below {
				if b.Name == itemSlot(k) {
					c = b
				}
			}
			c.Name = display[sqlparse.QuoteIdent(itemSlot(k))]
			post.fields = append(post.fields, selectField{col: c, expr: &sqlparse.ColumnRef{Column: itemSlot(k)}})
		default:
			c := exprColumn(post.env, it.expr, it.label)
			post.fields = append(post.fields, selectField{col: c, expr: it.expr})
		}
	}
	for _, f := range post.fields {
		if err := post.env.check(f.expr); err != nil {
			return nil, err
		}
		post.outCols = append(post.outCols, f.col)
	}
	for _, o := range order {
		if err := post.env.check(o.expr); err != nil {
			return nil, err
		}
	}
	t.root = t.rest(node, &post, false)
	t.cols = post.outCols
	return t, nil
}

// windowStage is what the Window operator of a plan.Window runs.
type windowStage struct {
	env       *rowEnv
	orders    []exec.WindowOrder
	orderKeys []string
	funcs     []exec.WindowFunc
}

// windowOrder is the ordering of a call's window.
func windowOrder(env *rowEnv, c *sqlparse.FuncCall) exec.WindowOrder {
	_, part, order := c.WindowArgs()
	keys := append(append([]sqlparse.Expr(nil), part...), order...)
	decimal := make([]bool, len(keys))
	for i, k := range keys {
		decimal[i] = decimalExpr(env, k) // aggmore.go
	}
	return exec.WindowOrder{
		NPartition: len(part),
		Desc:       c.Over.Desc,
		Keys: func(dst, row []any) error {
			for i, k := range keys {
				v, err := env.eval(k, row)
				if err != nil {
					return err
				}
				dst[i] = orderValue(v, decimal[i])
			}
			return nil
		},
	}
}

// windowKinds maps the window functions to their kinds and argument
// counts.
var windowKinds = map[string]struct {
	kind     exec.WindowKind
	min, max int
}{
	"ROW_NUMBER":   {exec.RowNumber, 0, 0},
	"RANK":         {exec.Rank, 0, 0},
	"DENSE_RANK":   {exec.DenseRank, 0, 0},
	"PERCENT_RANK": {exec.PercentRank, 0, 0},
	"CUME_DIST":    {exec.CumeDist, 0, 0},
	"NTILE":        {exec.Ntile, 1, 1},
	"LAG":          {exec.Lag, 1, 3},
	"LEAD":         {exec.Lead, 1, 3},
	"FIRST_VALUE":  {exec.FirstValue, 1, 1},
	"LAST_VALUE":   {exec.LastValue, 1, 1},
	"NTH_VALUE":    {exec.NthValue, 2, 2},
	"SUM":          {exec.WindowAggregate, 1, 1},
	"AVG":          {exec.WindowAggregate, 1, 1},
	"COUNT":        {exec.WindowAggregate, 1, 1},
	"MIN":          {exec.WindowAggregate, 1, 1},
	"MAX":          {exec.WindowAggregate, 1, 1},
	// MariaDB takes these as window functions too; GROUP_CONCAT and the
	// JSON aggregates it does not (windowFunc refuses them).
	"BIT_AND":     {exec.WindowAggregate, 1, 1},
	"BIT_OR":      {exec.WindowAggregate, 1, 1},
	"BIT_XOR":     {exec.WindowAggregate, 1, 1},
	"STD":         {exec.WindowAggregate, 1, 1},
	"STDDEV":      {exec.WindowAggregate, 1, 1},
	"STDDEV_POP":  {exec.WindowAggregate, 1, 1},
	"STDDEV_SAMP": {exec.WindowAggregate, 1, 1},
	"VARIANCE":    {exec.WindowAggregate, 1, 1},
	"VAR_POP":     {exec.WindowAggregate, 1, 1},
	"VAR_SAMP":    {exec.WindowAggregate, 1, 1},
}

// windowConstArg is a window function's constant integer argument (NTILE's N,
// LAG's offset, NTH_VALUE's N), at least min.
func windowConstArg(c *sqlparse.FuncCall, e sqlparse.Expr, min int64) (int64, error) {
	if l, ok := sqlparse.StripParens(e).(*sqlparse.Literal); ok {
		switch v := literalValue(l).(type) {
		case int64:
			if v >= min {
				return v, nil
			}
		case uint64:
			if v <= 1<<62 {
				return int64(v), nil
			}
		}
	}
	return 0, errorf(catalog.CodeInvalidInput, "incorrect arguments to %s (MySQL error 1210): %s", strings.ToLower(c.Name), e)
}

// frameOffset is a frame bound's constant offset.
func frameOffset(c *sqlparse.FuncCall, b sqlparse.FrameBound, rows bool) (float64, error) {
	if l, ok := sqlparse.StripParens(b.Offset).(*sqlparse.Literal); ok {
		switch v := literalValue(l).(type) {
		case int64:
			if v >= 0 {
				return float64(v), nil
			}
		case uint64:
			return float64(v), nil
		default:
			if f, ok := toNumber(v); ok && !rows && f >= 0 {
				return f, nil
			}
		}
	}
	return 0, errorf(catalog.CodeInvalidInput, "window '%s': frame bound %s must be a non-negative integer constant (MySQL error 3586)", c, b)
}

func frameBound(b sqlparse.FrameBound) exec.BoundKind {
	switch b.Kind {
	case sqlparse.UnboundedPreceding:
		return exec.UnboundedPreceding
	case sqlparse.Preceding:
		return exec.Preceding
	case sqlparse.CurrentRow:
		return exec.CurrentRow
	case sqlparse.Following:
		return exec.Following
	}
	return exec.UnboundedFollowing
}

// windowFunc plans one window call over the rows env describes: the exec
// function and its result column.
func (s *Session) windowFunc(env *rowEnv, c *sqlparse.FuncCall, slot string) (exec.WindowFunc, Column, error) {
	name := strings.ToUpper(c.Name)
	k, ok := windowKinds[name]
	switch name {
	case "GROUP_CONCAT", "JSON_ARRAYAGG", "JSON_OBJECTAGG":
		return exec.WindowFunc{}, Column{}, errorf(catalog.CodeUnsupported, "not supported: %s as a window function (MariaDB and MySQL refuse it too)", name)
	}
	if !ok {
		return exec.WindowFunc{}, Column{}, errorf(catalog.CodeUnsupported, "not supported: window function %s", name)
	}
	args, _, order := c.WindowArgs()
	if c.Star && name != "COUNT" {
		return exec.WindowFunc{}, Column{}, errorf(catalog.CodeInvalidInput, "%s(*) is not valid (only COUNT(*))", name)
	}
	if !c.Star && (len(args) < k.min || len(args) > k.max) {
		return exec.WindowFunc{}, Column{}, errorf(catalog.CodeInvalidInput, "incorrect parameter count in the call to native function '%s' (MySQL error 1582)", strings.ToLower(name))
	}
	if c.Distinct {
		return exec.WindowFunc{}, Column{}, errorf(catalog.CodeUnsupported, "not supported: '%s(DISTINCT ..)' as a window function (MySQL error 1235)", strings.ToLower(name))
	}
	for _, a := range args {
		if err := env.check(a); err != nil {
			return exec.WindowFunc{}, Column{}, err
		}
	}
	_, part, _ := c.WindowArgs()
	for _, a := range append(append([]sqlparse.Expr(nil), part...), order...) {
		if err := env.check(a); err != nil {
			return exec.WindowFunc{}, Column{}, err
		}
	}
	fn := exec.WindowFunc{Kind: k.kind}
	var col Column
	var err error
	switch k.kind {
	case exec.RowNumber, exec.Rank, exec.DenseRank:
		col = bigint(slot)
	case exec.PercentRank, exec.CumeDist:
		col = Column{Name: slot, DatabaseType: "DOUBLE"}
	case exec.Ntile:
		if fn.N, err = windowConstArg(c, args[0], 1); err != nil {
			return fn, col, err
		}
		col = bigint(slot)
	case exec.Lag, exec.Lead:
		fn.N = 1
		if len(args) > 1 {
			if fn.N, err = windowConstArg(c, args[1], 0); err != nil {
				return fn, col, err
			}
		}
		col = exprColumn(env, args[0], slot)
		col.Nullable = true
	case exec.FirstValue, exec.LastValue, exec.NthValue:
		if k.kind == exec.NthValue {
			if fn.N, err = windowConstArg(c, args[1], 1); err != nil {
				return fn, col, err
			}
		}
		col = exprColumn(env, args[0], slot)
		col.Nullable = true
	case exec.WindowAggregate:
		agg := &sqlparse.FuncCall{Name: c.Name, Aggregate: true, Star: c.Star, Args: args}
		call, err := newAggCall(env, agg)
		if err != nil {
			return fn, col, err
		}
		col = call.column(env, slot)
		fn.NewAgg = func() exec.Accumulator {
			return &aggAccumulator{a: &aggStage{calls: []aggCall{call}}, env: env, states: make([]aggState, 1)}
		}
	}
	if k.kind != exec.WindowAggregate && len(args) > 0 {
		fn.NArgs = len(args)
		fn.Args = func(dst, row []any) error {
			for i, a := range args {
				if i == 1 && (k.kind == exec.Lag || k.kind == exec.Lead || k.kind == exec.NthValue) {
					continue // the constant
				}
				v, err := env.eval(a, row)
				if err != nil {
					return err
				}
				dst[i] = v
			}
			return nil
		}
	}
	// The frame: MySQL's default, or the one written.
	fn.Frame = exec.Frame{Rows: true, Start: exec.FrameBound{Kind: exec.UnboundedPreceding}, End: exec.FrameBound{Kind: exec.UnboundedFollowing}}
	if len(order) > 0 {
		fn.Frame = exec.Frame{Start: exec.FrameBound{Kind: exec.UnboundedPreceding}, End: exec.FrameBound{Kind: exec.CurrentRow}}
	}
	if f := c.Over.Frame; f != nil {
		fn.Frame = exec.Frame{Rows: f.Rows, Start: exec.FrameBound{Kind: frameBound(f.Start)}, End: exec.FrameBound{Kind: frameBound(f.End)}}
		if f.Start.Kind == sqlparse.UnboundedFollowing || f.End.Kind == sqlparse.UnboundedPreceding ||
			int(f.Start.Kind) > int(f.End.Kind) {
			return fn, col, errorf(catalog.CodeInvalidInput, "window '%s': the frame's start cannot come after its end (MySQL error 3586)", c)
		}
		for i, b := range []sqlparse.FrameBound{f.Start, f.End} {
			if b.Kind != sqlparse.Preceding && b.Kind != sqlparse.Following {
				continue
			}
			if !f.Rows && len(order) != 1 {
				return fn, col, errorf(catalog.CodeInvalidInput, "window '%s': a RANGE frame with an offset needs exactly one ORDER BY key (MySQL error 3587)", c)
			}
			off, err := frameOffset(c, b, f.Rows)
			if err != nil {
				return fn, col, err
			}
			if i == 0 {
				fn.Frame.Start.Offset = off
			} else {
				fn.Frame.End.Offset = off
			}
		}
	}
	return fn, col, nil
}

// windowOp is the operator of a plan.Window node.
func (t *treePlan) windowOp(in exec.Operator, x *plan.Window, budget *exec.Budget) exec.Operator {
	st := t.wins[x]
	return exec.Window(in, exec.WindowSpec{
		Orders:  st.orders,
		Funcs:   st.funcs,
		Compare: compare,
		Number:  toNumber,
		Budget:  budget,
		Name:    "the Window's rows",
	})
}
