package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/lancecat/lancecat/sqlparse"
)

// Shared CTEs: a CTE of the statement's WITH that the query names more
// than once (TPC-H Q15 joins revenue0 and takes its MAX in a subquery) is
// computed once and its rows replayed to every reference, as MySQL 8 and
// DuckDB materialize such a CTE, instead of planning and reading its
// query once per reference (cte.go). The rows are held within the join
// memory budget (Options.JoinMemory); a CTE whose rows exceed it streams
// them to the reference that found out and is computed again for each
// later one, as an inlined CTE is. The rows live for the statement: each
// statement plans its own placeholders (Session.exec starts s.shared).

// sharedCTE is a CTE computed once for the statement's references.
type sharedCTE struct {
	name string
	body *sqlparse.Select

	mu   sync.Mutex
	rows [][]any // the computed rows (nil: not yet, or too large)
	// unbounded: the rows exceeded the budget; each reference computes them.
	unbounded bool
	// computed counts the runs of body (for tests: 1 when held).
	computed int
}

// shareCTE registers body as a shared CTE and returns the placeholder
// query its references become derived tables of.
func (s *Session) shareCTE(name string, body *sqlparse.Select) *sqlparse.Select {
	marker := s.placeholder("shared CTE")
	s.shared[placeholderKey(marker)] = &sharedCTE{name: name, body: body}
	return marker
}

// cteReferences counts the references to q.With[i] by name in q's query
// and in the CTEs after it (a nested WITH that shadows the name counts
// too: sharing is then only a needless copy, never a wrong row).
func cteReferences(q *sqlparse.Select, i int) int {
	name := q.With[i].Name
	count := func(sel *sqlparse.Select) int {
		n := 0
		for _, r := range sel.Tables() {
			if len(r.Name) == 1 && strings.EqualFold(r.Name[0], name) {
				n++
			}
		}
		return n
	}
	main := *q
	main.With = nil
	n := count(&main)
	for _, c := range q.With[i+1:] {
		n += count(c.Select)
	}
	return n
}

// sharedPlan is one reference to a shared CTE: the body's plan, run once
// for all references.
type sharedPlan struct {
	cte    *sharedCTE
	body   queryPlan
	budget int64
}

// planShared plans a reference to a shared CTE.
func (s *Session) planShared(ctx context.Context, c *sharedCTE) (queryPlan, error) {
	p, err := s.planQuery(ctx, c.body)
	if err != nil {
		return nil, err
	}
	return &sharedPlan{cte: c, body: p, budget: s.joinBudget()}, nil
}

func (p *sharedPlan) resultColumns() []Column { return p.body.resultColumns() }

func (p *sharedPlan) Explain() []string {
	lines := []string{fmt.Sprintf("SharedCTE %s (computed once for its references; rows held in memory within %d bytes, else computed per reference)",
		sqlparse.QuoteIdent(p.cte.name), p.budget)}
	for _, l := range p.body.Explain() {
		lines = append(lines, "  "+l)
	}
	return lines
}

func (p *sharedPlan) run(ctx context.Context, s *Session) (*Result, error) {
	c := p.cte
	c.mu.Lock()
	defer c.mu.Unlock()
	cols := p.resultColumns()
	if c.rows != nil {
		// A copy of the slice: a reference that sorts its input in place
		// must not reorder the next reference's rows.
		return &Result{Columns: cols, Rows: append([][]any(nil), c.rows...)}, nil
	}
	c.computed++
	res, err := p.body.run(ctx, s)
	if err != nil || c.unbounded {
		return res, err
	}
	var rows [][]any
	var used int64
	cur := res.Cursor()
	for {
		batch, err := cur.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			cur.Close()
			return nil, err
		}
		for _, row := range batch {
			row = append([]any(nil), row...)
			rows = append(rows, row)
			used += rowBytes(row)
		}
		if used > p.budget {
			// Too large to hold: stream what was read and the rest, and
			// let later references compute the rows again.
			c.unbounded = true
			return streamResult(cols, func(yield func([][]any, error) bool) {
				defer cur.Close()
				if !yield(rows, nil) {
					return
				}
				for {
					batch, err := cur.Next()
					if errors.Is(err, io.EOF) {
						return
					}
					if !yield(batch, err) || err != nil {
						return
					}
				}
			}), nil
		}
	}
	cur.Close()
	if rows == nil {
		rows = [][]any{}
	}
	c.rows = rows
	return &Result{Columns: cols, Rows: append([][]any(nil), rows...)}, nil
}
