// Package catalogtest holds in-memory fakes of the catalog persistence
// interfaces (catalog.ManifestTable, catalog.Datasets) for tests of the
// catalog semantics. They are NOT Lance: MemManifest keeps versions of the
// `__manifest` rows in memory and MemDatasets keeps a JSON stand-in for a
// dataset's versions in a storage.Store. The Lance-backed implementations
// under manifest/ replace them in the real path.
package catalogtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/lancecat/lancecat/catalog"
)

// MemManifest is an in-memory fake of the `__manifest` table: a list of
// immutable versions, committed with compare-and-set on the version number.
// Several catalog.Catalog instances sharing one MemManifest behave like
// several processes sharing one catalog directory.
type MemManifest struct {
	mu       sync.Mutex
	versions []*memVersion // versions[i].version == i+1

	// BeforeCommit, when set, is called at the start of every Commit
	// (without the fake's lock held). A non-nil error is returned by Commit
	// and nothing lands; the hook may itself commit (through Insert or
	// another Catalog) to simulate a writer that wins the race.
	BeforeCommit func(base uint64, change *catalog.ManifestChange) error
	// Now is the clock of commit timestamps (nil: time.Now).
	Now func() time.Time

	commits  int
	creates  int
	vacuumed []uint64
}

type memVersion struct {
	version uint64
	rows    map[string]catalog.Row
	meta    map[string]string
	at      time.Time
}

// NewMemManifest returns a fake whose `__manifest` table does not exist yet.
func NewMemManifest() *MemManifest { return &MemManifest{} }

func (m *MemManifest) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Latest returns the latest version (an empty snapshot of version 0 when
// the table does not exist).
func (m *MemManifest) Latest(ctx context.Context) (catalog.ManifestSnapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.versions) == 0 {
		return &memSnapshot{v: &memVersion{rows: map[string]catalog.Row{}, meta: map[string]string{}}}, nil
	}
	return &memSnapshot{v: m.versions[len(m.versions)-1]}, nil
}

// Create creates the table (version 1, no rows) if it does not exist.
func (m *MemManifest) Create(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.versions) == 0 {
		m.creates++
		m.versions = append(m.versions, &memVersion{version: 1, rows: map[string]catalog.Row{}, meta: map[string]string{}, at: m.now()})
	}
	return nil
}

// Commit applies change on top of version base.
func (m *MemManifest) Commit(ctx context.Context, base uint64, change *catalog.ManifestChange) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if m.BeforeCommit != nil {
		if err := m.BeforeCommit(base, change); err != nil {
			return 0, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.versions) == 0 {
		return 0, errors.New("memmanifest: commit to a table that does not exist")
	}
	latest := m.versions[len(m.versions)-1]
	if base != latest.version {
		return 0, fmt.Errorf("memmanifest: version %d already exists: %w", base+1, catalog.ErrCommitConflict)
	}
	next, err := apply(latest, change)
	if err != nil {
		return 0, err
	}
	next.at = m.now()
	m.versions = append(m.versions, next)
	m.commits++
	return next.version, nil
}

func apply(base *memVersion, change *catalog.ManifestChange) (*memVersion, error) {
	next := &memVersion{version: base.version + 1, rows: make(map[string]catalog.Row, len(base.rows)), meta: make(map[string]string, len(base.meta))}
	for k, r := range base.rows {
		next.rows[k] = r
	}
	for k, v := range base.meta {
		next.meta[k] = v
	}
	seen := map[string]bool{}
	for _, id := range change.Deletes {
		if seen[id] {
			return nil, fmt.Errorf("memmanifest: object id %q twice in one change", id)
		}
		seen[id] = true
		delete(next.rows, id)
	}
	for _, r := range change.Upserts {
		if seen[r.ObjectID] {
			return nil, fmt.Errorf("memmanifest: object id %q twice in one change", r.ObjectID)
		}
		if r.ObjectID == "" || r.ObjectType == "" {
			return nil, fmt.Errorf("memmanifest: object_id and object_type are NOT NULL")
		}
		seen[r.ObjectID] = true
		next.rows[r.ObjectID] = r.Clone()
	}
	for _, k := range change.UnsetMetadata {
		delete(next.meta, k)
	}
	for k, v := range change.SetMetadata {
		next.meta[k] = v
	}
	return next, nil
}

// Insert commits rows directly, as another client would (any object type,
// any characters, extension columns in Extra). It creates the table if
// needed.
func (m *MemManifest) Insert(rows ...catalog.Row) error {
	return m.CommitDirect(&catalog.ManifestChange{Upserts: rows})
}

// SetMetadata commits table metadata directly (e.g. feature flags written
// by a newer client).
func (m *MemManifest) SetMetadata(key, value string) error {
	return m.CommitDirect(&catalog.ManifestChange{SetMetadata: map[string]string{key: value}})
}

// CommitDirect commits a change on the latest version, bypassing
// BeforeCommit.
func (m *MemManifest) CommitDirect(change *catalog.ManifestChange) error {
	if err := m.Create(context.Background()); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	latest := m.versions[len(m.versions)-1]
	next, err := apply(latest, change)
	if err != nil {
		return err
	}
	next.at = m.now()
	m.versions = append(m.versions, next)
	m.commits++
	return nil
}

// Rows returns the rows of the latest version sorted by object id.
func (m *MemManifest) Rows() []catalog.Row {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.versions) == 0 {
		return nil
	}
	return sortedRows(m.versions[len(m.versions)-1].rows, catalog.RowFilter{})
}

// Version returns the latest version number (0: no table).
func (m *MemManifest) Version() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.versions))
}

// Commits returns how many commits landed (Create excluded).
func (m *MemManifest) Commits() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.commits
}

// Exists reports whether the table was created.
func (m *MemManifest) Exists() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.versions) > 0
}

// Vacuum forgets the rows of eligible versions (a version superseded longer
// than Retention ago; never the latest). The fake has no files: it reports
// one data file per version, plus the version file unless KeepVersionFiles.
func (m *MemManifest) Vacuum(ctx context.Context, opts catalog.VacuumOptions) (catalog.VacuumReport, error) {
	if err := ctx.Err(); err != nil {
		return catalog.VacuumReport{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := opts.Now
	if now.IsZero() {
		now = m.now()
	}
	var rep catalog.VacuumReport
	for i := 0; i+1 < len(m.versions); i++ {
		v, succ := m.versions[i], m.versions[i+1]
		if v.rows == nil || now.Sub(succ.at) <= opts.Retention {
			continue
		}
		v.rows, v.meta = nil, nil
		m.vacuumed = append(m.vacuumed, v.version)
		rep.FilesRemoved++
		if !opts.KeepVersionFiles {
			rep.VersionsRemoved++
			rep.FilesRemoved++
		}
	}
	for _, v := range m.versions {
		if v.rows != nil {
			rep.OldestKept = v.version
			break
		}
	}
	return rep, nil
}

// Vacuumed returns the versions vacuumed so far.
func (m *MemManifest) Vacuumed() []uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]uint64(nil), m.vacuumed...)
}

type memSnapshot struct{ v *memVersion }

func (s *memSnapshot) Version() uint64 { return s.v.version }

func (s *memSnapshot) Metadata() map[string]string {
	out := make(map[string]string, len(s.v.meta))
	for k, v := range s.v.meta {
		out[k] = v
	}
	return out
}

func (s *memSnapshot) Get(ctx context.Context, objectID string) (catalog.Row, bool, error) {
	if err := ctx.Err(); err != nil {
		return catalog.Row{}, false, err
	}
	r, ok := s.v.rows[objectID]
	if !ok {
		return catalog.Row{}, false, nil
	}
	return r.Clone(), true, nil
}

func (s *memSnapshot) Scan(ctx context.Context, f catalog.RowFilter) ([]catalog.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sortedRows(s.v.rows, f), nil
}

// ExplainGet: the fake holds its rows in a map; it has no indices.
func (s *memSnapshot) ExplainGet(ctx context.Context, objectID string) (catalog.ReadPlan, error) {
	return catalog.ReadPlan{Scan: catalog.ReadScanMemory}, ctx.Err()
}

// ExplainScan: the fake filters every row in memory.
func (s *memSnapshot) ExplainScan(ctx context.Context, f catalog.RowFilter) (catalog.ReadPlan, error) {
	return catalog.ReadPlan{Scan: catalog.ReadScanMemory}, ctx.Err()
}

func sortedRows(rows map[string]catalog.Row, f catalog.RowFilter) []catalog.Row {
	var out []catalog.Row
	for _, r := range rows {
		if f.Match(r) {
			out = append(out, r.Clone())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ObjectID < out[j].ObjectID })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out
}
