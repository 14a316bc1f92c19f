package planner

import (
	"strings"

	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
)

// checkQualifiers fails with MySQL's 1054 when a qualified column
// reference of a single-source query block (no join: the join path binds
// through expr.Scope, which checks qualifiers itself) names no relation
// of the block's FROM. The single-source operators resolve a reference by
// its column name alone, so without this check `x.a` or, under `FROM t AS
// u`, `t.a` (an alias hides the table's name) would quietly read the
// block's own column a. Worse, a correlated reference the subquery
// machinery does not substitute (one inside a derived table or CTE of a
// subquery, which MySQL 5.7 and MariaDB refuse) would read the inner
// table's column of the same name and answer wrong rows.
//
// The references of nested subqueries are not entered: each is checked
// when it is planned, after its references to the queries around it were
// replaced by their values (subquery.go), so what remains qualified must
// name its own FROM.
func (s *Session) checkQualifiers(st *sqlparse.Select) error {
	var alias string
	var table sqlparse.Name
	if ts, ok := st.From.(*sqlparse.TableSource); ok {
		alias, table = ts.Alias, ts.Table
	} else if st.From != nil {
		return nil // a join: bound by expr.Scope
	}
	names := func(q sqlparse.Name) bool {
		last := q[len(q)-1]
		switch {
		case alias != "" && !strings.EqualFold(last, alias):
			return false
		case alias == "" && (len(table) == 0 || !strings.EqualFold(last, table[len(table)-1])):
			return false
		}
		// db.t.a: db must be the schema of the table (also under an
		// alias, db.alias.a, as MariaDB reads it), the current one under
		// an unqualified FROM t, compared exactly (lower_case_table_names
		// is 0); a derived table has none. Any other is MySQL's 1054.
		switch len(q) {
		case 1:
			return true
		case 2:
			return len(table) > 0 && q[0] == s.tableSchema(table)
		}
		return false
	}
	var err error
	check := func(e sqlparse.Expr, clause string) {
		if e == nil || err != nil {
			return
		}
		sqlparse.Inspect(e, func(n sqlparse.Expr) bool {
			if err != nil {
				return false
			}
			// Inspect does not enter a subquery's body.
			if x, ok := n.(*sqlparse.ColumnRef); ok && len(x.Qualifier) > 0 && !names(x.Qualifier) {
				err = expr.UnknownColumn(x, clause)
			}
			return true
		})
	}
	for _, it := range st.Items {
		if it.Star {
			if len(it.Qualifier) > 0 && !names(it.Qualifier) {
				return expr.UnknownTable(it.Qualifier)
			}
			continue
		}
		check(it.Expr, "field list")
	}
	check(st.Where, "where clause")
	for _, g := range st.GroupBy {
		check(g, "group statement")
	}
	check(st.Having, "having clause")
	for _, o := range st.OrderBy {
		check(o.Expr, "order clause")
	}
	return err
}

// tableSchema is the schema of the table a FROM item names as a column
// qualifier writes it (db of db.t.col): the namespace the name resolves in
// (tableIdent), RootSchemaName for the root, a nested namespace's parts
// joined by dots (one quoted identifier, `+"`a.b`"+`.t.col).
func (s *Session) tableSchema(table sqlparse.Name) string {
	ns := s.ns
	if len(table) > 1 {
		ns = namespaceIdent(table[:len(table)-1])
	}
	if len(ns) == 0 {
		return RootSchemaName
	}
	return strings.Join(ns, ".")
}
