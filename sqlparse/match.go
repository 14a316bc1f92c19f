package sqlparse

import "strings"

// Match is MySQL's full-text search function MATCH (col, ...) AGAINST ('query'
// [IN NATURAL LANGUAGE MODE | IN BOOLEAN MODE]), also written as TiDB's
// FTS_MATCH_WORD('query', col) (Word). Its value is the row's relevance (a
// BM25 score, larger is better; 0 when the row does not match); as a
// condition it keeps the matching rows.
type Match struct {
	exprPos
	Columns []*ColumnRef
	Query   Expr
	Boolean bool // IN BOOLEAN MODE
	Word    bool // written FTS_MATCH_WORD(query, col)
}

func (e *Match) String() string {
	if e.Word {
		return "FTS_MATCH_WORD(" + e.Query.String() + ", " + e.Columns[0].String() + ")"
	}
	cols := make([]string, len(e.Columns))
	for i, c := range e.Columns {
		cols[i] = c.String()
	}
	mode := ""
	if e.Boolean {
		mode = " IN BOOLEAN MODE"
	}
	return "MATCH (" + strings.Join(cols, ", ") + ") AGAINST (" + e.Query.String() + mode + ")"
}
