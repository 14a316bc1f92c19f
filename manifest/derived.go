package manifest

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/scan"
)

// An incremental commit changes a few rows; rebuilding the in-memory copy
// of the whole catalog after each one would make the commit O(catalog)
// again. So the snapshot of a version this process committed is derived:
// its parent (the version before, whose rows were in memory) plus a
// rowDelta, answered without I/O. Lookups walk the chain of deltas
// (bounded by maxDeriveDepth); a listing materializes the rows once, in
// storage order, and the chain is cut there.

// maxDeriveDepth bounds the chain of derived snapshots a lookup walks; a
// deeper one is materialized on the next commit. Materializing costs about
// one pass over the rows, so at 32 it adds a thirty-second of a pass per
// commit.
const maxDeriveDepth = 32

// addressedRow is a row and its row address in its version.
type addressedRow struct {
	row  catalog.Row
	addr uint64
}

// rowDelta is the change from a parent snapshot to its child: object ids
// whose rows left (deleted, replaced or moved) and the rows that arrived
// (new, replacing, or moved by a rewrite), by object id.
type rowDelta struct {
	removed map[string]bool
	added   map[string]addressedRow
}

// derived reports whether s is answered through its parent and delta.
func (s *snapshot) derived() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.loaded && s.parent != nil
}

// derive returns the snapshot of next, the version s's version became with
// delta applied. The chain ends at a loaded snapshot (answered from memory)
// or a lazy one (answered through its indices); past maxDeriveDepth the
// first is materialized and the deltas on the second are folded into one.
func (s *snapshot) derive(next *dataset.Dataset, delta *rowDelta) *snapshot {
	s.mu.Lock()
	depth := s.depth + 1
	if s.loaded || s.parent == nil {
		depth = 1
	}
	s.mu.Unlock()
	child := &snapshot{ds: next, parent: s, delta: delta, depth: depth}
	if depth > maxDeriveDepth {
		if root, chain, lazyRoot := child.rootChain(); lazyRoot {
			// Lookups would walk too many deltas, and materializing would
			// decode the whole root: fold the chain into one delta on the
			// root (bounded by the rows a full rewrite folds back).
			return &snapshot{ds: next, parent: root, delta: foldDeltas(chain), depth: 1}
		}
		// A loaded root: no I/O, the context is never used.
		_ = child.materialize(context.Background())
	}
	return child
}

// foldDeltas merges a chain of deltas (newest first) into one delta
// relative to the chain's root.
func foldDeltas(chain []*rowDelta) *rowDelta {
	out := &rowDelta{removed: map[string]bool{}, added: map[string]addressedRow{}}
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		for id := range d.removed {
			out.removed[id] = true
			delete(out.added, id)
		}
		for id, r := range d.added {
			out.added[id] = r
		}
	}
	return out
}

// root returns the snapshot the chain from s ends at and whether it is
// lazy (not loaded).
func (s *snapshot) root() (*snapshot, bool) {
	root, _, lazy := s.rootChain()
	return root, lazy
}

// rootChain returns the snapshot the chain from s ends at (the first loaded
// one, or the lazy end), the deltas from s up to it (exclusive), newest
// first, and whether it is lazy. Root and deltas come from one walk: another
// goroutine may materialize a snapshot of the chain meanwhile, which makes it
// loaded and cuts its parent, so a second walk towards a root found earlier
// could run off the chain's end.
func (s *snapshot) rootChain() (root *snapshot, chain []*rowDelta, lazy bool) {
	for p := s; ; {
		p.mu.Lock()
		loaded, parent, delta := p.loaded, p.parent, p.delta
		p.mu.Unlock()
		if loaded {
			return p, chain, false
		}
		if parent == nil {
			return p, chain, true
		}
		chain = append(chain, delta)
		p = parent
	}
}

// walk resolves objectID through the chain of deltas: the row when a
// delta or a loaded snapshot settles it (found reports whether it
// exists), or the lazy root that must answer (settled false).
func (s *snapshot) walk(objectID string) (r addressedRow, found, settled bool, root *snapshot) {
	for p := s; ; {
		p.mu.Lock()
		if p.loaded {
			idx := p.byID[objectID]
			if len(idx) > 0 {
				r = addressedRow{row: p.rows[idx[0]], addr: p.addrs[idx[0]]}
			}
			p.mu.Unlock()
			return r, len(idx) > 0, true, nil
		}
		parent, delta := p.parent, p.delta
		p.mu.Unlock()
		if parent == nil {
			return r, false, false, p
		}
		if a, ok := delta.added[objectID]; ok {
			return a, true, true, nil
		}
		if delta.removed[objectID] {
			return r, false, true, nil
		}
		p = parent
	}
}

// direct returns a lazy snapshot of s's version (read through its indices),
// made once.
func (s *snapshot) direct() *snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lazy == nil {
		s.lazy = newSnapshot(s.ds)
	}
	return s.lazy
}

// getDerived answers Get on a derived snapshot.
func (s *snapshot) getDerived(ctx context.Context, objectID string) (catalog.Row, bool, error) {
	r, found, settled, root := s.walk(objectID)
	if !settled {
		return root.Get(ctx, objectID)
	}
	if !found {
		return catalog.Row{}, false, nil
	}
	return r.row.Clone(), true, nil
}

// materialize computes the rows of a derived snapshot in storage order
// (fragment order of its version, then offset) and cuts the chain. A lazy
// root is decoded whole first.
func (s *snapshot) materialize(ctx context.Context) error {
	root, lazy := s.root()
	if lazy {
		if _, _, err := root.all(ctx); err != nil {
			return err
		}
	}
	// The deltas from s up to root, newest first.
	var chain []*rowDelta
	for p := s; p != root; {
		p.mu.Lock()
		if p.loaded { // materialized meanwhile
			p.mu.Unlock()
			if p == s {
				return nil
			}
			root = p
			break
		}
		chain = append(chain, p.delta)
		next := p.parent
		p.mu.Unlock()
		p = next
	}
	root.mu.Lock()
	rootRows, rootAddrs := root.rows, root.addrs
	rootIDOrder, rootLocOrder := root.idOrder, root.locOrder
	root.mu.Unlock()
	folded := foldDeltas(chain)
	removed, added := folded.removed, folded.added
	cmp := storageOrder(s.ds)
	less := func(a, b uint64) bool { return cmp(a, b) < 0 }
	fresh := make([]addressedRow, 0, len(added))
	for _, r := range added {
		fresh = append(fresh, r)
	}
	slices.SortFunc(fresh, func(a, b addressedRow) int { return cmp(a.addr, b.addr) })
	// Survivors of the root keep their relative order (commits never
	// reorder the fragments they keep): merge them with the sorted arrivals.
	rows := make([]catalog.Row, 0, len(rootRows)+len(fresh))
	addrs := make([]uint64, 0, len(rootRows)+len(fresh))
	// Where each row of the root and each arrival lands (-1: removed), to
	// carry the root's sorted views over (sortedview.go).
	rootAt := make([]int32, len(rootRows))
	freshAt := make([]int32, len(fresh))
	j := 0
	for i, r := range rootRows {
		rootAt[i] = -1
		if removed[r.ObjectID] {
			continue
		}
		for j < len(fresh) && less(fresh[j].addr, rootAddrs[i]) {
			freshAt[j] = int32(len(rows))
			rows, addrs = append(rows, fresh[j].row), append(addrs, fresh[j].addr)
			j++
		}
		rootAt[i] = int32(len(rows))
		rows, addrs = append(rows, r), append(addrs, rootAddrs[i])
	}
	for ; j < len(fresh); j++ {
		freshAt[j] = int32(len(rows))
		rows, addrs = append(rows, fresh[j].row), append(addrs, fresh[j].addr)
	}
	var idOrder []int32
	var locOrder []locEntry
	if rootIDOrder != nil {
		idOrder = carryIDOrder(rows, rootIDOrder, rootAt, freshAt)
	}
	if rootLocOrder != nil {
		locOrder = carryLocOrder(rows, rootLocOrder, rootAt, freshAt)
	}
	s.mu.Lock()
	if !s.loaded {
		s.rows, s.addrs, s.loaded = rows, addrs, true
		s.parent, s.delta = nil, nil
		s.idOrder, s.locOrder = idOrder, locOrder
		s.indexRows()
	}
	s.mu.Unlock()
	return nil
}

// appendRowAddresses appends the _rowaddr column of a scan batch.
func appendRowAddresses(addrs []uint64, rec arrow.RecordBatch) ([]uint64, error) {
	idx := rec.Schema().FieldIndices(dataset.RowAddressColumn)
	if len(idx) == 0 {
		return nil, fmt.Errorf("%s: scan returned no row addresses", catalog.ManifestDir)
	}
	col, ok := rec.Column(idx[0]).(*array.Uint64)
	if !ok {
		return nil, fmt.Errorf("%s: row addresses are %s", catalog.ManifestDir, rec.Column(idx[0]).DataType())
	}
	return append(addrs, col.Uint64Values()...), nil
}

// locate returns the row addresses of the live rows with the given object
// ids: from memory when the snapshot has its rows, otherwise pushed down to
// lance/scan (object_id IN ids, through the BTREE plus a scan of the
// fragments it does not cover); a version without a usable BTREE is decoded
// whole.
func (s *snapshot) locate(ctx context.Context, ids []string) ([]uint64, error) {
	var out []uint64
	if s.derived() {
		var rootIDs []string
		var root *snapshot
		for _, id := range ids {
			r, found, settled, rt := s.walk(id)
			switch {
			case !settled:
				rootIDs, root = append(rootIDs, id), rt
			case found:
				out = append(out, r.addr)
			}
		}
		if len(rootIDs) > 0 {
			more, err := root.locate(ctx, rootIDs)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
		return out, nil
	}
	var sc *scan.Scanner
	if _, _, loaded := s.ifLoaded(); !loaded && len(ids) > 0 {
		vs := make([]any, len(ids))
		for i, id := range ids {
			vs[i] = id
		}
		var err error
		if sc, _, err = s.pushDown(ctx, []scan.Predicate{scan.In(colObjectID, vs...)}, true); err != nil {
			return nil, err
		}
	}
	if sc == nil {
		_, byID, err := s.all(ctx)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			for _, i := range byID[id] {
				out = append(out, s.addrs[i])
			}
		}
		return out, nil
	}
	for rec, err := range sc.Records(ctx) {
		if err != nil {
			return nil, fmt.Errorf("read %s version %d: %w", catalog.ManifestDir, s.Version(), err)
		}
		addrs, err := appendRowAddresses(nil, rec)
		if err != nil {
			return nil, err
		}
		out = append(out, addrs...)
	}
	return out, nil
}

// fragmentRows returns the live rows of the fragments ids of s's version
// with their row addresses, in storage order (fragment order, then offset):
// the rows a tier merge carries. They come from memory when s knows them
// (its own rows, or the deltas and loaded root of a derived snapshot);
// otherwise, or when the rows in memory do not add up to the fragments'
// live rows, from one scan of those fragments.
func (s *snapshot) fragmentRows(ctx context.Context, ids []uint64) ([]addressedRow, error) {
	want := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	pos := make(map[uint64]int, len(ids))
	var expect uint64
	known := true
	for i, f := range s.ds.Fragments() {
		if want[f.ID] {
			pos[f.ID] = i
			live, ok := f.LiveRows()
			known = known && ok
			expect += live
		}
	}
	if len(pos) != len(want) {
		return nil, fmt.Errorf("%s version %d lacks some of fragments %v", catalog.ManifestDir, s.Version(), ids)
	}
	if rows, ok := s.fragmentRowsInMemory(want); ok && known && uint64(len(rows)) == expect {
		slices.SortFunc(rows, func(a, b addressedRow) int {
			if pa, pb := pos[a.addr>>32], pos[b.addr>>32]; pa != pb {
				return pa - pb
			}
			return cmpUint32(uint32(a.addr), uint32(b.addr))
		})
		return rows, nil
	}
	order := make([]uint64, 0, len(ids))
	for _, f := range s.ds.Fragments() {
		if want[f.ID] {
			order = append(order, f.ID)
		}
	}
	var out []addressedRow
	err := s.ds.Scan(ctx, dataset.ScanOptions{Fragments: order, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		rows, err := rowsOf(rec)
		if err != nil {
			return err
		}
		addrs, err := appendRowAddresses(nil, rec)
		if err != nil {
			return err
		}
		for i, r := range rows {
			out = append(out, addressedRow{row: r, addr: addrs[i]})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s version %d: %w", catalog.ManifestDir, s.Version(), err)
	}
	return out, nil
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fragmentRowsInMemory collects the rows of s whose addresses fall in the
// wanted fragments without I/O; ok is false when s cannot tell (a chain
// ending at a lazily read version that has some of those fragments).
func (s *snapshot) fragmentRowsInMemory(want map[uint64]bool) (rows []addressedRow, ok bool) {
	fromLoaded := func(p *snapshot) []addressedRow {
		var out []addressedRow
		for i, a := range p.addrs {
			if want[a>>32] {
				out = append(out, addressedRow{row: p.rows[i], addr: a})
			}
		}
		return out
	}
	s.mu.Lock()
	if s.loaded {
		out := fromLoaded(s)
		s.mu.Unlock()
		return out, true
	}
	s.mu.Unlock()
	if !s.derived() {
		return nil, false
	}
	root, chain, lazy := s.rootChain()
	var cand []addressedRow
	if lazy {
		for _, f := range root.ds.Fragments() {
			if want[f.ID] {
				return nil, false
			}
		}
	} else {
		root.mu.Lock()
		cand = fromLoaded(root)
		root.mu.Unlock()
	}
	for _, d := range chain {
		for _, r := range d.added {
			if want[r.addr>>32] {
				cand = append(cand, r)
			}
		}
	}
	// A candidate counts if it is what s resolves its id to.
	seen := make(map[string]bool, len(cand))
	for _, c := range cand {
		if seen[c.row.ObjectID] {
			continue
		}
		r, found, settled, _ := s.walk(c.row.ObjectID)
		if settled && found && r.addr == c.addr {
			seen[c.row.ObjectID] = true
			rows = append(rows, r)
		}
	}
	return rows, true
}
