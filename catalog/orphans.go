package catalog

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"
)

// vacuumOrphanDirs deletes the top-level directories of the root that the catalog does not own
// and that nothing has written to since cutoff: what a writer that died between creating a
// table's dataset and committing its `__manifest` row (or between committing a drop and removing
// the directory) left behind. A directory is owned when it is `__manifest`, ends in ".lance" (a
// compatibility-mode root table, listed from the directory itself, never deleted here), or holds
// the location of any `__manifest` row of any type (including rows other clients wrote). Younger
// directories may belong to a mutation in flight and are kept, and so are symbolic links.
func (c *Catalog) vacuumOrphanDirs(ctx context.Context, snap ManifestSnapshot, cutoff time.Time, rep *VacuumReport) error {
	rows, err := snap.Scan(ctx, RowFilter{})
	if err != nil {
		return err
	}
	owned := map[string]bool{ManifestDir: true}
	for _, r := range rows {
		if r.Location == nil {
			continue
		}
		loc := *r.Location
		if strings.Contains(loc, "://") || path.IsAbs(loc) {
			continue // outside the root's relative layout
		}
		top, _, _ := strings.Cut(strings.TrimPrefix(path.Clean(loc), "./"), "/")
		owned[top] = true
	}
	dirs, err := c.opts.Root.ChildDirs(ctx, "")
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if owned[d] || strings.HasSuffix(d, ".lance") || strings.HasPrefix(d, ".") {
			continue
		}
		// lancecat never creates links: a link in the root is someone
		// else's, and what it points at is never ours to delete.
		if link, err := c.symlinkOnPath(ctx, d); err != nil {
			return fmt.Errorf("vacuum: %s: %w", d, err)
		} else if link != "" {
			continue
		}
		newest, err := c.opts.Root.NewestModTime(ctx, d)
		if err != nil {
			return fmt.Errorf("vacuum: %s: %w", d, err)
		}
		if !newest.Before(cutoff) {
			continue
		}
		n, err := c.opts.Root.DeletePrefix(ctx, d+"/")
		if err != nil {
			return fmt.Errorf("vacuum: remove orphan directory %s: %w", d, err)
		}
		rep.OrphanDirsRemoved++
		rep.FilesRemoved += n
	}
	return nil
}
