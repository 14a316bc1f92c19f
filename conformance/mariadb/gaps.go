package mariadb

import (
	"regexp"
	"strings"
)

// mathText is the text of a float a math function computed.
var mathText = regexp.MustCompile(`CAST\((LOG10|LOG2|LOG|LN|EXP|POW|POWER|SQRT|PI)\(.* AS CHAR\)`)

// bigRound rounds a BIGINT column to tens or more: beyond BIGINT for
// the extreme rows.
var bigRound = regexp.MustCompile(`(ROUND|TRUNCATE)\((i|u|CAST\([^)]*\)), -`)

// builtDateArith is date arithmetic over a string a function built.
var builtDateArith = regexp.MustCompile(`(DATE_ADD|DATE_SUB|ADDDATE|SUBDATE)\((CONCAT|CONCAT_WS|REPLACE|REPEAT|REVERSE|SUBSTRING_INDEX|LPAD|RPAD|TRIM|LTRIM|RTRIM)\(`)

// malformedDateCast is a CAST to DATE/DATETIME of a built string.
var malformedDateCast = regexp.MustCompile(`CAST\([A-Z_]+\(.* AS DATE(TIME)?\)`)

// extractOfCast is EXTRACT from a CAST to DATE/DATETIME.
var extractOfCast = regexp.MustCompile(`EXTRACT\([A-Z_]+ FROM CAST\(`)

// movingFloatFrame is a window aggregate of the DOUBLE column over a frame
// whose start moves (rows leave it).
var movingFloatFrame = regexp.MustCompile(`(AVG|SUM|STD|VAR_SAMP)\(f\) OVER \(.*?ROWS BETWEEN \d+ PRECEDING`)

// movingBitFrame is a window BIT_AND/OR/XOR over a frame whose start moves.
var movingBitFrame = regexp.MustCompile(`BIT_(AND|OR|XOR)\([^)]*\) OVER \(.*?ROWS BETWEEN \d+ PRECEDING`)

// padOfConstant is LPAD/RPAD of a string literal or of an expression that
// may return one (CASE, IF, IFNULL, COALESCE, NULLIF, a function of a
// literal such as LEFT('007', 10)).
var padOfConstant = regexp.MustCompile(`[LR]PAD\((CASE |IF\(|IFNULL\(|COALESCE\(|NULLIF\(|([A-Z_]+\()*')`)

// negativeZeroMod is MOD of the DOUBLE column (-0 for a negative multiple)
// where its sign shows: as text or counted apart from 0.
var negativeZeroMod = regexp.MustCompile(`(COUNT\(DISTINCT|CONCAT|GROUP_CONCAT).*MOD\(f,|MOD\(f,.*AS CHAR`)

// knownGaps are the queries the differential test does not compare, each
// with why: differences lancecat knows about and has not closed yet, or
// MariaDB behaviour that is not MySQL's. An entry here is a bug to fix (or
// a documented difference), not a silenced test.
var knownGaps = []struct {
	why   string
	match func(sql string) bool
}{
	{
		why:   "MariaDB 10.11: BIT_AND/BIT_OR over a moving window frame answers wrongly (frame 5, 1, 1, 1 gives BIT_AND 0; a frame of 18 and NULLs gives 18446744073709551615; checked with LAG/LEAD, seed 3); lancecat aggregates each frame's rows",
		match: movingBitFrame.MatchString,
	},
	{
		why:   "MariaDB: a moving window frame's AVG/SUM/STD of DOUBLEs is kept by adding the entering row and subtracting the leaving one, so a 1e10 that left the frame leaves its rounding error in the small values' sum (0.25000595 for 0.25000625); lancecat aggregates each frame's rows",
		match: movingFloatFrame.MatchString,
	},
	{
		why: "MariaDB 10.11: a comparison with CAST(<non-date string> AS DATE/DATETIME) compares the zero date instead of NULL (ts >= CAST('abc' AS DATE) is 1; MySQL 8 and lancecat give NULL; GREATEST/LEAST alike)",
		match: func(q string) bool {
			return (strings.Contains(q, " AS DATE)") || strings.Contains(q, " AS DATETIME)")) &&
				(strings.ContainsAny(q, "<>=") || strings.Contains(q, "GREATEST(") || strings.Contains(q, "LEAST("))
		},
	},
	{
		why: "MariaDB 10.11: GREATEST/LEAST of strings under a numeric CAST compares the strings as numbers (CAST(GREATEST('t', '.5') AS DOUBLE) is 0.5); MySQL 8 and lancecat compare them as strings",
		match: func(q string) bool {
			return strings.Contains(q, "CAST(GREATEST(") || strings.Contains(q, "CAST(LEAST(")
		},
	},
	{
		why:   "MariaDB reads malformed date strings its own way (zero dates such as '2010-00-00', '7-007-10', a trailing '-5' read as a time); time.Time has no zero dates, and lancecat reads the longest valid date prefix",
		match: malformedDateCast.MatchString,
	},
	{
		why:   "MariaDB reads malformed date strings its own way (as above): EXTRACT of CAST('12abc' AS DATETIME) is 0 though the CAST alone is NULL (seed 22)",
		match: extractOfCast.MatchString,
	},
	{
		why:   "MariaDB reads malformed date strings its own way (as above), in DATE_ADD over a built string too",
		match: builtDateArith.MatchString,
	},
	{
		why:   "the math libraries differ in the last bit (Go's math.Log10 is not correctly rounded): the text of such a float can differ in its 17th digit, which a string function then sees",
		match: mathText.MatchString,
	},
	{
		why:   "ROUND/TRUNCATE of an extreme BIGINT to tens is beyond BIGINT: MariaDB answers a DECIMAL, lancecat its text, which arithmetic (planner/arith.go) and CAST then read as a DOUBLE",
		match: bigRound.MatchString,
	},
	{
		why: "lancecat: datetimes carry no fractional-second precision (fsp), so UNIX_TIMESTAMP of FROM_UNIXTIME(<a DOUBLE>) is an integer where MariaDB's DATETIME(6) gives a DECIMAL with six digits (1000000000.000000)",
		match: func(q string) bool {
			return strings.Contains(q, "UNIX_TIMESTAMP(FROM_UNIXTIME(")
		},
	},
	{
		why:   "MariaDB 10.11: LPAD/RPAD of a constant string (a literal or a function of one, or a CASE / IF / IFNULL / COALESCE with a constant branch) to a per-row length truncates the constant in place, so later rows see an earlier row's cut ('o', 'o-', 'o--' for RPAD(CASE ... ELSE 'other' END, id, '-'); '***a' for LPAD('aaa', 4, '*') after a row of length 1); MySQL 8 and lancecat pad the whole string",
		match: padOfConstant.MatchString,
	},
	{
		why:   "MOD of a negative multiple of a DOUBLE is -0: MariaDB prints it '-0' as text and COUNT(DISTINCT) counts it apart from 0; lancecat prints '0' and, as comparisons do, takes -0 = 0 (seed 14)",
		match: negativeZeroMod.MatchString,
	},
	{
		why: "MariaDB 10.11: a recursive CTE's column takes the anchor's display width as its type (CAST(-1 AS SIGNED) makes v an INT(2)), so a BIGINT from the recursive part is clamped to INT (-2147483648) or fails with 1264; MySQL 8 and lancecat keep the anchor's BIGINT",
		match: func(q string) bool {
			return strings.HasPrefix(q, "WITH RECURSIVE r (n, v) AS (SELECT 1, CAST(") &&
				(strings.Contains(q, "18446744073709551615") || strings.Contains(q, "9223372036854775808"))
		},
	},
}

// knownGap returns why a query is skipped ("" to run it).
func knownGap(sql string) string {
	for _, g := range knownGaps {
		if g.match(sql) {
			return g.why
		}
	}
	return ""
}

// knownLancecatErrorGap returns why an error of lancecat's that MariaDB
// does not raise is a known gap ("" if it is not one).
func knownLancecatErrorGap(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "BIGINT value is out of range in ") && !strings.Contains(msg, "BIGINT value is out of range in '") ||
		strings.Contains(msg, "value is out of range in '(") {
		// planner/arith.go overflows (an operator's "in '(a op b)'") where
		// MariaDB never evaluates the operand: its optimizer drops a
		// conjunct under NULL AND / a disjunct under OR TRUE, and the data
		// planner evaluates WHERE conjuncts (and the operands of a call) in
		// its own order.
		return "arithmetic overflow in an operand MariaDB does not evaluate"
	}
	return ""
}

// knownErrorGap returns why an error of MariaDB's that lancecat does not
// raise is a known gap ("" if it is not one). None is known: lancecat's
// integer operators raise MySQL's BIGINT / BIGINT UNSIGNED 1690 as MariaDB
// does (planner/arith.go), and its functions their own overflows.
func knownErrorGap(err error) string {
	_ = err
	return ""
}
