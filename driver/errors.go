package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/storage"
)

// Code is a Lance namespace error code (see catalog.Code); Code.String()
// is its specification name ("TableNotFound").
type Code = catalog.Code

// Error is the one error type of the driver: a Lance namespace error code,
// a message, and, for errors of a statement, the statement's text and the
// line and column (1-based) of the error in the text given to Exec/Query
// (the statement start, or the exact spot of a syntax error).
//
// errors.Is(err, ErrTableNotFound) and the other sentinels match by code;
// errors.Is(err, ErrSyntax) matches syntax errors; errors.Is(err,
// context.Canceled) matches a cancelled statement. Unwrap gives the cause.
type Error struct {
	Code      Code
	Message   string
	Line      int    // 0 when the error is not tied to a position
	Column    int    // 0 when the error is not tied to a position
	Statement string // the failing statement's text, "" when none
	Err       error  // the cause
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("lancecat: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d column %d: ", e.Line, e.Column)
	}
	b.WriteString(e.Code.String())
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the catalog's sentinel errors (and so the sentinels of this
// package) by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*catalog.Error)
	if !ok {
		return false
	}
	return t.Message == "" && t.Cause == nil && t.Code == e.Code
}

// Sentinels for errors.Is. They are the catalog's code sentinels
// (catalog.ErrTableNotFound, ...): an error of the catalog package matches
// them too, and each matches every error of its code, whichever layer raised
// it. ErrColumnNotFound is code TableColumnNotFound: a statement names a
// column the table lacks (ALTER TABLE, CREATE INDEX, a dataset's
// catalog.ErrDatasetColumnNotFound as the catalog reports it); a name an
// expression cannot resolve (SELECT nope) is ErrInvalidInput, as MySQL's
// "unknown column".
var (
	ErrNotSupported           = catalog.ErrUnsupported
	ErrNamespaceNotFound      = catalog.ErrNamespaceNotFound
	ErrNamespaceExists        = catalog.ErrNamespaceAlreadyExists
	ErrNamespaceNotEmpty      = catalog.ErrNamespaceNotEmpty
	ErrTableNotFound          = catalog.ErrTableNotFound
	ErrTableExists            = catalog.ErrTableAlreadyExists
	ErrTableVersionNotFound   = catalog.ErrTableVersionNotFound
	ErrTableTagNotFound       = catalog.ErrTableTagNotFound
	ErrTableTagExists         = catalog.ErrTableTagAlreadyExists
	ErrColumnNotFound         = catalog.ErrTableColumnNotFound
	ErrInvalidInput           = catalog.ErrInvalidInput
	ErrConcurrentModification = catalog.ErrConcurrentModification
	ErrPermissionDenied       = catalog.ErrPermissionDenied
	ErrServiceUnavailable     = catalog.ErrServiceUnavailable
	ErrInternal               = catalog.ErrInternal
	ErrInvalidTableState      = catalog.ErrInvalidTableState
	ErrSchemaValidation       = catalog.ErrTableSchemaValidationError
	ErrThrottling             = catalog.ErrThrottling
	ErrUnauthenticated        = catalog.ErrUnauthenticated
)

// ErrSyntax matches SQL syntax errors (Code InvalidInput).
var ErrSyntax = sqlparse.ErrSyntax

// ErrSubqueryMultipleRows matches MySQL's ER_SUBQUERY_NO_1_ROW (error
// 1242): a scalar subquery returned more than one row (Code InvalidInput).
var ErrSubqueryMultipleRows = planner.ErrSubqueryMultipleRows

// newError converts any error of parsing, binding, planning or the catalog
// into an *Error, positioned at pos (the statement start) unless the error
// carries its own position.
func newError(err error, pos sqlparse.Pos, stmt string) *Error {
	if err == nil {
		return nil
	}
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	e := &Error{Err: err, Statement: stmt, Line: pos.Line, Column: pos.Column}
	var pe *sqlparse.Error
	var ce *catalog.Error
	switch {
	case errors.As(err, &pe):
		e.Line, e.Column = pe.Pos.Line, pe.Pos.Column
		e.Message = pe.Msg
		if errors.Is(pe.Kind, sqlparse.ErrNotSupported) {
			e.Code = catalog.CodeUnsupported
		} else {
			e.Code = catalog.CodeInvalidInput
		}
	case errors.Is(err, sqlparse.ErrBind):
		e.Code = catalog.CodeInvalidInput
		e.Message = err.Error()
	case errors.As(err, &ce):
		e.Code = ce.Code
		e.Message = strings.TrimPrefix(err.Error(), ce.Code.String()+": ")
	case errors.Is(err, lanceschema.ErrInvalidSchema):
		// A stored schema beyond lancecat's limits: the table's state, not a bug.
		e.Code = catalog.CodeInvalidTableState
		e.Message = err.Error()
	case catalog.IsCorrupt(err):
		// A file of the table does not decode: its state, not a bug.
		e.Code = catalog.CodeInvalidTableState
		e.Message = err.Error()
	case catalog.IsUnsupported(err):
		// A format feature of the table lancecat cannot handle (yet).
		e.Code = catalog.CodeUnsupported
		e.Message = err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e.Code = catalog.CodeServiceUnavailable
		e.Message = "statement interrupted: " + err.Error()
	default:
		e.Code = catalog.CodeInternal
		e.Message = err.Error()
	}
	// Messages quote URIs, storage options and provider errors: never
	// their secrets.
	e.Message = storage.Redact(e.Message)
	e.Err = storage.RedactError(e.Err)
	return e
}

// errNoPos wraps an error that has no statement position.
func errNoPos(err error) error {
	if err == nil {
		return nil
	}
	return newError(err, sqlparse.Pos{}, "")
}

func invalidf(format string, args ...any) error {
	return errNoPos(&catalog.Error{Code: catalog.CodeInvalidInput, Message: fmt.Sprintf(format, args...)})
}

// maxStatementInError bounds how much of a statement's text an internal
// error quotes.
const maxStatementInError = 200

// recoverAsError, deferred, turns a panic into an Internal *Error that names
// the statement (its text, shortened) at pos. The panic value is part of the
// message; the stack is not shown to the caller but logged to log at Error
// level (with the statement and the panic value, secrets redacted), so the
// bug can be found from the host program's logs.
func recoverAsError(errp *error, log *slog.Logger, pos sqlparse.Pos, stmt string) {
	r := recover()
	if r == nil {
		return
	}
	stack := debug.Stack()
	text := stmt
	if len(text) > maxStatementInError {
		text = strings.ToValidUTF8(text[:maxStatementInError], "") + "..."
	}
	panicText := storage.Redact(fmt.Sprint(r))
	*errp = &Error{
		Code:      catalog.CodeInternal,
		Message:   storage.Redact(fmt.Sprintf("internal error (a bug in lancecat, please report it) running %q: %v", text, r)),
		Line:      pos.Line,
		Column:    pos.Column,
		Statement: stmt,
		Err:       fmt.Errorf("panic: %v", r),
	}
	if log == nil {
		log = slog.Default()
	}
	log.Error("lancecat: recovered panic (a bug in lancecat, please report it)",
		slog.String("statement", storage.Redact(text)),
		slog.Int("line", pos.Line),
		slog.String("panic", panicText),
		slog.String("stack", storage.Redact(string(stack))))
}
