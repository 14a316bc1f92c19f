package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/lancecat/lancecat/lance/vector"
)

// The late-interaction (MaxSim) distances over a MULTIVECTOR, a list of
// vectors per row, as Lance's multivector search reports them in
// _distance: 1 - sum over the query's vectors q of the largest similarity
// max_v sim(q, v) to the row's vectors, sim being 1 - Lance's distance
// (cosine similarity; for dot, the inner product). NULL for a NULL or
// empty row, and when a cosine has a zero vector (Lance's NaN).
func init() {
	register(
		&Func{Name: "VEC_MAXSIM_COSINE_DISTANCE", MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: multiVectorDistance(vector.Cosine)},
		&Func{Name: "VEC_MAXSIM_DOT_DISTANCE", MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: multiVectorDistance(vector.Dot)},
	)
}

// MaxMultiVectorLen bounds the vectors of one multivector argument.
const MaxMultiVectorLen = 1 << 16

func multiVectorDistance(m vector.Metric) func(*Call, []any) (any, error) {
	return func(c *Call, args []any) (any, error) {
		if args[0] == nil || args[1] == nil {
			return nil, nil
		}
		row, err := ParseMultiVector(args[0], true)
		if err != nil {
			return nil, err
		}
		query, err := ParseMultiVector(args[1], false)
		if err != nil {
			return nil, err
		}
		if len(row) == 0 {
			return nil, nil
		}
		if len(row[0]) != len(query[0]) {
			return nil, fmt.Errorf("%s of multivectors of dimensions %d and %d", c.Func.Name, len(row[0]), len(query[0]))
		}
		d := MaxSimDistance(m, row, query)
		if math.IsNaN(d) {
			return nil, nil
		}
		return d, nil
	}
}

// MaxSimDistance is 1 - sum over q in query of max over v in row of
// sim(q, v), with sim the cosine similarity (m = Cosine) or the inner
// product (m = Dot): Lance's multivector _distance. NaN when a cosine
// meets a zero vector. Every vector has the same dimension.
func MaxSimDistance(m vector.Metric, row, query [][]float64) float64 {
	var sum float64
	for _, q := range query {
		best := math.Inf(-1)
		for _, v := range row {
			var sim float64
			if m == vector.Cosine {
				sim = 1 - vector.Cosine64(q, v)
			} else {
				sim = vector.Dot64(q, v)
			}
			if math.IsNaN(sim) {
				return math.NaN()
			}
			best = max(best, sim)
		}
		sum += best
	}
	return 1 - sum
}

// ParseMultiVector reads a multivector argument: the text '[[x, y, ...],
// [x, y, ...], ...]', or a [][]float32 / [][]float64, each vector as
// ParseVector reads it and all of one dimension. An empty list is an
// error unless allowEmpty (a stored row may hold no vectors).
func ParseMultiVector(v any, allowEmpty bool) ([][]float64, error) {
	var items []any
	switch x := v.(type) {
	case [][]float32:
		for _, e := range x {
			items = append(items, e)
		}
	case [][]float64:
		for _, e := range x {
			items = append(items, e)
		}
	case string:
		s := strings.TrimSpace(x)
		var raw []json.RawMessage
		if len(s) < 2 || s[0] != '[' || json.Unmarshal([]byte(s), &raw) != nil {
			return nil, fmt.Errorf("%q is not a multivector: want '[[x, y, ...], [x, y, ...]]'", clipText(x))
		}
		for _, r := range raw {
			items = append(items, string(r))
		}
	default:
		return nil, fmt.Errorf("%s is not a multivector: want '[[x, y, ...], [x, y, ...]]'", describeKind(v))
	}
	if len(items) > MaxMultiVectorLen {
		return nil, fmt.Errorf("multivector of %d vectors is too long", len(items))
	}
	if len(items) == 0 && !allowEmpty {
		return nil, fmt.Errorf("empty multivector")
	}
	out := make([][]float64, len(items))
	for i, it := range items {
		vec, err := ParseVector(it)
		if err != nil {
			return nil, fmt.Errorf("multivector element %d: %w", i+1, err)
		}
		if i > 0 && len(vec) != len(out[0]) {
			return nil, fmt.Errorf("multivector element %d has dimension %d, element 1 has %d", i+1, len(vec), len(out[0]))
		}
		out[i] = vec
	}
	return out, nil
}
