// Package sqlparse turns lancecat SQL text (MySQL dialect) into lancecat's statement and
// expression types. It splits scripts into statements, keeps positions in the original text for
// every error, handles multi-part names (`prod.ml.events`) that the TiDB parser does not accept,
// parses the namespace (SCHEMA/DATABASE/NAMESPACE) statements and SHOW forms itself, and
// delegates the rest (CREATE/ALTER/DROP/RENAME TABLE, CALL, transactions, SELECT, INSERT,
// EXPLAIN and anything else) to github.com/pingcap/tidb/pkg/parser. It is the only package that
// imports the TiDB parser: its AST is converted here and never leaves the package. It knows
// nothing about storage.
//
// A script is parsed statement by statement: Statements yields each statement in order and stops
// at the first error, so a caller (the driver) can execute the statements before a syntax error
// and then report it. Parse collects the same: the successfully parsed prefix and the error.
//
// # Queries and expressions
//
// A query is a *Select: Items (expressions with an optional Alias, or a Star with an optional
// Qualifier), From (a *TableSource naming a multi-part table or holding a derived *Select, or a
// *Join tree), Where, GroupBy, Having, OrderBy (OrderItem with Desc), Limit (Count, Offset),
// Distinct, and SetOps for UNION/EXCEPT/INTERSECT. INSERT is an *Insert (Table, Columns, Rows of
// expressions or a Query, OnDuplicate assignments); SHOW ... WHERE keeps its condition in
// Filter.Where.
//
// An Expr is one of: *ColumnRef (Qualifier, Column), *Literal (Kind: NULL, BOOL, INT, UINT,
// FLOAT, DECIMAL, STRING, BINARY; bound placeholders arrive as literals), *Param (a `?` in
// text parsed without Bind), *Paren, *Unary (NOT, -, +, ~), *Binary (AND, OR, XOR, comparisons,
// <=>, arithmetic, bit operators), *IsNull, *IsTruth, *InList (a list or a subquery),
// *Between, *Like (with ILIKE and ESCAPE), *Regexp, *FuncCall (Name, Args; Aggregate, Distinct
// and Star describe COUNT(*), COUNT(DISTINCT x), SUM(x), ...), *Subquery and *Exists (a nested
// *Select), *Default (a VALUES item) and *ColumnPosition (ORDER BY 2, GROUP BY 1). Every
// expression has Pos, its place in the script, and String, SQL text in a normal form that
// EXPLAIN and error messages print; Inspect walks a tree. Aggregates and GROUP BY/HAVING are
// represented in full; whether they run is the planner's business.
//
// Forms with no type here fail to parse with an *Error wrapping ErrNotSupported, "not
// supported: KIND", positioned at the expression (CASE, CAST, variables, row constructors,
// ANY/ALL subqueries, window functions, functions with their own syntax such as TRIM(LEADING
// ...), DATE '...' literals) or at the statement (WITH, SELECT ... INTO, FOR UPDATE, TABLE and
// VALUES statements, AS OF, INSERT ... SET, INSERT IGNORE). Statements the TiDB parser knows
// but lancecat does not run (UPDATE, DELETE, REPLACE, GRANT, ...) are *Unsupported, named by
// Kind.
package sqlparse

import (
	"fmt"
	"iter"
	"sort"
	"strings"
	"unicode/utf8"
)

// script is the original text with a line index for fast positions.
type script struct {
	src        string
	lineStarts []int
	// lineASCII[i] reports whether line i holds only ASCII bytes, whose columns are byte
	// offsets; other lines count runes from a remembered position (lastOff, lastCol) when
	// offsets grow, as they do while a long INSERT's literals are converted, so positions on
	// one long line cost O(line) in all rather than O(line) each.
	lineASCII []bool
	lastLine  int
	lastOff   int
	lastCol   int
	phPrefix  string // placeholder prefix for folded names, computed on first use
}

// placeholderPrefix returns an identifier prefix that does not occur in the script, so folded
// names cannot collide with the user's identifiers.
func (s *script) placeholderPrefix() string {
	if s.phPrefix == "" {
		prefix := "__lancecat_name_"
		lower := strings.ToLower(s.src)
		for strings.Contains(lower, prefix) {
			prefix += "x_"
		}
		s.phPrefix = prefix
	}
	return s.phPrefix
}

func newScript(src string) *script {
	s := &script{src: src, lineStarts: []int{0}, lastLine: -1}
	ascii := true
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\n':
			s.lineStarts = append(s.lineStarts, i+1)
			s.lineASCII = append(s.lineASCII, ascii)
			ascii = true
		case src[i] >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.lineASCII = append(s.lineASCII, ascii)
	return s
}

func (s *script) pos(off int) Pos {
	if off < 0 {
		off = 0
	}
	if off > len(s.src) {
		off = len(s.src)
	}
	line := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off }) - 1
	start := s.lineStarts[line]
	var col int
	switch {
	case s.lineASCII[line]:
		col = 1 + off - start
	case line == s.lastLine && off >= s.lastOff:
		col = s.lastCol + utf8.RuneCountInString(s.src[s.lastOff:off])
	default:
		col = 1 + utf8.RuneCountInString(s.src[start:off])
	}
	s.lastLine, s.lastOff, s.lastCol = line, off, col
	return Pos{Line: line + 1, Column: col, Offset: off}
}

func (s *script) errAt(off int, kind error, msg string) *Error {
	return &Error{Pos: s.pos(off), Msg: msg, Kind: kind}
}

// Parse parses a whole script: statements separated by ';' (outside strings, backquoted names and
// comments), empty statements ignored. On error it returns the statements parsed before the
// failing one together with the error (an *Error, positioned in sql), so the caller may run the
// prefix in order and then report the error.
func Parse(sql string) ([]Statement, error) {
	var out []Statement
	for st, err := range Statements(sql) {
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseOne parses text that must hold exactly one statement (a trailing ';' is allowed).
func ParseOne(sql string) (Statement, error) {
	stmts, err := Parse(sql)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 1:
		return stmts[0], nil
	case 0:
		return nil, &Error{Pos: Pos{Line: 1, Column: 1}, Msg: "empty statement", Kind: ErrSyntax}
	default:
		return nil, &Error{Pos: stmts[1].Position(), Msg: "expected exactly one statement", Kind: ErrSyntax}
	}
}

// Statements parses sql lazily: it yields each statement in order, or, at the first failing
// statement, (nil, err) and stops. Each statement is parsed only when the loop reaches it.
func Statements(sql string) iter.Seq2[Statement, error] {
	return func(yield func(Statement, error) bool) {
		sc := newScript(sql)
		if len(sql) > MaxScriptBytes {
			yield(nil, &Error{Pos: Pos{Line: 1, Column: 1}, Kind: ErrLimit,
				Msg: fmt.Sprintf("SQL text of %d bytes exceeds the limit of %d bytes", len(sql), MaxScriptBytes)})
			return
		}
		toks, lerr := lex(sql, 0, len(sql))
		begin := 0
		for i := 0; i <= len(toks); i++ {
			if i < len(toks) && !toks[i].isPunct(";") {
				continue
			}
			if i == len(toks) && lerr != nil {
				// The statement holding the lexical error never terminated properly.
				yield(nil, sc.errAt(lerr.off, ErrSyntax, lerr.msg))
				return
			}
			chunk := toks[begin:i]
			begin = i + 1
			if len(chunk) == 0 {
				continue
			}
			if off, ok := tooDeep(chunk); !ok {
				yield(nil, sc.errAt(off, ErrLimit, fmt.Sprintf("expression nests deeper than %d levels", MaxExpressionDepth)))
				return
			}
			if off, ok := tooLongChain(chunk); !ok {
				yield(nil, sc.errAt(off, ErrLimit, fmt.Sprintf("expression has a chain of more than %d operators (split it, or use IN (...) for a list of alternatives)", MaxOperatorChain)))
				return
			}
			if n := chunk[len(chunk)-1].end - chunk[0].start; n > MaxStatementBytes {
				yield(nil, sc.errAt(chunk[0].start, ErrLimit, fmt.Sprintf("statement of %d bytes exceeds the limit of %d bytes (split it, e.g. INSERT in several statements)", n, MaxStatementBytes)))
				return
			}
			st, err := parseStatement(sc, chunk)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(st, nil) {
				return
			}
		}
	}
}

// tooDeep checks a statement's parenthesis depth and its chains of prefix
// operators against MaxExpressionDepth; it returns the offset where the
// limit is crossed and false when it is.
func tooDeep(toks []token) (int, bool) {
	depth, chain := 0, 0
	for _, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
			if depth > MaxExpressionDepth {
				return t.start, false
			}
		case t.isPunct(")"):
			depth--
		}
		if t.is("NOT") || t.isPunct("!") || t.isPunct("-") || t.isPunct("+") || t.isPunct("~") {
			chain++
			if chain > MaxExpressionDepth {
				return t.start, false
			}
		} else if !t.isPunct("(") {
			chain = 0
		}
	}
	return 0, true
}

// binaryOperatorWords are the keywords that join two operands.
var binaryOperatorWords = map[string]bool{
	"AND": true, "OR": true, "XOR": true, "DIV": true, "MOD": true, "LIKE": true, "ILIKE": true,
	"REGEXP": true, "RLIKE": true, "BETWEEN": true, "IS": true, "IN": true, "SOUNDS": true,
}

// isBinaryOperator reports whether t may join two operands (an
// over-approximation: '*' of SELECT * and a column named MOD count too).
func isBinaryOperator(t token) bool {
	switch t.kind {
	case tkPunct:
		switch t.val {
		case "(", ")", ",", ".", ";", "@", "?":
			return false
		}
		return true
	case tkIdent:
		return binaryOperatorWords[strings.ToUpper(t.val)]
	}
	return false
}

// tooLongChain bounds the depth of the expression tree a statement's
// binary operators can build: `1+1+...+1` is a tree as deep as it has
// operators, and the parser, the converter, the planner and the printers
// all walk trees recursively. For each operand list (the text between
// commas at one parenthesis level) it counts the operators, adds the
// deepest parenthesised group inside it, and adds the operators of the
// enclosing lists seen so far: an upper bound of the tree's depth along
// each path. It returns the offset where MaxOperatorChain is crossed and
// false when it is. Long lists of values (IN (1, 2, ...), VALUES rows)
// are not chains and stay unlimited here.
func tooLongChain(toks []token) (int, bool) {
	type level struct{ ops, inner, best int }
	stack := []level{{}}
	above := 0 // operators of the enclosing levels' current lists
	for _, t := range toks {
		cur := &stack[len(stack)-1]
		switch {
		case t.isPunct("("):
			above += cur.ops
			stack = append(stack, level{})
			continue
		case t.isPunct(")"):
			if len(stack) == 1 {
				continue // unbalanced: the parser reports it
			}
			group := max(cur.best, cur.ops+cur.inner) + 1
			stack = stack[:len(stack)-1]
			cur = &stack[len(stack)-1]
			above -= cur.ops
			cur.inner = max(cur.inner, group)
		case t.isPunct(","):
			cur.best = max(cur.best, cur.ops+cur.inner)
			cur.ops, cur.inner = 0, 0
			continue
		case isBinaryOperator(t):
			cur.ops++
		default:
			continue
		}
		if above+cur.ops+cur.inner > MaxOperatorChain {
			return t.start, false
		}
	}
	return 0, true
}

// parseStatement parses one statement's tokens (non-empty, without ';').
func parseStatement(sc *script, toks []token) (Statement, error) {
	start, end := toks[0].start, toks[len(toks)-1].end
	base := stmtBase{pos: sc.pos(start), text: sc.src[start:end]}
	// EXPLAIN SHOW ... (the TiDB grammar explains queries only).
	if len(toks) > 1 && (toks[0].is("EXPLAIN") || toks[0].is("DESCRIBE") || toks[0].is("DESC")) && toks[1].is("SHOW") {
		inner, err := parseStatement(sc, toks[1:])
		if err != nil {
			return nil, err
		}
		return &Explain{stmtBase: base, Stmt: inner}, nil
	}
	p := &ownParser{sc: sc, toks: toks, base: base}
	if st, handled, err := p.parseOwn(); handled {
		return st, err
	}
	toks, alias := cutRowAlias(toks)
	st, err := parseWithTiDB(sc, toks, base)
	if err == nil && alias != nil {
		err = applyRowAlias(st, alias)
	}
	return st, err
}

// statementKind names a statement from its leading words, e.g. "INSERT", "CREATE VIEW",
// "SHOW VARIABLES".
func statementKind(toks []token) string {
	var words []string
	for _, t := range toks {
		if t.kind != tkIdent {
			break
		}
		words = append(words, strings.ToUpper(t.val))
		if len(words) >= 4 {
			break
		}
	}
	if len(words) == 0 {
		return "statement"
	}
	switch words[0] {
	case "CREATE", "DROP", "ALTER", "SHOW":
		skip := map[string]bool{"OR": true, "REPLACE": true, "TEMPORARY": true, "GLOBAL": true, "SESSION": true,
			"UNIQUE": true, "FULLTEXT": true, "SPATIAL": true, "FULL": true, "EXTENDED": true, "ONLINE": true, "OFFLINE": true}
		for _, w := range words[1:] {
			if skip[w] {
				continue
			}
			if w == "CREATE" && words[0] == "SHOW" {
				continue
			}
			if words[0] == "SHOW" && len(words) > 1 && words[1] == "CREATE" {
				return "SHOW CREATE " + w
			}
			return words[0] + " " + w
		}
	}
	return words[0]
}
