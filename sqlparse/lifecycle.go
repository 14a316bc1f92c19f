package sqlparse

// Table lifecycle statements (parsed by ownParser, since their table names
// may have any number of parts):
//
//	SHOW VERSIONS FROM|IN t [FROM|IN ns] [LIKE 'p' | WHERE cond]
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
