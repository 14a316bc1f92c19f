package lanceschema

import "fmt"

// Limits on schemas, whether built by lancecat or read from disk. A schema
// beyond them is refused with ErrInvalidSchema instead of being turned into
// Arrow types (which panic on some of these values) or walked at a cost that
// grows faster than the schema.
const (
	// MaxNestingDepth bounds how deeply types nest (a top-level field is
	// depth 1; each struct or list level adds one).
	MaxNestingDepth = 64
	// MaxFixedSizeListLen bounds the length of a fixed-size list (a vector
	// dimension) and the width of a fixed-size binary in a schema read from
	// disk. SQL's VECTOR(n) has its own, smaller limit.
	MaxFixedSizeListLen = 1 << 20
	// MaxDecimal128Precision and MaxDecimal256Precision are Arrow's
	// precision limits; a scale must lie in [0, precision].
	MaxDecimal128Precision = 38
	MaxDecimal256Precision = 76
)

// checkDepth refuses a field at a depth beyond MaxNestingDepth.
func checkDepth(name string, depth int) error {
	if depth > MaxNestingDepth {
		return fmt.Errorf("%w: field %q nests deeper than %d levels", ErrInvalidSchema, name, MaxNestingDepth)
	}
	return nil
}

// checkDecimal refuses a precision or scale Arrow cannot represent.
func checkDecimal(lt string, p, s, maxP int64) error {
	if p < 1 || p > maxP || s < 0 || s > p {
		return fmt.Errorf("%w: %q: decimal needs 0 <= scale <= precision <= %d", ErrInvalidSchema, lt, maxP)
	}
	return nil
}

// checkFixedLen refuses a fixed-size list length or binary width outside
// [1, MaxFixedSizeListLen].
func checkFixedLen(lt string, n int64) error {
	if n < 1 || n > MaxFixedSizeListLen {
		return fmt.Errorf("%w: %q: size must be between 1 and %d", ErrInvalidSchema, lt, MaxFixedSizeListLen)
	}
	return nil
}
