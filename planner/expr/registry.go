// Package expr holds lancecat's scalar function library: one registry in
// which every SQL function is one entry (its name, its arity, the rule
// that types its result from the types of its arguments, and its
// evaluation over the Go values of package sqltypes). The evaluators of
// the planner dispatch function calls here and type their results from
// here, so adding a function is adding an entry (and its test).
//
// Values follow the planner's conventions: int64, uint64 (BIGINT
// UNSIGNED), float64, string (text, and DECIMAL values as their exact text),
// []byte, time.Time (DATE, DATETIME, TIMESTAMP, in UTC), bool, and nil for
// NULL. Semantics are MySQL's as MariaDB shows them (NULL in, NULL out
// unless the function says otherwise; strings converted to numbers by
// their leading number; results of a string function beyond MaxValueBytes
// are NULL with a warning, as max_allowed_packet in MySQL).
package expr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// Kind is the type of a value as the registry types it: the kinds of
// package sqltypes, with KindNull (0) for the NULL literal and values of
// no known type.
type Kind = sqltypes.Kind

// KindNull is the type of NULL (and of an unknown type): it converts to
// any other.
const KindNull Kind = 0

// Arg describes one argument of a call at planning time: its type, and its
// value when it is a constant (a literal), which some result types depend
// on (CAST's target type, the unit of DATE_ADD, ROUND's digits).
type Arg struct {
	Kind  Kind
	Const bool
	Value any
	// Scale is the number of fraction digits of a DECIMAL argument when
	// known (-1: unknown).
	Scale int
	// Folded: the argument reads no column (a constant expression).
	Folded bool
	// Func is the registry name of the function the argument calls (""
	// for a column, a literal or an operator).
	Func string
}

// Func is one function of the library.
type Func struct {
	// Name is the canonical (upper-case) name; Aliases are other names
	// (CEIL for CEILING, LCASE for LOWER).
	Name    string
	Aliases []string
	// MinArgs and MaxArgs bound the number of arguments (MaxArgs -1: any).
	MinArgs, MaxArgs int
	// Usage, when set, is added to an arity error ("takes a list column
	// and at least one value").
	Usage string
	// Result types the call from its arguments.
	Result func(args []Arg) Kind
	// Eval computes the value from the arguments' values (NULL handling is
	// the entry's: most return nil when an argument is nil).
	Eval func(c *Call, args []any) (any, error)
	// Lazy, when set instead of Eval, receives the arguments unevaluated
	// (arg(i) evaluates argument i): CASE, IF, COALESCE evaluate only the
	// branches they take, as MySQL does (an error in another branch does
	// not fire).
	Lazy func(c *Call, arg func(i int) (any, error)) (any, error)
	// NeedsStatement marks a function whose value depends on the statement
	// (NOW, CURDATE): it is not a constant of the plan.
	NeedsStatement bool
	// TextArgs marks a function that reads its arguments as text (the
	// string and regexp functions): a DATETIME or TIMESTAMP argument is
	// given as its text, midnight included ("2020-01-01 00:00:00"), which
	// ToString cannot tell from a DATE's once it is a time.Time.
	TextArgs bool
}

// Call is one bound call: the function, the static description of its
// arguments, and the statement it runs in.
type Call struct {
	Func *Func
	Args []Arg
	Stmt *Statement
	re   regexpCache // the last pattern compiled (regexp.go)
}

// Statement is what a call reads from the statement it runs in: the one
// time NOW() and friends return, the warnings it raises, and the bound on
// the size of a value a function builds.
type Statement struct {
	// Now is the statement's start time (UTC); every NOW() of the statement
	// returns it, as in MySQL.
	Now time.Time
	// MaxValueBytes bounds a string a function builds (REPEAT, LPAD,
	// CONCAT...): a longer result is NULL with a warning, as MySQL does
	// past max_allowed_packet. 0 is DefaultMaxValueBytes.
	MaxValueBytes int
	// Database is the current database's name for DATABASE() ("": NULL).
	Database string
	// MaxWarnings is how many conditions the statement keeps (MySQL's
	// max_error_count; 0: 64, negative: none); past it they are only
	// counted.
	MaxWarnings int
	mu          sync.Mutex
	warnings    []Warning
	counts      [3]int // conditions raised, by Level (kept or not)
	muted       int    // Mute depth: conditions raised meanwhile are dropped
	// overflowed: a function's result went past MaxValueBytes since the
	// last TakeOverflow (the planner fails the statement instead of
	// returning MySQL's NULL, as it has no SHOW WARNINGS).
	overflowed bool
}

// TakeOverflow reports whether a result went past MaxValueBytes since the
// last call, and clears the mark.
func (s *Statement) TakeOverflow() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.overflowed
	s.overflowed = false
	return o
}

// DefaultMaxValueBytes is MySQL's default max_allowed_packet (64 MiB).
const DefaultMaxValueBytes = 64 << 20

// maxWarnings bounds the warnings one statement keeps by default
// (MariaDB's default max_error_count).
const maxWarnings = 64

// Level is a condition's severity, as SHOW WARNINGS names it.
type Level uint8

const (
	LevelWarning Level = iota // the zero Level: what functions raise
	LevelNote
	LevelError
)

func (l Level) String() string {
	switch l {
	case LevelNote:
		return "Note"
	case LevelError:
		return "Error"
	}
	return "Warning"
}

// Warning is a condition of the statement (MySQL's SHOW WARNINGS): what a
// function raised instead of failing (a result beyond the size bound, an
// invalid date), a note, or the error that ended the statement.
type Warning struct {
	Level   Level
	Code    int
	Message string
}

// NewStatement returns the context of a statement starting now.
func NewStatement(now time.Time) *Statement {
	return &Statement{Now: now.UTC()}
}

// Warn records a warning (the first MaxWarnings of a statement are kept,
// all are counted).
func (s *Statement) Warn(code int, format string, args ...any) {
	s.Raise(LevelWarning, code, format, args...)
}

// Raise records a condition of the given level.
func (s *Statement) Raise(level Level, code int, format string, args ...any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.muted > 0 {
		return
	}
	s.counts[level]++
	limit := s.MaxWarnings
	if limit == 0 {
		limit = maxWarnings
	}
	if len(s.warnings) < limit {
		msg := format
		if len(args) > 0 {
			msg = fmt.Sprintf(format, args...)
		}
		s.warnings = append(s.warnings, Warning{Level: level, Code: code, Message: msg})
	}
}

// Mute drops (on) or again records (off) the conditions raised
// meanwhile: the planner evaluates a constant expression once more to
// check or type it, and the statement must warn once.
func (s *Statement) Mute(on bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.muted++
	} else if s.muted > 0 {
		s.muted--
	}
}

// Count returns how many conditions the statement raised (kept or not):
// all of them, and the Error-level ones.
func (s *Statement) Count() (all, errors int) {
	if s == nil {
		return 0, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[LevelWarning] + s.counts[LevelNote] + s.counts[LevelError], s.counts[LevelError]
}

// Warnings returns the statement's warnings so far.
func (s *Statement) Warnings() []Warning {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warnings)
}

func (s *Statement) maxBytes() int {
	if s == nil || s.MaxValueBytes <= 0 {
		return DefaultMaxValueBytes
	}
	return s.MaxValueBytes
}

func (s *Statement) now() time.Time {
	if s == nil {
		return time.Now().UTC()
	}
	return s.Now
}

// Errors of the registry, matchable with errors.Is.
var (
	// ErrUnknownFunction: no function of that name.
	ErrUnknownFunction = errors.New("unknown function")
	// ErrArgCount: a call with a number of arguments the function does
	// not take.
	ErrArgCount = errors.New("incorrect parameter count")
	// ErrInvalidArgument: an argument the function cannot take (an unknown
	// CAST type or INTERVAL unit, a bad regular expression).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrOutOfRange: an integer result beyond BIGINT (MySQL's "BIGINT
	// value is out of range").
	ErrOutOfRange = errors.New("value is out of range")
)

var registry = map[string]*Func{}

// register adds functions to the registry (at init; a duplicate name is a
// programming error).
// registerText registers functions that read their arguments as text
// (Func.TextArgs).
func registerText(fs ...*Func) {
	for _, f := range fs {
		f.TextArgs = true
	}
	register(fs...)
}

func register(fs ...*Func) {
	for _, f := range fs {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			k := strings.ToLower(n)
			if _, dup := registry[k]; dup {
				panic("expr: function registered twice: " + n)
			}
			registry[k] = f
		}
	}
}

// Lookup returns the function named name (any case).
func Lookup(name string) (*Func, bool) {
	f, ok := registry[strings.ToLower(name)]
	return f, ok
}

// Names lists every name the registry knows (aliases included), upper
// case, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, strings.ToUpper(n))
	}
	slices.Sort(names)
	return names
}

// CheckArity reports whether f takes n arguments.
func (f *Func) CheckArity(n int) error {
	if n < f.MinArgs || (f.MaxArgs >= 0 && n > f.MaxArgs) {
		if f.Usage != "" {
			return fmt.Errorf("%w in the call to native function '%s': %s %s", ErrArgCount, f.Name, f.Name, f.Usage)
		}
		return fmt.Errorf("%w in the call to native function '%s'", ErrArgCount, f.Name)
	}
	return nil
}

// Bind prepares a call of the named function with arguments described by
// args, checking its arity.
func BindCall(name string, args []Arg, stmt *Statement) (*Call, error) {
	f, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w %s", ErrUnknownFunction, strings.ToUpper(name))
	}
	if err := f.CheckArity(len(args)); err != nil {
		return nil, err
	}
	return &Call{Func: f, Args: args, Stmt: stmt}, nil
}

// ResultKind is the type of the call's result.
func (c *Call) ResultKind() Kind {
	if c.Func.Result == nil {
		return sqltypes.KindString
	}
	return c.Func.Result(c.Args)
}

// Eval runs the call; arg(i) evaluates its argument i.
func (c *Call) Eval(arg func(i int) (any, error)) (any, error) {
	if c.Func.Lazy != nil {
		return c.Func.Lazy(c, arg)
	}
	vals := make([]any, len(c.Args))
	for i := range vals {
		v, err := arg(i)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	if c.Func.TextArgs {
		for i, v := range vals {
			if t, ok := v.(time.Time); ok && (c.Args[i].Kind == sqltypes.KindDatetime || c.Args[i].Kind == sqltypes.KindTimestamp) {
				vals[i] = FormatDatetime(t)
			}
		}
	}
	return c.Func.Eval(c, vals)
}

// EvalValues runs a call over argument values already computed.
func (c *Call) EvalValues(vals []any) (any, error) {
	return c.Eval(func(i int) (any, error) { return vals[i], nil })
}

// argKind is the static kind of argument i (KindNull beyond the list).
func (c *Call) argKind(i int) Kind {
	if c == nil || i >= len(c.Args) {
		return KindNull
	}
	return c.Args[i].Kind
}

// Result-type rules shared by entries.
func fixed(k Kind) func([]Arg) Kind { return func([]Arg) Kind { return k } }

var (
	resultString = fixed(sqltypes.KindString)
	resultInt    = fixed(sqltypes.KindInt)
	resultFloat  = fixed(sqltypes.KindFloat)
)
