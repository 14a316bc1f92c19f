package arrowjson

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// refFloat32 is the reference rendering of a finite float32 (shortestIn).
func refFloat32(f float32) string {
	return shortestIn(float64(f), func(x float64) (float64, bool) { return float64(float32(x)), true })
}

// float32Edges are bit patterns where renderings go wrong: zeros,
// subnormals, binade and decimal boundaries, the extremes, the ES layout
// switches (1e21, 1e-6) and a known tie (-3337338.25).
func float32Edges() []uint32 {
	var out []uint32
	add := func(f float32) {
		b := math.Float32bits(f)
		for d := uint32(0); d < 4; d++ {
			out = append(out, b+d, b-d, (b+d)|1<<31, (b-d)|1<<31)
		}
	}
	for _, f := range []float32{0, math.SmallestNonzeroFloat32, math.Float32frombits(0x007fffff), math.Float32frombits(0x00800000),
		math.MaxFloat32, 1, 0.1, 1e21, 1e-6, 1e-7, 1e20, 9.999999e20, 16777216, 16777217, -3337338.25, 3337338.75, 0.5, 1.5} {
		add(f)
	}
	for e := -149; e <= 127; e++ {
		add(float32(math.Ldexp(1, e)))
	}
	for e := -45; e <= 38; e++ {
		add(float32(math.Pow(10, float64(e))))
	}
	return out
}

// checkFloat32 compares the fast rendering of bits with the reference.
func checkFloat32(t testing.TB, bits uint32) {
	f := math.Float32frombits(bits)
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return
	}
	got := string(appendFloat(nil, float64(f), 32))
	if want := refFloat32(f); got != want {
		t.Fatalf("float32 bits %#08x (%v): fast %s, reference %s", bits, f, got, want)
	}
}

// TestFloat32MatchesReference: the fast float32 path prints what
// shortestIn prints, on edge cases and a bounded random sample (the
// benchmark below runs millions more).
func TestFloat32MatchesReference(t *testing.T) {
	for _, b := range float32Edges() {
		checkFloat32(t, b)
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	for range 30_000 {
		checkFloat32(t, r.Uint32())
	}
	// Ties (an exact value halfway between two shortest candidates, as
	// 3337338.25) are values with few fraction bits and a large integer
	// part: every float32 in [2^10, 2^24) has at most 13 fraction bits.
	for range 5_000 {
		checkFloat32(t, math.Float32bits(float32(math.Ldexp(1+r.Float64(), 10+r.IntN(14)))))
	}
	// Specials keep their spellings.
	for _, c := range []struct {
		v    float32
		want string
	}{{float32(math.NaN()), `"NaN"`}, {float32(math.Inf(1)), `"Infinity"`}, {float32(math.Inf(-1)), `"-Infinity"`},
		{float32(math.Copysign(0, -1)), "-0"}, {0, "0"}, {-3337338.25, "-3337338.3"}, {math.MaxFloat32, "3.4028235e+38"}} {
		if got := string(appendFloat(nil, float64(c.v), 32)); got != c.want {
			t.Errorf("%v: %s, want %s", c.v, got, c.want)
		}
	}
}

// TestFloat16MatchesReference: every binary16 value prints as shortestIn
// prints it.
func TestFloat16MatchesReference(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		v := Float16(uint16(b))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		got := string(appendFloat16Value(nil, v))
		if want := shortestIn(v, round16); got != want {
			t.Fatalf("float16 bits %#04x (%v): fast %s, reference %s", b, v, got, want)
		}
	}
}

// TestFloat64MatchesJSON: float64 values print as encoding/json prints them.
func TestFloat64MatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 7))
	vals := []float64{0, math.Copysign(0, -1), 1e21, 1e20, 999999999999999999999, 1e-6, 9.999999999999999e-7, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1, -123.456}
	for range 100_000 {
		vals = append(vals, math.Float64frombits(r.Uint64()))
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat64(nil, v); string(got) != string(want) {
			t.Fatalf("%v: %s, encoding/json %s", v, got, want)
		}
	}
}

// BenchmarkFloat32Differential checks one million random float32 bit
// patterns per iteration against the reference (run it long for more:
// -benchtime 100x checks 100 million).
func BenchmarkFloat32Differential(b *testing.B) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 3))
	for range b.N {
		for range 1_000_000 {
			checkFloat32(b, r.Uint32())
		}
	}
}

// BenchmarkFloat32DifferentialShort checks one million float32 values per
// iteration near short decimals (up to 8 random digits at a random
// exponent, and their neighbours), where ties and candidates on rounding
// boundaries concentrate.
func BenchmarkFloat32DifferentialShort(b *testing.B) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 5))
	for range b.N {
		for range 250_000 {
			digits := r.IntN(8) + 1
			m := r.Int64N(pow10i(digits))
			x := float32(float64(m) * math.Pow(10, float64(r.IntN(80)-45)))
			bits := math.Float32bits(x)
			for _, d := range []uint32{0, 1, ^uint32(0), 2} {
				checkFloat32(b, bits+d)
			}
		}
	}
}

func pow10i(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// BenchmarkFloat32 measures rendering float32 values: the fast path and
// the reference it replaced.
func BenchmarkFloat32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = float64(float32(r.NormFloat64() * 10))
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for i := range b.N {
			buf = appendFloat(buf[:0], vals[i%len(vals)], 32)
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			_ = refFloat32(float32(vals[i%len(vals)]))
		}
	})
}
