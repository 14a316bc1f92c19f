package sqlparse

import "strings"

// Select is a query: SELECT [DISTINCT] items [FROM from] [WHERE cond] [GROUP BY exprs]
// [HAVING cond] [ORDER BY items] [LIMIT n [OFFSET m]], or a set operation of such queries
// (UNION, EXCEPT, INTERSECT). A Select is also the body of a subquery (*Subquery, *Exists,
// *InList, a derived table in FROM, INSERT ... SELECT); Position is then where the subquery's
// SELECT starts and Text is empty.
//
// For a set operation SetOps is non-empty: the query is SetOps[0].Select, combined left to right
// with each following operand by its Op; OrderBy and Limit apply to the combined result, and the
// other fields are empty.
type Select struct {
	stmtBase
	Distinct bool
	Items    []SelectItem
	From     FromItem // nil without FROM (or FROM DUAL)
	Where    Expr     // nil without WHERE
	GroupBy  []Expr   // each may be a *ColumnPosition
	Having   Expr
	OrderBy  []OrderItem
	Limit    *Limit
	SetOps   []SetOperand
	// With holds the common table expressions of WITH name [(cols)] AS
	// (query), ... that prefix the query (nil without WITH); a table
	// reference of this query or a query nested in it may name one.
	With []CTE
}

// CTE is one common table expression: Name [(Columns)] AS (Select).
// Columns is nil when the CTE names none (its columns are then the
// query's labels).
//
// Recursive is set for every CTE of WITH RECURSIVE (one that does not
// name itself in its query is planned as any CTE); Pos is where its
// query starts.
type CTE struct {
	Name      string
	Columns   []string
	Select    *Select
	Recursive bool
	Pos       Pos
}

// SelectItem is one item of the select list: `*`, `q.*` (Star, with Qualifier), or an
// expression with an optional alias. Text is the item as written (the column label MySQL gives
// an unaliased expression).
type SelectItem struct {
	Star      bool
	Qualifier Name // of q.*; nil for a bare *
	Expr      Expr // nil for a star
	Alias     string
	Text      string
	Pos       Pos
}

// OrderItem is one ORDER BY item. Expr may be a *ColumnPosition (ORDER BY 2) or a *ColumnRef
// naming a select-list alias.
type OrderItem struct {
	Expr Expr
	Desc bool
}

// Limit is LIMIT Count [OFFSET Offset] (also LIMIT Offset, Count). Both are *Literal
// integers (or a *Param in unbound text); Offset is nil when absent.
type Limit struct {
	Count, Offset Expr
}

// SetOpKind is a set operator.
type SetOpKind int

const (
	Union SetOpKind = iota + 1
	UnionAll
	Except
	ExceptAll
	Intersect
	IntersectAll
)

var setOpText = map[SetOpKind]string{Union: "UNION", UnionAll: "UNION ALL", Except: "EXCEPT",
	ExceptAll: "EXCEPT ALL", Intersect: "INTERSECT", IntersectAll: "INTERSECT ALL"}

func (k SetOpKind) String() string { return setOpText[k] }

// SetOperand is one operand of a set operation. Op combines it with the operands before it (zero
// for the first operand).
type SetOperand struct {
	Op     SetOpKind
	Select *Select
}

// FromItem is the FROM clause: a *TableSource or a *Join of them.
type FromItem interface {
	fromItem()
}

// TableSource is a table, or a derived table (a subquery in FROM), with an optional alias.
// Exactly one of Table and Subquery is set. Pos is the position of the statement (the TiDB
// parser keeps none for table names).
type TableSource struct {
	Table    Name
	Subquery *Select
	Alias    string
	Pos      Pos
	// AsOf is the instant of AS OF TIMESTAMP <expr> (time travel: the table
	// version current then), nil without it. The planner also takes the
	// functions table_version(n) and table_tag('name') here.
	AsOf Expr
	// IgnoreIndex lists the index names of IGNORE INDEX (...) hints on the
	// table (the vector search reads them; other hints are accepted and
	// have no effect).
	IgnoreIndex []string
}

// JoinKind is the kind of a join.
type JoinKind int

const (
	InnerJoin JoinKind = iota + 1 // JOIN, INNER JOIN, CROSS JOIN, a comma
	LeftJoin
	RightJoin
	// FullJoin is FULL [OUTER] JOIN (MySQL has none: there `t FULL JOIN u`
	// names t `full`; lancecat reads it as the SQL standard's full outer
	// join, as `t AS full JOIN u` still is an alias).
	FullJoin
)

// Join is Left [INNER|LEFT|RIGHT|FULL] JOIN Right [ON On | USING (Using)]. Natural is NATURAL JOIN.
type Join struct {
	Kind    JoinKind
	Left    FromItem
	Right   FromItem
	On      Expr
	Using   []string
	Natural bool
}

func (*TableSource) fromItem() {}
func (*Join) fromItem()        {}

// Insert is INSERT INTO table [(columns)] VALUES (exprs), ... or INSERT INTO table [(columns)]
// SELECT .... Columns is nil when the statement names none (then values go to every column in
// order). Rows holds one slice of expressions per VALUES row (a value may be *Default); Query
// is set instead for INSERT ... SELECT. OnDuplicate holds the assignments of ON DUPLICATE KEY
// UPDATE (a MySQL 8 row alias, VALUES (...) AS new, becomes VALUES(col) there); Replace and
// Ignore mark REPLACE INTO and INSERT IGNORE. INSERT ... SET and PARTITION are refused by the
// parser.
type Insert struct {
	stmtBase
	Table       Name
	Columns     []*ColumnRef
	Rows        [][]Expr
	Query       *Select
	OnDuplicate []Assignment
	// Replace is REPLACE INTO; Ignore is INSERT IGNORE (upsert.go in the
	// planner says what each does with a row whose key is taken).
	Replace, Ignore bool
	// FromQuery is set by the planner on the VALUES it expands an INSERT
	// ... SELECT into: MySQL numbers AUTO_INCREMENT ids of such a bulk
	// insert as it does LOAD DATA's, not as a statement of known rows.
	FromQuery bool
}

// Assignment is `column = value` (ON DUPLICATE KEY UPDATE; UPDATE ... SET).
type Assignment struct {
	Column *ColumnRef
	Value  Expr
}

// TableRef is one table reference found in a query; Pos as in TableSource.
type TableRef struct {
	Name Name
	Pos  Pos
}

// Tables lists every table referenced by the query and its subqueries, in source order.
func (s *Select) Tables() []TableRef {
	var refs []TableRef
	s.walkSelects(func(q *Select) {
		var from func(f FromItem)
		from = func(f FromItem) {
			switch n := f.(type) {
			case *TableSource:
				if n.Table != nil {
					refs = append(refs, TableRef{Name: n.Table, Pos: n.Pos})
				}
			case *Join:
				from(n.Left)
				from(n.Right)
			}
		}
		from(q.From)
	})
	return refs
}

// walkSelects calls f for s and every query nested in it (set operands, derived tables,
// subqueries in expressions), each before the queries nested in it, in source order.
func (s *Select) walkSelects(f func(*Select)) {
	if s == nil {
		return
	}
	for _, c := range s.With {
		c.Select.walkSelects(f)
	}
	if len(s.SetOps) > 0 {
		for _, op := range s.SetOps {
			op.Select.walkSelects(f)
		}
	} else {
		f(s)
	}
	sub := func(e Expr) {
		Inspect(e, func(x Expr) bool {
			switch n := x.(type) {
			case *Subquery:
				n.Select.walkSelects(f)
			case *Exists:
				n.Select.walkSelects(f)
			case *Quantified:
				n.Select.walkSelects(f)
			case *InList:
				n.Subquery.walkSelects(f)
			}
			return true
		})
	}
	for _, it := range s.Items {
		sub(it.Expr)
	}
	var from func(FromItem)
	from = func(fi FromItem) {
		switch n := fi.(type) {
		case *TableSource:
			n.Subquery.walkSelects(f)
		case *Join:
			from(n.Left)
			from(n.Right)
			sub(n.On)
		}
	}
	from(s.From)
	sub(s.Where)
	for _, g := range s.GroupBy {
		sub(g)
	}
	sub(s.Having)
	for _, o := range s.OrderBy {
		sub(o.Expr)
	}
}

// String renders the query as SQL text in normal form.
func (s *Select) String() string {
	var b strings.Builder
	for i, c := range s.With {
		if i == 0 {
			b.WriteString("WITH ")
			if c.Recursive {
				b.WriteString("RECURSIVE ")
			}
		} else {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(c.Name))
		if len(c.Columns) > 0 {
			quoted := make([]string, len(c.Columns))
			for j, n := range c.Columns {
				quoted[j] = QuoteIdent(n)
			}
			b.WriteString(" (" + strings.Join(quoted, ", ") + ")")
		}
		b.WriteString(" AS (" + c.Select.String() + ")")
		if i == len(s.With)-1 {
			b.WriteString(" ")
		}
	}
	if len(s.SetOps) > 0 {
		for i, op := range s.SetOps {
			if i > 0 {
				b.WriteString(" " + op.Op.String() + " ")
			}
			b.WriteString(op.Select.String())
		}
	} else {
		b.WriteString("SELECT ")
		if s.Distinct {
			b.WriteString("DISTINCT ")
		}
		for i, it := range s.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case it.Star && it.Qualifier != nil:
				b.WriteString(it.Qualifier.String() + ".*")
			case it.Star:
				b.WriteString("*")
			default:
				b.WriteString(it.Expr.String())
			}
			if it.Alias != "" {
				b.WriteString(" AS " + QuoteIdent(it.Alias))
			}
		}
		if s.From != nil {
			b.WriteString(" FROM " + fromString(s.From))
		}
		if s.Where != nil {
			b.WriteString(" WHERE " + s.Where.String())
		}
		if len(s.GroupBy) > 0 {
			b.WriteString(" GROUP BY " + joinExprs(s.GroupBy, ", "))
		}
		if s.Having != nil {
			b.WriteString(" HAVING " + s.Having.String())
		}
	}
	for i, o := range s.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(o.Expr.String())
		if o.Desc {
			b.WriteString(" DESC")
		}
	}
	if s.Limit != nil {
		b.WriteString(" LIMIT " + s.Limit.Count.String())
		if s.Limit.Offset != nil {
			b.WriteString(" OFFSET " + s.Limit.Offset.String())
		}
	}
	return b.String()
}

func fromString(f FromItem) string {
	switch n := f.(type) {
	case *TableSource:
		s := ""
		if n.Subquery != nil {
			s = "(" + n.Subquery.String() + ")"
		} else {
			s = n.Table.String()
		}
		if n.Alias != "" {
			s += " AS " + QuoteIdent(n.Alias)
		}
		return s
	case *Join:
		kind := " JOIN "
		switch n.Kind {
		case LeftJoin:
			kind = " LEFT JOIN "
		case RightJoin:
			kind = " RIGHT JOIN "
		case FullJoin:
			kind = " FULL JOIN "
		}
		if n.Natural {
			kind = " NATURAL" + kind
		}
		s := fromString(n.Left) + kind + fromString(n.Right)
		if n.On != nil {
			s += " ON " + n.On.String()
		}
		if len(n.Using) > 0 {
			quoted := make([]string, len(n.Using))
			for i, u := range n.Using {
				quoted[i] = QuoteIdent(u)
			}
			s += " USING (" + strings.Join(quoted, ", ") + ")"
		}
		return s
	}
	return ""
}
