package expr

import (
	"math"
	"strings"
	"testing"
)

// TestMaxSimDistance checks the functions against MaxSim computed by hand:
// 1 - sum over the query's vectors of the best similarity to the row's.
func TestMaxSimDistance(t *testing.T) {
	row := "[[1, 0], [0, 2]]"
	// query (1,1): cos to (1,0) and (0,2) is 1/sqrt2 both; dot 1 and 2.
	// query (3,0): cos 1 and 0; dot 3 and 0.
	query := [][]float32{{1, 1}, {3, 0}}
	for _, tt := range []struct {
		name string
		want float64
	}{
		{"VEC_MAXSIM_COSINE_DISTANCE", 1 - (1/math.Sqrt2 + 1)},
		{"VEC_MAXSIM_DOT_DISTANCE", 1 - (2 + 3)},
	} {
		f, ok := Lookup(tt.name)
		if !ok {
			t.Fatalf("%s not registered", tt.name)
		}
		got, err := f.Eval(&Call{Func: f}, []any{row, query})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d, ok := got.(float64); !ok || math.Abs(d-tt.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tt.name, got, tt.want)
		}
		// NULL and empty rows have no distance
		for _, r := range []any{nil, "[]"} {
			if got, err := f.Eval(&Call{Func: f}, []any{r, query}); err != nil || got != nil {
				t.Errorf("%s(%v) = %v, %v; want NULL", tt.name, r, got, err)
			}
		}
	}
	cos, _ := Lookup("VEC_MAXSIM_COSINE_DISTANCE")
	if got, err := cos.Eval(&Call{Func: cos}, []any{"[[0, 0]]", query}); err != nil || got != nil {
		t.Errorf("cosine against a zero vector = %v, %v; want NULL", got, err)
	}
	for _, bad := range []struct{ row, query any }{
		{row, "[]"},            // empty query
		{row, "[[1, 2, 3]]"},   // dimension differs from the row's
		{row, "[[1, 2], [1]]"}, // ragged query
		{row, "[1, 2]"},        // a vector, not a multivector
		{row, [][]float64{{math.NaN(), 1}}},
		{row, "[[1, 2]"}, // not JSON
		{row, int64(3)},
	} {
		if _, err := cos.Eval(&Call{Func: cos}, []any{bad.row, bad.query}); err == nil {
			t.Errorf("query %v accepted", bad.query)
		} else if strings.Contains(err.Error(), "panic") {
			t.Error(err)
		}
	}
}
