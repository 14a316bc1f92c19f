//go:build !amd64 || purego

package vector

const useAVX2 = false

func l2sqBody(a, b []float32) float32 { return l2sqGo(a, b) }

func dotBody(a, b []float32) float32 { return dotGo(a, b) }

func l2sqBatch(x, rows, out []float32) { l2sqBatchGo(x, rows, out) }

func dotBatch(x, rows, out []float32) { dotBatchGo(x, rows, out) }

func l2sq8T(x *[8]float32, t, out []float32) { l2sq8TGo(x, t, out) }
