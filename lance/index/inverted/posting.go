package inverted

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// posting is one token's decoded posting list within a partition: doc ids
// (indices into the partition's docs) ascending, frequencies, and, when
// asked for, each doc's positions: doc i's are pos[posEnd[i-1]:posEnd[i]]
// (one flat slice, not one per doc: a frequent term's list has a position
// run for most documents of the partition).
type posting struct {
	docs   []uint32
	freqs  []uint32
	pos    []uint32
	posEnd []uint32 // nil: decoded without positions
}

// positions returns the positions of the list's i-th document.
func (pl *posting) positions(i int) []uint32 {
	start := uint32(0)
	if i > 0 {
		start = pl.posEnd[i-1]
	}
	return pl.pos[start:pl.posEnd[i]]
}

// maxPostingBytes bounds one decoded posting list's blocks.
const maxPostingBytes = 1 << 31

// cachedPosting is p's posting list of token tok, decoded once and then
// kept in the segment's posting cache. The list is shared: read only.
func (seg *segment) cachedPosting(ctx context.Context, p *partition, tok uint32, withPos bool) (*posting, error) {
	k := postingKey{part: p.index, tok: tok, withPos: withPos}
	if pl := seg.postings.get(k); pl != nil {
		return pl, nil
	}
	pl, err := p.readPosting(ctx, tok, withPos)
	if err != nil {
		return nil, err
	}
	seg.postings.put(k, pl)
	return pl, nil
}

// readPosting reads and decodes token tok's posting list.
func (p *partition) readPosting(ctx context.Context, tok uint32, withPos bool) (*posting, error) {
	if int(tok) >= len(p.lengths) {
		return nil, corrupt("token id %d of %d postings", tok, len(p.lengths))
	}
	ids := []int32{p.postingID}
	if withPos {
		ids = append(ids, p.posID)
	}
	rec, err := p.invert.ReadRange(ctx, ids, uint64(tok), uint64(tok)+1)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if rec.NumRows() != 1 || int(rec.NumCols()) != len(ids) {
		return nil, corrupt("posting row %d: %d rows", tok, rec.NumRows())
	}
	lst, ok := rec.Column(0).(*array.List)
	if !ok {
		return nil, corrupt("%s of type %s", colPosting, rec.Column(0).DataType())
	}
	blocks, ok := lst.ListValues().(*array.LargeBinary)
	if !ok {
		return nil, corrupt("%s blocks of type %s", colPosting, lst.ListValues().DataType())
	}
	start, end := lst.ValueOffsets(0)
	length := int(p.lengths[tok])
	nblocks := (length + blockSize - 1) / blockSize
	if int(end-start) != nblocks || start < 0 || int(end) > blocks.Len() {
		return nil, corrupt("posting %d: %d blocks for %d docs", tok, end-start, length)
	}
	if uint64(length) > uint64(len(p.rowAddrs)) {
		return nil, corrupt("posting %d: %d docs in a partition of %d", tok, length, len(p.rowAddrs))
	}
	out := &posting{docs: make([]uint32, 0, length), freqs: make([]uint32, 0, length)}
	var buf [blockSize]uint32
	full := length / blockSize
	for b := 0; b < nblocks; b++ {
		blk := blocks.Value(int(start) + b)
		if len(blk) < 4 {
			return nil, corrupt("posting %d block %d of %d bytes", tok, b, len(blk))
		}
		blk = blk[4:] // the block's max score
		if b < full {
			n, ok := unpackSorted(blk, &buf)
			if !ok {
				return nil, corrupt("posting %d block %d", tok, b)
			}
			out.docs = append(out.docs, buf[:]...)
			blk = blk[n:]
			if len(blk) < 1 {
				return nil, corrupt("posting %d block %d", tok, b)
			}
			if _, ok := unpack4x(blk[1:], int(blk[0]), &buf); !ok {
				return nil, corrupt("posting %d block %d", tok, b)
			}
			out.freqs = append(out.freqs, buf[:]...)
			continue
		}
		n := length - full*blockSize
		if len(blk) < 8*n {
			return nil, corrupt("posting %d tail of %d bytes for %d docs", tok, len(blk), n)
		}
		for i := 0; i < n; i++ {
			out.docs = append(out.docs, binary.LittleEndian.Uint32(blk[4*i:]))
		}
		for i := 0; i < n; i++ {
			out.freqs = append(out.freqs, binary.LittleEndian.Uint32(blk[4*(n+i):]))
		}
	}
	for i, d := range out.docs {
		if uint64(d) >= uint64(len(p.rowAddrs)) || (i > 0 && d <= out.docs[i-1]) {
			return nil, corrupt("posting %d: doc id %d at %d", tok, d, i)
		}
	}
	if withPos {
		if err := decodePositions(rec.Column(1), out, tok); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func decodePositions(col any, out *posting, tok uint32) error {
	docs, ok := col.(*array.List)
	if !ok {
		return corrupt("%s of posting %d", colPosition, tok)
	}
	perDoc, ok := docs.ListValues().(*array.List)
	if !ok {
		return corrupt("%s of posting %d: inner type", colPosition, tok)
	}
	blocks, ok := perDoc.ListValues().(*array.LargeBinary)
	if !ok {
		return corrupt("%s of posting %d: block type %s", colPosition, tok, perDoc.ListValues().DataType())
	}
	s, e := docs.ValueOffsets(0)
	if int(e-s) != len(out.docs) || s < 0 || int(e) > perDoc.Len() {
		return corrupt("positions of posting %d: %d docs, want %d", tok, e-s, len(out.docs))
	}
	out.posEnd = make([]uint32, len(out.docs))
	// A document has as many positions as its frequency: size the flat
	// slice for that (capped, the frequencies are the file's word; append
	// grows past it if they lie).
	var total uint64
	for _, f := range out.freqs {
		total += uint64(f)
	}
	out.pos = make([]uint32, 0, min(total, 1<<24))
	var buf [blockSize]uint32
	for d := 0; d < len(out.docs); d++ {
		bs, be := perDoc.ValueOffsets(int(s) + d)
		if bs < 0 || be <= bs || int(be) > blocks.Len() {
			return corrupt("positions of posting %d doc %d", tok, d)
		}
		head := blocks.Value(int(bs))
		if len(head) != 4 {
			return corrupt("positions of posting %d doc %d: count of %d bytes", tok, d, len(head))
		}
		n := int(binary.LittleEndian.Uint32(head))
		full, rem := n/blockSize, n%blockSize
		want := full
		if rem > 0 {
			want++
		}
		if int(be-bs-1) != want || uint64(n) > math.MaxInt32 || uint64(len(out.pos))+uint64(n) > math.MaxUint32 {
			return corrupt("positions of posting %d doc %d: %d blocks for %d positions", tok, d, be-bs-1, n)
		}
		pos := out.pos
		for b := 0; b < full; b++ {
			if _, ok := unpackSorted(blocks.Value(int(bs)+1+b), &buf); !ok {
				return corrupt("positions of posting %d doc %d block %d", tok, d, b)
			}
			pos = append(pos, buf[:]...)
		}
		if rem > 0 {
			blk := blocks.Value(int(bs) + 1 + full)
			if len(blk) < 4*rem {
				return corrupt("positions of posting %d doc %d tail", tok, d)
			}
			for i := 0; i < rem; i++ {
				pos = append(pos, binary.LittleEndian.Uint32(blk[4*i:]))
			}
		}
		out.pos = pos
		out.posEnd[d] = uint32(len(pos))
	}
	return nil
}
