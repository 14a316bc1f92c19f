package planner

import (
	"errors"
	"io"
	"strings"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// Decorrelation: a correlated subquery that has run for decorrelateAfter
// distinct outer values is answered by one run of a rewritten,
// uncorrelated query whose rows are kept in a hash table by the
// correlation keys, when its shape allows:
//
//   - EXISTS (SELECT ... FROM ... WHERE inner = outer AND ... [AND
//     inner2 <> outer2]) without GROUP BY, HAVING, aggregates or LIMIT: a
//     semi join (NOT EXISTS: an anti join). The rewritten query is SELECT
//     DISTINCT inner, inner2 ... WHERE <the uncorrelated conjuncts>; per
//     key at most two distinct values of inner2 are kept, enough to answer
//     "some row's inner2 differs from outer2" (TPC-H Q21).
//   - A scalar aggregate (SELECT agg-expr FROM ... WHERE inner = outer AND
//     ...) without GROUP BY, HAVING or LIMIT: a grouped join. The rewritten
//     query is SELECT inner, agg-expr ... GROUP BY inner; an outer value no
//     group has gets the aggregate over no rows (the planned query with the
//     outer references as NULL, which matches nothing).
//
// The hash table is bounded by its estimated bytes within
// Options.JoinMemory (at least Options.MaxRows entries), not by
// Options.MaxRows alone: at TPC-H SF 1, Q4's and Q21's EXISTS over
// lineitem have about 1.5 million keys, and past a row bound the
// subquery fell back to a lineitem scan per outer row (Q4 ran for more
// than 45 minutes).
//
// Every outer reference must be one side of such an equality (or the one
// inequality) in the subquery's top-level WHERE conjuncts, and the two
// sides of the same type class (the hash join's keys: numbers, strings,
// times, bytes). Otherwise, or when the rewritten query fails to plan or
// run, or its rows pass Options.MaxRows, the subquery keeps running per
// outer value (subquery.go). The first distinct values run per value (with
// few outer rows an indexed lookup per value is cheaper than reading the
// inner table whole): decorrelation starts after decorrelateAfter runs, or
// after decorrelateEarly runs when each run reads decorrelateEarlyRows
// rows or more (TPC-H Q20's per-value runs scan lineitem), or after one run
// when it reads decorrelateOneRows or more (at SF 1 each of Q21's
// per-value EXISTS runs reads lineitem's 6 million rows, ~6 s of CPU, and
// four of them cost more than the one run that answers all). The rows a
// run reads are estimated from its tables' row counts (runRows), not
// measured by time, so the plan does not depend on the machine's load;
// the answers are the same either way.
const (
	decorrelateAfter     = 32
	decorrelateEarly     = 4
	decorrelateEarlyRows = 100_000
	decorrelateOneRows   = 1_000_000
)

func (sq *subquery) shouldDecorrelate() bool {
	// With an outer key domain the one run reads only the rows of the
	// keys asked for: no cheaper than a run per value only for a few.
	for _, set := range sq.domains {
		if len(set) > decorrelateAfter {
			return true
		}
	}
	if sq.runs >= decorrelateAfter {
		return true
	}
	if sq.runs < 1 {
		return false
	}
	rows := sq.runRows()
	return rows >= decorrelateOneRows || (sq.runs >= decorrelateEarly && rows >= decorrelateEarlyRows)
}

// runRows estimates the rows one run per outer value reads (computed
// once): the row counts of the plain tables in its FROM, but none for a
// table whose column is compared with an outer reference and has an index
// that answers the comparison (the run looks the value up). A table of
// unknown size (a derived table, a view, AS OF) counts as none: such a
// subquery decorrelates after decorrelateAfter runs, as before any rule.
func (sq *subquery) runRows() int64 {
	if sq.runRowsDone {
		return sq.runRowsEst
	}
	sq.runRowsDone = true
	if sq.q == nil || len(sq.q.SetOps) > 0 || len(sq.q.With) > 0 {
		return 0
	}
	var outerCompared []*sqlparse.ColumnRef // inner columns compared with an outer reference
	for _, c := range plan.Conjuncts(sq.q.Where) {
		b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || b.Op != sqlparse.OpEQ {
			continue
		}
		for _, side := range [][2]sqlparse.Expr{{b.L, b.R}, {b.R, b.L}} {
			ref, ok := sqlparse.StripParens(side[0]).(*sqlparse.ColumnRef)
			if ok && !isOuterRef(sq, ref) && isOuterRef(sq, side[1]) {
				outerCompared = append(outerCompared, ref)
			}
		}
	}
	var total int64
	var walk func(f sqlparse.FromItem)
	walk = func(f sqlparse.FromItem) {
		switch x := f.(type) {
		case *sqlparse.Join:
			walk(x.Left)
			walk(x.Right)
		case *sqlparse.TableSource:
			if x.Table == nil || x.AsOf != nil {
				return
			}
			t, err := sq.sess.newSourceTable(sq.ctx, &sqlparse.TableSource{Table: x.Table, Alias: x.Alias})
			if err != nil {
				return
			}
			n, ok := t.RowCount(sq.ctx)
			if !ok {
				return
			}
			for _, ref := range outerCompared {
				if !t.namesColumn(ref, x) {
					continue
				}
				for i, c := range t.cols {
					if strings.EqualFold(c.Name, ref.Column) {
						if name, _ := t.LookupIndex(i); name != "" {
							return // an indexed lookup per value
						}
					}
				}
			}
			total += n
		}
	}
	if sq.q.From != nil {
		walk(sq.q.From)
	}
	sq.runRowsEst = total
	return total
}

// decorrelation is a correlated subquery answered from one run.
type decorrelation struct {
	keyOuter []int // for each key, its index in subquery.outer
	neOuter  int   // the inequality's outer reference (-1: none)
	table    map[string][]*decorEntry
	// ints replaces table when the one key (and the inequality's
	// operands) are integer columns, the foreign-key shape of TPC-H's
	// subqueries: entries hold no boxed values and no hash text, ~64
	// bytes a key instead of ~220, so Q21's two tables over lineitem's
	// 1.5 million order keys fit Options.JoinMemory.
	ints  map[int64]intDecorEntry
	empty subqueryResult // for an outer value that matches no inner row
	yes   subqueryResult // EXISTS: the answer of every key in the table
	// domains are the outer key domains the table was read within
	// (semidomain.go): an outer value outside one runs per value.
	domains []keyDomain
}

// intDecorEntry is an entry of decorrelation.ints.
type intDecorEntry struct {
	res *subqueryResult // scalar: the group's value; EXISTS: nil (yes)
	ne  [2]int64        // EXISTS with an inequality: distinct non-NULL values
	nne uint8           // how many of ne are set
}

// intDecorEntryBytes estimates an entry of decorrelation.ints: the map's
// slot (key, entry, control byte, load factor) and a scalar's result.
func intDecorEntryBytes(scalar bool) int64 {
	if scalar {
		return 64 + 72
	}
	return 64
}

// An entry holds only what differs between keys (the EXISTS answer is the
// same for every key, decorrelation.yes), so millions of keys stay small.
type decorEntry struct {
	key []any
	res *subqueryResult // scalar: the group's value; EXISTS: nil (yes)
	ne  []any           // EXISTS with an inequality: up to two distinct non-NULL values
}

// decorEntryBytes estimates an entry's memory with nk keys: the entry,
// its key slice and boxed values, the hash text and the map's slot.
func decorEntryBytes(nk int, scalar, ne bool) int64 {
	n := int64(64 + 24*nk + 16 + 56)
	if scalar {
		n += 72 // the subqueryResult and its boxed value
	}
	if ne {
		n += 48 // two boxed values
	}
	return n
}

// result is the entry's answer.
func (d *decorrelation) result(e *decorEntry) *subqueryResult {
	if e.res != nil {
		return e.res
	}
	return &d.yes
}

// decorrelated answers the subquery for the outer values vals from its
// decorrelation, building it on first use; ok is false when the subquery
// cannot be decorrelated (it then runs per outer value).
func (sq *subquery) decorrelated(env *rowEnv, vals []any) (*subqueryResult, bool) {
	if !sq.decorTried {
		sq.decorTried = true
		sq.decor = sq.decorrelate(env)
	}
	d := sq.decor
	if d == nil || !d.inDomains(vals) {
		return nil, false
	}
	if d.ints != nil {
		return d.intResult(vals)
	}
	key := make([]any, len(d.keyOuter))
	for i, o := range d.keyOuter {
		key[i] = vals[o]
	}
	h, ok := hashKey(key)
	if !ok {
		return &d.empty, true // a NULL key equals nothing
	}
	for _, e := range d.table[h] {
		if !sameKey(e.key, key) {
			continue
		}
		if d.neOuter < 0 {
			return d.result(e), true
		}
		v := vals[d.neOuter]
		if v == nil {
			return &d.empty, true
		}
		for _, w := range e.ne {
			if compare(w, v) != 0 {
				return d.result(e), true
			}
		}
		return &d.empty, true
	}
	return &d.empty, true
}

// intResult answers from decorrelation.ints; ok is false for an outer
// value that is not an int64 (it then runs per value).
func (d *decorrelation) intResult(vals []any) (*subqueryResult, bool) {
	v := vals[d.keyOuter[0]]
	if v == nil {
		return &d.empty, true // a NULL key equals nothing
	}
	k, ok := v.(int64)
	if !ok {
		return nil, false
	}
	e, found := d.ints[k]
	if !found {
		return &d.empty, true
	}
	if e.res != nil {
		return e.res, true
	}
	if d.neOuter < 0 {
		return &d.yes, true
	}
	w := vals[d.neOuter]
	if w == nil {
		return &d.empty, true
	}
	x, ok := w.(int64)
	if !ok {
		return nil, false
	}
	for _, y := range e.ne[:e.nne] {
		if y != x {
			return &d.yes, true
		}
	}
	return &d.empty, true
}

// isIntegerColumn reports whether c holds integers (int64 values).
func isIntegerColumn(c Column) bool {
	t := strings.ToUpper(c.DatabaseType)
	return strings.HasSuffix(t, "INT") || t == "INTEGER"
}

func sameKey(a, b []any) bool {
	for i := range a {
		if a[i] == nil || b[i] == nil || compare(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// decorrelate builds the decorrelation of sq, or returns nil when its shape
// does not allow one (see the comment above).
func (sq *subquery) decorrelate(env *rowEnv) *decorrelation {
	q := sq.q
	if sq.outerExprs != nil || (sq.kind != subExists && sq.kind != subScalar) || q == nil ||
		len(q.SetOps) > 0 || len(q.With) > 0 || q.Limit != nil || len(q.GroupBy) > 0 || q.Having != nil {
		return nil
	}
	aggregate := false
	for _, it := range q.Items {
		if it.Star {
			continue
		}
		if hasAggregate(it.Expr) {
			aggregate = true
		}
	}
	if sq.kind == subScalar && (len(q.Items) != 1 || q.Items[0].Star || !aggregate || q.Distinct) {
		return nil
	}
	if sq.kind == subExists && aggregate {
		return nil
	}
	outerAt := make(map[*sqlparse.ColumnRef]int, len(sq.outer))
	for i, r := range sq.outer {
		outerAt[r] = i
	}
	d := &decorrelation{neOuter: -1}
	var keysInner []sqlparse.Expr
	var neInner sqlparse.Expr
	var rest []sqlparse.Expr
	consumed := 0
	for _, c := range plan.Conjuncts(q.Where) {
		n := 0
		sqlparse.Inspect(c, func(e sqlparse.Expr) bool {
			if ref, ok := e.(*sqlparse.ColumnRef); ok {
				if _, ok := outerAt[ref]; ok {
					n++
				}
			}
			return true
		})
		if n == 0 {
			rest = append(rest, c)
			continue
		}
		b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || (b.Op != sqlparse.OpEQ && b.Op != sqlparse.OpNE) || n != 1 {
			return nil
		}
		inner, o := b.L, -1
		if ref, ok := sqlparse.StripParens(b.R).(*sqlparse.ColumnRef); ok {
			if i, ok := outerAt[ref]; ok {
				o = i
			}
		}
		if o < 0 {
			inner = b.R
			if ref, ok := sqlparse.StripParens(b.L).(*sqlparse.ColumnRef); ok {
				if i, ok := outerAt[ref]; ok {
					o = i
				}
			}
		}
		if o < 0 || !factorable(inner) {
			return nil
		}
		consumed++
		if b.Op == sqlparse.OpEQ {
			d.keyOuter = append(d.keyOuter, o)
			keysInner = append(keysInner, inner)
			continue
		}
		if sq.kind != subExists || d.neOuter >= 0 {
			return nil
		}
		d.neOuter, neInner = o, inner
	}
	if consumed != len(sq.outer) || len(keysInner) == 0 {
		return nil // an outer reference elsewhere (the select list, a nested query, ...)
	}
	// The rewritten query: keys (and the inequality's inner side) first.
	dq := *q
	dq.Where = plan.And(rest)
	dq.OrderBy = nil
	dq.Items = nil
	for _, k := range keysInner {
		dq.Items = append(dq.Items, sqlparse.SelectItem{Expr: k, Text: k.String()})
	}
	if sq.kind == subExists {
		// No DISTINCT: the table below keeps each key once (and at most
		// two inequality values), so the rows stream through it; a
		// DISTINCT over (key, value) pairs held all 6 million of TPC-H
		// SF 1's lineitem pairs (1.2 GB) before the first was read.
		if neInner != nil {
			dq.Items = append(dq.Items, sqlparse.SelectItem{Expr: neInner, Text: neInner.String()})
		}
		dq.Distinct = false
	} else {
		dq.Items = append(dq.Items, q.Items[0])
		dq.GroupBy = append([]sqlparse.Expr(nil), keysInner...)
	}
	fork := sq.sess.fork()
	if sq.pinned == nil {
		sq.pinned = map[string]*dataset.Dataset{}
	}
	fork.pinned = sq.pinned
	fork.keyFilters = sq.domainFilters(sq.ctx, d, keysInner) // semidomain.go
	p, err := fork.planQuery(sq.ctx, &dq)
	if err != nil {
		return nil
	}
	cols := p.resultColumns()
	outerCol := func(o int) (Column, bool) {
		c, err := env.column(sq.outer[o])
		if err != nil {
			return Column{}, false
		}
		return env.cols[c], true
	}
	ints := len(d.keyOuter) == 1
	for i, o := range d.keyOuter {
		oc, ok := outerCol(o)
		if !ok || typeClass(oc) == "" || typeClass(oc) != typeClass(cols[i]) {
			return nil
		}
		ints = ints && isIntegerColumn(oc) && isIntegerColumn(cols[i])
	}
	if d.neOuter >= 0 {
		oc, ok := outerCol(d.neOuter)
		if !ok || typeClass(oc) == "" || typeClass(oc) != typeClass(cols[len(keysInner)]) {
			return nil
		}
		ints = ints && isIntegerColumn(oc) && isIntegerColumn(cols[len(keysInner)])
	}
	if sq.kind == subScalar {
		// An outer value no group has: the aggregate over no rows.
		if d.empty, err = sq.run(sq.plan, sq.q); err != nil {
			return nil
		}
	}
	res, err := p.run(sq.ctx, fork)
	if err != nil {
		return nil
	}
	cur := res.Cursor()
	defer cur.Close()
	d.yes.exists = true
	nk := len(keysInner)
	budget := sq.sess.opts.JoinMemory
	if budget <= 0 {
		budget = DefaultJoinMemory
	}
	if ints {
		per := intDecorEntryBytes(sq.kind == subScalar)
		if !sq.fillInts(d, cur, max(budget, int64(sq.maxRows)*per), per) {
			return nil
		}
		return d
	}
	d.table = map[string][]*decorEntry{}
	per := decorEntryBytes(nk, sq.kind == subScalar, d.neOuter >= 0)
	budget = max(budget, int64(sq.maxRows)*per)
	var used int64
	for {
		batch, err := cur.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil
		}
		for _, row := range batch {
			key := row[:nk:nk]
			h, ok := hashKey(key)
			if !ok {
				continue // a NULL key matches no outer value
			}
			var e *decorEntry
			for _, x := range d.table[h] {
				if sameKey(x.key, key) {
					e = x
					break
				}
			}
			if e == nil {
				if used += per + int64(len(h)); used > budget {
					return nil
				}
				e = &decorEntry{key: append([]any(nil), key...)}
				if sq.kind == subScalar {
					e.res = &subqueryResult{}
				}
				d.table[h] = append(d.table[h], e)
			}
			if sq.kind == subScalar {
				e.res.scalar = sq.value(row[nk])
				continue
			}
			if d.neOuter >= 0 {
				v := row[nk]
				if v == nil || len(e.ne) == 2 || (len(e.ne) == 1 && compare(e.ne[0], v) == 0) {
					continue
				}
				e.ne = append(e.ne, v)
			}
		}
	}
	return d
}

// fillInts fills d.ints from the rewritten query's rows (the key, then the
// inequality's value or the scalar), within budget bytes at per bytes a
// key; false when it cannot (a failed read, the budget passed, a value
// that is not an int64): the subquery then runs per outer value.
func (sq *subquery) fillInts(d *decorrelation, cur RowCursor, budget, per int64) bool {
	d.ints = map[int64]intDecorEntry{}
	var used int64
	for {
		batch, err := cur.Next()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
		for _, row := range batch {
			if row[0] == nil {
				continue // a NULL key matches no outer value
			}
			k, ok := row[0].(int64)
			if !ok {
				return false
			}
			e, found := d.ints[k]
			if !found {
				if used += per; used > budget {
					return false
				}
			}
			switch {
			case sq.kind == subScalar:
				e.res = &subqueryResult{scalar: sq.value(row[1])}
			case d.neOuter >= 0:
				if row[1] == nil || e.nne == 2 {
					if found {
						continue
					}
					break
				}
				x, ok := row[1].(int64)
				if !ok {
					return false
				}
				if e.nne == 1 && e.ne[0] == x {
					continue
				}
				e.ne[e.nne] = x
				e.nne++
			case found:
				continue
			}
			d.ints[k] = e
		}
	}
}

// hasAggregate reports whether e calls an aggregate (outside nested
// queries).
func hasAggregate(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		switch x := n.(type) {
		case *sqlparse.FuncCall:
			if x.Aggregate {
				found = true
			}
		case *sqlparse.Subquery, *sqlparse.Exists:
			return false
		}
		return !found
	})
	return found
}
