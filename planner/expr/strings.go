package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/lancecat/lancecat/sqltypes"
)

// String functions. Positions and lengths count characters (UTF-8 code
// points), as MySQL does for utf8mb4 text; LENGTH counts bytes. A result
// longer than the statement's MaxValueBytes is NULL with warning 1301, as
// MySQL answers past max_allowed_packet.

func init() {
	registerText(
		&Func{Name: "LOWER", Aliases: []string{"LCASE"}, MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: str1(strings.ToLower)},
		&Func{Name: "UPPER", Aliases: []string{"UCASE"}, MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: str1(strings.ToUpper)},
		&Func{Name: "LENGTH", Aliases: []string{"OCTET_LENGTH"}, MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: func(_ *Call, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return int64(len(ToString(a[0]))), nil
		}},
		&Func{Name: "CHAR_LENGTH", Aliases: []string{"CHARACTER_LENGTH"}, MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: func(_ *Call, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return int64(utf8.RuneCountInString(ToString(a[0]))), nil
		}},
		&Func{Name: "ASCII", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: func(_ *Call, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			s := ToString(a[0])
			if s == "" {
				return int64(0), nil
			}
			return int64(s[0]), nil
		}},
		&Func{Name: "CONCAT", MinArgs: 1, MaxArgs: -1, Result: resultString, Eval: evalConcat},
		&Func{Name: "CONCAT_WS", MinArgs: 2, MaxArgs: -1, Result: resultString, Eval: evalConcatWS},
		&Func{Name: "SUBSTRING", Aliases: []string{"SUBSTR", "MID"}, MinArgs: 2, MaxArgs: 3, Result: resultString, Eval: evalSubstring},
		&Func{Name: "LEFT", MinArgs: 2, MaxArgs: 2, Result: resultString, Eval: func(c *Call, a []any) (any, error) { return leftRight(c, a, true) }},
		&Func{Name: "RIGHT", MinArgs: 2, MaxArgs: 2, Result: resultString, Eval: func(c *Call, a []any) (any, error) { return leftRight(c, a, false) }},
		&Func{Name: "LOCATE", MinArgs: 2, MaxArgs: 3, Result: resultInt, Eval: evalLocate},
		&Func{Name: "INSTR", MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: func(c *Call, a []any) (any, error) {
			return evalLocate(c, []any{a[1], a[0]})
		}},
		&Func{Name: "SUBSTRING_INDEX", MinArgs: 3, MaxArgs: 3, Result: resultString, Eval: evalSubstringIndex},
		&Func{Name: "TRIM", MinArgs: 1, MaxArgs: 3, Result: resultString, Eval: evalTrim},
		&Func{Name: "LTRIM", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: str1(func(s string) string { return strings.TrimLeft(s, " ") })},
		&Func{Name: "RTRIM", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: str1(func(s string) string { return strings.TrimRight(s, " ") })},
		&Func{Name: "LPAD", MinArgs: 3, MaxArgs: 3, Result: resultString, Eval: func(c *Call, a []any) (any, error) { return pad(c, a, true) }},
		&Func{Name: "RPAD", MinArgs: 3, MaxArgs: 3, Result: resultString, Eval: func(c *Call, a []any) (any, error) { return pad(c, a, false) }},
		&Func{Name: "REPEAT", MinArgs: 2, MaxArgs: 2, Result: resultString, Eval: evalRepeat},
		&Func{Name: "SPACE", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: func(c *Call, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return evalRepeat(&Call{Func: c.Func, Args: []Arg{{Kind: sqltypes.KindString}, c.Args[0]}, Stmt: c.Stmt}, []any{" ", a[0]})
		}},
		&Func{Name: "REPLACE", MinArgs: 3, MaxArgs: 3, Result: resultString, Eval: evalReplace},
		&Func{Name: "REVERSE", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: str1(reverse)},
		&Func{Name: "STRCMP", MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: func(_ *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			return int64(compareStrings(ToString(a[0]), ToString(a[1]))), nil
		}},
	)
}

// str1 lifts a string function of one argument (NULL in, NULL out).
func str1(f func(string) string) func(*Call, []any) (any, error) {
	return func(_ *Call, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		return f(ToString(a[0])), nil
	}
}

// tooLong reports (and warns) when a result of n bytes exceeds the bound.
func tooLong(c *Call, n int) bool {
	if n <= c.Stmt.maxBytes() {
		return false
	}
	c.Stmt.Warn(1301, "Result of %s() was larger than max_allowed_packet (%d) - truncated", strings.ToLower(c.Func.Name), c.Stmt.maxBytes())
	if c.Stmt != nil {
		c.Stmt.mu.Lock()
		c.Stmt.overflowed = true
		c.Stmt.mu.Unlock()
	}
	return true
}

func evalConcat(c *Call, a []any) (any, error) {
	n := 0
	for _, v := range a {
		if v == nil {
			return nil, nil
		}
		n += len(ToString(v))
	}
	if tooLong(c, n) {
		return nil, nil
	}
	var b strings.Builder
	b.Grow(n)
	for _, v := range a {
		b.WriteString(ToString(v))
	}
	return b.String(), nil
}

// evalConcatWS joins the non-NULL arguments with the first (NULL
// separator: NULL).
func evalConcatWS(c *Call, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	sep := ToString(a[0])
	parts := make([]string, 0, len(a)-1)
	n := 0
	for _, v := range a[1:] {
		if v != nil {
			parts = append(parts, ToString(v))
			n += len(sep) + len(parts[len(parts)-1])
		}
	}
	if tooLong(c, n) {
		return nil, nil
	}
	return strings.Join(parts, sep), nil
}

// evalSubstring is SUBSTRING(s, pos[, len]): pos counts from 1, from the
// end when negative; 0 or beyond the string is ”; a len below 1 is ”.
func evalSubstring(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	r := []rune(ToString(a[0]))
	pos := ToInt(a[1], c.argKind(1))
	n := int64(len(r))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	default:
		return "", nil
	}
	if start < 0 || start >= n {
		return "", nil
	}
	end := n
	if len(a) > 2 {
		l := ToInt(a[2], c.argKind(2))
		if l <= 0 {
			return "", nil
		}
		if l < n-start {
			end = start + l
		}
	}
	return string(r[start:end]), nil
}

func leftRight(c *Call, a []any, left bool) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	r := []rune(ToString(a[0]))
	n := ToInt(a[1], c.argKind(1))
	if n <= 0 {
		return "", nil
	}
	if n >= int64(len(r)) {
		return string(r), nil
	}
	if left {
		return string(r[:n]), nil
	}
	return string(r[int64(len(r))-n:]), nil
}

// evalLocate is LOCATE(substr, str[, pos]): the 1-based character
// position of the first substr at or after pos, 0 if none.
func evalLocate(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	sub, s := []rune(ToString(a[0])), []rune(ToString(a[1]))
	start := int64(1)
	if len(a) > 2 {
		start = ToInt(a[2], c.argKind(2))
		// MariaDB: a start beyond the last character finds nothing, the
		// empty string included.
		if start < 1 || start > int64(len(s)) && (len(sub) > 0 || start > 1) || len(s) == 0 && len(sub) == 0 {
			return int64(0), nil
		}
	}
	hay := string(s[start-1:])
	i := strings.Index(hay, string(sub))
	if i < 0 {
		return int64(0), nil
	}
	return start + int64(utf8.RuneCountInString(hay[:i])), nil
}

// evalSubstringIndex is SUBSTRING_INDEX(s, delim, count): the part before
// the count-th delimiter (from the end when count is negative).
func evalSubstringIndex(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	s, d := ToString(a[0]), ToString(a[1])
	n := ToInt(a[2], c.argKind(2))
	if d == "" || n == 0 {
		return "", nil
	}
	if n > 0 {
		i := 0
		for k := int64(0); k < n; k++ {
			j := strings.Index(s[i:], d)
			if j < 0 {
				return s, nil
			}
			i += j + len(d)
		}
		return s[:i-len(d)], nil
	}
	end := len(s)
	for k := int64(0); k < -n; k++ {
		j := strings.LastIndex(s[:end], d)
		if j < 0 {
			return s, nil
		}
		end = j
	}
	return s[end+len(d):], nil
}

// evalTrim is TRIM([BOTH|LEADING|TRAILING] [remstr] FROM s), converted by
// sqlparse to TRIM(s[, remstr[, direction]]) with direction 'BOTH',
// 'LEADING' or 'TRAILING'. remstr (default ' ') is removed as a whole
// string, repeatedly.
func evalTrim(_ *Call, a []any) (any, error) {
	if a[0] == nil || (len(a) > 1 && a[1] == nil) {
		return nil, nil
	}
	s := ToString(a[0])
	rem := " "
	if len(a) > 1 {
		rem = ToString(a[1])
	}
	dir := "BOTH"
	if len(a) > 2 && a[2] != nil {
		dir = strings.ToUpper(ToString(a[2]))
	}
	if rem == "" {
		return s, nil
	}
	if dir == "BOTH" || dir == "LEADING" {
		for strings.HasPrefix(s, rem) {
			s = s[len(rem):]
		}
	}
	if dir == "BOTH" || dir == "TRAILING" {
		for strings.HasSuffix(s, rem) {
			s = s[:len(s)-len(rem)]
		}
	}
	return s, nil
}

// pad is LPAD/RPAD(s, n, padstr): s cut or padded to n characters; NULL
// for a negative n, or an empty padstr when padding is needed.
func pad(c *Call, a []any, left bool) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	r := []rune(ToString(a[0]))
	n := ToInt(a[1], c.argKind(1))
	p := []rune(ToString(a[2]))
	if n < 0 {
		return nil, nil
	}
	if n <= int64(len(r)) {
		return string(r[:n]), nil
	}
	if len(p) == 0 {
		return nil, nil
	}
	maxRune := 1
	for _, x := range p {
		maxRune = max(maxRune, utf8.RuneLen(x))
	}
	if n > int64(c.Stmt.maxBytes()) || tooLong(c, len(string(r))+int(n-int64(len(r)))*maxRune) {
		if n <= int64(c.Stmt.maxBytes()) {
			return nil, nil
		}
		tooLong(c, c.Stmt.maxBytes()+1)
		return nil, nil
	}
	fill := make([]rune, 0, n-int64(len(r)))
	for int64(len(fill)) < n-int64(len(r)) {
		fill = append(fill, p...)
	}
	fill = fill[:n-int64(len(r))]
	if left {
		return string(fill) + string(r), nil
	}
	return string(r) + string(fill), nil
}

func evalRepeat(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	s := ToString(a[0])
	n := ToInt(a[1], c.argKind(1))
	if n <= 0 || s == "" {
		return "", nil
	}
	if n > int64(c.Stmt.maxBytes()) || tooLong(c, len(s)*int(n)) {
		if n > int64(c.Stmt.maxBytes()) {
			tooLong(c, c.Stmt.maxBytes()+1)
		}
		return nil, nil
	}
	return strings.Repeat(s, int(n)), nil
}

func evalReplace(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	s, from, to := ToString(a[0]), ToString(a[1]), ToString(a[2])
	if from == "" {
		return s, nil
	}
	if k := strings.Count(s, from); k > 0 && tooLong(c, len(s)+k*(len(to)-len(from))) {
		return nil, nil
	}
	return strings.ReplaceAll(s, from, to), nil
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
