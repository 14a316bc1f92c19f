package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// CAST(x AS type) and CONVERT(x, type). sqlparse converts both to the
// call CAST(x, 'type'), type one of MySQL's cast targets:
//
//	SIGNED, UNSIGNED, DECIMAL(p,s), DOUBLE, FLOAT, CHAR[(n)], BINARY[(n)],
//	DATE, DATETIME[(fsp)], TIME[(fsp)], YEAR, JSON (json.go)
//
// (DECIMAL alone is DECIMAL(10,0); REAL is DOUBLE; NCHAR is CHAR). A value
// that does not convert is what MySQL answers: 0 for a non-number, NULL
// for a non-date, the nearest value of the range (with a warning) for one
// out of range.

// CastName is the registry name of CAST.
const CastName = sqlparse.FuncCast

func init() {
	register(&Func{Name: CastName, MinArgs: 2, MaxArgs: 2, Result: castResult, Eval: evalCast})
}

// castTarget is a parsed cast type.
type castTarget struct {
	kind      Kind
	name      string // SIGNED, UNSIGNED, DECIMAL, DOUBLE, FLOAT, CHAR, BINARY, DATE, DATETIME, TIME, YEAR
	length    int    // CHAR(n), BINARY(n), DECIMAL precision; -1 unset
	scale     int    // DECIMAL scale, DATETIME/TIME fsp
	hasLength bool
}

// parseCastTarget reads a cast type as sqlparse spells it.
func parseCastTarget(s string) (castTarget, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	name, params := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		name, params = strings.TrimSpace(s[:i]), s[i+1:len(s)-1]
	}
	t := castTarget{name: name, length: -1}
	var nums []int
	if params != "" {
		for _, p := range strings.Split(params, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 0 {
				return t, fmt.Errorf("%w: cast type %s", ErrInvalidArgument, s)
			}
			nums = append(nums, n)
		}
	}
	arg := func(i, def int) int {
		if i < len(nums) {
			return nums[i]
		}
		return def
	}
	switch name {
	case "SIGNED", "SIGNED INTEGER", "INTEGER", "INT":
		t.name, t.kind = "SIGNED", sqltypes.KindInt
	case "UNSIGNED", "UNSIGNED INTEGER":
		t.name, t.kind = "UNSIGNED", sqltypes.KindUint
	case "DECIMAL", "NUMERIC", "DEC", "FIXED":
		t.name, t.kind = "DECIMAL", sqltypes.KindDecimal
		t.length, t.scale = arg(0, 10), arg(1, 0)
		if t.length < 1 || t.length > maxDecimalDigits || t.scale > maxDecimalScale || t.scale > t.length {
			return t, fmt.Errorf("%w: cast type %s (precision 1..65, scale 0..38 and at most the precision)", ErrInvalidArgument, s)
		}
	case "DOUBLE", "REAL", "DOUBLE PRECISION":
		t.name, t.kind = "DOUBLE", sqltypes.KindFloat
	case "FLOAT":
		t.kind = sqltypes.KindFloat
	case "CHAR", "NCHAR", "VARCHAR":
		t.name, t.kind = "CHAR", sqltypes.KindString
		t.length, t.hasLength = arg(0, -1), len(nums) > 0
	case "BINARY":
		t.kind = sqltypes.KindBinary
		t.length, t.hasLength = arg(0, -1), len(nums) > 0
	case "DATE":
		t.kind = sqltypes.KindDate
	case "DATETIME", "TIMESTAMP":
		t.name, t.kind, t.scale = "DATETIME", sqltypes.KindDatetime, arg(0, 0)
	case "TIME":
		t.kind, t.scale = sqltypes.KindTime, arg(0, 0)
	case "YEAR":
		t.kind = sqltypes.KindInt
	case "JSON":
		t.kind = sqltypes.KindJSON
	default:
		return t, fmt.Errorf("%w: CAST to %s (targets: SIGNED, UNSIGNED, DECIMAL, DOUBLE, FLOAT, CHAR, BINARY, DATE, DATETIME, TIME, YEAR, JSON)", ErrInvalidArgument, s)
	}
	if (t.kind == sqltypes.KindDatetime || t.kind == sqltypes.KindTime) && t.scale > 6 {
		return t, fmt.Errorf("%w: cast type %s (fractional precision 0..6)", ErrInvalidArgument, s)
	}
	return t, nil
}

// CastKind is the result type of a cast to the type spelled s (KindNull
// and an error for an unknown type).
func CastKind(s string) (Kind, error) {
	t, err := parseCastTarget(s)
	if err != nil {
		return KindNull, err
	}
	return t.kind, nil
}

func castResult(args []Arg) Kind {
	s, _ := args[1].Value.(string)
	t, err := parseCastTarget(s)
	if err != nil {
		return sqltypes.KindString
	}
	return t.kind
}

func evalCast(c *Call, a []any) (any, error) {
	spec, _ := a[1].(string)
	t, err := parseCastTarget(spec)
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, nil
	}
	return castValue(c, a[0], c.argKind(0), t)
}

func castValue(c *Call, v any, from Kind, t castTarget) (any, error) {
	switch t.name {
	case "DECIMAL", "DOUBLE", "FLOAT":
		// (MariaDB casts the same text to SIGNED and UNSIGNED as a
		// string: 2024.)
		if c != nil && len(c.Args) > 0 {
			if n, ok := DateArithNumber(c.Args[0].Func, v); ok {
				v = n
			}
		}
	}
	switch t.name {
	case "SIGNED":
		i, _ := castInteger(c, v, from)
		if i.IsInt64() {
			return i.Int64(), nil
		}
		// Beyond int64: MySQL wraps a BIGINT UNSIGNED into the signed range.
		u := new(big.Int).And(i, new(big.Int).SetUint64(math.MaxUint64))
		return int64(u.Uint64()), nil
	case "UNSIGNED":
		i, _ := castInteger(c, v, from)
		if i.Sign() < 0 {
			i = new(big.Int).Add(i, new(big.Int).Lsh(big.NewInt(1), 64)) // two's complement, as MySQL
			if i.Sign() < 0 {
				return uint64(0), nil
			}
		}
		if !i.IsUint64() {
			return uint64(math.MaxUint64), nil
		}
		return i.Uint64(), nil
	case "JSON":
		return castJSON(c, v, from)
	case "YEAR":
		i, _ := castInteger(c, v, from)
		y := i.Int64()
		switch {
		case y > 0 && y < 70:
			y += 2000
		case y >= 70 && y < 100:
			y += 1900
		}
		if y < 0 || (y > 0 && y < 1901) || y > 2155 {
			return nil, nil
		}
		return y, nil
	case "DECIMAL":
		var d decimal
		if tm, ok := v.(time.Time); ok {
			d, _ = parseDecimal(TimeNumber(tm, from))
		} else {
			d, _ = decimalOf(v)
		}
		d = d.rescale(t.scale, roundHalfUp)
		limit := new(big.Int).Sub(pow10(t.length), big.NewInt(1))
		if new(big.Int).Abs(d.unscaled).Cmp(limit) > 0 {
			c.Stmt.Warn(1264, "Out of range value for column 'CAST' at row 1")
			if d.unscaled.Sign() < 0 {
				limit.Neg(limit)
			}
			d.unscaled = limit
		}
		return d.String(), nil
	case "DOUBLE":
		return ToFloat(v), nil
	case "FLOAT":
		return float64(float32(ToFloat(v))), nil
	case "CHAR":
		s := ToString(v)
		if tm, ok := v.(time.Time); ok && from == sqltypes.KindDatetime {
			s = FormatDatetime(tm)
		}
		if t.hasLength {
			r := []rune(s)
			if len(r) > t.length {
				s = string(r[:t.length])
			}
		}
		return s, nil
	case "BINARY":
		b := []byte(ToString(v))
		if t.hasLength {
			if len(b) > t.length {
				b = b[:t.length]
			} else {
				b = append(b, make([]byte, t.length-len(b))...)
			}
		}
		return string(b), nil
	case "DATE":
		tm, ok := ToTime(v)
		if !ok {
			return nil, nil
		}
		return time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC), nil
	case "DATETIME":
		tm, ok := ToTime(v)
		if !ok {
			return nil, nil
		}
		return roundFraction(tm, t.scale), nil
	case "TIME":
		if tm, ok := v.(time.Time); ok {
			return formatTimeOfDay(roundFraction(tm, t.scale), t.scale), nil
		}
		d, ok := parseDuration(ToString(v))
		if !ok {
			return nil, nil
		}
		return formatDuration(d, t.scale), nil
	}
	return nil, fmt.Errorf("%w: CAST to %s", ErrInvalidArgument, t.name)
}

// castInteger is a value as an exact integer: floats rounded to even (as
// MySQL's rint), decimals half away from zero, strings by their leading
// integer; ok is false when it was clamped.
func castInteger(c *Call, v any, from Kind) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case bool:
		return big.NewInt(ToInt(x, 0)), true
	case float64:
		r := math.RoundToEven(x)
		switch {
		case math.IsNaN(r):
			return new(big.Int), false
		case r >= math.MaxInt64:
			return big.NewInt(math.MaxInt64), false
		case r <= math.MinInt64:
			return big.NewInt(math.MinInt64), false
		}
		return big.NewInt(int64(r)), true
	case time.Time:
		// CAST(ts AS SIGNED) of a DATETIME at midnight is
		// 20240103000000, of a DATE 20240103; a fraction is rounded.
		d, _ := parseDecimal(TimeNumber(x, from))
		return d.rescale(0, roundHalfUp).unscaled, true
	}
	s := ToString(v)
	if from == sqltypes.KindDecimal {
		d, _ := decimalOf(s)
		return d.rescale(0, roundHalfUp).unscaled, true
	}
	orig := s
	s = strings.TrimLeft(s, " \t\n\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if rest := s[i:]; rest != "" {
		// MariaDB's 1292 for text after the integer: a Note for spaces.
		level := LevelNote
		if strings.TrimRight(rest, " \t\n\r") != "" || i == 0 {
			level = LevelWarning
		}
		c.Stmt.Raise(level, 1292, "Truncated incorrect INTEGER value: '%s'", orig)
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(s[:i], "+"), 10)
	if !ok {
		return new(big.Int), false
	}
	maxU := new(big.Int).SetUint64(math.MaxUint64)
	minI := big.NewInt(math.MinInt64)
	switch {
	case n.Cmp(maxU) > 0:
		c.Stmt.Warn(1292, "Truncated incorrect INTEGER value: '%s'", s)
		return maxU, false
	case n.Cmp(minI) < 0:
		c.Stmt.Warn(1292, "Truncated incorrect INTEGER value: '%s'", s)
		return minI, false
	}
	return n, true
}

// roundFraction rounds a time to fsp fraction digits.
func roundFraction(t time.Time, fsp int) time.Time {
	unit := time.Duration(math.Pow10(9 - fsp))
	return t.Round(unit)
}
