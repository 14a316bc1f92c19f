package expr

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// FuzzCall calls a registry function on arbitrary arguments (text parsed
// into values of several kinds): no input may panic or build a value past
// the statement's bound.
func FuzzCall(f *testing.F) {
	f.Add(uint16(0), "abc|2|3")
	f.Add(uint16(7), "2024-02-29 10:11:12|%W %D %x|DAY")
	f.Add(uint16(40), "-9223372036854775808|-1")
	f.Add(uint16(90), "31/02/2024|%d/%m/%Y")
	names := Names()
	f.Fuzz(func(t *testing.T, which uint16, text string) {
		name := names[int(which)%len(names)]
		fn, _ := Lookup(name)
		parts := strings.Split(text, "|")
		if len(parts) > 8 {
			parts = parts[:8]
		}
		vals := make([]any, len(parts))
		args := make([]Arg, len(parts))
		for i, p := range parts {
			var v any = p
			k := sqltypes.KindString
			switch {
			case p == "NULL":
				v, k = nil, KindNull
			case strings.HasPrefix(p, "#"):
				if n, err := strconv.ParseInt(p[1:], 10, 64); err == nil {
					v, k = n, sqltypes.KindInt
				}
			case strings.HasPrefix(p, "~"):
				if x, err := strconv.ParseFloat(p[1:], 64); err == nil {
					v, k = x, sqltypes.KindFloat
				}
			case strings.HasPrefix(p, "@"):
				if tm, ok := ToTime(p[1:]); ok {
					v, k = tm, sqltypes.KindDatetime
				}
			case strings.HasPrefix(p, "$"):
				v, k = p[1:], sqltypes.KindDecimal
			}
			vals[i], args[i] = v, Arg{Kind: k, Const: true, Value: v, Scale: -1}
		}
		if fn.CheckArity(len(args)) != nil {
			return
		}
		st := NewStatement(time.Unix(1700000000, 0))
		st.MaxValueBytes = 1 << 16
		c := &Call{Func: fn, Args: args, Stmt: st}
		_ = c.ResultKind()
		v, err := c.EvalValues(vals)
		if err == nil {
			if s, ok := v.(string); ok && len(s) > st.MaxValueBytes+1024 {
				t.Fatalf("%s(%q): %d bytes past the bound", name, text, len(s))
			}
		}
	})
}
