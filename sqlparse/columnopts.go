package sqlparse

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ColumnDefault is a column's DEFAULT clause: a literal or the current time.
type ColumnDefault struct {
	// CurrentTimestamp is set for DEFAULT CURRENT_TIMESTAMP[(p)], NOW([p]),
	// LOCALTIME[STAMP][(p)]: the time of the INSERT.
	CurrentTimestamp bool
	// Precision is the fractional seconds precision written with
	// CURRENT_TIMESTAMP(p) (0 when none).
	Precision int
	// Value is the literal when CurrentTimestamp is false: nil (NULL), int64,
	// uint64, float64, Decimal, string or []byte, as Call.Args.
	Value any
}

// SQL renders the default as an SQL expression that ParseColumnDefault reads
// back: NULL, 42, -1.5, 'text', X'00ff', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP(3).
func (d ColumnDefault) SQL() string {
	if d.CurrentTimestamp {
		if d.Precision > 0 {
			return fmt.Sprintf("CURRENT_TIMESTAMP(%d)", d.Precision)
		}
		return "CURRENT_TIMESTAMP"
	}
	switch v := d.Value.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") { // keep it a float literal
			s += "e0"
		}
		return s
	case Decimal:
		return string(v)
	case string:
		return QuoteString(v)
	case []byte:
		return "X'" + hex.EncodeToString(v) + "'"
	}
	return fmt.Sprintf("%v", d.Value)
}

// Text is the default as information_schema.columns.COLUMN_DEFAULT shows it
// (MySQL's form): strings unquoted, NULL as nil.
func (d ColumnDefault) Text() (string, bool) {
	switch v := d.Value.(type) {
	case nil:
		if !d.CurrentTimestamp {
			return "", false
		}
	case string:
		return v, true
	}
	return d.SQL(), true
}

// ParseColumnDefault reads back the text ColumnDefault.SQL wrote (kept in the
// Lance schema's field metadata).
func ParseColumnDefault(sql string) (ColumnDefault, error) {
	node, err := parser.New().ParseOneStmt("SELECT "+sql, "", "")
	if err != nil {
		return ColumnDefault{}, fmt.Errorf("default %q: %w", sql, err)
	}
	sel, ok := node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil {
		return ColumnDefault{}, fmt.Errorf("default %q is not one expression", sql)
	}
	return defaultOf(sel.Fields.Fields[0].Expr)
}

// currentTimeFuncs are the functions MySQL accepts as a column default for
// the current time.
var currentTimeFuncs = map[string]bool{
	"current_timestamp": true, "now": true, "localtime": true, "localtimestamp": true,
}

// defaultOf converts a DEFAULT expression: a literal (optionally signed) or
// the current time. Anything else is errNotLiteral.
func defaultOf(e ast.ExprNode) (ColumnDefault, error) {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	if fc, ok := e.(*ast.FuncCallExpr); ok {
		if !currentTimeFuncs[fc.FnName.L] {
			return ColumnDefault{}, errNotLiteral
		}
		d := ColumnDefault{CurrentTimestamp: true}
		switch len(fc.Args) {
		case 0:
		case 1:
			v, err := literalValue(fc.Args[0])
			p, ok := v.(int64)
			if err != nil || !ok || p < 0 || p > 9 {
				return ColumnDefault{}, fmt.Errorf("%s precision must be 0..9", strings.ToUpper(fc.FnName.O))
			}
			d.Precision = int(p)
		default:
			return ColumnDefault{}, errNotLiteral
		}
		return d, nil
	}
	v, err := literalValue(e)
	if err != nil {
		return ColumnDefault{}, err
	}
	return ColumnDefault{Value: v}, nil
}

// IndexDef is an index clause inside CREATE TABLE: KEY|INDEX [name] (col),
// UNIQUE [KEY|INDEX] [name] (col), CONSTRAINT [name] UNIQUE (col), or a
// column's own UNIQUE [KEY] (then Name is the column's name, as in MySQL).
// Name is "" when the clause names none (the planner picks one).
type IndexDef struct {
	Name   string
	Column string
	Unique bool
	Using  string // BTREE, BITMAP, ... as written; "" for the default
}

// isIndexConstraint says whether a table constraint is an index clause
// (KEY, INDEX, UNIQUE, FULLTEXT).
func isIndexConstraint(tp ast.ConstraintType) bool {
	switch tp {
	case ast.ConstraintKey, ast.ConstraintIndex, ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex, ast.ConstraintFulltext:
		return true
	}
	return false
}

// indexConstraint converts an index constraint of CREATE TABLE (cols are
// its columns, checked here) or of ALTER TABLE ADD (cols nil: the planner
// checks the column against the table).
func (c *converter) indexConstraint(con *ast.Constraint, cols []ColumnDef) (IndexDef, error) {
	def := IndexDef{Name: con.Name}
	switch con.Tp {
	case ast.ConstraintKey, ast.ConstraintIndex:
	case ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
		def.Unique = true
	case ast.ConstraintFulltext:
		def.Using = "INVERTED" // a full-text index with the reference's defaults
	default:
		return def, c.notSupported(c.start(), "table constraint %s (PRIMARY KEY, UNIQUE, KEY, INDEX and FULLTEXT are)", constraintName(con.Tp))
	}
	if len(con.Keys) != 1 {
		return def, c.notSupported(c.start(), "an index on several columns (%s): Lance scalar indices cover one column", indexLabel(def))
	}
	k := con.Keys[0]
	if k.Expr != nil || k.Column == nil {
		return def, c.notSupported(c.start(), "an index on an expression")
	}
	if k.Length > 0 {
		return def, c.notSupported(c.start(), "index key prefix lengths")
	}
	if k.Desc {
		return def, c.notSupported(c.start(), "descending index keys")
	}
	if con.Option != nil && con.Option.Tp != ast.IndexTypeInvalid {
		def.Using = strings.ToUpper(con.Option.Tp.String())
	}
	def.Column = k.Column.Name.O
	if cols == nil {
		return def, nil // ALTER TABLE ADD: the planner checks the column against the table
	}
	found := false
	for _, cd := range cols {
		if strings.EqualFold(cd.Name, def.Column) {
			def.Column = cd.Name
			found = true
		}
	}
	if !found {
		return def, c.sc.errAt(c.start(), ErrSyntax, "index column "+QuoteIdent(def.Column)+" is not defined")
	}
	return def, nil
}

func indexLabel(d IndexDef) string {
	if d.Name != "" {
		return QuoteIdent(d.Name)
	}
	if d.Unique {
		return "UNIQUE"
	}
	return "INDEX"
}
