package inverted

import (
	"context"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// posting is one token's decoded posting list within a partition: doc ids
// (indices into the partition's docs) ascending and their frequencies.
// Positions are read apart (positionList), only for phrase queries whose
// terms share documents.
type posting struct {
	docs  []uint32
	freqs []uint32
}

// maxPostingBytes bounds one decoded posting list's blocks.
const maxPostingBytes = 1 << 31

// cachedPosting is p's posting list of token tok, decoded once and then
// kept in the segment's posting cache. The list is shared: read only.
func (seg *segment) cachedPosting(ctx context.Context, p *partition, tok uint32) (*posting, error) {
	k := postingKey{part: p.index, tok: tok}
	if pl, ok := seg.postings.get(k).(*posting); ok {
		return pl, nil
	}
	pl, err := p.readPosting(ctx, tok)
	if err != nil {
		return nil, err
	}
	seg.postings.put(k, pl)
	return pl, nil
}

// readPosting reads and decodes token tok's posting list.
func (p *partition) readPosting(ctx context.Context, tok uint32) (*posting, error) {
	if int(tok) >= len(p.lengths) {
		return nil, corrupt("token id %d of %d postings", tok, len(p.lengths))
	}
	ids := []int32{p.postingID}
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
	return out, nil
}
