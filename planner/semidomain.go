package planner

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Outer key domains of correlated EXISTS subqueries (semi and anti
// joins) and of correlated scalar aggregates (see domainKeys). A WHERE conjunct EXISTS (SELECT ... FROM t WHERE t.k = outer.c
// AND ...) is answered from one decorrelated run (decorrelate.go) that
// hashed every qualifying row of t by k: at TPC-H SF 1, Q4's EXISTS over
// lineitem hashed 3.8 million rows (1.5 million keys) for 57,000 orders,
// and Q21's EXISTS and NOT EXISTS held two tables of lineitem's 1.5
// million order keys (965 MiB RSS) for ~75,000 joined rows.
//
// Such a Filter (plan.Filter.OuterKeys) first evaluates its other
// conjuncts, then reads all the rows that pass them into memory, within a
// share of the query's memory budget, and collects each subquery's outer
// key values (outer.c, an integer column) from them. The decorrelated
// run's scan of t then keeps only the rows whose k is one of those values
// (a key filter, as a hash join's build keys filter its probe side's
// scan, keyfilter.go), so its table holds the keys that can be asked for.
//
// The answers are the same: every row the subquery is asked about is one
// of the rows read, so its outer value is in the domain, and every inner
// row the correlation t.k = v keeps for such a v passes the key filter. A
// NULL outer value matches nothing with or without the filter (EXISTS is
// FALSE, NOT EXISTS TRUE), and a NULL k is in no domain. The other
// conjuncts are evaluated before the subqueries rather than in their
// written order, which only spares subquery runs for rows they drop. When
// the rows do not fit the share of the budget, the Filter streams them as
// before and the decorrelation reads t whole; an outer value outside the
// domain (a plan run again over other rows) runs the subquery per value.

// semiDomains turns the outer key domains on (tests compare the answers
// without them).
var semiDomains = true

// semiDomainShare is the part of the query's memory budget (1/n) the
// Filter's buffered rows may take.
const semiDomainShare = 4

// domainKeyRef is a subquery's correlation key an outer key domain can
// serve: the outer reference (its index in subquery.outer).
type domainKeyRef struct {
	sq    *subquery
	outer int
}

// domainConjuncts splits cond's conjuncts into those holding a correlated
// EXISTS an outer key domain can serve (with) and the others (rest), and
// lists the keys; keys is empty when none can be served.
func domainConjuncts(cond sqlparse.Expr, env *rowEnv) (rest, with []sqlparse.Expr, keys []domainKeyRef) {
	if !semiDomains || env == nil || len(env.subq) == 0 {
		return nil, nil, nil
	}
	for _, c := range plan.Conjuncts(cond) {
		var found []domainKeyRef
		sqlparse.Inspect(c, func(n sqlparse.Expr) bool {
			switch x := n.(type) {
			case *sqlparse.Exists, *sqlparse.Subquery:
				if sq, ok := env.subq[x]; ok {
					found = append(found, domainKeys(sq, env)...)
				}
				return false
			}
			return true
		})
		if len(found) == 0 {
			rest = append(rest, c)
			continue
		}
		with = append(with, c)
		keys = append(keys, found...)
	}
	return rest, with, keys
}

// domainKeys lists the outer references of the correlated EXISTS or
// scalar subquery sq that are one side of an equality with a column of its
// one table (sq.q's top-level conjunct inner = outer) and name an integer
// column of env. A scalar one's decorrelated run is a GROUP BY of the
// inner keys (TPC-H Q17's AVG(l_quantity) per l_partkey, Q20's SUM per
// (l_partkey, l_suppkey)): with the domains it aggregates only the inner
// rows of the keys asked for (at SF 1, Q17's ~2,000 part keys instead of
// a hash probe of all 6 million lineitem rows).
func domainKeys(sq *subquery, env *rowEnv) []domainKeyRef {
	if (sq.kind != subExists && sq.kind != subScalar) || len(sq.outer) == 0 || sq.outerExprs != nil || oneTable(sq.q) == nil {
		return nil
	}
	var out []domainKeyRef
	for _, c := range plan.Conjuncts(sq.q.Where) {
		b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || b.Op != sqlparse.OpEQ {
			continue
		}
		for i, r := range sq.outer {
			var other sqlparse.Expr
			switch {
			case sqlparse.StripParens(b.L) == sqlparse.Expr(r):
				other = b.R
			case sqlparse.StripParens(b.R) == sqlparse.Expr(r):
				other = b.L
			default:
				continue
			}
			if _, ok := sqlparse.StripParens(other).(*sqlparse.ColumnRef); !ok || isOuterRef(sq, other) {
				continue
			}
			col, err := env.column(r)
			if err != nil || !isIntegerColumn(env.cols[col]) {
				continue
			}
			out = append(out, domainKeyRef{sq: sq, outer: i})
		}
	}
	return out
}

// isOuterRef reports whether e is one of sq's outer references.
func isOuterRef(sq *subquery, e sqlparse.Expr) bool {
	for _, r := range sq.outer {
		if sqlparse.StripParens(e) == sqlparse.Expr(r) {
			return true
		}
	}
	return false
}

// domainKeyKinds names the kinds of subqueries the keys serve for
// EXPLAIN.
func domainKeyKinds(keys []domainKeyRef) string {
	exists, scalar := false, false
	for _, k := range keys {
		if k.sq.kind == subExists {
			exists = true
		} else {
			scalar = true
		}
	}
	switch {
	case exists && scalar:
		return "EXISTS semi/anti joins and scalar subqueries"
	case scalar:
		return "scalar subqueries"
	}
	return "EXISTS semi/anti joins"
}

// domainKeyNames names the keys for EXPLAIN.
func domainKeyNames(keys []domainKeyRef) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		s := k.sq.outer[k.outer].String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// keyDomainOp reads all the rows of in (within limit bytes) before it
// returns the first, gives each key's subquery the set of its outer
// values in them, then returns them.
type keyDomainOp struct {
	in      exec.Operator
	env     *rowEnv
	keys    []domainKeyRef
	budget  *exec.Budget
	limit   int64
	started bool
	buf     [][]any
	pos     int
	held    int64 // bytes charged to budget for buf
	inDone  bool  // in returned io.EOF while buf was filled
	err     error
}

func (o *keyDomainOp) Next(ctx context.Context) ([][]any, error) {
	if o.err != nil {
		return nil, o.err
	}
	if !o.started {
		o.started = true
		if err := o.prefetch(ctx); err != nil {
			o.err = err
			o.drop()
			return nil, err
		}
	}
	if o.pos < len(o.buf) {
		end := min(o.pos+exec.BatchSize, len(o.buf))
		b := o.buf[o.pos:end:end]
		o.pos = end
		return b, nil
	}
	o.drop()
	if o.inDone {
		o.err = io.EOF
		return nil, io.EOF
	}
	b, err := o.in.Next(ctx)
	if err != nil {
		o.err = err
	}
	return b, err
}

// drop releases the buffered rows (the consumer holds those it keeps).
func (o *keyDomainOp) drop() {
	o.buf, o.pos = nil, 0
	if o.budget != nil && o.held > 0 {
		o.budget.Release(o.held)
	}
	o.held = 0
}

// prefetch fills buf; when it holds all of in's rows, it sets the
// subqueries' outer key domains.
func (o *keyDomainOp) prefetch(ctx context.Context) error {
	for {
		batch, err := o.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			o.inDone = true
			break
		}
		if err != nil {
			return err
		}
		fits := true
		for _, r := range batch {
			if !fits {
				o.buf = append(o.buf, r)
				continue
			}
			n := exec.RowBytes(r)
			if o.held+n > o.limit {
				fits = false
			} else if o.budget != nil {
				if o.budget.Grow("semi join outer keys", n) != nil {
					o.budget.Release(n)
					fits = false
				} else {
					o.held += n
				}
			}
			o.buf = append(o.buf, r)
		}
		if !fits {
			return nil // too many rows: the subqueries read their tables whole
		}
	}
	for _, k := range o.keys {
		k.sq.setDomain(k.outer, o.domain(k))
	}
	return nil
}

// domain is the set of the buffered rows' values of k's outer reference
// (nil when one is not an integer).
func (o *keyDomainOp) domain(k domainKeyRef) map[int64]struct{} {
	if k.sq.decorTried {
		return nil // decorrelated already (an earlier run of the plan)
	}
	ref := k.sq.outer[k.outer]
	set := map[int64]struct{}{}
	for _, r := range o.buf {
		v, err := o.env.eval(ref, r)
		if err != nil {
			return nil
		}
		switch x := v.(type) {
		case nil: // matches nothing
		case int64:
			set[x] = struct{}{}
		default:
			return nil
		}
	}
	return set
}

func (o *keyDomainOp) Start(ctx context.Context) error { return exec.Start(ctx, o.in) }

func (o *keyDomainOp) Close() error {
	o.drop()
	if o.err == nil {
		o.err = io.EOF
	}
	return o.in.Close()
}

// setDomain records the outer values of outer reference i (nil: unknown).
func (sq *subquery) setDomain(i int, set map[int64]struct{}) {
	if set == nil || sq.decorTried {
		return
	}
	if sq.domains == nil {
		sq.domains = map[int]map[int64]struct{}{}
	}
	sq.domains[i] = set
}

// domainFilters are the key filters of the decorrelated run of sq: for
// each key (inner keysInner[k] = outer reference d.keyOuter[k]) with a
// domain, on the inner column; d records the domains it relies on.
func (sq *subquery) domainFilters(ctx context.Context, d *decorrelation, keysInner []sqlparse.Expr) []tableKeyFilter {
	if len(sq.domains) == 0 {
		return nil
	}
	ts := oneTable(sq.q)
	if ts == nil {
		return nil
	}
	id, err := sq.sess.tableIdent(ts.Table)
	if err != nil {
		return nil
	}
	t, err := sq.sess.newSourceTable(ctx, &sqlparse.TableSource{Table: ts.Table, Alias: ts.Alias})
	if err != nil || t.dataset(ctx) == nil {
		return nil
	}
	var out []tableKeyFilter
	for k, o := range d.keyOuter {
		set := sq.domains[o]
		ref, ok := sqlparse.StripParens(keysInner[k]).(*sqlparse.ColumnRef)
		if set == nil || !ok || !t.intColumnNamed(ref, ts) {
			continue
		}
		name := ""
		for _, c := range t.cols {
			if strings.EqualFold(c.Name, ref.Column) {
				name = c.Name
				break
			}
		}
		out = append(out, tableKeyFilter{table: displayName(id), column: name, filter: exec.PublishedKeyFilter(set)})
		d.domains = append(d.domains, keyDomain{outer: o, set: set})
	}
	return out
}

// keyDomain is an outer key domain a decorrelation's table was read
// within: it answers only outer values in set.
type keyDomain struct {
	outer int // index in subquery.outer
	set   map[int64]struct{}
}

// inDomains reports whether the outer values vals are in every domain d
// was read within (a NULL is: it matches nothing either way).
func (d *decorrelation) inDomains(vals []any) bool {
	for _, dom := range d.domains {
		switch v := vals[dom.outer].(type) {
		case nil:
		case int64:
			if _, ok := dom.set[v]; !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// domainFilter builds the Filter f whose EXISTS conjuncts get outer key
// domains: its other conjuncts (over a table's scan: filtered as it is
// read), the rows read ahead, then the EXISTS conjuncts. ok is false when
// f has no such conjuncts (build makes the plain Filter).
func (t *treePlan) domainFilter(ctx context.Context, f *plan.Filter, budget *exec.Budget) (exec.Operator, bool, error) {
	env := t.envs[f]
	rest, with, keys := domainConjuncts(f.Cond, env)
	if len(keys) == 0 {
		return nil, false, nil
	}
	var in exec.Operator
	var err error
	if src, ok := f.Input.(*plan.Source); ok && t.filteredSource(f, src) {
		in, err = src.Table.(*dataSource).filteredScan(ctx, plan.And(rest))
	} else {
		in, err = t.build(ctx, f.Input, budget)
		if err == nil && len(rest) > 0 {
			restCond := plan.And(rest)
			in = exec.Filter(in, func(row []any) (bool, error) { return env.matches(restCond, row) })
		}
	}
	if err != nil {
		return nil, true, err
	}
	limit := t.s.joinBudget() / semiDomainShare
	in = &keyDomainOp{in: in, env: env, keys: keys, budget: budget, limit: limit}
	withCond := plan.And(with)
	return exec.Filter(in, func(row []any) (bool, error) { return env.matches(withCond, row) }), true, nil
}
