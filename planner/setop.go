package planner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/sqlparse"
)

// Set operations: q1 UNION [ALL | DISTINCT] q2, INTERSECT [ALL], EXCEPT
// [ALL], any number of operands, each any SELECT (with joins, over views,
// derived tables). INTERSECT binds tighter than UNION and EXCEPT, which
// combine left to right (MariaDB's precedence); a DISTINCT operator
// removes the duplicates of everything to its left, as MySQL does. Column
// labels come from the first operand; a column keeps its type when every
// operand agrees, integers of different widths become BIGINT, mixed
// numbers DOUBLE, anything else VARCHAR (values as text). The operands'
// rows are held in memory within Options.JoinMemory (exec.Budget). ORDER
// BY and LIMIT of the whole query run on the selectPipeline over the
// combined rows, which stand as a derived table.

// setOpAlias names the derived table the combined rows are to the query
// around them.
const setOpAlias = "union"

// setOpPlan combines the rows of its operands.
type setOpPlan struct {
	operands []queryPlan
	queries  []*sqlparse.Select
	ops      []sqlparse.SetOpKind // ops[i] combines operand i (ops[0] unused)
	cols     []Column
	text     []bool // column i is converted to text
	budget   int64
	explain  []string
}

func (p *setOpPlan) resultColumns() []Column { return p.cols }
func (p *setOpPlan) Explain() []string       { return p.explain }

func (s *Session) prepareSetOpExplain(ctx context.Context, p *setOpPlan) error {
	p.explain = nil
	var ops []string
	for i := 1; i < len(p.ops); i++ {
		ops = append(ops, p.ops[i].String())
	}
	p.explain = append(p.explain, fmt.Sprintf("SetOp %s (in memory within %d bytes)", strings.Join(ops, ", "), p.budget))
	for i, op := range p.operands {
		lines, err := s.explainPlan(ctx, op, s.subq, p.queries[i], 1)
		if err != nil {
			return err
		}
		p.explain = append(p.explain, lines...)
	}
	return nil
}

// planSetOp plans a query with set operations.
func (s *Session) planSetOp(ctx context.Context, st *sqlparse.Select) (queryPlan, error) {
	p := &setOpPlan{budget: s.opts.JoinMemory}
	if p.budget <= 0 {
		p.budget = DefaultJoinMemory
	}
	for i, op := range st.SetOps {
		q, err := s.planQuery(ctx, op.Select)
		if err != nil {
			return nil, err
		}
		cols := q.resultColumns()
		if i > 0 && len(cols) != len(p.cols) {
			return nil, errorf(catalog.CodeInvalidInput, "the used SELECT statements have a different number of columns (%d and %d; MySQL error 1222)", len(p.cols), len(cols))
		}
		if i == 0 {
			p.cols = append([]Column(nil), cols...)
			p.text = make([]bool, len(cols))
		} else {
			for c := range cols {
				p.cols[c], p.text[c] = mergeColumn(p.cols[c], cols[c], p.text[c])
			}
		}
		p.operands = append(p.operands, q)
		p.queries = append(p.queries, op.Select)
		p.ops = append(p.ops, op.Op)
	}
	if len(st.OrderBy) == 0 && st.Limit == nil {
		return p, nil
	}
	src := &sqlparse.TableSource{Subquery: &sqlparse.Select{}, Alias: setOpAlias}
	if s.preplanned == nil {
		s.preplanned = map[*sqlparse.TableSource]queryPlan{}
	}
	s.preplanned[src] = p
	outer := &sqlparse.Select{Items: []sqlparse.SelectItem{{Star: true, Text: "*"}}, From: src, OrderBy: st.OrderBy, Limit: st.Limit}
	q, err := s.planQuery(ctx, outer)
	if err != nil {
		return nil, err
	}
	return &joinQuery{queryPlan: q, alias: setOpAlias}, nil
}

// mergeColumn is the type of a set operation's column from two operands'.
func mergeColumn(a, b Column, text bool) (Column, bool) {
	a.Nullable = a.Nullable || b.Nullable
	if text || a.DatabaseType == b.DatabaseType {
		return a, text
	}
	ac, bc := typeClass(a), typeClass(b)
	ai := strings.Contains(strings.ToUpper(a.DatabaseType), "INT")
	bi := strings.Contains(strings.ToUpper(b.DatabaseType), "INT")
	out := Column{Name: a.Name, Nullable: a.Nullable}
	switch {
	case ai && bi:
		out.DatabaseType = "BIGINT"
	case ac == "number" && bc == "number" && !strings.Contains(a.DatabaseType+b.DatabaseType, "DECIMAL"):
		out.DatabaseType = "DOUBLE"
	default:
		out.DatabaseType = "VARCHAR"
		return out, true
	}
	return out, false
}

func (p *setOpPlan) run(ctx context.Context, s *Session) (*Result, error) {
	budget := exec.NewBudget(p.budget)
	// Operands joined by INTERSECT combine first.
	type group struct {
		rows [][]any
		op   sqlparse.SetOpKind // how the group joins what is left of it
	}
	var groups []group
	for i, op := range p.operands {
		rows, err := p.collect(ctx, s, op, budget)
		if err != nil {
			return nil, err
		}
		k := p.ops[i]
		if i > 0 && (k == sqlparse.Intersect || k == sqlparse.IntersectAll) {
			g := &groups[len(groups)-1]
			g.rows = combine(g.rows, rows, k)
			continue
		}
		groups = append(groups, group{rows: rows, op: k})
	}
	out := groups[0].rows
	for _, g := range groups[1:] {
		out = combine(out, g.rows, g.op)
	}
	return &Result{Columns: p.cols, Rows: out}, nil
}

// collect reads an operand's rows, converting columns to text where the
// set operation's column is text.
func (p *setOpPlan) collect(ctx context.Context, s *Session, q queryPlan, budget *exec.Budget) ([][]any, error) {
	res, err := q.run(ctx, s)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for row, err := range cursorRows(res) {
		if err != nil {
			return nil, err
		}
		r := append([]any(nil), row...)
		for i, t := range p.text {
			if t && r[i] != nil {
				r[i] = columnText(r[i], res.Columns[i].DatabaseType)
			}
		}
		if err := budget.Grow("the set operation", exec.RowBytes(r)); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func setRowKey(row []any) string {
	var b []byte
	for _, v := range row {
		b = appendKey(b, v)
	}
	return string(b)
}

// combine applies one set operator to two row lists (NULLs equal each
// other here, as in MySQL's set operations).
func combine(left, right [][]any, op sqlparse.SetOpKind) [][]any {
	distinct := func(rows [][]any) [][]any {
		seen := map[string]bool{}
		var out [][]any
		for _, r := range rows {
			k := setRowKey(r)
			if !seen[k] {
				seen[k] = true
				out = append(out, r)
			}
		}
		return out
	}
	counts := func(rows [][]any) map[string]int {
		m := map[string]int{}
		for _, r := range rows {
			m[setRowKey(r)]++
		}
		return m
	}
	switch op {
	case sqlparse.UnionAll:
		return append(left, right...)
	case sqlparse.Union:
		return distinct(append(left, right...))
	case sqlparse.Intersect, sqlparse.IntersectAll:
		in := counts(right)
		var out [][]any
		for _, r := range left {
			k := setRowKey(r)
			if in[k] > 0 {
				out = append(out, r)
				in[k]--
				if op == sqlparse.Intersect {
					in[k] = 0
				}
			}
		}
		if op == sqlparse.Intersect {
			return distinct(out)
		}
		return out
	case sqlparse.Except, sqlparse.ExceptAll:
		in := counts(right)
		var out [][]any
		for _, r := range left {
			k := setRowKey(r)
			if in[k] > 0 {
				if op == sqlparse.ExceptAll {
					in[k]--
				}
				continue
			}
			out = append(out, r)
		}
		if op == sqlparse.Except {
			return distinct(out)
		}
		return out
	}
	return left
}

// columnText is a value of an operand's column as text: toString, except
// that a DATETIME or TIMESTAMP keeps its time of day at midnight (a Go
// time.Time does not say whether it was a DATE; the column's type does).
func columnText(v any, databaseType string) string {
	t, ok := v.(time.Time)
	if !ok {
		return toString(v)
	}
	switch ty := strings.ToUpper(databaseType); {
	case strings.HasPrefix(ty, "DATETIME"), strings.HasPrefix(ty, "TIMESTAMP"):
		return t.UTC().Format("2006-01-02 15:04:05.999999999")
	case ty == "DATE":
		return t.UTC().Format("2006-01-02")
	}
	return toString(v)
}
