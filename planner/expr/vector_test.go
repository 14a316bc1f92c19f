package expr

import (
	"math"
	"testing"
)

// TestParseVectorElementsAreFloats: a vector's elements are FLOATs, so the
// text '[0.1]', the []float64 {0.1} and the stored float32 0.1 are one
// value, and a distance over any of them is the same number.
func TestParseVectorElementsAreFloats(t *testing.T) {
	want := []float64{float64(float32(0.1)), float64(float32(1.0 / 3)), -2.5}
	for _, in := range []any{"[0.1, 0.3333333333333333, -2.5]", []float64{0.1, 1.0 / 3, -2.5}, []float32{0.1, 1.0 / 3, -2.5}} {
		got, err := ParseVector(in)
		if err != nil {
			t.Fatalf("ParseVector(%v): %v", in, err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("ParseVector(%v)[%d] = %v, want the FLOAT %v", in, i, got[i], want[i])
			}
		}
	}
	l2, _ := Lookup("VEC_L2_DISTANCE")
	d, err := l2.Eval(&Call{Func: l2}, []any{"[0.1,0,0]", []float32{0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if d != float64(float32(0.1)) {
		t.Errorf("VEC_L2_DISTANCE('[0.1,0,0]', 0) = %v, want %v (TiDB's, over FLOATs)", d, float64(float32(0.1)))
	}
	if _, err := ParseVector([]float64{math.MaxFloat32 * 2}); err == nil {
		t.Error("an element beyond FLOAT was accepted")
	}
}
