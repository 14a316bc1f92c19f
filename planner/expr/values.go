package expr

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// Conversions between the value types, as MySQL converts in function
// arguments.

// ToString is the text of a value: integers in decimal, floats in their
// shortest form, times as MySQL prints them, bytes as they are.
func ToString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "1"
		}
		return "0"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return FormatFloat(x)
	case uint64:
		return strconv.FormatUint(x, 10)
	case []byte:
		return string(x)
	case time.Time:
		return FormatTime(x)
	}
	return fmt.Sprint(v)
}

// FormatFloat prints a float as MariaDB does in a string context: the
// shortest digits that round-trip, plain for decimal exponents -15..14,
// else d.ddde±x without a plus sign ("1e20", "1.5e-16").
func FormatFloat(f float64) string {
	if f == 0 {
		return "0" // -0 too
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp >= 15 || exp < -15 {
		return e[:i] + "e" + strconv.Itoa(exp)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// FormatTime prints a time as MySQL does: "2006-01-02 15:04:05" with the
// fractional digits it has ("2006-01-02" for a midnight date).
func FormatTime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05.999999")
}

// FormatDatetime prints a time as a DATETIME or TIMESTAMP, midnight
// included ("2020-01-01 00:00:00").
func FormatDatetime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.999999")
}

// leadingNumber is the longest prefix of s (after leading spaces) that
// reads as a number, 0 if none: MySQL's conversion of a string to a
// number.
func leadingNumber(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r")
	end := numberPrefix(s)
	f, _ := strconv.ParseFloat(s[:end], 64)
	return f
}

// numberPrefix is the length of the longest prefix of s that is a decimal
// number ([+-]digits[.digits][e[+-]digits]).
func numberPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
		if digits > 0 {
			i = j
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// ToFloat converts a non-NULL value to float64 as MySQL does in a numeric
// context (strings: their leading number; times: YYYYMMDDhhmmss).
func ToFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return leadingNumber(x)
	case []byte:
		return leadingNumber(string(x))
	case time.Time:
		f, _ := strconv.ParseFloat(timeNumber(x), 64)
		return f
	}
	return 0
}

// timeNumber is a time in a numeric context: YYYYMMDD for a date,
// YYYYMMDDhhmmss otherwise. A time.Time does not say which it is: this
// takes midnight for a date, and TimeNumber goes by the value's type.
func timeNumber(t time.Time) string { return TimeNumber(t, KindNull) }

// TimeNumber is a time of kind k in a numeric context, as MySQL reads it:
// a DATE is YYYYMMDD, a DATETIME or TIMESTAMP YYYYMMDDhhmmss (midnight
// included), with its fraction of a second when it has one (.ffffff). Of
// an unknown kind (KindNull) a midnight is taken for a date.
func TimeNumber(t time.Time, k Kind) string {
	t = t.UTC()
	switch k {
	case sqltypes.KindDate:
		return t.Format("20060102")
	case sqltypes.KindDatetime, sqltypes.KindTimestamp:
	default:
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return t.Format("20060102")
		}
	}
	if t.Nanosecond() != 0 {
		return t.Format("20060102150405.000000")
	}
	return t.Format("20060102150405")
}

// DateArithNumber is the number, in a numeric context, of the text that
// DATE_ADD or DATE_SUB (fn, the registry name) gave for a string argument:
// MariaDB's value there is a DATETIME, so '2024-01-02' is 20240102 and
// '2024-01-02 01:00:00' 20240102010000, not the 2024 of the text. ok is
// false for any other function or text.
func DateArithNumber(fn string, v any) (string, bool) {
	s, isText := v.(string)
	if !isText || (fn != "DATE_ADD" && fn != "DATE_SUB") {
		return "", false
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return TimeNumber(t, sqltypes.KindDate), true
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999", s); err == nil {
		return TimeNumber(t, sqltypes.KindDatetime), true
	}
	return "", false
}

// ToInt converts a non-NULL value to an integer as MySQL does for an
// integer argument (SUBSTRING's position, REPEAT's count): floats and
// decimals round half away from zero (decimals) or to even (doubles),
// strings take their leading integer... clamped to the int64 range.
func ToInt(v any, k Kind) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case uint64:
		if x > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return clampFloat(math.RoundToEven(x))
	case string:
		if k == sqltypes.KindDecimal {
			return clampFloat(roundHalfAway(leadingNumber(x)))
		}
		return stringToInt(x)
	case []byte:
		return stringToInt(string(x))
	case time.Time:
		n, _ := strconv.ParseInt(timeNumber(x), 10, 64)
		return n
	}
	return 0
}

// stringToInt is MySQL's string to integer: the leading integer digits
// (a fraction is truncated), 0 if none, clamped.
func stringToInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			if strings.HasPrefix(s, "-") {
				return math.MinInt64
			}
			return math.MaxInt64
		}
		return 0
	}
	return n
}

func clampFloat(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func roundHalfAway(f float64) float64 { return math.Round(f) }

// ToTime converts a value to a time: times as they are, strings and
// numbers read as MySQL reads a date or datetime literal. ok is false when
// the value is no valid time (MySQL's NULL with a warning).
func ToTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), true
	case string:
		return parseTime(x)
	case []byte:
		return parseTime(string(x))
	case int64:
		return numberTime(x)
	case uint64:
		if x > math.MaxInt64 {
			return time.Time{}, false
		}
		return numberTime(int64(x))
	case float64:
		return numberTime(int64(x))
	}
	return time.Time{}, false
}

// parseTime reads the date and datetime forms MySQL accepts in a string:
// YYYY-MM-DD, YYYY-MM-DD hh:mm:ss[.frac], with 'T' as separator, and the
// compact YYYYMMDD[hhmmss]. A date of zeros or an invalid day is no time.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, ok := sqltypes.ParseTime(s); ok {
		return t, true
	}
	if len(s) == 6 || len(s) == 8 || len(s) == 12 || len(s) == 14 {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
			if len(s) == 8 || len(s) == 14 {
				// Four digits of year are the year as written: '00700710'
				// is 0070-07-10, where the number 700710 is 1970-07-10.
				return compactTime(s)
			}
			return numberTime(n)
		}
	}
	// MySQL reads the longest prefix that is a date (with a warning):
	// '2024-02-29--5' is 2024-02-29, '2023-12-31 23:59:59abc' a datetime.
	if m := lenientTime.FindStringSubmatch(s); m != nil && (len(m[0]) == len(s) || s[len(m[0])] < '0' || s[len(m[0])] > '9') {
		atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
		if len(m[1]) == 2 { // YY-MM-DD: 70..99 are 19xx, 00..69 20xx
			if y := atoi(m[1]); y < 70 {
				m[1] = strconv.Itoa(2000 + y)
			} else {
				m[1] = strconv.Itoa(1900 + y)
			}
		}
		ns := 0
		if m[7] != "" {
			frac := (m[7] + "000000000")[:9]
			ns = atoi(frac)
		}
		return mkTime(atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5]), atoi(m[6]), ns)
	}
	return time.Time{}, false
}

var lenientTime = regexp.MustCompile(`^(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?`)

// numberTime reads an integer as YYYYMMDD or YYYYMMDDhhmmss.
func numberTime(n int64) (time.Time, bool) {
	if n <= 0 {
		return time.Time{}, false
	}
	var y, mo, d, h, mi, sec int64
	switch {
	case n >= 100000000 && n < 1000000000000: // YYMMDDhhmmss
		y, mo, d = n/10000000000, n/100000000%100, n/1000000%100
		h, mi, sec = n/10000%100, n/100%100, n%100
		if y < 70 {
			y += 2000
		} else {
			y += 1900
		}
	case n < 100000000: // YYYYMMDD (and YYMMDD)
		y, mo, d = n/10000, n/100%100, n%100
		if y < 70 {
			y += 2000
		} else if y < 100 {
			y += 1900
		}
	default:
		y, mo, d = n/10000000000, n/100000000%100, n/1000000%100
		h, mi, sec = n/10000%100, n/100%100, n%100
	}
	return mkTime(int(y), int(mo), int(d), int(h), int(mi), int(sec), 0)
}

// compactTime reads the digits YYYYMMDD or YYYYMMDDhhmmss.
func compactTime(s string) (time.Time, bool) {
	n := func(i, j int) int { v, _ := strconv.Atoi(s[i:j]); return v }
	if len(s) == 8 {
		return mkTime(n(0, 4), n(4, 6), n(6, 8), 0, 0, 0, 0)
	}
	return mkTime(n(0, 4), n(4, 6), n(6, 8), n(8, 10), n(10, 12), n(12, 14), 0)
}

// mkTime builds a time when every field is in range (no normalisation:
// February 30 is no time, as in MySQL).
func mkTime(y, mo, d, h, mi, s, ns int) (time.Time, bool) {
	if y < 0 || y > 9999 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
	if t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}

// isNumeric reports whether a kind is a number.
func isNumeric(k Kind) bool {
	switch k {
	case sqltypes.KindInt, sqltypes.KindUint, sqltypes.KindFloat, sqltypes.KindDecimal, sqltypes.KindBool:
		return true
	}
	return false
}

func isTemporal(k Kind) bool {
	switch k {
	case sqltypes.KindDate, sqltypes.KindDatetime, sqltypes.KindTimestamp:
		return true
	}
	return false
}

func isInteger(k Kind) bool {
	return k == sqltypes.KindInt || k == sqltypes.KindUint || k == sqltypes.KindBool
}

// anyNull reports whether one of vs is NULL.
func anyNull(vs []any) bool {
	for _, v := range vs {
		if v == nil {
			return true
		}
	}
	return false
}

// Compare orders two non-NULL values: exactly for integers, as instants
// for times (a string side read as a time), numerically when one side is a
// number, else byte-wise.
func Compare(a, b any) int {
	ai, aInt := intOf(a)
	bi, bInt := intOf(b)
	if aInt && bInt {
		return compareInts(ai, bi)
	}
	if at, ok := a.(time.Time); ok {
		if bt, ok := ToTime(b); ok {
			return at.Compare(bt)
		}
	}
	if bt, ok := b.(time.Time); ok {
		if at, ok := ToTime(a); ok {
			return at.Compare(bt)
		}
	}
	_, aStr := a.(string)
	_, bStr := b.(string)
	if aStr && bStr {
		return strings.Compare(a.(string), b.(string))
	}
	af, bf := ToFloat(a), ToFloat(b)
	switch {
	case af < bf:
		return -1
	case af > bf:
		return 1
	}
	return 0
}

type bigint struct {
	neg bool
	mag uint64
}

func intOf(v any) (bigint, bool) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return bigint{true, uint64(-(x + 1)) + 1}, true
		}
		return bigint{false, uint64(x)}, true
	case uint64:
		return bigint{false, x}, true
	case bool:
		if x {
			return bigint{false, 1}, true
		}
		return bigint{false, 0}, true
	}
	return bigint{}, false
}

func compareInts(a, b bigint) int {
	switch {
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	case a.mag == b.mag:
		return 0
	case (a.mag < b.mag) != a.neg:
		return -1
	}
	return 1
}
