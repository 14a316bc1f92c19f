package mariadb

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The query generator: typed expressions over the columns of the table t
// (and literals), built from the function library, in the shapes lancecat
// supports (projection, WHERE, ORDER BY, GROUP BY, no FROM). Every query
// is plain SQL text that both engines run unchanged.

// typ is the type of a generated expression.
type typ int

const (
	tInt typ = iota
	tUint
	tFloat
	tDec
	tStr
	tDate
	tDatetime
	tBool
	nTypes
)

// TableDDL creates the table both engines answer over.
const TableDDL = `CREATE TABLE t (id BIGINT NOT NULL, i BIGINT, u BIGINT UNSIGNED, f DOUBLE, d DECIMAL(12,3), s VARCHAR(40), dt DATE, ts DATETIME, PRIMARY KEY (id))`

var columns = map[typ][]string{
	tInt: {"id", "i"}, tUint: {"u"}, tFloat: {"f"}, tDec: {"d"}, tStr: {"s"}, tDate: {"dt"}, tDatetime: {"ts"},
}

// Gen generates queries from one seed.
type Gen struct {
	r *rand.Rand
}

// NewGen returns a generator; the same seed gives the same queries.
func NewGen(seed uint64) *Gen { return &Gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g *Gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *Gen) chance(p float64) bool    { return g.r.Float64() < p }

var sampleStrings = []string{"", "a", "abc", "Hello World", "  padded  ", "x,y,z", "12abc", "-3.5", "007", "MiXeD", "a.b.c.d", "héllo", "tab\tx", "2024-02-29", "2023-12-31 23:59:59", "aaa", "b%_c"}

// Rows returns the INSERT statements of n generated rows.
func (g *Gen) Rows(n int) []string {
	var out []string
	for id := 1; id <= n; id++ {
		null := func(s string) string {
			if g.chance(0.12) {
				return "NULL"
			}
			return s
		}
		i := null(g.pick(fmt.Sprint(g.r.IntN(200)-100), fmt.Sprint(g.r.Int64N(1e12)-5e11), "0", "1", "-1", "9223372036854775807", "-9223372036854775807", fmt.Sprint(g.r.IntN(10))))
		u := null(g.pick(fmt.Sprint(g.r.IntN(1000)), "0", "18446744073709551615", "9223372036854775808", fmt.Sprint(g.r.Uint64()>>1)))
		f := null(g.pick(fmt.Sprintf("%.3f", g.r.Float64()*200-100), fmt.Sprint(g.r.IntN(50)-25), "0.5", "-2.5", "1e10", "1.25e-5", "3.14159"))
		d := null(g.pick(fmt.Sprintf("%.3f", g.r.Float64()*20000-10000), fmt.Sprintf("%d.%03d", g.r.IntN(100), g.r.IntN(1000)), "0.000", "-0.500", "2.500", "123456789.999"))
		s := null("'" + strings.ReplaceAll(g.pick(sampleStrings...), "'", "''") + "'")
		dt := null(fmt.Sprintf("'%04d-%02d-%02d'", 1990+g.r.IntN(45), 1+g.r.IntN(12), 1+g.r.IntN(28)))
		if g.chance(0.15) {
			dt = g.pick("'2024-01-31'", "'2024-02-29'", "'2023-12-31'", "'2000-03-31'", "'1999-01-01'")
		}
		ts := null(fmt.Sprintf("'%04d-%02d-%02d %02d:%02d:%02d'", 1990+g.r.IntN(45), 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60)))
		out = append(out, fmt.Sprintf("INSERT INTO t VALUES (%d, %s, %s, %s, %s, %s, %s, %s)", id, i, u, f, d, s, dt, ts))
	}
	return out
}

// literal is a constant of the type.
func (g *Gen) literal(t typ) string {
	switch t {
	case tInt:
		return g.pick("0", "1", "2", "3", "-1", "7", "10", "100", "-42", fmt.Sprint(g.r.IntN(1000)))
	case tUint:
		return g.pick("18446744073709551615", "9223372036854775808")
	case tFloat:
		return g.pick("0.5e0", "2.5e0", "-1.5e0", "1e3", "3.25e0", "1e-3")
	case tDec:
		return g.pick("1.5", "2.50", "-0.25", "10.005", "0.1", "99.999", "-3.5")
	case tStr:
		return "'" + strings.ReplaceAll(g.pick(sampleStrings...), "'", "''") + "'"
	case tDate:
		return g.pick("'2024-01-31'", "'2024-02-29'", "'2000-01-01'", "DATE '2023-06-15'", "'1999-12-31'")
	case tDatetime:
		return g.pick("'2024-01-31 10:20:30'", "TIMESTAMP '2024-02-29 23:59:59'", "'2000-01-01 00:00:00'")
	case tBool:
		return g.pick("TRUE", "FALSE")
	}
	return "NULL"
}

func (g *Gen) leaf(t typ) string {
	if cols := columns[t]; len(cols) > 0 && g.chance(0.7) {
		return cols[g.r.IntN(len(cols))]
	}
	if g.chance(0.04) {
		return "NULL"
	}
	return g.literal(t)
}

// smallInt is an integer argument in a useful range (positions, counts).
func (g *Gen) smallInt() string {
	return g.pick("0", "1", "2", "3", "-1", "-2", "5", "10", "id % 5", "id")
}

// Expr generates an expression of type t, depth bounding the nesting.
func (g *Gen) Expr(t typ, depth int) string {
	if depth <= 0 || g.chance(0.25) {
		return g.leaf(t)
	}
	d := depth - 1
	e := func(t typ) string { return g.Expr(t, d) }
	num := func() string { return e(typ(g.r.IntN(4))) }
	switch t {
	case tInt:
		return g.pick(
			"LENGTH("+e(tStr)+")", "CHAR_LENGTH("+e(tStr)+")", "LOCATE("+g.leaf(tStr)+", "+e(tStr)+")",
			"INSTR("+e(tStr)+", "+g.leaf(tStr)+")", "LOCATE("+g.leaf(tStr)+", "+e(tStr)+", "+g.smallInt()+")",
			"SIGN("+num()+")", "ABS("+e(tInt)+")", "ROUND("+e(tInt)+", "+g.pick("-1", "-2", "0", "1")+")",
			"FLOOR("+e(tInt)+")", "CEIL("+e(tInt)+")", "MOD("+e(tInt)+", "+g.pick("3", "7", "-4", "0", "i")+")",
			"YEAR("+e(tDate)+")", "MONTH("+e(tDatetime)+")", "DAY("+e(tDate)+")", "HOUR("+e(tDatetime)+")",
			"MINUTE("+e(tDatetime)+")", "SECOND("+e(tDatetime)+")", "DAYOFWEEK("+e(tDate)+")", "WEEKDAY("+e(tDate)+")",
			"DAYOFYEAR("+e(tDate)+")", "QUARTER("+e(tDate)+")", "WEEK("+e(tDate)+")", "WEEK("+e(tDate)+", "+g.pick("0", "1", "2", "3", "4", "5", "6", "7")+")",
			"EXTRACT("+g.pick("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "YEAR_MONTH", "DAY_HOUR", "HOUR_MINUTE", "DAY_SECOND", "QUARTER", "WEEK")+" FROM "+e(tDatetime)+")",
			"DATEDIFF("+e(tDate)+", "+e(tDatetime)+")",
			"TIMESTAMPDIFF("+g.pick("SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR")+", "+e(tDatetime)+", "+e(tDate)+")",
			"UNIX_TIMESTAMP("+e(tDatetime)+")", "TO_DAYS("+e(tDate)+")",
			"CAST("+g.Expr(typ(g.r.IntN(5)), d)+" AS SIGNED)", "CAST("+e(tStr)+" AS SIGNED)",
			"GREATEST("+e(tInt)+", "+e(tInt)+")", "LEAST("+e(tInt)+", "+e(tInt)+", "+e(tInt)+")",
			"IF("+e(tBool)+", "+e(tInt)+", "+e(tInt)+")", "IFNULL("+e(tInt)+", "+e(tInt)+")", "COALESCE("+e(tInt)+", "+e(tInt)+", 0)",
			"NULLIF("+e(tInt)+", "+e(tInt)+")", "CASE WHEN "+e(tBool)+" THEN "+e(tInt)+" ELSE "+e(tInt)+" END",
			"CASE "+e(tInt)+" WHEN 1 THEN 10 WHEN 0 THEN 20 ELSE 30 END", "STRCMP("+e(tStr)+", "+e(tStr)+")",
			"ASCII("+e(tStr)+")", "REGEXP_INSTR("+e(tStr)+", '"+g.pick("[0-9]+", "l+", "^a", "c$")+"')",
			e(tInt)+" + "+e(tInt), e(tInt)+" - "+g.leaf(tInt), e(tInt)+" * "+g.pick("2", "3", "-1"), e(tInt)+" DIV "+g.pick("2", "3", "0"), e(tInt)+" % "+g.pick("3", "5"),
		)
	case tUint:
		return g.pick("CAST("+e(tInt)+" AS UNSIGNED)", "ABS("+e(tUint)+")", "CAST("+e(tStr)+" AS UNSIGNED)", "GREATEST("+e(tUint)+", "+e(tUint)+")")
	case tFloat:
		return g.pick(
			"ROUND("+e(tFloat)+", "+g.pick("0", "1", "2", "-1")+")", "TRUNCATE("+e(tFloat)+", "+g.pick("0", "1", "2", "-1")+")",
			"FLOOR("+e(tFloat)+")", "CEILING("+e(tFloat)+")", "ABS("+e(tFloat)+")", "MOD("+e(tFloat)+", "+g.pick("2.5e0", "3", "-1.5e0")+")",
			"POW("+e(tFloat)+", 2)", "POWER("+g.pick("2", "10", "0.5e0")+", "+g.pick("0", "1", "3", "-2", "10")+")", "SQRT("+num()+")", "EXP("+g.pick("0", "1", "-1", "2.5e0")+")",
			"LN("+num()+")", "LOG("+num()+")", "LOG10("+num()+")", "LOG2("+num()+")", "LOG("+g.pick("2", "10")+", "+num()+")",
			"CAST("+e(tStr)+" AS DOUBLE)", "GREATEST("+e(tFloat)+", "+e(tInt)+")", "LEAST("+e(tFloat)+", "+e(tFloat)+")",
			"IFNULL("+e(tFloat)+", "+e(tFloat)+")", "PI()", e(tFloat)+" * 2", e(tFloat)+" + "+e(tFloat),
		)
	case tDec:
		return g.pick(
			"ROUND("+e(tDec)+")", "ROUND("+e(tDec)+", "+g.pick("0", "1", "2", "-1", "5")+")", "TRUNCATE("+e(tDec)+", "+g.pick("0", "1", "2", "-1")+")",
			// (no MOD over DECIMAL: TiDB parses MOD(a, b) as the % operator,
			// and lancecat's arithmetic computes DECIMAL operands in float64)
			"FLOOR("+e(tDec)+")", "CEIL("+e(tDec)+")", "ABS("+e(tDec)+")",
			"CAST("+g.Expr(typ(g.r.IntN(5)), d)+" AS DECIMAL(14,2))", "CAST("+e(tFloat)+" AS DECIMAL(10,1))", "CAST("+e(tStr)+" AS DECIMAL(8,3))",
			"GREATEST("+e(tDec)+", "+e(tInt)+")", "LEAST("+e(tDec)+", "+e(tDec)+")", "COALESCE("+e(tDec)+", "+e(tDec)+")",
		)
	case tStr:
		return g.pick(
			"LOWER("+e(tStr)+")", "UPPER("+e(tStr)+")", "CONCAT("+e(tStr)+", "+e(tStr)+")", "CONCAT("+e(tStr)+", "+e(tInt)+")",
			"CONCAT_WS("+g.pick("','", "'-'", "NULL", "''")+", "+e(tStr)+", "+e(tStr)+", "+e(tInt)+")",
			"SUBSTRING("+e(tStr)+", "+g.smallInt()+")", "SUBSTRING("+e(tStr)+", "+g.smallInt()+", "+g.smallInt()+")",
			"SUBSTRING("+e(tStr)+" FROM "+g.smallInt()+" FOR "+g.smallInt()+")", "SUBSTR("+e(tStr)+", "+g.smallInt()+")", "MID("+e(tStr)+", 2, 3)",
			"SUBSTRING_INDEX("+e(tStr)+", "+g.pick("','", "'.'", "'a'", "''")+", "+g.pick("1", "2", "-1", "-2", "0")+")",
			"TRIM("+e(tStr)+")", "LTRIM("+e(tStr)+")", "RTRIM("+e(tStr)+")", "TRIM(LEADING 'a' FROM "+e(tStr)+")",
			"TRIM(TRAILING "+g.pick("'c'", "' '", "'x'")+" FROM "+e(tStr)+")", "TRIM(BOTH 'a' FROM "+e(tStr)+")",
			"LPAD("+e(tStr)+", "+g.smallInt()+", "+g.pick("'*'", "'ab'", "''")+")", "RPAD("+e(tStr)+", "+g.pick("0", "3", "8", "id")+", '-')",
			"REPEAT("+e(tStr)+", "+g.pick("0", "1", "2", "3", "-1")+")", "REPLACE("+e(tStr)+", "+g.pick("'a'", "'l'", "' '", "''")+", "+g.pick("'X'", "''", "'ab'")+")",
			"REVERSE("+e(tStr)+")", "LEFT("+e(tStr)+", "+g.smallInt()+")", "RIGHT("+e(tStr)+", "+g.smallInt()+")", "SPACE("+g.pick("0", "2", "-1")+")",
			"IF("+e(tBool)+", "+e(tStr)+", "+e(tStr)+")", "IFNULL("+e(tStr)+", 'none')", "NULLIF("+e(tStr)+", "+e(tStr)+")",
			"CASE WHEN "+e(tBool)+" THEN "+e(tStr)+" WHEN "+e(tBool)+" THEN 'w2' END", "CASE "+e(tStr)+" WHEN 'abc' THEN 'is abc' WHEN '' THEN 'empty' ELSE 'other' END",
			"COALESCE("+e(tStr)+", "+e(tStr)+", 'dflt')", "GREATEST("+e(tStr)+", "+e(tStr)+")", "LEAST("+e(tStr)+", "+e(tStr)+")",
			"CAST("+g.Expr(typ(g.r.IntN(4)), d)+" AS CHAR)", "CAST("+e(tStr)+" AS CHAR(3))", "CONVERT("+e(tInt)+", CHAR)",
			"DATE_FORMAT("+e(tDatetime)+", '"+g.pick("%Y-%m-%d", "%W %M %e %Y", "%H:%i:%s", "%a %b %D %y", "%j %U %u %V %v %X %x", "%h %I %l %p %r %T %k", "%c/%d %w %%")+"')",
			"DAYNAME("+e(tDate)+")", "MONTHNAME("+e(tDate)+")", "FROM_UNIXTIME("+g.pick("0", "86400", "1700000000", "id * 100000")+", '%Y %H')",
			"REGEXP_REPLACE("+e(tStr)+", '"+g.pick("[aeiou]", "l+", "^.", "([a-z])([a-z])", "[0-9]")+"', '"+g.pick("", "#", "\\\\2\\\\1")+"')",
			"REGEXP_SUBSTR("+e(tStr)+", '"+g.pick("[a-z]+", "[0-9]+", "l.", "x")+"')",
			"DATE_ADD("+e(tStr)+", INTERVAL 1 DAY)",
		)
	case tDate:
		return g.pick(
			"DATE("+e(tDatetime)+")", "CAST("+e(tDatetime)+" AS DATE)", "CAST("+e(tStr)+" AS DATE)",
			"DATE_ADD("+e(tDate)+", INTERVAL "+g.smallInt()+" "+g.pick("DAY", "WEEK", "MONTH", "QUARTER", "YEAR")+")",
			"DATE_SUB("+e(tDate)+", INTERVAL "+g.smallInt()+" "+g.pick("DAY", "MONTH", "YEAR")+")",
			e(tDate)+" + INTERVAL "+g.smallInt()+" "+g.pick("DAY", "MONTH", "YEAR"), e(tDate)+" - INTERVAL 1 MONTH",
			"LAST_DAY("+e(tDate)+")", "STR_TO_DATE("+g.pick("'31/01/2024'", "'1/2/2023'", "'2024-13-01'", "'05.06.2021'")+", '"+g.pick("%d/%m/%Y", "%e/%c/%Y", "%d.%m.%Y")+"')",
			"ADDDATE("+e(tDate)+", "+g.smallInt()+")", "SUBDATE("+e(tDate)+", INTERVAL 2 DAY)",
			"GREATEST("+e(tDate)+", "+e(tDate)+")", "IFNULL("+e(tDate)+", DATE '2000-01-01')",
		)
	case tDatetime:
		return g.pick(
			"DATE_ADD("+e(tDatetime)+", INTERVAL "+g.smallInt()+" "+g.pick("SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR")+")",
			"DATE_SUB("+e(tDatetime)+", INTERVAL "+g.pick("'1:30'", "'2 3'", "'1-2'", "'10:5:3'")+" "+g.pick("HOUR_MINUTE", "DAY_HOUR", "YEAR_MONTH", "HOUR_SECOND")+")",
			e(tDatetime)+" + INTERVAL "+g.smallInt()+" HOUR", e(tDate)+" + INTERVAL 90 MINUTE", "CAST("+e(tDate)+" AS DATETIME)",
			"CAST("+e(tStr)+" AS DATETIME)", "FROM_UNIXTIME("+g.pick("0", "86400", "1700000000", "id * 100000", "1e9")+")",
			"STR_TO_DATE("+g.pick("'2024-01-31 10:11:12'", "'Jan 5 2020 3:04PM'", "'12/31/1999 23:59'")+", '"+g.pick("%Y-%m-%d %H:%i:%s", "%b %e %Y %l:%i%p", "%m/%d/%Y %H:%i")+"')",
			"TIMESTAMP '2020-02-02 02:02:02' + INTERVAL id DAY",
		)
	case tBool:
		cmp := g.pick("=", "<>", "<", "<=", ">", ">=", "<=>")
		// Not two DECIMAL expressions: lancecat's DECIMAL values are their
		// text, and the planner compares two texts as strings ('3' <>
		// '3.00'), a known gap of compare (planner/expr.go).
		x := typ(g.r.IntN(int(tBool)))
		for x == tDec {
			x = typ(g.r.IntN(int(tBool)))
		}
		return g.pick(
			e(x)+" "+cmp+" "+e(x), e(tInt)+" "+cmp+" "+e(tInt), e(tStr)+" "+cmp+" "+g.literal(tStr),
			e(x)+" IS NULL", e(x)+" IS NOT NULL", e(tInt)+" BETWEEN "+g.literal(tInt)+" AND "+g.literal(tInt),
			e(tStr)+" LIKE '"+g.pick("a%", "%c", "%l%", "_b%", "%")+"'", e(tStr)+" REGEXP '"+g.pick("^[a-z]+$", "[0-9]", "l{2}", "^$", "o W")+"'",
			e(tStr)+" NOT REGEXP 'a'", // (REGEXP_LIKE is MySQL 8's: MariaDB 10.11 has no such function)
			e(tInt)+" IN ("+g.literal(tInt)+", "+g.literal(tInt)+", "+g.leaf(tInt)+")",
			"NOT ("+e(tBool)+")", "("+e(tBool)+") AND ("+e(tBool)+")", "("+e(tBool)+") OR ("+e(tBool)+")",
			e(tDate)+" < "+g.literal(tDate), e(tDatetime)+" >= "+e(tDate),
		)
	}
	return "NULL"
}

// Query is one generated statement and how to compare its rows.
type Query struct {
	SQL string
	// Ordered: the statement orders its rows completely; else the rows
	// are compared as a multiset.
	Ordered bool
	// JSON: its text cells that are JSON arrays or objects compare as
	// JSON values, an array's elements as a multiset (JSON_ARRAYAGG's
	// order is unspecified, and MariaDB prints JSON without MySQL's
	// spaces).
	JSON bool
}

// Query generates one statement in one of the shapes.
func (g *Gen) Query() Query {
	t := typ(g.r.IntN(int(nTypes)))
	switch k := g.r.IntN(16); {
	case k >= 10 && k < 12:
		return g.aggregateQuery()
	case k < 14 && k >= 12:
		return g.windowQuery()
	case k == 14:
		return g.recursiveQuery()
	case k == 15:
		return g.joinCTEQuery()
	case k < 4: // projection
		return Query{SQL: fmt.Sprintf("SELECT id, %s FROM t ORDER BY id", g.Expr(t, 3)), Ordered: true}
	case k < 5: // ORDER BY columns (NULLs first ascending), LIMIT: a top-k
		// (lancecat orders by columns only: ORDER BY an expression or an
		// alias is not supported yet)
		col := g.pick("i", "u", "f", "d", "s", "dt", "ts")
		dir := g.pick("", " DESC", " ASC")
		return Query{SQL: fmt.Sprintf("SELECT id, %s, %s FROM t ORDER BY %s%s, id%s LIMIT %d", col, g.Expr(t, 2), col, dir, dir, 1+g.r.IntN(15)), Ordered: true}
	case k < 8: // WHERE
		return Query{SQL: fmt.Sprintf("SELECT id FROM t WHERE %s ORDER BY id", g.Expr(tBool, 3)), Ordered: true}
	case k < 9: // GROUP BY a column or an expression of few values
		key := g.pick("dt", "s", "i % 3", "YEAR(dt)", "LEFT(s, 1)", "MONTH(ts)", "u > 100", "SIGN(f)")
		agg := g.pick("COUNT(*)", "COUNT(i)", "SUM(i)", "MIN(s)", "MAX(dt)", "MIN(d)", "MAX(ts)", "SUM(LENGTH(s))", "MAX(UPPER(s))", "MIN(id)")
		return Query{SQL: fmt.Sprintf("SELECT %s, %s FROM t GROUP BY %s", key, agg, key)}
	default: // no FROM: literals only
		saved := columns
		columns = map[typ][]string{}
		q := Query{SQL: "SELECT " + g.Expr(t, 3), Ordered: true}
		columns = saved
		if strings.Contains(q.SQL, "id") {
			q.SQL = "SELECT 1"
		}
		return q
	}
}

// groupKey is a GROUP BY key of few values.
func (g *Gen) groupKey() string {
	return g.pick("dt", "s", "i % 3", "YEAR(dt)", "LEFT(s, 1)", "MONTH(ts)", "u > 100", "SIGN(f)", "id % 4")
}

// aggregate is one of the aggregates beyond COUNT/SUM/MIN/MAX in a form
// whose result is deterministic (GROUP_CONCAT ordered by the unique id or
// by its DISTINCT value); json reports a JSON aggregate (compared as a
// multiset, Query.JSON).
func (g *Gen) aggregate() (agg string, json bool) {
	col := g.pick("id", "i", "u", "f", "d", "s", "dt", "ts")
	sep := g.pick("", "", " SEPARATOR '|'", " SEPARATOR ''", " SEPARATOR ', '")
	dir := g.pick("", " DESC", " ASC")
	switch g.r.IntN(11) {
	case 0:
		return "GROUP_CONCAT(" + col + " ORDER BY id" + dir + sep + ")", false
	case 1:
		return "GROUP_CONCAT(" + col + ", '-', " + g.pick("id", "i", "s", "d") + " ORDER BY id" + dir + sep + ")", false
	case 2:
		return "GROUP_CONCAT(DISTINCT " + col + " ORDER BY " + col + dir + sep + ")", false
	case 3:
		return "GROUP_CONCAT(" + g.Expr(tStr, 1) + " ORDER BY id" + dir + sep + ")", false
	case 4:
		return "COUNT(DISTINCT " + col + ", " + g.pick("id", "i", "u", "f", "d", "s", "dt", "ts") + ")", false
	case 5:
		return "COUNT(DISTINCT " + g.Expr(typ(g.r.IntN(int(tBool))), 1) + ")", false
	case 6:
		return g.pick("BIT_AND", "BIT_OR", "BIT_XOR") + "(" + g.pick("id", "i", "u", "i % 16", "CAST(d AS SIGNED)", "LENGTH(s)") + ")", false
	case 7, 8:
		return g.pick("STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP") + "(" + g.pick("id", "f", "d", "i % 1000", "LENGTH(s)", "u % 100") + ")", false
	case 9:
		return "JSON_ARRAYAGG(" + g.pick("id", "i", "s", "d", "f", "u") + ")", true
	default:
		return "JSON_OBJECTAGG(id, " + g.pick("i", "s", "d", "f", "u") + ")", true
	}
}

// aggregateQuery is a grouped (or whole-table) query of those aggregates,
// perhaps filtered, perhaps with HAVING.
func (g *Gen) aggregateQuery() Query {
	a1, j1 := g.aggregate()
	a2, j2 := g.aggregate()
	where := ""
	if g.chance(0.3) {
		where = " WHERE " + g.Expr(tBool, 2)
	}
	if g.chance(0.25) {
		return Query{SQL: fmt.Sprintf("SELECT %s, %s FROM t%s", a1, a2, where), Ordered: true, JSON: j1 || j2}
	}
	key := g.groupKey()
	having := ""
	if g.chance(0.2) {
		having = " HAVING " + g.pick("COUNT(DISTINCT s, i) > 1", "BIT_OR(id) > 3", "VAR_POP(id) > 1", "GROUP_CONCAT(s ORDER BY id) LIKE '%a%'")
	}
	return Query{SQL: fmt.Sprintf("SELECT %s, %s, %s FROM t%s GROUP BY %s%s", key, a1, a2, where, key, having), JSON: j1 || j2}
}

// windowQuery is one window function per row, ordered by the unique id:
// a window's ORDER BY ends with id wherever ties would make the answer
// depend on the engine's order (ROW_NUMBER, LAG, NTILE, ROWS frames...).
func (g *Gen) windowQuery() Query {
	col := g.pick("id", "i", "u", "f", "d", "s", "dt", "ts")
	ocol := g.pick("i", "u", "f", "d", "s", "dt", "ts", "id")
	part := ""
	if g.chance(0.6) {
		part = "PARTITION BY " + g.groupKey() + " "
	}
	total := "ORDER BY " + ocol + g.pick("", " DESC") + ", id" + g.pick("", " DESC")
	var fn, over string
	switch g.r.IntN(4) {
	case 0: // ranking: ties are peers, so ORDER BY one column is enough
		fn = g.pick("RANK()", "DENSE_RANK()", "PERCENT_RANK()", "CUME_DIST()")
		over = part + "ORDER BY " + ocol + g.pick("", " DESC")
	case 1: // order-sensitive
		// (no LAG/LEAD default: MariaDB 10.11 has no third argument)
		fn = g.pick("ROW_NUMBER()", "NTILE("+g.pick("1", "2", "3", "7")+")", "LAG("+col+")", "LAG("+col+", "+g.pick("1", "2", "3")+")",
			"LEAD("+col+", "+g.pick("1", "2")+")", "FIRST_VALUE("+col+")", "LAST_VALUE("+col+")", "NTH_VALUE("+col+", "+g.pick("1", "2", "3")+")")
		over = part + total
	default: // aggregates over the partition, a running total, or a frame
		// (order-independent: FIRST_VALUE over peers is not)
		fn = g.pick("COUNT(*)", "COUNT("+col+")", "SUM(id)", "SUM(d)", "AVG(f)", "AVG(id)", "MIN("+col+")", "MAX("+col+")",
			"BIT_OR(u)", "BIT_XOR(id)", "BIT_AND(i)", "STD(f)", "VAR_SAMP(id)")
		switch g.r.IntN(4) {
		case 0:
			over = part
		case 1:
			over = part + total
		case 2:
			over = part + total + " ROWS BETWEEN " + g.pick("1", "2", "UNBOUNDED") + " PRECEDING AND " + g.pick("CURRENT ROW", "1 FOLLOWING", "UNBOUNDED FOLLOWING")
		default:
			over = part + "ORDER BY " + ocol + " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		}
	}
	return Query{SQL: fmt.Sprintf("SELECT id, %s OVER (%s) FROM t ORDER BY id", fn, strings.TrimSpace(over)), Ordered: true}
}

// recursiveQuery is a WITH RECURSIVE query: a counter with an integer
// expression of the previous row, a walk over t through its ids, or a
// UNION DISTINCT closure over a finite domain (it ends when no new row
// appears). Columns stay integers: a string growing past the anchor's
// width is a documented difference (MariaDB truncates it).
func (g *Gen) recursiveQuery() Query {
	switch g.r.IntN(3) {
	case 0:
		saved := columns
		columns = map[typ][]string{tInt: {"v", "n"}}
		step := g.Expr(tInt, 2)
		columns = saved
		q := fmt.Sprintf("WITH RECURSIVE r (n, v) AS (SELECT 1, CAST(%s AS SIGNED) UNION ALL SELECT n + 1, %s FROM r WHERE n < %d) ",
			g.literal(tInt), step, 2+g.r.IntN(6))
		if g.chance(0.3) {
			return Query{SQL: q + "SELECT COUNT(*), MIN(v), MAX(v), COUNT(DISTINCT v) FROM r", Ordered: true}
		}
		return Query{SQL: q + "SELECT n, v FROM r ORDER BY n", Ordered: true}
	case 1:
		return Query{SQL: fmt.Sprintf("WITH RECURSIVE r (id, depth, acc) AS (SELECT id, 0, id FROM t WHERE %s "+
			"UNION ALL SELECT t.id, r.depth + 1, r.acc * 2 + t.id FROM r JOIN t ON t.id = r.id * %s + %s WHERE r.depth < %d%s) SELECT id, depth, acc FROM r",
			g.pick("id <= 3", "id % 7 = 1", "i > 0", "s LIKE 'a%'"), g.pick("2", "3"), g.pick("0", "1"), 2+g.r.IntN(4),
			g.pick("", " AND t.i IS NOT NULL", " AND t.s <> 'abc'"))}
	default:
		m := g.pick("7", "11", "17", "23")
		return Query{SQL: fmt.Sprintf("WITH RECURSIVE r (v) AS (SELECT %d UNION SELECT (v * %s + %s) %% %s FROM r%s) SELECT v FROM r",
			g.r.IntN(5), g.pick("2", "3", "5"), g.pick("1", "2", "4"), m, g.pick("", " WHERE v < 9"))}
	}
}

// joinCTEQuery is a self join of t with a subquery in its ON (correlated
// to either side), or a CTE with a column list over a set operation.
func (g *Gen) joinCTEQuery() Query {
	if g.chance(0.5) {
		sub := g.pick(
			"b.i IN (SELECT i FROM t c WHERE c.dt > a.dt)",
			"EXISTS (SELECT 1 FROM t c WHERE c.id = a.id + 1 AND c.f > b.f)",
			"NOT EXISTS (SELECT 1 FROM t c WHERE c.s = b.s AND c.id < b.id)",
			"b.d > (SELECT AVG(d) FROM t c WHERE c.s = a.s)",
			"a.u < (SELECT MAX(u) FROM t)",
			"b.id IN (SELECT id FROM t WHERE "+g.Expr(tBool, 2)+")",
		)
		return Query{SQL: fmt.Sprintf("SELECT a.id, b.id FROM t a %s t b ON a.%s = b.%s AND %s",
			g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN"), g.pick("s", "dt", "i % 3"), g.pick("s", "dt", "i % 3"), sub)}
	}
	t1 := typ(g.r.IntN(int(tBool)))
	t2 := t1 // (the operands' types agree: how each engine unifies two types is not what this checks)
	return Query{SQL: fmt.Sprintf("WITH c (x, y) AS (SELECT id, %s FROM t WHERE %s %s SELECT id + 100, %s FROM t WHERE %s) SELECT x, y FROM c",
		g.Expr(t1, 1), g.Expr(tBool, 1), g.pick("UNION", "UNION ALL", "EXCEPT", "INTERSECT"), g.Expr(t2, 1), g.Expr(tBool, 1))}
}
