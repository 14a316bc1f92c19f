package vector

import (
	"fmt"
	"math"
	"strings"
)

// Metric is a distance type of a vector index or search, named as Lance
// names them.
type Metric int

const (
	L2 Metric = iota
	Cosine
	Dot
	// Hamming is recognised in index metadata; lancecat does not search it.
	Hamming
)

func (m Metric) String() string {
	switch m {
	case L2:
		return "l2"
	case Cosine:
		return "cosine"
	case Dot:
		return "dot"
	case Hamming:
		return "hamming"
	}
	return fmt.Sprintf("metric(%d)", int(m))
}

// ParseMetric reads a Lance distance type name ("l2", "euclidean", "cosine",
// "dot", "hamming"), case-insensitive.
func ParseMetric(s string) (Metric, error) {
	switch strings.ToLower(s) {
	case "l2", "euclidean":
		return L2, nil
	case "cosine":
		return Cosine, nil
	case "dot":
		return Dot, nil
	case "hamming":
		return Hamming, nil
	}
	return 0, fmt.Errorf("%w: unknown distance type %q", ErrCorrupt, s)
}

// Distance is the Lance distance of a and b under m (len(a) == len(b)).
func (m Metric) Distance(a, b []float32) float32 {
	switch m {
	case Cosine:
		return CosineDistance(a, b)
	case Dot:
		return 1 - DotProduct(a, b)
	default:
		return L2Squared(a, b)
	}
}

// L2Squared is the squared Euclidean distance of a and b (len(b) >= len(a)):
// the kernel's body over whole 8-float blocks, then the tail one by one
// (kernel.go says why the order is fixed).
func L2Squared(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		s = l2sqBody(a[:n], b[:n])
	}
	for i := n; i < len(a); i++ {
		d := a[i] - b[i]
		s += float32(d * d)
	}
	return s
}

// DotProduct is a·b (len(b) >= len(a)), in the order L2Squared sums.
func DotProduct(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		s = dotBody(a[:n], b[:n])
	}
	for i := n; i < len(a); i++ {
		s += float32(a[i] * b[i])
	}
	return s
}

// L1 is the Manhattan distance of a and b (len(b) >= len(a)).
func L1(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += abs32(a[i] - b[i])
		s1 += abs32(a[i+1] - b[i+1])
		s2 += abs32(a[i+2] - b[i+2])
		s3 += abs32(a[i+3] - b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += abs32(a[i] - b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// Norm is the Euclidean norm of a.
func Norm(a []float32) float32 { return float32(math.Sqrt(float64(DotProduct(a, a)))) }

// CosineDistance is 1 - cos(a, b); it is NaN when either vector is zero
// (as MySQL/TiDB's VEC_COSINE_DISTANCE; Lance's own kernels agree).
func CosineDistance(a, b []float32) float32 {
	b = b[:len(a)]
	den := math.Sqrt(float64(DotProduct(a, a)) * float64(DotProduct(b, b)))
	if den == 0 {
		return float32(math.NaN())
	}
	return float32(1 - float64(DotProduct(a, b))/den)
}

// Normalize returns a/|a| (a copy); a zero vector is returned unchanged.
func Normalize(a []float32) []float32 {
	out := make([]float32, len(a))
	n := Norm(a)
	if n == 0 {
		copy(out, a)
		return out
	}
	for i, x := range a {
		out[i] = x / n
	}
	return out
}

// Float64 kernels, for FLOAT64 vector columns and the SQL functions.

// L2Squared64 is the squared Euclidean distance of a and b.
func L2Squared64(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// Dot64 is a·b.
func Dot64(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// L1_64 is the Manhattan distance of a and b.
func L1_64(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s
}

// Cosine64 is 1 - cos(a, b), NaN when either vector is zero.
func Cosine64(a, b []float64) float64 {
	b = b[:len(a)]
	var d, na, nb float64
	for i := range a {
		d += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	den := math.Sqrt(na * nb)
	if den == 0 {
		return math.NaN()
	}
	return 1 - d/den
}

// Float16 decodes an IEEE 754 half-precision value.
func Float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0:
		if frac == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal
		f := float32(frac) / 1024 * (1.0 / 16384)
		if sign != 0 {
			return -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
