// Package arrowjson renders Arrow values as JSON with the conventions of
// conformance/peer/JSONL.md, the format `lancecat dataset cat` prints and the
// peer's dump.mjs prints, so that the two can be compared value by value.
//
// Summary: integers are JSON numbers with every digit (64-bit exact);
// floats are the shortest decimal that round-trips in their own width, with
// "NaN", "Infinity" and "-Infinity" as strings; strings as strings; binary
// as standard base64; date32 as "YYYY-MM-DD"; timestamps as RFC 3339 text
// with exactly 9 fractional digits, suffixed "Z" when the type has a zone
// (the instant in UTC); decimals as strings with exactly scale fraction
// digits; lists as arrays; structs as objects with keys in child order;
// null as null. Object keys are in column order.
package arrowjson

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// WriteLines writes one JSON object per row of rec, each followed by "\n".
func WriteLines(w io.Writer, rec arrow.RecordBatch) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for r := 0; r < int(rec.NumRows()); r++ {
		var err error
		buf, err = AppendRow(buf[:0], rec, r)
		if err != nil {
			return err
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// AppendRow appends row r of rec as one JSON object.
func AppendRow(dst []byte, rec arrow.RecordBatch, r int) ([]byte, error) {
	dst = append(dst, '{')
	for c := 0; c < int(rec.NumCols()); c++ {
		if c > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, rec.Schema().Field(c).Name)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendValue(dst, rec.Column(c), r); err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.Schema().Field(c).Name, err)
		}
	}
	return append(dst, '}'), nil
}

func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

// AppendValue appends element i of arr as a JSON value.
func AppendValue(dst []byte, arr arrow.Array, i int) ([]byte, error) {
	if arr.IsNull(i) {
		return append(dst, "null"...), nil
	}
	switch a := arr.(type) {
	case *array.Null:
		return append(dst, "null"...), nil
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i)), nil
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10), nil
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), nil
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), nil
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), nil
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10), nil
	case *array.Float16:
		return appendFloat16(dst, a.Value(i)), nil
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)), 32), nil
	case *array.Float64:
		return appendFloat(dst, a.Value(i), 64), nil
	case *array.String:
		return appendString(dst, a.Value(i)), nil
	case *array.LargeString:
		return appendString(dst, a.Value(i)), nil
	case *array.StringView:
		return appendString(dst, a.Value(i)), nil
	case *array.Binary:
		return appendBase64(dst, a.Value(i)), nil
	case *array.LargeBinary:
		return appendBase64(dst, a.Value(i)), nil
	case *array.BinaryView:
		return appendBase64(dst, a.Value(i)), nil
	case *array.FixedSizeBinary:
		return appendBase64(dst, a.Value(i)), nil
	case *array.Date32:
		return appendQuoted(dst, dateText(int64(a.Value(i)))), nil
	case *array.Date64:
		return appendQuoted(dst, dateText(floorDiv(int64(a.Value(i)), 86_400_000))), nil
	case *array.Timestamp:
		t := a.DataType().(*arrow.TimestampType)
		s := timestampText(int64(a.Value(i)), t.Unit)
		if t.TimeZone != "" {
			s += "Z"
		}
		return appendQuoted(dst, s), nil
	case *array.Time32:
		u := a.DataType().(*arrow.Time32Type).Unit
		return appendQuoted(dst, timeOfDay(int64(a.Value(i)), u)), nil
	case *array.Time64:
		u := a.DataType().(*arrow.Time64Type).Unit
		return appendQuoted(dst, timeOfDay(int64(a.Value(i)), u)), nil
	case *array.Duration:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Decimal128:
		t := a.DataType().(*arrow.Decimal128Type)
		if err := checkScale(t.Precision, t.Scale); err != nil {
			return nil, err
		}
		return appendQuoted(dst, decimalText(a.Value(i).BigInt(), t.Scale)), nil
	case *array.Decimal256:
		t := a.DataType().(*arrow.Decimal256Type)
		if err := checkScale(t.Precision, t.Scale); err != nil {
			return nil, err
		}
		return appendQuoted(dst, decimalText(a.Value(i).BigInt(), t.Scale)), nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for c := 0; c < a.NumField(); c++ {
			if c > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, st.Field(c).Name)
			dst = append(dst, ':')
			var err error
			if dst, err = AppendValue(dst, a.Field(c), i); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case *array.Map:
		// Not in JSONL.md; rendered as an array of {"key","value"} objects.
		lo, hi := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '[')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			var err error
			if dst, err = AppendValue(dst, keys, int(j)); err != nil {
				return nil, err
			}
			dst = append(dst, `,"value":`...)
			if dst, err = AppendValue(dst, items, int(j)); err != nil {
				return nil, err
			}
			dst = append(dst, '}')
		}
		return append(dst, ']'), nil
	case array.ListLike:
		lo, hi := a.ValueOffsets(i)
		values := a.ListValues()
		if lo < 0 || hi < lo || hi > int64(values.Len()) {
			// A list type that disagrees with its data (a vector dimension
			// larger than the values decoded) must not index past them.
			return nil, fmt.Errorf("arrowjson: %s value %d spans [%d, %d) of %d items", arr.DataType(), i, lo, hi, values.Len())
		}
		dst = append(dst, '[')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendValue(dst, values, int(j)); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case *array.Dictionary:
		return AppendValue(dst, a.Dictionary(), a.GetValueIndex(i))
	case array.ExtensionArray:
		return AppendValue(dst, a.Storage(), i)
	}
	return nil, fmt.Errorf("arrowjson: unsupported type %s", arr.DataType())
}

func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendFloat renders the shortest round-tripping decimal for the given
// width in ECMAScript Number layout (which encoding/json also uses).
func appendFloat(dst []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(dst, `"-Infinity"`...)
	}
	if bits == 32 {
		return appendFloat32(dst, v)
	}
	return appendJSONFloat64(dst, v)
}

// shortestIn finds the shortest decimal that rounds back to v in a narrower
// float type (round maps a float64 to the nearest value of that type), the
// way conformance/peer/arrowjson.mjs does, so that ties pick the same
// digits: at each precision p it tries the p-digit rounding of v with ties
// away from zero (JavaScript's toExponential), then one below and one above,
// keeping the closest candidate that rounds back (the first on equal
// distance). The result is the candidate's float64 in ECMAScript layout.
// It is slow (big.Int, a 160-digit expansion) but exact: the fast paths in
// float.go fall back to it and are tested against it.
func shortestIn(v float64, round func(float64) (float64, bool)) string {
	if v == 0 {
		if math.Signbit(v) {
			return "-0"
		}
		return "0"
	}
	neg := v < 0
	exact := strconv.FormatFloat(math.Abs(v), 'e', 160, 64) // exact for float32/float16 values
	mant, expStr, _ := strings.Cut(exact, "e")
	exp10, _ := strconv.Atoi(expStr)
	allDigits := strings.Replace(mant, ".", "", 1)
	for p := 1; p <= 17; p++ {
		d, e := roundHalfUp(allDigits, p)
		e10 := exp10 + e - (p - 1)
		base := new(big.Int)
		base.SetString(d, 10)
		var best float64
		found := false
		bestDist := math.Inf(1)
		for _, delta := range []int64{0, -1, 1} {
			c := new(big.Int).Add(base, big.NewInt(delta))
			if c.Sign() <= 0 {
				continue
			}
			text := c.String() + "e" + strconv.Itoa(e10)
			if neg {
				text = "-" + text
			}
			cv, err := strconv.ParseFloat(text, 64)
			if err != nil {
				continue
			}
			if r, ok := round(cv); !ok || r != v {
				continue
			}
			if dist := math.Abs(cv - v); dist < bestDist {
				best, bestDist, found = cv, dist, true
			}
		}
		if found {
			b, _ := json.Marshal(best)
			return string(b)
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// roundHalfUp rounds a digit string (d.ddd... without the point) to p
// digits, ties away from zero. carry is 1 when rounding added a digit
// (999 -> 1000), which shifts the exponent.
func roundHalfUp(digits string, p int) (string, int) {
	if len(digits) <= p {
		return digits + strings.Repeat("0", p-len(digits)), 0
	}
	head := []byte(digits[:p])
	if digits[p] >= '5' {
		i := p - 1
		for ; i >= 0; i-- {
			if head[i] == '9' {
				head[i] = '0'
				continue
			}
			head[i]++
			break
		}
		if i < 0 {
			return "1" + string(head[:p-1]), 1
		}
	}
	return string(head), 0
}

// appendFloat16 renders a float16 like float32 values are rendered, with
// binary16 rounding (ties to even).
func appendFloat16(dst []byte, h float16.Num) []byte {
	v := Float16(h.Uint16())
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return appendFloat(dst, v, 64)
	}
	return appendFloat16Value(dst, v)
}

// round16 maps a float64 to the nearest binary16 value (ok false when that
// is an infinity): the rounding shortestIn takes for float16.
func round16(x float64) (float64, bool) {
	r := Float16(Float16Bits(x))
	return r, !math.IsInf(r, 0)
}

// Float16 decodes IEEE 754 binary16 bits exactly, subnormals included
// (arrow-go's float16.Num.Float32 flushes them wrongly).
func Float16(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	e := int(b>>10) & 0x1f
	m := float64(b & 0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+m, e-25)
}

// Float16Bits rounds a finite float64 to binary16, ties to even,
// subnormals included (arrow-go's float16.New flushes them to zero).
func Float16Bits(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	if x >= 65520 { // halfway between the largest half (65504) and 2^16
		return sign | 0x7c00
	}
	_, exp := math.Frexp(x)
	e := exp - 1 // x in [2^e, 2^(e+1))
	if x == 0 || e < -14 {
		m := math.RoundToEven(math.Ldexp(x, 24)) // subnormal units of 2^-24
		return sign | uint16(m)                  // m == 1024 encodes the smallest normal
	}
	m := math.RoundToEven(math.Ldexp(x, 10-e)) // in [1024, 2048]
	if m == 2048 {
		m = 1024
		e++
	}
	if e > 15 {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | uint16(m-1024)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func dateText(days int64) string {
	return time.Unix(days*86400, 0).UTC().Format("2006-01-02")
}

func unitNanos(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1e9
	case arrow.Millisecond:
		return 1e6
	case arrow.Microsecond:
		return 1e3
	}
	return 1
}

func timestampText(v int64, u arrow.TimeUnit) string {
	per := 1e9 / unitNanos(u) // units per second
	sec := floorDiv(v, per)
	nsec := (v - sec*per) * unitNanos(u)
	return time.Unix(sec, nsec).UTC().Format("2006-01-02T15:04:05.000000000")
}

func timeOfDay(v int64, u arrow.TimeUnit) string {
	return timestampText(v, u)[11:]
}

// checkScale refuses a decimal scale outside [0, precision] (at most 76, the
// decimal256 limit): printing it would take memory proportional to the scale.
func checkScale(precision, scale int32) error {
	if scale < 0 || scale > precision || precision > 76 {
		return fmt.Errorf("arrowjson: decimal(%d,%d): scale must lie in [0, precision <= 76]", precision, scale)
	}
	return nil
}

// decimalText prints an unscaled integer with exactly scale fraction digits.
func decimalText(n *big.Int, scale int32) string {
	neg := n.Sign() < 0
	s := new(big.Int).Abs(n).String()
	if scale <= 0 {
		s += strings.Repeat("0", int(-scale))
		if neg && s != "0" && strings.Trim(s, "0") != "" {
			return "-" + s
		}
		return s
	}
	if len(s) <= int(scale) {
		s = strings.Repeat("0", int(scale)-len(s)+1) + s
	}
	out := s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	if neg {
		out = "-" + out
	}
	return out
}
