package planner

import (
	"context"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// The column types of CREATE TABLE ... SELECT for computed select items,
// derived from the expression as MySQL derives them (compared with
// MariaDB's DESCRIBE in conformance/mariadb, TestCreateTableAsSelectTypesMatchMariaDB):
//   - nullability: a literal is NOT NULL; an operator, CAST and the string
//     functions below are NULL only where an operand may be; `/`, DIV and %
//     (x / 0 is NULL), MIN, MAX, SUM and AVG may always be NULL; COUNT never;
//     COALESCE and IFNULL are NOT NULL when an argument is; IS [NOT] NULL,
//     IS TRUE and <=> never are.
//   - types: an integer literal is INT when it fits in 32 bits (else
//     BIGINT), a string literal VARCHAR(its length), a comparison or logical
//     operator INT; CAST(x AS DECIMAL(p,s)) is DECIMAL(p,s); + and - over
//     DECIMALs (or a DECIMAL and an integer) are DECIMAL with the larger
//     scale and one more integer digit than the wider operand, * adds
//     precisions and scales (capped at decimal128's 38 digits and 30 of
//     scale).
// What it cannot tell (functions, CASE, subqueries) keeps the type
// queryColumnField derives from the result column and its values.

// ctasType is what the derivation knows of one expression.
type ctasType struct {
	known    bool // the type below is set
	nullKnow bool // nullable is set
	nullable bool
	// kind of a known type: "int" (INT), "bigint", "ubigint", "double",
	// "decimal" (p, s), "varchar" (n).
	kind string
	p, s int
	n    int
	// digits: the decimal precision of an integer (its literal's digits or
	// its type's), used when it meets a DECIMAL.
	digits int
}

func (t ctasType) field(name string) (arrow.Field, bool) {
	if !t.known {
		return arrow.Field{}, false
	}
	f := arrow.Field{Name: name, Nullable: !t.nullKnow || t.nullable}
	switch t.kind {
	case "int":
		f.Type = arrow.PrimitiveTypes.Int32
	case "bigint":
		f.Type = arrow.PrimitiveTypes.Int64
	case "ubigint":
		f.Type = arrow.PrimitiveTypes.Uint64
	case "double":
		f.Type = arrow.PrimitiveTypes.Float64
	case "decimal":
		p := min(t.p, 38)
		s := min(t.s, 30, p)
		f.Type = &arrow.Decimal128Type{Precision: int32(max(p, 1)), Scale: int32(s)}
	case "varchar":
		if t.n < 1 {
			return arrow.Field{}, false
		}
		f.Type = arrow.BinaryTypes.String
		f.Metadata = sqltypes.MetadataOf(map[string]string{sqltypes.CharLengthKey: strconv.Itoa(t.n)})
	default:
		return arrow.Field{}, false
	}
	return f, true
}

// ctasScope resolves column references of the query's FROM to their
// stored fields; nullable marks the outer side of a LEFT / RIGHT JOIN.
type ctasScope struct {
	tables []ctasTable
}

type ctasTable struct {
	name     string
	fields   []arrow.Field
	nullable bool
}

// ctasTypes derives the types of q's select items, one per result column
// (nil when q's shape is not one the derivation follows: set operations,
// WITH, stars, a FROM it cannot open).
func (s *Session) ctasTypes(ctx context.Context, q *sqlparse.Select, ncols int) []ctasType {
	if q == nil || len(q.SetOps) > 0 || len(q.With) > 0 || len(q.Items) != ncols {
		return nil
	}
	for _, it := range q.Items {
		if it.Star || it.Expr == nil {
			return nil
		}
	}
	sc := &ctasScope{}
	if q.From != nil && !s.ctasFrom(ctx, q.From, false, sc) {
		return nil
	}
	out := make([]ctasType, ncols)
	for k, it := range q.Items {
		out[k] = sc.derive(it.Expr)
	}
	return out
}

func (s *Session) ctasFrom(ctx context.Context, from sqlparse.FromItem, nullable bool, sc *ctasScope) bool {
	switch n := from.(type) {
	case *sqlparse.Join:
		return s.ctasFrom(ctx, n.Left, nullable || n.Kind == sqlparse.RightJoin, sc) &&
			s.ctasFrom(ctx, n.Right, nullable || n.Kind == sqlparse.LeftJoin, sc)
	case *sqlparse.TableSource:
		if n.Subquery != nil || len(n.Table) == 0 {
			return false
		}
		if len(n.Table) == 2 && strings.EqualFold(n.Table[0], "information_schema") {
			return false
		}
		_, ds, err := s.openTableSource(ctx, n)
		if err != nil {
			return false
		}
		schema, err := ds.ArrowSchema()
		if err != nil {
			return false
		}
		name := n.Alias
		if name == "" {
			name = n.Table[len(n.Table)-1]
		}
		sc.tables = append(sc.tables, ctasTable{name: name, fields: schema.Fields(), nullable: nullable})
		return true
	}
	return false
}

// column resolves ref to one field (ok false when it names none or is
// ambiguous).
func (sc *ctasScope) column(ref *sqlparse.ColumnRef) (arrow.Field, bool, bool) {
	var found *arrow.Field
	outer := false
	for _, t := range sc.tables {
		if len(ref.Qualifier) > 0 && !strings.EqualFold(ref.Qualifier[len(ref.Qualifier)-1], t.name) {
			continue
		}
		for i := range t.fields {
			if strings.EqualFold(t.fields[i].Name, ref.Column) {
				if found != nil {
					return arrow.Field{}, false, false
				}
				found, outer = &t.fields[i], t.nullable
			}
		}
	}
	if found == nil {
		return arrow.Field{}, false, false
	}
	return *found, outer, true
}

func notNull(nullable bool) ctasType { return ctasType{nullKnow: true, nullable: nullable} }

// intDigits is the decimal precision of an integer type.
func intDigits(id arrow.Type) int {
	switch id {
	case arrow.INT8, arrow.UINT8:
		return 3
	case arrow.INT16, arrow.UINT16:
		return 5
	case arrow.INT32, arrow.UINT32:
		return 10
	case arrow.UINT64:
		return 20
	}
	return 19
}

func (sc *ctasScope) derive(e sqlparse.Expr) ctasType {
	switch n := e.(type) {
	case *sqlparse.Paren:
		return sc.derive(n.X)
	case *sqlparse.ColumnRef:
		f, outer, ok := sc.column(n)
		if !ok {
			return ctasType{}
		}
		t := notNull(f.Nullable || outer)
		switch dt := f.Type.(type) {
		case *arrow.Decimal128Type:
			t.known, t.kind, t.p, t.s = true, "decimal", int(dt.Precision), int(dt.Scale)
		default:
			switch f.Type.ID() {
			case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
				t.known, t.kind, t.digits = true, "bigint", intDigits(f.Type.ID())
				if f.Type.ID() != arrow.INT64 {
					t.kind = "int"
				}
			case arrow.UINT64:
				t.known, t.kind, t.digits = true, "ubigint", 20
			case arrow.FLOAT32, arrow.FLOAT64:
				t.known, t.kind = true, "double"
			case arrow.STRING, arrow.LARGE_STRING:
				t.kind = "string" // operand kind only: the column keeps its stored type
			}
		}
		return t
	case *sqlparse.Literal:
		t := notNull(false)
		switch n.Kind {
		case sqlparse.LitNull:
			return notNull(true)
		case sqlparse.LitInt, sqlparse.LitBool:
			v, _ := literalValue(n).(int64)
			t.known, t.kind, t.digits = true, "int", len(strconv.FormatInt(v, 10))
			if v < 0 {
				t.digits--
			}
			if v > math.MaxInt32 || v < math.MinInt32 {
				t.kind = "bigint"
			}
		case sqlparse.LitUint:
			t.known, t.kind, t.digits = true, "ubigint", 20
		case sqlparse.LitFloat:
			t.known, t.kind = true, "double"
		case sqlparse.LitDecimal:
			d, _ := literalValue(n).(sqltypes.Decimal)
			if x, ok := parseDecimalText(string(d)); ok {
				t.known, t.kind, t.p, t.s = true, "decimal", max(x.digits(), x.scale, 1), x.scale
			}
		case sqlparse.LitString:
			v, _ := literalValue(n).(string)
			t.known, t.kind, t.n = true, "varchar", utf8.RuneCountInString(v)
		}
		return t
	case *sqlparse.Unary:
		x := sc.derive(n.X)
		switch n.Op {
		case sqlparse.OpNot:
			return ctasType{known: true, kind: "int", nullKnow: x.nullKnow, nullable: x.nullable}
		case sqlparse.OpNeg, sqlparse.OpPlus:
			if x.kind == "varchar" || x.kind == "string" {
				return ctasType{known: true, kind: "double", nullKnow: x.nullKnow, nullable: x.nullable}
			}
			return x
		}
		return ctasType{}
	case *sqlparse.Binary:
		l, r := sc.derive(n.L), sc.derive(n.R)
		t := ctasType{nullKnow: l.nullKnow && r.nullKnow, nullable: l.nullable || r.nullable}
		switch {
		case n.Op == sqlparse.OpNullEQ:
			return ctasType{known: true, kind: "int", nullKnow: true}
		case n.Op.IsComparison() || n.Op.IsLogical():
			t.known, t.kind = true, "int"
			return t
		case n.Op == sqlparse.OpDiv, n.Op == sqlparse.OpIntDiv, n.Op == sqlparse.OpMod:
			t.nullKnow, t.nullable = true, true // x / 0 is NULL
			switch {
			case n.Op == sqlparse.OpDiv && l.kind != "" && r.kind != "":
				t.known, t.kind = true, "double" // lancecat divides as DOUBLE
			case n.Op == sqlparse.OpIntDiv:
				t.known, t.kind = true, "bigint"
			}
			return t
		case n.Op == sqlparse.OpAdd, n.Op == sqlparse.OpSub, n.Op == sqlparse.OpMul:
		default:
			return t
		}
		isInt := func(x ctasType) bool { return x.kind == "int" || x.kind == "bigint" }
		isNum := func(x ctasType) bool { return isInt(x) || x.kind == "decimal" }
		switch {
		case isInt(l) && isInt(r):
			t.known, t.kind = true, "bigint"
		case isNum(l) && isNum(r):
			lp, ls, rp, rs := l.p, l.s, r.p, r.s
			if isInt(l) {
				lp, ls = max(l.digits, 1), 0
			}
			if isInt(r) {
				rp, rs = max(r.digits, 1), 0
			}
			t.known, t.kind = true, "decimal"
			if n.Op == sqlparse.OpMul {
				t.p, t.s = lp+rp, ls+rs
			} else {
				t.s = max(ls, rs)
				t.p = max(lp-ls, rp-rs) + t.s + 1
			}
		case l.kind == "double" || r.kind == "double" || l.kind == "string" || r.kind == "string" || l.kind == "varchar" || r.kind == "varchar":
			if l.kind != "" && r.kind != "" {
				t.known, t.kind = true, "double"
			}
		}
		return t
	case *sqlparse.IsNull, *sqlparse.IsTruth:
		return ctasType{known: true, kind: "int", nullKnow: true}
	case *sqlparse.Like:
		return sc.allOperands("int", n.X, n.Pattern)
	case *sqlparse.Between:
		return sc.allOperands("int", n.X, n.Lo, n.Hi)
	case *sqlparse.InList:
		if n.Subquery != nil {
			return ctasType{known: true, kind: "int"}
		}
		return sc.allOperands("int", append([]sqlparse.Expr{n.X}, n.List...)...)
	case *sqlparse.FuncCall:
		return sc.deriveCall(n)
	}
	return ctasType{}
}

// allOperands is a result of kind (if not "") NULL only when an operand
// may be.
func (sc *ctasScope) allOperands(kind string, es ...sqlparse.Expr) ctasType {
	t := ctasType{known: kind != "", kind: kind, nullKnow: true}
	for _, e := range es {
		x := sc.derive(e)
		if !x.nullKnow {
			t.nullKnow = false
		}
		t.nullable = t.nullable || x.nullable
	}
	return t
}

// stringFuncs are NULL only when an argument is.
var stringFuncs = map[string]bool{"concat": true, "upper": true, "lower": true, "ucase": true, "lcase": true,
	"trim": true, "ltrim": true, "rtrim": true, "length": true, "char_length": true, "character_length": true,
	"abs": true}

func (sc *ctasScope) deriveCall(n *sqlparse.FuncCall) ctasType {
	name := strings.ToLower(n.Name)
	if n.Aggregate {
		switch name {
		case "count":
			return ctasType{known: true, kind: "bigint", nullKnow: true}
		case "min", "max":
			if len(n.Args) == 1 {
				t := sc.derive(n.Args[0])
				t.nullKnow, t.nullable = true, true
				return t
			}
		}
		return notNull(true)
	}
	switch {
	case name == strings.ToLower(sqlparse.FuncCast) && len(n.Args) == 2:
		x := sc.derive(n.Args[0])
		lit, ok := n.Args[1].(*sqlparse.Literal)
		if !ok {
			return ctasType{}
		}
		target, _ := lit.Value.(string)
		target = strings.ToUpper(target)
		t := ctasType{nullKnow: x.nullKnow, nullable: x.nullable}
		switch {
		case strings.HasPrefix(target, "DECIMAL"):
			if p, s, ok := decimalTypeParams(target); ok {
				t.known, t.kind, t.p, t.s = true, "decimal", p, s
			}
		case target == "SIGNED":
			t.known, t.kind = true, "bigint"
		case target == "UNSIGNED":
			t.known, t.kind = true, "ubigint"
		case target == "DOUBLE":
			t.known, t.kind = true, "double"
		case strings.HasPrefix(target, "CHAR"):
		default:
			t.nullKnow, t.nullable = true, true // a bad DATE, TIME, JSON ... is NULL
		}
		return t
	case name == "coalesce" || name == "ifnull":
		t := ctasType{nullKnow: true, nullable: true}
		for _, a := range n.Args {
			x := sc.derive(a)
			if !x.nullKnow {
				return ctasType{}
			}
			if !x.nullable {
				t.nullable = false
			}
		}
		return t
	case stringFuncs[name]:
		return sc.allOperands("", n.Args...)
	}
	return ctasType{}
}
