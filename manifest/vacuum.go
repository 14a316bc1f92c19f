package manifest

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// vacuum deletes what old versions of the dataset under dir left behind.
//
// A version is eligible once its successor has existed for longer than the
// retention window; the latest version never is. Files (data, deletion,
// index and transaction files) that no kept version references are deleted
// when they are older than the window too: younger unreferenced files may
// belong to a commit in flight (staged but not yet committed), older ones are
// orphans of commits that never landed. Version files of eligible versions go
// too unless opts.KeepVersionFiles.
//
// refs (may be nil) memoizes the files each version refers to across calls:
// versions are immutable, so a vacuum after K more commits opens only the K
// new versions instead of every version in the window.
func vacuum(ctx context.Context, store storage.Store, dir string, opts catalog.VacuumOptions, refs *versionRefs) (catalog.VacuumReport, error) {
	return vacuumDir(ctx, store, dir, opts, refs, false)
}

// vacuumDir is vacuum; with keepAllVersions no version is eligible (a
// table's versions are its users' history: only files that no version
// references are removed) and a directory without any version is left alone
// (a table declared without data, or one whose first write is in flight).
func vacuumDir(ctx context.Context, store storage.Store, dir string, opts catalog.VacuumOptions, refs *versionRefs, keepAllVersions bool) (catalog.VacuumReport, error) {
	var rep catalog.VacuumReport
	retention := opts.Retention
	if retention <= 0 {
		retention = catalog.DefaultVacuumRetention
	}

	versions, err := dataset.ListVersions(ctx, store, dir)
	if err != nil && !errors.Is(err, dataset.ErrNotFound) {
		return rep, err
	}
	objs, err := store.List(ctx, dir+"/")
	if err != nil {
		return rep, err
	}
	if len(versions) == 0 && keepAllVersions {
		return rep, nil
	}
	if len(versions) == 0 {
		// No version landed: what is there was staged by a first write that
		// died before committing (files younger than the window may belong to
		// one in flight).
		now := opts.Now
		if now.IsZero() {
			now = time.Now()
		}
		cutoff := now.Add(-retention)
		for _, o := range objs {
			if o.ModTime.Before(cutoff) {
				if err := store.Delete(ctx, o.Path); err != nil {
					return rep, fmt.Errorf("vacuum: delete %s: %w", o.Path, err)
				}
				rep.FilesRemoved++
				rep.BytesRemoved += o.Size
			}
		}
		return rep, nil
	}
	modTime := make(map[string]time.Time, len(objs))
	for _, o := range objs {
		modTime[o.Path] = o.ModTime
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
		// Ages are measured on the store's clock where we can: a latest
		// version younger than the window by our clock was most likely just
		// written (auto-vacuum runs right after a commit), so its
		// modification time stands for the store's "now", and a local clock
		// running ahead of the store's (by less than the window) does not
		// shorten the window.
		if latest, ok := modTime[versions[len(versions)-1].Path]; ok && latest.Before(now) && now.Sub(latest) < retention {
			now = latest
		}
	}
	cutoff := now.Add(-retention)

	// Versions are sorted oldest first; the successor of versions[i] is
	// versions[i+1].
	kept := make([]dataset.VersionInfo, 0, len(versions))
	var eligible []dataset.VersionInfo
	for i, v := range versions {
		if !keepAllVersions && i < len(versions)-1 && modTime[versions[i+1].Path].Before(cutoff) {
			eligible = append(eligible, v)
			continue
		}
		kept = append(kept, v)
	}
	rep.OldestKept = kept[0].Version

	referenced := map[string]bool{}
	keys := make([]versionKey, 0, len(kept))
	for _, v := range kept {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		key := versionKey{v.Path, v.Size, modTime[v.Path]}
		keys = append(keys, key)
		files, ok := refs.get(key)
		if !ok {
			ds, err := dataset.Open(ctx, store, dir, dataset.OpenOptions{Version: v.Version})
			if err != nil {
				return rep, fmt.Errorf("vacuum: read version %d: %w", v.Version, err)
			}
			files = referencedFiles(ds, dir)
			refs.put(key, files)
		}
		for _, p := range files {
			referenced[p] = true
		}
	}
	refs.keepOnly(keys)

	isVersionFile := map[string]bool{}
	for _, v := range versions {
		isVersionFile[v.Path] = true
	}
	remove := func(p string, size int64) error {
		if err := store.Delete(ctx, p); err != nil {
			return fmt.Errorf("vacuum: delete %s: %w", p, err)
		}
		rep.FilesRemoved++
		rep.BytesRemoved += size
		return nil
	}
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Path, dir+"/")
		top, _, _ := strings.Cut(rel, "/")
		switch top {
		case "data", "_deletions", "_transactions":
			if referenced[o.Path] || !o.ModTime.Before(cutoff) {
				continue
			}
		case "_indices":
			// An index is a directory of files named by its uuid.
			idxDir := path.Join(dir, "_indices", strings.SplitN(rel, "/", 3)[1])
			if referenced[idxDir] || !o.ModTime.Before(cutoff) {
				continue
			}
		default:
			continue
		}
		if err := remove(o.Path, o.Size); err != nil {
			return rep, err
		}
	}
	if !opts.KeepVersionFiles {
		for _, v := range eligible {
			if err := remove(v.Path, v.Size); err != nil {
				return rep, err
			}
			rep.VersionsRemoved++
		}
	}
	return rep, nil
}

// referencedFiles lists the store paths one version needs: its data files,
// deletion files, index directories and transaction file.
func referencedFiles(ds *dataset.Dataset, dir string) []string {
	var out []string
	m := ds.Manifest()
	for _, f := range m.Fragments {
		for _, df := range f.Files {
			out = append(out, path.Join(dir, "data", df.Path))
		}
		if f.Deletion != nil {
			out = append(out, ds.DeletionFilePath(f))
		}
	}
	for _, ix := range m.Indices {
		out = append(out, path.Join(dir, "_indices", ix.UUID))
	}
	if m.TransactionFile != "" {
		out = append(out, path.Join(dir, "_transactions", m.TransactionFile))
	}
	return out
}

// versionKey identifies one version file's content: a path reused after the
// table was deleted and created again has another size or time.
type versionKey struct {
	path  string
	size  int64
	mtime time.Time
}

// versionRefs memoizes referencedFiles per version. The zero value is
// ready; a nil *versionRefs memoizes nothing.
type versionRefs struct {
	mu    sync.Mutex
	files map[versionKey][]string
}

func (r *versionRefs) get(k versionKey) ([]string, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.files[k]
	return f, ok
}

func (r *versionRefs) put(k versionKey, files []string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = map[versionKey][]string{}
	}
	r.files[k] = files
}

// keepOnly forgets every version but keys (the memo stays as small as the
// retention window).
func (r *versionRefs) keepOnly(keys []versionKey) {
	if r == nil {
		return
	}
	keep := make(map[versionKey]bool, len(keys))
	for _, k := range keys {
		keep[k] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.files {
		if !keep[k] {
			delete(r.files, k)
		}
	}
}
