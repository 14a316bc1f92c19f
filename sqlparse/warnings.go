package sqlparse

import "strconv"

// ShowWarnings is SHOW WARNINGS | ERRORS [LIMIT [offset,] n] and SHOW
// COUNT(*) WARNINGS | ERRORS: the conditions of the last statement that
// recorded some (MySQL's diagnostics area).
type ShowWarnings struct {
	stmtBase
	Errors bool // SHOW ERRORS: only the Error-level conditions
	Count  bool // SHOW COUNT(*) ...: their number, as @@warning_count / @@error_count
	// Limit is LIMIT's row count (-1: none), Offset its offset.
	Limit, Offset int64
}

// parseShowWarnings parses what follows SHOW, at WARNINGS, ERRORS or
// COUNT(*); handled is false for anything else.
func (p *ownParser) parseShowWarnings() (Statement, bool, error) {
	st := &ShowWarnings{stmtBase: p.base, Limit: -1}
	if p.peek().is("COUNT") && p.peekAt(1).isPunct("(") && p.peekAt(2).isPunct("*") && p.peekAt(3).isPunct(")") &&
		(p.peekAt(4).is("WARNINGS") || p.peekAt(4).is("ERRORS")) {
		p.i += 4
		st.Count = true
	}
	switch w, ok := p.acceptAny("WARNINGS", "ERRORS"); {
	case !ok:
		return nil, false, nil
	case w == "ERRORS":
		st.Errors = true
	}
	if st.Count {
		return st, true, p.expectEnd()
	}
	if p.accept("LIMIT") {
		n, err := p.parseCount()
		if err != nil {
			return nil, true, err
		}
		if p.peek().isPunct(",") {
			p.i++
			st.Offset = n
			if n, err = p.parseCount(); err != nil {
				return nil, true, err
			}
		}
		st.Limit = n
	}
	return st, true, p.expectEnd()
}

// parseCount parses a non-negative integer literal.
func (p *ownParser) parseCount() (int64, error) {
	t := p.peek()
	if t.kind == tkNumber {
		if n, err := strconv.ParseInt(t.val, 10, 64); err == nil && n >= 0 {
			p.i++
			return n, nil
		}
	}
	return 0, p.unexpected("a row count")
}
