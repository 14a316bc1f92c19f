package vector

import "math"

// The float32 kernels below split a vector into a body of whole 8-float
// blocks, summed into 32 partial sums (four 8-lane accumulators, element i
// into accumulator (i%32)/8, lane i%8; a last partial 32-block goes into the
// first accumulator) that are folded in one fixed order, and a tail of at
// most 7 floats added one by one. The amd64 assembly (AVX2, without fused
// multiply-add) and the portable Go below perform the same operations in
// the same order, so a distance has the same bits on every machine and a
// seeded build gives the same index everywhere.

// l2sqGo is the body of L2Squared in portable Go (len(a) a multiple of 8,
// len(b) >= len(a)).
func l2sqGo(a, b []float32) float32 {
	var acc [32]float32
	b = b[:len(a)]
	i := 0
	for ; i+32 <= len(a); i += 32 {
		x, y := (*[32]float32)(a[i:i+32]), (*[32]float32)(b[i:i+32])
		for j := range 32 {
			d := x[j] - y[j]
			// the conversion keeps the compiler from fusing the multiply
			// into the add, as the assembly does not fuse either
			acc[j] += float32(d * d)
		}
	}
	for ; i+8 <= len(a); i += 8 {
		x, y := (*[8]float32)(a[i:i+8]), (*[8]float32)(b[i:i+8])
		for j := range 8 {
			d := x[j] - y[j]
			acc[j] += float32(d * d)
		}
	}
	return fold(&acc)
}

// dotGo is the body of DotProduct in portable Go (len(a) a multiple of 8,
// len(b) >= len(a)).
func dotGo(a, b []float32) float32 {
	var acc [32]float32
	b = b[:len(a)]
	i := 0
	for ; i+32 <= len(a); i += 32 {
		x, y := (*[32]float32)(a[i:i+32]), (*[32]float32)(b[i:i+32])
		for j := range 32 {
			acc[j] += float32(x[j] * y[j])
		}
	}
	for ; i+8 <= len(a); i += 8 {
		x, y := (*[8]float32)(a[i:i+8]), (*[8]float32)(b[i:i+8])
		for j := range 8 {
			acc[j] += float32(x[j] * y[j])
		}
	}
	return fold(&acc)
}

// fold sums the 32 partial sums as the assembly does: the four
// accumulators pairwise, (0+1)+(2+3), then lanes j+4 onto j, then 2+0 and
// 3+1, then the two.
func fold(acc *[32]float32) float32 {
	var l [8]float32
	for j := range 8 {
		l[j] = (acc[j] + acc[8+j]) + (acc[16+j] + acc[24+j])
	}
	t0, t1, t2, t3 := l[0]+l[4], l[1]+l[5], l[2]+l[6], l[3]+l[7]
	return (t0 + t2) + (t1 + t3)
}

// l2sqBatchGo sets out[c] to the squared L2 distance of x to row c of rows
// (len(out) rows of len(x) floats, len(x) a multiple of 8).
func l2sqBatchGo(x, rows []float32, out []float32) {
	dim := len(x)
	for c := range out {
		out[c] = l2sqGo(x, rows[c*dim:(c+1)*dim])
	}
}

// dotBatchGo sets out[c] to x · row c of rows.
func dotBatchGo(x, rows []float32, out []float32) {
	dim := len(x)
	for c := range out {
		out[c] = dotGo(x, rows[c*dim:(c+1)*dim])
	}
}

// l2sq8TGo sets out[c] (c < len(out), a multiple of 8) to the squared L2
// distance of the 8 floats x to column c of t, 8 rows of len(out) floats
// (float j of centroid c at t[j*len(out)+c]). For 8 floats fold reduces to
// ((s0+s4)+(s2+s6)) + ((s1+s5)+(s3+s7)) of the squares s: the same bits as
// l2sqGo of the row, while the columns let 8 centroids share each step.
func l2sq8TGo(x *[8]float32, t []float32, out []float32) {
	k := len(out)
	t = t[:8*k]
	for c := range out {
		var s [8]float32
		for j := range 8 {
			d := x[j] - t[j*k+c]
			s[j] = float32(d * d)
		}
		out[c] = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
	}
}

// centSet is a set of centroids prepared for the distances of many rows to
// all of them; 8-float L2 centroids (PQ codebooks of 8-float sub-vectors)
// also as columns for l2sq8T.
type centSet struct {
	flat []float32
	dim  int
	k    int
	dot  bool
	t8   []float32 // 8 rows of kp floats, or nil
	kp   int       // k rounded up to a multiple of 8 when t8 is set
}

func newCentSet(cent []float32, dim int, dot bool) *centSet {
	s := &centSet{flat: cent, dim: dim, k: len(cent) / dim, dot: dot, kp: len(cent) / dim}
	if dim == 8 && !dot && s.k > 0 {
		s.kp = (s.k + 7) &^ 7
		s.t8 = make([]float32, 8*s.kp)
		for c := range s.k {
			for j := range 8 {
				s.t8[j*s.kp+c] = cent[c*8+j]
			}
		}
	}
	return s
}

// buf is a distance buffer for distances.
func (s *centSet) buf() []float32 { return make([]float32, s.kp) }

// distances sets ds[c] for c < s.k to the distance of x to centroid c:
// squared L2, or for dot 1 - x·c (ds from buf; past s.k it holds padding).
// Dimensions of whole 8-float blocks go through the batch kernels.
func (s *centSet) distances(x, ds []float32) {
	dim := s.dim
	switch {
	case s.t8 != nil:
		l2sq8T((*[8]float32)(x), s.t8, ds[:s.kp])
	case dim%8 == 0 && dim > 0 && s.dot:
		dotBatch(x, s.flat, ds[:s.k])
		for c, d := range ds[:s.k] {
			ds[c] = 1 - d
		}
	case dim%8 == 0 && dim > 0:
		l2sqBatch(x, s.flat, ds[:s.k])
	default:
		for c := range s.k {
			if s.dot {
				ds[c] = 1 - DotProduct(x, s.flat[c*dim:(c+1)*dim])
			} else {
				ds[c] = L2Squared(x, s.flat[c*dim:(c+1)*dim])
			}
		}
	}
}

// nearest is the centroid nearest to x and its distance; ties go to the
// lower index. ds is a buffer from buf.
func (s *centSet) nearest(x, ds []float32) (int, float32) {
	s.distances(x, ds)
	best, bd := 0, float32(math.Inf(1))
	for c, d := range ds[:s.k] {
		if d < bd {
			best, bd = c, d
		}
	}
	return best, bd
}
