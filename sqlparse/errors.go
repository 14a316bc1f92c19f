package sqlparse

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Pos is a position in the original script.
type Pos struct {
	Line   int // 1-based line
	Column int // 1-based column, counted in Unicode code points (a tab counts as one)
	Offset int // 0-based byte offset in the script
}

func (p Pos) String() string { return fmt.Sprintf("line %d column %d", p.Line, p.Column) }

// Sentinel errors, matchable with errors.Is on any error returned by this package.
var (
	// ErrSyntax marks text that is not valid SQL for lancecat.
	ErrSyntax = errors.New("syntax error")
	// ErrNotSupported marks valid SQL that lancecat does not support (a statement kind, a clause,
	// a column type or option).
	ErrNotSupported = errors.New("not supported")
	// ErrBind marks a failure to bind placeholder arguments.
	ErrBind = errors.New("cannot bind arguments")
	// ErrLimit marks input beyond one of the documented limits (script or
	// statement size, vector dimension).
	ErrLimit = errors.New("limit exceeded")
)

// Limits on SQL input. Text beyond them is refused before it is parsed, so
// that one statement cannot make the parser (or what it feeds) use memory
// out of proportion.
const (
	// MaxScriptBytes bounds the text given to Parse, Statements or Bind
	// (after binding, for Statements).
	MaxScriptBytes = 64 << 20
	// MaxStatementBytes bounds one statement of a script.
	MaxStatementBytes = 16 << 20
	// MaxExpressionDepth bounds the nesting of parentheses and the length
	// of a chain of prefix operators (NOT NOT ..., - - ...): the parser and
	// the planner walk expressions recursively, and a deep enough chain
	// would exhaust the goroutine stack, which no recover survives.
	MaxExpressionDepth = 1000
	// MaxOperatorChain bounds the depth a chain of binary operators
	// (a OR b OR ..., 1+1+...) can give an expression tree, counted as
	// tooLongChain does. MySQL flattens AND/OR chains; lancecat's trees
	// are binary and walked recursively, so a chain of a million terms
	// would exhaust the goroutine stack (a fatal error, not a panic).
	MaxOperatorChain = 10000
)

// Error is a SQL error at a position of the original script. It wraps ErrSyntax or
// ErrNotSupported.
type Error struct {
	Pos  Pos
	Msg  string // message without the position
	Kind error  // ErrSyntax or ErrNotSupported
}

func (e *Error) Error() string {
	return fmt.Sprintf("line %d column %d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

// Unwrap returns the sentinel (ErrSyntax or ErrNotSupported).
func (e *Error) Unwrap() error { return e.Kind }

// posAt converts a byte offset of src to a Pos. Offsets outside src are clamped.
func posAt(src string, off int) Pos {
	if off < 0 {
		off = 0
	}
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	return Pos{Line: line, Column: 1 + utf8.RuneCountInString(src[lineStart:off]), Offset: off}
}

// nearText returns a short excerpt of src at off for error messages.
func nearText(src string, off int) string {
	if off >= len(src) {
		return "end of input"
	}
	s := src[off:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return fmt.Sprintf("%q", s)
}
