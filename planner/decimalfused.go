package planner

import (
	"math"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Fused exact-decimal arithmetic. A tree of +, - and * over DECIMAL and
// BIGINT columns and numeric literals (TPC-H Q1's l_extendedprice * (1 -
// l_discount) * (1 + l_tax)) is computed on int64 unscaled values end to
// end: the node-by-node path printed every intermediate result as decimal
// text and parsed it back in the next node, and boxing those strings was
// a fifth of Q1's CPU. Only the root's value is printed. Each node follows
// smallDecimalArithmetic's rules (scale of + and - the larger one, of *
// the sum; overflow, a scale past maxDecimalScale, an operand that is not
// an int64 or small DECIMAL, or integers on both sides) and anything it
// does not take sends the whole row to the node-by-node path, so results,
// errors and warnings are that path's.

// fuseDecimals turns the fused path on; tests turn it off for the
// node-by-node answers they compare it with.
var fuseDecimals = true

// smallNum is an exact value on the fused path: unscaled / 10^scale; dec
// tells a DECIMAL from a BIGINT.
type smallNum struct {
	u     int64
	scale int
	dec   bool
}

// smallState is a fused evaluation's outcome.
type smallState int8

const (
	smallOK   smallState = iota
	smallNull            // SQL NULL
	smallNo              // not on the fused path: evaluate node by node
)

type smallFn func(row []any) (smallNum, smallState)

// smallOf reads a leaf value.
func smallOf(v any) (smallNum, smallState) {
	switch x := v.(type) {
	case nil:
		return smallNum{}, smallNull
	case int64:
		return smallNum{u: x}, smallOK
	case sqltypes.Decimal:
		if u, s, ok := parseSmallDecimal(string(x)); ok {
			return smallNum{u: u, scale: s, dec: true}, smallOK
		}
	}
	return smallNum{}, smallNo
}

// maxFusedNodes bounds the tree one fused evaluation covers. Every
// arithmetic node of a tree tries the fused path over its own subtree (its
// parent's may fall back to it node by node), so without a bound a chain of
// n terms ran n^2/2 nodes per row when it fell back (a 9,999-term 1+1+...
// took 7 GB). TPC-H's trees have under ten nodes.
const maxFusedNodes = 64

// smallCompiled is compileSmall's answer for one node, kept per node so
// that each arithmetic node of a tree (every one tries the fused path over
// its subtree) reuses its children's instead of walking them again.
type smallCompiled struct {
	fn    smallFn
	dec   bool
	nodes int
}

// compileSmall is e on the fused path, or nil when e's shape is not one
// it takes or it has more than maxFusedNodes nodes; dec reports a DECIMAL
// leaf (without one every node is BIGINT arithmetic, which the path never
// takes).
func (env *rowEnv) compileSmall(e sqlparse.Expr) (smallFn, bool) {
	c := env.smallOf(e)
	return c.fn, c.dec
}

func (env *rowEnv) smallOf(e sqlparse.Expr) smallCompiled {
	if c, ok := env.small[e]; ok {
		return c
	}
	c := env.compileSmallNode(e)
	if c.nodes > maxFusedNodes {
		c.fn = nil
	}
	if env.small == nil {
		env.small = map[sqlparse.Expr]smallCompiled{}
	}
	env.small[e] = c
	return c
}

func (env *rowEnv) compileSmallNode(e sqlparse.Expr) smallCompiled {
	switch n := e.(type) {
	case *sqlparse.Paren:
		c := env.smallOf(n.X)
		c.nodes++
		return c
	case *sqlparse.ColumnRef:
		i, err := env.column(n)
		if err != nil {
			return smallCompiled{nodes: 1}
		}
		if decimalColumn(env, n) {
			// A DECIMAL column's values are its text (exactOperand).
			return smallCompiled{fn: func(row []any) (smallNum, smallState) {
				if s, ok := row[i].(string); ok {
					if u, sc, ok := parseSmallDecimal(s); ok {
						return smallNum{u: u, scale: sc, dec: true}, smallOK
					}
					return smallNum{}, smallNo
				}
				return smallOf(row[i])
			}, dec: true, nodes: 1}
		}
		return smallCompiled{fn: func(row []any) (smallNum, smallState) { return smallOf(row[i]) }, nodes: 1}
	case *sqlparse.Literal:
		if n.Kind != sqlparse.LitInt && n.Kind != sqlparse.LitDecimal {
			return smallCompiled{nodes: 1}
		}
		v, err := env.compile(n)(nil)
		if err != nil {
			return smallCompiled{nodes: 1}
		}
		c, st := smallOf(v)
		if st != smallOK {
			return smallCompiled{nodes: 1}
		}
		return smallCompiled{fn: func([]any) (smallNum, smallState) { return c, smallOK }, dec: c.dec, nodes: 1}
	case *sqlparse.Binary:
		if n.Op != sqlparse.OpAdd && n.Op != sqlparse.OpSub && n.Op != sqlparse.OpMul {
			return smallCompiled{nodes: 1}
		}
		lc, rc := env.smallOf(n.L), env.smallOf(n.R)
		out := smallCompiled{dec: lc.dec || rc.dec, nodes: lc.nodes + rc.nodes + 1}
		l, r := lc.fn, rc.fn
		if l == nil || r == nil || out.nodes > maxFusedNodes {
			return out
		}
		op := n.Op
		out.fn = func(row []any) (smallNum, smallState) {
			a, as := l(row)
			if as == smallNo {
				return a, as
			}
			b, bs := r(row)
			if bs != smallOK || as != smallOK {
				return b, max(as, bs)
			}
			return smallArith(op, a, b)
		}
		return out
	}
	return smallCompiled{nodes: 1}
}

// smallArith is a op b by smallDecimalArithmetic's rules, smallNo when it
// would take another path.
func smallArith(op sqlparse.BinaryOp, a, b smallNum) (smallNum, smallState) {
	if !a.dec && !b.dec {
		return smallNum{}, smallNo // BIGINT arithmetic: its own overflow errors
	}
	var z int64
	var zs int
	switch op {
	case sqlparse.OpAdd, sqlparse.OpSub:
		zs = max(a.scale, b.scale)
		x, ok1 := rescaleSmall(a.u, a.scale, zs)
		y, ok2 := rescaleSmall(b.u, b.scale, zs)
		if !ok1 || !ok2 {
			return smallNum{}, smallNo
		}
		var overflow bool
		if op == sqlparse.OpAdd {
			z = x + y
			overflow = (x >= 0) == (y >= 0) && (z >= 0) != (x >= 0)
		} else {
			z = x - y
			overflow = (x >= 0) != (y >= 0) && (z >= 0) != (x >= 0)
		}
		if overflow {
			return smallNum{}, smallNo
		}
	default: // OpMul
		zs = a.scale + b.scale
		if zs > maxDecimalScale {
			return smallNum{}, smallNo
		}
		var ok bool
		if z, ok = mulSmall(a.u, b.u); !ok {
			return smallNum{}, smallNo
		}
	}
	if z == math.MinInt64 {
		return smallNum{}, smallNo
	}
	return smallNum{u: z, scale: zs, dec: true}, smallOK
}

// fusedArithmetic wraps the node-by-node evaluation of arithmetic node n
// with the fused path when n's tree has one (generic otherwise).
func (env *rowEnv) fusedArithmetic(n *sqlparse.Binary, generic evalFn) evalFn {
	if !fuseDecimals {
		return generic
	}
	sf, dec := env.compileSmall(n)
	if sf == nil || !dec {
		return generic
	}
	return func(row []any) (any, error) {
		v, st := sf(row)
		switch st {
		case smallOK:
			var buf [24]byte
			return sqltypes.Decimal(sqltypes.AppendDecimalText(buf[:0], v.u, v.scale)), nil
		case smallNull:
			return nil, nil
		}
		return generic(row)
	}
}
