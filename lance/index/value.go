package index

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrUnsupported is wrapped by errors about index files, value types or
// dataset features this package does not handle.
var ErrUnsupported = errors.New("index: unsupported")

// ErrBadQuery is wrapped by errors about a query that does not fit the index.
var ErrBadQuery = errors.New("index: bad query")

// valueKind is the Go representation an indexed Arrow type is compared in.
// Keys are normalized to one comparable Go type per kind so that they can be
// map keys and be ordered the way Lance orders them (signed/unsigned
// integers numerically, floats by IEEE total order, strings and binaries
// bytewise, false < true).
type valueKind int

const (
	kindInt    valueKind = iota // int64
	kindUint                    // uint64
	kindFloat                   // float64
	kindString                  // string (utf8 / large_utf8)
	kindBinary                  // string holding the bytes (binary / large_binary)
	kindBool                    // bool
)

func (k valueKind) String() string {
	return [...]string{"integer", "unsigned integer", "float", "string", "binary", "boolean"}[k]
}

// kindOf maps an Arrow type to its value kind.
func kindOf(t arrow.DataType) (valueKind, error) {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64,
		arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DURATION:
		return kindInt, nil
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return kindUint, nil
	case arrow.FLOAT32, arrow.FLOAT64:
		return kindFloat, nil
	case arrow.STRING, arrow.LARGE_STRING:
		return kindString, nil
	case arrow.BINARY, arrow.LARGE_BINARY:
		return kindBinary, nil
	case arrow.BOOL:
		return kindBool, nil
	}
	return 0, fmt.Errorf("%w: indexed value type %s", ErrUnsupported, t)
}

// valueAt returns element i of arr in its normalized kind; ok is false for null.
func valueAt(arr arrow.Array, i int) (v any, ok bool, err error) {
	if arr.IsNull(i) {
		return nil, false, nil
	}
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i)), true, nil
	case *array.Int16:
		return int64(a.Value(i)), true, nil
	case *array.Int32:
		return int64(a.Value(i)), true, nil
	case *array.Int64:
		return a.Value(i), true, nil
	case *array.Date32:
		return int64(a.Value(i)), true, nil
	case *array.Date64:
		return int64(a.Value(i)), true, nil
	case *array.Timestamp:
		return int64(a.Value(i)), true, nil
	case *array.Time32:
		return int64(a.Value(i)), true, nil
	case *array.Time64:
		return int64(a.Value(i)), true, nil
	case *array.Duration:
		return int64(a.Value(i)), true, nil
	case *array.Uint8:
		return uint64(a.Value(i)), true, nil
	case *array.Uint16:
		return uint64(a.Value(i)), true, nil
	case *array.Uint32:
		return uint64(a.Value(i)), true, nil
	case *array.Uint64:
		return a.Value(i), true, nil
	case *array.Float32:
		return float64(a.Value(i)), true, nil
	case *array.Float64:
		return a.Value(i), true, nil
	case *array.String:
		return a.Value(i), true, nil
	case *array.LargeString:
		return a.Value(i), true, nil
	case *array.Binary:
		return string(a.Value(i)), true, nil
	case *array.LargeBinary:
		return string(a.Value(i)), true, nil
	case *array.Boolean:
		return a.Value(i), true, nil
	}
	return nil, false, fmt.Errorf("%w: indexed value type %s", ErrUnsupported, arr.DataType())
}

// compareValues orders two values of the same kind.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case uint64:
		return cmp.Compare(x, b.(uint64))
	case float64:
		return compareFloatTotal(x, b.(float64))
	case string:
		return cmp.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		default:
			return 1
		}
	}
	panic(fmt.Sprintf("index: compare of unnormalized value %T", a))
}

// compareFloatTotal is IEEE 754 totalOrder (as Rust's f64::total_cmp).
func compareFloatTotal(a, b float64) int {
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	ia ^= int64(uint64(ia>>63) >> 1)
	ib ^= int64(uint64(ib>>63) >> 1)
	return cmp.Compare(ia, ib)
}

// coerce converts a query value to kind k. Values of another numeric Go type
// are converted when exact; a value that cannot be represented in the
// column's type returns ok=false (it can match no row) rather than an error.
func coerce(v any, k valueKind) (out any, ok bool, err error) {
	switch k {
	case kindString, kindBinary:
		switch x := v.(type) {
		case string:
			return x, true, nil
		case []byte:
			return string(x), true, nil
		}
	case kindBool:
		if x, isBool := v.(bool); isBool {
			return x, true, nil
		}
	case kindInt, kindUint, kindFloat:
		return coerceNumber(v, k)
	}
	return nil, false, fmt.Errorf("%w: %T value %v for a %s index", ErrBadQuery, v, v, k)
}

func coerceNumber(v any, k valueKind) (any, bool, error) {
	var (
		i     int64
		u     uint64
		f     float64
		which byte // 'i', 'u', 'f'
	)
	switch x := v.(type) {
	case int:
		i, which = int64(x), 'i'
	case int8:
		i, which = int64(x), 'i'
	case int16:
		i, which = int64(x), 'i'
	case int32:
		i, which = int64(x), 'i'
	case int64:
		i, which = x, 'i'
	case uint:
		u, which = uint64(x), 'u'
	case uint8:
		u, which = uint64(x), 'u'
	case uint16:
		u, which = uint64(x), 'u'
	case uint32:
		u, which = uint64(x), 'u'
	case uint64:
		u, which = x, 'u'
	case float32:
		f, which = float64(x), 'f'
	case float64:
		f, which = x, 'f'
	default:
		return nil, false, fmt.Errorf("%w: %T value %v for a %s index", ErrBadQuery, v, v, k)
	}
	switch k {
	case kindInt:
		switch which {
		case 'i':
			return i, true, nil
		case 'u':
			return int64(u), u <= math.MaxInt64, nil
		default:
			return int64(f), f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63, nil
		}
	case kindUint:
		switch which {
		case 'i':
			return uint64(i), i >= 0, nil
		case 'u':
			return u, true, nil
		default:
			return uint64(f), f == math.Trunc(f) && f >= 0 && f < 1<<64, nil
		}
	default:
		switch which {
		case 'i':
			return float64(i), true, nil
		case 'u':
			return float64(u), true, nil
		default:
			return f, true, nil
		}
	}
}

// ParseValue parses command-line text as a value of the given Arrow type
// (numbers in Go syntax, booleans as true/false, strings and binaries as is).
func ParseValue(t arrow.DataType, s string) (any, error) {
	k, err := kindOf(t)
	if err != nil {
		return nil, err
	}
	switch k {
	case kindInt:
		return strconv.ParseInt(s, 10, 64)
	case kindUint:
		return strconv.ParseUint(s, 10, 64)
	case kindFloat:
		return strconv.ParseFloat(s, 64)
	case kindBool:
		return strconv.ParseBool(s)
	}
	return s, nil
}

// prefixUpperBound is the smallest string greater than every string starting
// with p, or ok=false when there is none (p empty or all 0xFF bytes).
func prefixUpperBound(p string) (string, bool) {
	b := []byte(p)
	for len(b) > 0 && b[len(b)-1] == 0xFF {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "", false
	}
	b[len(b)-1]++
	return string(bytes.Clone(b)), true
}
