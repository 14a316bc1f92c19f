package sqlparse

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/charset"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// The SQL forms with their own syntax are converted to plain function
// calls (FuncCall), so that every consumer walks, copies and evaluates
// them as calls; String prints them back in their own syntax:
//
//	CASE WHEN c THEN r ... [ELSE e] END    FuncCaseSearched(c, r, ..., [e])
//	CASE v WHEN w THEN r ... [ELSE e] END  FuncCaseSimple(v, w, r, ..., [e])
//	CAST(x AS t), CONVERT(x, t)            CAST(x, 't')  t as in CastType
//	CONVERT(x USING cs)                    CAST(x, 'CHAR')
//	DATE 'lit', TIME 'lit', TIMESTAMP 'lit' CAST('lit', 'DATE'|'TIME'|'DATETIME')
//	DATE_ADD(d, INTERVAL n u), d + INTERVAL n u, ADDDATE(d, n)
//	                                       DATE_ADD(d, n, 'U') (DATE_SUB alike)
//	EXTRACT(u FROM d)                      EXTRACT('U', d)
//	TIMESTAMPDIFF(u, a, b)                 TIMESTAMPDIFF('U', a, b) (TIMESTAMPADD alike)
//	TRIM([BOTH|LEADING|TRAILING] [r] FROM s) TRIM(s[, r[, 'BOTH'|'LEADING'|'TRAILING']])
//	POSITION(a IN b)                       LOCATE(a, b)
//
// The two CASE names hold a space, so no statement can call them by name.
const (
	FuncCaseSearched = "CASE WHEN"
	FuncCaseSimple   = "CASE"
	FuncCast         = "CAST"
	// FuncMemberOf is x MEMBER OF (json_array): MEMBER OF(x, json_array).
	FuncMemberOf = "MEMBER OF"
)

// specialFunc converts the function calls TiDB parses with their own
// syntax; ok is false for an ordinary call.
func (c *converter) specialFunc(n *ast.FuncCallExpr) (Expr, bool, error) {
	switch n.FnName.L {
	case ast.DateLiteral, ast.TimeLiteral, ast.TimestampLiteral:
		t := map[string]string{ast.DateLiteral: "DATE", ast.TimeLiteral: "TIME", ast.TimestampLiteral: "DATETIME"}[n.FnName.L]
		if len(n.Args) != 1 {
			return nil, true, c.notSupportedAt(n, "%s literal", t)
		}
		x, err := c.expr(n.Args[0])
		if err != nil {
			return nil, true, err
		}
		return &FuncCall{exprPos: c.exprPos(n), Name: FuncCast, Args: []Expr{x, c.stringLit(n, t)}}, true, nil
	case "convert":
		// CONVERT(x USING charset): lancecat's strings are UTF-8 text.
		if len(n.Args) != 2 {
			return nil, true, c.notSupportedAt(n, "CONVERT")
		}
		x, err := c.expr(n.Args[0])
		if err != nil {
			return nil, true, err
		}
		return &FuncCall{exprPos: c.exprPos(n), Name: FuncCast, Args: []Expr{x, c.stringLit(n, "CHAR")}}, true, nil
	case "date_add", "date_sub", "adddate", "subdate", "extract", "timestampdiff", "timestampadd", "trim":
		name := strings.ToUpper(n.FnName.L)
		f := &FuncCall{exprPos: c.exprPos(n), Name: name, Args: []Expr{}}
		for _, a := range n.Args {
			var v Expr
			var err error
			switch x := a.(type) {
			case *ast.TimeUnitExpr:
				v = c.stringLit(n, x.Unit.String())
			case *ast.TrimDirectionExpr:
				v = c.stringLit(n, x.Direction.String())
			default:
				v, err = c.expr(a)
			}
			if err != nil {
				return nil, true, err
			}
			f.Args = append(f.Args, v)
		}
		return f, true, nil
	case ast.JSONMemberOf:
		f := &FuncCall{exprPos: c.exprPos(n), Name: FuncMemberOf, Args: []Expr{}}
		for _, a := range n.Args {
			v, err := c.expr(a)
			if err != nil {
				return nil, true, err
			}
			f.Args = append(f.Args, v)
		}
		return f, true, nil
	case "position":
		f := &FuncCall{exprPos: c.exprPos(n), Name: "LOCATE", Args: []Expr{}}
		for _, a := range n.Args {
			v, err := c.expr(a)
			if err != nil {
				return nil, true, err
			}
			f.Args = append(f.Args, v)
		}
		return f, true, nil
	}
	if specialSyntaxFuncs[n.FnName.L] {
		return nil, true, c.notSupportedAt(n, "function %s", strings.ToUpper(n.FnName.O))
	}
	return nil, false, nil
}

func (c *converter) stringLit(at ast.ExprNode, s string) *Literal {
	return &Literal{exprPos: c.exprPos(at), Kind: LitString, Value: s}
}

func (c *converter) caseExpr(n *ast.CaseExpr) (Expr, error) {
	f := &FuncCall{exprPos: c.exprPos(n), Name: FuncCaseSearched, Args: []Expr{}}
	add := func(e ast.ExprNode) error {
		v, err := c.expr(e)
		if err == nil {
			f.Args = append(f.Args, v)
		}
		return err
	}
	if n.Value != nil {
		f.Name = FuncCaseSimple
		if err := add(n.Value); err != nil {
			return nil, err
		}
	}
	for _, w := range n.WhenClauses {
		if err := add(w.Expr); err != nil {
			return nil, err
		}
		if err := add(w.Result); err != nil {
			return nil, err
		}
	}
	if n.ElseClause != nil {
		if err := add(n.ElseClause); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (c *converter) castExpr(n *ast.FuncCastExpr) (Expr, error) {
	x, err := c.expr(n.Expr)
	if err != nil {
		return nil, err
	}
	t, ok := castType(n)
	if !ok {
		return nil, c.notSupportedAt(n, "CAST to %s", restoreTiDB(n))
	}
	return &FuncCall{exprPos: c.exprPos(n), Name: FuncCast, Args: []Expr{x, c.stringLit(n, t)}}, nil
}

// castType spells a cast's target type: SIGNED, UNSIGNED, DECIMAL(p,s),
// DOUBLE, FLOAT, CHAR[(n)], BINARY[(n)], DATE, DATETIME[(fsp)],
// TIME[(fsp)], YEAR, JSON.
func castType(n *ast.FuncCastExpr) (string, bool) {
	tp := n.Tp
	withLen := func(name string, l int) string {
		if l >= 0 {
			return fmt.Sprintf("%s(%d)", name, l)
		}
		return name
	}
	switch tp.GetType() {
	case mysql.TypeLonglong:
		if mysql.HasUnsignedFlag(tp.GetFlag()) {
			return "UNSIGNED", true
		}
		return "SIGNED", true
	case mysql.TypeNewDecimal:
		p, s := tp.GetFlen(), tp.GetDecimal()
		if p < 0 {
			p = 10
		}
		if s < 0 {
			s = 0
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", p, s), true
	case mysql.TypeDouble:
		return "DOUBLE", true
	case mysql.TypeFloat:
		return "FLOAT", true
	case mysql.TypeVarString, mysql.TypeString, mysql.TypeVarchar:
		if tp.GetCharset() == charset.CharsetBin {
			return withLen("BINARY", tp.GetFlen()), true
		}
		return withLen("CHAR", tp.GetFlen()), true
	case mysql.TypeDate:
		return "DATE", true
	case mysql.TypeDatetime, mysql.TypeTimestamp:
		return withLen("DATETIME", fsp(tp.GetDecimal())), true
	case mysql.TypeDuration:
		return withLen("TIME", fsp(tp.GetDecimal())), true
	case mysql.TypeYear:
		return "YEAR", true
	case mysql.TypeJSON:
		return "JSON", true
	}
	return "", false
}

// fsp is a fractional precision to print (-1: none, for 0 or unset).
func fsp(d int) int {
	if d <= 0 {
		return -1
	}
	return d
}

// specialString prints the calls of the special syntax in that syntax
// ("" for an ordinary call).
func (e *FuncCall) specialString() string {
	lit := func(i int) (string, bool) {
		if i >= len(e.Args) {
			return "", false
		}
		l, ok := e.Args[i].(*Literal)
		if !ok || l.Kind != LitString {
			return "", false
		}
		s, ok := l.Value.(string)
		return s, ok
	}
	switch strings.ToUpper(e.Name) {
	case FuncCaseSearched, FuncCaseSimple:
		var b strings.Builder
		b.WriteString("CASE")
		args := e.Args
		if strings.ToUpper(e.Name) == FuncCaseSimple && len(args) > 0 {
			b.WriteString(" " + args[0].String())
			args = args[1:]
		}
		for i := 0; i+1 < len(args); i += 2 {
			b.WriteString(" WHEN " + args[i].String() + " THEN " + args[i+1].String())
		}
		if len(args)%2 == 1 {
			b.WriteString(" ELSE " + args[len(args)-1].String())
		}
		b.WriteString(" END")
		return b.String()
	case FuncMemberOf:
		if len(e.Args) == 2 {
			return e.Args[0].String() + " MEMBER OF (" + e.Args[1].String() + ")"
		}
	case FuncCast:
		if t, ok := lit(1); ok && len(e.Args) == 2 {
			return "CAST(" + e.Args[0].String() + " AS " + t + ")"
		}
	case "DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE":
		if u, ok := lit(2); ok && len(e.Args) == 3 {
			return strings.ToUpper(e.Name) + "(" + e.Args[0].String() + ", INTERVAL " + e.Args[1].String() + " " + u + ")"
		}
	case "EXTRACT":
		if u, ok := lit(0); ok && len(e.Args) == 2 {
			return "EXTRACT(" + u + " FROM " + e.Args[1].String() + ")"
		}
	case "TIMESTAMPDIFF", "TIMESTAMPADD":
		if u, ok := lit(0); ok && len(e.Args) == 3 {
			return strings.ToUpper(e.Name) + "(" + u + ", " + e.Args[1].String() + ", " + e.Args[2].String() + ")"
		}
	case "TRIM":
		if d, ok := lit(2); ok && len(e.Args) == 3 {
			return "TRIM(" + d + " " + e.Args[1].String() + " FROM " + e.Args[0].String() + ")"
		}
		if len(e.Args) == 2 {
			return "TRIM(" + e.Args[1].String() + " FROM " + e.Args[0].String() + ")"
		}
	}
	return ""
}
