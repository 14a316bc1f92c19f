package sqlparse

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// Expr is a scalar expression of a statement. Concrete types: *ColumnRef, *Literal, *Param,
// *Paren, *Unary, *Binary, *IsNull, *IsTruth, *InList, *Between, *Like, *Regexp, *FuncCall, *Subquery,
// *Exists, *Quantified, *Variable, *Default (only as a whole value of INSERT ... VALUES) and *ColumnPosition
// (only as a whole ORDER BY or GROUP BY item).
//
// Pos is where the expression starts in the original script. String renders it as SQL text in a
// normal form (keywords upper-case, strings single-quoted, spaces around binary operators,
// parentheses only where the statement had them), the form EXPLAIN and error messages print.
// It is meant for display: quotes in strings are doubled but backslashes and control characters
// are not escaped (as TiDB's restore printed them), so only text without those reads back
// unchanged; use FormatLiteral to build SQL from values.
type Expr interface {
	Pos() Pos
	String() string
	expr()
}

// exprPos carries an expression's position.
type exprPos struct{ P Pos }

func (e *exprPos) Pos() Pos { return e.P }
func (e *exprPos) expr()    {}

// ColumnRef is a column reference: `col`, `t.col`, `prod.ml.events.col`. Qualifier is the table
// name before the column (nil when unqualified), with multi-part names restored. A column named
// outside an expression (INSERT's column list, an assignment's target) has the statement's
// position.
type ColumnRef struct {
	exprPos
	Qualifier Name
	Column    string
}

// LiteralKind is the SQL type of a literal.
type LiteralKind int

const (
	// LitNull is NULL; Value is nil.
	LitNull LiteralKind = iota + 1
	// LitBool is TRUE or FALSE; Value is a bool.
	LitBool
	// LitInt is an integer that fits int64; Value is an int64.
	LitInt
	// LitUint is an integer above math.MaxInt64; Value is a uint64.
	LitUint
	// LitFloat is an approximate number written with an exponent (1.5e0); Value is a float64.
	LitFloat
	// LitDecimal is an exact number with a fraction (1.50); Value is a Decimal (its text).
	LitDecimal
	// LitString is a quoted string; Value is a string.
	LitString
	// LitBinary is a hexadecimal or bit literal (X'41', 0x41, b'101'); Value is a []byte.
	LitBinary
)

var literalKindNames = map[LiteralKind]string{
	LitNull: "NULL", LitBool: "BOOL", LitInt: "INT", LitUint: "UINT", LitFloat: "FLOAT",
	LitDecimal: "DECIMAL", LitString: "STRING", LitBinary: "BINARY",
}

func (k LiteralKind) String() string {
	if s, ok := literalKindNames[k]; ok {
		return s
	}
	return "UNKNOWN"
}

// Literal is a constant. Bound placeholder arguments arrive as literals too (Bind renders them
// as SQL literals). A leading minus sign is a *Unary around the literal, as written.
type Literal struct {
	exprPos
	Kind  LiteralKind
	Value any // see LiteralKind
}

// Param is a `?` placeholder left in text that was parsed without Bind. Ordinal counts
// placeholders from 1 in order of appearance. The planner refuses it (the driver binds every
// placeholder before parsing).
type Param struct {
	exprPos
	Ordinal int
}

// Paren is an expression in parentheses, kept so that String prints what was written.
type Paren struct {
	exprPos
	X Expr
}

// UnaryOp is a prefix operator.
type UnaryOp int

const (
	OpNot    UnaryOp = iota + 1 // NOT x, !x
	OpNeg                       // -x
	OpPlus                      // +x
	OpBitNeg                    // ~x
)

var unaryOpText = map[UnaryOp]string{OpNot: "NOT ", OpNeg: "-", OpPlus: "+", OpBitNeg: "~"}

// String returns the operator as SQL ("NOT ", "-", "+", "~").
func (op UnaryOp) String() string { return unaryOpText[op] }

// Unary is a prefix operator applied to X.
type Unary struct {
	exprPos
	Op UnaryOp
	X  Expr
}

// BinaryOp is an infix operator.
type BinaryOp int

const (
	OpAnd        BinaryOp = iota + 1 // AND, &&
	OpOr                             // OR, ||
	OpXor                            // XOR (logical)
	OpEQ                             // =
	OpNE                             // <>, !=
	OpLT                             // <
	OpLE                             // <=
	OpGT                             // >
	OpGE                             // >=
	OpNullEQ                         // <=> (NULL-safe equality)
	OpAdd                            // +
	OpSub                            // -
	OpMul                            // *
	OpDiv                            // /
	OpIntDiv                         // DIV
	OpMod                            // %, MOD
	OpBitAnd                         // &
	OpBitOr                          // |
	OpBitXor                         // ^
	OpShiftLeft                      // <<
	OpShiftRight                     // >>
)

var binaryOpText = map[BinaryOp]string{
	OpAnd: "AND", OpOr: "OR", OpXor: "XOR", OpEQ: "=", OpNE: "!=", OpLT: "<", OpLE: "<=", OpGT: ">",
	OpGE: ">=", OpNullEQ: "<=>", OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpIntDiv: "DIV",
	OpMod: "%", OpBitAnd: "&", OpBitOr: "|", OpBitXor: "^", OpShiftLeft: "<<", OpShiftRight: ">>",
}

// String returns the operator as SQL ("AND", "=", "<=>", "+", ...).
func (op BinaryOp) String() string { return binaryOpText[op] }

// IsComparison reports whether op is =, <>, <, <=, >, >= or <=>.
func (op BinaryOp) IsComparison() bool { return op >= OpEQ && op <= OpNullEQ }

// IsLogical reports whether op is AND, OR or XOR.
func (op BinaryOp) IsLogical() bool { return op >= OpAnd && op <= OpXor }

// Binary is L op R.
type Binary struct {
	exprPos
	Op   BinaryOp
	L, R Expr
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	exprPos
	X   Expr
	Not bool
}

// IsTruth is X IS [NOT] TRUE|FALSE.
type IsTruth struct {
	exprPos
	X    Expr
	Not  bool
	True bool // IS TRUE (else IS FALSE)
}

// InList is X [NOT] IN (list) or X [NOT] IN (subquery): exactly one of List and Subquery is set.
type InList struct {
	exprPos
	X        Expr
	Not      bool
	List     []Expr
	Subquery *Select
	// Implied marks a conjunct the planner added (a semi-join reduction
	// of a correlated subquery), never one the query wrote: it holds for
	// every row that matters, so the planner may drop it where a key
	// filter on X does its work.
	Implied bool
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	exprPos
	X, Lo, Hi Expr
	Not       bool
}

// Like is X [NOT] LIKE|ILIKE Pattern [ESCAPE 'c']. Escape is the escape character: '\\' unless
// an ESCAPE clause names another, 0 for ESCAPE ” (no escape character).
type Like struct {
	exprPos
	X, Pattern      Expr
	Not             bool
	CaseInsensitive bool // ILIKE
	Escape          byte
}

// Regexp is X [NOT] REGEXP|RLIKE Pattern.
type Regexp struct {
	exprPos
	X, Pattern Expr
	Not        bool
}

// FuncCall is a function call: name(args), an aggregate such as COUNT(*), COUNT(DISTINCT x),
// SUM(x), or scalar functions such as LOWER(x). Name is as written, upper-cased for the
// functions whose names are SQL keywords (CONCAT, IF, LEFT, ...); compare it with
// strings.EqualFold. Aggregate is set for the aggregate functions (COUNT, SUM, AVG, MIN, MAX,
// GROUP_CONCAT, BIT_AND, STDDEV, ... as the MySQL grammar knows them). Star is COUNT(*) (then
// Args is empty); Distinct is an aggregate's DISTINCT.
type FuncCall struct {
	exprPos
	Name      string
	Args      []Expr
	Aggregate bool
	Distinct  bool
	Star      bool
	// Over is the OVER clause of a window function call (window.go), nil
	// for a plain call.
	Over *Window
	// Concat is set for GROUP_CONCAT (window.go).
	Concat *GroupConcat
}

// Subquery is a scalar subquery: (SELECT ...).
type Subquery struct {
	exprPos
	Select *Select
}

// Quantified is X op ANY (SELECT ...) or X op ALL (SELECT ...) (SOME is ANY), op one of =,
// <>, <, <=, >, >=. X = ANY (...) is X IN (...); X <> ALL (...) is X NOT IN (...).
type Quantified struct {
	exprPos
	X      Expr
	Op     BinaryOp
	All    bool
	Select *Select
}

// Exists is [NOT] EXISTS (SELECT ...).
type Exists struct {
	exprPos
	Select *Select
	Not    bool
}

// Variable is a variable read in an expression: @@name, @@session.name, @@global.name (a system
// variable; Scope ScopeSession or ScopeGlobal) or @name (a user variable, ScopeUser). Name is
// lower-cased for system variables. Explicit is set when the scope was written (@@session.x).
type Variable struct {
	exprPos
	Scope    Scope
	Name     string
	Explicit bool
}

// Default is DEFAULT as a value of INSERT ... VALUES.
type Default struct{ exprPos }

// ColumnPosition is a 1-based position in the select list used as an ORDER BY or GROUP BY item
// (ORDER BY 2).
type ColumnPosition struct {
	exprPos
	N int
}

func (e *ColumnRef) String() string {
	return append(append(Name(nil), e.Qualifier...), e.Column).String()
}

func (e *Literal) String() string {
	switch v := e.Value.(type) {
	case nil:
		return "NULL"
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'e', -1, 64)
	case Decimal:
		return string(v)
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case []byte:
		return "x'" + hex.EncodeToString(v) + "'"
	}
	return "?"
}

func (e *Param) String() string  { return "?" }
func (e *Paren) String() string  { return exprString(e) }
func (e *Unary) String() string  { return exprString(e) }
func (e *Binary) String() string { return exprString(e) }
func (e *IsNull) String() string { return exprString(e) }
func (e *IsTruth) String() string {
	return exprString(e)
}
func (e *InList) String() string  { return exprString(e) }
func (e *Between) String() string { return exprString(e) }
func (e *Like) String() string    { return exprString(e) }
func (e *Regexp) String() string  { return exprString(e) }
func (e *FuncCall) String() string {
	return exprString(e)
}

// exprString renders e into one buffer: concatenating the children's
// strings at every level would copy a long chain (a OR b OR ...) once per
// link, quadratic in its length.
func exprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

// writeExpr appends e's SQL text to b (the form String documents).
func writeExpr(b *strings.Builder, e Expr) {
	switch n := e.(type) {
	case *Paren:
		b.WriteByte('(')
		writeExpr(b, n.X)
		b.WriteByte(')')
	case *Unary:
		b.WriteString(n.Op.String())
		writeExpr(b, n.X)
	case *Binary:
		// The left operand of a chain is the deep side: walk it in a loop.
		spine := []*Binary{n}
		for {
			l, ok := spine[len(spine)-1].L.(*Binary)
			if !ok {
				break
			}
			spine = append(spine, l)
		}
		writeExpr(b, spine[len(spine)-1].L)
		for i := len(spine) - 1; i >= 0; i-- {
			b.WriteByte(' ')
			b.WriteString(spine[i].Op.String())
			b.WriteByte(' ')
			writeExpr(b, spine[i].R)
		}
	case *IsNull:
		writeExpr(b, n.X)
		if n.Not {
			b.WriteString(" IS NOT NULL")
		} else {
			b.WriteString(" IS NULL")
		}
	case *IsTruth:
		writeExpr(b, n.X)
		b.WriteString(" IS ")
		if n.Not {
			b.WriteString("NOT ")
		}
		if n.True {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case *InList:
		writeExpr(b, n.X)
		b.WriteString(not(n.Not) + " IN (")
		if n.Subquery != nil {
			b.WriteString(n.Subquery.String())
		} else {
			writeExprs(b, n.List, ",")
		}
		b.WriteByte(')')
	case *Between:
		writeExpr(b, n.X)
		b.WriteString(not(n.Not) + " BETWEEN ")
		writeExpr(b, n.Lo)
		b.WriteString(" AND ")
		writeExpr(b, n.Hi)
	case *Like:
		writeExpr(b, n.X)
		b.WriteString(not(n.Not))
		if n.CaseInsensitive {
			b.WriteString(" ILIKE ")
		} else {
			b.WriteString(" LIKE ")
		}
		writeExpr(b, n.Pattern)
		switch n.Escape {
		case '\\':
		case 0:
			b.WriteString(" ESCAPE ''")
		default:
			b.WriteString(" ESCAPE " + (&Literal{Value: string([]byte{n.Escape})}).String())
		}
	case *Regexp:
		writeExpr(b, n.X)
		b.WriteString(not(n.Not) + " REGEXP ")
		writeExpr(b, n.Pattern)
	case *FuncCall:
		if n.Over != nil || n.Concat != nil {
			writeWindowCall(b, n)
			return
		}
		if s := n.specialString(); s != "" && !n.Aggregate {
			b.WriteString(s) // CAST, CASE, INTERVAL... in their own syntax
			return
		}
		name := n.Name
		if n.Aggregate {
			name = strings.ToUpper(name)
		}
		b.WriteString(name)
		switch {
		case n.Star:
			b.WriteString("(*)")
			return
		case n.Distinct:
			b.WriteString("(DISTINCT ")
		default:
			b.WriteByte('(')
		}
		writeExprs(b, n.Args, ", ")
		b.WriteByte(')')
	default:
		b.WriteString(e.String())
	}
}

func writeExprs(b *strings.Builder, es []Expr, sep string) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(sep)
		}
		writeExpr(b, e)
	}
}

func (e *Subquery) String() string { return "(" + e.Select.String() + ")" }
func (e *Quantified) String() string {
	q := " ANY ("
	if e.All {
		q = " ALL ("
	}
	return e.X.String() + " " + e.Op.String() + q + e.Select.String() + ")"
}
func (e *Exists) String() string {
	if e.Not {
		return "NOT EXISTS (" + e.Select.String() + ")"
	}
	return "EXISTS (" + e.Select.String() + ")"
}
func (e *Default) String() string { return "DEFAULT" }
func (e *Variable) String() string {
	switch {
	case e.Scope == ScopeUser:
		return "@" + e.Name
	case e.Scope == ScopeGlobal:
		return "@@global." + e.Name
	case e.Explicit:
		return "@@session." + e.Name
	}
	return "@@" + e.Name
}
func (e *ColumnPosition) String() string { return strconv.Itoa(e.N) }

func not(b bool) string {
	if b {
		return " NOT"
	}
	return ""
}

func joinExprs(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, sep)
}

// Inspect walks the expression tree rooted at e in depth-first order, calling f for each node
// before its children; when f returns false the node's children are skipped. Inspect does not
// enter the *Select of a subquery (its names belong to another scope); f sees the *Subquery,
// *Exists, *Quantified or *InList node itself.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch n := e.(type) {
	case *Paren:
		Inspect(n.X, f)
	case *Unary:
		Inspect(n.X, f)
	case *Binary:
		Inspect(n.L, f)
		Inspect(n.R, f)
	case *IsNull:
		Inspect(n.X, f)
	case *IsTruth:
		Inspect(n.X, f)
	case *Quantified:
		Inspect(n.X, f)
	case *InList:
		Inspect(n.X, f)
		for _, x := range n.List {
			Inspect(x, f)
		}
	case *Between:
		Inspect(n.X, f)
		Inspect(n.Lo, f)
		Inspect(n.Hi, f)
	case *Like:
		Inspect(n.X, f)
		Inspect(n.Pattern, f)
	case *Regexp:
		Inspect(n.X, f)
		Inspect(n.Pattern, f)
	case *FuncCall:
		for _, x := range n.Args {
			Inspect(x, f)
		}
	case *Match:
		for _, c := range n.Columns {
			Inspect(c, f)
		}
		Inspect(n.Query, f)
	}
}

// StripParens returns e without any enclosing parentheses.
func StripParens(e Expr) Expr {
	for {
		p, ok := e.(*Paren)
		if !ok {
			return e
		}
		e = p.X
	}
}
