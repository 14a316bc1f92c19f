// Package expr is the expression layer of the query engine: binding
// (this file and bind.go: column references, with their qualifiers,
// resolved against the relations a FROM clause brings into scope, to
// numbered slots of the rows the plan produces) and the function
// registry. It knows nothing about tables or storage.
package expr

import (
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// MySQL's error numbers for name resolution.
const (
	// ErNonUniqError is MySQL's 1052: a column name more than one
	// relation in scope provides.
	ErNonUniqError = 1052
	// ErBadFieldError is MySQL's 1054: a column no relation provides.
	ErBadFieldError = 1054
	// ErBadTableError is MySQL's 1051: q.* where q names no relation.
	ErBadTableError = 1051
	// ErNonUniqTable is MySQL's 1066: two relations of a FROM clause with
	// the same name or alias.
	ErNonUniqTable = 1066
)

// ColumnError is a name-resolution failure, carrying MySQL's error number
// (errors.As finds it under the *catalog.Error the binder returns).
type ColumnError struct {
	Number int
	Msg    string
	// Ref is the reference an unknown-column error is about (nil for
	// other errors), so a caller can explain why it is unknown.
	Ref *sqlparse.ColumnRef
}

func (e *ColumnError) Error() string { return fmt.Sprintf("%s (MySQL error %d)", e.Msg, e.Number) }

// Is matches another *ColumnError of the same number, so the sentinels
// below work with errors.Is.
func (e *ColumnError) Is(target error) bool {
	t, ok := target.(*ColumnError)
	return ok && t.Number == e.Number && t.Msg == ""
}

// Sentinels for errors.Is.
var (
	ErrAmbiguousColumn = &ColumnError{Number: ErNonUniqError}
	ErrUnknownColumn   = &ColumnError{Number: ErBadFieldError}
	ErrDuplicateAlias  = &ColumnError{Number: ErNonUniqTable}
)

func columnError(number int, format string, args ...any) error {
	return &catalog.Error{Code: catalog.CodeInvalidInput, Cause: &ColumnError{Number: number, Msg: fmt.Sprintf(format, args...)}}
}

// Relation is one source a FROM clause brings into scope: a table, a
// view or a derived table, under its alias (else its name). Its columns
// occupy the slots Base, Base+1, ... of the joined row.
type Relation struct {
	// Name is what a qualifier names: the alias, else the table's last
	// name part.
	Name string
	// Table is {schema, Name} when the relation is a table, also under an
	// alias (a qualifier may then be db.table, MariaDB's reading); nil for
	// a derived table.
	Table   sqlparse.Name
	Columns []string
	Base    int
}

// Slot is one column of the joined row.
type Slot struct {
	Rel    int    // index of the relation in Scope.Rels
	Column string // the column's name in its relation
	// Ref is the unique name bound expressions use for the slot (a
	// *sqlparse.ColumnRef with this Column and no qualifier).
	Ref string
}

// Scope is what a FROM clause brings into scope: the relations, in FROM
// order, their slots, and the columns of USING and NATURAL joins, which an
// unqualified reference names once (MySQL's coalesced join columns).
type Scope struct {
	Rels  []*Relation
	Slots []Slot
	// coalesced maps a lower-case USING column name to the slot an
	// unqualified reference resolves to.
	coalesced map[string]int
	// hidden are slots SELECT * leaves out (the right-hand copies of
	// coalesced columns).
	hidden map[int]bool
	// leading are the coalesced slots SELECT * lists first, in order.
	leading []int
	byRef   map[string]int
}

// NewScope returns an empty scope.
func NewScope() *Scope {
	return &Scope{coalesced: map[string]int{}, hidden: map[int]bool{}, byRef: map[string]int{}}
}

// Add appends a relation; its slots follow those already in scope. Two
// relations with the same name fail with MySQL's 1066.
func (s *Scope) Add(name string, table sqlparse.Name, columns []string) (*Relation, error) {
	for _, r := range s.Rels {
		if strings.EqualFold(r.Name, name) {
			return nil, columnError(ErNonUniqTable, "not unique table/alias: %s", sqlparse.QuoteIdent(name))
		}
	}
	r := &Relation{Name: name, Table: table, Columns: columns, Base: len(s.Slots)}
	ri := len(s.Rels)
	s.Rels = append(s.Rels, r)
	for _, c := range columns {
		ref := name + "." + c
		for n := 2; ; n++ {
			if _, dup := s.byRef[ref]; !dup {
				break
			}
			ref = fmt.Sprintf("%s.%s#%d", name, c, n)
		}
		s.byRef[ref] = len(s.Slots)
		s.Slots = append(s.Slots, Slot{Rel: ri, Column: c, Ref: ref})
	}
	return r, nil
}

// SlotOfRef returns the slot a bound reference names (ok false for a
// reference the binder did not produce).
func (s *Scope) SlotOfRef(ref *sqlparse.ColumnRef) (int, bool) {
	if len(ref.Qualifier) > 0 {
		return 0, false
	}
	i, ok := s.byRef[ref.Column]
	return i, ok
}

// Ref is the bound reference to slot i.
func (s *Scope) Ref(i int) *sqlparse.ColumnRef {
	return &sqlparse.ColumnRef{Column: s.Slots[i].Ref}
}

// Coalesce records a USING (or NATURAL) column joined from the slots
// left and right: an unqualified reference resolves to keep (left's slot
// for an inner or left join, right's for a right join), SELECT * lists it
// first, once.
func (s *Scope) Coalesce(name string, keep, drop int) {
	s.coalesced[strings.ToLower(name)] = keep
	s.hidden[drop] = true
	// A column coalesced again by a later join (a JOIN b USING (id) JOIN c
	// USING (id)) keeps its first position.
	for i, l := range s.leading {
		if l == drop || l == keep {
			s.leading[i] = keep
			return
		}
	}
	s.leading = append(s.leading, keep)
}

// within reports the slot range [lo, hi) of the relations numbered
// [from, to).
func (s *Scope) within(slot, fromRel, toRel int) bool {
	r := s.Slots[slot].Rel
	return r >= fromRel && r < toRel
}

// Resolve finds the slot a column reference names, among the relations
// numbered [fromRel, toRel) (a join's ON sees only the relations of its
// two sides). clause names the clause for MySQL's message ("field list",
// "where clause", "on clause", ...).
func (s *Scope) Resolve(ref *sqlparse.ColumnRef, clause string, fromRel, toRel int) (int, error) {
	col := strings.ToLower(ref.Column)
	if len(ref.Qualifier) == 0 {
		if i, ok := s.coalesced[col]; ok && s.within(i, fromRel, toRel) {
			return i, nil
		}
	}
	found := -1
	for ri := fromRel; ri < toRel && ri < len(s.Rels); ri++ {
		r := s.Rels[ri]
		if len(ref.Qualifier) > 0 && !r.named(ref.Qualifier) {
			continue
		}
		for ci, c := range r.Columns {
			if strings.ToLower(c) != col {
				continue
			}
			if found >= 0 {
				return 0, columnError(ErNonUniqError, "column %s in %s is ambiguous", sqlparse.QuoteIdent(ref.Column), clause)
			}
			found = r.Base + ci
		}
	}
	if found < 0 {
		return 0, UnknownColumn(ref, clause)
	}
	return found, nil
}

// named reports whether a qualifier names the relation: its name, or for
// an unaliased table its full name's trailing parts (db.t).
func (r *Relation) named(q sqlparse.Name) bool {
	if !strings.EqualFold(q[len(q)-1], r.Name) {
		return false
	}
	if len(q) == 1 {
		return true
	}
	if len(r.Table) < len(q) {
		return false
	}
	tail := r.Table[len(r.Table)-len(q):]
	for i := range q {
		// The schema part compares exactly (lower_case_table_names is 0).
		if i < len(q)-1 && q[i] != tail[i] || !strings.EqualFold(q[i], tail[i]) {
			return false
		}
	}
	return true
}

// Star lists the slots `*` (qualifier nil) or `q.*` expands to, in
// MySQL's order: for `*` the coalesced join columns first, then every
// other column of every relation in FROM order.
func (s *Scope) Star(q sqlparse.Name) ([]int, error) {
	var out []int
	if q == nil {
		out = append(out, s.leading...)
		lead := map[int]bool{}
		for _, l := range s.leading {
			lead[l] = true
		}
		for i := range s.Slots {
			if !s.hidden[i] && !lead[i] {
				out = append(out, i)
			}
		}
		return out, nil
	}
	for _, r := range s.Rels {
		if r.named(q) {
			for ci := range r.Columns {
				out = append(out, r.Base+ci)
			}
			return out, nil
		}
	}
	return nil, UnknownTable(q)
}

// UnknownColumn is MySQL's 1054 for a reference no relation of the
// clause's scope provides (a qualifier naming no table in scope included).
func UnknownColumn(ref *sqlparse.ColumnRef, clause string) error {
	return &catalog.Error{Code: catalog.CodeInvalidInput, Cause: &ColumnError{Number: ErBadFieldError, Msg: fmt.Sprintf("unknown column %s in %s", ref, clause), Ref: ref}}
}

// UnknownTable is MySQL's 1051 for `q.*` where q names no relation in
// scope.
func UnknownTable(q sqlparse.Name) error {
	return columnError(ErBadTableError, "unknown table %s", q)
}
