package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// Date and time functions, in UTC (lancecat's session time zone). DATE,
// DATETIME and TIMESTAMP values are time.Time; TIME values are their text
// ("15:04:05"). A string argument is read as MySQL reads a date literal; one
// that is no valid date makes the result NULL. NOW() and friends return
// the statement's one start time.
//
// sqlparse converts the INTERVAL and unit syntax to plain arguments:
// DATE_ADD(d, INTERVAL n unit) and d + INTERVAL n unit are DATE_ADD(d, n,
// 'UNIT'); EXTRACT(unit FROM d) is EXTRACT('UNIT', d); TIMESTAMPDIFF(unit,
// a, b) is TIMESTAMPDIFF('UNIT', a, b).

func init() {
	nowKind := fixed(sqltypes.KindDatetime)
	register(
		&Func{Name: "NOW", Aliases: []string{"CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "SYSDATE", "UTC_TIMESTAMP"}, MinArgs: 0, MaxArgs: 1, Result: nowKind, NeedsStatement: true,
			Eval: func(c *Call, a []any) (any, error) {
				fsp := 0
				if len(a) > 0 && a[0] != nil {
					fsp = int(ToInt(a[0], c.argKind(0)))
				}
				if fsp < 0 || fsp > 6 {
					return nil, fmt.Errorf("%w: fractional precision %d (0..6)", ErrInvalidArgument, fsp)
				}
				return c.Stmt.now().Truncate(time.Duration(math.Pow10(9 - fsp))), nil
			}},
		&Func{Name: "CURDATE", Aliases: []string{"CURRENT_DATE", "UTC_DATE"}, MinArgs: 0, MaxArgs: 0, Result: fixed(sqltypes.KindDate), NeedsStatement: true,
			Eval: func(c *Call, _ []any) (any, error) { return dateOf(c.Stmt.now()), nil }},
		&Func{Name: "CURTIME", Aliases: []string{"CURRENT_TIME", "UTC_TIME"}, MinArgs: 0, MaxArgs: 1, Result: fixed(sqltypes.KindTime), NeedsStatement: true,
			Eval: func(c *Call, _ []any) (any, error) { return formatTimeOfDay(c.Stmt.now(), 0), nil }},
		&Func{Name: "DATE", MinArgs: 1, MaxArgs: 1, Result: fixed(sqltypes.KindDate), Eval: timeFunc(func(t time.Time) any { return dateOf(t) })},
		&Func{Name: "TIME", MinArgs: 1, MaxArgs: 1, Result: fixed(sqltypes.KindTime), Eval: func(_ *Call, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			if t, ok := ToTime(a[0]); ok && !isTimeOnly(a[0]) {
				return formatTimeOfDay(t, fracDigits(t)), nil
			}
			d, ok := parseDuration(ToString(a[0]))
			if !ok {
				return nil, nil
			}
			return formatDuration(d, -1), nil
		}},
		&Func{Name: "YEAR", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64(t.Year()) })},
		&Func{Name: "MONTH", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64(t.Month()) })},
		&Func{Name: "QUARTER", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64((t.Month()-1)/3 + 1) })},
		&Func{Name: "DAYOFMONTH", Aliases: []string{"DAY"}, MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64(t.Day()) })},
		&Func{Name: "DAYOFWEEK", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64(t.Weekday()) + 1 })},
		&Func{Name: "WEEKDAY", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64((t.Weekday() + 6) % 7) })},
		&Func{Name: "DAYOFYEAR", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return int64(t.YearDay()) })},
		&Func{Name: "DAYNAME", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: timeFunc(func(t time.Time) any { return t.Weekday().String() })},
		&Func{Name: "MONTHNAME", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: timeFunc(func(t time.Time) any { return t.Month().String() })},
		&Func{Name: "LAST_DAY", MinArgs: 1, MaxArgs: 1, Result: fixed(sqltypes.KindDate), Eval: timeFunc(func(t time.Time) any {
			return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC)
		})},
		&Func{Name: "TO_DAYS", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: timeFunc(func(t time.Time) any { return toDays(t) })},
		&Func{Name: "WEEK", MinArgs: 1, MaxArgs: 2, Result: resultInt, Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			t, ok := ToTime(a[0])
			if !ok {
				return nil, nil
			}
			mode := int64(0)
			if len(a) > 1 {
				mode = ToInt(a[1], c.argKind(1))
			}
			w, _ := week(t, int(mode&7))
			return int64(w), nil
		}},
		&Func{Name: "HOUR", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: clockFunc(func(d time.Duration) int64 { return int64(d / time.Hour) })},
		&Func{Name: "MINUTE", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: clockFunc(func(d time.Duration) int64 { return int64(d/time.Minute) % 60 })},
		&Func{Name: "SECOND", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: clockFunc(func(d time.Duration) int64 { return int64(d/time.Second) % 60 })},
		&Func{Name: "MICROSECOND", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: clockFunc(func(d time.Duration) int64 { return int64(d/time.Microsecond) % 1000000 })},
		&Func{Name: "EXTRACT", MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: evalExtract},
		&Func{Name: "DATE_ADD", Aliases: []string{"ADDDATE"}, MinArgs: 3, MaxArgs: 3, Result: dateArithResult, Eval: func(c *Call, a []any) (any, error) { return dateArith(c, a, 1) }},
		&Func{Name: "DATE_SUB", Aliases: []string{"SUBDATE"}, MinArgs: 3, MaxArgs: 3, Result: dateArithResult, Eval: func(c *Call, a []any) (any, error) { return dateArith(c, a, -1) }},
		&Func{Name: "DATEDIFF", MinArgs: 2, MaxArgs: 2, Result: resultInt, Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			x, ok1 := timeArg(c, a[0])
			y, ok2 := timeArg(c, a[1])
			if !ok1 || !ok2 {
				return nil, nil
			}
			return toDays(x) - toDays(y), nil
		}},
		&Func{Name: "TIMESTAMPDIFF", MinArgs: 3, MaxArgs: 3, Result: resultInt, Eval: evalTimestampDiff},
		&Func{Name: "DATE_FORMAT", MinArgs: 2, MaxArgs: 2, Result: resultString, Eval: func(c *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			t, ok := timeArg(c, a[0])
			if !ok {
				return nil, nil
			}
			return dateFormat(t, ToString(a[1])), nil
		}},
		&Func{Name: "STR_TO_DATE", MinArgs: 2, MaxArgs: 2, Result: strToDateResult, Eval: evalStrToDate},
		&Func{Name: "UNIX_TIMESTAMP", MinArgs: 0, MaxArgs: 1, Result: resultInt, NeedsStatement: true, Eval: func(c *Call, a []any) (any, error) {
			if len(a) == 0 {
				return c.Stmt.now().Unix(), nil
			}
			if a[0] == nil {
				return nil, nil
			}
			t, ok := timeArg(c, a[0])
			if !ok {
				return nil, nil
			}
			if t.Unix() < 0 {
				return nil, nil // before the epoch: NULL, as MariaDB
			}
			return t.Unix(), nil
		}},
		&Func{Name: "FROM_UNIXTIME", MinArgs: 1, MaxArgs: 2, Result: func(a []Arg) Kind {
			if len(a) > 1 {
				return sqltypes.KindString
			}
			return sqltypes.KindDatetime
		}, Eval: func(_ *Call, a []any) (any, error) {
			if anyNull(a) {
				return nil, nil
			}
			f := ToFloat(a[0])
			if f < 0 || f > 32536771199 {
				return nil, nil
			}
			sec, frac := math.Modf(f)
			t := time.Unix(int64(sec), int64(math.Round(frac*1e6))*1000).UTC()
			if len(a) > 1 {
				return dateFormat(t, ToString(a[1])), nil
			}
			return t, nil
		}},
	)
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// timeArg is ToTime(v) for an argument of a date function, raising
// MariaDB's 1292 for text that is no date or datetime (the function's
// value is then NULL, as in MariaDB).
func timeArg(c *Call, v any) (time.Time, bool) {
	t, ok := ToTime(v)
	if !ok && c != nil {
		switch x := v.(type) {
		case string:
			c.Stmt.Warn(1292, "Incorrect datetime value: '%s'", x)
		case []byte:
			c.Stmt.Warn(1292, "Incorrect datetime value: '%s'", x)
		}
	}
	return t, ok
}

// timeFunc lifts a function of a date (NULL for NULL or a non-date).
func timeFunc(f func(time.Time) any) func(*Call, []any) (any, error) {
	return func(c *Call, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		t, ok := timeArg(c, a[0])
		if !ok {
			return nil, nil
		}
		return f(t), nil
	}
}

// clockFunc lifts a function of the time of day of a datetime or a TIME
// text ('838:59:59' included: HOUR of a TIME can exceed 23).
func clockFunc(f func(time.Duration) int64) func(*Call, []any) (any, error) {
	return func(_ *Call, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		if t, ok := ToTime(a[0]); ok && !isTimeOnly(a[0]) {
			return f(t.Sub(dateOf(t))), nil
		}
		d, ok := parseDuration(ToString(a[0]))
		if !ok {
			return nil, nil
		}
		return f(d.Abs()), nil
	}
}

// isTimeOnly reports whether v is the text of a TIME (hh:mm:ss), which
// would not read as a date.
func isTimeOnly(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.ContainsAny(s[:i], "- ")
}

// parseDuration reads a TIME text: [-][h]hh:mm[:ss[.frac]] or a number
// hhmmss.
func parseDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var h, m int64
	var sec float64
	parts := strings.Split(s, ":")
	var err error
	switch len(parts) {
	case 1:
		var n float64
		n, err = strconv.ParseFloat(s, 64)
		whole := int64(n)
		h, m, sec = whole/10000, whole/100%100, float64(whole%100)+(n-float64(whole))
	case 2, 3:
		if h, err = strconv.ParseInt(parts[0], 10, 64); err != nil {
			return 0, false
		}
		if m, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
			return 0, false
		}
		if len(parts) == 3 {
			sec, err = strconv.ParseFloat(parts[2], 64)
		}
	default:
		return 0, false
	}
	if err != nil || m > 59 || sec >= 60 || h > 838 {
		return 0, false
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(math.Round(sec*1e6))*time.Microsecond
	if neg {
		d = -d
	}
	return d, true
}

// formatDuration prints a TIME: [-]hh:mm:ss[.frac] with fsp digits (-1:
// the digits it has).
func formatDuration(d time.Duration, fsp int) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	h := int64(d / time.Hour)
	m := int64(d/time.Minute) % 60
	s := int64(d/time.Second) % 60
	us := int64(d/time.Microsecond) % 1000000
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, s)
	if fsp < 0 {
		if us != 0 {
			out += strings.TrimRight(fmt.Sprintf(".%06d", us), "0")
		}
		return out
	}
	if fsp > 0 {
		out += fmt.Sprintf(".%06d", us)[:fsp+1]
	}
	return out
}

func formatTimeOfDay(t time.Time, fsp int) string {
	return formatDuration(t.Sub(dateOf(t)), fsp)
}

func fracDigits(t time.Time) int {
	if t.Nanosecond() == 0 {
		return 0
	}
	return -1
}

// toDays is MySQL's TO_DAYS: days since year 0 (0000-01-01 is day 1...).
func toDays(t time.Time) int64 {
	epoch := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	d := dateOf(t).Sub(epoch)
	return int64(d/(24*time.Hour)) + 719528
}

// intervalUnits maps a unit to its kind: a fixed duration, or months.
var intervalUnits = map[string]struct {
	dur    time.Duration
	months int
}{
	"MICROSECOND": {dur: time.Microsecond}, "SECOND": {dur: time.Second}, "MINUTE": {dur: time.Minute},
	"HOUR": {dur: time.Hour}, "DAY": {dur: 24 * time.Hour}, "WEEK": {dur: 7 * 24 * time.Hour},
	"MONTH": {months: 1}, "QUARTER": {months: 3}, "YEAR": {months: 12},
}

// compound units: the fields of the interval text, largest first.
var compoundUnits = map[string][]string{
	"SECOND_MICROSECOND": {"SECOND", "MICROSECOND"}, "MINUTE_MICROSECOND": {"MINUTE", "SECOND", "MICROSECOND"},
	"MINUTE_SECOND": {"MINUTE", "SECOND"}, "HOUR_MICROSECOND": {"HOUR", "MINUTE", "SECOND", "MICROSECOND"},
	"HOUR_SECOND": {"HOUR", "MINUTE", "SECOND"}, "HOUR_MINUTE": {"HOUR", "MINUTE"},
	"DAY_MICROSECOND": {"DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND"}, "DAY_SECOND": {"DAY", "HOUR", "MINUTE", "SECOND"},
	"DAY_MINUTE": {"DAY", "HOUR", "MINUTE"}, "DAY_HOUR": {"DAY", "HOUR"}, "YEAR_MONTH": {"YEAR", "MONTH"},
}

func unitOf(v any) (string, error) {
	u := strings.ToUpper(ToString(v))
	if _, ok := intervalUnits[u]; ok {
		return u, nil
	}
	if _, ok := compoundUnits[u]; ok {
		return u, nil
	}
	return "", fmt.Errorf("%w: interval unit %s", ErrInvalidArgument, u)
}

// dayUnit reports whether adding the unit keeps a DATE a DATE.
func dayUnit(u string) bool {
	switch u {
	case "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "YEAR_MONTH":
		return true
	}
	return false
}

func dateArithResult(a []Arg) Kind {
	u, _ := a[2].Value.(string)
	switch a[0].Kind {
	case sqltypes.KindDate:
		if dayUnit(strings.ToUpper(u)) {
			return sqltypes.KindDate
		}
		return sqltypes.KindDatetime
	case sqltypes.KindDatetime, sqltypes.KindTimestamp:
		return sqltypes.KindDatetime
	}
	return sqltypes.KindString // MySQL: a string argument gives a string
}

// dateArith is DATE_ADD (sign 1) and DATE_SUB (-1). Months add as MySQL
// does: the day is clamped to the end of the month (Jan 31 + 1 MONTH is
// Feb 28/29); a result outside years 1..9999 is NULL.
func dateArith(c *Call, a []any, sign int64) (any, error) {
	u, err := unitOf(a[2])
	if err != nil {
		return nil, err
	}
	if a[0] == nil || a[1] == nil {
		return nil, nil
	}
	t, ok := timeArg(c, a[0])
	if !ok {
		return nil, nil
	}
	var months, days int64
	var dur time.Duration
	if fields, ok := compoundUnits[u]; ok {
		s := ToString(a[1])
		neg := strings.HasPrefix(strings.TrimSpace(s), "-")
		nums := splitNumbers(s)
		if len(nums) > len(fields) {
			return nil, nil
		}
		fields = fields[len(fields)-len(nums):] // '1:2' HOUR_SECOND is minutes:seconds
		for i, f := range fields {
			n := nums[i]
			if f == "MICROSECOND" && len(nums) > 1 {
				n = n * int64(math.Pow10(6-min(6, len(strconv.FormatInt(n, 10))))) // .5 is 500000
			}
			iu := intervalUnits[f]
			months += n * int64(iu.months)
			if f == "DAY" {
				days += n
			} else {
				dur += time.Duration(n) * iu.dur
			}
		}
		if neg {
			months, days, dur = -months, -days, -dur
		}
	} else {
		iu := intervalUnits[u]
		var n int64
		switch {
		case iu.months == 0 && u == "SECOND" && c.argKind(1) != sqltypes.KindInt:
			f := ToFloat(a[1])
			dur = time.Duration(math.Round(f*1e6)) * time.Microsecond
		default:
			n = ToInt(a[1], c.argKind(1))
			if c.argKind(1) == sqltypes.KindString || c.argKind(1) == KindNull {
				n = stringToInt(ToString(a[1]))
			}
			months = n * int64(iu.months)
			if iu.dur >= 24*time.Hour {
				if n > 3660000 || n < -3660000 {
					return nil, nil
				}
				days = n * int64(iu.dur/(24*time.Hour))
				break
			}
			if iu.dur != 0 && (n > math.MaxInt64/int64(iu.dur) || n < math.MinInt64/int64(iu.dur)) {
				return nil, nil // beyond 292 years of this unit: past year 9999 anyway
			}
			dur = time.Duration(n) * iu.dur
		}
	}
	months, days, dur = months*sign, days*sign, dur*time.Duration(sign)
	if months != 0 {
		total := int64(t.Year())*12 + int64(t.Month()-1) + months
		if total < 0 || total > 9999*12+11 {
			return nil, nil
		}
		y, m := int(total/12), time.Month(total%12+1)
		last := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
		t = time.Date(y, m, min(t.Day(), last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	}
	if dur != 0 {
		// Whole days apart, so that intervals beyond time.Duration's 292
		// years still add (DAY and WEEK are counted as days from the start).
		days += int64(dur / (24 * time.Hour))
		dur -= dur / (24 * time.Hour) * 24 * time.Hour
	}
	if days > 3660000 || days < -3660000 {
		return nil, nil
	}
	t = t.AddDate(0, 0, int(days)).Add(dur)
	if t.Year() < 1 || t.Year() > 9999 {
		return nil, nil
	}
	if dateArithResult(c.Args) == sqltypes.KindString {
		if isDateOnly(a[0]) && dayUnit(u) {
			return t.Format("2006-01-02"), nil
		}
		if a0 := c.Args[0]; !a0.Folded && !dateArithFuncs[a0.Func] {
			// A string of no known precision (a column, a string
			// function): MariaDB prints the microseconds.
			return t.Format("2006-01-02 15:04:05.000000"), nil
		}
		return FormatDatetime(t), nil
	}
	return t, nil
}

// dateArithFuncs are the functions whose string results carry their
// precision (a nested DATE_ADD prints no microseconds).
var dateArithFuncs = map[string]bool{"DATE_ADD": true, "DATE_SUB": true}

func isDateOnly(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.TrimSpace(s)
	if m := lenientTime.FindStringSubmatch(s); m != nil {
		return m[4] == "" // the date read has no time part ('2023-12-31X23:59' too)
	}
	return !strings.ContainsAny(s, ": T") && (len(s) <= 10)
}

// splitNumbers reads the integers of an interval text such as '1 2:30'.
func splitNumbers(s string) []int64 {
	var out []int64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.ParseInt(f, 10, 64)
		out = append(out, n)
	}
	return out
}

func evalExtract(c *Call, a []any) (any, error) {
	u, err := unitOf(a[0])
	if err != nil {
		return nil, err
	}
	if a[1] == nil {
		return nil, nil
	}
	t, ok := ToTime(a[1])
	var clock time.Duration
	if ok && !isTimeOnly(a[1]) {
		clock = t.Sub(dateOf(t))
	} else if d, ok2 := parseDuration(ToString(a[1])); ok2 {
		clock, ok = d.Abs(), true
		t = time.Time{}
		if !strings.Contains(u, "HOUR") && !strings.Contains(u, "MINUTE") && !strings.Contains(u, "SECOND") {
			return nil, nil
		}
	}
	if !ok {
		return nil, nil
	}
	h, mi := int64(clock/time.Hour), int64(clock/time.Minute)%60
	s, us := int64(clock/time.Second)%60, int64(clock/time.Microsecond)%1000000
	y, mo, d := int64(t.Year()), int64(t.Month()), int64(t.Day())
	switch u {
	case "YEAR":
		return y, nil
	case "QUARTER":
		return (mo-1)/3 + 1, nil
	case "MONTH":
		return mo, nil
	case "WEEK":
		w, _ := week(t, 0)
		return int64(w), nil
	case "DAY":
		return d, nil
	case "HOUR":
		return h, nil
	case "MINUTE":
		return mi, nil
	case "SECOND":
		return s, nil
	case "MICROSECOND":
		return us, nil
	case "YEAR_MONTH":
		return y*100 + mo, nil
	case "DAY_HOUR":
		return d*100 + h, nil
	case "DAY_MINUTE":
		return (d*100+h)*100 + mi, nil
	case "DAY_SECOND":
		return ((d*100+h)*100+mi)*100 + s, nil
	case "DAY_MICROSECOND":
		return (((d*100+h)*100+mi)*100+s)*1000000 + us, nil
	case "HOUR_MINUTE":
		return h*100 + mi, nil
	case "HOUR_SECOND":
		return (h*100+mi)*100 + s, nil
	case "HOUR_MICROSECOND":
		return ((h*100+mi)*100+s)*1000000 + us, nil
	case "MINUTE_SECOND":
		return mi*100 + s, nil
	case "MINUTE_MICROSECOND":
		return (mi*100+s)*1000000 + us, nil
	case "SECOND_MICROSECOND":
		return s*1000000 + us, nil
	}
	return nil, fmt.Errorf("%w: EXTRACT unit %s", ErrInvalidArgument, u)
}

// evalTimestampDiff is TIMESTAMPDIFF(unit, a, b): b - a in whole units
// (months counted as MySQL does: a month is complete when the day and time
// of b reach those of a).
func evalTimestampDiff(_ *Call, a []any) (any, error) {
	u, err := unitOf(a[0])
	if err != nil {
		return nil, err
	}
	if a[1] == nil || a[2] == nil {
		return nil, nil
	}
	x, ok1 := ToTime(a[1])
	y, ok2 := ToTime(a[2])
	if !ok1 || !ok2 {
		return nil, nil
	}
	iu, ok := intervalUnits[u]
	if !ok {
		return nil, fmt.Errorf("%w: TIMESTAMPDIFF unit %s", ErrInvalidArgument, u)
	}
	if iu.months == 0 {
		d := y.Sub(x)
		return int64(d / iu.dur), nil
	}
	neg := y.Before(x)
	if neg {
		x, y = y, x
	}
	months := int64(y.Year()-x.Year())*12 + int64(y.Month()-x.Month())
	// An incomplete last month does not count.
	if y.Day() < x.Day() || (y.Day() == x.Day() && y.Sub(dateOf(y)) < x.Sub(dateOf(x))) {
		months--
	}
	n := months / int64(iu.months)
	if neg {
		n = -n
	}
	return n, nil
}

// week is MySQL's WEEK(t, mode): bit 1 Monday first, bit 2 weeks 1..53
// (else 0..53), bit 4 toggles whether week 1 is the first with 4+ days
// or the first containing the first weekday (MySQL's week_mode).
func week(t time.Time, mode int) (int, int) {
	mondayFirst := mode&1 != 0
	firstWeekday := (mode&4 != 0) != !mondayFirst
	return calcWeek(t, mondayFirst, mode&2 != 0, firstWeekday)
}

// calcWeek follows MySQL's calc_week.
func calcWeek(t time.Time, mondayFirst, weekYear, firstWeekday bool) (int, int) {
	year := t.Year()
	daynr := toDays(t)
	firstDaynr := toDays(time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC))
	weekdayOf := func(d int64) int { // 0 = Monday .. 6 = Sunday when mondayFirst, else 0 = Sunday
		w := int((d + 5) % 7) // MySQL calc_weekday(daynr, 0): 0 = Monday
		if !mondayFirst {
			w = (w + 1) % 7
		}
		return w
	}
	weekday := weekdayOf(firstDaynr)
	if t.Month() == 1 && t.Day() <= 7-weekday {
		if !weekYear && ((firstWeekday && weekday != 0) || (!firstWeekday && weekday >= 4)) {
			return 0, year
		}
		weekYear = true
		year--
		days := int64(365)
		if isLeap(year) {
			days = 366
		}
		firstDaynr -= days
		weekday = (weekday + 53*7 - int(days)) % 7
	}
	var days int64
	if (firstWeekday && weekday != 0) || (!firstWeekday && weekday >= 4) {
		days = daynr - (firstDaynr + int64(7-weekday))
	} else {
		days = daynr - (firstDaynr - int64(weekday))
	}
	if weekYear && days >= 52*7 {
		weekday = (weekday + func() int {
			if isLeap(year) {
				return 366
			}
			return 365
		}()) % 7
		if (!firstWeekday && weekday < 4) || (firstWeekday && weekday == 0) {
			return 1, year + 1
		}
	}
	return int(days/7 + 1), year
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var dayAbbr = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// dateFormat is DATE_FORMAT's formatter (MySQL's specifiers).
func dateFormat(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		h12 := t.Hour() % 12
		if h12 == 0 {
			h12 = 12
		}
		switch f[i] {
		case 'a':
			b.WriteString(dayAbbr[t.Weekday()])
		case 'b':
			b.WriteString(t.Month().String()[:3])
		case 'c':
			b.WriteString(strconv.Itoa(int(t.Month())))
		case 'D':
			b.WriteString(strconv.Itoa(t.Day()) + ordinal(t.Day()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			b.WriteString(strconv.Itoa(t.Day()))
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'h', 'I':
			fmt.Fprintf(&b, "%02d", h12)
		case 'i':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'k':
			b.WriteString(strconv.Itoa(t.Hour()))
		case 'l':
			b.WriteString(strconv.Itoa(h12))
		case 'M':
			b.WriteString(t.Month().String())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'r':
			ampm := "AM"
			if t.Hour() >= 12 {
				ampm = "PM"
			}
			fmt.Fprintf(&b, "%02d:%02d:%02d %s", h12, t.Minute(), t.Second(), ampm)
		case 'S', 's':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'T':
			fmt.Fprintf(&b, "%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		case 'U':
			w, _ := calcWeek(t, false, false, true)
			fmt.Fprintf(&b, "%02d", w)
		case 'u':
			w, _ := calcWeek(t, true, false, false)
			fmt.Fprintf(&b, "%02d", w)
		case 'V':
			w, _ := calcWeek(t, false, true, true)
			fmt.Fprintf(&b, "%02d", w)
		case 'v':
			w, _ := calcWeek(t, true, true, false)
			fmt.Fprintf(&b, "%02d", w)
		case 'X':
			_, y := calcWeek(t, false, true, true)
			fmt.Fprintf(&b, "%04d", y)
		case 'x':
			_, y := calcWeek(t, true, true, false)
			fmt.Fprintf(&b, "%04d", y)
		case 'W':
			b.WriteString(t.Weekday().String())
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		default:
			b.WriteByte(f[i]) // %% and unknown specifiers: the character
		}
	}
	return b.String()
}

func ordinal(d int) string {
	if d/10%10 == 1 {
		return "th"
	}
	switch d % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// strToDateResult: DATETIME when the (constant) format has time fields,
// DATE when it has only date fields, TIME when only time fields.
func strToDateResult(a []Arg) Kind {
	f, ok := a[1].Value.(string)
	if !ok {
		return sqltypes.KindDatetime
	}
	hasDate, hasTime := formatFields(f)
	switch {
	case hasDate && !hasTime:
		return sqltypes.KindDate
	case hasTime && !hasDate:
		return sqltypes.KindTime
	}
	return sqltypes.KindDatetime
}

func formatFields(f string) (hasDate, hasTime bool) {
	for i := 0; i+1 < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		switch f[i] {
		case 'Y', 'y', 'm', 'c', 'd', 'e', 'M', 'b', 'j', 'D', 'a', 'W', 'U', 'u', 'V', 'v', 'X', 'x', 'w':
			hasDate = true
		case 'H', 'k', 'h', 'I', 'l', 'i', 's', 'S', 'f', 'p', 'T', 'r':
			hasTime = true
		}
	}
	return
}

// evalStrToDate is STR_TO_DATE(s, format): NULL when s does not match.
func evalStrToDate(c *Call, a []any) (any, error) {
	if anyNull(a) {
		return nil, nil
	}
	s, f := ToString(a[0]), ToString(a[1])
	y, mo, d, h, mi, sec, us := 0, 0, 0, 0, 0, 0, 0
	pm, hasPM, h12 := false, false, false
	i := 0
	num := func(maxDigits int) (int, bool) {
		j := i
		for j < len(s) && j-i < maxDigits && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		n, _ := strconv.Atoi(s[i:j])
		i = j
		return n, true
	}
	name := func(names []string, n int) (int, bool) {
		for k, nm := range names {
			w := nm
			if n > 0 {
				w = nm[:n]
			}
			if len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
				i += len(w)
				return k, true
			}
		}
		return 0, false
	}
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	days := []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	for k := 0; k < len(f); k++ {
		if f[k] != '%' || k+1 == len(f) {
			for i < len(s) && f[k] == ' ' && s[i] == ' ' {
				i++
				if k+1 < len(f) && f[k+1] == ' ' {
					break
				}
			}
			if f[k] == ' ' {
				continue
			}
			if i >= len(s) || s[i] != f[k] {
				return nil, nil
			}
			i++
			continue
		}
		k++
		ok := true
		switch f[k] {
		case 'Y':
			y, ok = num(4)
		case 'y':
			y, ok = num(2)
			if y < 70 {
				y += 2000
			} else {
				y += 1900
			}
		case 'm', 'c':
			mo, ok = num(2)
		case 'd', 'e':
			d, ok = num(2)
		case 'H', 'k':
			h, ok = num(2)
		case 'h', 'I', 'l':
			h, ok = num(2)
			h12 = true
		case 'i':
			mi, ok = num(2)
		case 's', 'S':
			sec, ok = num(2)
		case 'f':
			j := i
			us, ok = num(6)
			for n := i - j; n < 6 && ok; n++ {
				us *= 10
			}
		case 'p':
			if len(s)-i >= 2 && strings.EqualFold(s[i:i+2], "PM") {
				pm, hasPM = true, true
				i += 2
			} else if len(s)-i >= 2 && strings.EqualFold(s[i:i+2], "AM") {
				hasPM = true
				i += 2
			} else {
				ok = false
			}
		case 'M':
			var m int
			m, ok = name(months, 0)
			mo = m + 1
		case 'b':
			var m int
			m, ok = name(months, 3)
			mo = m + 1
		case 'W':
			_, ok = name(days, 0)
		case 'a':
			_, ok = name(days, 3)
		case 'T':
			h, ok = num(2)
			if ok && i < len(s) && s[i] == ':' {
				i++
				mi, ok = num(2)
				if ok && i < len(s) && s[i] == ':' {
					i++
					sec, ok = num(2)
				}
			}
		case '%':
			ok = i < len(s) && s[i] == '%'
			i++
		default:
			return nil, nil
		}
		if !ok {
			return nil, nil
		}
	}
	if h12 {
		if h < 1 || h > 12 {
			return nil, nil
		}
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
	} else if hasPM && pm && h < 12 {
		h += 12
	}
	kind := strToDateResult(c.Args)
	if kind == sqltypes.KindTime {
		return formatDuration(time.Duration(h)*time.Hour+time.Duration(mi)*time.Minute+time.Duration(sec)*time.Second+time.Duration(us)*time.Microsecond, -1), nil
	}
	t, ok := mkTime(y, mo, d, h, mi, sec, us*1000)
	if !ok {
		return nil, nil
	}
	return t, nil
}
