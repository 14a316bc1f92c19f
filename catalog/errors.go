package catalog

import (
	"errors"
	"fmt"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/storage"
)

// Code is a Lance Namespace error code. The numbers are the ones of the
// namespace specification (docs/src/namespace/operations/errors.md of
// lance-format/lance-namespace); they are stable across implementations.
type Code int

// Error codes of the Lance Namespace specification.
const (
	CodeUnsupported                Code = 0
	CodeNamespaceNotFound          Code = 1
	CodeNamespaceAlreadyExists     Code = 2
	CodeNamespaceNotEmpty          Code = 3
	CodeTableNotFound              Code = 4
	CodeTableAlreadyExists         Code = 5
	CodeTableIndexNotFound         Code = 6
	CodeTableIndexAlreadyExists    Code = 7
	CodeTableTagNotFound           Code = 8
	CodeTableTagAlreadyExists      Code = 9
	CodeTransactionNotFound        Code = 10
	CodeTableVersionNotFound       Code = 11
	CodeTableColumnNotFound        Code = 12
	CodeInvalidInput               Code = 13
	CodeConcurrentModification     Code = 14
	CodePermissionDenied           Code = 15
	CodeUnauthenticated            Code = 16
	CodeServiceUnavailable         Code = 17
	CodeInternal                   Code = 18
	CodeInvalidTableState          Code = 19
	CodeTableSchemaValidationError Code = 20
	CodeThrottling                 Code = 21
	CodeTableBranchNotFound        Code = 22
	CodeTableBranchAlreadyExists   Code = 23
)

var codeNames = map[Code]string{
	CodeUnsupported:                "Unsupported",
	CodeNamespaceNotFound:          "NamespaceNotFound",
	CodeNamespaceAlreadyExists:     "NamespaceAlreadyExists",
	CodeNamespaceNotEmpty:          "NamespaceNotEmpty",
	CodeTableNotFound:              "TableNotFound",
	CodeTableAlreadyExists:         "TableAlreadyExists",
	CodeTableIndexNotFound:         "TableIndexNotFound",
	CodeTableIndexAlreadyExists:    "TableIndexAlreadyExists",
	CodeTableTagNotFound:           "TableTagNotFound",
	CodeTableTagAlreadyExists:      "TableTagAlreadyExists",
	CodeTransactionNotFound:        "TransactionNotFound",
	CodeTableVersionNotFound:       "TableVersionNotFound",
	CodeTableColumnNotFound:        "TableColumnNotFound",
	CodeInvalidInput:               "InvalidInput",
	CodeConcurrentModification:     "ConcurrentModification",
	CodePermissionDenied:           "PermissionDenied",
	CodeUnauthenticated:            "Unauthenticated",
	CodeServiceUnavailable:         "ServiceUnavailable",
	CodeInternal:                   "Internal",
	CodeInvalidTableState:          "InvalidTableState",
	CodeTableSchemaValidationError: "TableSchemaValidationError",
	CodeThrottling:                 "Throttling",
	CodeTableBranchNotFound:        "TableBranchNotFound",
	CodeTableBranchAlreadyExists:   "TableBranchAlreadyExists",
}

// String returns the specification's name of the code.
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error is the error type of every catalog operation: a specification error
// code, a human-readable message and an optional cause.
//
// errors.Is(err, ErrTableNotFound) (and the other sentinels) matches any
// *Error of the same code, however deeply wrapped; errors.As gives access to
// the code and message.
type Error struct {
	Code    Code
	Message string
	Cause   error
}

func (e *Error) Error() string {
	s := e.Code.String()
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error of the same code. A sentinel (an
// *Error with an empty message and no cause) therefore matches every error of
// its code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && t.Message == "" && t.Cause == nil
}

// Sentinels, one per code, for errors.Is.
var (
	ErrUnsupported                = &Error{Code: CodeUnsupported}
	ErrNamespaceNotFound          = &Error{Code: CodeNamespaceNotFound}
	ErrNamespaceAlreadyExists     = &Error{Code: CodeNamespaceAlreadyExists}
	ErrNamespaceNotEmpty          = &Error{Code: CodeNamespaceNotEmpty}
	ErrTableNotFound              = &Error{Code: CodeTableNotFound}
	ErrTableAlreadyExists         = &Error{Code: CodeTableAlreadyExists}
	ErrTableIndexNotFound         = &Error{Code: CodeTableIndexNotFound}
	ErrTableIndexAlreadyExists    = &Error{Code: CodeTableIndexAlreadyExists}
	ErrTableTagNotFound           = &Error{Code: CodeTableTagNotFound}
	ErrTableTagAlreadyExists      = &Error{Code: CodeTableTagAlreadyExists}
	ErrTransactionNotFound        = &Error{Code: CodeTransactionNotFound}
	ErrTableVersionNotFound       = &Error{Code: CodeTableVersionNotFound}
	ErrTableColumnNotFound        = &Error{Code: CodeTableColumnNotFound}
	ErrInvalidInput               = &Error{Code: CodeInvalidInput}
	ErrConcurrentModification     = &Error{Code: CodeConcurrentModification}
	ErrPermissionDenied           = &Error{Code: CodePermissionDenied}
	ErrUnauthenticated            = &Error{Code: CodeUnauthenticated}
	ErrServiceUnavailable         = &Error{Code: CodeServiceUnavailable}
	ErrInternal                   = &Error{Code: CodeInternal}
	ErrInvalidTableState          = &Error{Code: CodeInvalidTableState}
	ErrTableSchemaValidationError = &Error{Code: CodeTableSchemaValidationError}
	ErrThrottling                 = &Error{Code: CodeThrottling}
	ErrTableBranchNotFound        = &Error{Code: CodeTableBranchNotFound}
	ErrTableBranchAlreadyExists   = &Error{Code: CodeTableBranchAlreadyExists}
)

// IsCorrupt reports whether err says that bytes a table keeps on disk do
// not decode (a manifest, data, index or deletion file that is damaged, is
// not a Lance file, claims a file version no Lance writes, or is shorter
// than the manifest records): the table's state is invalid, which is not a
// bug of lancecat (CodeInvalidTableState).
func IsCorrupt(err error) bool {
	for _, e := range []error{dataset.ErrCorrupt, lancefile.ErrCorrupt, index.ErrCorrupt, lancefile.ErrNotLance, lancefile.ErrUnsupportedVersion, storage.ErrOutOfRange} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// IsUnsupported reports whether err says a table uses a format feature
// lancecat does not read or write (a newer file version, a write-side
// feature flag), which is the table's feature, not a bug of lancecat
// (CodeUnsupported).
func IsUnsupported(err error) bool {
	for _, e := range []error{dataset.ErrUnsupported, dataset.ErrReadOnlyFeature, lancefile.ErrUnsupportedEncoding, index.ErrUnsupported} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// CodeOf returns the code of the first *Error in err's chain,
// CodeInvalidTableState for corrupt files (IsCorrupt), CodeInternal for any
// other non-nil error, and false for nil.
func CodeOf(err error) (Code, bool) {
	if err == nil {
		return 0, false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	if IsCorrupt(err) {
		return CodeInvalidTableState, true
	}
	return CodeInternal, true
}

func newErr(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// asCatalogError keeps an *Error as it is and turns anything else into an
// Internal error with the given context.
func asCatalogError(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, storage.ErrUnavailable) {
		return newErr(CodeServiceUnavailable, err, format, args...)
	}
	if IsCorrupt(err) {
		return newErr(CodeInvalidTableState, err, format, args...)
	}
	if errors.Is(err, storage.ErrDirRemoved) {
		// A concurrent DROP removed the directory this write was filling.
		return newErr(CodeConcurrentModification, err, format, args...)
	}
	return newErr(CodeInternal, err, format, args...)
}
