package sqlparse

import "github.com/pingcap/tidb/pkg/parser/ast"

// Delete is DELETE FROM table [WHERE expr].
type Delete struct {
	stmtBase
	Table Name
	Where Expr // nil: every row
}

// Update is UPDATE table SET col = expr [, ...] [WHERE expr].
type Update struct {
	stmtBase
	Table Name
	Set   []Assignment
	Where Expr // nil: every row
}

// singleTableTarget converts the one table of a single-table DELETE or UPDATE.
func (c *converter) singleTableTarget(refs *ast.TableRefsClause, what string) (Name, error) {
	if refs == nil || refs.TableRefs == nil {
		return nil, c.sc.errAt(c.start(), ErrSyntax, what+" without a table")
	}
	f, err := c.fromItem(refs.TableRefs)
	if err != nil {
		return nil, err
	}
	ts, ok := f.(*TableSource)
	if !ok || ts.Table == nil {
		return nil, c.notSupported(c.start(), "%s of several tables, a join or a subquery", what)
	}
	if ts.Alias != "" {
		return nil, c.notSupported(c.start(), "a table alias in %s", what)
	}
	return ts.Table, nil
}

func (c *converter) deleteStmt(n *ast.DeleteStmt) (Statement, error) {
	switch {
	case n.IsMultiTable:
		return nil, c.notSupported(c.start(), "multi-table DELETE")
	case n.Order != nil || n.Limit != nil:
		return nil, c.notSupported(c.start(), "DELETE ... ORDER BY / LIMIT")
	case n.IgnoreErr:
		return nil, c.notSupported(c.start(), "DELETE IGNORE")
	case n.With != nil:
		return nil, c.notSupported(c.start(), "WITH ... DELETE")
	}
	st := &Delete{stmtBase: c.base}
	var err error
	if st.Table, err = c.singleTableTarget(n.TableRefs, "DELETE"); err != nil {
		return nil, err
	}
	if n.Where != nil {
		if st.Where, err = c.expr(n.Where); err != nil {
			return nil, err
		}
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
	if st.Table, err = c.singleTableTarget(n.TableRefs, "UPDATE"); err != nil {
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
