package sqlparse

// Rewrite rebuilds the expression tree rooted at e bottom-up: every node
// with children (operators, function calls, and the nodes holding a
// subquery) is copied, its children first rewritten, and f is then called
// on the copy, in post-order; f's result replaces the node (return the
// argument to keep it). Leaves (*ColumnRef, *Literal, *Param, *Variable,
// *Default, *ColumnPosition) are not copied: f sees the original and may
// return a new node. The input tree is never modified, so a rewrite can
// run on a tree other plans still hold.
//
// Like Inspect, Rewrite does not enter the *Select of a subquery (its names
// belong to another scope): f receives the copied *Subquery, *Exists,
// *Quantified or *InList, whose Select it may replace (RewriteSelect does
// that for every nested query). A nil e yields nil without calling f.
func Rewrite(e Expr, f func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	switch n := e.(type) {
	case *Paren:
		c := *n
		c.X = Rewrite(n.X, f)
		return f(&c)
	case *Unary:
		c := *n
		c.X = Rewrite(n.X, f)
		return f(&c)
	case *Binary:
		c := *n
		c.L, c.R = Rewrite(n.L, f), Rewrite(n.R, f)
		return f(&c)
	case *IsNull:
		c := *n
		c.X = Rewrite(n.X, f)
		return f(&c)
	case *IsTruth:
		c := *n
		c.X = Rewrite(n.X, f)
		return f(&c)
	case *InList:
		c := *n
		c.X = Rewrite(n.X, f)
		c.List = rewriteList(n.List, f)
		return f(&c)
	case *Between:
		c := *n
		c.X, c.Lo, c.Hi = Rewrite(n.X, f), Rewrite(n.Lo, f), Rewrite(n.Hi, f)
		return f(&c)
	case *Like:
		c := *n
		c.X, c.Pattern = Rewrite(n.X, f), Rewrite(n.Pattern, f)
		return f(&c)
	case *Regexp:
		c := *n
		c.X, c.Pattern = Rewrite(n.X, f), Rewrite(n.Pattern, f)
		return f(&c)
	case *FuncCall:
		c := *n
		c.Args = rewriteList(n.Args, f)
		return f(&c)
	case *Subquery:
		c := *n
		return f(&c)
	case *Exists:
		c := *n
		return f(&c)
	case *Quantified:
		c := *n
		c.X = Rewrite(n.X, f)
		return f(&c)
	}
	return f(e)
}

func rewriteList(es []Expr, f func(Expr) Expr) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, x := range es {
		out[i] = Rewrite(x, f)
	}
	return out
}

// RewriteSelect copies q with f applied (by Rewrite) to every expression of
// q and of every query nested in it: select items, FROM (derived tables and
// ON conditions), WHERE, GROUP BY, HAVING, ORDER BY, set operands and the
// bodies of subqueries. LIMIT is copied as is. q is not modified; a nil q
// yields nil.
func RewriteSelect(q *Select, f func(Expr) Expr) *Select {
	if q == nil {
		return nil
	}
	g := intoSubqueries(f)
	c := *q
	c.Items = make([]SelectItem, len(q.Items))
	for i, it := range q.Items {
		it.Expr = Rewrite(it.Expr, g)
		c.Items[i] = it
	}
	c.From = rewriteFrom(q.From, f)
	c.Where = Rewrite(q.Where, g)
	c.Having = Rewrite(q.Having, g)
	c.GroupBy = rewriteList(q.GroupBy, g)
	c.OrderBy = make([]OrderItem, len(q.OrderBy))
	for i, o := range q.OrderBy {
		o.Expr = Rewrite(o.Expr, g)
		c.OrderBy[i] = o
	}
	if q.With != nil {
		c.With = make([]CTE, len(q.With))
		for i, w := range q.With {
			w.Select = RewriteSelect(w.Select, f)
			c.With[i] = w
		}
	}
	c.SetOps = make([]SetOperand, len(q.SetOps))
	for i, op := range q.SetOps {
		op.Select = RewriteSelect(op.Select, f)
		c.SetOps[i] = op
	}
	return &c
}

// rewriteFrom copies a FROM clause for RewriteSelect.
func rewriteFrom(fi FromItem, f func(Expr) Expr) FromItem {
	switch n := fi.(type) {
	case *TableSource:
		c := *n
		c.Subquery = RewriteSelect(n.Subquery, f)
		return &c
	case *Join:
		c := *n
		c.Left, c.Right = rewriteFrom(n.Left, f), rewriteFrom(n.Right, f)
		c.On = Rewrite(n.On, intoSubqueries(f))
		return &c
	}
	return fi
}

// intoSubqueries extends f to rewrite the queries nested in the
// (already copied) subquery nodes Rewrite hands it.
func intoSubqueries(f func(Expr) Expr) func(Expr) Expr {
	return func(e Expr) Expr {
		switch n := e.(type) {
		case *Subquery:
			n.Select = RewriteSelect(n.Select, f)
		case *Exists:
			n.Select = RewriteSelect(n.Select, f)
		case *Quantified:
			n.Select = RewriteSelect(n.Select, f)
		case *InList:
			n.Subquery = RewriteSelect(n.Subquery, f)
		}
		return f(e)
	}
}
