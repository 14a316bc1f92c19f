package sqlparse

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Delete is DELETE FROM table [WHERE expr].
type Delete struct {
	stmtBase
	Table Name
	Alias string // DELETE FROM t AS a / DELETE a FROM t AS a; "" without
	Where Expr   // nil: every row
	// OrderBy and Limit: DELETE ... [ORDER BY ...] LIMIT n deletes the
	// first n matching rows in that order (Limit nil: every match).
	OrderBy []OrderItem
	Limit   *Limit
}

// Update is UPDATE table SET col = expr [, ...] [WHERE expr].
type Update struct {
	stmtBase
	Table Name
	Alias string // UPDATE t AS a; "" without
	Set   []Assignment
	Where Expr // nil: every row
}

// singleTableTarget converts the one table of a single-table DELETE or
// UPDATE and its alias.
func (c *converter) singleTableTarget(refs *ast.TableRefsClause, what string) (Name, string, error) {
	if refs == nil || refs.TableRefs == nil {
		return nil, "", c.sc.errAt(c.start(), ErrSyntax, what+" without a table")
	}
	f, err := c.fromItem(refs.TableRefs)
	if err != nil {
		return nil, "", err
	}
	ts, ok := f.(*TableSource)
	if !ok || ts.Table == nil {
		return nil, "", c.notSupported(c.start(), "%s of several tables, a join or a subquery", what)
	}
	return ts.Table, ts.Alias, nil
}

func (c *converter) deleteStmt(n *ast.DeleteStmt) (Statement, error) {
	switch {
	case n.IsMultiTable && n.Order != nil, n.IsMultiTable && n.Limit != nil:
		return nil, c.sc.errAt(c.start(), ErrSyntax, "multi-table DELETE cannot have ORDER BY or LIMIT")
	case n.IgnoreErr:
		return nil, c.notSupported(c.start(), "DELETE IGNORE")
	case n.With != nil:
		return nil, c.notSupported(c.start(), "WITH ... DELETE")
	}
	st := &Delete{stmtBase: c.base}
	var err error
	if st.Table, st.Alias, err = c.singleTableTarget(n.TableRefs, "DELETE"); err != nil {
		return nil, err
	}
	if n.IsMultiTable {
		// DELETE t FROM t [AS a] WHERE ...: the multi-table form naming its
		// one table (by name or alias) is a single-table DELETE.
		if n.Tables == nil || len(n.Tables.Tables) != 1 {
			return nil, c.notSupported(c.start(), "multi-table DELETE")
		}
		target := c.names.Table(n.Tables.Tables[0])
		single := len(target) == 1 && (strings.EqualFold(target[0], st.Alias) || (st.Alias == "" && strings.EqualFold(target[0], st.Table[len(st.Table)-1])))
		if !single && !slices.Equal(target, st.Table) {
			return nil, c.sc.errAt(c.start(), ErrSyntax, "unknown table "+QuoteIdent(target[len(target)-1])+" in multi-table DELETE")
		}
	}
	if n.Where != nil {
		if st.Where, err = c.expr(n.Where); err != nil {
			return nil, err
		}
	}
	if n.Order != nil || n.Limit != nil {
		var q Select
		if err := c.orderAndLimit(&q, n.Order, n.Limit); err != nil {
			return nil, err
		}
		if q.Limit != nil && q.Limit.Offset != nil {
			return nil, c.sc.errAt(c.start(), ErrSyntax, "DELETE ... LIMIT takes no OFFSET")
		}
		st.OrderBy, st.Limit = q.OrderBy, q.Limit
	}
	return st, nil
}

func (c *converter) updateStmt(n *ast.UpdateStmt) (Statement, error) {
	switch {
	case n.MultipleTable:
		return nil, c.notSupported(c.start(), "multi-table UPDATE")
	case n.Order != nil || n.Limit != nil:
		return nil, c.notSupported(c.start(), "UPDATE ... ORDER BY / LIMIT")
	case n.IgnoreErr:
		return nil, c.notSupported(c.start(), "UPDATE IGNORE")
	case n.With != nil:
		return nil, c.notSupported(c.start(), "WITH ... UPDATE")
	}
	st := &Update{stmtBase: c.base}
	var err error
	if st.Table, st.Alias, err = c.singleTableTarget(n.TableRefs, "UPDATE"); err != nil {
		return nil, err
	}
	for _, a := range n.List {
		var v Expr
		if d, ok := a.Expr.(*ast.DefaultExpr); ok && d.Name == nil {
			v = &Default{exprPos: c.exprPos(d)}
		} else if v, err = c.expr(a.Expr); err != nil {
			return nil, err
		}
		st.Set = append(st.Set, Assignment{Column: c.columnName(a.Column), Value: v})
	}
	if n.Where != nil {
		if st.Where, err = c.expr(n.Where); err != nil {
			return nil, err
		}
	}
	return st, nil
}
