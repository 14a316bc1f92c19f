package inverted

import (
	"encoding/binary"
	"fmt"
)

// fstMap reads a token map serialized by the Rust fst crate (format
// version 2 or 3): a byte-keyed finite state transducer whose outputs,
// summed along a key's path, are the token ids. It is read in place: Get
// walks from the root, Each visits keys in order. Every offset is checked
// against the buffer; a corrupt FST is an error, never a panic.
type fstMap struct {
	data    []byte // the node area: bytes up to the footer
	version uint64
	root    uint64
	len     uint64
}

// fstCommon is fst's table of the 63 most common input bytes: a one-byte
// node state stores an index into it instead of the input byte.
const fstCommon = "te/oasripcnw.hlm-du012g=:bf3y5&_4v9678k%?xCDASFIBEjPTzRNM+LOqHGWUV,YKJZXQ;)(~[]$!'*@"

const fstTransIndexThreshold = 32

func openFST(b []byte) (*fstMap, error) {
	if len(b) < 32 {
		return nil, corrupt("token fst of %d bytes", len(b))
	}
	version := binary.LittleEndian.Uint64(b)
	if version < 1 || version > 3 {
		return nil, corrupt("token fst version %d", version)
	}
	end := len(b)
	if version >= 3 {
		if len(b) < 36 {
			return nil, corrupt("token fst of %d bytes", len(b))
		}
		end -= 4 // crc32c checksum
	}
	root := binary.LittleEndian.Uint64(b[end-8:])
	n := binary.LittleEndian.Uint64(b[end-16:])
	data := b[:end-16]
	if root != 0 && root >= uint64(len(data)) {
		return nil, corrupt("token fst root %d beyond %d bytes", root, len(data))
	}
	return &fstMap{data: data, version: version, root: root, len: n}, nil
}

type fstNode struct {
	start     int // address of the state byte
	end       int // lowest address of the node
	kind      byte
	final     bool
	ntrans    int
	tsize     int
	osize     int
	finalOut  uint64
	inputLen  int // OneTrans/OneTransNext: 1 when the input byte is stored
	common    byte
	hasCommon bool
	ntransLen int // AnyTrans: 1 when the count is stored in a byte
}

const (
	kindOneTransNext = 3
	kindOneTrans     = 2
	kindAnyTrans     = 0
	kindEmptyFinal   = 255
)

func (f *fstMap) byteAt(i int) (byte, error) {
	if i < 0 || i >= len(f.data) {
		return 0, corrupt("token fst offset %d beyond %d bytes", i, len(f.data))
	}
	return f.data[i], nil
}

func (f *fstMap) uintAt(i, n int) (uint64, error) {
	if n < 0 || n > 8 || i < 0 || i+n > len(f.data) {
		return 0, corrupt("token fst integer of %d bytes at %d beyond %d bytes", n, i, len(f.data))
	}
	var v uint64
	for k := 0; k < n; k++ {
		v |= uint64(f.data[i+k]) << (8 * k)
	}
	return v, nil
}

func (f *fstMap) node(addr uint64) (fstNode, error) {
	if addr == 0 {
		return fstNode{kind: kindEmptyFinal, final: true}, nil
	}
	if addr >= uint64(len(f.data)) {
		return fstNode{}, corrupt("token fst node %d beyond %d bytes", addr, len(f.data))
	}
	a := int(addr)
	s := f.data[a]
	n := fstNode{start: a}
	switch s >> 6 {
	case 3:
		n.kind, n.ntrans = kindOneTransNext, 1
		if idx := s & 0x3f; idx != 0 {
			n.common, n.hasCommon = fstCommon[idx-1], true
		} else {
			n.inputLen = 1
		}
		n.end = a - n.inputLen
	case 2:
		n.kind, n.ntrans = kindOneTrans, 1
		if idx := s & 0x3f; idx != 0 {
			n.common, n.hasCommon = fstCommon[idx-1], true
		} else {
			n.inputLen = 1
		}
		ps, err := f.byteAt(a - n.inputLen - 1)
		if err != nil {
			return n, err
		}
		n.tsize, n.osize = int(ps>>4), int(ps&0x0f)
		n.end = a - n.inputLen - 1 - n.tsize - n.osize
	default:
		n.kind = kindAnyTrans
		n.final = s&0x40 != 0
		if c := s & 0x3f; c != 0 {
			n.ntrans = int(c)
		} else {
			n.ntransLen = 1
			c, err := f.byteAt(a - 1)
			if err != nil {
				return n, err
			}
			n.ntrans = int(c)
			if n.ntrans == 1 {
				n.ntrans = 256
			}
		}
		ps, err := f.byteAt(a - n.ntransLen - 1)
		if err != nil {
			return n, err
		}
		n.tsize, n.osize = int(ps>>4), int(ps&0x0f)
		if n.tsize > 8 || n.osize > 8 {
			return n, corrupt("token fst pack sizes %#x", ps)
		}
		finalOsize := 0
		if n.final {
			finalOsize = n.osize
		}
		n.end = a - n.ntransLen - 1 - f.transSize(n) - n.ntrans*n.osize - finalOsize
		if n.final && n.osize > 0 {
			at := a - n.ntransLen - 1 - f.transSize(n) - n.ntrans*n.osize - n.osize
			if n.finalOut, err = f.uintAt(at, n.osize); err != nil {
				return n, err
			}
		}
	}
	if n.tsize > 8 || n.osize > 8 || n.end < 0 {
		return n, corrupt("token fst node at %d", a)
	}
	return n, nil
}

func (f *fstMap) indexSize(n fstNode) int {
	if f.version >= 2 && n.ntrans > fstTransIndexThreshold {
		return 256
	}
	return 0
}

func (f *fstMap) transSize(n fstNode) int {
	return n.ntrans + n.ntrans*n.tsize + f.indexSize(n)
}

// trans returns transition i of n: its input byte, output and target.
func (f *fstMap) trans(n fstNode, i int) (inp byte, out uint64, addr uint64, err error) {
	switch n.kind {
	case kindOneTransNext:
		inp = n.common
		if !n.hasCommon {
			if inp, err = f.byteAt(n.start - 1); err != nil {
				return
			}
		}
		if n.end < 1 {
			return 0, 0, 0, corrupt("token fst node at %d", n.start)
		}
		return inp, 0, uint64(n.end - 1), nil
	case kindOneTrans:
		inp = n.common
		if !n.hasCommon {
			if inp, err = f.byteAt(n.start - 1); err != nil {
				return
			}
		}
		if n.osize > 0 {
			if out, err = f.uintAt(n.start-n.inputLen-1-n.tsize-n.osize, n.osize); err != nil {
				return
			}
		}
		var delta uint64
		if delta, err = f.uintAt(n.start-n.inputLen-1-n.tsize, n.tsize); err != nil {
			return
		}
		addr, err = f.target(n, delta)
		return
	case kindAnyTrans:
		if i < 0 || i >= n.ntrans {
			return 0, 0, 0, corrupt("token fst transition %d of %d", i, n.ntrans)
		}
		base := n.start - n.ntransLen - 1 - f.indexSize(n)
		if inp, err = f.byteAt(base - i - 1); err != nil {
			return
		}
		var delta uint64
		if delta, err = f.uintAt(base-n.ntrans-i*n.tsize-n.tsize, n.tsize); err != nil {
			return
		}
		if addr, err = f.target(n, delta); err != nil {
			return
		}
		if n.osize > 0 {
			at := n.start - n.ntransLen - 1 - f.transSize(n) - i*n.osize - n.osize
			out, err = f.uintAt(at, n.osize)
		}
		return
	}
	return 0, 0, 0, corrupt("token fst: transition of an empty node")
}

func (f *fstMap) target(n fstNode, delta uint64) (uint64, error) {
	if delta == 0 {
		return 0, nil
	}
	if delta > uint64(n.end) {
		return 0, corrupt("token fst transition delta %d beyond node at %d", delta, n.end)
	}
	return uint64(n.end) - delta, nil
}

// get returns the output (token id) of key.
func (f *fstMap) get(key []byte) (uint64, bool, error) {
	addr := f.root
	var out uint64
	for _, b := range key {
		n, err := f.node(addr)
		if err != nil {
			return 0, false, err
		}
		found := false
		for i := 0; i < n.ntrans; i++ {
			inp, o, to, err := f.trans(n, i)
			if err != nil {
				return 0, false, err
			}
			if inp == b {
				out += o
				addr = to
				found = true
				break
			}
		}
		if !found {
			return 0, false, nil
		}
	}
	n, err := f.node(addr)
	if err != nil {
		return 0, false, err
	}
	if !n.final {
		return 0, false, nil
	}
	return out + n.finalOut, true, nil
}

// each calls fn for every key with the given prefix, in byte order, with
// its output; depth and count are bounded by the buffer size.
func (f *fstMap) each(prefix []byte, fn func(key []byte, out uint64) error) error {
	addr := f.root
	var out uint64
	for _, b := range prefix {
		n, err := f.node(addr)
		if err != nil {
			return err
		}
		found := false
		for i := 0; i < n.ntrans; i++ {
			inp, o, to, err := f.trans(n, i)
			if err != nil {
				return err
			}
			if inp == b {
				out += o
				addr = to
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	key := append([]byte(nil), prefix...)
	steps := 0
	var walk func(addr uint64, out uint64, depth int) error
	walk = func(addr uint64, out uint64, depth int) error {
		steps++
		if depth > 1<<16 || steps > 4*len(f.data)+1<<20 {
			return corrupt("token fst does not terminate")
		}
		n, err := f.node(addr)
		if err != nil {
			return err
		}
		if n.final {
			if err := fn(key, out+n.finalOut); err != nil {
				return err
			}
		}
		for i := 0; i < n.ntrans; i++ {
			inp, o, to, err := f.trans(n, i)
			if err != nil {
				return err
			}
			key = append(key, inp)
			if err := walk(to, out+o, depth+1); err != nil {
				return err
			}
			key = key[:len(key)-1]
		}
		return nil
	}
	return walk(addr, out, 0)
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}
