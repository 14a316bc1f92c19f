//go:build amd64 && !purego

package vector

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernels; without AVX2 (or with the purego
// tag) the portable ones compute the same bits.
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func l2sqAVX2(a, b *float32, n int) float32

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func l2sqBatchAVX2(x, rows *float32, dim, k int, out *float32)

//go:noescape
func dotBatchAVX2(x, rows *float32, dim, k int, out *float32)

func l2sqBody(a, b []float32) float32 {
	if useAVX2 {
		b = b[:len(a)]
		return l2sqAVX2(&a[0], &b[0], len(a))
	}
	return l2sqGo(a, b)
}

func dotBody(a, b []float32) float32 {
	if useAVX2 {
		b = b[:len(a)]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGo(a, b)
}

func l2sqBatch(x, rows, out []float32) {
	if useAVX2 && len(out) > 0 {
		_ = rows[len(out)*len(x)-1]
		l2sqBatchAVX2(&x[0], &rows[0], len(x), len(out), &out[0])
		return
	}
	l2sqBatchGo(x, rows, out)
}

func dotBatch(x, rows, out []float32) {
	if useAVX2 && len(out) > 0 {
		_ = rows[len(out)*len(x)-1]
		dotBatchAVX2(&x[0], &rows[0], len(x), len(out), &out[0])
		return
	}
	dotBatchGo(x, rows, out)
}

//go:noescape
func l2sq8TAVX2(x, t *float32, k int, out *float32)

func l2sq8T(x *[8]float32, t, out []float32) {
	if useAVX2 && len(out) > 0 {
		_ = t[8*len(out)-1]
		l2sq8TAVX2(&x[0], &t[0], len(out), &out[0])
		return
	}
	l2sq8TGo(x, t, out)
}
