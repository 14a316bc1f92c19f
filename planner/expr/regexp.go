package expr

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/lancecat/lancecat/sqltypes"
)

// Regular expressions: x REGEXP p (sqlparse's Regexp node evaluates as
// REGEXP_LIKE), REGEXP_LIKE, REGEXP_REPLACE, REGEXP_SUBSTR, REGEXP_INSTR,
// with MariaDB's argument lists. Patterns run on Go's regexp (RE2), whose
// matching is linear in the input, so no pattern can make a statement run
// away; PCRE-only syntax (backreferences, lookaround) is an error.
// Matching is case-sensitive (lancecat compares strings byte-wise, as a
// binary collation); REGEXP_LIKE's match type 'i' makes it insensitive.

// maxPatternBytes bounds a pattern's text (RE2 also bounds its program).
const maxPatternBytes = 64 << 10

func init() {
	registerText(
		&Func{Name: "REGEXP_LIKE", MinArgs: 2, MaxArgs: 3, Result: fixed(sqltypes.KindInt), Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			flags := ""
			if len(a) > 2 {
				flags = ToString(a[2])
			}
			re, err := c.regexp(ToString(a[1]), flags)
			if err != nil {
				return nil, err
			}
			if re.MatchString(ToString(a[0])) {
				return int64(1), nil
			}
			return int64(0), nil
		}},
		&Func{Name: "REGEXP_REPLACE", MinArgs: 3, MaxArgs: 3, Result: resultString, Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			re, err := c.regexp(ToString(a[1]), "")
			if err != nil {
				return nil, err
			}
			s, repl := ToString(a[0]), replacement(ToString(a[2]))
			n := len(s)
			if k := len(re.FindAllStringIndex(s, -1)); k > 0 && tooLong(c, n+k*len(repl)) {
				return nil, nil
			}
			return re.ReplaceAllString(s, repl), nil
		}},
		&Func{Name: "REGEXP_SUBSTR", MinArgs: 2, MaxArgs: 2, Result: resultString, Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			re, err := c.regexp(ToString(a[1]), "")
			if err != nil {
				return nil, err
			}
			return re.FindString(ToString(a[0])), nil
		}},
		&Func{Name: "REGEXP_INSTR", MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			re, err := c.regexp(ToString(a[1]), "")
			if err != nil {
				return nil, err
			}
			s := ToString(a[0])
			loc := re.FindStringIndex(s)
			if loc == nil {
				return int64(0), nil
			}
			return int64(len([]rune(s[:loc[0]])) + 1), nil
		}},
	)
}

// replacement converts MariaDB's \N back-references to Go's ${N} and
// escapes Go's $.
func replacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '$':
			b.WriteString("$$")
		case r[i] == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			b.WriteString("${" + string(r[i+1]) + "}")
			i++
		case r[i] == '\\' && i+1 < len(r):
			b.WriteByte(r[i+1])
			i++
		default:
			b.WriteByte(r[i])
		}
	}
	return b.String()
}

// regexpCache keeps the last pattern a call compiled (patterns are
// nearly always constants).
type regexpCache struct {
	mu      sync.Mutex
	pattern string
	re      *regexp.Regexp
}

func (c *Call) regexp(pattern, flags string) (*regexp.Regexp, error) {
	if len(pattern) > maxPatternBytes {
		return nil, fmt.Errorf("%w: regular expression of %d bytes (at most %d)", ErrInvalidArgument, len(pattern), maxPatternBytes)
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i':
			prefix = "(?i)"
		case 'c':
			prefix = ""
		case 'm':
			prefix += "(?m)"
		case 'n':
			prefix += "(?s)"
		default:
			return nil, fmt.Errorf("%w: regular expression match type %q", ErrInvalidArgument, flags)
		}
	}
	key := prefix + pattern
	rc := &c.re
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.re != nil && rc.pattern == key {
		return rc.re, nil
	}
	re, err := regexp.Compile(key)
	if err != nil {
		return nil, fmt.Errorf("%w: regular expression %q: %v", ErrInvalidArgument, pattern, err)
	}
	rc.pattern, rc.re = key, re
	return re, nil
}
