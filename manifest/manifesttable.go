package manifest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
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

// ManifestTable is the `__manifest` Lance table under a catalog root.
type ManifestTable struct {
	store storage.Store
	dir   string

	mu     sync.Mutex
	cached *snapshot // latest decoded snapshot; reused only while it is still the latest

	refs versionRefs // files each version refers to, for Vacuum
}

// NewManifestTable returns the `__manifest` table of the catalog rooted at
// store.
func NewManifestTable(store storage.Store) *ManifestTable {
	return &ManifestTable{store: store, dir: catalog.ManifestDir}
}

var _ catalog.ManifestTable = (*ManifestTable)(nil)

// Latest opens the latest committed version. Finding it probes the version
// files every call (the hint file is only a starting point), so a commit by
// another process is always seen; the snapshot (with whatever it has read:
// opened indices, decoded rows) is reused only while the version is
// unchanged.
func (m *ManifestTable) Latest(ctx context.Context) (catalog.ManifestSnapshot, error) {
	ds, err := dataset.Open(ctx, m.store, m.dir, dataset.OpenOptions{})
	if errors.Is(err, dataset.ErrNotFound) {
		return emptySnapshot{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", catalog.ManifestDir, err)
	}
	m.mu.Lock()
	if c := m.cached; c != nil && c.ds.Version() == ds.Version() {
		m.mu.Unlock()
		return c, nil
	}
	m.mu.Unlock()
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
	return fmt.Errorf("create %s: %w", catalog.ManifestDir, err)
}

// Commit rewrites the table as of version base with change applied and
// commits version base+1.
func (m *ManifestTable) Commit(ctx context.Context, base uint64, change *catalog.ManifestChange) (uint64, error) {
	ds, err := dataset.Open(ctx, m.store, m.dir, dataset.OpenOptions{Version: base})
	if err != nil {
		return 0, fmt.Errorf("open %s version %d: %w", catalog.ManifestDir, base, err)
	}
	baseRows, _, err := m.snapshotOf(ds).all(ctx)
	if err != nil {
		return 0, err
	}
	rows := applyChange(baseRows, change)
	sc, err := ds.ArrowSchema()
	if err != nil {
		return 0, err
	}
	// Migration: a `__manifest` written before the primary key existed gets
	// it with this rewrite (a new schema, so fresh field ids; the rewrite
	// replaces every fragment anyway).
	sc, migrated := withPrimaryKey(sc)
	rec, err := buildRecord(sc, rows)
	if err != nil {
		return 0, err
	}
	defer rec.Release()
	opts := dataset.OverwriteOptions{
		KeepSchema:         !migrated,
		SetTableMetadata:   change.SetMetadata,
		UnsetTableMetadata: change.UnsetMetadata,
	}
	next, err := commitRows(ctx, ds, rec, opts, change.BuildIndices)
	switch {
	case err == nil:
	case errors.Is(err, dataset.ErrCommitConflict):
		return 0, fmt.Errorf("%w: %w", catalog.ErrCommitConflict, err)
	case errors.Is(err, dataset.ErrCommitOutcomeUnknown):
		return 0, fmt.Errorf("%w: %w", catalog.ErrCommitOutcomeUnknown, err)
	default:
		return 0, err
	}
	// The rows just written become the cached latest snapshot.
	landed := loadedSnapshot(next, rows)
	m.mu.Lock()
	if m.cached == nil || m.cached.ds.Version() < next.Version() {
		m.cached = landed
	}
	m.mu.Unlock()
	return next.Version(), nil
}

// commitRows commits rec as the whole next version after ds. With
// buildIndices the three indices are built over the staged version and
// committed in the same version, as the reference does; otherwise the new
// version has no index (an overwrite drops them).
//
// This is where an incremental write path would plug in (see the package
// comment): append the changed rows as a new fragment plus deletion files
// for the replaced rows, leaving the indices' fragment bitmaps as they are
// (readers scan the uncovered fragment), and compact periodically.
func commitRows(ctx context.Context, ds *dataset.Dataset, rec arrow.RecordBatch, opts dataset.OverwriteOptions, buildIndices bool) (*dataset.Dataset, error) {
	if !buildIndices {
		return ds.OverwriteWith(ctx, []arrow.RecordBatch{rec}, opts)
	}
	st, err := ds.StageOverwrite(ctx, []arrow.RecordBatch{rec}, opts)
	if err != nil {
		return nil, err
	}
	metas, err := buildManifestIndices(ctx, st)
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

func rowsOf(rec arrow.RecordBatch) ([]catalog.Row, error) {
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
		case colObjectID, colObjectType, colLocation, colMetadata, colBaseObjects:
		default:
			extraCols = append(extraCols, i)
		}
	}
	n := int(rec.NumRows())
	rows := make([]catalog.Row, n)
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
		rows[i] = r
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
	return vacuum(ctx, m.store, m.dir, opts, &m.refs)
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
