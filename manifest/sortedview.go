package manifest

import (
	"context"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
)

// A long-lived writer answers from a decoded root plus a chain of row
// deltas (derived.go). Materializing the chain for every read would cost a
// pass over the whole catalog per catalog operation, so the two reads a
// DROP or RENAME TABLE makes are answered from sorted views of the root,
// built once per decoded root, plus the chain's deltas:
//   - a selective object_id prefix (a table's version rows): a binary
//     search in the root's object ids sorted;
//   - the tables whose location overlaps a dropped one (catalog's alias
//     check, catalog.LocationFinder): a few binary searches in the root's
//     cleaned table locations sorted.

var _ catalog.LocationFinder = (*snapshot)(nil)

// prefixIndexFraction: a prefix read goes through the sorted ids when it
// selects at most this share (1/n) of the root's rows; a broader one (a
// namespace listing) materializes the rows once and reads them in memory,
// which later reads of the same version reuse.
const prefixIndexFraction = 8

// locEntry is a table row of a decoded root by its cleaned location.
type locEntry struct {
	loc string
	row int32
}

// sortedIDsLocked returns the indices of s.rows ordered by object id (a
// loaded snapshot's rows never change), built on first use; s.mu is held.
func (s *snapshot) sortedIDsLocked() []int32 {
	if s.idOrder == nil {
		order := make([]int32, len(s.rows))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(s.rows[a].ObjectID, s.rows[b].ObjectID) })
		s.idOrder = order
	}
	return s.idOrder
}

// locationsLocked returns the table rows of s.rows that have a location,
// ordered by cleaned location, built on first use; s.mu is held.
func (s *snapshot) locationsLocked() []locEntry {
	if s.locOrder == nil {
		out := make([]locEntry, 0, len(s.rows))
		for i := range s.rows {
			if r := &s.rows[i]; r.ObjectType == catalog.ObjectTypeTable && r.Location != nil {
				out = append(out, locEntry{loc: catalog.CleanLocation(*r.Location), row: int32(i)})
			}
		}
		slices.SortStableFunc(out, func(a, b locEntry) int { return strings.Compare(a.loc, b.loc) })
		s.locOrder = out
	}
	return s.locOrder
}

// carryIDOrder returns the object id order of rows, the rows a chain
// materialized into: the root's order (rootOrder, over the root's rows,
// each landing at rootAt or removed, -1) merged with the arrivals (landing
// at freshAt). One pass instead of a sort of the whole catalog every
// maxDeriveDepth commits. (Among rows with one id, which a sound catalog
// does not have, the order may differ from a sort; readers re-sort the
// rows they select by storage order.)
func carryIDOrder(rows []catalog.Row, rootOrder, rootAt, freshAt []int32) []int32 {
	fresh := slices.Clone(freshAt)
	slices.SortStableFunc(fresh, func(a, b int32) int { return strings.Compare(rows[a].ObjectID, rows[b].ObjectID) })
	out := make([]int32, 0, len(rows))
	j := 0
	for _, old := range rootOrder {
		at := rootAt[old]
		if at < 0 {
			continue
		}
		for j < len(fresh) && rows[fresh[j]].ObjectID < rows[at].ObjectID {
			out = append(out, fresh[j])
			j++
		}
		out = append(out, at)
	}
	return append(out, fresh[j:]...)
}

// carryLocOrder is carryIDOrder for the sorted table locations.
func carryLocOrder(rows []catalog.Row, rootOrder []locEntry, rootAt, freshAt []int32) []locEntry {
	var fresh []locEntry
	for _, at := range freshAt {
		if r := &rows[at]; r.ObjectType == catalog.ObjectTypeTable && r.Location != nil {
			fresh = append(fresh, locEntry{loc: catalog.CleanLocation(*r.Location), row: at})
		}
	}
	slices.SortStableFunc(fresh, func(a, b locEntry) int { return strings.Compare(a.loc, b.loc) })
	out := make([]locEntry, 0, len(rootOrder)+len(fresh))
	j := 0
	for _, e := range rootOrder {
		at := rootAt[e.row]
		if at < 0 {
			continue
		}
		for j < len(fresh) && fresh[j].loc < e.loc {
			out = append(out, fresh[j])
			j++
		}
		out = append(out, locEntry{loc: e.loc, row: at})
	}
	return append(out, fresh[j:]...)
}

// loadedRoot returns the decoded snapshot s is answered from without I/O
// (s itself when loaded, or the loaded root of its chain) and the deltas
// from s up to it, newest first; ok is false for a snapshot read lazily
// through its indices or a chain ending at one.
func (s *snapshot) loadedRoot() (root *snapshot, chain []*rowDelta, ok bool) {
	root, chain, lazy := s.rootChain()
	if lazy {
		return nil, nil, false
	}
	return root, chain, true
}

// storageOrder returns a comparison of row addresses in the storage order
// of ds (fragment order, then offset). Commits never reorder the fragments
// they keep, so rows of a root that survive in ds compare as they did in
// the root.
func storageOrder(ds *dataset.Dataset) func(a, b uint64) int {
	pos := make(map[uint64]int, len(ds.Fragments()))
	for i, f := range ds.Fragments() {
		pos[f.ID] = i
	}
	return func(a, b uint64) int {
		if pa, pb := pos[a>>32], pos[b>>32]; pa != pb {
			return pa - pb
		}
		return cmpUint32(uint32(a), uint32(b))
	}
}

// prefixRows answers a read with an object_id prefix from the sorted ids
// of s's decoded root plus its deltas: the rows Scan(f) returns, in the
// same (storage) order and within f.Limit, as pointers the caller must not
// modify. ok is false when s has no decoded root, f has no prefix, or the
// prefix selects too many rows for this to pay off (the caller reads as
// before).
func (s *snapshot) prefixRows(f catalog.RowFilter) (rows []*catalog.Row, ok bool) {
	if f.IDPrefix == "" {
		return nil, false
	}
	root, chain, ok := s.loadedRoot()
	if !ok {
		return nil, false
	}
	root.mu.Lock()
	order := root.sortedIDsLocked()
	rootRows, rootAddrs := root.rows, root.addrs
	root.mu.Unlock()
	lo := sort.Search(len(order), func(i int) bool { return rootRows[order[i]].ObjectID >= f.IDPrefix })
	hi := lo
	for hi < len(order) && strings.HasPrefix(rootRows[order[hi]].ObjectID, f.IDPrefix) {
		hi++
	}
	if (hi-lo)*prefixIndexFraction > len(rootRows) {
		return nil, false
	}
	if len(chain) == 0 {
		// s is the root: its rows are in storage order already.
		idx := slices.Clone(order[lo:hi])
		slices.Sort(idx)
		for _, i := range idx {
			if f.Match(rootRows[i]) {
				rows = append(rows, &rootRows[i])
				if f.Limit > 0 && len(rows) >= f.Limit {
					break
				}
			}
		}
		return rows, true
	}
	folded := foldDeltas(chain)
	var hits []addressedRow
	for _, i := range order[lo:hi] {
		if r := rootRows[i]; !folded.removed[r.ObjectID] && f.Match(r) {
			hits = append(hits, addressedRow{row: r, addr: rootAddrs[i]})
		}
	}
	for _, a := range folded.added {
		if f.Match(a.row) {
			hits = append(hits, a)
		}
	}
	cmp := storageOrder(s.ds)
	slices.SortFunc(hits, func(a, b addressedRow) int { return cmp(a.addr, b.addr) })
	if f.Limit > 0 && len(hits) > f.Limit {
		hits = hits[:f.Limit]
	}
	rows = make([]*catalog.Row, len(hits))
	for i := range hits {
		rows[i] = &hits[i].row
	}
	return rows, true
}

// visitRowPointers hands rows to visit as VisitRows does.
func visitRowPointers(rows []*catalog.Row, visit func(int, iter.Seq[*catalog.Row])) {
	visit(len(rows), func(yield func(*catalog.Row) bool) {
		for _, r := range rows {
			if !yield(r) {
				return
			}
		}
	})
}

// cloneRows copies rows for Scan's caller.
func cloneRows(rows []*catalog.Row) []catalog.Row {
	if len(rows) == 0 {
		return nil
	}
	out := make([]catalog.Row, len(rows))
	for i, r := range rows {
		out[i] = r.Clone()
	}
	return out
}

// TablesOverlapping returns the table rows whose location overlaps loc
// (catalog.LocationsOverlap), in object id order (catalog.LocationFinder).
// A snapshot read lazily decodes its root once (what a scan of every table
// row would cost anyway); from then on the writer's later versions answer
// from the root's sorted locations plus their deltas.
func (s *snapshot) TablesOverlapping(ctx context.Context, loc string) ([]catalog.Row, error) {
	root, lazy := s.root()
	if lazy {
		if _, _, err := root.all(ctx); err != nil {
			return nil, err
		}
	}
	root, chain, ok := s.loadedRoot()
	if !ok { // cannot happen: the root was just decoded
		return nil, nil
	}
	folded := foldDeltas(chain)
	root.mu.Lock()
	locs := root.locationsLocked()
	rootRows := root.rows
	root.mu.Unlock()
	var out []catalog.Row
	take := func(e locEntry) {
		if r := rootRows[e.row]; !folded.removed[r.ObjectID] {
			out = append(out, r.Clone())
		}
	}
	// exact takes the entries at location l; under those below l+"/".
	exact := func(l string) {
		for i := sort.Search(len(locs), func(i int) bool { return locs[i].loc >= l }); i < len(locs) && locs[i].loc == l; i++ {
			take(locs[i])
		}
	}
	c := catalog.CleanLocation(loc)
	if c == "" {
		// The root directory overlaps every location.
		for _, e := range locs {
			take(e)
		}
	} else {
		exact(c)
		under := c + "/"
		for i := sort.Search(len(locs), func(i int) bool { return locs[i].loc >= under }); i < len(locs) && strings.HasPrefix(locs[i].loc, under); i++ {
			take(locs[i])
		}
		// The directories above c, the root ("") included.
		exact("")
		for i := range len(c) {
			if c[i] == '/' {
				exact(c[:i])
			}
		}
	}
	for _, a := range folded.added {
		if r := a.row; r.ObjectType == catalog.ObjectTypeTable && r.Location != nil && catalog.LocationsOverlap(*r.Location, loc) {
			out = append(out, r.Clone())
		}
	}
	slices.SortFunc(out, func(a, b catalog.Row) int { return strings.Compare(a.ObjectID, b.ObjectID) })
	return out, nil
}
