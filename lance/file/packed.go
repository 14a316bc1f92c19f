package lancefile

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// packedSegment is the rows [a, b) of one packed full-zip page.
type packedSegment struct {
	pg   *pageInfo
	a, b uint64
}

// packedPages returns the pages' segments for the ranges when every page
// they touch is a packed full-zip page (fixed-width values with neither
// control words nor validity: a vector column without nulls) of one value
// shape, with the first page's state; ok is false otherwise.
func (r *Reader) packedPages(ctx context.Context, fr *fileReads, ci *columnInfo, spec *readLeaf, ranges [][2]uint64) (segs []packedSegment, first *fullZipState, ok bool, err error) {
	ok = true
	err = pageParts(ci, spec.col, ranges, func(pi int, pg *pageInfo, pa, pb uint64) (bool, error) {
		if pg.layout.GetFullZipLayout() == nil {
			ok = false
			return false, nil
		}
		st, err := r.pageState(ctx, fr, pg, spec)
		if err != nil {
			return false, fmt.Errorf("column %d page %d: %w", spec.col, pi, err)
		}
		fz, isFZ := st.(*fullZipState)
		if !isFZ || !fz.packed() || fz.repIdxBytes != 0 {
			ok = false
			return false, nil
		}
		if first == nil {
			first = fz
		} else if fz.valueBytes != first.valueBytes || fz.itemBits != first.itemBits || (fz.fsl == nil) != (first.fsl == nil) ||
			(fz.fsl != nil && fz.fsl.ItemsPerValue != first.fsl.ItemsPerValue) {
			ok = false
			return false, nil
		}
		if pb*fz.valueBytes > pg.bufs[0].Size {
			return false, corruptf("column %d page %d: full-zip rows %d..%d past its %d bytes", spec.col, pi, pa, pb, pg.bufs[0].Size)
		}
		segs = append(segs, packedSegment{pg: pg, a: pa, b: pb})
		return true, nil
	})
	if err != nil || !ok || first == nil {
		return nil, nil, false, err
	}
	return segs, first, true, nil
}

// readPacked reads the segments' values straight into one buffer, in order:
// no per-page buffer, no concatenation, one open file for all the reads.
func (r *Reader) readPacked(ctx context.Context, fr *fileReads, segs []packedSegment, st *fullZipState) (*leafPiece, error) {
	per := st.valueBytes
	var rows uint64
	for _, s := range segs {
		rows += s.b - s.a
	}
	if rows > maxItems {
		return nil, corruptf("%d rows in one read", rows)
	}
	var owner memory.Allocator
	var dst []byte
	if recycling(ctx) {
		owner = recycler{}
		dst = owner.Allocate(int(rows * per))
	} else {
		dst = make([]byte, rows*per)
	}
	pos := uint64(0)
	for _, s := range segs {
		n := (s.b - s.a) * per
		if err := fr.readInto(ctx, s.pg.bufs[0].Position+s.a*per, dst[pos:pos+n]); err != nil {
			return nil, err
		}
		r.stats.pages.Add(1)
		pos += n
	}
	blk, err := st.packedValues(dst)
	if err != nil {
		return nil, err
	}
	if blk.n != rows {
		return nil, corruptf("full-zip pages gave %d rows, want %d", blk.n, rows)
	}
	p, err := cut(nil, nil, blk, 0, rows, 0, rows)
	if err != nil {
		return nil, err
	}
	p.vals.owner = owner // the piece's values are all of dst
	return p, nil
}

// FixedRowBytes reports the bytes one row of the fields occupies when every
// page of their columns is a packed full-zip page (fixed-width values read
// by byte position, such as a vector column without nulls): then a read of
// scattered rows costs their bytes and one read call each, and nothing is
// gained by reading the rows between them. ok is false otherwise (mini-block
// pages decode whole chunks, variable-width values need their offsets).
func (r *Reader) FixedRowBytes(ctx context.Context, fieldIDs []int32) (n uint64, ok bool, err error) {
	if r.footer.Version.Is20() {
		return 0, false, nil
	}
	for _, id := range fieldIDs {
		f := r.topField(id)
		if f == nil {
			return 0, false, fmt.Errorf("%w: field id %d is not a top-level field of the file", ErrInvalidArgument, id)
		}
		paths, err := r.leavesOf(f)
		if err != nil {
			return 0, false, err
		}
		for _, p := range paths {
			ci, err := r.column(ctx, p.spec.col)
			if err != nil {
				return 0, false, err
			}
			if r.numRows == 0 {
				continue
			}
			_, st, ok, err := r.packedPages(ctx, r.sourceReads(), ci, p.spec, [][2]uint64{{0, r.numRows}})
			if err != nil || !ok {
				return 0, false, err
			}
			n += st.valueBytes
		}
	}
	return n, n > 0, nil
}

// ReadRanges decodes the given top-level fields for the rows of each range
// [start, end) (within the file, each start at or after the previous one's)
// into one record, the ranges' rows back to back.
func (r *Reader) ReadRanges(ctx context.Context, fieldIDs []int32, ranges [][2]uint64) (arrow.Record, error) {
	var rows uint64
	var keep [][2]uint64
	for i, rg := range ranges {
		if rg[0] > rg[1] || rg[1] > r.numRows || (i > 0 && rg[0] < ranges[i-1][0]) {
			return nil, fmt.Errorf("%w: range %d..%d of %d rows (after %v)", ErrInvalidArgument, rg[0], rg[1], r.numRows, ranges[max(i-1, 0)])
		}
		if rg[1] > rg[0] {
			keep = append(keep, rg)
			rows += rg[1] - rg[0]
		}
	}
	return r.readRanges(ctx, fieldIDs, keep, rows)
}
