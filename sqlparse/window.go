package sqlparse

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Window is the OVER clause of a window function call. The call's Args
// hold, in order, the function's own arguments (NArgs of them), the
// PARTITION BY keys (NPartition) and the ORDER BY keys (len(Desc)), so that
// every walker of expressions (Inspect, Rewrite, the binder) sees the
// columns a window reads. A named window (OVER w, OVER (w ORDER BY ...),
// WINDOW w AS (...)) is resolved by the parser: the call carries the
// merged specification, and Name only for display.
type Window struct {
	Name       string
	NArgs      int
	NPartition int
	Desc       []bool
	Frame      *Frame // nil: the default frame
}

// Frame is ROWS|RANGE BETWEEN Start AND End.
type Frame struct {
	Rows       bool // ROWS (else RANGE)
	Start, End FrameBound
}

// BoundKind is a frame bound's kind.
type BoundKind int

const (
	UnboundedPreceding BoundKind = iota + 1
	Preceding                    // Offset PRECEDING
	CurrentRow
	Following // Offset FOLLOWING
	UnboundedFollowing
)

// FrameBound is one end of a frame; Offset is set for Preceding and
// Following (a constant expression).
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
}

// GroupConcat holds what GROUP_CONCAT adds to an aggregate call: its Args
// are NArgs values then len(Desc) ORDER BY keys.
type GroupConcat struct {
	NArgs     int
	Desc      []bool
	Separator string
}

// WindowArgs splits a window call's Args into the function's arguments,
// the partition keys and the order keys.
func (e *FuncCall) WindowArgs() (args, partition, order []Expr) {
	w := e.Over
	return e.Args[:w.NArgs], e.Args[w.NArgs : w.NArgs+w.NPartition], e.Args[w.NArgs+w.NPartition:]
}

// ConcatArgs splits a GROUP_CONCAT call's Args into values and order keys.
func (e *FuncCall) ConcatArgs() (values, order []Expr) {
	return e.Args[:e.Concat.NArgs], e.Args[e.Concat.NArgs:]
}

func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		return b.Offset.String() + " PRECEDING"
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		return b.Offset.String() + " FOLLOWING"
	}
	return "UNBOUNDED FOLLOWING"
}

// writeOrder appends `ORDER BY k [DESC], ...`.
func writeOrder(b *strings.Builder, keys []Expr, desc []bool) {
	b.WriteString("ORDER BY ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, k)
		if desc[i] {
			b.WriteString(" DESC")
		}
	}
}

// writeWindowCall renders a window or GROUP_CONCAT call.
func writeWindowCall(b *strings.Builder, n *FuncCall) {
	if n.Concat != nil {
		vals, order := n.ConcatArgs()
		b.WriteString("GROUP_CONCAT(")
		if n.Distinct {
			b.WriteString("DISTINCT ")
		}
		writeExprs(b, vals, ", ")
		if len(order) > 0 {
			b.WriteByte(' ')
			writeOrder(b, order, n.Concat.Desc)
		}
		b.WriteString(" SEPARATOR ")
		b.WriteString(QuoteString(n.Concat.Separator))
		b.WriteByte(')')
		return
	}
	args, part, order := n.WindowArgs()
	b.WriteString(strings.ToUpper(n.Name))
	switch {
	case n.Star:
		b.WriteString("(*)")
	case n.Distinct:
		b.WriteString("(DISTINCT ")
		writeExprs(b, args, ", ")
		b.WriteByte(')')
	default:
		b.WriteByte('(')
		writeExprs(b, args, ", ")
		b.WriteByte(')')
	}
	b.WriteString(" OVER (")
	sp := false
	space := func() {
		if sp {
			b.WriteByte(' ')
		}
		sp = true
	}
	if len(part) > 0 {
		space()
		b.WriteString("PARTITION BY ")
		writeExprs(b, part, ", ")
	}
	if len(order) > 0 {
		space()
		writeOrder(b, order, n.Over.Desc)
	}
	if f := n.Over.Frame; f != nil {
		space()
		if f.Rows {
			b.WriteString("ROWS")
		} else {
			b.WriteString("RANGE")
		}
		b.WriteString(" BETWEEN " + f.Start.String() + " AND " + f.End.String())
	}
	b.WriteByte(')')
}

// windowSpecs maps the names of a SELECT's WINDOW clause to their
// specifications.
type windowSpecs map[string]*ast.WindowSpec

// resolveSpec merges a window specification with the named window it
// references (MySQL: the reference supplies PARTITION BY and ORDER BY, the
// referencing spec may add ORDER BY if the named one has none, and a
// frame).
func (c *converter) resolveSpec(n ast.Node, spec ast.WindowSpec, depth int) (ast.WindowSpec, error) {
	ref := spec.Ref.L
	if spec.OnlyAlias || (ref == "" && spec.Name.L != "" && spec.PartitionBy == nil && spec.OrderBy == nil && spec.Frame == nil) {
		ref = spec.Name.L
	}
	if ref == "" {
		return spec, nil
	}
	named, ok := c.windows[ref]
	if !ok || depth > 16 {
		return spec, c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrSyntax, "window name '"+ref+"' is not defined (MySQL error 3579)")
	}
	base, err := c.resolveSpec(n, *named, depth+1)
	if err != nil {
		return spec, err
	}
	out := base
	out.Name, out.Ref, out.OnlyAlias = ast.CIStr{}, ast.CIStr{}, false
	if spec.PartitionBy != nil && !spec.OnlyAlias && spec.Ref.L != "" {
		return spec, c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrSyntax, "a window referencing '"+ref+"' cannot have PARTITION BY (MySQL error 3581)")
	}
	if spec.OrderBy != nil && spec.Ref.L != "" {
		if base.OrderBy != nil {
			return spec, c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrSyntax, "a window referencing '"+ref+"' with ORDER BY cannot add ORDER BY (MySQL error 3582)")
		}
		out.OrderBy = spec.OrderBy
	}
	if spec.Frame != nil && spec.Ref.L != "" {
		if base.Frame != nil {
			return spec, c.sc.errAt(c.m.toOrig(n.OriginTextPosition()), ErrSyntax, "window '"+ref+"' has a frame: it cannot be inherited (MySQL error 3583)")
		}
		out.Frame = spec.Frame
	}
	return out, nil
}

// windowFunc converts a window function call.
func (c *converter) windowFunc(n *ast.WindowFuncExpr) (Expr, error) {
	if n.IgnoreNull || n.FromLast {
		return nil, c.notSupportedAt(n, "IGNORE NULLS / FROM LAST in window functions")
	}
	spec, err := c.resolveSpec(n, n.Spec, 0)
	if err != nil {
		return nil, err
	}
	name := strings.ToUpper(n.Name)
	f := &FuncCall{exprPos: c.exprPos(n), Name: name, Distinct: n.Distinct, Args: []Expr{}, Over: &Window{}}
	if spec.OnlyAlias || n.Spec.Ref.L != "" {
		f.Over.Name = n.Spec.Name.O
		if n.Spec.Ref.L != "" {
			f.Over.Name = n.Spec.Ref.O
		}
	}
	if name == "COUNT" && c.starAt(n.OriginTextPosition()) {
		f.Star = true
	} else {
		for _, a := range n.Args {
			v, err := c.expr(a)
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, v)
		}
	}
	f.Over.NArgs = len(f.Args)
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			v, err := c.byItem(it)
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, v)
			f.Over.NPartition++
		}
	}
	if spec.OrderBy != nil {
		for _, it := range spec.OrderBy.Items {
			v, err := c.byItem(it)
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, v)
			f.Over.Desc = append(f.Over.Desc, it.Desc)
		}
	}
	if fr := spec.Frame; fr != nil {
		out := &Frame{Rows: fr.Type == ast.Rows}
		for i, b := range []ast.FrameBound{fr.Extent.Start, fr.Extent.End} {
			var fb FrameBound
			switch {
			case b.Type == ast.CurrentRow:
				fb.Kind = CurrentRow
			case b.UnBounded && b.Type == ast.Preceding:
				fb.Kind = UnboundedPreceding
			case b.UnBounded:
				fb.Kind = UnboundedFollowing
			default:
				if b.Unit != ast.TimeUnitInvalid {
					return nil, c.notSupportedAt(n, "RANGE frames with INTERVAL bounds")
				}
				v, err := c.expr(b.Expr)
				if err != nil {
					return nil, err
				}
				fb.Offset = v
				fb.Kind = Preceding
				if b.Type == ast.Following {
					fb.Kind = Following
				}
			}
			if i == 0 {
				out.Start = fb
			} else {
				out.End = fb
			}
		}
		f.Over.Frame = out
	}
	return f, nil
}

// groupConcat converts GROUP_CONCAT([DISTINCT] x, ... [ORDER BY ...]
// [SEPARATOR 's']); TiDB keeps the separator as the last argument.
func (c *converter) groupConcat(n *ast.AggregateFuncExpr) (Expr, error) {
	f := &FuncCall{exprPos: c.exprPos(n), Name: "GROUP_CONCAT", Aggregate: true, Distinct: n.Distinct, Args: []Expr{}, Concat: &GroupConcat{Separator: ","}}
	args := n.Args
	if len(args) > 0 {
		if v, ok := args[len(args)-1].(ast.ValueExpr); ok {
			if s, ok := v.GetValue().(string); ok {
				f.Concat.Separator = s
				args = args[:len(args)-1]
			}
		}
	}
	for _, a := range args {
		v, err := c.expr(a)
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, v)
	}
	f.Concat.NArgs = len(f.Args)
	if n.Order != nil {
		for _, it := range n.Order.Items {
			v, err := c.byItem(it)
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, v)
			f.Concat.Desc = append(f.Concat.Desc, it.Desc)
		}
	}
	return f, nil
}
