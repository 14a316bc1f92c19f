package vector

import "math"

// sqQuantizer is the reference's 8-bit scalar quantizer: one range
// [start, end] for every dimension (trained as the minimum and maximum
// value of the sample), each value mapped to (x-start)*255/(end-start)
// truncated and saturated to 0..255. Truncating, not rounding, matters:
// the query is scaled the same way when searched, and codes rounded
// against a truncated query are off by half a step in every dimension,
// a bias that costs recall.
type sqQuantizer struct {
	start, end float64
}

// trainSQ takes the bounds of the sample's values. An empty sample yields
// the zero range, which encodes everything as 0 (the reader's convention
// for start == end).
func trainSQ(sample []float32) sqQuantizer {
	if len(sample) == 0 {
		return sqQuantizer{}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range sample {
		v := float64(x)
		lo = math.Min(lo, v)
		hi = math.Max(hi, v)
	}
	return sqQuantizer{start: lo, end: hi}
}

// encode writes the codes of v into out (len(v) bytes).
func (q sqQuantizer) encode(v []float32, out []byte) {
	r := q.end - q.start
	for i, x := range v {
		y := float64(x)
		switch {
		case r <= 0 || !(y > q.start): // NaN too
			out[i] = 0
		case y >= q.end:
			out[i] = 255
		default:
			out[i] = byte(min((y-q.start)*255/r, 255))
		}
	}
}

// decode writes the values codes stand for into out.
func (q sqQuantizer) decode(codes []byte, out []float32) {
	step := (q.end - q.start) / 255
	for i, c := range codes {
		out[i] = float32(q.start + float64(c)*step)
	}
}
