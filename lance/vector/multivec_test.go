package vector

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestMaxSim: Lance's multivector distance of one row, 1 - the sum over
// the query's vectors of the best similarity, for both metrics, and NaN
// for a row without vectors.
func TestMaxSim(t *testing.T) {
	row := []float32{1, 0, 0, 2} // (1,0), (0,2)
	query := [][]float32{{1, 1}, {3, 0}}
	if got, want := MaxSim(Dot, query, row, 2), float32(1-(2+3)); got != want {
		t.Errorf("dot: %v, want %v", got, want)
	}
	if got, want := MaxSim(Cosine, query, row, 2), 1-(1/math.Sqrt2+1); math.Abs(float64(got)-want) > 1e-6 {
		t.Errorf("cosine: %v, want %v", got, want)
	}
	if got := MaxSim(Cosine, query, nil, 2); !math.IsNaN(float64(got)) {
		t.Errorf("empty row: %v, want NaN", got)
	}
}

// TestExactMultiRejects: a multivector search with the L2 metric, no query
// vectors, ragged or NaN vectors is ErrInvalidQuery before any read.
func TestExactMultiRejects(t *testing.T) {
	for _, q := range []ExactQuery{
		{Multi: [][]float32{{1, 2}}, Metric: L2, K: 1},
		{Multi: [][]float32{}, Metric: Cosine, K: 1},
		{Multi: [][]float32{{1, 2}, {1}}, Metric: Cosine, K: 1},
		{Multi: [][]float32{{float32(math.NaN()), 2}}, Metric: Dot, K: 1},
		{Multi: [][]float32{{1, 2}}, Metric: Dot, K: 0},
	} {
		if _, err := Exact(context.Background(), nil, q); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%+v: %v, want ErrInvalidQuery", q, err)
		}
	}
}
