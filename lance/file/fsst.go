package lancefile

import (
	"github.com/lancecat/lancecat/lance/file/internal/codec"
)

// fsstTableSize is the symbol table size a 2.1 FSST encoding stores.
const fsstTableSize = codec.FSSTTableSize

// fsstTable is an FSST symbol table (codec has the format).
type fsstTable struct{ t *codec.FSSTTable }

func parseFSSTTable(b []byte) (*fsstTable, error) {
	if len(b) != fsstTableSize {
		return nil, corruptf("fsst symbol table of %d bytes", len(b))
	}
	t, err := codec.ParseFSSTTable(b)
	if err != nil {
		return nil, corruptf("%v", err)
	}
	return &fsstTable{t}, nil
}

// decode expands one compressed string, appending to dst.
func (t *fsstTable) decode(dst, src []byte) ([]byte, error) {
	out, err := t.t.Decode(dst, src)
	if err != nil {
		return nil, corruptf("%v", err)
	}
	return out, nil
}

func (t *fsstTable) decodeBlock(in *block) (*block, error) {
	if uint64(len(in.offsets)) != in.n+1 {
		return nil, corruptf("fsst block: %d offsets for %d values", len(in.offsets), in.n)
	}
	out := &block{n: in.n, variable: true, offsets: make([]uint64, in.n+1)}
	out.data = make([]byte, 0, len(in.data)*2)
	var err error
	for i := uint64(0); i < in.n; i++ {
		// Offsets come from the file: a decreasing or out-of-range pair is
		// corruption, never a slice panic.
		a, b := in.offsets[i], in.offsets[i+1]
		if a > b || b > uint64(len(in.data)) {
			return nil, corruptf("fsst block: value %d spans [%d, %d) of %d bytes", i, a, b, len(in.data))
		}
		out.data, err = t.decode(out.data, in.data[a:b])
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
