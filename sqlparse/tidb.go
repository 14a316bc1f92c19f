package sqlparse

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	// test_driver supplies the value-expression implementation the parser needs for literals
	// without linking TiDB itself.
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// mappedText is text built for the TiDB parser from pieces of the original script, remembering
// where each piece came from so that positions TiDB reports map back to the original.
type mappedText struct {
	b    strings.Builder
	segs []segment
	// fullJoins counts the FULL [OUTER] JOINs rewritten to STRAIGHT_JOIN,
	// straightJoins the statement's own STRAIGHT_JOIN words.
	fullJoins, straightJoins int
}

type segment struct {
	out, orig, n int
	copied       bool // copied bytes map one to one; synthetic ones all map to orig
}

func (m *mappedText) copyOrig(src string, from, to int) {
	if to <= from {
		return
	}
	m.segs = append(m.segs, segment{out: m.b.Len(), orig: from, n: to - from, copied: true})
	m.b.WriteString(src[from:to])
}

func (m *mappedText) synth(s string, orig int) {
	if s == "" {
		return
	}
	m.segs = append(m.segs, segment{out: m.b.Len(), orig: orig, n: len(s)})
	m.b.WriteString(s)
}

func (m *mappedText) String() string { return m.b.String() }

// toOrig maps an offset of the built text to an offset of the original script.
func (m *mappedText) toOrig(out int) int {
	if len(m.segs) == 0 {
		return 0
	}
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].out > out }) - 1
	if i < 0 {
		return m.segs[0].orig
	}
	s := m.segs[i]
	if out >= s.out+s.n { // past the end
		if s.copied {
			return s.orig + s.n
		}
		return s.orig
	}
	if s.copied {
		return s.orig + (out - s.out)
	}
	return s.orig
}

// rewriteForTiDB renders toks for the TiDB parser: whitespace and comments become single spaces
// (so TiDB never sees MySQL executable comments or hints that lancecat's lexer treated as
// comments), and every dotted name of three or more parts p1...pk becomes `placeholder`.pk, the
// placeholder standing for p1..pk-1 in the returned nameMap.
//
// FULL [OUTER] JOIN (which the TiDB grammar lacks) becomes STRAIGHT_JOIN,
// which takes the same ON and USING; m.fullJoins counts them and
// m.straightJoins the statement's own STRAIGHT_JOINs (the converter
// refuses a statement with both, as it could not tell them apart).
//
// MULTIVECTOR(n) becomes VECTOR(n).
func rewriteForTiDB(sc *script, toks []token, prefix string, names *nameMap) *mappedText {
	m := &mappedText{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if i > 0 && toks[i-1].spaceAfter {
			m.synth(" ", toks[i-1].end)
		}
		if t.is("STRAIGHT_JOIN") {
			m.straightJoins++
		}
		if t.is("FULL") && !(i > 0 && toks[i-1].is("AS")) && i+1 < len(toks) {
			j := i + 1
			if toks[j].is("OUTER") && j+1 < len(toks) {
				j++
			}
			if toks[j].is("JOIN") {
				m.fullJoins++
				m.synth("STRAIGHT_JOIN", t.start)
				i = j
				continue
			}
		}
		if t.is("MULTIVECTOR") && i+1 < len(toks) && toks[i+1].isPunct("(") && !(i > 0 && toks[i-1].isPunct(".")) {
			// lancecat's MULTIVECTOR(n) type: TiDB parses it as VECTOR(n),
			// and the converter reads the word back from the column's
			// tokens (converter.columnType)
			m.synth("VECTOR", t.start)
			continue
		}
		if t.isNamePart() && !(i > 0 && toks[i-1].isPunct(".")) {
			// Collect the chain t ('.' part)*.
			j := i
			for j+2 < len(toks) && toks[j+1].isPunct(".") && toks[j+2].isNamePart() {
				j += 2
			}
			nparts := (j-i)/2 + 1
			if nparts >= 3 {
				if names.prefixes == nil {
					names.prefixes = map[string]Name{}
				}
				var folded Name
				for k := i; k < j; k += 2 {
					folded = append(folded, toks[k].val)
				}
				ph := prefix + strconv.Itoa(len(names.prefixes))
				names.prefixes[ph] = folded
				m.synth("`"+ph+"`.", t.start)
				m.copyOrig(sc.src, toks[j].start, toks[j].end)
				i = j
				continue
			}
		}
		m.copyOrig(sc.src, t.start, t.end)
	}
	return m
}

var tidbPosRE = regexp.MustCompile(`^line (\d+) column (\d+) near "`)

// runTiDB parses text with the TiDB parser and maps a syntax error back to the original script.
func runTiDB(sc *script, m *mappedText, stmtStart int) (nodes []ast.StmtNode, err error) {
	// A parser per statement, never pooled: the TiDB parser reuses the
	// memory of the nodes it returned on its next Parse, while the caller
	// is still converting them (a data race the race detector found when a
	// pooled parser served another connection).
	p := parser.New()
	defer func() {
		// The TiDB parser is not expected to panic; if it ever does, report a syntax error rather
		// than crash the caller.
		if r := recover(); r != nil {
			nodes, err = nil, sc.errAt(stmtStart, ErrSyntax, fmt.Sprintf("cannot parse statement: %v", r))
		}
	}()
	text := m.String()
	nodes, _, err = p.Parse(text, "", "")
	if err != nil {
		return nil, tidbError(sc, m, text, stmtStart, err)
	}
	return nodes, nil
}

// tidbError converts a TiDB parser error. TiDB's syntax errors read
// `line L column C near "REST"MSG` where REST is the text from the offending token to the end
// (cut at 2048 bytes, then followed by "(total length N)"): the offending token's offset is
// recovered from REST and mapped to the original script.
func tidbError(sc *script, m *mappedText, text string, stmtStart int, err error) error {
	msg := err.Error()
	loc := tidbPosRE.FindStringIndex(msg)
	if loc == nil {
		// Not a positioned syntax error (e.g. a semantic check inside the grammar).
		msg = strings.TrimPrefix(msg, "[parser:1064]")
		return sc.errAt(stmtStart, ErrSyntax, msg)
	}
	rest := msg[loc[1]:]
	off := -1
	if i := strings.LastIndex(rest, "(total length "); i >= 0 {
		if n, e := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest[i+len("(total length "):]), ")")); e == nil && n <= len(text) {
			off = len(text) - n
		}
	}
	extra := ""
	if off < 0 {
		for k := 0; k <= len(text); k++ {
			if strings.HasPrefix(rest, text[k:]+`"`) {
				off = k
				extra = strings.TrimSpace(rest[len(text)-k+1:])
				break
			}
		}
	}
	if off < 0 {
		return sc.errAt(stmtStart, ErrSyntax, msg)
	}
	orig := m.toOrig(off)
	detail := "syntax error near " + nearText(sc.src, orig)
	if off >= len(text) {
		detail = "syntax error: unexpected end of statement"
	}
	if extra != "" {
		detail += ": " + extra
	}
	return sc.errAt(orig, ErrSyntax, detail)
}

// parseWhere parses the tokens of a WHERE expression (after the WHERE keyword) with TiDB.
func parseWhere(sc *script, toks []token) (Expr, error) {
	names := &nameMap{}
	body := rewriteForTiDB(sc, toks, sc.placeholderPrefix(), names)
	m := &mappedText{}
	m.synth("SELECT 1 FROM DUAL WHERE ", toks[0].start)
	for _, s := range body.segs {
		s.out += len("SELECT 1 FROM DUAL WHERE ")
		m.segs = append(m.segs, s)
	}
	m.b.WriteString(body.String())
	nodes, err := runTiDB(sc, m, toks[0].start)
	if err != nil {
		return nil, err
	}
	if len(nodes) != 1 {
		return nil, sc.errAt(toks[0].start, ErrSyntax, "invalid WHERE expression")
	}
	sel, ok := nodes[0].(*ast.SelectStmt)
	if !ok || sel.Where == nil {
		return nil, sc.errAt(toks[0].start, ErrSyntax, "invalid WHERE expression")
	}
	// The wrapper query must not have gained clauses from the user's text (e.g. a trailing
	// LIMIT), which would otherwise be silently dropped.
	if sel.GroupBy != nil || sel.Having != nil || len(sel.WindowSpecs) > 0 || sel.OrderBy != nil ||
		sel.Limit != nil || sel.LockInfo != nil || sel.SelectIntoOpt != nil {
		return nil, sc.errAt(toks[0].start, ErrSyntax, "only an expression may follow WHERE in SHOW")
	}
	c := &converter{sc: sc, toks: toks, base: stmtBase{pos: sc.pos(toks[0].start)}, names: names, m: m}
	return c.expr(sel.Where)
}

// parseWithTiDB parses a statement with the TiDB parser and converts the result.
func parseWithTiDB(sc *script, toks []token, base stmtBase) (Statement, error) {
	names := &nameMap{}
	m := rewriteForTiDB(sc, toks, sc.placeholderPrefix(), names)
	start := toks[0].start
	nodes, err := runTiDB(sc, m, start)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			for _, t := range toks {
				if t.kind == tkNamedParam && t.start == e.Pos.Offset {
					return nil, sc.errAt(t.start, ErrSyntax, "unbound placeholder "+sc.src[t.start:t.end])
				}
			}
		}
		return nil, unknownTypeError(sc, toks, err)
	}
	if len(nodes) != 1 {
		return nil, sc.errAt(start, ErrSyntax, "expected one statement")
	}
	c := &converter{sc: sc, toks: toks, base: base, names: names, m: m}
	return c.convert(nodes[0])
}

// converter turns TiDB AST nodes into lancecat statements.
type converter struct {
	sc     *script
	toks   []token
	base   stmtBase
	names  *nameMap
	m      *mappedText // the text TiDB parsed, mapping its offsets back to the script
	params int         // `?` placeholders converted so far
	// windows holds the WINDOW clause of the SELECT being converted.
	windows windowSpecs
}

func (c *converter) notSupported(off int, format string, args ...any) *Error {
	return c.sc.errAt(off, ErrNotSupported, "not supported: "+fmt.Sprintf(format, args...))
}

func (c *converter) start() int { return c.toks[0].start }

func (c *converter) unsupported() *Unsupported {
	return &Unsupported{stmtBase: c.base, Kind: statementKind(c.toks)}
}

func (c *converter) convert(node ast.StmtNode) (Statement, error) {
	switch n := node.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return c.resultSet(n, c.base)
	case *ast.InsertStmt:
		return c.insert(n)
	case *ast.LoadDataStmt:
		return c.loadData(n)
	case *ast.ImportIntoStmt:
		return c.importInto(n)
	case *ast.ExplainStmt:
		return c.convertExplain(n)
	case *ast.CreateTableStmt:
		return c.convertCreateTable(n)
	case *ast.DropTableStmt:
		if n.IsView {
			return c.unsupported(), nil
		}
		if n.TemporaryKeyword != ast.TemporaryNone {
			return nil, c.notSupported(c.start(), "temporary tables")
		}
		st := &DropTable{stmtBase: c.base, IfExists: n.IfExists}
		for _, t := range n.Tables {
			st.Names = append(st.Names, c.names.Table(t))
		}
		return st, nil
	case *ast.RenameTableStmt:
		st := &RenameTable{stmtBase: c.base}
		for _, tt := range n.TableToTables {
			st.Pairs = append(st.Pairs, RenamePair{From: c.names.Table(tt.OldTable), To: c.names.Table(tt.NewTable)})
		}
		return st, nil
	case *ast.AlterTableStmt:
		return c.convertAlterTable(n)
	case *ast.CallStmt:
		return c.convertCall(n)
	case *ast.SetStmt:
		return c.convertSet(n)
	case *ast.DeleteStmt:
		return c.deleteStmt(n)
	case *ast.UpdateStmt:
		return c.updateStmt(n)
	case *ast.BeginStmt:
		if n.Mode != "" || n.CausalConsistencyOnly || n.AsOf != nil {
			return nil, c.notSupported(c.start(), "transaction options of %s", statementKind(c.toks))
		}
		return &Begin{stmtBase: c.base, ReadOnly: n.ReadOnly}, nil
	case *ast.CommitStmt:
		if n.CompletionType != ast.CompletionTypeDefault {
			return nil, c.notSupported(c.start(), "COMMIT AND CHAIN / RELEASE")
		}
		return &Commit{stmtBase: c.base}, nil
	case *ast.RollbackStmt:
		if n.CompletionType != ast.CompletionTypeDefault || n.SavepointName != "" {
			return nil, c.notSupported(c.start(), "ROLLBACK AND CHAIN / RELEASE / TO SAVEPOINT")
		}
		return &Rollback{stmtBase: c.base}, nil
	default:
		return c.unsupported(), nil
	}
}

func (c *converter) convertExplain(n *ast.ExplainStmt) (Statement, error) {
	st := &Explain{stmtBase: c.base, Analyze: n.Analyze, Format: n.Format}
	// The explained statement's tokens are the tail of this statement; positions stay those of
	// the EXPLAIN statement itself.
	switch n.Stmt.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		sel, err := c.resultSet(n.Stmt, c.base)
		if err != nil {
			return nil, err
		}
		st.Stmt = sel
	case *ast.DeleteStmt, *ast.UpdateStmt: // EXPLAIN prints how they find their rows
		var err error
		if d, ok := n.Stmt.(*ast.DeleteStmt); ok {
			st.Stmt, err = c.deleteStmt(d)
		} else {
			st.Stmt, err = c.updateStmt(n.Stmt.(*ast.UpdateStmt))
		}
		if err != nil {
			return nil, err
		}
	default:
		u := c.unsupported()
		if k := explainedKind(c.toks); k != "" {
			u.Kind = k
		}
		st.Stmt = u
	}
	return st, nil
}

// explainedKind names the statement after EXPLAIN [options].
func explainedKind(toks []token) string {
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if t.is("ANALYZE") || t.is("FORMAT") || t.isPunct("=") || t.kind == tkString || (i > 1 && toks[i-1].isPunct("=")) {
			continue
		}
		return statementKind(toks[i:])
	}
	return ""
}

func (c *converter) convertCall(n *ast.CallStmt) (Statement, error) {
	fn := n.Procedure
	st := &Call{stmtBase: c.base, Procedure: c.names.Func(fn.Schema, fn.FnName), Args: []any{}}
	for i, a := range fn.Args {
		v, err := literalValue(a)
		if err != nil {
			return nil, c.notSupported(c.start(), "CALL argument %d: %v", i+1, err)
		}
		st.Args = append(st.Args, v)
	}
	return st, nil
}

var errNotLiteral = errors.New("arguments must be literals")

// literalValue extracts a literal (optionally signed) from a TiDB expression.
func literalValue(e ast.ExprNode) (any, error) {
	neg := false
	for {
		if p, ok := e.(*ast.ParenthesesExpr); ok {
			e = p.Expr
			continue
		}
		u, ok := e.(*ast.UnaryOperationExpr)
		if !ok {
			break
		}
		switch u.Op {
		case opcode.Minus:
			neg = !neg
		case opcode.Plus:
		default:
			return nil, errNotLiteral
		}
		e = u.V
	}
	ve, ok := e.(ast.ValueExpr)
	if !ok {
		return nil, errNotLiteral
	}
	v := ve.GetValue()
	switch x := v.(type) {
	case nil:
		if neg {
			return nil, errNotLiteral
		}
		return nil, nil
	case int64:
		if neg {
			return -x, nil
		}
		return x, nil
	case uint64:
		if neg {
			if x <= 1<<63 {
				return -int64(x), nil
			}
			return nil, fmt.Errorf("integer -%d out of range", x)
		}
		return x, nil
	case float64:
		if neg {
			return -x, nil
		}
		return x, nil
	case string:
		if neg {
			return nil, errNotLiteral
		}
		return x, nil
	case []byte:
		if neg {
			return nil, errNotLiteral
		}
		return append([]byte(nil), x...), nil
	case test_driver.BinaryLiteral:
		if neg {
			return nil, errNotLiteral
		}
		return append([]byte(nil), x...), nil
	case *test_driver.MyDecimal:
		s := x.String()
		if neg {
			s = "-" + s
		}
		return Decimal(s), nil
	default:
		return nil, fmt.Errorf("unsupported literal %T", v)
	}
}
