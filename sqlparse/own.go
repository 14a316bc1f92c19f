package sqlparse

import (
	"fmt"
	"strings"
)

// ownParser parses the statements that the TiDB parser cannot represent: namespace DDL with
// multi-part names, COMMENT, WITH/SET PROPERTIES and CASCADE; USE of a multi-part namespace; and
// the SHOW/DESCRIBE forms (whose namespace arguments are multi-part); CREATE/DROP INDEX (index.go, parsed
// here so that USING may name Lance index types). WHERE expressions are still
// parsed by TiDB (see parseWhere).
type ownParser struct {
	sc   *script
	toks []token
	i    int
	base stmtBase
}

func (p *ownParser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{start: p.endOff(), end: p.endOff()}
}

func (p *ownParser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return token{start: p.endOff(), end: p.endOff()}
}

func (p *ownParser) endOff() int { return p.toks[len(p.toks)-1].end }

func (p *ownParser) atEnd() bool { return p.i >= len(p.toks) }

func (p *ownParser) accept(kws ...string) bool {
	for k, kw := range kws {
		if !p.peekAt(k).is(kw) {
			return false
		}
	}
	p.i += len(kws)
	return true
}

func (p *ownParser) acceptAny(kws ...string) (string, bool) {
	for _, kw := range kws {
		if p.peek().is(kw) {
			p.i++
			return strings.ToUpper(kw), true
		}
	}
	return "", false
}

func (p *ownParser) errAt(off int, kind error, format string, args ...any) *Error {
	return p.sc.errAt(off, kind, fmt.Sprintf(format, args...))
}

// unexpected reports the current token as unexpected, saying what was expected.
func (p *ownParser) unexpected(expected string) *Error {
	t := p.peek()
	return p.errAt(t.start, ErrSyntax, "syntax error near %s: expected %s", nearText(p.sc.src, t.start), expected)
}

func (p *ownParser) expect(kw string) error {
	if p.accept(kw) {
		return nil
	}
	return p.unexpected(kw)
}

func (p *ownParser) expectPunct(s string) error {
	if p.peek().isPunct(s) {
		p.i++
		return nil
	}
	return p.unexpected(fmt.Sprintf("%q", s))
}

func (p *ownParser) expectEnd() error {
	if p.atEnd() {
		return nil
	}
	return p.unexpected("end of statement")
}

// reservedFirstPart are words that cannot start an unquoted name here; rejecting them gives a
// clearer error for e.g. "CREATE SCHEMA WITH PROPERTIES (...)".
var reservedFirstPart = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "WITH": true, "LIKE": true, "IN": true, "IF": true,
	"SET": true, "NOT": true, "NULL": true, "TABLE": true, "DATABASE": true, "SCHEMA": true, "TO": true,
	"AS": true, "ON": true, "AND": true, "OR": true, "CASCADE": true, "RESTRICT": true, "COMMENT": true,
}

// parseName parses part('.'part)*.
func (p *ownParser) parseName(what string) (Name, error) {
	t := p.peek()
	if !t.isNamePart() || (t.kind == tkIdent && reservedFirstPart[strings.ToUpper(t.val)]) {
		return nil, p.unexpected(what)
	}
	name := Name{t.val}
	p.i++
	for p.peek().isPunct(".") {
		p.i++
		t = p.peek()
		if !t.isNamePart() {
			return nil, p.unexpected("a name part after '.'")
		}
		name = append(name, t.val)
		p.i++
	}
	for _, part := range name {
		if part == "" {
			return nil, p.errAt(t.start, ErrSyntax, "empty name part in %s", name)
		}
	}
	return name, nil
}

func (p *ownParser) parseString(what string) (string, error) {
	t := p.peek()
	if t.kind != tkString {
		return "", p.unexpected(what)
	}
	p.i++
	return t.val, nil
}

// parseOwn parses the statement if it is one of ownParser's forms; handled is false otherwise.
func (p *ownParser) parseOwn() (st Statement, handled bool, err error) {
	if st, handled, err := p.parseLifecycle(); handled {
		return st, true, err
	}
	first := p.peek()
	switch {
	case first.is("USE"):
		p.i++
		st, err = p.parseUse()
	case first.is("CREATE") && isSchemaWord(p.peekAt(1)):
		p.i += 2
		st, err = p.parseCreateSchema()
	case first.is("DROP") && isSchemaWord(p.peekAt(1)):
		p.i += 2
		st, err = p.parseDropSchema()
	case first.is("ALTER") && isSchemaWord(p.peekAt(1)):
		p.i += 2
		st, err = p.parseAlterSchema()
	case first.is("CREATE") && p.peekAt(1).is("INDEX"):
		p.i += 2
		st, err = p.parseCreateIndex("")
	case first.is("CREATE") && p.peekAt(1).is("VECTOR") && (p.peekAt(2).is("INDEX") || p.peekAt(2).is("KEY")):
		p.i += 3
		st, err = p.parseCreateVectorIndex(nil) // vectorindex.go
	case p.isAlterAddVectorIndex():
		st, err = p.parseAlterAddVectorIndex()
	case first.is("CREATE") && (p.peekAt(1).is("UNIQUE") || p.peekAt(1).is("FULLTEXT") || p.peekAt(1).is("SPATIAL")) && p.peekAt(2).is("INDEX"):
		mod := strings.ToUpper(p.peekAt(1).val)
		p.i += 3
		st, err = p.parseCreateIndex(mod)
	case first.is("DROP") && p.peekAt(1).is("INDEX"):
		p.i += 2
		st, err = p.parseDropIndex()
	case first.is("SHOW"):
		p.i++
		return p.parseShow()
	case first.is("DESCRIBE") || first.is("DESC") || first.is("EXPLAIN"):
		if !isDescribeTable(p.peekAt(1)) {
			return nil, false, nil
		}
		p.i++
		st, err = p.parseDescribe()
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return st, true, nil
}

func isSchemaWord(t token) bool {
	return t.is("SCHEMA") || t.is("DATABASE") || t.is("NAMESPACE")
}

// isDescribeTable reports whether the token after DESCRIBE/DESC/EXPLAIN starts a table name (as
// opposed to an explainable statement or an EXPLAIN option).
func isDescribeTable(t token) bool {
	if t.kind == tkQuoted {
		return true
	}
	if t.kind != tkIdent {
		return false
	}
	switch strings.ToUpper(t.val) {
	case "SELECT", "WITH", "TABLE", "VALUES", "INSERT", "UPDATE", "DELETE", "REPLACE", "ANALYZE",
		"FORMAT", "FOR", "EXTENDED", "PARTITIONS", "IMPORT", "LOAD", "EXPLORE":
		return false
	}
	return true
}

func (p *ownParser) parseUse() (Statement, error) {
	name, err := p.parseName("a namespace name")
	if err != nil {
		return nil, err
	}
	if err := p.expectEnd(); err != nil {
		return nil, err
	}
	return &Use{stmtBase: p.base, Namespace: name}, nil
}

func (p *ownParser) parseCreateSchema() (Statement, error) {
	st := &CreateSchema{stmtBase: p.base}
	st.IfNotExists = p.accept("IF", "NOT", "EXISTS")
	var err error
	if st.Name, err = p.parseName("a schema name"); err != nil {
		return nil, err
	}
	for !p.atEnd() {
		switch {
		case p.accept("COMMENT"):
			if st.Comment != nil {
				return nil, p.errAt(p.toks[p.i-1].start, ErrSyntax, "duplicate COMMENT clause")
			}
			if p.peek().isPunct("=") {
				p.i++
			}
			c, err := p.parseString("a comment string")
			if err != nil {
				return nil, err
			}
			st.Comment = &c
		case p.peek().is("WITH"):
			at := p.peek().start
			p.i++
			if st.Properties != nil {
				return nil, p.errAt(at, ErrSyntax, "duplicate WITH PROPERTIES clause")
			}
			if err := p.expect("PROPERTIES"); err != nil {
				return nil, err
			}
			if st.Properties, err = p.parseProperties(); err != nil {
				return nil, err
			}
		case p.peek().is("DEFAULT") || p.peek().is("CHARACTER") || p.peek().is("CHARSET") || p.peek().is("COLLATE"):
			t := p.peek()
			return nil, p.errAt(t.start, ErrNotSupported, "not supported: %s option of CREATE SCHEMA", strings.ToUpper(t.val))
		default:
			return nil, p.unexpected("COMMENT, WITH PROPERTIES or end of statement")
		}
	}
	return st, nil
}

// parseProperties parses '(' key = 'value' {, key = 'value'} ')'. Keys are identifiers
// (possibly dotted: owner.team) or strings; values are strings.
func (p *ownParser) parseProperties() ([]Property, error) {
	return p.parsePropertiesOf(false)
}

// parsePropertiesOf parses a property list; with loose, a value may also be
// a number or a bare word (TRUE, FALSE), kept as its text.
func (p *ownParser) parsePropertiesOf(loose bool) ([]Property, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	props := []Property{}
	seen := map[string]bool{}
	for {
		keyTok := p.peek()
		var key string
		switch keyTok.kind {
		case tkString:
			key = keyTok.val
			p.i++
		case tkIdent, tkQuoted:
			parts := []string{keyTok.val}
			p.i++
			for p.peek().isPunct(".") && p.peekAt(1).isNamePart() {
				parts = append(parts, p.peekAt(1).val)
				p.i += 2
			}
			key = strings.Join(parts, ".")
		default:
			return nil, p.unexpected("a property key")
		}
		if key == "" {
			return nil, p.errAt(keyTok.start, ErrSyntax, "empty property key")
		}
		if seen[key] {
			return nil, p.errAt(keyTok.start, ErrSyntax, "duplicate property %q", key)
		}
		seen[key] = true
		if err := p.expectPunct("="); err != nil {
			return nil, err
		}
		var val string
		if vt := p.peek(); loose && (vt.kind == tkNumber || vt.kind == tkIdent) {
			val = vt.val
			p.i++
		} else {
			var err error
			if val, err = p.parseString("a string property value"); err != nil {
				return nil, err
			}
		}
		props = append(props, Property{Key: key, Value: val})
		if p.peek().isPunct(",") {
			p.i++
			continue
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		return props, nil
	}
}

func (p *ownParser) parseDropSchema() (Statement, error) {
	st := &DropSchema{stmtBase: p.base}
	st.IfExists = p.accept("IF", "EXISTS")
	var err error
	if st.Name, err = p.parseName("a schema name"); err != nil {
		return nil, err
	}
	if w, ok := p.acceptAny("RESTRICT", "CASCADE"); ok {
		st.Cascade = w == "CASCADE"
	}
	return st, p.expectEnd()
}

func (p *ownParser) parseAlterSchema() (Statement, error) {
	st := &AlterSchema{stmtBase: p.base}
	var err error
	if st.Name, err = p.parseName("a schema name"); err != nil {
		return nil, err
	}
	if !p.accept("SET", "PROPERTIES") {
		if p.atEnd() {
			return nil, p.unexpected("SET PROPERTIES")
		}
		t := p.peek()
		return nil, p.errAt(t.start, ErrNotSupported, "not supported: ALTER SCHEMA %s (only SET PROPERTIES)", nearText(p.sc.src, t.start))
	}
	if st.SetProperties, err = p.parseProperties(); err != nil {
		return nil, err
	}
	return st, p.expectEnd()
}

// parseShow parses the SHOW forms lancecat knows; others are left to TiDB (handled=false), which
// will classify them as Unsupported or report a syntax error.
func (p *ownParser) parseShow() (Statement, bool, error) {
	var st Statement
	var err error
	switch t := p.peek(); {
	case t.is("SCHEMAS") || t.is("DATABASES") || t.is("NAMESPACES"):
		p.i++
		st, err = p.parseShowSchemas()
	case t.is("TABLES") || (t.is("FULL") && p.peekAt(1).is("TABLES")):
		full := p.accept("FULL")
		p.i++
		st, err = p.parseShowTables(full)
	case t.is("TABLE") && p.peekAt(1).is("STATUS"):
		p.i += 2
		st, err = p.parseShowTableStatus()
	case isColumnsWord(t) || ((t.is("FULL") || t.is("EXTENDED")) && isColumnsWord(p.peekAt(1))):
		full := false
		for {
			if p.accept("FULL") {
				full = true
				continue
			}
			if p.accept("EXTENDED") {
				continue
			}
			break
		}
		p.i++
		st, err = p.parseShowColumns(full)
	case t.is("INDEX") || t.is("INDEXES") || t.is("KEYS"):
		p.i++
		st, err = p.parseShowIndex()
	case t.is("VARIABLES") || ((t.is("SESSION") || t.is("GLOBAL") || t.is("LOCAL")) && p.peekAt(1).is("VARIABLES")):
		global := t.is("GLOBAL")
		if !t.is("VARIABLES") {
			p.i++
		}
		p.i++
		st, err = p.parseShowVariables(global)
	case t.is("CREATE") && p.peekAt(1).is("TABLE"):
		p.i += 2
		var name Name
		if name, err = p.parseName("a table name"); err == nil {
			st, err = &ShowCreateTable{stmtBase: p.base, Name: name}, p.expectEnd()
		}
	case t.is("CREATE") && isSchemaWord(p.peekAt(1)):
		p.i += 2
		var name Name
		if name, err = p.parseName("a schema name"); err == nil {
			st, err = &ShowCreateSchema{stmtBase: p.base, Name: name}, p.expectEnd()
		}
	default:
		return p.parseShowWarnings()
	}
	if err != nil {
		return nil, true, err
	}
	return st, true, nil
}

func isColumnsWord(t token) bool { return t.is("COLUMNS") || t.is("FIELDS") }

// parseFromName parses an optional FROM|IN name.
func (p *ownParser) parseFromName(what string) (Name, error) {
	if _, ok := p.acceptAny("FROM", "IN"); !ok {
		return nil, nil
	}
	return p.parseName(what)
}

// parseFilter parses an optional LIKE 'pattern' | WHERE expr, then the end of the statement.
func (p *ownParser) parseFilter(allowLike bool) (Filter, error) {
	var f Filter
	switch {
	case allowLike && p.accept("LIKE"):
		s, err := p.parseString("a LIKE pattern string")
		if err != nil {
			return f, err
		}
		f.Like = &s
	case p.peek().is("WHERE"):
		p.i++
		if p.atEnd() {
			return f, p.unexpected("an expression")
		}
		expr, err := parseWhere(p.sc, p.toks[p.i:])
		if err != nil {
			return f, err
		}
		f.Where = expr
		p.i = len(p.toks)
	}
	return f, p.expectEnd()
}

func (p *ownParser) parseShowSchemas() (Statement, error) {
	st := &ShowSchemas{stmtBase: p.base}
	var err error
	if st.Parent, err = p.parseFromName("a namespace name"); err != nil {
		return nil, err
	}
	st.Filter, err = p.parseFilter(true)
	return st, err
}

func (p *ownParser) parseShowTables(full bool) (Statement, error) {
	st := &ShowTables{stmtBase: p.base, Full: full}
	var err error
	if st.Namespace, err = p.parseFromName("a namespace name"); err != nil {
		return nil, err
	}
	st.Filter, err = p.parseFilter(true)
	return st, err
}

func (p *ownParser) parseShowTableStatus() (Statement, error) {
	st := &ShowTableStatus{stmtBase: p.base}
	var err error
	if st.Namespace, err = p.parseFromName("a namespace name"); err != nil {
		return nil, err
	}
	st.Filter, err = p.parseFilter(true)
	return st, err
}

// parseTableFromNS parses FROM|IN table [FROM|IN ns]; with ns the result is ns + table.
func (p *ownParser) parseTableFromNS() (Name, error) {
	if _, ok := p.acceptAny("FROM", "IN"); !ok {
		return nil, p.unexpected("FROM")
	}
	table, err := p.parseName("a table name")
	if err != nil {
		return nil, err
	}
	nsAt := p.peekAt(1).start
	ns, err := p.parseFromName("a namespace name")
	if err != nil {
		return nil, err
	}
	if ns != nil {
		if len(table) > 1 {
			return nil, p.errAt(nsAt, ErrSyntax, "table %s is already qualified; FROM %s is ambiguous", table, ns)
		}
		return append(ns, table...), nil
	}
	return table, nil
}

func (p *ownParser) parseShowColumns(full bool) (Statement, error) {
	st := &ShowColumns{stmtBase: p.base, Full: full}
	var err error
	if st.Table, err = p.parseTableFromNS(); err != nil {
		return nil, err
	}
	st.Filter, err = p.parseFilter(true)
	return st, err
}

func (p *ownParser) parseShowIndex() (Statement, error) {
	st := &ShowIndex{stmtBase: p.base}
	var err error
	if st.Table, err = p.parseTableFromNS(); err != nil {
		return nil, err
	}
	st.Filter, err = p.parseFilter(false)
	return st, err
}

// parseDescribe parses DESCRIBE t [column | 'pattern'] as SHOW COLUMNS.
func (p *ownParser) parseDescribe() (Statement, error) {
	st := &ShowColumns{stmtBase: p.base}
	var err error
	if st.Table, err = p.parseName("a table name"); err != nil {
		return nil, err
	}
	if t := p.peek(); !p.atEnd() && (t.kind == tkString || t.isNamePart()) {
		p.i++
		v := t.val
		st.Like = &v
	}
	return st, p.expectEnd()
}
