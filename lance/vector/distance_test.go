package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernelsMatchNaive: the unrolled kernels equal plain loops at every
// length (remainders included).
func TestKernelsMatchNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 37; n++ {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		var l2, dot, l1, na, nb float64
		for i := range a {
			d := float64(a[i]) - float64(b[i])
			l2 += d * d
			dot += float64(a[i]) * float64(b[i])
			l1 += math.Abs(d)
			na += float64(a[i]) * float64(a[i])
			nb += float64(b[i]) * float64(b[i])
		}
		cos := 1 - dot/math.Sqrt(na*nb)
		near := func(name string, got float32, want float64) {
			if math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Errorf("n=%d %s = %v, want %v", n, name, got, want)
			}
		}
		near("L2Squared", L2Squared(a, b), l2)
		near("DotProduct", DotProduct(a, b), dot)
		near("L1", L1(a, b), l1)
		near("CosineDistance", CosineDistance(a, b), cos)
		near("Norm", Norm(a), math.Sqrt(na))
		near("Dot metric", Dot.Distance(a, b), 1-dot)
	}
	if d := CosineDistance([]float32{0, 0}, []float32{1, 0}); !math.IsNaN(float64(d)) {
		t.Errorf("cosine with a zero vector = %v, want NaN", d)
	}
}

func TestFloat16(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.33325195}, {0x0001, 5.9604645e-08}, {0x7bff, 65504}, {0, 0}} {
		if got := Float16(c.h); got != c.want {
			t.Errorf("Float16(%#x) = %v, want %v", c.h, got, c.want)
		}
	}
	if !math.IsInf(float64(Float16(0x7c00)), 1) || !math.IsNaN(float64(Float16(0x7e00))) {
		t.Error("Float16 infinities / NaN")
	}
}

func BenchmarkL2Squared128(b *testing.B) {
	x, y := make([]float32, 128), make([]float32, 128)
	for i := range x {
		x[i], y[i] = float32(i), float32(128-i)
	}
	b.SetBytes(128 * 4)
	for b.Loop() {
		_ = L2Squared(x, y)
	}
}
