package sqlparse

import "strings"

// CreateIndex is CREATE INDEX [IF NOT EXISTS] name [USING kind] ON table (column) [USING kind]:
// a Lance scalar index on one column of a table. Using is the index type as written, upper-cased
// ("BTREE", "BITMAP", "LABEL_LIST", ...), or "" when the statement names none; the planner
// decides which types exist. CREATE UNIQUE INDEX sets Unique (the planner enforces it on its own
// writes); FULLTEXT and SPATIAL indexes are refused by the parser.
type CreateIndex struct {
	stmtBase
	Unique      bool
	IfNotExists bool
	Name        string
	Table       Name
	Column      string
	Using       string
	// Properties are the WITH PROPERTIES (...) of CREATE FULLTEXT INDEX
	// (its tokenizer settings); nil without the clause.
	Properties []Property
	// Vector is CREATE VECTOR INDEX (or ALTER TABLE ADD VECTOR INDEX), see
	// vectorindex.go; Metric is the metric its distance function names.
	Vector bool
	Metric string
}

// DropIndex is DROP INDEX [IF EXISTS] name ON table.
type DropIndex struct {
	stmtBase
	IfExists bool
	Name     string
	Table    Name
}

// parseIndexName parses the one-part name of an index.
func (p *ownParser) parseIndexName() (string, error) {
	at := p.peek().start
	n, err := p.parseName("an index name")
	if err != nil {
		return "", err
	}
	if len(n) != 1 {
		return "", p.errAt(at, ErrSyntax, "index name %s has %d parts (an index name is one identifier; the table follows ON)", n, len(n))
	}
	return n[0], nil
}

// parseUsingKind parses the word after USING.
func (p *ownParser) parseUsingKind() (string, error) {
	t := p.peek()
	if !t.isNamePart() {
		return "", p.unexpected("an index type (BTREE, BITMAP or LABEL_LIST)")
	}
	p.i++
	return strings.ToUpper(t.val), nil
}

// parseCreateIndex parses what follows CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX.
func (p *ownParser) parseCreateIndex(modifier string) (Statement, error) {
	if modifier != "" && modifier != "UNIQUE" && modifier != "FULLTEXT" {
		return nil, p.errAt(p.toks[0].start, ErrNotSupported,
			"not supported: CREATE %s INDEX (Lance indices are BTREE, BITMAP, LABEL_LIST and FULLTEXT)", modifier)
	}
	st := &CreateIndex{stmtBase: p.base, Unique: modifier == "UNIQUE"}
	if modifier == "FULLTEXT" {
		st.Using = "INVERTED"
	}
	st.IfNotExists = p.accept("IF", "NOT", "EXISTS")
	var err error
	if st.Name, err = p.parseIndexName(); err != nil {
		return nil, err
	}
	if p.accept("USING") {
		if st.Using, err = p.parseUsingKind(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("ON"); err != nil {
		return nil, err
	}
	if st.Table, err = p.parseName("a table name"); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	col := p.peek()
	if !col.isNamePart() {
		return nil, p.unexpected("a column name")
	}
	p.i++
	st.Column = col.val
	if p.peek().isPunct(",") {
		return nil, p.errAt(p.peek().start, ErrNotSupported, "not supported: an index on several columns (Lance scalar indices cover one column)")
	}
	if p.peek().isPunct("(") {
		return nil, p.errAt(p.peek().start, ErrNotSupported, "not supported: index key prefix lengths")
	}
	if w, ok := p.acceptAny("ASC", "DESC"); ok && w == "DESC" {
		return nil, p.errAt(p.toks[p.i-1].start, ErrNotSupported, "not supported: descending index keys")
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	if p.accept("USING") {
		at := p.peek().start
		kind, err := p.parseUsingKind()
		if err != nil {
			return nil, err
		}
		if st.Using != "" && st.Using != kind {
			return nil, p.errAt(at, ErrSyntax, "two index types: USING %s and USING %s", st.Using, kind)
		}
		st.Using = kind
	}
	if st.Using == "INVERTED" && p.accept("WITH") {
		if err := p.expect("PROPERTIES"); err != nil {
			return nil, err
		}
		var err error
		if st.Properties, err = p.parsePropertiesOf(true); err != nil {
			return nil, err
		}
	}
	return st, p.expectEnd()
}

// parseDropIndex parses what follows DROP INDEX.
func (p *ownParser) parseDropIndex() (Statement, error) {
	st := &DropIndex{stmtBase: p.base}
	st.IfExists = p.accept("IF", "EXISTS")
	var err error
	if st.Name, err = p.parseIndexName(); err != nil {
		return nil, err
	}
	if err := p.expect("ON"); err != nil {
		return nil, err
	}
	if st.Table, err = p.parseName("a table name"); err != nil {
		return nil, err
	}
	return st, p.expectEnd()
}
