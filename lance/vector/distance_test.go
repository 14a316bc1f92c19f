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

// TestKernelBitsPortable: the assembly kernels (where the machine has them)
// and the portable Go give the same bits at every length, so seeded builds
// are the same on every machine; the batch kernels equal the single ones.
func TestKernelBitsPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 8; n <= 8*40; n += 8 {
		a, b := make([]float32, n), make([]float32, 5*n)
		for i := range a {
			a[i] = float32(r.NormFloat64() * 3)
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		if got, want := l2sqBody(a, b), l2sqGo(a, b); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("n=%d l2sq: kernel %v, portable %v", n, got, want)
		}
		if got, want := dotBody(a, b), dotGo(a, b); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("n=%d dot: kernel %v, portable %v", n, got, want)
		}
		out, out2 := make([]float32, 5), make([]float32, 5)
		l2sqBatch(a, b, out)
		l2sqBatchGo(a, b, out2)
		for c := range out {
			if want := L2Squared(a, b[c*n:]); out[c] != want || out2[c] != want {
				t.Errorf("n=%d row %d: l2 batch %v, portable batch %v, single %v", n, c, out[c], out2[c], want)
			}
		}
		dotBatch(a, b, out)
		dotBatchGo(a, b, out2)
		for c := range out {
			if want := DotProduct(a, b[c*n:]); out[c] != want || out2[c] != want {
				t.Errorf("n=%d row %d: dot batch %v, portable batch %v, single %v", n, c, out[c], out2[c], want)
			}
		}
	}
	t.Logf("assembly kernels in use: %v", useAVX2)
}

func BenchmarkL2Squared768(b *testing.B) {
	x, y := make([]float32, 768), make([]float32, 768)
	for i := range x {
		x[i], y[i] = float32(i), float32(i%7)
	}
	var s float32
	for b.Loop() {
		s += L2Squared(x, y)
	}
	_ = s
}

// BenchmarkL2Batch8 is PQ training's shape: one 8-float sub-vector against
// 256 centroids.
func BenchmarkL2Batch8(b *testing.B) {
	x, rows, out := make([]float32, 8), make([]float32, 256*8), make([]float32, 256)
	for i := range rows {
		rows[i] = float32(i % 13)
	}
	for b.Loop() {
		l2sqBatch(x, rows, out)
	}
}

// portableL2 and portableDot are L2Squared and DotProduct with the portable
// body whatever the machine, so the tests below compare the assembly (where
// the machine has it) against Go at every length.
func portableL2(a, b []float32) float32 {
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		s = l2sqGo(a[:n], b[:n])
	}
	for i := n; i < len(a); i++ {
		d := a[i] - b[i]
		s += float32(d * d)
	}
	return s
}

func portableDot(a, b []float32) float32 {
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		s = dotGo(a[:n], b[:n])
	}
	for i := n; i < len(a); i++ {
		s += float32(a[i] * b[i])
	}
	return s
}

// sameFloat: equal bits, or both NaN (the payload of a NaN depends on the
// operand order of the instruction that made it).
func sameFloat(x, y float32) bool {
	if math.IsNaN(float64(x)) || math.IsNaN(float64(y)) {
		return math.IsNaN(float64(x)) && math.IsNaN(float64(y))
	}
	return math.Float32bits(x) == math.Float32bits(y)
}

// TestKernelOddLengthsNaNZero: L2Squared and DotProduct agree with the
// portable kernels at every length 1..300 (tails of 1-7 floats, bodies
// with and without a partial 32-block), on unaligned slices, on zero
// vectors, and propagate a NaN or an infinity wherever it sits.
func TestKernelOddLengthsNaNZero(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 300; n++ {
		// one float of slack in front so that a[1:] is not 32-byte aligned
		buf, bb := make([]float32, n+1), make([]float32, n+1)
		for i := range buf {
			buf[i], bb[i] = float32(r.NormFloat64()*10), float32(r.NormFloat64())
		}
		for _, off := range []int{0, 1} {
			a, b := buf[off:off+n], bb[off:off+n]
			if got, want := L2Squared(a, b), portableL2(a, b); !sameFloat(got, want) {
				t.Errorf("n=%d off=%d L2Squared %v, portable %v", n, off, got, want)
			}
			if got, want := DotProduct(a, b), portableDot(a, b); !sameFloat(got, want) {
				t.Errorf("n=%d off=%d DotProduct %v, portable %v", n, off, got, want)
			}
		}
		a, b := buf[:n], bb[:n]
		zero := make([]float32, n)
		if d := L2Squared(zero, zero); d != 0 {
			t.Errorf("n=%d L2Squared(0, 0) = %v", n, d)
		}
		if d := DotProduct(zero, b); d != 0 {
			t.Errorf("n=%d DotProduct(0, b) = %v", n, d)
		}
		if got, want := L2Squared(a, zero), portableL2(a, zero); !sameFloat(got, want) {
			t.Errorf("n=%d L2Squared(a, 0) %v, portable %v", n, got, want)
		}
		// a NaN in the body, in the partial block or in the tail
		for _, pos := range []int{0, n / 2, n - 1} {
			for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
				c := append([]float32(nil), a...)
				c[pos] = bad
				l2, dot := L2Squared(c, b), DotProduct(c, b)
				if !sameFloat(l2, portableL2(c, b)) || !sameFloat(dot, portableDot(c, b)) {
					t.Errorf("n=%d %v at %d: kernel %v / %v, portable %v / %v", n, bad, pos, l2, dot, portableL2(c, b), portableDot(c, b))
				}
				if math.IsNaN(float64(bad)) && !math.IsNaN(float64(l2)) {
					t.Errorf("n=%d NaN at %d: L2Squared = %v, want NaN", n, pos, l2)
				}
				if math.IsInf(float64(bad), 1) && !math.IsInf(float64(l2), 1) {
					t.Errorf("n=%d +Inf at %d: L2Squared = %v, want +Inf", n, pos, l2)
				}
			}
		}
	}
}

// TestBatchKernelOddRows: the batch kernels over row counts that are not a
// multiple of anything, with a NaN row among them, equal the single kernel.
func TestBatchKernelOddRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{8, 16, 24, 128, 768} {
		for _, k := range []int{1, 3, 17, 256} {
			x, rows := make([]float32, dim), make([]float32, k*dim)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			for i := range rows {
				rows[i] = float32(r.NormFloat64())
			}
			rows[(k/2)*dim+dim/2] = float32(math.NaN())
			out, dout := make([]float32, k), make([]float32, k)
			l2sqBatch(x, rows, out)
			dotBatch(x, rows, dout)
			for c := range k {
				row := rows[c*dim : (c+1)*dim]
				if !sameFloat(out[c], portableL2(x, row)) || !sameFloat(dout[c], portableDot(x, row)) {
					t.Errorf("dim=%d k=%d row %d: batch %v / %v, portable %v / %v", dim, k, c, out[c], dout[c], portableL2(x, row), portableDot(x, row))
				}
			}
			if !math.IsNaN(float64(out[k/2])) {
				t.Errorf("dim=%d k=%d: the NaN row's distance is %v", dim, k, out[k/2])
			}
		}
	}
}

// TestL2Columns: the 8-float column kernel gives l2sqGo's bits for each
// centroid (k not a multiple of 8 included, padding ignored), with NaN and
// zero centroids among them, and centSet.nearest picks the nearest as a
// plain loop over the rows does.
func TestL2Columns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range []int{1, 7, 8, 9, 100, 256} {
		cent := make([]float32, k*8)
		for i := range cent {
			cent[i] = float32(r.NormFloat64())
		}
		clear(cent[(k-1)*8:]) // a zero centroid
		if k > 2 {
			cent[8+3] = float32(math.NaN())
		}
		cs := newCentSet(cent, 8, false)
		if cs.t8 == nil {
			t.Fatal("8-float L2 centroids not laid out in columns")
		}
		ds := cs.buf()
		for range 50 {
			x := make([]float32, 8)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			cs.distances(x, ds)
			best, bd := 0, float32(math.Inf(1))
			for c := range k {
				want := l2sqGo(x, cent[c*8:(c+1)*8])
				if !sameFloat(ds[c], want) {
					t.Errorf("k=%d centroid %d: columns %v, rows %v", k, c, ds[c], want)
				}
				if want < bd {
					best, bd = c, want
				}
			}
			if c, d := cs.nearest(x, ds); c != best || d != bd {
				t.Errorf("k=%d nearest = %d (%v), want %d (%v)", k, c, d, best, bd)
			}
			out := make([]float32, cs.kp)
			l2sq8TGo((*[8]float32)(x), cs.t8, out)
			for c := range k {
				if !sameFloat(out[c], ds[c]) {
					t.Errorf("k=%d centroid %d: portable columns %v, kernel %v", k, c, out[c], ds[c])
				}
			}
		}
	}
}
