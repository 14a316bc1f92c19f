package index

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// BTREE file layout (Lance's BTreeIndex with a flat sub-index):
//
//	page_lookup.lance: min, max (the indexed type), null_count u32, page_idx u32;
//	  schema metadata batch_size (rows per page, default 4096) and
//	  range_partitioned ("false"; "true" is a layout we do not read).
//	page_data.lance:   values (the indexed type, sorted ascending, nulls first),
//	  ids u64 (row address or stable row id of each value).
//
// Page p of the data file is rows [p*batch_size, (p+1)*batch_size). A page's
// min is its first value and max its last, so min is null when the page
// starts with nulls and both are null for an all-null page.
const (
	btreeLookupFile      = "page_lookup.lance"
	btreeDataFile        = "page_data.lance"
	btreeBatchSizeKey    = "batch_size"
	btreeRangePartKey    = "range_partitioned"
	defaultBTreeBatch    = 4096
	maxBTreeBatch        = 1 << 24
	btreeValuesColumn    = "values"
	btreeIDsColumn       = "ids"
	btreeLookupMinColumn = "min"
	btreeLookupMaxColumn = "max"
	btreeNullCountColumn = "null_count"
	btreePageIdxColumn   = "page_idx"
)

type btreePage struct {
	min, max       any // nil: null
	nullCount      uint32
	idx            uint32
	hasMin, hasMax bool
}

// btreeSegment is one loaded BTREE index segment: its lookup in memory, its
// data file opened lazily.
type btreeSegment struct {
	files     *segmentFiles
	kind      valueKind
	valueType arrow.DataType
	batchSize uint64
	pages     []btreePage

	// Decoded values of recently searched pages (Lance caches pages too):
	// a repeated lookup then reads only the row ids it returns.
	mu        sync.Mutex
	cache     map[uint64]arrow.Array // by first row
	cacheFIFO []uint64
}

// btreePageCache is how many decoded pages a segment keeps.
const btreePageCache = 16

func (s *btreeSegment) cachedValues(ctx context.Context, data fileReader, id int32, start, end uint64) (arrow.Array, error) {
	s.mu.Lock()
	if a, ok := s.cache[start]; ok {
		a.Retain()
		s.mu.Unlock()
		return a, nil
	}
	s.mu.Unlock()
	rec, err := s.files.readRange(ctx, data, []int32{id}, start, end)
	if err != nil {
		return nil, err
	}
	a := rec.Column(0)
	a.Retain()
	rec.Release()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cache[start]; !ok {
		if s.cache == nil {
			s.cache = map[uint64]arrow.Array{}
		}
		if len(s.cacheFIFO) >= btreePageCache {
			old := s.cacheFIFO[0]
			s.cacheFIFO = s.cacheFIFO[1:]
			s.cache[old].Release()
			delete(s.cache, old)
		}
		a.Retain()
		s.cache[start] = a
		s.cacheFIFO = append(s.cacheFIFO, start)
	}
	return a, nil
}

func loadBTree(ctx context.Context, files *segmentFiles) (*btreeSegment, error) {
	lookup, err := files.open(ctx, btreeLookupFile)
	if err != nil {
		return nil, err
	}
	sch := lookup.Schema()
	if v := sch.Metadata[btreeRangePartKey]; v != "" && v != "false" {
		return nil, fmt.Errorf("%w: BTREE lookup with %s=%s", ErrUnsupported, btreeRangePartKey, v)
	}
	bs := uint64(defaultBTreeBatch)
	if v, ok := sch.Metadata[btreeBatchSizeKey]; ok {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil && n > 0 && n <= maxBTreeBatch {
			bs = n
		} else if err == nil {
			return nil, corruptf("BTREE batch_size %q", v)
		}
		// Lance falls back to the default when batch_size does not parse.
	}
	ids, err := fieldIDs(sch, btreeLookupMinColumn, btreeLookupMaxColumn, btreeNullCountColumn, btreePageIdxColumn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", btreeLookupFile, err)
	}
	n := lookup.NumRows()
	if n > maxLookupRows {
		return nil, corruptf("BTREE lookup of %d pages", n)
	}
	rec, err := files.readRange(ctx, lookup, ids, 0, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", btreeLookupFile, err)
	}
	defer rec.Release()
	vt := rec.Column(0).DataType()
	kind, err := kindOf(vt)
	if err != nil {
		return nil, err
	}
	nulls, ok1 := rec.Column(2).(*array.Uint32)
	pidx, ok2 := rec.Column(3).(*array.Uint32)
	if !ok1 || !ok2 || !arrow.TypeEqual(rec.Column(1).DataType(), vt) {
		return nil, corruptf("%s: unexpected column types %s", btreeLookupFile, rec.Schema())
	}
	seg := &btreeSegment{files: files, kind: kind, valueType: vt, batchSize: bs, pages: make([]btreePage, 0, n)}
	for i := 0; i < int(n); i++ {
		var pg btreePage
		if pg.min, pg.hasMin, err = valueAt(rec.Column(0), i); err != nil {
			return nil, err
		}
		if pg.max, pg.hasMax, err = valueAt(rec.Column(1), i); err != nil {
			return nil, err
		}
		if nulls.IsNull(i) || pidx.IsNull(i) {
			return nil, corruptf("%s: null null_count or page_idx at row %d", btreeLookupFile, i)
		}
		pg.nullCount, pg.idx = nulls.Value(i), pidx.Value(i)
		seg.pages = append(seg.pages, pg)
	}
	return seg, nil
}

// candidatePages lists, ascending, the pages that may hold a matching row.
func (s *btreeSegment) candidatePages(p plan) []uint32 {
	var out []uint32
	for _, pg := range s.pages {
		take := p.nulls && pg.nullCount > 0
		if !take && pg.hasMax {
			for _, iv := range p.intervals {
				if iv.overlaps(pg.min, pg.hasMin, pg.max) {
					take = true
					break
				}
			}
		}
		if take {
			out = append(out, pg.idx)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *btreeSegment) search(ctx context.Context, q Query) (*RowSet, error) {
	p, err := normalize(q, s.kind)
	if err != nil {
		return nil, err
	}
	out := &RowSet{}
	pages := s.candidatePages(p)
	if len(pages) == 0 {
		return out, nil
	}
	data, err := s.files.open(ctx, btreeDataFile)
	if err != nil {
		return nil, err
	}
	ids, err := fieldIDs(data.Schema(), btreeValuesColumn, btreeIDsColumn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", btreeDataFile, err)
	}
	total := data.NumRows()
	for _, pg := range pages {
		start := uint64(pg) * s.batchSize
		if start >= total {
			return nil, corruptf("BTREE page %d starts at row %d of a %d-row data file", pg, start, total)
		}
		end := min(start+s.batchSize, total)
		if err := s.searchPage(ctx, data, ids, start, end, p, out); err != nil {
			return nil, fmt.Errorf("%s page %d: %w", btreeDataFile, pg, err)
		}
	}
	return out, nil
}

func (s *btreeSegment) searchPage(ctx context.Context, data fileReader, ids []int32, start, end uint64, p plan, out *RowSet) error {
	vals, err := s.cachedValues(ctx, data, ids[0], start, end)
	if err != nil {
		return err
	}
	defer vals.Release()
	if !arrow.TypeEqual(vals.DataType(), s.valueType) {
		return corruptf("values of type %s in a %s index", vals.DataType(), s.valueType)
	}
	hits, err := pageHits(vals, p)
	if err != nil {
		return err
	}
	if len(hits) == 0 {
		return nil
	}
	first, last := hits[0], hits[len(hits)-1]
	idRec, err := s.files.readRange(ctx, data, ids[1:], start+uint64(first), start+uint64(last)+1)
	if err != nil {
		return err
	}
	defer idRec.Release()
	rowIDs, ok := idRec.Column(0).(*array.Uint64)
	if !ok {
		return corruptf("ids column of type %s", idRec.Column(0).DataType())
	}
	for _, h := range hits {
		j := h - first
		if rowIDs.IsNull(j) {
			return corruptf("null row id at row %d", start+uint64(h))
		}
		out.Add(rowIDs.Value(j))
	}
	return nil
}

// pageHits lists the positions of a page's values that satisfy the plan.
// Pages are sorted ascending with nulls first, so each interval is found by
// binary search; a page that is not laid out that way is scanned linearly.
func pageHits(vals arrow.Array, p plan) ([]int, error) {
	n := vals.Len()
	nn := vals.NullN()
	if nn > 0 && (!vals.IsNull(nn-1) || (nn < n && vals.IsNull(nn))) {
		return linearHits(vals, p)
	}
	var firstErr error
	at := func(i int) any {
		v, _, err := valueAt(vals, i)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	var hits []int
	if p.nulls {
		for i := 0; i < nn; i++ {
			hits = append(hits, i)
		}
	}
	for _, iv := range p.intervals {
		lo := nn + sort.Search(n-nn, func(i int) bool {
			if !iv.hasLo {
				return true
			}
			c := compareValues(at(nn+i), iv.lo)
			return c > 0 || (c == 0 && iv.loInc)
		})
		hi := nn + sort.Search(n-nn, func(i int) bool {
			if !iv.hasHi {
				return false
			}
			c := compareValues(at(nn+i), iv.hi)
			return c > 0 || (c == 0 && !iv.hiInc)
		})
		for i := lo; i < hi; i++ {
			hits = append(hits, i)
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	slices.Sort(hits)
	return slices.Compact(hits), nil
}

func linearHits(vals arrow.Array, p plan) ([]int, error) {
	var hits []int
	for i := 0; i < vals.Len(); i++ {
		v, ok, err := valueAt(vals, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			v = nil
		}
		if p.match(v) {
			hits = append(hits, i)
		}
	}
	return hits, nil
}
