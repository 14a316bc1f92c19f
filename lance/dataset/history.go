package dataset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lancecat/lancecat/storage"
)

// ErrVersionRemoved wraps ErrVersionNotFound for a version older than the
// latest whose manifest is gone: a cleanup (vacuum) removed it.
var ErrVersionRemoved = fmt.Errorf("%w: removed by cleanup", ErrVersionNotFound)

// VersionSummary is one entry of a dataset's history.
type VersionSummary struct {
	Version   uint64
	Timestamp time.Time // zero when the manifest records none
	// Operation is the transaction's operation ("Append", "Rewrite", ...;
	// "" when the version records no transaction).
	Operation string
	// Rows is the live row count (physical rows minus recorded deletions).
	Rows uint64
	// Fragments is the number of fragments.
	Fragments int
}

// History lists every version still stored under dir, oldest first,
// reading each manifest (and the transaction file when the manifest has no
// inline transaction).
func History(ctx context.Context, store storage.Store, dir string) ([]VersionSummary, error) {
	vs, err := ListVersions(ctx, store, dir)
	if err != nil {
		return nil, err
	}
	out := make([]VersionSummary, 0, len(vs))
	for _, v := range vs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := readManifest(ctx, store, v)
		if errors.Is(err, ErrVersionNotFound) {
			continue // removed by a concurrent cleanup
		}
		if err != nil {
			return nil, err
		}
		s := VersionSummary{Version: m.Version, Timestamp: m.Timestamp, Fragments: len(m.Fragments), Rows: manifestRows(m)}
		tx, err := transactionOf(ctx, store, dir, m)
		if err == nil && tx != nil {
			s.Operation = tx.Operation
		}
		out = append(out, s)
	}
	return out, nil
}

// manifestRows is the live row count a manifest records.
func manifestRows(m *Manifest) uint64 {
	var n uint64
	for _, f := range m.Fragments {
		live, ok := f.LiveRows()
		if !ok && f.Deletion != nil && f.Deletion.NumDeleted == 0 {
			live = f.PhysicalRows
		}
		n += live
	}
	return n
}

// OpenVersion opens one version of the dataset like Open, but a version
// below the latest whose manifest is missing fails with ErrVersionRemoved
// (it existed: version numbers are dense).
func OpenVersion(ctx context.Context, store storage.Store, dir string, version uint64) (*Dataset, error) {
	ds, err := Open(ctx, store, dir, OpenOptions{Version: version})
	if err == nil || !errors.Is(err, ErrVersionNotFound) {
		return ds, err
	}
	latest, lerr := LatestVersion(ctx, store, dir)
	if lerr == nil && version >= 1 && version < latest.Version {
		return nil, fmt.Errorf("%w: version %d of %s", ErrVersionRemoved, version, store.Location(dir))
	}
	return nil, err
}

// VersionAt is the version that was current at instant t: the newest
// version whose timestamp is at or before t. An instant before the first
// version fails with ErrVersionNotFound; one before the oldest version still
// stored, when older ones were cleaned up, with ErrVersionRemoved.
func VersionAt(ctx context.Context, store storage.Store, dir string, t time.Time) (uint64, error) {
	vs, err := ListVersions(ctx, store, dir)
	if err != nil {
		return 0, err
	}
	// Newest first: most lookups are recent.
	for i := len(vs) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		m, err := readManifest(ctx, store, vs[i])
		if errors.Is(err, ErrVersionNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if !m.Timestamp.After(t) {
			return m.Version, nil
		}
	}
	if len(vs) > 0 && vs[0].Version > 1 {
		return 0, fmt.Errorf("%w: the versions of %s current at %s", ErrVersionRemoved, store.Location(dir), t.UTC().Format(time.RFC3339Nano))
	}
	return 0, fmt.Errorf("%w: %s has no version at or before %s", ErrVersionNotFound, store.Location(dir), t.UTC().Format(time.RFC3339Nano))
}
