package planner

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// MySQL's diagnostics area: the conditions (notes, warnings, the error) of
// the last statement that raised some or used a table, which SHOW WARNINGS,
// SHOW ERRORS, @@warning_count and @@error_count read.
//
// A statement's conditions are collected in its expr.Statement (s.stmt) as
// it runs, rows streamed after Exec returns included, so the area is
// settled only when the next statement starts (beginStatement). As in
// MariaDB, a statement replaces the area when it raised a condition or
// names a table (SHOW statements, which MariaDB answers from
// information_schema, count as naming one); others (SELECT 1, SET, USE,
// BEGIN, SHOW WARNINGS itself) leave it for the next SHOW WARNINGS.

// Warning is one condition of a statement as SHOW WARNINGS lists it.
type Warning struct {
	Level   string // "Note", "Warning" or "Error"
	Code    int    // MySQL's error number (1105, ER_UNKNOWN_ERROR, when MySQL has none for it)
	Message string
}

// diagArea is the conditions SHOW WARNINGS reads: the first max_error_count
// of the statement, and the counts of all it raised.
type diagArea struct {
	conds       []expr.Warning
	all, errors int
}

// beginStatement settles the previous statement's conditions into the
// diagnostics area and starts st's.
func (s *Session) beginStatement(st sqlparse.Statement) {
	if prev := s.stmt; prev != nil || s.stmtTables {
		all, errs := prev.Count()
		if all > 0 || s.stmtTables {
			s.diag = diagArea{conds: prev.Warnings(), all: all, errors: errs}
		}
	}
	s.stmt = nil // a new statement: a new NOW(), no conditions yet
	s.stmtTables = st != nil && usesTables(st)
}

// statement returns the running statement's context, made on first use.
func (s *Session) statement(maxValueBytes int64) *expr.Statement {
	if s.stmt == nil {
		s.stmt = expr.NewStatement(time.Now())
		s.stmt.MaxValueBytes = int(maxValueBytes)
		s.stmt.Database = schemaName(s.ns) // $root at the root
		s.stmt.MaxWarnings = s.maxErrorCount()
	}
	return s.stmt
}

// warn raises a condition of the running statement.
func (s *Session) warn(level expr.Level, code int, format string, args ...any) {
	max := s.opts.MaxValueBytes
	if max <= 0 {
		max = DefaultMaxValueBytes
	}
	s.statement(max).Raise(level, code, format, args...)
}

// warnf is warn with a Warning's message format, for the lenient values
// of INSERT IGNORE (ignore.go).
func (s *Session) warnf(level expr.Level, code int, format string, args ...any) {
	s.warn(level, code, format, args...)
}

// maxErrorCount is @@max_error_count: how many conditions a statement
// keeps (MariaDB's range is 0 to 65535; its default 64).
func (s *Session) maxErrorCount() int {
	v, _ := s.variable("max_error_count")
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 64
	}
	if n == 0 {
		return -1 // keeps none (expr.Statement reads 0 as its default)
	}
	return n
}

// RecordError makes err the error condition of the running statement, as
// MySQL's SHOW ERRORS lists the error that ended it. newStatement: err
// ended a statement that never ran (a parse error), so the previous
// statement's conditions are settled first. Exec records its own errors;
// the driver calls this for parse errors and for errors met while a
// result's rows are read.
func (s *Session) RecordError(err error, newStatement bool) {
	if err == nil {
		return
	}
	if newStatement {
		s.beginStatement(nil)
		s.stmtTables = false
	}
	s.warn(expr.LevelError, mysqlErrorCode(err), "%s", errorMessage(err))
}

// Warnings returns the conditions SHOW WARNINGS lists now (the last
// statement's, once the next one starts; the running statement's until
// then if it raised any), for a host that reads them without SQL.
func (s *Session) Warnings() []Warning {
	conds, _, _ := s.currentDiag()
	out := make([]Warning, len(conds))
	for i, c := range conds {
		out[i] = Warning{Level: c.Level.String(), Code: c.Code, Message: c.Message}
	}
	return out
}

// WarningCount is @@warning_count of the statement Warnings describes.
func (s *Session) WarningCount() int {
	_, all, _ := s.currentDiag()
	return all
}

// StatementWarningCount is how many conditions the statement run last
// raised so far (its rows read so far included), for a client that prints
// "N warnings" after each statement as the mysql client does.
func (s *Session) StatementWarningCount() int {
	all, _ := s.stmt.Count()
	return all
}

// currentDiag is the area as it would be if the next statement started
// now (the running statement's conditions when it raised some).
func (s *Session) currentDiag() ([]expr.Warning, int, int) {
	if all, errs := s.stmt.Count(); all > 0 || s.stmtTables {
		return s.stmt.Warnings(), all, errs
	}
	return s.diag.conds, s.diag.all, s.diag.errors
}

// showWarnings is SHOW WARNINGS / SHOW ERRORS [LIMIT] and SHOW COUNT(*) ...
func (s *Session) showWarnings(_ context.Context, st *sqlparse.ShowWarnings) (*Result, error) {
	if st.Count {
		name, n := "@@session.warning_count", s.diag.all
		if st.Errors {
			name, n = "@@session.error_count", s.diag.errors
		}
		return rowsResult([]Column{bigint(name)}, [][]any{{int64(n)}}), nil
	}
	var rows [][]any
	for _, c := range s.diag.conds {
		if st.Errors && c.Level != expr.LevelError {
			continue
		}
		rows = append(rows, []any{c.Level.String(), int64(c.Code), c.Message})
	}
	if st.Limit >= 0 {
		off := min(st.Offset, int64(len(rows)))
		rows = rows[off:min(off+st.Limit, int64(len(rows)))]
	}
	return rowsResult([]Column{varchar("Level"), bigint("Code"), varchar("Message")}, rows), nil
}

// diagVariable answers @@warning_count and @@error_count (ok false for other
// names).
func (s *Session) diagVariable(name string) (any, bool) {
	switch name {
	case "warning_count":
		return int64(s.diag.all), true
	case "error_count":
		return int64(s.diag.errors), true
	}
	return nil, false
}

// usesTables reports whether st names a table (or is a SHOW, which
// MariaDB answers from information_schema): such a statement replaces the
// diagnostics area even when it raises no condition.
func usesTables(st sqlparse.Statement) bool {
	switch n := st.(type) {
	case *sqlparse.Select:
		return selectUsesTables(n)
	case *sqlparse.Set, *sqlparse.Use, *sqlparse.Begin, *sqlparse.Commit, *sqlparse.Rollback,
		*sqlparse.CreateSchema, *sqlparse.DropSchema, *sqlparse.AlterSchema, *sqlparse.ShowWarnings,
		*sqlparse.Unsupported, *sqlparse.Call:
		return false
	}
	return true
}

func selectUsesTables(sel *sqlparse.Select) bool {
	if sel == nil {
		return false
	}
	if sel.From != nil || len(sel.With) > 0 {
		return true
	}
	for _, op := range sel.SetOps {
		if selectUsesTables(op.Select) {
			return true
		}
	}
	found := false
	visit := func(e sqlparse.Expr) bool {
		switch x := e.(type) {
		case *sqlparse.Subquery:
			found = found || selectUsesTables(x.Select)
		case *sqlparse.Exists:
			found = found || selectUsesTables(x.Select)
		}
		return !found
	}
	for _, it := range sel.Items {
		if it.Expr != nil {
			sqlparse.Inspect(it.Expr, visit)
		}
	}
	if sel.Where != nil {
		sqlparse.Inspect(sel.Where, visit)
	}
	return found
}

// mysqlErrno matches the "(MySQL error NNNN" lancecat's messages carry
// where MySQL has an error number for them.
var mysqlErrno = regexp.MustCompile(`MySQL error (\d{4})`)

// mysqlErrorCode is the MySQL error number SHOW ERRORS gives err: the one
// its message names, else the nearest MySQL error of its catalog code,
// else 1105 (ER_UNKNOWN_ERROR).
func mysqlErrorCode(err error) int {
	if m := mysqlErrno.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	switch {
	case strings.Contains(err.Error(), "Duplicate entry '") || strings.Contains(err.Error(), "duplicate entry '"):
		return 1062 // ER_DUP_ENTRY: a PRIMARY KEY or UNIQUE value the table or statement already has
	case strings.Contains(err.Error(), "unknown column"):
		return 1054 // ER_BAD_FIELD_ERROR
	case errors.Is(err, sqlparse.ErrSyntax):
		return 1064 // ER_PARSE_ERROR
	case errors.Is(err, ErrOutOfRange):
		return 1690
	}
	var ce *catalog.Error
	if errors.As(err, &ce) {
		switch ce.Code {
		case catalog.CodeTableNotFound:
			return 1146 // ER_NO_SUCH_TABLE
		case catalog.CodeTableAlreadyExists:
			return 1050 // ER_TABLE_EXISTS_ERROR
		case catalog.CodeNamespaceNotFound:
			return 1049 // ER_BAD_DB_ERROR
		case catalog.CodeNamespaceAlreadyExists:
			return 1007 // ER_DB_CREATE_EXISTS
		case catalog.CodeTableColumnNotFound:
			return 1054 // ER_BAD_FIELD_ERROR
		case catalog.CodeUnsupported:
			return 1235 // ER_NOT_SUPPORTED_YET
		}
	}
	var pe *sqlparse.Error
	if errors.As(err, &pe) && errors.Is(pe.Kind, sqlparse.ErrNotSupported) {
		return 1235
	}
	return 1105
}

// errorMessage is err's message without the catalog code prefix the
// driver's error adds back.
func errorMessage(err error) string {
	var ce *catalog.Error
	if errors.As(err, &ce) {
		return strings.TrimPrefix(err.Error(), ce.Code.String()+": ")
	}
	return err.Error()
}

// The warnings of expressions (MariaDB's, in its default sql_mode with
// ERROR_FOR_DIVISION_BY_ZERO): they are raised only where the value is
// already the unusual one (a NULL quotient, a string operand), so the
// evaluation of ordinary values does no more work than before.

// warn raises a warning of the statement env evaluates in.
// Not while checking: planning evaluates constant expressions once more
// (on a row of NULLs, or to type a column), and MariaDB warns once.
func (env *rowEnv) warn(level expr.Level, code int, format string, args ...any) {
	if env.checking {
		return
	}
	env.statement().Raise(level, code, format, args...)
}

// isText reports whether v is a string value (which arithmetic and
// comparisons with a number convert).
func isText(v any) bool {
	switch v.(type) {
	case string, []byte:
		return true
	}
	return false
}

// arithWarnings raises the warnings of l op r (both non-NULL) whose result
// v is NULL or that has a string operand: 1292 for a string that is not
// wholly a number, then 1365 for a division (/, DIV, MOD) by zero.
func (env *rowEnv) arithWarnings(l, r, v any) {
	for _, x := range [2]any{l, r} {
		if isText(x) {
			env.numericTextWarning(toString(x), "DOUBLE")
		}
	}
	if v == nil {
		env.warn(expr.LevelWarning, 1365, "Division by 0")
	}
}

// compareWarnings raises 1292 for the string side of a comparison with a
// number when the string is not wholly a number. MariaDB compares a
// string with an integer as DECIMAL, with a DOUBLE as DOUBLE, and with a
// DECIMAL as DECIMAL only when the string is a constant and the DECIMAL a
// column (both per its type aggregation); a constant string is converted
// once per statement, so its warning is raised once.
func (env *rowEnv) compareWarnings(n *sqlparse.Binary, l, r any) {
	if env.checking {
		return
	}
	str, num, strExpr, numExpr := l, r, n.L, n.R
	if !isText(l) {
		str, num, strExpr, numExpr = r, l, n.R, n.L
	}
	typ := "DOUBLE"
	_, strConst := sqlparse.StripParens(strExpr).(*sqlparse.Literal)
	switch num.(type) {
	case int64, uint64, bool:
		typ = "DECIMAL"
	case sqltypes.Decimal:
		if _, isCol := sqlparse.StripParens(numExpr).(*sqlparse.ColumnRef); strConst && isCol {
			typ = "DECIMAL"
		}
	case float64:
	default:
		return // a time, JSON: not a conversion to a number
	}
	if strConst {
		if env.warnedConsts[strExpr] {
			return
		}
		if env.warnedConsts == nil {
			env.warnedConsts = map[sqlparse.Expr]bool{}
		}
		env.warnedConsts[strExpr] = true
	}
	env.numericTextWarning(toString(str), typ)
}

// numericTextWarning raises MariaDB's 1292 for s converted to a number of
// type typ: a Note when only trailing spaces follow the number, a Warning
// when anything else does or there is no number; nothing for a number.
func (env *rowEnv) numericTextWarning(s, typ string) {
	if level, bad := numericTextLevel(s); bad {
		env.warn(level, 1292, "Truncated incorrect %s value: '%s'", typ, s)
	}
}

// numericTextLevel classifies s as MariaDB's string-to-number conversion
// does: leading spaces, a sign, digits with an optional point (at least one
// digit), an optional exponent with digits. bad is false when that is all
// of s; the level is Note when only spaces follow, else Warning (an
// exponent without digits, '0x10', ” and '1abc' included).
func numericTextLevel(s string) (level expr.Level, bad bool) {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return expr.LevelWarning, true
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
	if i == len(s) {
		return 0, false
	}
	for j := i; j < len(s); j++ {
		if !isSpaceByte(s[j]) {
			return expr.LevelWarning, true
		}
	}
	return expr.LevelNote, true
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// evalCallChecking is evalCall while checking: the registry's warnings are
// muted, as env.warn's are.
func (env *rowEnv) evalCallChecking(n *sqlparse.FuncCall, row []any) (any, error) {
	stmt := env.statement()
	stmt.Mute(true)
	defer stmt.Mute(false)
	return env.evalCallNow(n, row)
}

// compareWarned is compare(l, r) (both non-NULL) with the warnings of
// comparing a string with a number; the tree walk and compiled comparisons
// share it so both raise the same warnings.
func (env *rowEnv) compareWarned(n *sqlparse.Binary, l, r any) int {
	if isText(l) != isText(r) {
		env.compareWarnings(n, l, r)
	}
	return compare(l, r)
}

// arithmeticWarned is arithmetic(op, l, r) with its warnings (a NULL
// result of non-NULL operands, a string operand), for the tree walk and
// compiled arithmetic alike.
func (env *rowEnv) arithmeticWarned(op sqlparse.BinaryOp, l, r any) (any, error) {
	v, err := arithmetic(op, l, r)
	if err == nil && l != nil && r != nil && (v == nil || isText(l) || isText(r)) {
		env.arithWarnings(l, r, v)
	}
	return v, err
}
