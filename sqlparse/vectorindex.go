package sqlparse

import "strings"

// Vector indices (issue 16):
//
//	CREATE VECTOR INDEX [IF NOT EXISTS] name [USING kind] ON t (col) [USING kind] [WITH PROPERTIES (...)]
//	CREATE VECTOR INDEX name ON t ((VEC_COSINE_DISTANCE(col))) [USING HNSW]      -- TiDB's form
//	ALTER TABLE t ADD VECTOR {INDEX|KEY} [IF NOT EXISTS] name (col | (VEC_x_DISTANCE(col))) [USING kind] [WITH PROPERTIES (...)]
//
// They parse to a *CreateIndex with Vector set; Metric is the metric the
// TiDB form's distance function names ("l2", "cosine", "dot"), "" otherwise.

// vectorDistanceMetrics maps TiDB's distance functions to Lance metrics.
var vectorDistanceMetrics = map[string]string{
	"VEC_L2_DISTANCE": "l2", "VEC_COSINE_DISTANCE": "cosine", "VEC_NEGATIVE_INNER_PRODUCT": "dot",
}

// parseCreateVectorIndex parses what follows CREATE VECTOR INDEX (or, for
// ALTER TABLE t ADD VECTOR INDEX, what follows INDEX with the table known).
func (p *ownParser) parseCreateVectorIndex(table Name) (Statement, error) {
	st := &CreateIndex{stmtBase: p.base, Vector: true}
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
	if table == nil {
		if err := p.expect("ON"); err != nil {
			return nil, err
		}
		if st.Table, err = p.parseName("a table name"); err != nil {
			return nil, err
		}
	} else {
		st.Table = table
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	if p.peek().isPunct("(") {
		// ((VEC_x_DISTANCE(col)))
		p.i++
		fn := p.peek()
		metric, ok := vectorDistanceMetrics[strings.ToUpper(fn.val)]
		if !fn.isNamePart() || !ok {
			if fn.isNamePart() && strings.EqualFold(fn.val, "VEC_L1_DISTANCE") {
				return nil, p.errAt(fn.start, ErrNotSupported, "not supported: a vector index by VEC_L1_DISTANCE (Lance indexes l2, cosine and dot)")
			}
			return nil, p.unexpected("VEC_L2_DISTANCE, VEC_COSINE_DISTANCE or VEC_NEGATIVE_INNER_PRODUCT")
		}
		p.i++
		st.Metric = metric
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		if st.Column, err = p.vectorIndexColumn(); err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
	} else if st.Column, err = p.vectorIndexColumn(); err != nil {
		return nil, err
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
	if p.accept("WITH") {
		if err := p.expect("PROPERTIES"); err != nil {
			return nil, err
		}
		if st.Properties, err = p.parsePropertiesOf(true); err != nil {
			return nil, err
		}
	}
	return st, p.expectEnd()
}

func (p *ownParser) vectorIndexColumn() (string, error) {
	col := p.peek()
	if !col.isNamePart() {
		return "", p.unexpected("a column name")
	}
	p.i++
	if p.peek().isPunct(",") {
		return "", p.errAt(p.peek().start, ErrNotSupported, "not supported: a vector index on several columns")
	}
	return col.val, nil
}

// isAlterAddVectorIndex says whether the statement is ALTER TABLE t ADD
// VECTOR {INDEX|KEY} ..., parsed by parseAlterAddVectorIndex.
func (p *ownParser) isAlterAddVectorIndex() bool {
	if !p.peek().is("ALTER") || !p.peekAt(1).is("TABLE") {
		return false
	}
	for k := 2; k < len(p.toks)-p.i-2; k++ {
		t := p.peekAt(k)
		if t.is("ADD") {
			return p.peekAt(k+1).is("VECTOR") && (p.peekAt(k+2).is("INDEX") || p.peekAt(k+2).is("KEY"))
		}
		if !(t.isNamePart() || t.isPunct(".")) {
			return false
		}
	}
	return false
}

func (p *ownParser) parseAlterAddVectorIndex() (Statement, error) {
	p.i += 2 // ALTER TABLE
	table, err := p.parseName("a table name")
	if err != nil {
		return nil, err
	}
	if err := p.expect("ADD"); err != nil {
		return nil, err
	}
	p.i += 2 // VECTOR INDEX|KEY
	return p.parseCreateVectorIndex(table)
}
