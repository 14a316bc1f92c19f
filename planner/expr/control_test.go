package expr

import "testing"

func TestArrayHas(t *testing.T) {
	for _, c := range []struct {
		all  bool
		args []any
		want any
	}{
		{false, []any{`["a","b"]`, "b"}, true},
		{false, []any{`["a","b"]`, "c", nil}, false},
		{true, []any{`["a","b"]`, "a", "b"}, true},
		{true, []any{`["a","b"]`, "a", "c"}, false},
		{true, []any{`["a",null]`, "a", nil}, false},
		{false, []any{nil, "a"}, nil},
		{false, []any{`[]`, "a"}, false},
		{false, []any{`[1,2,30]`, int64(30)}, true},
		{false, []any{`[1,2,30]`, "30"}, false},
		{false, []any{`["30"]`, int64(30)}, false},
		{true, []any{`[1.5,2]`, 1.5, int64(2)}, true},
	} {
		got, err := arrayHas(c.all, c.args)
		if err != nil || got != c.want {
			t.Errorf("arrayHas(%v, %v) = %v, %v; want %v", c.all, c.args, got, err, c.want)
		}
	}
}
