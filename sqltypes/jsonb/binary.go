package jsonb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"unicode/utf8"
)

// The JSONB layout of the Rust jsonb crate (databend's), as Lance 8.0
// writes it into a lance.json column (checked byte for byte against the
// peer in peer_test.go). All integers are big-endian.
//
// A document is one value. A scalar document is the header 0x20000000
// followed by one JEntry and its payload. A container is a header
// (type in the top three bits, count in the low 29) followed by its
// JEntries and then their payloads in order:
//
//	array   0x80000000|n   n JEntries, n payloads
//	object  0x40000000|n   n key JEntries (strings), n value JEntries,
//	                       n key payloads, n value payloads; keys sorted
//	                       bytewise, unique
//
// A JEntry is type<<28 | payload length (28 bits): null 0, string 1
// (UTF-8 bytes), number 2, false 3, true 4, container 5 (a nested
// container, without the scalar header). A number payload is a tag byte
// and big-endian bytes: 0x00 zero; 0x10 NaN, 0x20 +Inf, 0x30 -Inf; 0x40
// signed, 0x50 unsigned integer in 1, 2, 4 or 8 bytes (the fewest that
// hold it); 0x60 float64 (8 bytes). The peer's parser makes non-negative
// integers unsigned and negative ones signed; numbers with a fraction or
// an exponent are floats.
const (
	arrayTag      = 0x80000000
	objectTag     = 0x40000000
	scalarTag     = 0x20000000
	headerTypeMsk = 0xE0000000
	headerLenMask = 0x1FFFFFFF

	entryNull      = 0x0
	entryString    = 0x1
	entryNumber    = 0x2
	entryFalse     = 0x3
	entryTrue      = 0x4
	entryContainer = 0x5
	entryLenMask   = 0x0FFFFFFF
	entryOffFlag   = 0x80000000

	numZero   = 0x00
	numNaN    = 0x10
	numInf    = 0x20
	numNegInf = 0x30
	numInt    = 0x40
	numUint   = 0x50
	numFloat  = 0x60
)

// MaxDecodeDepth bounds the nesting Decode follows (deeper than MySQL's
// MaxDepth, so documents the peer wrote stay readable; bounded so that
// hostile bytes cannot exhaust the stack).
const MaxDecodeDepth = 1000

// ErrTooLarge marks a value too large for the JSONB layout (a payload of
// 2^28 bytes or more, a container of 2^29 members or more).
var ErrTooLarge = errors.New("JSON value too large for JSONB")

// CorruptError is JSONB bytes that do not decode: what is wrong and at
// which byte offset. It matches ErrInvalid.
type CorruptError struct {
	Offset int
	Msg    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("invalid JSONB at byte %d: %s", e.Offset, e.Msg)
}

// Unwrap makes a CorruptError match ErrInvalid.
func (e *CorruptError) Unwrap() error { return ErrInvalid }

// Encode returns the JSONB bytes of v (a value tree as Parse returns it;
// float NaN and infinities are written with their own number tags).
func Encode(v any) ([]byte, error) {
	switch v.(type) {
	case []any, *Object:
		return appendContainer(make([]byte, 0, 256), v, 0)
	}
	out := make([]byte, 8, 8+scalarSize(v))
	binary.BigEndian.PutUint32(out, scalarTag)
	out, typ, err := appendScalar(out, v)
	if err != nil {
		return nil, err
	}
	if len(out)-8 > entryLenMask {
		return nil, ErrTooLarge
	}
	binary.BigEndian.PutUint32(out[4:8], typ<<28|uint32(len(out)-8))
	return out, nil
}

// EncodeText parses JSON text and returns its JSONB bytes.
func EncodeText(text string) ([]byte, error) {
	v, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return Encode(v)
}

// appendScalar appends the payload of a scalar and returns its JEntry
// type.
func appendScalar(out []byte, v any) ([]byte, uint32, error) {
	switch x := v.(type) {
	case nil:
		return out, entryNull, nil
	case bool:
		if x {
			return out, entryTrue, nil
		}
		return out, entryFalse, nil
	case string:
		return append(out, x...), entryString, nil
	case int64:
		if x >= 0 {
			return appendUint(out, uint64(x)), entryNumber, nil
		}
		return appendInt(out, x), entryNumber, nil
	case uint64:
		return appendUint(out, x), entryNumber, nil
	case float64:
		switch {
		case math.IsNaN(x):
			return append(out, numNaN), entryNumber, nil
		case math.IsInf(x, 1):
			return append(out, numInf), entryNumber, nil
		case math.IsInf(x, -1):
			return append(out, numNegInf), entryNumber, nil
		}
		return binary.BigEndian.AppendUint64(append(out, numFloat), math.Float64bits(x)), entryNumber, nil
	}
	return nil, 0, fmt.Errorf("%w: %T is not a JSON value", ErrInvalid, v)
}

func appendUint(out []byte, u uint64) []byte {
	switch {
	case u == 0:
		return append(out, numZero)
	case u <= math.MaxUint8:
		return append(out, numUint, byte(u))
	case u <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(out, numUint), uint16(u))
	case u <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(out, numUint), uint32(u))
	}
	return binary.BigEndian.AppendUint64(append(out, numUint), u)
}

func appendInt(out []byte, i int64) []byte {
	switch {
	case i >= math.MinInt8:
		return append(out, numInt, byte(int8(i)))
	case i >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(out, numInt), uint16(int16(i)))
	case i >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(out, numInt), uint32(int32(i)))
	}
	return binary.BigEndian.AppendUint64(append(out, numInt), uint64(i))
}

// scalarSize is the payload size of a scalar (an estimate for numbers).
func scalarSize(v any) int {
	if s, ok := v.(string); ok {
		return len(s)
	}
	return 9
}

// appendContainer appends the container bytes of an array or object.
func appendContainer(out []byte, v any, depth int) ([]byte, error) {
	if depth >= MaxDecodeDepth {
		return nil, ErrTooDeep
	}
	var members []any
	var keys []string
	switch x := v.(type) {
	case []any:
		if len(x) > headerLenMask {
			return nil, ErrTooLarge
		}
		out = binary.BigEndian.AppendUint32(out, arrayTag|uint32(len(x)))
		members = x
	case *Object:
		if len(x.Keys) > headerLenMask {
			return nil, ErrTooLarge
		}
		out = binary.BigEndian.AppendUint32(out, objectTag|uint32(len(x.Keys)))
		// JSONB keeps keys in bytewise order; Object keeps MySQL's.
		idx := make([]int, len(x.Keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return x.Keys[idx[a]] < x.Keys[idx[b]] })
		keys = make([]string, len(idx))
		members = make([]any, 0, 2*len(idx))
		for i, j := range idx {
			keys[i] = x.Keys[j]
			members = append(members, x.Keys[j])
		}
		for _, j := range idx {
			members = append(members, x.Vals[j])
		}
	}
	entries := len(out)
	out = append(out, make([]byte, 4*len(members))...)
	for i, m := range members {
		start := len(out)
		var typ uint32
		switch m.(type) {
		case []any, *Object:
			var err error
			if out, err = appendContainer(out, m, depth+1); err != nil {
				return nil, err
			}
			typ = entryContainer
		default:
			var err error
			if out, typ, err = appendScalar(out, m); err != nil {
				return nil, err
			}
		}
		n := len(out) - start
		if n > entryLenMask {
			return nil, ErrTooLarge
		}
		binary.BigEndian.PutUint32(out[entries+4*i:], typ<<28|uint32(n))
	}
	return out, nil
}

// Decode reads one JSONB document (all of b) into a value tree. Every
// count and length is checked against the bytes left before anything is
// allocated; errors are *CorruptError or ErrTooDeep (both match
// ErrInvalid).
func Decode(b []byte) (any, error) {
	d := decoder{b: b}
	if len(b) < 4 {
		return nil, d.fail(0, "shorter than a header")
	}
	h := binary.BigEndian.Uint32(b)
	if h&headerTypeMsk == scalarTag {
		if len(b) < 8 {
			return nil, d.fail(4, "scalar without its entry")
		}
		e := binary.BigEndian.Uint32(b[4:])
		v, end, err := d.entry(e, 8, 0)
		if err != nil {
			return nil, err
		}
		if end != len(b) {
			return nil, d.fail(end, "bytes after the value")
		}
		return v, nil
	}
	v, end, err := d.container(0, 0)
	if err != nil {
		return nil, err
	}
	if end != len(b) {
		return nil, d.fail(end, "bytes after the value")
	}
	return v, nil
}

// DecodeText reads a JSONB document and prints it as MySQL 8 does.
func DecodeText(b []byte) (string, error) {
	v, err := Decode(b)
	if err != nil {
		return "", err
	}
	return Format(v), nil
}

type decoder struct{ b []byte }

func (d *decoder) fail(off int, msg string) error { return &CorruptError{Offset: off, Msg: msg} }

// container decodes the container at off and returns its end.
func (d *decoder) container(off, depth int) (any, int, error) {
	if depth >= MaxDecodeDepth {
		return nil, 0, ErrTooDeep
	}
	if len(d.b)-off < 4 {
		return nil, 0, d.fail(off, "container shorter than its header")
	}
	h := binary.BigEndian.Uint32(d.b[off:])
	n := int(h & headerLenMask)
	rest := len(d.b) - off - 4
	switch h & headerTypeMsk {
	case arrayTag:
		if n > rest/4 {
			return nil, 0, d.fail(off, fmt.Sprintf("array of %d entries in %d bytes", n, rest))
		}
		ents := off + 4
		pos := ents + 4*n
		arr := make([]any, n)
		for i := range arr {
			v, end, err := d.entry(binary.BigEndian.Uint32(d.b[ents+4*i:]), pos, depth)
			if err != nil {
				return nil, 0, err
			}
			arr[i], pos = v, end
		}
		return arr, pos, nil
	case objectTag:
		if n > rest/8 {
			return nil, 0, d.fail(off, fmt.Sprintf("object of %d members in %d bytes", n, rest))
		}
		ents := off + 4
		pos := ents + 8*n
		o := &Object{Keys: make([]string, n), Vals: make([]any, n)}
		for i := 0; i < n; i++ {
			e := binary.BigEndian.Uint32(d.b[ents+4*i:])
			if e>>28&7 != entryString {
				return nil, 0, d.fail(ents+4*i, "object key is not a string")
			}
			v, end, err := d.entry(e, pos, depth)
			if err != nil {
				return nil, 0, err
			}
			o.Keys[i], pos = v.(string), end
		}
		for i := 0; i < n; i++ {
			v, end, err := d.entry(binary.BigEndian.Uint32(d.b[ents+4*(n+i):]), pos, depth)
			if err != nil {
				return nil, 0, err
			}
			o.Vals[i], pos = v, end
		}
		o.normalize()
		return o, pos, nil
	}
	return nil, 0, d.fail(off, fmt.Sprintf("container header %#08x", h))
}

// entry decodes the payload of JEntry e at pos and returns its end.
func (d *decoder) entry(e uint32, pos, depth int) (any, int, error) {
	if e&entryOffFlag != 0 {
		return nil, 0, d.fail(pos, "offset-mode entries are not supported")
	}
	n := int(e & entryLenMask)
	if n > len(d.b)-pos {
		return nil, 0, d.fail(pos, fmt.Sprintf("payload of %d bytes with %d left", n, len(d.b)-pos))
	}
	p := d.b[pos : pos+n]
	end := pos + n
	switch e >> 28 & 7 {
	case entryNull, entryFalse, entryTrue:
		if n != 0 {
			return nil, 0, d.fail(pos, "payload on a null or boolean")
		}
		switch e >> 28 & 7 {
		case entryFalse:
			return false, end, nil
		case entryTrue:
			return true, end, nil
		}
		return nil, end, nil
	case entryString:
		if !utf8.Valid(p) {
			return nil, 0, d.fail(pos, "string is not UTF-8")
		}
		return string(p), end, nil
	case entryNumber:
		v, err := number(p)
		if err != nil {
			return nil, 0, d.fail(pos, err.Error())
		}
		return v, end, nil
	case entryContainer:
		sub := decoder{b: p}
		v, cend, err := sub.container(0, depth+1)
		if err != nil {
			var ce *CorruptError
			if errors.As(err, &ce) {
				return nil, 0, d.fail(pos+ce.Offset, ce.Msg)
			}
			return nil, 0, err
		}
		if cend != n {
			return nil, 0, d.fail(pos+cend, "container shorter than its entry")
		}
		return v, end, nil
	}
	return nil, 0, d.fail(pos, fmt.Sprintf("entry type %d", e>>28&7))
}

// number decodes a number payload.
func number(p []byte) (any, error) {
	if len(p) == 0 {
		return nil, errors.New("empty number")
	}
	t, x := p[0], p[1:]
	switch t {
	case numZero, numNaN, numInf, numNegInf:
		if len(x) != 0 {
			return nil, errors.New("bytes after a constant number")
		}
		switch t {
		case numNaN:
			return math.NaN(), nil
		case numInf:
			return math.Inf(1), nil
		case numNegInf:
			return math.Inf(-1), nil
		}
		return int64(0), nil
	case numInt:
		switch len(x) {
		case 1:
			return int64(int8(x[0])), nil
		case 2:
			return int64(int16(binary.BigEndian.Uint16(x))), nil
		case 4:
			return int64(int32(binary.BigEndian.Uint32(x))), nil
		case 8:
			return int64(binary.BigEndian.Uint64(x)), nil
		}
	case numUint:
		var u uint64
		switch len(x) {
		case 1:
			u = uint64(x[0])
		case 2:
			u = uint64(binary.BigEndian.Uint16(x))
		case 4:
			u = uint64(binary.BigEndian.Uint32(x))
		case 8:
			u = binary.BigEndian.Uint64(x)
		default:
			return nil, fmt.Errorf("unsigned integer of %d bytes", len(x))
		}
		if u <= math.MaxInt64 {
			return int64(u), nil
		}
		return u, nil
	case numFloat:
		if len(x) == 8 {
			return math.Float64frombits(binary.BigEndian.Uint64(x)), nil
		}
	default:
		return nil, fmt.Errorf("number tag %#02x", t)
	}
	return nil, fmt.Errorf("number tag %#02x with %d bytes", t, len(x))
}

// normalize puts the members of an object read from JSONB into MySQL's
// key order; of duplicate keys (which the peer never writes) the last
// wins.
func (o *Object) normalize() {
	sorted := true
	for i := 1; i < len(o.Keys); i++ {
		if !keyLess(o.Keys[i-1], o.Keys[i]) {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	idx := make([]int, len(o.Keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keyLess(o.Keys[idx[a]], o.Keys[idx[b]]) })
	keys := make([]string, 0, len(idx))
	vals := make([]any, 0, len(idx))
	for _, j := range idx {
		if n := len(keys); n > 0 && keys[n-1] == o.Keys[j] {
			vals[n-1] = o.Vals[j]
			continue
		}
		keys = append(keys, o.Keys[j])
		vals = append(vals, o.Vals[j])
	}
	o.Keys, o.Vals = keys, vals
}
