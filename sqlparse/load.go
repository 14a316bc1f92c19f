package sqlparse

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// LoadData is MySQL's LOAD DATA [LOCAL] INFILE 'path' [REPLACE | IGNORE]
// INTO TABLE t [FIELDS [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c']
// [ESCAPED BY 'c']] [LINES [STARTING BY 's'] [TERMINATED BY 's']]
// [IGNORE n LINES] [(col_or_@var, ...)] [SET col = expr, ...].
// Unset separators are empty strings here; the planner applies MySQL's
// defaults (tab, none, backslash, newline).
type LoadData struct {
	stmtBase
	Local   bool
	Path    string
	Table   Name
	Targets []LoadTarget // nil: every column in order
	Set     []Assignment
	// Replace and Ignore are the REPLACE / IGNORE duplicate handling.
	Replace, Ignore bool
	// Fields and lines; the *Set flags say whether the clause gave them.
	FieldsTerminated, Enclosed, Escaped, LinesStarting, LinesTerminated          string
	FieldsTerminatedSet, EnclosedSet, EscapedSet, LinesStartingSet, LinesTermSet bool
	OptionallyEnclosed                                                           bool
	IgnoreLines                                                                  uint64
}

// LoadTarget is one entry of LOAD DATA's / IMPORT INTO's column list: a
// column, or a user variable (@name) the SET clause may read.
type LoadTarget struct {
	Column string
	Var    string // the user variable's name without @ ("" for a column)
}

// ImportInto is TiDB's IMPORT INTO t [(col_or_@var, ...)] [SET col = expr,
// ...] FROM 'path' [FORMAT 'csv' | 'parquet'] [WITH option [= value], ...].
// Format is lower case ("csv" when not given); Options maps each option
// name (lower case) to its literal value (int64, string or true for a bare
// option).
type ImportInto struct {
	stmtBase
	Table   Name
	Targets []LoadTarget
	Set     []Assignment
	Path    string
	Format  string
	Options map[string]any
}

func (c *converter) loadTargets(list []*ast.ColumnNameOrUserVar) ([]LoadTarget, error) {
	var out []LoadTarget
	for _, cv := range list {
		switch {
		case cv.ColumnName != nil:
			out = append(out, LoadTarget{Column: cv.ColumnName.Name.O})
		case cv.UserVar != nil && !cv.UserVar.IsSystem:
			out = append(out, LoadTarget{Var: strings.ToLower(cv.UserVar.Name)})
		default:
			return nil, c.notSupported(c.start(), "a system variable in the column list")
		}
	}
	return out, nil
}

func (c *converter) loadSet(list []*ast.Assignment) ([]Assignment, error) {
	var out []Assignment
	for _, a := range list {
		v, err := c.expr(a.Expr)
		if err != nil {
			return nil, err
		}
		out = append(out, Assignment{Column: c.columnName(a.Column), Value: v})
	}
	return out, nil
}

func (c *converter) loadData(n *ast.LoadDataStmt) (Statement, error) {
	switch {
	case n.Format != nil && *n.Format != "delimited data":
		return nil, c.notSupported(c.start(), "LOAD DATA ... FORMAT %s", *n.Format)
	case len(n.Options) > 0:
		return nil, c.notSupported(c.start(), "LOAD DATA ... WITH options")
	case n.Charset != nil:
		return nil, c.notSupported(c.start(), "LOAD DATA ... CHARACTER SET")
	case n.Table == nil:
		return nil, c.sc.errAt(c.start(), ErrSyntax, "LOAD DATA without a table")
	}
	st := &LoadData{stmtBase: c.base, Local: n.FileLocRef == ast.FileLocClient, Path: n.Path, Table: c.names.Table(n.Table),
		Replace: n.OnDuplicate == ast.OnDuplicateKeyHandlingReplace, Ignore: n.OnDuplicate == ast.OnDuplicateKeyHandlingIgnore}
	var err error
	if st.Targets, err = c.loadTargets(n.ColumnsAndUserVars); err != nil {
		return nil, err
	}
	if len(st.Targets) == 0 {
		for _, col := range n.Columns {
			st.Targets = append(st.Targets, LoadTarget{Column: col.Name.O})
		}
	}
	if st.Set, err = c.loadSet(n.ColumnAssignments); err != nil {
		return nil, err
	}
	if f := n.FieldsInfo; f != nil {
		if f.DefinedNullBy != nil {
			return nil, c.notSupported(c.start(), "LOAD DATA ... DEFINED NULL BY")
		}
		if f.Terminated != nil {
			st.FieldsTerminated, st.FieldsTerminatedSet = *f.Terminated, true
		}
		if f.Enclosed != nil {
			st.Enclosed, st.EnclosedSet = *f.Enclosed, true
		}
		if f.Escaped != nil {
			st.Escaped, st.EscapedSet = *f.Escaped, true
		}
		st.OptionallyEnclosed = f.OptEnclosed
	}
	if l := n.LinesInfo; l != nil {
		if l.Starting != nil {
			st.LinesStarting, st.LinesStartingSet = *l.Starting, true
		}
		if l.Terminated != nil {
			st.LinesTerminated, st.LinesTermSet = *l.Terminated, true
		}
	}
	if n.IgnoreLines != nil {
		st.IgnoreLines = *n.IgnoreLines
	}
	return st, nil
}

func (c *converter) importInto(n *ast.ImportIntoStmt) (Statement, error) {
	switch {
	case n.Select != nil:
		return nil, c.notSupported(c.start(), "IMPORT INTO ... FROM SELECT")
	case n.Table == nil:
		return nil, c.sc.errAt(c.start(), ErrSyntax, "IMPORT INTO without a table")
	}
	st := &ImportInto{stmtBase: c.base, Table: c.names.Table(n.Table), Path: n.Path, Format: "csv", Options: map[string]any{}}
	if n.Format != nil {
		st.Format = strings.ToLower(*n.Format)
	}
	var err error
	if st.Targets, err = c.loadTargets(n.ColumnsAndUserVars); err != nil {
		return nil, err
	}
	if st.Set, err = c.loadSet(n.ColumnAssignments); err != nil {
		return nil, err
	}
	for _, o := range n.Options {
		name := strings.ToLower(o.Name)
		if _, dup := st.Options[name]; dup {
			return nil, c.sc.errAt(c.start(), ErrSyntax, fmt.Sprintf("IMPORT INTO option %s given twice", name))
		}
		if o.Value == nil {
			st.Options[name] = true
			continue
		}
		v, err := importOptionValue(o.Value)
		if err != nil {
			return nil, c.sc.errAt(c.start(), ErrSyntax, fmt.Sprintf("IMPORT INTO option %s: %v", name, err))
		}
		st.Options[name] = v
	}
	return st, nil
}

// importOptionValue reads an option's literal (TiDB allows only literals,
// a number possibly negated).
func importOptionValue(e ast.ExprNode) (any, error) {
	neg := false
	if u, ok := e.(*ast.UnaryOperationExpr); ok {
		neg, e = true, u.V
	}
	ve, ok := e.(*test_driver.ValueExpr)
	if !ok {
		return nil, fmt.Errorf("not a literal")
	}
	switch v := ve.Datum.GetValue().(type) {
	case int64:
		if neg {
			v = -v
		}
		return v, nil
	case uint64:
		if neg || v > 1<<63-1 {
			return nil, fmt.Errorf("%d is out of range", v)
		}
		return int64(v), nil
	case string:
		if neg {
			return nil, fmt.Errorf("a negated string")
		}
		return v, nil
	}
	return nil, fmt.Errorf("not a number or string literal")
}
