package planner

import (
	"slices"
	"strings"

	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/planner/plan"
	"github.com/lancecat/lancecat/sqlparse"
)

// factorOr takes the conjuncts every disjunct of an OR shares out of it:
// (a AND b) OR (a AND c) is a AND (b OR c). TPC-H Q19 writes its join
// condition p_partkey = l_partkey inside each of three disjuncts; factored
// out it becomes a hash-join key instead of a filter over the cross
// product. Logically equivalent under SQL's three-valued logic (AND
// distributes over OR); conjuncts holding a subquery or a function whose
// value may change between evaluations (RAND(), UUID(), ...) stay where
// they are.
func factorOr(conjuncts []sqlparse.Expr) []sqlparse.Expr {
	var out []sqlparse.Expr
	for _, c := range conjuncts {
		out = append(out, factorOne(c)...)
	}
	return out
}

func factorOne(c sqlparse.Expr) []sqlparse.Expr {
	b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
	if !ok || b.Op != sqlparse.OpOr {
		return []sqlparse.Expr{c}
	}
	disjuncts := orTerms(b)
	terms := make([][]sqlparse.Expr, len(disjuncts))
	for i, d := range disjuncts {
		terms[i] = plan.Conjuncts(d)
	}
	var common []sqlparse.Expr
	var commonText []string
	for _, t := range terms[0] {
		if !factorable(t) {
			continue
		}
		text := t.String()
		in := true
		for _, other := range terms[1:] {
			found := false
			for _, o := range other {
				if o.String() == text {
					found = true
					break
				}
			}
			in = in && found
		}
		dup := false
		for _, ct := range commonText {
			dup = dup || ct == text
		}
		if in && !dup {
			common = append(common, t)
			commonText = append(commonText, text)
		}
	}
	if len(common) == 0 {
		return []sqlparse.Expr{c}
	}
	var rest sqlparse.Expr
	for _, t := range terms {
		var left []sqlparse.Expr
		for _, e := range t {
			keep := true
			for _, ct := range commonText {
				if e.String() == ct {
					keep = false
					break
				}
			}
			if keep {
				left = append(left, e)
			}
		}
		if len(left) == 0 {
			return common // one disjunct is only the common part: the OR is implied
		}
		d := &sqlparse.Paren{X: plan.And(left)}
		if rest == nil {
			rest = d
		} else {
			rest = &sqlparse.Binary{Op: sqlparse.OpOr, L: rest, R: d}
		}
	}
	return append(common, rest)
}

// impliedOrFilters adds, for each OR over several relations, the filter
// it implies on each relation that every disjunct constrains: of TPC-H
// Q7's (n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR (n1.n_name =
// 'GERMANY' AND n2.n_name = 'FRANCE'), n1.n_name = 'FRANCE' OR n1.n_name
// = 'GERMANY' and the same of n2, which go down into the nation scans
// instead of the OR filtering the whole join (every lineitem row of the
// two years reached it). The OR stays: a row the OR keeps satisfies some
// disjunct, so its part on the relation, so the implied filter; WHERE
// keeps the same rows. Only terms that factorable accepts are used.
func impliedOrFilters(conjuncts []sqlparse.Expr, scope *expr.Scope) []sqlparse.Expr {
	out := conjuncts
	for _, c := range conjuncts {
		b, ok := sqlparse.StripParens(c).(*sqlparse.Binary)
		if !ok || b.Op != sqlparse.OpOr || !factorable(c) {
			continue
		}
		// byRel[r][i]: disjunct i's conjuncts that read relation r only.
		byRel := map[int][][]sqlparse.Expr{}
		disjuncts := orTerms(b)
		for i, d := range disjuncts {
			for _, t := range plan.Conjuncts(d) {
				slots, ok := scope.SlotsOf(t)
				if !ok || len(slots) == 0 {
					continue
				}
				rel := scope.Slots[slots[0]].Rel
				for _, sl := range slots[1:] {
					if scope.Slots[sl].Rel != rel {
						rel = -1
					}
				}
				if rel < 0 {
					continue
				}
				if byRel[rel] == nil {
					byRel[rel] = make([][]sqlparse.Expr, len(disjuncts))
				}
				byRel[rel][i] = append(byRel[rel][i], t)
			}
		}
		if len(byRel) < 2 {
			continue // one relation's OR is already its own filter
		}
		rels := make([]int, 0, len(byRel))
		for r := range byRel {
			rels = append(rels, r)
		}
		slices.Sort(rels)
	rel:
		for _, r := range rels {
			var implied sqlparse.Expr
			for _, terms := range byRel[r] {
				if len(terms) == 0 {
					continue rel // a disjunct that leaves r free implies nothing on it
				}
				d := &sqlparse.Paren{X: plan.And(terms)}
				if implied == nil {
					implied = d
				} else {
					implied = &sqlparse.Binary{Op: sqlparse.OpOr, L: implied, R: d}
				}
			}
			out = append(out, implied)
		}
	}
	return out
}

func orTerms(e sqlparse.Expr) []sqlparse.Expr {
	e = sqlparse.StripParens(e)
	if b, ok := e.(*sqlparse.Binary); ok && b.Op == sqlparse.OpOr {
		return append(orTerms(b.L), orTerms(b.R)...)
	}
	return []sqlparse.Expr{e}
}

// volatileFuncs may give another value at each evaluation.
var volatileFuncs = map[string]bool{"rand": true, "uuid": true, "uuid_short": true, "sleep": true,
	"get_lock": true, "release_lock": true, "last_insert_id": true, "sysdate": true}

func factorable(e sqlparse.Expr) bool {
	ok := true
	sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
		switch x := n.(type) {
		case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.Quantified:
			ok = false
		case *sqlparse.InList:
			ok = ok && x.Subquery == nil
		case *sqlparse.FuncCall:
			ok = ok && !volatileFuncs[strings.ToLower(x.Name)]
		}
		return ok
	})
	return ok
}
