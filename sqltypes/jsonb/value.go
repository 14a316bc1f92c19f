// Package jsonb is lancecat's JSON value codec: JSON text in and out, and
// the binary JSONB layout in which Lance stores a JSON column (a
// large_binary field tagged lance.json), the format of the Rust `jsonb`
// crate (databend's) that Lance links.
//
// Parse/Format (value.go) read and print text; Encode/Decode (binary.go,
// which describes the layout) write and read JSONB byte for byte as the
// peer does (peer_test.go generates the peer's bytes at test time).
//
// Values are Go trees: nil (JSON null), bool, string, int64, uint64 (only
// above math.MaxInt64), float64, []any (arrays) and *Object. The package
// knows nothing of SQL; the MySQL conventions it follows are the text
// format (Format prints MySQL 8's normalized text, `{"a": 1, "b": [1, 2]}`),
// the order of object keys (by length, then bytewise, as MySQL 8 keeps
// them), duplicate keys (the last one wins) and the depth bound (100).
//
// Every length read from JSONB is checked against the input before
// anything is allocated; every error of invalid input matches ErrInvalid
// (*SyntaxError for text, *CorruptError for bytes, ErrTooDeep).
package jsonb

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth is MySQL's bound on the nesting of a JSON document.
const MaxDepth = 100

// ErrInvalid marks JSON text or JSONB bytes that do not hold a valid
// value (errors.Is).
var ErrInvalid = errors.New("invalid JSON")

// ErrTooDeep marks a document nested deeper than MaxDepth (it also
// matches ErrInvalid).
var ErrTooDeep = fmt.Errorf("%w: the JSON document exceeds the maximum depth %d", ErrInvalid, MaxDepth)

// SyntaxError is invalid JSON text: the reason and the byte offset, as
// MySQL reports them ("Invalid value." at position 3).
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON text: %q at position %d", e.Msg, e.Offset)
}

// Unwrap makes a SyntaxError match ErrInvalid.
func (e *SyntaxError) Unwrap() error { return ErrInvalid }

// Object is a JSON object: keys unique, kept in MySQL's order (shorter
// keys first, then bytewise).
type Object struct {
	Keys []string
	Vals []any
}

// keyLess is MySQL 8's order of object keys.
func keyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// find returns the index of key k, or where it would go.
func (o *Object) find(k string) (int, bool) {
	i := sort.Search(len(o.Keys), func(i int) bool { return !keyLess(o.Keys[i], k) })
	return i, i < len(o.Keys) && o.Keys[i] == k
}

// Get returns the value of key k.
func (o *Object) Get(k string) (any, bool) {
	i, ok := o.find(k)
	if !ok {
		return nil, false
	}
	return o.Vals[i], true
}

// Set sets key k to v (replacing an existing value: the last duplicate
// wins, as in MySQL).
func (o *Object) Set(k string, v any) {
	i, ok := o.find(k)
	if ok {
		o.Vals[i] = v
		return
	}
	o.Keys = append(o.Keys, "")
	o.Vals = append(o.Vals, nil)
	copy(o.Keys[i+1:], o.Keys[i:])
	copy(o.Vals[i+1:], o.Vals[i:])
	o.Keys[i], o.Vals[i] = k, v
}

// Delete removes key k and reports whether it was there.
func (o *Object) Delete(k string) bool {
	i, ok := o.find(k)
	if !ok {
		return false
	}
	o.Keys = append(o.Keys[:i], o.Keys[i+1:]...)
	o.Vals = append(o.Vals[:i], o.Vals[i+1:]...)
	return true
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.Keys) }

// Parse reads one JSON document from text (surrounding white space
// allowed). Integers that fit int64 are int64, larger ones up to
// math.MaxUint64 uint64, other numbers float64. Errors are *SyntaxError or
// ErrTooDeep.
func Parse(text string) (any, error) {
	p := parser{s: text}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.fail("The document root must not be followed by other values.")
	}
	return v, nil
}

// Valid reports whether text is one valid JSON document.
func Valid(text string) bool {
	_, err := Parse(text)
	return err == nil
}

type parser struct {
	s string
	i int
}

func (p *parser) fail(msg string) error { return &SyntaxError{Msg: msg, Offset: p.i} }

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.i >= len(p.s) {
		if p.i == 0 {
			return nil, p.fail("The document is empty.")
		}
		return nil, p.fail("Invalid value.")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		if depth >= MaxDepth {
			return nil, ErrTooDeep
		}
		return p.object(depth + 1)
	case c == '[':
		if depth >= MaxDepth {
			return nil, ErrTooDeep
		}
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, nil
	}
	return nil, p.fail("Invalid value.")
}

func (p *parser) object(depth int) (any, error) {
	p.i++ // {
	o := &Object{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return o, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.fail("Missing a name for object member.")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.fail("Missing a colon after a name of object member.")
		}
		p.i++
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		o.Set(k.(string), v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("Missing a comma or '}' after an object member.")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return o, nil
		default:
			return nil, p.fail("Missing a comma or '}' after an object member.")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("Missing a comma or ']' after an array element.")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.fail("Missing a comma or ']' after an array element.")
		}
	}
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[:4], 16, 32)
	return rune(n), err == nil
}

func (p *parser) str() (any, error) {
	start := p.i
	// Fast path: a string without escapes is a slice of the text.
	for j := p.i + 1; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' {
			if t := p.s[p.i+1 : j]; utf8.ValidString(t) {
				p.i = j + 1
				return t, nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	p.i++ // "
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			p.i = start
			return nil, p.fail("Missing a closing quotation mark in string.")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return nil, p.fail("Invalid encoding in string.")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, p.fail("Invalid escape character in string.")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(p.s[p.i:])
				if !ok {
					return nil, p.fail("Incorrect hex digit after \\u escape in string.")
				}
				p.i += 4
				if r >= 0xD800 && r <= 0xDBFF {
					if !strings.HasPrefix(p.s[p.i:], "\\u") {
						return nil, p.fail("The surrogate pair in string is invalid.")
					}
					lo, ok := hex4(p.s[p.i+2:])
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return nil, p.fail("The surrogate pair in string is invalid.")
					}
					p.i += 6
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else if r >= 0xDC00 && r <= 0xDFFF {
					return nil, p.fail("The surrogate pair in string is invalid.")
				}
				b.WriteRune(r)
			default:
				p.i -= 2
				return nil, p.fail("Invalid escape character in string.")
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.i++
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, p.fail("Invalid encoding in string.")
			}
			b.WriteString(p.s[p.i : p.i+n])
			p.i += n
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++ // a leading zero is the whole integer part; what follows is the caller's
	} else if digits() == 0 {
		return nil, p.fail("Invalid value.")
	}
	integral := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		integral = false
		if digits() == 0 {
			return nil, p.fail("Miss fraction part in number.")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		integral = false
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("Miss exponent in number.")
		}
	}
	t := p.s[start:p.i]
	if integral {
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(t, 10, 64); err == nil {
			return u, nil
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) {
		p.i = start
		return nil, p.fail("Number too big to be stored in double.")
	}
	return f, nil
}

// Format prints v as MySQL 8 prints a JSON value: `{"a": 1, "b": [1, 2]}`.
func Format(v any) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}

// FormatFloat prints a double as MySQL 8's JSON text does (my_gcvt, then
// ".0" when the digits look integral): the shortest digits that
// round-trip, plain for decimal exponents -15..14, else d.ddde±x without a
// plus sign: 1.0, 100.0, 0.1, 1e15, 1.5e-16. NaN and the infinities,
// which MySQL cannot hold but the peer's JSONB can, print as null (as the
// peer prints them).
func FormatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp >= 15 || exp < -15 {
		return e[:i] + "e" + strconv.Itoa(exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// Quote prints s as a JSON string (MySQL's escapes: \" \\ \b \f \n \r \t
// and \u00XX for other control characters; other characters as they are).
func Quote(s string) string {
	var b strings.Builder
	quote(&b, s)
	return b.String()
}

func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

func write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case float64:
		b.WriteString(FormatFloat(x))
	case string:
		quote(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			quote(b, k)
			b.WriteString(": ")
			write(b, x.Vals[i])
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%q", fmt.Sprint(x))
	}
}

// Depth is the nesting depth of v as MySQL's JSON_DEPTH counts it: 1 for
// a scalar or an empty container, one more per level of members.
func Depth(v any) int {
	var members []any
	switch x := v.(type) {
	case []any:
		members = x
	case *Object:
		members = x.Vals
	default:
		return 1
	}
	d := 1
	for _, m := range members {
		if e := Depth(m) + 1; e > d {
			d = e
		}
	}
	return d
}

// Pretty prints v as MySQL's JSON_PRETTY does: one member per line,
// indented by two spaces, `"key": value`; empty containers as [] and {}.
func Pretty(v any) string {
	var b strings.Builder
	pretty(&b, v, 0)
	return b.String()
}

func pretty(b *strings.Builder, v any, indent int) {
	nl := func(n int) {
		b.WriteByte('\n')
		for i := 0; i < n; i++ {
			b.WriteString("  ")
		}
	}
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(indent + 1)
			pretty(b, e, indent+1)
		}
		nl(indent)
		b.WriteByte(']')
	case *Object:
		if len(x.Keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(indent + 1)
			quote(b, k)
			b.WriteString(": ")
			pretty(b, x.Vals[i], indent+1)
		}
		nl(indent)
		b.WriteByte('}')
	default:
		write(b, v)
	}
}
