package expr

import (
	"errors"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

func parseWhere(t *testing.T, cond string) sqlparse.Expr {
	t.Helper()
	st, err := sqlparse.ParseOne("SELECT 1 FROM x WHERE " + cond)
	if err != nil {
		t.Fatal(err)
	}
	return st.(*sqlparse.Select).Where
}

func TestResolve(t *testing.T) {
	s := NewScope()
	if _, err := s.Add("a", sqlparse.Name{"db", "a"}, []string{"id", "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("b", nil, []string{"id", "y"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("A", nil, []string{"z"}); !errors.Is(err, ErrDuplicateAlias) {
		t.Errorf("duplicate alias: %v", err)
	}
	b := &Binder{Scope: s}
	cases := []struct {
		cond, want string
		err        error
	}{
		{"x = y", "`a.x` = `b.y`", nil},
		{"a.id = b.id", "`a.id` = `b.id`", nil},
		{"db.a.id = 1", "`a.id` = 1", nil},
		{"ID > 1", "", ErrAmbiguousColumn},
		{"c.id = 1", "", ErrUnknownColumn},
		{"other.a.id = 1", "", ErrUnknownColumn},
		{"nosuch = 1", "", ErrUnknownColumn},
	}
	for _, tc := range cases {
		got, err := b.BindAll(parseWhere(t, tc.cond), "where clause")
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: got %v, want %v", tc.cond, err, tc.err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: got %v %v, want %s", tc.cond, got, err, tc.want)
		}
	}
	// USING (id) coalesces: unqualified id is a's, SELECT * shows it once, first.
	s.Coalesce("id", 0, 2)
	if got, err := b.BindAll(parseWhere(t, "id = 1"), "where clause"); err != nil || got.String() != "`a.id` = 1" {
		t.Errorf("coalesced id: %v %v", got, err)
	}
	star, _ := s.Star(nil)
	if want := []int{0, 1, 3}; len(star) != 3 || star[0] != want[0] || star[1] != want[1] || star[2] != want[2] {
		t.Errorf("SELECT * slots %v, want %v", star, want)
	}
	bs, _ := s.Star(sqlparse.Name{"b"})
	if len(bs) != 2 || bs[0] != 2 {
		t.Errorf("b.* slots %v", bs)
	}
	// An ON sees only its join's relations.
	if _, err := s.Resolve(&sqlparse.ColumnRef{Column: "y"}, "on clause", 0, 1); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("y outside the join's relations: %v", err)
	}
}
