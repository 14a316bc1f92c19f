package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/lance/vector"
)

// The VEC_ functions (TiDB's names) over vectors given as the text
// '[x, y, ...]' or as []float32 / []float64 values. NULL in, NULL out.
func init() {
	register(
		&Func{Name: "VEC_L2_DISTANCE", MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: vectorDistance(func(a, b []float64) any { return math.Sqrt(vector.L2Squared64(a, b)) })},
		&Func{Name: "VEC_COSINE_DISTANCE", MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: vectorDistance(func(a, b []float64) any {
			if d := vector.Cosine64(a, b); !math.IsNaN(d) {
				return d
			}
			return nil // a zero vector has no direction
		})},
		&Func{Name: "VEC_NEGATIVE_INNER_PRODUCT", MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: vectorDistance(func(a, b []float64) any { return -vector.Dot64(a, b) })},
		&Func{Name: "VEC_L1_DISTANCE", MinArgs: 2, MaxArgs: 2, Result: resultFloat, Eval: vectorDistance(func(a, b []float64) any { return vector.L1_64(a, b) })},
		&Func{Name: "VEC_DIMS", MinArgs: 1, MaxArgs: 1, Result: resultInt, Eval: vectorUnary(func(v []float64) any { return int64(len(v)) })},
		&Func{Name: "VEC_L2_NORM", MinArgs: 1, MaxArgs: 1, Result: resultFloat, Eval: vectorUnary(func(v []float64) any { return math.Sqrt(vector.Dot64(v, v)) })},
		&Func{Name: "VEC_FROM_TEXT", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: vectorUnary(func(v []float64) any { return VectorText(v) })},
		&Func{Name: "VEC_AS_TEXT", MinArgs: 1, MaxArgs: 1, Result: resultString, Eval: vectorUnary(func(v []float64) any { return VectorText(v) })},
	)
}

func vectorUnary(f func([]float64) any) func(*Call, []any) (any, error) {
	return func(c *Call, args []any) (any, error) {
		if args[0] == nil {
			return nil, nil
		}
		v, err := ParseVector(args[0])
		if err != nil {
			return nil, err
		}
		return f(v), nil
	}
}

func vectorDistance(f func(a, b []float64) any) func(*Call, []any) (any, error) {
	return func(c *Call, args []any) (any, error) {
		if args[0] == nil || args[1] == nil {
			return nil, nil
		}
		a, err := ParseVector(args[0])
		if err != nil {
			return nil, err
		}
		b, err := ParseVector(args[1])
		if err != nil {
			return nil, err
		}
		if len(a) != len(b) {
			return nil, fmt.Errorf("%s of vectors of dimensions %d and %d", c.Func.Name, len(a), len(b))
		}
		return f(a, b), nil
	}
}

// MaxVectorDims bounds the dimensions of a vector argument (VECTOR(n)'s
// own limit).
const MaxVectorDims = 1 << 16

// ParseVector reads a vector argument: the text '[x, y, ...]', or a
// []float32 / []float64, each element rounded to a FLOAT (float32).
// Empty vectors, NaN, infinities, values beyond FLOAT and non-numbers are
// errors.
func ParseVector(v any) ([]float64, error) {
	var out []float64
	switch x := v.(type) {
	case []float32:
		out = make([]float64, len(x))
		for i, f := range x {
			out[i] = float64(f)
		}
	case []float64:
		out = slices.Clone(x)
	case string:
		s := strings.TrimSpace(x)
		if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
			return nil, fmt.Errorf("%q is not a vector: want '[x, y, ...]'", clipText(x))
		}
		var raw []json.Number
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%q is not a vector of numbers: want '[x, y, ...]'", clipText(x))
		}
		if len(raw) > MaxVectorDims {
			return nil, fmt.Errorf("vector of %d dimensions is too long", len(raw))
		}
		out = make([]float64, 0, len(raw))
		for _, n := range raw {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil {
				return nil, fmt.Errorf("vector element %s is out of range", n)
			}
			out = append(out, f)
		}
	default:
		return nil, fmt.Errorf("%s is not a vector: want '[x, y, ...]'", describeKind(v))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty vector")
	}
	if len(out) > MaxVectorDims {
		return nil, fmt.Errorf("vector of %d dimensions is too long", len(out))
	}
	for i, f := range out {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxFloat32 {
			return nil, fmt.Errorf("vector element %v is not a finite FLOAT", f)
		}
		// A vector's elements are FLOATs (float32), as TiDB's and the
		// VECTOR(n) column's: '[0.1]' is the float32 nearest 0.1, so a
		// distance over a literal, over the column's text and over its
		// stored float32s is the same number.
		out[i] = float64(float32(f))
	}
	return out, nil
}

// VectorText prints a vector as TiDB does: '[x,y,...]' with each element
// as the shortest FLOAT text.
func VectorText(v []float64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(float32(f)), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func describeKind(v any) string {
	switch v.(type) {
	case int64, uint64:
		return "an integer"
	case float64, float32:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("a %T", v)
}
