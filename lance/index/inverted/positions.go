// Positions of a token's documents, read for phrase queries only: the
// reference's per-document position lists (_position, one list of
// compressed blocks per document) re-encoded compactly for the posting
// cache, and decoded one candidate document at a time.
package inverted

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// positionList holds one token's positions within a partition, for the
// documents of its posting list in list order: per document, the number
// of its positions then the gaps between them (the first from 0), all as
// uvarints. A frequent term's positions are mostly small gaps, a byte
// each: the list of a term in every document of a million-document
// partition fits the posting cache, where the flat uint32s with one
// offset per document did not (41 MiB against a 16 MiB cap).
type positionList struct {
	data []byte
	// skip[i] is the offset in data of document posSkip*i's entry: a
	// lookup jumps there and skips at most posSkip-1 entries.
	skip []uint32
	docs int
}

// posSkip is how many documents' entries one skip offset spans.
const posSkip = 16

func (pl *positionList) bytes() int64 {
	return int64(64 + cap(pl.data) + 4*cap(pl.skip))
}

// posCursor walks a positionList forward: doc is the list index of the
// entry at off.
type posCursor struct {
	doc, off int
}

// positions appends the positions of the list's i-th document to buf[:0]
// and returns them. c is the caller's cursor on pl, moved past that
// document: lookups at ascending i cost one pass over the data between
// them at most.
func (pl *positionList) positions(c *posCursor, i int, buf []uint32) ([]uint32, error) {
	if i < 0 || i >= pl.docs {
		return nil, corrupt("positions of list document %d of %d", i, pl.docs)
	}
	if i < c.doc || i-c.doc >= posSkip {
		c.doc, c.off = i-i%posSkip, int(pl.skip[i/posSkip])
	}
	d := pl.data
	for ; c.doc < i; c.doc++ {
		n, k := binary.Uvarint(d[c.off:])
		if k <= 0 {
			return nil, corrupt("positions of list document %d", c.doc)
		}
		c.off += k
		for ; n > 0; n-- {
			// a uvarint ends at its first byte below 0x80
			for c.off < len(d) && d[c.off] >= 0x80 {
				c.off++
			}
			c.off++
		}
		if c.off > len(d) {
			return nil, corrupt("positions of list document %d", c.doc)
		}
	}
	n, k := binary.Uvarint(d[c.off:])
	if k <= 0 || n > uint64(len(d)) {
		return nil, corrupt("positions of list document %d", i)
	}
	off := c.off + k
	out := buf[:0]
	var at uint32
	for ; n > 0; n-- {
		g, k := binary.Uvarint(d[off:])
		if k <= 0 || g > math.MaxUint32 {
			return nil, corrupt("positions of list document %d", i)
		}
		off += k
		at += uint32(g) // wraps back for a (corrupt) decreasing position
		out = append(out, at)
	}
	c.doc, c.off = i+1, off
	return out, nil
}

// cachedPositions is p's position list of token tok, read once and then
// kept in the segment's posting cache. Shared: read only.
func (seg *segment) cachedPositions(ctx context.Context, p *partition, tok uint32) (*positionList, error) {
	k := postingKey{part: p.index, tok: tok, positions: true}
	if pl, ok := seg.postings.get(k).(*positionList); ok {
		return pl, nil
	}
	pl, err := p.readPositions(ctx, tok)
	if err != nil {
		return nil, err
	}
	seg.postings.put(k, pl)
	return pl, nil
}

// readPositions reads token tok's _position row and re-encodes it as a
// positionList.
func (p *partition) readPositions(ctx context.Context, tok uint32) (*positionList, error) {
	if int(tok) >= len(p.lengths) {
		return nil, corrupt("token id %d of %d postings", tok, len(p.lengths))
	}
	if p.posID < 0 {
		return nil, fmt.Errorf("%w: partition %d has no positions", ErrUnsupported, p.id)
	}
	rec, err := p.invert.ReadRange(ctx, []int32{p.posID}, uint64(tok), uint64(tok)+1)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if rec.NumRows() != 1 || rec.NumCols() != 1 {
		return nil, corrupt("positions row %d: %d rows", tok, rec.NumRows())
	}
	docs, ok := rec.Column(0).(*array.List)
	if !ok {
		return nil, corrupt("%s of posting %d", colPosition, tok)
	}
	perDoc, ok := docs.ListValues().(*array.List)
	if !ok {
		return nil, corrupt("%s of posting %d: inner type", colPosition, tok)
	}
	blocks, ok := perDoc.ListValues().(*array.LargeBinary)
	if !ok {
		return nil, corrupt("%s of posting %d: block type %s", colPosition, tok, perDoc.ListValues().DataType())
	}
	nd := int(p.lengths[tok])
	s, e := docs.ValueOffsets(0)
	if int(e-s) != nd || s < 0 || int(e) > perDoc.Len() {
		return nil, corrupt("positions of posting %d: %d docs, want %d", tok, e-s, nd)
	}
	// A tail stores a position in 4 bytes, a document's count too, and a
	// small gap takes a byte: size data for a byte per 4 of the row's
	// blocks (append grows it if the gaps are wider).
	raw := len(blocks.ValueBytes())
	out := &positionList{
		data: make([]byte, 0, min(raw/4, 1<<26)+16),
		skip: make([]uint32, 0, (nd+posSkip-1)/posSkip),
		docs: nd,
	}
	var buf [blockSize]uint32
	var ps []uint32 // one document's positions
	for d := 0; d < nd; d++ {
		if d%posSkip == 0 {
			if len(out.data) > math.MaxUint32 {
				return nil, corrupt("positions of posting %d: more than 4 GiB", tok)
			}
			out.skip = append(out.skip, uint32(len(out.data)))
		}
		bs, be := perDoc.ValueOffsets(int(s) + d)
		if bs < 0 || be <= bs || int(be) > blocks.Len() {
			return nil, corrupt("positions of posting %d doc %d", tok, d)
		}
		head := blocks.Value(int(bs))
		if len(head) != 4 {
			return nil, corrupt("positions of posting %d doc %d: count of %d bytes", tok, d, len(head))
		}
		n := int(binary.LittleEndian.Uint32(head))
		full, rem := n/blockSize, n%blockSize
		want := full
		if rem > 0 {
			want++
		}
		if int(be-bs-1) != want || uint64(n) > math.MaxInt32 {
			return nil, corrupt("positions of posting %d doc %d: %d blocks for %d positions", tok, d, be-bs-1, n)
		}
		ps = ps[:0]
		for b := 0; b < full; b++ {
			if _, ok := unpackSorted(blocks.Value(int(bs)+1+b), &buf); !ok {
				return nil, corrupt("positions of posting %d doc %d block %d", tok, d, b)
			}
			ps = append(ps, buf[:]...)
		}
		if rem > 0 {
			blk := blocks.Value(int(bs) + 1 + full)
			if len(blk) < 4*rem {
				return nil, corrupt("positions of posting %d doc %d tail", tok, d)
			}
			for i := 0; i < rem; i++ {
				ps = append(ps, binary.LittleEndian.Uint32(blk[4*i:]))
			}
		}
		out.data = appendPositions(out.data, ps)
	}
	return out, nil
}

// appendPositions appends one document's entry of a positionList: the
// count of ps, then its gaps (wrapping: a decreasing position, which only
// a corrupt list has, decodes back as it was).
func appendPositions(data []byte, ps []uint32) []byte {
	data = binary.AppendUvarint(data, uint64(len(ps)))
	var last uint32
	for _, v := range ps {
		data = binary.AppendUvarint(data, uint64(v-last))
		last = v
	}
	return data
}
