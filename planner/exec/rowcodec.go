package exec

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

// A spilled join record is written in a binary layout of its own rather
// than with encoding/gob: gob's reflection over []any was about 8 of Q9's
// 13.5 s at SF 1 (half to encode, half to decode). The files are the
// process's own temporary files, read back once by the join that wrote
// them, so the layout is free to change between versions.
//
// A record is a kind byte, then either (recordFast) the Null flag and the
// two value lists, or (recordGob) a length and one gob-encoded record, for
// a value of a type the layout does not know (any type gob carries).
// Values are a tag byte followed by the value; lengths are uvarints.

const (
	recordFast byte = iota
	recordGob
)

const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt64
	tagUint64
	tagFloat64
	tagFloat32
	tagString
	tagDecimal
	tagBytes
	tagTime
	tagList
	tagMap
	tagFloat32s
)

// maxSpillValueBytes bounds one length read back from a spill file: the
// file is our own, but a torn or corrupted one must fail, not allocate.
const maxSpillValueBytes = 1 << 30

var errUnknownValue = errors.New("value type not in the spill layout")

// appendRecord appends r in the spill layout.
func appendRecord(dst []byte, r *joinRec) ([]byte, error) {
	start := len(dst)
	dst = append(dst, recordFast)
	null := byte(0)
	if r.Null {
		null = 1
	}
	dst = append(dst, null)
	var err error
	if dst, err = appendValues(dst, r.Row); err == nil {
		dst, err = appendValues(dst, r.Key)
	}
	if err == nil {
		return dst, nil
	}
	// A value the layout does not know: the record goes through gob.
	dst = dst[:start]
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(r); err != nil {
		return dst, err
	}
	dst = append(dst, recordGob)
	dst = binary.AppendUvarint(dst, uint64(buf.Len()))
	return append(dst, buf.Bytes()...), nil
}

func appendValues(dst []byte, vs []any) ([]byte, error) {
	dst = binary.AppendUvarint(dst, uint64(len(vs)))
	for _, v := range vs {
		var err error
		if dst, err = appendValue(dst, v); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func appendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, tagNil), nil
	case bool:
		if x {
			return append(dst, tagTrue), nil
		}
		return append(dst, tagFalse), nil
	case int64:
		return binary.AppendVarint(append(dst, tagInt64), x), nil
	case uint64:
		return binary.AppendUvarint(append(dst, tagUint64), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(dst, tagFloat64), math.Float64bits(x)), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(dst, tagFloat32), math.Float32bits(x)), nil
	case string:
		dst = binary.AppendUvarint(append(dst, tagString), uint64(len(x)))
		return append(dst, x...), nil
	case sqltypes.Decimal:
		dst = binary.AppendUvarint(append(dst, tagDecimal), uint64(len(x)))
		return append(dst, x...), nil
	case []byte:
		if x == nil {
			// gob would give back an empty slice; keep nil-ness out of the
			// layout's promises by sending it the gob way.
			return dst, errUnknownValue
		}
		dst = binary.AppendUvarint(append(dst, tagBytes), uint64(len(x)))
		return append(dst, x...), nil
	case time.Time:
		b, err := x.MarshalBinary()
		if err != nil {
			return dst, errUnknownValue
		}
		dst = binary.AppendUvarint(append(dst, tagTime), uint64(len(b)))
		return append(dst, b...), nil
	case []any:
		if x == nil {
			return dst, errUnknownValue
		}
		return appendValues(append(dst, tagList), x)
	case map[string]any:
		if x == nil {
			return dst, errUnknownValue
		}
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(len(x)))
		for k, e := range x {
			dst = binary.AppendUvarint(dst, uint64(len(k)))
			dst = append(dst, k...)
			var err error
			if dst, err = appendValue(dst, e); err != nil {
				return dst, err
			}
		}
		return dst, nil
	case []float32:
		if x == nil {
			return dst, errUnknownValue
		}
		dst = binary.AppendUvarint(append(dst, tagFloat32s), uint64(len(x)))
		for _, f := range x {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
		}
		return dst, nil
	}
	return dst, errUnknownValue
}

// recordReader reads records of the spill layout back.
type recordReader struct {
	r   *bufio.Reader
	buf []byte
}

func (rr *recordReader) read() (joinRec, error) {
	kind, err := rr.r.ReadByte()
	if err != nil {
		return joinRec{}, err
	}
	switch kind {
	case recordFast:
		null, err := rr.r.ReadByte()
		if err != nil {
			return joinRec{}, err
		}
		var r joinRec
		r.Null = null == 1
		if r.Row, err = rr.values(0); err != nil {
			return joinRec{}, err
		}
		if r.Key, err = rr.values(0); err != nil {
			return joinRec{}, err
		}
		return r, nil
	case recordGob:
		b, err := rr.bytes()
		if err != nil {
			return joinRec{}, err
		}
		var r joinRec
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
			return joinRec{}, err
		}
		return r, nil
	}
	return joinRec{}, fmt.Errorf("record kind %d", kind)
}

func (rr *recordReader) length() (int, error) {
	n, err := binary.ReadUvarint(rr.r)
	if err != nil {
		return 0, err
	}
	if n > maxSpillValueBytes {
		return 0, fmt.Errorf("length %d beyond %d", n, maxSpillValueBytes)
	}
	return int(n), nil
}

// bytes reads a length and that many bytes into rr.buf (valid until the
// next call).
func (rr *recordReader) bytes() ([]byte, error) {
	n, err := rr.length()
	if err != nil {
		return nil, err
	}
	if cap(rr.buf) < n {
		rr.buf = make([]byte, n)
	}
	rr.buf = rr.buf[:n]
	if _, err := io.ReadFull(rr.r, rr.buf); err != nil {
		return nil, err
	}
	return rr.buf, nil
}

// maxSpillNesting bounds lists and maps within lists and maps.
const maxSpillNesting = 64

func (rr *recordReader) values(depth int) ([]any, error) {
	n, err := rr.length()
	if err != nil {
		return nil, err
	}
	// Each value is at least its tag byte: a count can be trusted up to
	// what the buffered reader could hold, and grows past that by append.
	out := make([]any, 0, min(n, 4096))
	for range n {
		v, err := rr.value(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (rr *recordReader) value(depth int) (any, error) {
	tag, err := rr.r.ReadByte()
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagNil:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagInt64:
		return binary.ReadVarint(rr.r)
	case tagUint64:
		return binary.ReadUvarint(rr.r)
	case tagFloat64:
		var b [8]byte
		if _, err := io.ReadFull(rr.r, b[:]); err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), nil
	case tagFloat32:
		var b [4]byte
		if _, err := io.ReadFull(rr.r, b[:]); err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b[:])), nil
	case tagString, tagDecimal, tagBytes, tagTime:
		b, err := rr.bytes()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagString:
			return string(b), nil
		case tagDecimal:
			return sqltypes.Decimal(b), nil
		case tagBytes:
			return bytes.Clone(b), nil
		}
		var t time.Time
		if err := t.UnmarshalBinary(b); err != nil {
			return nil, err
		}
		return t, nil
	case tagList, tagMap:
		if depth >= maxSpillNesting {
			return nil, fmt.Errorf("values nest deeper than %d levels", maxSpillNesting)
		}
		if tag == tagList {
			return rr.values(depth + 1)
		}
		n, err := rr.length()
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, min(n, 4096))
		for range n {
			k, err := rr.bytes()
			if err != nil {
				return nil, err
			}
			key := string(k)
			v, err := rr.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		return m, nil
	case tagFloat32s:
		n, err := rr.length()
		if err != nil {
			return nil, err
		}
		out := make([]float32, 0, min(n, 4096))
		var b [4]byte
		for range n {
			if _, err := io.ReadFull(rr.r, b[:]); err != nil {
				return nil, err
			}
			out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(b[:])))
		}
		return out, nil
	}
	return nil, fmt.Errorf("value tag %d", tag)
}
