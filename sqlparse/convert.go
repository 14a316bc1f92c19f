package sqlparse

import (
	"fmt"
	"math"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// This file converts TiDB's query and expression AST into lancecat's types (expr.go, query.go).
// Statement-level features lancecat has no type for (SELECT ... INTO, FOR UPDATE / SHARE,
// TABLE/VALUES statements, WITH ROLLUP, LATERAL) are refused at the statement start; expression
// kinds without a type are refused at the expression, with its position.

// pos maps an offset of the text given to TiDB to a position in the original script.
func (c *converter) pos(tidbOffset int) Pos {
	if c.m == nil {
		return c.base.pos
	}
	return c.sc.pos(c.m.toOrig(tidbOffset))
}

func (c *converter) exprPos(n ast.ExprNode) exprPos { return exprPos{P: c.pos(n.OriginTextPosition())} }

// notSupportedAt is the "not supported: KIND" error at an expression.
func (c *converter) notSupportedAt(n ast.ExprNode, format string, args ...any) *Error {
	return c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrNotSupported, "not supported: "+fmt.Sprintf(format, args...))
}

// resultSet converts the query of a statement, a set operand, a derived table or a subquery.
func (c *converter) resultSet(n ast.Node, base stmtBase) (*Select, error) {
	switch q := n.(type) {
	case *ast.SelectStmt:
		return c.selectStmt(q, base)
	case *ast.SetOprStmt:
		s, err := c.setOprList(q.SelectList, base)
		if err != nil {
			return nil, err
		}
		if s.With, err = c.with(q.With); err != nil {
			return nil, err
		}
		return s, c.orderAndLimit(s, q.OrderBy, q.Limit)
	case *ast.SetOprSelectList:
		return c.setOprList(q, base)
	}
	return nil, c.notSupported(c.start(), "query of type %T", n)
}

func (c *converter) setOprList(l *ast.SetOprSelectList, base stmtBase) (*Select, error) {
	with, err := c.with(l.With)
	if err != nil {
		return nil, err
	}
	s := &Select{stmtBase: base, With: with}
	for i, n := range l.Selects {
		q, err := c.resultSet(n, stmtBase{pos: base.pos})
		if err != nil {
			return nil, err
		}
		op := SetOperand{Select: q}
		var after *ast.SetOprType
		switch x := n.(type) {
		case *ast.SelectStmt:
			after = x.AfterSetOperator
		case *ast.SetOprSelectList:
			after = x.AfterSetOperator
		}
		if i > 0 && after != nil {
			op.Op = map[ast.SetOprType]SetOpKind{ast.Union: Union, ast.UnionAll: UnionAll, ast.Except: Except,
				ast.ExceptAll: ExceptAll, ast.Intersect: Intersect, ast.IntersectAll: IntersectAll}[*after]
		}
		s.SetOps = append(s.SetOps, op)
	}
	return s, c.orderAndLimit(s, l.OrderBy, l.Limit)
}

func (c *converter) selectStmt(n *ast.SelectStmt, base stmtBase) (*Select, error) {
	switch {
	case n.Kind != ast.SelectStmtKindSelect:
		return nil, c.notSupported(c.start(), "TABLE and VALUES statements")
	case n.LockInfo != nil && n.LockInfo.LockType != ast.SelectLockNone:
		return nil, c.notSupported(c.start(), "SELECT ... FOR UPDATE / SHARE")
	case n.SelectIntoOpt != nil:
		return nil, c.notSupported(c.start(), "SELECT ... INTO")
	case n.GroupBy != nil && n.GroupBy.Rollup:
		return nil, c.notSupported(c.start(), "GROUP BY ... WITH ROLLUP")
	}
	s := &Select{stmtBase: base, Distinct: n.Distinct}
	outerWindows := c.windows
	defer func() { c.windows = outerWindows }()
	c.windows = windowSpecs{}
	for i := range n.WindowSpecs {
		ws := &n.WindowSpecs[i]
		if _, dup := c.windows[ws.Name.L]; dup {
			return nil, c.sc.errAt(c.start(), ErrSyntax, "window '"+ws.Name.O+"' is defined twice (MySQL error 3591)")
		}
		c.windows[ws.Name.L] = ws
	}
	if n.With != nil {
		var err error
		if s.With, err = c.with(n.With); err != nil {
			return nil, err
		}
	}
	if n.Fields != nil {
		for _, f := range n.Fields.Fields {
			it := SelectItem{Alias: f.AsName.O, Text: c.restoreNames(f.Text()), Pos: c.pos(f.Offset)}
			if f.WildCard != nil {
				it.Star = true
				it.Qualifier = c.names.Wildcard(f.WildCard)
			} else {
				e, err := c.expr(f.Expr)
				if err != nil {
					return nil, err
				}
				it.Expr = e
			}
			s.Items = append(s.Items, it)
		}
	}
	if n.From != nil && n.From.TableRefs != nil {
		f, err := c.fromItem(n.From.TableRefs)
		if err != nil {
			return nil, err
		}
		s.From = f
	}
	var err error
	if n.Where != nil {
		if s.Where, err = c.expr(n.Where); err != nil {
			return nil, err
		}
	}
	if n.GroupBy != nil {
		for _, item := range n.GroupBy.Items {
			e, err := c.byItem(item)
			if err != nil {
				return nil, err
			}
			s.GroupBy = append(s.GroupBy, e)
		}
	}
	if n.Having != nil && n.Having.Expr != nil {
		if s.Having, err = c.expr(n.Having.Expr); err != nil {
			return nil, err
		}
	}
	return s, c.orderAndLimit(s, n.OrderBy, n.Limit)
}

// restoreNames puts the multi-part names folded for TiDB back into text TiDB returned.
func (c *converter) restoreNames(text string) string {
	for ph, n := range c.names.prefixes {
		text = strings.ReplaceAll(text, "`"+ph+"`", n.String())
	}
	return text
}

func (c *converter) orderAndLimit(s *Select, ob *ast.OrderByClause, lim *ast.Limit) error {
	if ob != nil {
		for _, item := range ob.Items {
			e, err := c.byItem(item)
			if err != nil {
				return err
			}
			s.OrderBy = append(s.OrderBy, OrderItem{Expr: e, Desc: item.Desc})
		}
	}
	if lim != nil {
		s.Limit = &Limit{}
		var err error
		if s.Limit.Count, err = c.expr(lim.Count); err != nil {
			return err
		}
		if lim.Offset != nil {
			if s.Limit.Offset, err = c.expr(lim.Offset); err != nil {
				return err
			}
		}
	}
	return nil
}

// byItem converts an ORDER BY or GROUP BY item: a position (ORDER BY 2) or an expression.
func (c *converter) byItem(item *ast.ByItem) (Expr, error) {
	if p, ok := item.Expr.(*ast.PositionExpr); ok {
		if p.P != nil {
			return nil, c.notSupportedAt(p, "a placeholder as an ORDER BY or GROUP BY position")
		}
		return &ColumnPosition{exprPos: c.exprPos(p), N: p.N}, nil
	}
	return c.expr(item.Expr)
}

func (c *converter) fromItem(n ast.ResultSetNode) (FromItem, error) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Right == nil {
			return c.fromItem(x.Left)
		}
		j := &Join{Kind: InnerJoin, Natural: x.NaturalJoin}
		switch x.Tp {
		case ast.LeftJoin:
			j.Kind = LeftJoin
		case ast.RightJoin:
			j.Kind = RightJoin
		}
		if x.StraightJoin && c.m != nil && c.m.fullJoins > 0 {
			if c.m.straightJoins > 0 {
				return nil, c.notSupported(c.start(), "FULL JOIN and STRAIGHT_JOIN in one statement")
			}
			j.Kind = FullJoin
		}
		var err error
		if j.Left, err = c.fromItem(x.Left); err != nil {
			return nil, err
		}
		if j.Right, err = c.fromItem(x.Right); err != nil {
			return nil, err
		}
		if x.On != nil {
			if j.On, err = c.expr(x.On.Expr); err != nil {
				return nil, err
			}
		}
		for _, u := range x.Using {
			j.Using = append(j.Using, u.Name.O)
		}
		return j, nil
	case *ast.TableSource:
		ts := &TableSource{Alias: x.AsName.O, Pos: c.base.pos}
		if x.Lateral || len(x.ColumnNames) > 0 {
			return nil, c.notSupported(c.start(), "LATERAL and derived column lists")
		}
		switch src := x.Source.(type) {
		case *ast.TableName:
			if len(src.PartitionNames) > 0 || src.TableSample != nil {
				return nil, c.notSupported(c.start(), "PARTITION and TABLESAMPLE")
			}
			ts.Table = c.names.Table(src)
			if src.AsOf != nil {
				e, err := c.expr(src.AsOf.TsExpr)
				if err != nil {
					return nil, err
				}
				ts.AsOf = e
			}
			ts.IgnoreIndex = ignoredIndices(src)
		case *ast.SelectStmt, *ast.SetOprStmt:
			q, err := c.resultSet(src, stmtBase{pos: c.base.pos})
			if err != nil {
				return nil, err
			}
			ts.Subquery = q
		default:
			return nil, c.notSupported(c.start(), "FROM item of type %T", src)
		}
		return ts, nil
	case *ast.TableName:
		return &TableSource{Table: c.names.Table(x), Pos: c.base.pos, IgnoreIndex: ignoredIndices(x)}, nil
	}
	return nil, c.notSupported(c.start(), "FROM item of type %T", n)
}

// ignoredIndices lists the names of a table's IGNORE INDEX hints.
func ignoredIndices(t *ast.TableName) []string {
	var out []string
	for _, h := range t.IndexHints {
		if h.HintType == ast.HintIgnore {
			for _, n := range h.IndexNames {
				out = append(out, n.O)
			}
		}
	}
	return out
}

var binaryOps = map[opcode.Op]BinaryOp{
	opcode.LogicAnd: OpAnd, opcode.LogicOr: OpOr, opcode.LogicXor: OpXor, opcode.EQ: OpEQ, opcode.NE: OpNE,
	opcode.LT: OpLT, opcode.LE: OpLE, opcode.GT: OpGT, opcode.GE: OpGE, opcode.NullEQ: OpNullEQ,
	opcode.Plus: OpAdd, opcode.Minus: OpSub, opcode.Mul: OpMul, opcode.Div: OpDiv, opcode.IntDiv: OpIntDiv,
	opcode.Mod: OpMod, opcode.And: OpBitAnd, opcode.Or: OpBitOr, opcode.Xor: OpBitXor,
	opcode.LeftShift: OpShiftLeft, opcode.RightShift: OpShiftRight,
}

var unaryOps = map[opcode.Op]UnaryOp{opcode.Not: OpNot, opcode.Not2: OpNot, opcode.Minus: OpNeg,
	opcode.Plus: OpPlus, opcode.BitNeg: OpBitNeg}

// specialSyntaxFuncs are functions TiDB parses with their own syntax (CONVERT(x USING cs),
// EXTRACT(unit FROM x), TRIM(LEADING ...), DATE 'lit', ...), which FuncCall cannot represent.
var specialSyntaxFuncs = map[string]bool{
	"convert": true, "adddate": true, "subdate": true, "date_add": true, "date_sub": true,
	"extract": true, "position": true, "trim": true, ast.WeightString: true, ast.DateLiteral: true,
	ast.TimeLiteral: true, ast.TimestampLiteral: true, ast.JSONMemberOf: true, "get_format": true,
	"timestampadd": true, "timestampdiff": true, "char": true,
}

// binaryChain converts a binary operation and the left-deep chain of binary
// operations under it (1+1+...+1, a OR b OR ...) iteratively: the parser
// builds such a chain as deep as it is long, and one recursive call per
// link would put its length on the goroutine stack.
func (c *converter) binaryChain(n *ast.BinaryOperationExpr) (Expr, error) {
	spine := []*ast.BinaryOperationExpr{n}
	for {
		l, ok := spine[len(spine)-1].L.(*ast.BinaryOperationExpr)
		if !ok {
			break
		}
		spine = append(spine, l)
	}
	acc, err := c.expr(spine[len(spine)-1].L)
	if err != nil {
		return nil, err
	}
	for i := len(spine) - 1; i >= 0; i-- {
		b := spine[i]
		op, ok := binaryOps[b.Op]
		if !ok {
			return nil, c.notSupportedAt(b, "operator %s", b.Op)
		}
		r, err := c.expr(b.R)
		if err != nil {
			return nil, err
		}
		acc = &Binary{exprPos: c.exprPos(b), Op: op, L: acc, R: r}
	}
	return acc, nil
}

// expr converts an expression.
func (c *converter) expr(e ast.ExprNode) (Expr, error) {
	switch n := e.(type) {
	case *ast.ParenthesesExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		return &Paren{exprPos: c.exprPos(n), X: x}, nil
	case *ast.ColumnNameExpr:
		q, col := c.names.Column(n.Name)
		return &ColumnRef{exprPos: c.exprPos(n), Qualifier: q, Column: col}, nil
	case *ast.ValuesExpr:
		// VALUES(col) of ON DUPLICATE KEY UPDATE: the planner reads it.
		if n.Column == nil {
			return nil, c.notSupportedAt(n, "VALUES()")
		}
		q, col := c.names.Column(n.Column.Name)
		return &FuncCall{exprPos: c.exprPos(n), Name: "values", Args: []Expr{&ColumnRef{exprPos: c.exprPos(n), Qualifier: q, Column: col}}}, nil
	case ast.ParamMarkerExpr:
		c.params++
		return &Param{exprPos: c.exprPos(n), Ordinal: c.params}, nil
	case ast.ValueExpr:
		return c.literal(n)
	case *ast.UnaryOperationExpr:
		op, ok := unaryOps[n.Op]
		if !ok {
			return nil, c.notSupportedAt(n, "operator %s", n.Op)
		}
		x, err := c.expr(n.V)
		if err != nil {
			return nil, err
		}
		return &Unary{exprPos: c.exprPos(n), Op: op, X: x}, nil
	case *ast.BinaryOperationExpr:
		return c.binaryChain(n)
	case *ast.IsNullExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		return &IsNull{exprPos: c.exprPos(n), X: x, Not: n.Not}, nil
	case *ast.IsTruthExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		return &IsTruth{exprPos: c.exprPos(n), X: x, Not: n.Not, True: n.True != 0}, nil
	case *ast.PatternInExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		in := &InList{exprPos: c.exprPos(n), X: x, Not: n.Not}
		if n.Sel != nil {
			sq, ok := n.Sel.(*ast.SubqueryExpr)
			if !ok {
				return nil, c.notSupportedAt(n, "IN over %T", n.Sel)
			}
			if in.Subquery, err = c.resultSet(sq.Query, stmtBase{pos: c.pos(sq.OriginTextPosition())}); err != nil {
				return nil, err
			}
			return in, nil
		}
		in.List = []Expr{}
		for _, item := range n.List {
			v, err := c.expr(item)
			if err != nil {
				return nil, err
			}
			in.List = append(in.List, v)
		}
		return in, nil
	case *ast.BetweenExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		lo, err := c.expr(n.Left)
		if err != nil {
			return nil, err
		}
		hi, err := c.expr(n.Right)
		if err != nil {
			return nil, err
		}
		return &Between{exprPos: c.exprPos(n), X: x, Lo: lo, Hi: hi, Not: n.Not}, nil
	case *ast.PatternLikeOrIlikeExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		p, err := c.expr(n.Pattern)
		if err != nil {
			return nil, err
		}
		return &Like{exprPos: c.exprPos(n), X: x, Pattern: p, Not: n.Not, CaseInsensitive: !n.IsLike, Escape: n.Escape}, nil
	case *ast.FuncCallExpr:
		if n.Schema.O != "" {
			return nil, c.notSupportedAt(n, "qualified function name %s.%s", n.Schema.O, n.FnName.O)
		}
		if f, ok, err := c.specialFunc(n); ok || err != nil {
			return f, err
		}
		if n.FnName.L == "fts_match_word" {
			return c.ftsMatchWord(n)
		}
		name := n.FnName.O
		if n.Tp == ast.FuncCallExprTypeKeyword {
			name = strings.ToUpper(name) // a function named by a keyword (CONCAT, IF, LEFT, ...)
		}
		f := &FuncCall{exprPos: c.exprPos(n), Name: name, Args: []Expr{}}
		for _, a := range n.Args {
			v, err := c.expr(a)
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, v)
		}
		return f, nil
	case *ast.AggregateFuncExpr:
		if strings.EqualFold(n.F, ast.AggFuncGroupConcat) {
			return c.groupConcat(n)
		}
		if n.Order != nil {
			return nil, c.notSupportedAt(n, "aggregate %s with ORDER BY", strings.ToUpper(n.F))
		}
		f := &FuncCall{exprPos: c.exprPos(n), Name: n.F, Aggregate: true, Distinct: n.Distinct, Args: []Expr{}}
		if strings.EqualFold(n.F, ast.AggFuncCount) && c.starAt(n.OriginTextPosition()) {
			f.Star = true
			return f, nil
		}
		for _, a := range n.Args {
			v, err := c.expr(a)
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, v)
		}
		return f, nil
	case *ast.SubqueryExpr:
		q, err := c.resultSet(n.Query, stmtBase{pos: c.pos(n.OriginTextPosition())})
		if err != nil {
			return nil, err
		}
		return &Subquery{exprPos: c.exprPos(n), Select: q}, nil
	case *ast.ExistsSubqueryExpr:
		sq, ok := n.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, c.notSupportedAt(n, "EXISTS over %T", n.Sel)
		}
		q, err := c.resultSet(sq.Query, stmtBase{pos: c.pos(sq.OriginTextPosition())})
		if err != nil {
			return nil, err
		}
		return &Exists{exprPos: c.exprPos(n), Select: q, Not: n.Not}, nil
	case *ast.CaseExpr:
		return c.caseExpr(n)
	case *ast.FuncCastExpr:
		if n.FunctionType == ast.CastBinaryOperator {
			// BINARY x compares x byte by byte: lancecat compares every
			// string so (utf8mb4_bin), so it is x itself.
			return c.expr(n.Expr)
		}
		return c.castExpr(n)
	case *ast.VariableExpr:
		if n.Value != nil {
			return nil, c.notSupportedAt(n, "assigning a variable in an expression (@x := ...)")
		}
		v := &Variable{exprPos: c.exprPos(n), Name: n.Name, Explicit: n.ExplicitScope}
		switch {
		case !n.IsSystem:
			v.Scope = ScopeUser
		case n.IsGlobal:
			v.Scope = ScopeGlobal
			v.Name = strings.ToLower(n.Name)
		default:
			v.Name = strings.ToLower(n.Name)
		}
		return v, nil
	case *ast.RowExpr:
		return nil, c.notSupportedAt(n, "row constructors")
	case *ast.CompareSubqueryExpr:
		op, ok := binaryOps[n.Op]
		if !ok || !op.IsComparison() || op == OpNullEQ {
			return nil, c.notSupportedAt(n, "operator %s with ANY / ALL", n.Op)
		}
		sq, ok := n.R.(*ast.SubqueryExpr)
		if !ok {
			return nil, c.notSupportedAt(n, "ANY / ALL over %T", n.R)
		}
		x, err := c.expr(n.L)
		if err != nil {
			return nil, err
		}
		q, err := c.resultSet(sq.Query, stmtBase{pos: c.pos(sq.OriginTextPosition())})
		if err != nil {
			return nil, err
		}
		return &Quantified{exprPos: c.exprPos(n), X: x, Op: op, All: n.All, Select: q}, nil
	case *ast.PatternRegexpExpr:
		x, err := c.expr(n.Expr)
		if err != nil {
			return nil, err
		}
		p, err := c.expr(n.Pattern)
		if err != nil {
			return nil, err
		}
		return &Regexp{exprPos: c.exprPos(n), X: x, Pattern: p, Not: n.Not}, nil
	case *ast.WindowFuncExpr:
		return c.windowFunc(n)
	case *ast.DefaultExpr:
		return nil, c.notSupportedAt(n, "DEFAULT outside INSERT ... VALUES")
	case *ast.PositionExpr:
		return nil, c.notSupportedAt(n, "a position outside ORDER BY and GROUP BY")
	case *ast.MatchAgainst:
		return c.matchAgainst(n)
	}
	return nil, c.notSupportedAt(e, "expression %s", restoreTiDB(e))
}

// starAt reports whether the tokens at a TiDB offset read `name ( * )` (COUNT(*), which TiDB
// parses as COUNT(1)).
func (c *converter) starAt(tidbOffset int) bool {
	orig := c.m.toOrig(tidbOffset)
	for i, t := range c.toks {
		if t.start == orig {
			return i+2 < len(c.toks) && c.toks[i+1].isPunct("(") && c.toks[i+2].isPunct("*")
		}
	}
	return false
}

// literal converts a TiDB literal.
func (c *converter) literal(n ast.ValueExpr) (Expr, error) {
	lit := &Literal{exprPos: c.exprPos(n)}
	switch v := n.GetValue().(type) {
	case nil:
		lit.Kind = LitNull
	case int64:
		if n.GetType().GetFlag()&mysql.IsBooleanFlag != 0 {
			lit.Kind, lit.Value = LitBool, v != 0
		} else {
			lit.Kind, lit.Value = LitInt, v
		}
	case uint64:
		if v <= math.MaxInt64 {
			lit.Kind, lit.Value = LitInt, int64(v)
		} else {
			lit.Kind, lit.Value = LitUint, v
		}
	case float64:
		lit.Kind, lit.Value = LitFloat, v
	case float32:
		lit.Kind, lit.Value = LitFloat, float64(v)
	case string:
		lit.Kind, lit.Value = LitString, v
	case []byte:
		lit.Kind, lit.Value = LitBinary, append([]byte{}, v...)
	case test_driver.BinaryLiteral:
		lit.Kind, lit.Value = LitBinary, append([]byte{}, v...)
	case *test_driver.MyDecimal:
		lit.Kind, lit.Value = LitDecimal, Decimal(v.String())
	default:
		return nil, c.notSupportedAt(n, "literal %s", restoreTiDB(n))
	}
	return lit, nil
}

// insert converts INSERT INTO ... VALUES | SELECT.
func (c *converter) insert(n *ast.InsertStmt) (Statement, error) {
	switch {
	case n.Setlist:
		return nil, c.notSupported(c.start(), "INSERT ... SET (use INSERT ... VALUES)")
	case n.IsReplace && len(n.OnDuplicate) > 0:
		return nil, c.notSupported(c.start(), "REPLACE ... ON DUPLICATE KEY UPDATE")
	case len(n.PartitionNames) > 0:
		return nil, c.notSupported(c.start(), "INSERT ... PARTITION")
	}
	st := &Insert{stmtBase: c.base, Replace: n.IsReplace, Ignore: n.IgnoreErr}
	if n.Table == nil || n.Table.TableRefs == nil {
		return nil, c.sc.errAt(c.start(), ErrSyntax, "INSERT without a table")
	}
	f, err := c.fromItem(n.Table.TableRefs)
	if err != nil {
		return nil, err
	}
	ts, ok := f.(*TableSource)
	if !ok || ts.Table == nil {
		return nil, c.notSupported(c.start(), "INSERT into a join or subquery")
	}
	st.Table = ts.Table
	for _, cn := range n.Columns {
		st.Columns = append(st.Columns, c.columnName(cn))
	}
	for _, a := range n.OnDuplicate {
		v, err := c.expr(a.Expr)
		if err != nil {
			return nil, err
		}
		st.OnDuplicate = append(st.OnDuplicate, Assignment{Column: c.columnName(a.Column), Value: v})
	}
	if n.Select != nil {
		if st.Query, err = c.resultSet(n.Select, stmtBase{pos: c.base.pos}); err != nil {
			return nil, err
		}
		return st, nil
	}
	st.Rows = [][]Expr{}
	for _, list := range n.Lists {
		row := make([]Expr, 0, len(list))
		for _, e := range list {
			if d, ok := e.(*ast.DefaultExpr); ok && d.Name == nil {
				row = append(row, &Default{exprPos: c.exprPos(d)})
				continue
			}
			v, err := c.expr(e)
			if err != nil {
				return nil, err
			}
			row = append(row, v)
		}
		st.Rows = append(st.Rows, row)
	}
	return st, nil
}

// columnName converts a column name that is not an expression (INSERT columns, assignment
// targets); TiDB keeps no position for it, so it gets the statement's.
func (c *converter) columnName(cn *ast.ColumnName) *ColumnRef {
	q, col := c.names.Column(cn)
	return &ColumnRef{exprPos: exprPos{P: c.base.pos}, Qualifier: q, Column: col}
}

// restoreTiDB prints a TiDB node as SQL (for messages about nodes lancecat has no type for).
func restoreTiDB(n ast.Node) string {
	var b strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordUppercase|format.RestoreSpacesAroundBinaryOperation|format.RestoreStringWithoutCharset, &b)
	if err := n.Restore(ctx); err != nil {
		return fmt.Sprintf("%T", n)
	}
	return b.String()
}

// matchAgainst converts MATCH (cols) AGAINST (query [modifier]).
func (c *converter) matchAgainst(n *ast.MatchAgainst) (Expr, error) {
	if n.Modifier.WithQueryExpansion() {
		return nil, c.notSupportedAt(n, "MATCH ... AGAINST WITH QUERY EXPANSION")
	}
	m := &Match{exprPos: c.exprPos(n), Boolean: n.Modifier.IsBooleanMode()}
	for _, col := range n.ColumnNames {
		ref, err := c.expr(&ast.ColumnNameExpr{Name: col})
		if err != nil {
			return nil, err
		}
		r, ok := ref.(*ColumnRef)
		if !ok {
			return nil, c.notSupportedAt(n, "MATCH over %s", ref)
		}
		r.P = m.P
		m.Columns = append(m.Columns, r)
	}
	q, err := c.expr(n.Against)
	if err != nil {
		return nil, err
	}
	m.Query = q
	return m, nil
}

// ftsMatchWord converts TiDB's FTS_MATCH_WORD('query', col).
func (c *converter) ftsMatchWord(n *ast.FuncCallExpr) (Expr, error) {
	if len(n.Args) != 2 {
		return nil, c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrSyntax, "FTS_MATCH_WORD takes two arguments: FTS_MATCH_WORD('query', column)")
	}
	q, err := c.expr(n.Args[0])
	if err != nil {
		return nil, err
	}
	col, err := c.expr(n.Args[1])
	if err != nil {
		return nil, err
	}
	ref, ok := col.(*ColumnRef)
	if !ok {
		return nil, c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrSyntax, "FTS_MATCH_WORD's second argument must be a column")
	}
	return &Match{exprPos: c.exprPos(n), Columns: []*ColumnRef{ref}, Query: q, Word: true}, nil
}

// with converts a WITH clause (nil: none). Under WITH RECURSIVE every CTE
// is marked Recursive; the planner decides which of them refer to
// themselves and checks MySQL's restrictions on those.
func (c *converter) with(w *ast.WithClause) ([]CTE, error) {
	if w == nil {
		return nil, nil
	}
	var out []CTE
	for _, cte := range w.CTEs {
		if cte.Query == nil {
			return nil, c.notSupported(c.start(), "a common table expression without a query")
		}
		q, err := c.resultSet(cte.Query.Query, stmtBase{pos: c.pos(cte.Query.OriginTextPosition())})
		if err != nil {
			return nil, err
		}
		def := CTE{Name: cte.Name.O, Select: q, Recursive: w.IsRecursive, Pos: c.pos(cte.Query.OriginTextPosition())}
		for _, n := range cte.ColNameList {
			def.Columns = append(def.Columns, n.O)
		}
		out = append(out, def)
	}
	return out, nil
}
