package manifest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/internal/failpoint"
	"github.com/lancecat/lancecat/lance/dataset"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// Column names of the `__manifest` table.
const (
	colObjectID    = "object_id"
	colObjectType  = "object_type"
	colLocation    = "location"
	colMetadata    = "metadata"
	colBaseObjects = "base_objects"
)

// ManifestSchema is the Arrow schema of a new `__manifest` table, as the
// reference creates it: object_id carries the unenforced primary key.
func ManifestSchema() *arrow.Schema {
	pk := arrow.NewMetadata([]string{lanceschema.PrimaryKeyPositionKey}, []string{"0"})
	return arrow.NewSchema([]arrow.Field{
		{Name: colObjectID, Type: arrow.BinaryTypes.String, Nullable: false, Metadata: pk},
		{Name: colObjectType, Type: arrow.BinaryTypes.String, Nullable: false},
		{Name: colLocation, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: colMetadata, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: colBaseObjects, Type: arrow.ListOfField(arrow.Field{Name: colObjectID, Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
}

// WriteOptions shapes the commits of a ManifestTable (see the package
// comment for the write path). The zero value takes the defaults.
type WriteOptions struct {
	// AlwaysRewrite makes every commit rewrite the whole table and rebuild
	// its indices, as the reference does (the write shape before
	// incremental commits).
	AlwaysRewrite bool
	// RewriteMinRows and RewriteDivisor: a commit rewrites the whole table
	// and rebuilds the indices instead of appending when the rows outside
	// index coverage plus the deleted rows would exceed max(RewriteMinRows,
	// live rows / RewriteDivisor). Defaults 1,000 and 20 (5%).
	RewriteMinRows int
	RewriteDivisor int
	// MergeFanout tiers the fragments outside index coverage by live rows
	// in powers of MergeFanout (1-3 rows, 4-15, 16-63, ... at 4); once
	// MergeFanout of them share a tier, they and every smaller one are
	// merged into one fragment (a Rewrite commit). Default 4.
	MergeFanout int
}

func (o WriteOptions) withDefaults() WriteOptions {
	if o.RewriteMinRows <= 0 {
		o.RewriteMinRows = defaultRewriteMinRows
	}
	if o.RewriteDivisor <= 0 {
		o.RewriteDivisor = defaultRewriteDivisor
	}
	if o.MergeFanout < 2 {
		o.MergeFanout = defaultMergeFanout
	}
	return o
}

// Defaults of WriteOptions. A reader in another process (or the peer)
// scans every row no index covers on each lookup, at a few microseconds a
// row: 1,000 rows keep that near the reference's own lookup latency. A
// full rewrite costs about 2.5 us a row (123 ms at 50,000 rows); paid once
// per live/20 changes it adds ~50 us to each commit whatever the size.
const (
	defaultRewriteMinRows = 1000
	defaultRewriteDivisor = 20
	defaultMergeFanout    = 4
)

// ManifestTable is the `__manifest` Lance table under a catalog root.
type ManifestTable struct {
	store storage.Store
	dir   string
	opts  WriteOptions

	mu     sync.Mutex
	cached *snapshot // latest decoded snapshot; reused only while it is still the latest

	refs versionRefs // files each version refers to, for Vacuum
}

// NewManifestTable returns the `__manifest` table of the catalog rooted at
// store, with the default WriteOptions.
func NewManifestTable(store storage.Store) *ManifestTable {
	return NewManifestTableWith(store, WriteOptions{})
}

// NewManifestTableWith returns the `__manifest` table of the catalog rooted
// at store, committing as opts says.
func NewManifestTableWith(store storage.Store, opts WriteOptions) *ManifestTable {
	return &ManifestTable{store: store, dir: catalog.ManifestDir, opts: opts.withDefaults()}
}

var _ catalog.ManifestTable = (*ManifestTable)(nil)

// Latest opens the latest committed version. Finding it probes the version
// files every call (the hint file is only a starting point), so a commit by
// another process is always seen; the snapshot (with whatever it has read:
// opened indices, decoded rows) is reused only while the version is
// unchanged.
func (m *ManifestTable) Latest(ctx context.Context) (catalog.ManifestSnapshot, error) {
	// Finding the latest version reads no manifest: the cached version's
	// is not read (and decoded) again.
	vi, err := dataset.LatestVersion(ctx, m.store, m.dir)
	if errors.Is(err, dataset.ErrNotFound) {
		return emptySnapshot{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", catalog.ManifestDir, err)
	}
	m.mu.Lock()
	if c := m.cached; c != nil && c.ds.Version() == vi.Version && c.ds.ManifestPath() == vi.Path {
		m.mu.Unlock()
		return c, nil
	}
	m.mu.Unlock()
	ds, err := dataset.Open(ctx, m.store, m.dir, dataset.OpenOptions{Version: vi.Version})
	if errors.Is(err, dataset.ErrNotFound) {
		return emptySnapshot{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", catalog.ManifestDir, err)
	}
	// A version not seen before is read lazily: lookups and listings go
	// through its indices (see snapshot) instead of decoding every row.
	snap := newSnapshot(ds)
	m.mu.Lock()
	if m.cached == nil || m.cached.ds.Version() < snap.ds.Version() {
		m.cached = snap
	}
	m.mu.Unlock()
	return snap, nil
}

// Create creates an empty `__manifest` if there is none. A concurrent
// creator winning the race is success.
func (m *ManifestTable) Create(ctx context.Context) error {
	_, err := dataset.Create(ctx, m.store, m.dir, ManifestSchema(), dataset.CreateOptions{})
	if err == nil || errors.Is(err, dataset.ErrAlreadyExists) {
		return nil
	}
	if errors.Is(err, dataset.ErrCommitOutcomeUnknown) {
		return fmt.Errorf("create %s: %w: %w", catalog.ManifestDir, catalog.ErrCommitOutcomeUnknown, err)
	}
	return fmt.Errorf("create %s: %w", catalog.ManifestDir, err)
}

// Commit commits version base+1: change applied to version base. Small
// changes are incremental (changed rows appended as one fragment, replaced
// and deleted rows marked in deletion files: one Update version); a change
// that would leave too much outside index coverage, a metadata change, or
// a version without indices is a full rewrite with rebuilt indices.
// Fragments outside index coverage are merged in tiers after the commit.
// Commit never rebases: whatever lands in between is a catalog.ErrCommitConflict,
// and the catalog re-plans the change on the new version.
func (m *ManifestTable) Commit(ctx context.Context, base uint64, change *catalog.ManifestChange) (uint64, error) {
	// The version the catalog planned on is usually the cached one.
	m.mu.Lock()
	snap := m.cached
	m.mu.Unlock()
	if snap == nil || snap.ds.Version() != base {
		ds, err := dataset.Open(ctx, m.store, m.dir, dataset.OpenOptions{Version: base})
		if err != nil {
			return 0, fmt.Errorf("open %s version %d: %w", catalog.ManifestDir, base, err)
		}
		snap = newSnapshot(ds)
	}
	ds := snap.ds
	var err error
	var next *dataset.Dataset
	var landed *snapshot
	if m.incremental(ds, change) {
		next, landed, err = m.commitIncremental(ctx, ds, snap, change)
	} else {
		next, landed, err = m.commitRewrite(ctx, ds, snap, change)
	}
	switch {
	case err == nil:
	case errors.Is(err, dataset.ErrCommitConflict):
		return 0, fmt.Errorf("%w: %w", catalog.ErrCommitConflict, err)
	case errors.Is(err, dataset.ErrCommitOutcomeUnknown):
		return 0, fmt.Errorf("%w: %w", catalog.ErrCommitOutcomeUnknown, err)
	default:
		return 0, err
	}
	m.remember(next, landed)
	return next.Version(), nil
}

// remember makes the snapshot of a version this process committed the
// cached latest one.
func (m *ManifestTable) remember(ds *dataset.Dataset, s *snapshot) {
	if s == nil {
		s = newSnapshot(ds)
	}
	m.mu.Lock()
	if m.cached == nil || m.cached.ds.Version() < ds.Version() {
		m.cached = s
	}
	m.mu.Unlock()
}

// coverage describes a version's fragments relative to the object_id
// BTREE: live rows outside its coverage, deleted rows inside it, and the
// uncovered fragments.
type coverage struct {
	indexed          bool
	live             uint64
	uncoveredRows    uint64
	deletedInCovered uint64
	uncovered        []*dataset.Fragment
}

func coverageOf(ds *dataset.Dataset) coverage {
	var c coverage
	var ix *dataset.IndexMetadata
	for _, m := range ds.Indices() {
		if m.Name == indexObjectID {
			ix = m
		}
	}
	for _, f := range ds.Fragments() {
		live, known := f.LiveRows()
		if !known {
			live = f.PhysicalRows
		}
		c.live += live
		if ix != nil && ix.FragmentBitmap != nil && f.ID <= uint64(^uint32(0)) && ix.FragmentBitmap.Contains(uint32(f.ID)) {
			c.indexed = true
			c.deletedInCovered += f.PhysicalRows - live
			continue
		}
		c.uncoveredRows += live
		c.uncovered = append(c.uncovered, f)
	}
	return c
}

// incremental decides the shape of the commit of change on ds.
func (m *ManifestTable) incremental(ds *dataset.Dataset, change *catalog.ManifestChange) bool {
	if m.opts.AlwaysRewrite || !change.BuildIndices || len(change.SetMetadata) > 0 || len(change.UnsetMetadata) > 0 {
		return false // table metadata changes ride on the rewrite
	}
	sc, err := ds.ArrowSchema()
	if err != nil {
		return false
	}
	if _, migrate := withPrimaryKey(sc); migrate {
		return false
	}
	c := coverageOf(ds)
	if !c.indexed {
		return false // readers would decode everything: build the indices
	}
	// Upper bounds after the change: every upsert lands outside coverage,
	// every replaced or deleted row is a deleted row.
	changed := uint64(len(change.Upserts) + len(change.Deletes))
	outside := c.uncoveredRows + c.deletedInCovered + changed
	limit := max(uint64(m.opts.RewriteMinRows), (c.live+uint64(len(change.Upserts)))/uint64(m.opts.RewriteDivisor))
	return outside <= limit
}

// commitRewrite rewrites every row (the reference's write shape) with the
// three indices rebuilt in the same version.
func (m *ManifestTable) commitRewrite(ctx context.Context, ds *dataset.Dataset, snap *snapshot, change *catalog.ManifestChange) (*dataset.Dataset, *snapshot, error) {
	baseRows, _, err := snap.all(ctx)
	if err != nil {
		return nil, nil, err
	}
	rows := applyChange(baseRows, change)
	sc, err := ds.ArrowSchema()
	if err != nil {
		return nil, nil, err
	}
	// Migration: a `__manifest` written before the primary key existed gets
	// it with this rewrite (a new schema, so fresh field ids; the rewrite
	// replaces every fragment anyway).
	sc, migrated := withPrimaryKey(sc)
	rec, err := buildRecord(sc, rows)
	if err != nil {
		return nil, nil, err
	}
	defer rec.Release()
	opts := dataset.OverwriteOptions{
		KeepSchema:         !migrated,
		SetTableMetadata:   change.SetMetadata,
		UnsetTableMetadata: change.UnsetMetadata,
		Sync:               change.Sync,
	}
	next, err := commitRows(ctx, ds, rec, opts, change.BuildIndices)
	if err != nil {
		return nil, nil, err
	}
	// The rows just written become the cached latest snapshot.
	return next, loadedSnapshot(next, rows), nil
}

// commitIncremental appends the upserted rows as one fragment and deletes
// the rows they replace and the deleted ones, in one version on top of
// exactly ds. When the new fragment fills its size tier (see
// WriteOptions.MergeFanout), the tier merge rides on the same version: the
// live rows of the merged fragments are carried into the new fragment and
// those fragments are removed (an Update with removed_fragment_ids), so a
// change costs one version and the merged rows are read at most once (not
// at all when this process's snapshot holds them).
func (m *ManifestTable) commitIncremental(ctx context.Context, ds *dataset.Dataset, snap *snapshot, change *catalog.ManifestChange) (*dataset.Dataset, *snapshot, error) {
	ids := make([]string, 0, len(change.Upserts)+len(change.Deletes))
	ids = append(ids, change.Deletes...)
	for _, r := range change.Upserts {
		ids = append(ids, r.ObjectID)
	}
	addrs, err := snap.locate(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	upserts := slices.Clone(change.Upserts)
	sort.SliceStable(upserts, func(i, j int) bool { return upserts[i].ObjectID < upserts[j].ObjectID })
	changed := make(map[string]bool, len(ids))
	for _, id := range ids {
		changed[id] = true
	}
	// The tier merge folded into this version: carried rows first (in
	// storage order), then the upserts.
	var carried []addressedRow
	merge := foldCandidates(afterDeletes(coverageOf(ds).uncovered, addrs), uint64(len(upserts)), m.opts.MergeFanout)
	if len(merge) > 0 {
		live, err := snap.fragmentRows(ctx, merge)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range live {
			if !changed[r.row.ObjectID] {
				carried = append(carried, r)
			}
		}
		// Rows of removed fragments need no deletion file.
		addrs = slices.DeleteFunc(addrs, func(a uint64) bool { return slices.Contains(merge, a>>32) })
	}
	rows := make([]catalog.Row, 0, len(carried)+len(upserts))
	for _, r := range carried {
		rows = append(rows, r.row)
	}
	rows = append(rows, upserts...)
	var recs []arrow.RecordBatch
	if len(rows) > 0 {
		sc, err := ds.ArrowSchema()
		if err != nil {
			return nil, nil, err
		}
		rec, err := buildRecord(sc, rows)
		if err != nil {
			return nil, nil, err
		}
		defer rec.Release()
		recs = []arrow.RecordBatch{rec}
	}
	next, err := ds.Update(ctx, recs, addrs, dataset.RowChangeOptions{ExactBase: true, Sync: change.Sync, Remove: merge})
	if err != nil {
		return nil, nil, err
	}
	delta := &rowDelta{removed: make(map[string]bool, len(ids)+len(carried)), added: make(map[string]addressedRow, len(rows))}
	for _, id := range ids {
		delta.removed[id] = true
	}
	if len(rows) > 0 {
		// The new fragment is the one version base did not have.
		frag := newFragmentOf(ds, next)
		if frag == nil || frag.PhysicalRows != uint64(len(rows)) {
			return next, nil, nil
		}
		for i, r := range rows {
			delta.removed[r.ObjectID] = true
			delta.added[r.ObjectID] = addressedRow{row: r.Clone(), addr: frag.ID<<32 | uint64(i)}
		}
	}
	return next, snap.derive(next, delta), nil
}

// newFragmentOf returns the one fragment of next that base lacks (nil if
// there is not exactly one).
func newFragmentOf(base, next *dataset.Dataset) *dataset.Fragment {
	var out *dataset.Fragment
	for _, f := range next.Fragments() {
		if !slices.ContainsFunc(base.Fragments(), func(b *dataset.Fragment) bool { return b.ID == f.ID }) {
			if out != nil {
				return nil
			}
			out = f
		}
	}
	return out
}

// foldCandidates picks the uncovered fragments a change adding `adding`
// rows as a new fragment folds into it: the fragments mergeCandidates
// picks with the new fragment counted among them (it has no id yet), then,
// as long as the grown fragment's tier holds fanout fragments with it,
// that tier and every lower one too. None when no tier fills.
func foldCandidates(uncovered []*dataset.Fragment, adding uint64, fanout int) []uint64 {
	const newID = ^uint64(0)
	all := uncovered
	if adding > 0 {
		all = append(slices.Clone(uncovered), &dataset.Fragment{ID: newID, PhysicalRows: adding})
	}
	picked := slices.DeleteFunc(mergeCandidates(all, fanout), func(id uint64) bool { return id == newID })
	if len(picked) == 0 {
		return nil
	}
	size := adding
	for _, f := range uncovered {
		if slices.Contains(picked, f.ID) {
			size += liveRows(f)
		}
	}
	for {
		t := tierOf(size, fanout)
		n := 1
		for _, f := range uncovered {
			if !slices.Contains(picked, f.ID) && tierOf(liveRows(f), fanout) == t {
				n++
			}
		}
		if n < fanout {
			return picked
		}
		for _, f := range uncovered {
			if !slices.Contains(picked, f.ID) && tierOf(liveRows(f), fanout) <= t {
				picked = append(picked, f.ID)
				size += liveRows(f)
			}
		}
	}
}

// afterDeletes returns stand-ins for the fragments with the live rows they
// keep once the rows at addrs are deleted (the tiers a change leaves);
// fragments left empty are dropped, as the commit removes them.
func afterDeletes(frags []*dataset.Fragment, addrs []uint64) []*dataset.Fragment {
	gone := map[uint64]uint64{}
	for _, a := range addrs {
		gone[a>>32]++
	}
	out := make([]*dataset.Fragment, 0, len(frags))
	for _, f := range frags {
		live := liveRows(f)
		if gone[f.ID] >= live {
			continue
		}
		out = append(out, &dataset.Fragment{ID: f.ID, PhysicalRows: live - gone[f.ID]})
	}
	return out
}

func liveRows(f *dataset.Fragment) uint64 {
	live, known := f.LiveRows()
	if !known {
		live = f.PhysicalRows
	}
	return live
}

// tierOf is floor(log_fanout(rows)) (0 for fewer than fanout rows).
func tierOf(rows uint64, fanout int) int {
	t := 0
	for n := rows; n >= uint64(fanout); n /= uint64(fanout) {
		t++
	}
	return t
}

// mergeCandidates picks the fragments to merge: tier(f) = floor(log_fanout(live
// rows)); the lowest tier holding fanout fragments, with every fragment of
// a lower tier. None when no tier is full.
func mergeCandidates(uncovered []*dataset.Fragment, fanout int) []uint64 {
	tier := func(f *dataset.Fragment) int { return tierOf(liveRows(f), fanout) }
	count := map[int]int{}
	full := -1
	for _, f := range uncovered {
		t := tier(f)
		count[t]++
		if count[t] >= fanout && (full < 0 || t < full) {
			full = t
		}
	}
	if full < 0 {
		return nil
	}
	var out []uint64
	for _, f := range uncovered {
		if tier(f) <= full {
			out = append(out, f.ID)
		}
	}
	return out
}

// commitRows commits rec as the whole next version after ds. With
// buildIndices the three indices are built over the staged version and
// committed in the same version, as the reference does; otherwise the new
// version has no index (an overwrite drops them).
func commitRows(ctx context.Context, ds *dataset.Dataset, rec arrow.RecordBatch, opts dataset.OverwriteOptions, buildIndices bool) (*dataset.Dataset, error) {
	if !buildIndices {
		return ds.OverwriteWith(ctx, []arrow.RecordBatch{rec}, opts)
	}
	st, err := ds.StageOverwrite(ctx, []arrow.RecordBatch{rec}, opts)
	if err != nil {
		return nil, err
	}
	metas, err := buildManifestIndices(ctx, st)
	failpoint.Inject("manifest/indices-written")
	if err != nil {
		if aerr := st.Abort(ctx); aerr != nil {
			err = errors.Join(err, fmt.Errorf("clean up staged files: %w", aerr))
		}
		return nil, err
	}
	return st.Commit(ctx, metas)
}

// snapshotOf returns the cached snapshot of ds's version, or a new one.
func (m *ManifestTable) snapshotOf(ds *dataset.Dataset) *snapshot {
	m.mu.Lock()
	c := m.cached
	m.mu.Unlock()
	if c != nil && c.ds.Version() == ds.Version() {
		return c
	}
	return newSnapshot(ds)
}

// applyChange returns rows with change applied; the result is sorted by
// object_id so rewrites are deterministic.
func applyChange(rows []catalog.Row, change *catalog.ManifestChange) []catalog.Row {
	drop := make(map[string]bool, len(change.Deletes)+len(change.Upserts))
	for _, id := range change.Deletes {
		drop[id] = true
	}
	for _, r := range change.Upserts {
		drop[r.ObjectID] = true
	}
	out := make([]catalog.Row, 0, len(rows)+len(change.Upserts))
	for _, r := range rows {
		if !drop[r.ObjectID] {
			out = append(out, r)
		}
	}
	out = append(out, change.Upserts...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ObjectID < out[j].ObjectID })
	return out
}

// extraValues is Row.Extra for rows read from `__manifest`: the values of
// columns the catalog does not know, by column name, as Arrow's text form
// (nil for null), written back with the column's builder.
type extraValues map[string]*string

func rowsOf(rec arrow.RecordBatch) ([]catalog.Row, error) { return appendRows(nil, rec) }

// appendRows appends the rows of rec to dst.
func appendRows(dst []catalog.Row, rec arrow.RecordBatch) ([]catalog.Row, error) {
	sc := rec.Schema()
	col := func(name string) (arrow.Array, error) {
		idx := sc.FieldIndices(name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("%s has no %s column", catalog.ManifestDir, name)
		}
		return rec.Column(idx[0]), nil
	}
	ids, err := col(colObjectID)
	if err != nil {
		return nil, err
	}
	types, err := col(colObjectType)
	if err != nil {
		return nil, err
	}
	idStr, ok1 := ids.(*array.String)
	typeStr, ok2 := types.(*array.String)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s: object_id and object_type must be utf8", catalog.ManifestDir)
	}
	optStr := func(name string) (*array.String, error) {
		idx := sc.FieldIndices(name)
		if len(idx) == 0 {
			return nil, nil // an older or foreign manifest may lack the column
		}
		s, ok := rec.Column(idx[0]).(*array.String)
		if !ok {
			return nil, fmt.Errorf("%s: %s must be utf8", catalog.ManifestDir, name)
		}
		return s, nil
	}
	locs, err := optStr(colLocation)
	if err != nil {
		return nil, err
	}
	metas, err := optStr(colMetadata)
	if err != nil {
		return nil, err
	}
	var bases *array.List
	if idx := sc.FieldIndices(colBaseObjects); len(idx) > 0 {
		l, ok := rec.Column(idx[0]).(*array.List)
		if !ok {
			return nil, fmt.Errorf("%s: base_objects must be list<utf8>", catalog.ManifestDir)
		}
		if _, ok := l.ListValues().(*array.String); !ok {
			return nil, fmt.Errorf("%s: base_objects must be list<utf8>", catalog.ManifestDir)
		}
		bases = l
	}
	var extraCols []int
	for i, f := range sc.Fields() {
		switch f.Name {
		case colObjectID, colObjectType, colLocation, colMetadata, colBaseObjects, dataset.RowAddressColumn:
		default:
			extraCols = append(extraCols, i)
		}
	}
	n := int(rec.NumRows())
	base := len(dst)
	rows := slices.Grow(dst, n)[:base+n]
	for i := 0; i < n; i++ {
		if idStr.IsNull(i) || typeStr.IsNull(i) {
			return nil, fmt.Errorf("%s: row %d has a null object_id or object_type", catalog.ManifestDir, i)
		}
		r := catalog.Row{ObjectID: idStr.Value(i), ObjectType: typeStr.Value(i)}
		if locs != nil && locs.IsValid(i) {
			v := locs.Value(i)
			r.Location = &v
		}
		if metas != nil && metas.IsValid(i) {
			v := metas.Value(i)
			r.Metadata = &v
		}
		if bases != nil && bases.IsValid(i) {
			vals := bases.ListValues().(*array.String)
			start, end := bases.ValueOffsets(i)
			r.BaseObjects = make([]string, 0, end-start)
			for j := start; j < end; j++ {
				r.BaseObjects = append(r.BaseObjects, vals.Value(int(j)))
			}
		}
		if len(extraCols) > 0 {
			ex := make(extraValues, len(extraCols))
			for _, c := range extraCols {
				a := rec.Column(c)
				if a.IsNull(i) {
					ex[sc.Field(c).Name] = nil
					continue
				}
				v := a.ValueStr(i)
				ex[sc.Field(c).Name] = &v
			}
			r.Extra = ex
		}
		rows[base+i] = r
	}
	return rows, nil
}

// withPrimaryKey returns sc with the unenforced primary key on object_id,
// and whether it had to be added.
func withPrimaryKey(sc *arrow.Schema) (*arrow.Schema, bool) {
	idx := sc.FieldIndices(colObjectID)
	if len(idx) == 0 {
		return sc, false
	}
	f := sc.Field(idx[0])
	if f.Metadata.FindKey(lanceschema.PrimaryKeyPositionKey) >= 0 {
		return sc, false
	}
	keys := append(f.Metadata.Keys(), lanceschema.PrimaryKeyPositionKey)
	vals := append(f.Metadata.Values(), "0")
	f.Metadata = arrow.NewMetadata(keys, vals)
	fields := sc.Fields()
	fields[idx[0]] = f
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md), true
}

// buildRecord encodes rows in the table's schema sc (extension columns
// included, so they survive the rewrite).
func buildRecord(sc *arrow.Schema, rows []catalog.Row) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, f := range sc.Fields() {
		fb := b.Field(i)
		for _, r := range rows {
			if err := appendValue(fb, f, r); err != nil {
				return nil, err
			}
		}
	}
	return b.NewRecordBatch(), nil
}

func appendValue(fb array.Builder, f arrow.Field, r catalog.Row) error {
	str := func(p *string) {
		sb, ok := fb.(*array.StringBuilder)
		if !ok {
			fb.AppendNull()
			return
		}
		if p == nil {
			sb.AppendNull()
		} else {
			sb.Append(*p)
		}
	}
	switch f.Name {
	case colObjectID:
		id := r.ObjectID
		str(&id)
	case colObjectType:
		t := r.ObjectType
		str(&t)
	case colLocation:
		str(r.Location)
	case colMetadata:
		str(r.Metadata)
	case colBaseObjects:
		lb, ok := fb.(*array.ListBuilder)
		if !ok {
			return fmt.Errorf("%s: base_objects has type %s", catalog.ManifestDir, f.Type)
		}
		if r.BaseObjects == nil {
			lb.AppendNull()
			return nil
		}
		lb.Append(true)
		vb := lb.ValueBuilder().(*array.StringBuilder)
		for _, s := range r.BaseObjects {
			vb.Append(s)
		}
	default:
		ex, _ := r.Extra.(extraValues)
		v, ok := ex[f.Name]
		if !ok || v == nil {
			fb.AppendNull()
			return nil
		}
		if err := fb.AppendValueFromString(*v); err != nil {
			return fmt.Errorf("%s: keep column %q: %w", catalog.ManifestDir, f.Name, err)
		}
	}
	return nil
}

// Vacuum deletes old versions' files (see vacuum.go).
func (m *ManifestTable) Vacuum(ctx context.Context, opts catalog.VacuumOptions) (catalog.VacuumReport, error) {
	rep, err := vacuum(ctx, m.store, m.dir, opts, &m.refs)
	if rep.VersionsRemoved > 0 || rep.FilesRemoved > 0 {
		// A derived snapshot whose chain ends at a lazily read old version
		// still reads that version's files, which may just have gone:
		// start again from the latest version.
		m.mu.Lock()
		if c := m.cached; c != nil && c.derived() {
			if _, lazy := c.root(); lazy {
				m.cached = nil
			}
		}
		m.mu.Unlock()
	}
	return rep, err
}

// emptySnapshot stands for a catalog whose `__manifest` does not exist yet.
type emptySnapshot struct{}

func (emptySnapshot) Version() uint64             { return 0 }
func (emptySnapshot) Metadata() map[string]string { return map[string]string{} }
func (emptySnapshot) Scan(context.Context, catalog.RowFilter) ([]catalog.Row, error) {
	return nil, nil
}
func (emptySnapshot) Get(context.Context, string) (catalog.Row, bool, error) {
	return catalog.Row{}, false, nil
}
func (emptySnapshot) ExplainGet(context.Context, string) (catalog.ReadPlan, error) {
	return catalog.ReadPlan{Scan: catalog.ReadScanMemory}, nil
}
func (emptySnapshot) ExplainScan(context.Context, catalog.RowFilter) (catalog.ReadPlan, error) {
	return catalog.ReadPlan{Scan: catalog.ReadScanMemory}, nil
}
