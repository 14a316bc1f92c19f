package dataset

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/lancecat/lancecat/storage"
)

// DefaultCleanupRetention is Lance's default age for cleanup_old_versions:
// versions older than seven days.
const DefaultCleanupRetention = 7 * 24 * time.Hour

// CleanupReport says what Cleanup removed.
type CleanupReport struct {
	VersionsRemoved int
	FilesRemoved    int
	BytesRemoved    int64
	// OldestKept is the oldest version left.
	OldestKept uint64
}

// Cleanup removes the versions of the dataset under dir whose manifest
// timestamp is before olderThan, as Lance's cleanup_old_versions does:
// never the latest version and never a tagged one. It deletes their
// manifest files and every data, deletion, index and transaction file that
// no kept version references; a file that no version references at all (a
// commit that never landed) goes only when it was last modified before
// olderThan too, so the files of a write in flight survive.
func Cleanup(ctx context.Context, store storage.Store, dir string, olderThan time.Time) (CleanupReport, error) {
	var rep CleanupReport
	versions, err := ListVersions(ctx, store, dir)
	if err != nil {
		return rep, err
	}
	tags, err := ListTags(ctx, store, dir)
	if err != nil {
		return rep, err
	}
	tagged := map[uint64]bool{}
	for _, t := range tags {
		if t.Branch == nil || *t.Branch == "main" {
			tagged[t.Version] = true
		}
	}
	objs, err := store.List(ctx, strings.TrimSuffix(dir, "/")+"/")
	if dir == "" {
		objs, err = store.List(ctx, "")
	}
	if err != nil {
		return rep, err
	}
	var removeVersions []VersionInfo
	kept := map[string]bool{}
	removedRefs := map[string]bool{}
	for i, v := range versions {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		m, err := readManifest(ctx, store, v)
		if errors.Is(err, ErrVersionNotFound) {
			continue
		}
		if err != nil {
			return rep, err
		}
		refs := manifestFiles(dir, m)
		latest := i == len(versions)-1
		if !latest && !tagged[v.Version] && !m.Timestamp.IsZero() && m.Timestamp.Before(olderThan) {
			removeVersions = append(removeVersions, v)
			for _, p := range refs {
				removedRefs[p] = true
			}
			continue
		}
		if rep.OldestKept == 0 {
			rep.OldestKept = v.Version
		}
		for _, p := range refs {
			kept[p] = true
		}
	}
	remove := func(p string, size int64) error {
		if err := store.Delete(ctx, p); err != nil {
			return fmt.Errorf("dataset: cleanup: delete %s: %w", store.Location(p), err)
		}
		rep.FilesRemoved++
		rep.BytesRemoved += size
		return nil
	}
	// Version files first: a crash part way leaves unreferenced files
	// (harmless, removed next time), never a version missing its files.
	for _, v := range removeVersions {
		if err := remove(v.Path, v.Size); err != nil {
			return rep, err
		}
		rep.VersionsRemoved++
	}
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		rel := strings.TrimPrefix(o.Path, strings.TrimSuffix(dir, "/")+"/")
		if dir == "" {
			rel = o.Path
		}
		top, rest, _ := strings.Cut(rel, "/")
		key := o.Path
		switch top {
		case dataDir, deletionsDir, transactionsDir:
		case indicesDir:
			u, _, _ := strings.Cut(rest, "/")
			key = joinPath(dir, indicesDir, u)
		default:
			continue
		}
		if kept[key] {
			continue
		}
		if !removedRefs[key] && !o.ModTime.Before(olderThan) {
			continue
		}
		if err := remove(o.Path, o.Size); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// manifestFiles lists the store paths a version needs: data files,
// deletion files, index directories and its transaction file.
func manifestFiles(dir string, m *Manifest) []string {
	var out []string
	for _, f := range m.Fragments {
		for _, df := range f.Files {
			if df.BaseID == nil {
				out = append(out, joinPath(dir, dataDir, df.Path))
			}
		}
		if f.Deletion != nil {
			out = append(out, deletionFilePath(dir, f.ID, f.Deletion))
		}
	}
	for _, ix := range m.Indices {
		out = append(out, joinPath(dir, indicesDir, ix.UUID))
	}
	if m.TransactionFile != "" {
		out = append(out, joinPath(dir, transactionsDir, path.Clean(m.TransactionFile)))
	}
	return out
}
