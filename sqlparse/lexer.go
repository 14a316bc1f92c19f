package sqlparse

import (
	"strings"
)

// tokKind classifies the tokens of lancecat's own MySQL-dialect lexer. The lexer exists because
// statements must be split, multi-part names found and placeholders bound before (or instead of)
// handing text to the TiDB parser, and all of that must agree on what is a string, a comment or an
// identifier.
type tokKind int

const (
	tkIdent       tokKind = iota + 1 // unquoted word: identifier or keyword
	tkQuoted                         // `backquoted identifier`; val is unescaped
	tkString                         // 'string' or "string"; val is unescaped
	tkHexString                      // X'0A1b'; val is the hex digits
	tkBitString                      // B'0101'; val is the bits
	tkNumber                         // 12, 1.5, 1e3, 0x1F, 0b101
	tkPunct                          // operators and punctuation, including ';'
	tkParam                          // ?
	tkNamedParam                     // :name ; val is name
	tkVariable                       // @name, @`name`, @'name' ; val is name
	tkSysVariable                    // @@name
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the script
	val        string
	spaceAfter bool // whitespace or a comment follows before the next token
}

// is reports whether t is an unquoted word equal (case-insensitively) to kw.
func (t token) is(kw string) bool {
	return t.kind == tkIdent && strings.EqualFold(t.val, kw)
}

func (t token) isPunct(p string) bool { return t.kind == tkPunct && t.val == p }

// isNamePart reports whether t can be one part of a (dotted) name.
func (t token) isNamePart() bool { return t.kind == tkIdent || t.kind == tkQuoted }

// lexError is an error at a byte offset, converted to an *Error with a position by the caller.
type lexError struct {
	off int
	msg string
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// lex tokenizes src[from:to]. It never panics; unterminated strings, identifiers and comments are
// reported as lexErrors at their opening offset.
func lex(src string, from, to int) ([]token, *lexError) {
	var toks []token
	i := from
	markSpace := func() {
		if len(toks) > 0 {
			toks[len(toks)-1].spaceAfter = true
		}
	}
	for i < to {
		c := src[i]
		switch {
		case isSpace(c):
			i++
			markSpace()
			continue
		case c == '#':
			i = skipLine(src, i, to)
			markSpace()
			continue
		case c == '-' && i+1 < to && src[i+1] == '-' && (i+2 == to || isSpace(src[i+2]) || src[i+2] < 0x20):
			i = skipLine(src, i, to)
			markSpace()
			continue
		case c == '/' && i+1 < to && src[i+1] == '*':
			end := strings.Index(src[i+2:to], "*/")
			if end < 0 {
				return toks, &lexError{i, "unterminated comment"}
			}
			i = i + 2 + end + 2
			markSpace()
			continue
		}
		start := i
		switch {
		case c == '`':
			val, end, ok := scanQuoted(src, i, to, '`', false)
			if !ok {
				return toks, &lexError{start, "unterminated quoted identifier"}
			}
			toks = append(toks, token{kind: tkQuoted, start: start, end: end, val: val})
			i = end
		case c == '\'' || c == '"':
			val, end, ok := scanQuoted(src, i, to, c, true)
			if !ok {
				return toks, &lexError{start, "unterminated string literal"}
			}
			toks = append(toks, token{kind: tkString, start: start, end: end, val: val})
			i = end
		case (c == 'x' || c == 'X' || c == 'b' || c == 'B') && i+1 < to && src[i+1] == '\'':
			end := strings.IndexByte(src[i+2:to], '\'')
			if end < 0 {
				return toks, &lexError{start, "unterminated string literal"}
			}
			kind := tkHexString
			if c == 'b' || c == 'B' {
				kind = tkBitString
			}
			toks = append(toks, token{kind: kind, start: start, end: i + 2 + end + 1, val: src[i+2 : i+2+end]})
			i = i + 2 + end + 1
		case (c == 'n' || c == 'N') && i+1 < to && src[i+1] == '\'':
			val, end, ok := scanQuoted(src, i+1, to, '\'', true)
			if !ok {
				return toks, &lexError{start, "unterminated string literal"}
			}
			toks = append(toks, token{kind: tkString, start: start, end: end, val: val})
			i = end
		case isDigit(c) || (c == '.' && i+1 < to && isDigit(src[i+1]) && !prevIsNamePart(toks, i)):
			end, isNum := scanNumber(src, i, to)
			if isNum {
				toks = append(toks, token{kind: tkNumber, start: start, end: end, val: src[start:end]})
				i = end
				break
			}
			// An identifier may start with digits (e.g. 1abc).
			end = scanWord(src, i, to)
			toks = append(toks, token{kind: tkIdent, start: start, end: end, val: src[start:end]})
			i = end
		case isIdentByte(c):
			end := scanWord(src, i, to)
			toks = append(toks, token{kind: tkIdent, start: start, end: end, val: src[start:end]})
			i = end
		case c == '?':
			toks = append(toks, token{kind: tkParam, start: start, end: i + 1, val: "?"})
			i++
		case c == ':' && i+1 < to && isIdentByte(src[i+1]) && !isDigit(src[i+1]):
			end := scanWord(src, i+1, to)
			toks = append(toks, token{kind: tkNamedParam, start: start, end: end, val: src[i+1 : end]})
			i = end
		case c == '@' && i+1 < to && src[i+1] == '@':
			j := i + 2
			for j < to && (isIdentByte(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tkSysVariable, start: start, end: j, val: src[i+2 : j]})
			i = j
		case c == '@' && i+1 < to && (src[i+1] == '`' || src[i+1] == '\'' || src[i+1] == '"'):
			val, end, ok := scanQuoted(src, i+1, to, src[i+1], src[i+1] != '`')
			if !ok {
				return toks, &lexError{start, "unterminated quoted variable name"}
			}
			toks = append(toks, token{kind: tkVariable, start: start, end: end, val: val})
			i = end
		case c == '@' && i+1 < to && (isIdentByte(src[i+1]) || src[i+1] == '.'):
			j := i + 1
			for j < to && (isIdentByte(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tkVariable, start: start, end: j, val: src[i+1 : j]})
			i = j
		default:
			n := punctLen(src, i, to)
			toks = append(toks, token{kind: tkPunct, start: start, end: i + n, val: src[i : i+n]})
			i += n
		}
	}
	return toks, nil
}

func prevIsNamePart(toks []token, at int) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	return t.end == at && (t.isNamePart() || t.isPunct(")"))
}

func skipLine(src string, i, to int) int {
	for i < to && src[i] != '\n' {
		i++
	}
	return i
}

func scanWord(src string, i, to int) int {
	for i < to && isIdentByte(src[i]) {
		i++
	}
	return i
}

// scanNumber scans a numeric literal at src[i]. It reports false when the text is instead the
// start of an identifier such as 1abc.
func scanNumber(src string, i, to int) (int, bool) {
	start := i
	if src[i] == '0' && i+2 <= to && i+1 < to && (src[i+1] == 'x' || src[i+1] == 'X' || src[i+1] == 'b' || src[i+1] == 'B') {
		j := i + 2
		hex := src[i+1] == 'x' || src[i+1] == 'X'
		for j < to && ((hex && isHexDigit(src[j])) || (!hex && (src[j] == '0' || src[j] == '1'))) {
			j++
		}
		if j > i+2 && (j == to || !isIdentByte(src[j])) {
			return j, true
		}
		return start, false
	}
	for i < to && isDigit(src[i]) {
		i++
	}
	sawDot := false
	if i < to && src[i] == '.' {
		sawDot = true
		i++
		for i < to && isDigit(src[i]) {
			i++
		}
	}
	if i < to && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < to && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < to && isDigit(src[j]) {
			for j < to && isDigit(src[j]) {
				j++
			}
			i = j
		} else if !sawDot {
			return start, false // 1e, 1ea: identifier
		}
	}
	if i < to && isIdentByte(src[i]) && !sawDot {
		return start, false
	}
	return i, true
}

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

var multiPunct = []string{"<=>", "->>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->"}

func punctLen(src string, i, to int) int {
	for _, p := range multiPunct {
		if i+len(p) <= to && src[i:i+len(p)] == p {
			return len(p)
		}
	}
	return 1
}

// scanQuoted scans a quoted string or identifier starting at src[i] (the opening quote q). A
// doubled quote stands for one quote; with backslash, MySQL backslash escapes apply.
func scanQuoted(src string, i, to int, q byte, backslash bool) (string, int, bool) {
	var b strings.Builder
	j := i + 1
	for j < to {
		c := src[j]
		switch {
		case c == q:
			if j+1 < to && src[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			return b.String(), j + 1, true
		case c == '\\' && backslash:
			if j+1 >= to {
				return "", to, false
			}
			b.WriteString(unescapeByte(src[j+1]))
			j += 2
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", to, false
}

// unescapeByte applies MySQL's backslash escape rules (\% and \_ keep their backslash).
func unescapeByte(c byte) string {
	switch c {
	case '0':
		return "\x00"
	case 'b':
		return "\b"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'Z':
		return "\x1a"
	case '%':
		return "\\%"
	case '_':
		return "\\_"
	default:
		return string(c)
	}
}
