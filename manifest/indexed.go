package manifest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/scan"
)

// The three scalar indices the reference keeps on `__manifest`, rebuilt
// with every rewrite (names, columns and kinds as it writes them).
const (
	indexObjectID    = "object_id_btree"
	indexObjectType  = "object_type_bitmap"
	indexBaseObjects = "base_objects_label_list"
)

var _ catalog.RowVisitor = (*snapshot)(nil)

var manifestIndices = []struct {
	name, column string
	kind         index.Kind
}{
	{indexObjectID, colObjectID, index.KindBTree},
	{indexObjectType, colObjectType, index.KindBitmap},
	{indexBaseObjects, colBaseObjects, index.KindLabelList},
}

// buildManifestIndices builds the three indices over the staged version
// (row addresses fragment 0 << 32 | offset, dataset_version base+1), as the
// reference does before committing the rewrite. An index whose column the
// table lacks (a foreign `__manifest`) is skipped. Every index directory is
// tracked by st before it is written, so a failure leaves nothing behind
// once st is aborted.
func buildManifestIndices(ctx context.Context, st *dataset.StagedOverwrite) ([]*dataset.IndexMetadata, error) {
	view := st.View()
	// The three builds run concurrently, as the reference's do: most of
	// their time is spent writing (and syncing) their files.
	metas := make([]*dataset.IndexMetadata, len(manifestIndices))
	errs := make([]error, len(manifestIndices))
	var wg sync.WaitGroup
	for i, mi := range manifestIndices {
		if view.Schema().Field(mi.column) == nil {
			continue
		}
		id := uuid.NewString()
		st.TrackIndexDir(id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			meta, err := index.Build(ctx, view, mi.column, mi.kind, index.BuildOptions{Name: mi.name, UUID: id})
			if err != nil {
				errs[i] = fmt.Errorf("build %s on %s: %w", mi.name, catalog.ManifestDir, err)
				return
			}
			// The reference's catalog rewrite records no created_at.
			meta.CreatedAt = nil
			metas[i] = meta
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]*dataset.IndexMetadata, 0, len(metas))
	for _, m := range metas {
		if m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// fullDecodeFraction: when an index narrows a listing to more than this
// share of the table's rows, decoding the whole table (and keeping it for
// later calls on the same version) is as cheap as fetching the rows one
// index hit at a time.
const fullDecodeFraction = 4 // 1/4

// maxRowsHint bounds the rows allocated up front for a full decode.
const maxRowsHint = 1 << 20

// promoteFactor decides when a snapshot stops pushing reads down and
// decodes the whole version instead: once the rows fetched through indices
// plus the lookups made, times this factor, reach the table's row count.
// Measured on the 100,000-row catalog (BenchmarkWarmRead, BenchmarkColdRead):
// a full decode costs ~420 ms (~4 us a row), an indexed describe ~1.2 ms and
// an indexed 34-row listing ~38 ms, i.e. one fetched row or lookup costs
// about as much as decoding 250-300 rows in a full scan; at 256 the
// push-down work spent before switching is about one full decode.
const promoteFactor = 256

// snapshot is one version of `__manifest`. Point lookups and filtered
// listings are pushed down to lance/scan, which answers them through the
// version's scalar indices (plus a scan of fragments no index covers),
// until the whole table is decoded; from then on (after a commit by this
// process, a broad listing, enough repeated lookups on an unchanged version
// — see promoteFactor — or on versions without usable indices) they are
// answered from memory.
type snapshot struct {
	ds *dataset.Dataset

	mu     sync.Mutex
	loaded bool // rows/byID/addrs hold every row of the version
	rows   []catalog.Row
	byID   map[string][]int
	addrs  []uint64 // row address of each of rows
	// A snapshot this process derived from its own commit (see derive):
	// parent's rows with delta applied, answered without I/O; nil parent
	// once the snapshot is loaded.
	parent *snapshot
	delta  *rowDelta
	depth  int       // derived snapshots between this one and its root
	lazy   *snapshot // reads of a derived snapshot through its version's indices
	// indices are the version's indices opened by pushed-down reads, kept
	// for the next ones.
	indices *scan.Indices
	// rowsDecoded counts rows decoded from storage (full decode included):
	// tests check that a point lookup does not decode the table.
	rowsDecoded atomic.Int64
	// pushDownOnly (tests) answers every filter an index applies to through
	// the index, however many rows it matches.
	pushDownOnly bool
	// pushedWork is the rows fetched plus lookups made through indices.
	pushedWork atomic.Int64
}

// promote reports whether repeated push-down has cost about a full decode,
// which from now on serves every read of this version from memory.
func (s *snapshot) promote() bool {
	if s.pushDownOnly {
		return false
	}
	total := s.liveRowsHint()
	return total == 0 || uint64(s.pushedWork.Load())*promoteFactor >= total
}

func newSnapshot(ds *dataset.Dataset) *snapshot { return &snapshot{ds: ds} }

// indexCache returns the snapshot's opened indices, made on first use
// (whichever way the snapshot was made: new, loaded or derived).
func (s *snapshot) indexCache() *scan.Indices {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indices == nil {
		s.indices = scan.NewIndices(s.ds)
	}
	return s.indices
}

// loadedSnapshot is a snapshot whose rows are known (the rows a full
// rewrite just wrote, in fragment order from the first row of the first
// fragment).
func loadedSnapshot(ds *dataset.Dataset, rows []catalog.Row) *snapshot {
	s := &snapshot{ds: ds, rows: rows, loaded: true}
	s.addrs = make([]uint64, 0, len(rows))
	for _, f := range ds.Fragments() {
		for off := uint64(0); off < f.PhysicalRows && len(s.addrs) < len(rows); off++ {
			s.addrs = append(s.addrs, f.ID<<32|off)
		}
	}
	s.indexRows()
	return s
}

func (s *snapshot) indexRows() {
	s.byID = make(map[string][]int, len(s.rows))
	for i, r := range s.rows {
		s.byID[r.ObjectID] = append(s.byID[r.ObjectID], i)
	}
}

// all returns every row of the version, decoding them on first use.
func (s *snapshot) all(ctx context.Context) ([]catalog.Row, map[string][]int, error) {
	if s.derived() {
		if err := s.materialize(ctx); err != nil { // takes s.mu itself
			return nil, nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded {
		return s.rows, s.byID, nil
	}
	// Sized once from the row count the manifest records (bounded: it is
	// read from disk): the rows of a large catalog would otherwise be
	// copied over and over as they grow.
	hint := min(s.liveRowsHint(), maxRowsHint)
	rows := make([]catalog.Row, 0, hint)
	addrs := make([]uint64, 0, hint)
	err := s.ds.Scan(ctx, dataset.ScanOptions{WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		var err error
		if rows, err = appendRows(rows, rec); err != nil {
			return err
		}
		addrs, err = appendRowAddresses(addrs, rec)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read %s version %d: %w", catalog.ManifestDir, s.ds.Version(), err)
	}
	s.rowsDecoded.Add(int64(len(rows)))
	s.rows, s.addrs, s.loaded = rows, addrs, true
	s.indexRows()
	return s.rows, s.byID, nil
}

// ifLoaded returns the decoded rows when the whole version is in memory.
func (s *snapshot) ifLoaded() ([]catalog.Row, map[string][]int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows, s.byID, s.loaded
}

func (s *snapshot) Version() uint64 { return s.ds.Version() }

func (s *snapshot) Metadata() map[string]string {
	out := make(map[string]string, len(s.ds.Manifest().TableMetadata))
	for k, v := range s.ds.Manifest().TableMetadata {
		out[k] = v
	}
	return out
}

// pushDown plans the read of the rows preds select (every column, and the
// row address withAddr) through lance/scan. It returns a nil scanner when
// no index of the version answers any of preds (or none covers a
// fragment): the caller then reads the version whole.
func (s *snapshot) pushDown(ctx context.Context, preds []scan.Predicate, withAddr bool) (*scan.Scanner, *scan.Plan, error) {
	if len(preds) == 0 {
		return nil, nil, nil
	}
	opts := scan.Options{Predicates: preds, Indices: s.indexCache(), WithRowAddress: withAddr}
	if withAddr {
		opts.Columns = []string{colObjectID}
	}
	sc, err := scan.New(s.ds, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s version %d: %w", catalog.ManifestDir, s.Version(), err)
	}
	p, err := sc.Plan(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s version %d: %w", catalog.ManifestDir, s.Version(), err)
	}
	if p.Index == "" || len(p.Covered) == 0 {
		return nil, nil, nil
	}
	return sc, p, nil
}

// indexedPlan is the ReadPlan of a pushed-down read: the indices in the
// order of manifestIndices (object_id, object_type, base_objects).
func indexedPlan(p *scan.Plan) catalog.ReadPlan {
	var names []string
	for _, mi := range manifestIndices {
		if slices.Contains(p.Indices, mi.name) {
			names = append(names, mi.name)
		}
	}
	for _, n := range p.Indices {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return catalog.ReadPlan{Indices: names, UncoveredFragments: len(p.Scanned)}
}

// Get looks object_id up through the BTREE (Eq), reading only the matching
// rows, or in memory when the version is decoded or has no usable index.
func (s *snapshot) Get(ctx context.Context, objectID string) (catalog.Row, bool, error) {
	if s.derived() {
		return s.getDerived(ctx, objectID)
	}
	sc, _, err := s.getPlan(ctx, objectID)
	if err != nil {
		return catalog.Row{}, false, err
	}
	var hits []catalog.Row
	if sc == nil {
		rows, byID, err := s.all(ctx)
		if err != nil {
			return catalog.Row{}, false, err
		}
		for _, i := range byID[objectID] {
			hits = append(hits, rows[i])
		}
	} else {
		match := func(r catalog.Row) bool { return r.ObjectID == objectID }
		if hits, err = s.read(ctx, sc, match, 0); err != nil {
			return catalog.Row{}, false, err
		}
	}
	switch len(hits) {
	case 0:
		return catalog.Row{}, false, nil
	case 1:
		return hits[0].Clone(), true, nil
	}
	return catalog.Row{}, false, fmt.Errorf("%s version %d holds %d rows with object_id %q", catalog.ManifestDir, s.Version(), len(hits), objectID)
}

// getPlan decides how Get answers on a snapshot that is not derived:
// pushed down (sc non-nil), or from every row of the version (in memory
// already, or decoded first).
func (s *snapshot) getPlan(ctx context.Context, objectID string) (*scan.Scanner, catalog.ReadPlan, error) {
	if _, _, loaded := s.ifLoaded(); loaded {
		return nil, catalog.ReadPlan{Scan: catalog.ReadScanMemory}, nil
	}
	full := catalog.ReadPlan{Scan: catalog.ReadScanFullDecode}
	if s.promote() {
		return nil, full, nil
	}
	sc, p, err := s.pushDown(ctx, []scan.Predicate{scan.Eq(colObjectID, objectID)}, false)
	if err != nil || sc == nil {
		return nil, full, err
	}
	return sc, indexedPlan(p), nil
}

// ExplainGet says how Get(objectID) would answer now.
func (s *snapshot) ExplainGet(ctx context.Context, objectID string) (catalog.ReadPlan, error) {
	if s.derived() {
		if _, _, settled, root := s.walk(objectID); !settled {
			return root.ExplainGet(ctx, objectID)
		}
		// Settled by this process's own commits, or by a decoded root.
		return catalog.ReadPlan{Scan: catalog.ReadScanMemory}, nil
	}
	_, plan, err := s.getPlan(ctx, objectID)
	return plan, err
}

// Scan pushes f down to lance/scan: object_id prefix (IDPrefix), object_type
// IN (Types) and base_objects has-any (BaseObject), each answered by the
// version's index on that column and intersected. The rows come back in
// storage order, as a full decode returns them, so a Limit cuts at the same
// rows.
func (s *snapshot) Scan(ctx context.Context, f catalog.RowFilter) ([]catalog.Row, error) {
	if s.derived() {
		if _, lazy := s.root(); lazy {
			// Materializing would decode the whole root version: read this
			// version through its own indices instead.
			return s.direct().Scan(ctx, f)
		}
	}
	_, sc, err := s.scanPlan(ctx, f)
	if err != nil {
		return nil, err
	}
	if sc != nil {
		return s.read(ctx, sc, f.Match, f.Limit)
	}
	rows, _, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	return scanRows(rows, f), nil
}

// VisitRows hands the rows Scan(f) would return to visit without copying
// the rows a decoded version holds (catalog.RowVisitor).
func (s *snapshot) VisitRows(ctx context.Context, f catalog.RowFilter, visit func(int, iter.Seq[*catalog.Row])) error {
	if s.derived() {
		if _, lazy := s.root(); lazy {
			return s.direct().VisitRows(ctx, f, visit)
		}
	}
	_, sc, err := s.scanPlan(ctx, f)
	if err != nil {
		return err
	}
	var rows []catalog.Row
	if sc != nil {
		if rows, err = s.read(ctx, sc, f.Match, f.Limit); err != nil {
			return err
		}
		visit(len(rows), func(yield func(*catalog.Row) bool) {
			for i := range rows {
				if !yield(&rows[i]) {
					return
				}
			}
		})
		return nil
	}
	if rows, _, err = s.all(ctx); err != nil {
		return err
	}
	// Counting first is one cheap pass over rows in memory; it spares the
	// caller growing its result row by row.
	n := 0
	for i := range rows {
		if f.Match(rows[i]) {
			n++
			if f.Limit > 0 && n >= f.Limit {
				break
			}
		}
	}
	visit(n, func(yield func(*catalog.Row) bool) {
		left := n
		for i := 0; i < len(rows) && left > 0; i++ {
			if f.Match(rows[i]) {
				left--
				if !yield(&rows[i]) {
					return
				}
			}
		}
	})
	return nil
}

// filterPredicates are the predicates of f that lance/scan can check, on
// the columns the version has (f.Match checks the rest).
func (s *snapshot) filterPredicates(f catalog.RowFilter) []scan.Predicate {
	has := func(col string) bool { return s.ds.Schema().Field(col) != nil }
	var preds []scan.Predicate
	if f.IDPrefix != "" && has(colObjectID) {
		preds = append(preds, scan.Prefix(colObjectID, f.IDPrefix))
	}
	if len(f.Types) > 0 && has(colObjectType) {
		vs := make([]any, len(f.Types))
		for i, t := range f.Types {
			vs[i] = t
		}
		preds = append(preds, scan.In(colObjectType, vs...))
	}
	if f.BaseObject != "" && has(colBaseObjects) {
		preds = append(preds, scan.HasAny(colBaseObjects, f.BaseObject))
	}
	return preds
}

// scanPlan decides how Scan answers f on s (not a derived snapshot with a
// lazy root): pushed down (sc non-nil), or from every row of the version.
func (s *snapshot) scanPlan(ctx context.Context, f catalog.RowFilter) (catalog.ReadPlan, *scan.Scanner, error) {
	_, _, loaded := s.ifLoaded()
	if loaded || s.derived() {
		// A derived snapshot here has a decoded root: it is materialized
		// from memory.
		return catalog.ReadPlan{Scan: catalog.ReadScanMemory}, nil, nil
	}
	full := catalog.ReadPlan{Scan: catalog.ReadScanFullDecode}
	if s.promote() {
		return full, nil, nil
	}
	sc, p, err := s.pushDown(ctx, s.filterPredicates(f), false)
	if err != nil || sc == nil {
		return full, nil, err
	}
	total := s.liveRowsHint()
	if s.pushDownOnly || total == 0 || p.IndexHits*fullDecodeFraction <= total {
		return indexedPlan(p), sc, nil
	}
	// The indices match too large a share of the rows to fetch them one
	// by one.
	return full, nil, nil
}

// ExplainScan says how Scan(f) would answer now. Deciding may search the
// indices (as Scan does), never fetch rows.
func (s *snapshot) ExplainScan(ctx context.Context, f catalog.RowFilter) (catalog.ReadPlan, error) {
	if s.derived() {
		if _, lazy := s.root(); lazy {
			return s.direct().ExplainScan(ctx, f)
		}
	}
	plan, _, err := s.scanPlan(ctx, f)
	return plan, err
}

// read returns, in storage order, the rows sc yields that satisfy match,
// up to limit (0: all). The scanner checks the predicates an index answers
// with index semantics; match re-checks the whole filter (DirectOnly, for
// one, has no predicate).
func (s *snapshot) read(ctx context.Context, sc *scan.Scanner, match func(catalog.Row) bool, limit int) ([]catalog.Row, error) {
	s.pushedWork.Add(1)
	var out []catalog.Row
	for rec, err := range sc.Records(ctx) {
		if err != nil {
			return nil, fmt.Errorf("read %s version %d: %w", catalog.ManifestDir, s.Version(), err)
		}
		rows, err := rowsOf(rec)
		if err != nil {
			return nil, err
		}
		s.rowsDecoded.Add(int64(len(rows)))
		s.pushedWork.Add(int64(len(rows)))
		for _, r := range rows {
			if match(r) {
				out = append(out, r)
				if limit > 0 && len(out) >= limit {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// scanRows returns copies of the rows f selects, in order. A listing of a
// whole namespace returns tens of thousands of rows, so the result and the
// copied locations are allocated once, at their final size (one pass to
// count, one to copy), instead of growing row by row.
func scanRows(rows []catalog.Row, f catalog.RowFilter) []catalog.Row {
	n, locs := 0, 0
	for _, r := range rows {
		if !f.Match(r) {
			continue
		}
		n++
		if r.Location != nil {
			locs++
		}
		if f.Limit > 0 && n >= f.Limit {
			break
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]catalog.Row, 0, n)
	locSlab := make([]string, 0, locs)
	for _, r := range rows {
		if len(out) == n {
			break
		}
		if !f.Match(r) {
			continue
		}
		loc := r.Location
		r.Location = nil
		c := r.Clone()
		if loc != nil {
			locSlab = append(locSlab, *loc)
			c.Location = &locSlab[len(locSlab)-1]
		}
		out = append(out, c)
	}
	return out
}

// liveRowsHint is the number of rows the manifest records (0: unknown).
func (s *snapshot) liveRowsHint() uint64 {
	var n uint64
	for _, fr := range s.ds.Fragments() {
		live, known := fr.LiveRows()
		if !known {
			return 0
		}
		n += live
	}
	return n
}
