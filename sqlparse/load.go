package sqlparse

import "github.com/pingcap/tidb/pkg/parser/ast"

// LoadData is MySQL's LOAD DATA [LOCAL] INFILE 'path' INTO TABLE t
// [FIELDS [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
// [LINES [STARTING BY 's'] [TERMINATED BY 's']] [IGNORE n LINES] [(col, ...)].
// Unset separators are empty strings here; the planner applies MySQL's
// defaults (tab, none, backslash, newline).
type LoadData struct {
	stmtBase
	Local   bool
	Path    string
	Table   Name
	Columns []string // nil: every column in order
	// Fields and lines; the *Set flags say whether the clause gave them.
	FieldsTerminated, Enclosed, Escaped, LinesStarting, LinesTerminated          string
	FieldsTerminatedSet, EnclosedSet, EscapedSet, LinesStartingSet, LinesTermSet bool
	OptionallyEnclosed                                                           bool
	IgnoreLines                                                                  uint64
}

func (c *converter) loadData(n *ast.LoadDataStmt) (Statement, error) {
	switch {
	case n.Format != nil && *n.Format != "delimited data":
		return nil, c.notSupported(c.start(), "LOAD DATA ... FORMAT %s", *n.Format)
	case len(n.ColumnAssignments) > 0:
		return nil, c.notSupported(c.start(), "LOAD DATA ... SET")
	case len(n.Options) > 0:
		return nil, c.notSupported(c.start(), "LOAD DATA ... WITH options")
	case n.OnDuplicate == ast.OnDuplicateKeyHandlingReplace:
		return nil, c.notSupported(c.start(), "LOAD DATA ... REPLACE")
	case n.Charset != nil:
		return nil, c.notSupported(c.start(), "LOAD DATA ... CHARACTER SET")
	case n.Table == nil:
		return nil, c.sc.errAt(c.start(), ErrSyntax, "LOAD DATA without a table")
	}
	st := &LoadData{stmtBase: c.base, Local: n.FileLocRef == ast.FileLocClient, Path: n.Path, Table: c.names.Table(n.Table)}
	for _, cv := range n.ColumnsAndUserVars {
		if cv.ColumnName == nil {
			return nil, c.notSupported(c.start(), "LOAD DATA into user variables")
		}
		st.Columns = append(st.Columns, cv.ColumnName.Name.O)
	}
	if len(st.Columns) == 0 {
		for _, col := range n.Columns {
			st.Columns = append(st.Columns, col.Name.O)
		}
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
