// Package codec holds the value codecs shared by Lance's 2.0 and 2.1 file
// encodings: FSST string decompression, FastLanes bit unpacking and the
// widths of fixed-width values. Both
// file-format readers (lance/file and lance/file/internal/enc20) use
// them; they return ErrCorrupt for impossible input and never panic on it.
package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrCorrupt reports input no valid encoder could have produced.
var ErrCorrupt = errors.New("corrupt encoded values")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// FSSTTableSize is the size of a serialized FSST symbol table with all 256
// symbol slots, as Lance's fsst crate writes it.
const FSSTTableSize = 8 + 256*8 + 256

// fsstEscape marks a literal byte in FSST-compressed data.
const fsstEscape = 255

// FSSTTable is an FSST symbol table as Lance's fsst crate serializes it: a
// u64 header (low byte: number of symbols, bit 24: compression on), then
// the symbols (u64 each, little endian, first len bytes used) and their
// lengths.
type FSSTTable struct {
	on      bool
	n       int
	symbols [256][8]byte
	lens    [256]uint8
}

// ParseFSSTTable decodes a serialized symbol table.
func ParseFSSTTable(b []byte) (*FSSTTable, error) {
	if len(b) < 8 {
		return nil, corruptf("fsst symbol table of %d bytes", len(b))
	}
	h := binary.LittleEndian.Uint64(b)
	t := &FSSTTable{on: h&(1<<24) != 0, n: int(h & 0xFF)}
	if len(b) < 8+9*t.n {
		return nil, corruptf("fsst symbol table of %d bytes for %d symbols", len(b), t.n)
	}
	for i := 0; i < t.n; i++ {
		copy(t.symbols[i][:], b[8+8*i:16+8*i])
		l := b[8+8*t.n+i]
		if l == 0 || l > 8 {
			return nil, corruptf("fsst symbol %d has length %d", i, l)
		}
		t.lens[i] = l
	}
	return t, nil
}

// Decode expands one compressed value, appending it to dst.
func (t *FSSTTable) Decode(dst, src []byte) ([]byte, error) {
	if !t.on {
		return append(dst, src...), nil
	}
	// Every input byte expands to at most 8 output bytes: reserve that
	// once, then store each symbol as a whole 8-byte word and advance by
	// its length (no per-symbol append).
	n := len(dst)
	buf := slices.Grow(dst, 8*len(src))
	buf = buf[:cap(buf)]
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == fsstEscape {
			if i+1 >= len(src) {
				return nil, corruptf("fsst escape at the end of a value")
			}
			i++
			buf[n] = src[i]
			n++
			continue
		}
		if int(c) >= t.n {
			return nil, corruptf("fsst code %d beyond %d symbols", c, t.n)
		}
		// n+8 <= cap: at most 8 bytes were written per input byte so far.
		*(*[8]byte)(buf[n : n+8]) = t.symbols[c]
		n += int(t.lens[c])
	}
	return buf[:n], nil
}

// FastLanesChunk is the number of values in one FastLanes chunk.
const FastLanesChunk = 1024

// Lance bit-packs integers with the FastLanes layout (its bitpacking crate
// is a port of spiraldb/fastlanes): 1024 values of a T-bit type are packed
// as 1024/T interleaved lanes. Lane l holds the T values of "rows" 0..T-1,
// row r being logical value flOrder[r/8]*16 + (r%8)*128 + l; each lane's
// values are packed back to back (low bits first) into W-bit fields of that
// lane's words, word k of lane l sitting at word index k*(1024/T)+l.
var flOrder = [8]uint64{0, 4, 2, 6, 1, 5, 3, 7}

// UnpackFastLanes decodes one chunk of 1024 values packed at w bits into
// t-bit words (t is 8, 16, 32 or 64; packed holds 1024*w/8 bytes) into out,
// which must hold 1024 values. The caller checks the sizes.
func UnpackFastLanes(t, w uint64, packed []byte, out []uint64) {
	UnpackFastLanesN(t, w, packed, out, FastLanesChunk)
}

// UnpackFastLanesN is UnpackFastLanes decoding only the first n values of
// the chunk into out[:n] (out must hold n values; the rest of out is left
// alone). A chunk's tail and small mini-block chunks hold far fewer than
// 1024 values: only the lane words that hold the first n are read.
func UnpackFastLanesN(t, w uint64, packed []byte, out []uint64, n uint64) {
	n = min(n, FastLanesChunk)
	out = out[:n]
	if w == 0 {
		clear(out)
		return
	}
	lanes := FastLanesChunk / t
	mask := ^uint64(0)
	if w < 64 {
		mask = 1<<w - 1
	}
	// Row r of every lane holds the logical values base(r)+lane, lane <
	// lanes: a contiguous run, so the rows whose run starts at or past n
	// are skipped and the others cut at n. Each row is one loop over its
	// lanes' words with the word size fixed (a load per word, no switch).
	for row := uint64(0); row < t; row++ {
		base := flOrder[row/8]*16 + (row%8)*128
		if base >= n {
			continue
		}
		m := min(lanes, n-base)
		p := row * w
		k, s := p/t, p%t
		o := out[base : base+m]
		spill := s+w > t // the value continues in the lane's next word
		switch t {
		case 8:
			lo := packed[k*lanes : k*lanes+m]
			if spill {
				hi := packed[(k+1)*lanes : (k+1)*lanes+m]
				for l := range o {
					o[l] = (uint64(lo[l])>>s | uint64(hi[l])<<(t-s)) & mask
				}
			} else {
				for l := range o {
					o[l] = uint64(lo[l]) >> s & mask
				}
			}
		case 16:
			lo := packed[2*k*lanes : 2*(k*lanes+m)]
			if spill {
				hi := packed[2*(k+1)*lanes : 2*((k+1)*lanes+m)]
				for l := range o {
					o[l] = (uint64(binary.LittleEndian.Uint16(lo[2*l:]))>>s | uint64(binary.LittleEndian.Uint16(hi[2*l:]))<<(t-s)) & mask
				}
			} else {
				for l := range o {
					o[l] = uint64(binary.LittleEndian.Uint16(lo[2*l:])) >> s & mask
				}
			}
		case 32:
			lo := packed[4*k*lanes : 4*(k*lanes+m)]
			if spill {
				hi := packed[4*(k+1)*lanes : 4*((k+1)*lanes+m)]
				for l := range o {
					o[l] = (uint64(binary.LittleEndian.Uint32(lo[4*l:]))>>s | uint64(binary.LittleEndian.Uint32(hi[4*l:]))<<(t-s)) & mask
				}
			} else {
				for l := range o {
					o[l] = uint64(binary.LittleEndian.Uint32(lo[4*l:])) >> s & mask
				}
			}
		default:
			lo := packed[8*k*lanes : 8*(k*lanes+m)]
			if spill {
				hi := packed[8*(k+1)*lanes : 8*((k+1)*lanes+m)]
				for l := range o {
					o[l] = (binary.LittleEndian.Uint64(lo[8*l:])>>s | binary.LittleEndian.Uint64(hi[8*l:])<<(t-s)) & mask
				}
			} else {
				for l := range o {
					o[l] = binary.LittleEndian.Uint64(lo[8*l:]) >> s & mask
				}
			}
		}
	}
}

// PackFastLanes is the inverse of UnpackFastLanes: it packs the 1024 values
// of vals (each below 1<<w) at w bits into t-bit little-endian words,
// appending the 1024*w/8 bytes to dst. Chunks shorter than 1024 values are
// padded by the caller (Lance pads with zeros).
func PackFastLanes(dst []byte, t, w uint64, vals []uint64) []byte {
	if w == 0 {
		return dst
	}
	lanes := FastLanesChunk / t
	n := FastLanesChunk * w / t // words
	var words [FastLanesChunk]uint64
	for row := uint64(0); row < t; row++ {
		base := flOrder[row/8]*16 + (row%8)*128
		p := row * w
		k, s := p/t, p%t
		spill := s+w > t
		for lane := uint64(0); lane < lanes; lane++ {
			v := vals[base+lane]
			words[k*lanes+lane] |= v << s
			if spill {
				words[(k+1)*lanes+lane] |= v >> (t - s)
			}
		}
	}
	off := len(dst)
	dst = append(dst, make([]byte, n*(t/8))...)
	out := dst[off:]
	switch t {
	case 8:
		for i := uint64(0); i < n; i++ {
			out[i] = byte(words[i])
		}
	case 16:
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(words[i]))
		}
	case 32:
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(words[i]))
		}
	default:
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint64(out[8*i:], words[i])
		}
	}
	return dst
}

// FixedWidthBits is the bit width of a value of a fixed-width Arrow type (1
// for bool), or 0 for types that are not fixed-width.
func FixedWidthBits(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.BOOL:
		return 1
	case arrow.INT8, arrow.UINT8:
		return 8
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		return 16
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32:
		return 32
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return 64
	case arrow.DECIMAL128:
		return 128
	case arrow.DECIMAL256:
		return 256
	case arrow.FIXED_SIZE_BINARY:
		return dt.(*arrow.FixedSizeBinaryType).ByteWidth * 8
	}
	return 0
}
