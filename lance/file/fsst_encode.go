package lancefile

// FSST compression of variable-width mini-block pages (the decoder is
// fsst.go / internal/codec). Lance 8.0's 2.1 writer compresses a string page
// with FSST when its longest value has at least 5 bytes and the page has at
// least 32 KiB of value data: one symbol table per page, trained on a sample
// of about 16 KiB of its values, stored in the page's encoding; every value
// is compressed on its own and the compressed values are then chunked like
// any variable-width page (fsst over variable). Binary columns are left
// alone. The symbol table here is trained with the FSST paper's iterative
// greedy construction; the symbols need not be the ones Lance would pick,
// only the serialized table and the code stream must be what Lance decodes.

import (
	"encoding/binary"
	"slices"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

const (
	// fsstMinPageData is Lance's FSST_LEAST_INPUT_SIZE: below it Lance's
	// encoder stores the values uncompressed (its "switch" off), so there is
	// nothing to gain and the 2 KiB table would only cost.
	fsstMinPageData = 32 * 1024
	// fsstMinMaxLen is Lance's FSST_LEAST_INPUT_MAX_LENGTH: pages whose values
	// are all shorter than this are never FSST-compressed.
	fsstMinMaxLen = 5
	// fsstSampleTarget bounds the training sample (Lance samples ~16 KiB).
	fsstSampleTarget = 16 * 1024
	// fsstMaxSymbols: code 255 is the escape.
	fsstMaxSymbols = 255
	// fsstRounds of candidate generation: symbols at most double in length
	// per round, so five rounds reach the 8-byte maximum.
	fsstRounds = 5
	// fsstMagic is the high half of a table's header ("FSST"); Lance's decoder
	// refuses a table without it.
	fsstMagic = uint64(0x46535354) << 32
	// fsstSwitchOn (bit 24 of the header) tells the decoder the values are
	// compressed.
	fsstSwitchOn    = uint64(1) << 24
	fsstLongBuckets = 1 << 10
	// fsstEscapeCode marks a literal byte in the code stream.
	fsstEscapeCode = 255
	// fsstPseudo is the first training code of a literal byte (256 + byte):
	// literals take part in pair counting like symbols.
	fsstPseudo = 256
)

// fsstSymbol is a symbol of 1-8 bytes, little endian in val (unused high
// bytes zero).
type fsstSymbol struct {
	val uint64
	n   uint8
}

func fsstMask(n uint8) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*uint(n)) - 1
}

// concat returns a followed by b, cut at 8 bytes.
func (a fsstSymbol) concat(b fsstSymbol) fsstSymbol {
	n := min(a.n+b.n, 8)
	v := a.val | b.val<<(8*uint(a.n))
	return fsstSymbol{val: v & fsstMask(n), n: n}
}

// fsstEncoder holds a symbol table and the lookup structures of greedy
// longest-match parsing.
type fsstEncoder struct {
	syms  []fsstSymbol // the code of a symbol is its index
	byte1 [256]int16   // code of the 1-byte symbol b, -1 if none
	// short maps a 2-byte prefix (little endian) to the best symbol of at
	// most 2 bytes it starts with: code | length<<8, or fsstNoShort when its
	// first byte has to be escaped.
	short []uint16
	// long holds the symbols of 3+ bytes by a hash of their first three
	// bytes, longest first, so the first that matches is the longest.
	long [fsstLongBuckets][]fsstLong
}

// fsstLong is a symbol of 3+ bytes in a long bucket, with what matching it
// needs in one place.
type fsstLong struct {
	val, mask uint64
	n, code   uint8
}

const fsstNoShort = 0xFFFF

func fsstHash3(w uint64) uint32 {
	return uint32(((w & 0xFFFFFF) * 2971215073) >> 15 & (fsstLongBuckets - 1))
}

func newFSSTEncoder(syms []fsstSymbol) *fsstEncoder {
	e := &fsstEncoder{syms: syms, short: make([]uint16, 1<<16)}
	for i := range e.byte1 {
		e.byte1[i] = -1
	}
	var byte2 map[uint16]uint8
	for c, s := range syms {
		switch {
		case s.n == 1:
			e.byte1[s.val] = int16(c)
		case s.n == 2:
			if byte2 == nil {
				byte2 = map[uint16]uint8{}
			}
			byte2[uint16(s.val)] = uint8(c)
		default:
			h := fsstHash3(s.val)
			e.long[h] = append(e.long[h], fsstLong{val: s.val, mask: fsstMask(s.n), n: s.n, code: uint8(c)})
		}
	}
	// Without a 2-byte symbol an entry depends on the first byte alone: fill
	// 256 entries and repeat them.
	for x := 0; x < 256; x++ {
		if c := e.byte1[x]; c >= 0 {
			e.short[x] = uint16(c) | 1<<8
		} else {
			e.short[x] = fsstNoShort
		}
	}
	for n := 256; n < len(e.short); n *= 2 {
		copy(e.short[n:], e.short[:n])
	}
	for x, c := range byte2 {
		e.short[x] = uint16(c) | 2<<8
	}
	for h := range e.long {
		slices.SortStableFunc(e.long[h], func(x, y fsstLong) int { return int(y.n) - int(x.n) })
	}
	return e
}

// load reads up to 8 bytes of s as a little-endian word (zero padded).
func fsstLoad(s []byte) uint64 {
	if len(s) >= 8 {
		return binary.LittleEndian.Uint64(s)
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return w
}

// match returns the code of the longest symbol that s (non-empty) starts
// with and its length; code -1 means s[0] has to be escaped.
func (e *fsstEncoder) match(s []byte) (int, int) {
	if len(s) == 1 {
		return int(e.byte1[s[0]]), 1
	}
	w := fsstLoad(s)
	if len(s) >= 3 {
		for _, l := range e.long[fsstHash3(w)] {
			// The word is zero padded past the value: the length check keeps
			// a symbol ending in zero bytes from matching the padding.
			if w&l.mask == l.val && int(l.n) <= len(s) {
				return int(l.code), int(l.n)
			}
		}
	}
	if v := e.short[w&0xFFFF]; v != fsstNoShort {
		return int(v & 0xFF), int(v >> 8)
	}
	return -1, 1
}

// appendCompressed appends the code stream of one value to dst.
func (e *fsstEncoder) appendCompressed(dst, s []byte) []byte {
	for len(s) > 0 {
		c, n := e.match(s)
		if c < 0 {
			dst = append(dst, fsstEscapeCode, s[0])
		} else {
			dst = append(dst, byte(c))
		}
		s = s[n:]
	}
	return dst
}

// table serializes the symbol table the way Lance's fsst crate does: a u64
// header (magic, switch, suffix limit, terminator, number of symbols), the
// symbols as u64 each, then their lengths, zero filled to the fixed size.
// The suffix limit and terminator only speed up Lance's own encoder; its
// decoder reads the count, the symbols and the lengths.
func (e *fsstEncoder) table() []byte {
	b := make([]byte, fsstTableSize)
	n := len(e.syms)
	binary.LittleEndian.PutUint64(b, fsstMagic|fsstSwitchOn|uint64(n))
	for i, s := range e.syms {
		binary.LittleEndian.PutUint64(b[8+8*i:], s.val)
		b[8+8*n+i] = s.n
	}
	return b
}

// fsstSample picks values of the page (by a fixed-seed generator, so that a
// file's bytes do not depend on the run) until about fsstSampleTarget bytes;
// the whole data when it is that small. Values are cut at 512 bytes so one
// huge value cannot be the whole sample.
func fsstSample(offsets []uint64, data []byte) [][]byte {
	n := len(offsets) - 1
	if n <= 0 {
		return nil
	}
	value := func(i int) []byte {
		v := data[offsets[i]:offsets[i+1]]
		return v[:min(len(v), 512)]
	}
	var out [][]byte
	if len(data) <= fsstSampleTarget {
		for i := 0; i < n; i++ {
			if v := value(i); len(v) > 0 {
				out = append(out, v)
			}
		}
		return out
	}
	x := uint64(0x9E3779B97F4A7C15)
	size := 0
	// Bounded: at most 64 draws per target byte even when most values are empty.
	for draws := 0; size < fsstSampleTarget && draws < 64*fsstSampleTarget; draws++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v := value(int(x % uint64(n)))
		if len(v) > 0 {
			out = append(out, v)
			size += len(v)
		}
	}
	return out
}

// trainFSST builds a symbol table for the sample: starting from an empty
// table (every byte escaped), each round parses the sample greedily with the
// current table, counts how often each symbol and each pair of consecutive
// symbols occur, and keeps the 255 candidates (the symbols and the pairs'
// concatenations) with the highest gain (occurrences times length; single
// bytes weighted up, as in the paper's implementation, since each one
// replaces a 2-byte escape). The table that compresses the sample best wins.
func trainFSST(sample [][]byte) *fsstEncoder {
	cur := newFSSTEncoder(nil)
	var best *fsstEncoder
	bestSize := -1
	single := make([]uint32, fsstPseudo+256)
	pairs := map[uint32]uint32{}
	for round := 0; round <= fsstRounds; round++ {
		clear(single)
		clear(pairs)
		size := 0
		for _, s := range sample {
			prev := -1
			for len(s) > 0 {
				c, n := cur.match(s)
				if c < 0 {
					c = fsstPseudo + int(s[0])
					size += 2
				} else {
					size++
				}
				single[c]++
				if prev >= 0 {
					pairs[uint32(prev)<<16|uint32(c)]++
				}
				prev = c
				s = s[n:]
			}
		}
		if len(cur.syms) > 0 && (bestSize < 0 || size < bestSize) {
			best, bestSize = cur, size
		}
		if round == fsstRounds {
			break
		}
		symOf := func(c int) fsstSymbol {
			if c >= fsstPseudo {
				return fsstSymbol{val: uint64(c - fsstPseudo), n: 1}
			}
			return cur.syms[c]
		}
		gain := map[fsstSymbol]uint64{}
		for c, k := range single {
			if k == 0 {
				continue
			}
			s := symOf(c)
			w := uint64(k) * uint64(s.n)
			if s.n == 1 {
				w *= 8
			}
			gain[s] += w
		}
		for key, k := range pairs {
			a := symOf(int(key >> 16))
			if a.n == 8 || k < 2 {
				continue
			}
			s := a.concat(symOf(int(key & 0xFFFF)))
			gain[s] += uint64(k) * uint64(s.n)
		}
		cands := make([]fsstSymbol, 0, len(gain))
		for s := range gain {
			cands = append(cands, s)
		}
		slices.SortFunc(cands, func(x, y fsstSymbol) int {
			gx, gy := gain[x], gain[y]
			switch {
			case gx != gy:
				if gx > gy {
					return -1
				}
				return 1
			case x.n != y.n:
				return int(y.n) - int(x.n)
			case x.val < y.val:
				return -1
			case x.val > y.val:
				return 1
			}
			return 0
		})
		cur = newFSSTEncoder(cands[:min(len(cands), fsstMaxSymbols)])
	}
	return best
}

// writerFSST switches FSST compression on; the size measurement and the
// write benchmark turn it off for their baseline figures.
var writerFSST = true

// fsstPage is the FSST layer of one page: its serialized symbol table.
type fsstPage struct{ table []byte }

// fsstValues decides, as Lance's default compression strategy does, whether
// the variable-width values of a page are FSST-compressed (mini-block and
// full-zip pages alike: Lance compresses each value of a full-zip page with
// one table for the page too). If so it returns a copy of acc whose values
// are the compressed ones and the page's FSST layer; otherwise acc itself and
// nil. A table that would not shrink the page (values without repeats,
// random bytes) is dropped, which Lance does not do: it only ever makes a
// file smaller.
func fsstValues(leaf *leafSpec, acc *leafAccum) (*leafAccum, *fsstPage) {
	if !writerFSST || leaf.kind != valuesVariable || leaf.binary || acc.maxLen < fsstMinMaxLen || len(acc.data) < fsstMinPageData {
		return acc, nil
	}
	n := acc.numValues
	if len(acc.offsets) != n+1 {
		return acc, nil
	}
	enc := trainFSST(fsstSample(acc.offsets, acc.data))
	if enc == nil {
		return acc, nil
	}
	tab := enc.table()
	budget := len(acc.data) - len(tab)
	// The budget bounds the output: one allocation, no regrowth.
	out := make([]byte, 0, len(acc.data))
	offs := make([]uint64, n+1)
	for i := 0; i < n; i++ {
		out = enc.appendCompressed(out, acc.data[acc.offsets[i]:acc.offsets[i+1]])
		if len(out) >= budget {
			return acc, nil
		}
		offs[i+1] = uint64(len(out))
	}
	c := *acc
	c.offsets, c.data = offs, out
	return &c, &fsstPage{table: tab}
}

// over returns the FSST layer of the page over the value compression e of
// its compressed values (e itself when the page is not FSST-compressed).
func (f *fsstPage) over(e *enc21pb.CompressiveEncoding) *enc21pb.CompressiveEncoding {
	if f == nil {
		return e
	}
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Fsst{
		Fsst: &enc21pb.Fsst{Values: e, SymbolTable: f.table},
	}}
}
