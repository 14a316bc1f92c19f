package sqlparse

import "strings"

// Table lifecycle statements (parsed by ownParser, since their table names
// may have any number of parts):
//
//	SHOW VERSIONS FROM|IN t [FROM|IN ns]   (LIKE / WHERE parse; the planner refuses them)
//	TRUNCATE [TABLE] t
//	OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE|TABLES t [, t ...]

// ShowVersions is SHOW VERSIONS FROM t: the versions of a table's dataset.
type ShowVersions struct {
	stmtBase
	Table Name
	Filter
}

// TruncateTable is TRUNCATE [TABLE] t.
type TruncateTable struct {
	stmtBase
	Table Name
}

// OptimizeTable is OPTIMIZE TABLE t [, ...].
type OptimizeTable struct {
	stmtBase
	Tables []Name
}

// parseLifecycle parses the statements above; handled is false for anything else.
func (p *ownParser) parseLifecycle() (st Statement, handled bool, err error) {
	first := p.peek()
	switch {
	case first.is("TRUNCATE"):
		p.i++
		p.accept("TABLE")
		name, err := p.parseName("a table name")
		if err != nil {
			return nil, true, err
		}
		return &TruncateTable{stmtBase: p.base, Table: name}, true, p.expectEnd()
	case first.is("OPTIMIZE"):
		p.i++
		p.acceptAny("NO_WRITE_TO_BINLOG", "LOCAL")
		if _, ok := p.acceptAny("TABLE", "TABLES"); !ok {
			return nil, true, p.unexpected("TABLE")
		}
		o := &OptimizeTable{stmtBase: p.base}
		for {
			name, err := p.parseName("a table name")
			if err != nil {
				return nil, true, err
			}
			o.Tables = append(o.Tables, name)
			if !p.peek().isPunct(",") {
				break
			}
			p.i++
		}
		return o, true, p.expectEnd()
	case first.is("SHOW") && p.peekAt(1).is("VERSIONS"):
		p.i += 2
		sv := &ShowVersions{stmtBase: p.base}
		if sv.Table, err = p.parseTableFromNS(); err != nil {
			return nil, true, err
		}
		sv.Filter, err = p.parseFilter(true)
		return sv, true, err
	}
	return nil, false, nil
}

// rowAlias is MySQL 8's INSERT ... VALUES (...) AS alias [(c1, ...)] ON DUPLICATE KEY UPDATE,
// which TiDB's grammar lacks: parseStatement cuts it from the tokens and rewrites alias.col in
// the assignments to VALUES(col) once the statement is converted.
type rowAlias struct {
	name string
	cols []string
}

// cutRowAlias finds the row alias of an INSERT ... VALUES statement and returns the tokens
// without it.
func cutRowAlias(toks []token) ([]token, *rowAlias) {
	if len(toks) == 0 || !toks[0].is("INSERT") {
		return toks, nil
	}
	sawValues := false
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if t.is("SELECT") || t.is("TABLE") && i > 2 {
			return toks, nil
		}
		if t.is("VALUES") || t.is("VALUE") {
			sawValues = true
		}
		if !sawValues || !t.is("AS") || !toks[i-1].isPunct(")") || i+1 >= len(toks) || !toks[i+1].isNamePart() {
			continue
		}
		ra := &rowAlias{name: toks[i+1].val}
		j := i + 2
		if j < len(toks) && toks[j].isPunct("(") {
			j++
			for j < len(toks) && toks[j].isNamePart() {
				ra.cols = append(ra.cols, toks[j].val)
				j++
				if j < len(toks) && toks[j].isPunct(",") {
					j++
				}
			}
			if j >= len(toks) || !toks[j].isPunct(")") {
				return toks, nil
			}
			j++
		}
		if j+1 < len(toks) && toks[j].is("ON") && toks[j+1].is("DUPLICATE") {
			out := append(append(make([]token, 0, len(toks)), toks[:i]...), toks[j:]...)
			out[i-1].spaceAfter = true
			return out, ra
		}
		return toks, nil
	}
	return toks, nil
}

// applyRowAlias rewrites alias.col (and a bare column alias) in ON DUPLICATE KEY UPDATE to
// VALUES(col).
func applyRowAlias(st Statement, ra *rowAlias) error {
	ins, ok := st.(*Insert)
	if !ok || ra == nil {
		return nil
	}
	if len(ra.cols) > 0 && len(ra.cols) != len(ins.Columns) {
		return &Error{Kind: ErrNotSupported, Pos: ins.Position(), Msg: "a row alias column list needs the INSERT's column list of the same length"}
	}
	target := func(col string) string {
		for k, c := range ra.cols {
			if strings.EqualFold(c, col) {
				return ins.Columns[k].Column
			}
		}
		return col
	}
	var sub func(e Expr) Expr
	sub = func(e Expr) Expr {
		ref, ok := e.(*ColumnRef)
		if !ok || len(ref.Qualifier) != 1 || !strings.EqualFold(ref.Qualifier[0], ra.name) {
			return e
		}
		return &FuncCall{exprPos: ref.exprPos, Name: "values", Args: []Expr{&ColumnRef{exprPos: ref.exprPos, Column: target(ref.Column)}}}
	}
	for i := range ins.OnDuplicate {
		ins.OnDuplicate[i].Value = mapChildren(sub(ins.OnDuplicate[i].Value), sub)
	}
	return nil
}

// mapChildren replaces the children of every node under e by sub's result.
func mapChildren(e Expr, sub func(Expr) Expr) Expr {
	Inspect(e, func(x Expr) bool {
		switch n := x.(type) {
		case *Paren:
			n.X = sub(n.X)
		case *Unary:
			n.X = sub(n.X)
		case *Binary:
			n.L, n.R = sub(n.L), sub(n.R)
		case *IsNull:
			n.X = sub(n.X)
		case *IsTruth:
			n.X = sub(n.X)
		case *Between:
			n.X, n.Lo, n.Hi = sub(n.X), sub(n.Lo), sub(n.Hi)
		case *Like:
			n.X, n.Pattern = sub(n.X), sub(n.Pattern)
		case *InList:
			n.X = sub(n.X)
			for i := range n.List {
				n.List[i] = sub(n.List[i])
			}
		case *FuncCall:
			for i := range n.Args {
				n.Args[i] = sub(n.Args[i])
			}
		}
		return true
	})
	return e
}
