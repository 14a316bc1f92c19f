package sqlparse

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Bind substitutes placeholders in sql with SQL literals for args, returning text to Parse.
//
// Placeholders are `?` (bound, in order, to the arguments without a name, sorted by Ordinal) and
// `:name` / `@name` (bound by name; one name may be used several times; when no argument has a
// name, `@name` is left alone as a user variable). `@@name` (system variables) and `?`, `:x`, `@x` inside string literals, backquoted identifiers and comments are
// left alone. Every positional argument must be used exactly once and every named argument at
// least once; otherwise Bind fails with ErrBind. Values become literals that the lexer reads back
// as one token (strings are quoted and escaped), so a bound value can never change the structure
// of the statement; in particular identifiers cannot be bound.
//
// Value mapping: nil and nil []byte -> NULL; bool -> TRUE/FALSE; integers -> decimal; floats ->
// a float literal with an exponent, e.g. 1.5e0 (NaN and infinities are rejected); string -> '...'; []byte -> X'..';
// time.Time -> 'YYYY-MM-DD HH:MM:SS[.fraction]' in UTC; Decimal -> its digits; driver.Valuer ->
// its Value.
func Bind(sql string, args []driver.NamedValue) (string, error) {
	if len(sql) > MaxScriptBytes {
		return "", &Error{Pos: Pos{Line: 1, Column: 1}, Kind: ErrLimit,
			Msg: fmt.Sprintf("SQL text of %d bytes exceeds the limit of %d bytes", len(sql), MaxScriptBytes)}
	}
	toks, lerr := lex(sql, 0, len(sql))
	if lerr != nil {
		sc := newScript(sql)
		return "", &Error{Pos: sc.pos(lerr.off), Msg: lerr.msg, Kind: ErrSyntax}
	}
	var positional []driver.NamedValue
	named := map[string]driver.NamedValue{}
	for _, a := range args {
		if a.Name == "" {
			positional = append(positional, a)
			continue
		}
		if _, dup := named[a.Name]; dup {
			return "", fmt.Errorf("%w: argument %q given twice", ErrBind, a.Name)
		}
		named[a.Name] = a
	}
	sort.SliceStable(positional, func(i, j int) bool { return positional[i].Ordinal < positional[j].Ordinal })

	var b strings.Builder
	last, nextPos := 0, 0
	usedNames := map[string]bool{}
	nParams := 0
	for _, t := range toks {
		var v driver.NamedValue
		switch {
		case t.kind == tkParam:
			nParams++
			if nextPos >= len(positional) {
				nextPos++
				continue // counted; reported below
			}
			v = positional[nextPos]
			nextPos++
		case t.kind == tkVariable && len(named) == 0:
			// No named arguments: @name is MySQL's user variable (LOAD
			// DATA's column list and SET read them), not a placeholder.
			continue
		case t.kind == tkNamedParam || (t.kind == tkVariable && isIdentByte(sql[t.start+1])):
			a, ok := named[t.val]
			if !ok {
				sc := newScript(sql)
				return "", fmt.Errorf("%w: %s: no argument named %q for %s", ErrBind, sc.pos(t.start), t.val, sql[t.start:t.end])
			}
			usedNames[t.val] = true
			v = a
		default:
			continue
		}
		lit, err := FormatLiteral(v.Value)
		if err != nil {
			name := v.Name
			if name == "" {
				name = "$" + strconv.Itoa(v.Ordinal)
			}
			return "", fmt.Errorf("%w: argument %s: %v", ErrBind, name, err)
		}
		b.WriteString(sql[last:t.start])
		if t.start > 0 && isIdentByte(sql[t.start-1]) {
			b.WriteByte(' ')
		}
		b.WriteString(lit)
		if t.end < len(sql) && isIdentByte(sql[t.end]) {
			b.WriteByte(' ')
		}
		last = t.end
	}
	if nParams != len(positional) {
		return "", fmt.Errorf("%w: statement has %d ? placeholders but %d positional arguments were given", ErrBind, nParams, len(positional))
	}
	for name := range named {
		if !usedNames[name] {
			return "", fmt.Errorf("%w: argument %q is not used by the statement", ErrBind, name)
		}
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}

// FormatLiteral renders v as a SQL literal (see Bind for the mapping).
func FormatLiteral(v any) (string, error) {
	return formatLiteral(v, 0)
}

func formatLiteral(v any, depth int) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case bool:
		if x {
			return "TRUE", nil
		}
		return "FALSE", nil
	case string:
		return QuoteString(x), nil
	case []byte:
		if x == nil {
			return "NULL", nil
		}
		return "X'" + hex.EncodeToString(x) + "'", nil
	case time.Time:
		return "'" + formatTime(x) + "'", nil
	case Decimal:
		if !isDecimalText(string(x)) {
			return "", fmt.Errorf("invalid decimal %q", string(x))
		}
		if strings.HasPrefix(string(x), "-") {
			return "(" + string(x) + ")", nil
		}
		return string(x), nil
	case float64:
		return formatFloat(x, 64)
	case float32:
		return formatFloat(float64(x), 32)
	case []float32:
		return formatVector(len(x), func(i int) (float64, int) { return float64(x[i]), 32 })
	case []float64:
		return formatVector(len(x), func(i int) (float64, int) { return x[i], 64 })
	case [][]float32:
		return formatMultiVector(len(x), func(i int) (string, error) {
			return formatVector(len(x[i]), func(j int) (float64, int) { return float64(x[i][j]), 32 })
		})
	case [][]float64:
		return formatMultiVector(len(x), func(i int) (string, error) {
			return formatVector(len(x[i]), func(j int) (float64, int) { return x[i][j], 64 })
		})
	case driver.Valuer:
		if depth > 4 {
			return "", fmt.Errorf("driver.Valuer nesting too deep")
		}
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return "NULL", nil
		}
		inner, err := x.Value()
		if err != nil {
			return "", err
		}
		return formatLiteral(inner, depth+1)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := rv.Int()
		if n < 0 {
			return "(" + strconv.FormatInt(n, 10) + ")", nil
		}
		return strconv.FormatInt(n, 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.String:
		return QuoteString(rv.String()), nil
	case reflect.Float32, reflect.Float64:
		return formatFloat(rv.Float(), rv.Type().Bits())
	case reflect.Bool:
		return formatLiteral(rv.Bool(), depth)
	case reflect.Pointer:
		if rv.IsNil() {
			return "NULL", nil
		}
		if depth > 4 {
			return "", fmt.Errorf("pointer nesting too deep")
		}
		return formatLiteral(rv.Elem().Interface(), depth+1)
	}
	return "", fmt.Errorf("unsupported argument type %T", v)
}

// formatMultiVector renders a [][]float32 / [][]float64 argument as the
// multivector text literal '[[x, ...], [x, ...]]' (a MULTIVECTOR column and
// the VEC_MAXSIM_ functions read it), each vector as formatVector renders it.
func formatMultiVector(n int, vec func(int) (string, error)) (string, error) {
	if n > 1<<16 {
		return "", fmt.Errorf("multivector of %d vectors is too long to bind", n)
	}
	return formatList(n, func(i int) (string, error) {
		v, err := vec(i)
		if err != nil {
			return "", err
		}
		return v[1 : len(v)-1], nil // without formatVector's quotes
	})
}

// formatVector renders a []float32 / []float64 argument as the vector
// text literal '[x, y, ...]' (what a VECTOR column and the VEC_ functions
// read). NaN and infinities are refused as for scalar floats.
func formatVector(n int, at func(int) (float64, int)) (string, error) {
	if n > 1<<16 {
		return "", fmt.Errorf("vector of %d elements is too long to bind", n)
	}
	return formatList(n, func(i int) (string, error) {
		f, bits := at(i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("cannot bind a vector holding %v", f)
		}
		return strconv.FormatFloat(f, 'g', -1, bits), nil
	})
}

// formatList renders n items as the quoted text '[a, b, ...]'.
func formatList(n int, item func(int) (string, error)) (string, error) {
	var b strings.Builder
	b.WriteString("'[")
	for i := range n {
		x, err := item(i)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x)
	}
	b.WriteString("]'")
	return b.String(), nil
}

func formatFloat(f float64, bits int) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("cannot bind %v", f)
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, "eE") { // an exponent makes it a float (1.5 alone would be DECIMAL)
		s += "e0"
	}
	if f < 0 || (f == 0 && math.Signbit(f)) {
		return "(" + s + ")", nil
	}
	return s, nil
}

func isDecimalText(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	dot := false
	digits := 0
	for i := 0; i < len(s); i++ {
		switch {
		case isDigit(s[i]):
			digits++
		case s[i] == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

func formatTime(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02 15:04:05.999999999")
	return s
}

// QuoteString renders s as a single-quoted SQL string literal. Quotes are doubled and
// backslashes, NUL, \n, \r and Ctrl-Z escaped, so both lancecat's lexer and TiDB's read it back
// as exactly s in one token.
func QuoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
