package lancefile

import "encoding/binary"

// FSST symbol tables as Lance's fsst crate serializes them: a u64 header
// (low byte: number of symbols, bit 24: compression on, high bits a magic),
// 256 u64 symbols (little endian, first len bytes used) and 256 lengths.
const (
	fsstTableSize = 8 + 256*8 + 256
	fsstEscape    = 255
)

type fsstTable struct {
	on      bool
	n       int
	symbols [256][8]byte
	lens    [256]uint8
}

func parseFSSTTable(b []byte) (*fsstTable, error) {
	if len(b) != fsstTableSize {
		return nil, corruptf("fsst symbol table of %d bytes", len(b))
	}
	h := binary.LittleEndian.Uint64(b)
	t := &fsstTable{on: h&(1<<24) != 0, n: int(h & 0xFF)}
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

// decode expands one compressed string, appending to dst.
func (t *fsstTable) decode(dst, src []byte) ([]byte, error) {
	if !t.on {
		return append(dst, src...), nil
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == fsstEscape {
			if i+1 >= len(src) {
				return nil, corruptf("fsst: escape at end of string")
			}
			i++
			dst = append(dst, src[i])
			continue
		}
		if int(c) >= t.n {
			return nil, corruptf("fsst: code %d beyond %d symbols", c, t.n)
		}
		dst = append(dst, t.symbols[c][:t.lens[c]]...)
	}
	return dst, nil
}

func (t *fsstTable) decodeBlock(in *block) (*block, error) {
	out := &block{n: in.n, variable: true, offsets: make([]uint64, in.n+1)}
	out.data = make([]byte, 0, len(in.data)*2)
	var err error
	for i := uint64(0); i < in.n; i++ {
		out.data, err = t.decode(out.data, in.data[in.offsets[i]:in.offsets[i+1]])
		if err != nil {
			return nil, err
		}
		if len(out.data) > maxItems*4 {
			return nil, corruptf("fsst output too large")
		}
		out.offsets[i+1] = uint64(len(out.data))
	}
	return out, nil
}
