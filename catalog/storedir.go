package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lancecat/lancecat/storage"
)

// StoreDir adapts a storage.Store rooted at the catalog directory
// to RootDir.
func StoreDir(s storage.Store) RootDir { return storeDir{s} }

type storeDir struct{ s storage.Store }

func (d storeDir) URI() string { return d.s.URI() }

func (d storeDir) Exists(ctx context.Context, path string) (bool, error) {
	_, err := d.s.Stat(ctx, path)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (d storeDir) HasObjects(ctx context.Context, dir string) (bool, error) {
	files, dirs, err := d.s.ListDir(ctx, dir)
	if err != nil {
		return false, err
	}
	return len(files) > 0 || len(dirs) > 0, nil
}

func (d storeDir) ChildDirs(ctx context.Context, dir string) ([]string, error) {
	_, dirs, err := d.s.ListDir(ctx, dir)
	return dirs, err
}

func (d storeDir) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	err := d.s.PutIfAbsent(ctx, path, data)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return fmt.Errorf("%w: %w", ErrObjectExists, err)
	}
	return err
}

func (d storeDir) Delete(ctx context.Context, path string) error { return d.s.Delete(ctx, path) }

func (d storeDir) DeletePrefix(ctx context.Context, dir string) (int, error) {
	return d.s.DeletePrefix(ctx, dir)
}

func (d storeDir) NewestModTime(ctx context.Context, dir string) (time.Time, error) {
	objs, err := d.s.List(ctx, strings.TrimSuffix(dir, "/")+"/")
	if err != nil {
		return time.Time{}, err
	}
	var newest time.Time
	for _, o := range objs {
		if o.ModTime.After(newest) {
			newest = o.ModTime
		}
	}
	return newest, nil
}

// SymlinkOnPath reports the first symbolic link on path (see
// storage.SymlinkChecker); stores without links have none.
func (d storeDir) SymlinkOnPath(ctx context.Context, path string) (string, error) {
	if sc, ok := d.s.(storage.SymlinkChecker); ok {
		return sc.SymlinkOnPath(ctx, path)
	}
	return "", nil
}

// RemoveLink removes the symbolic link at path itself (see
// storage.LinkRemover).
func (d storeDir) RemoveLink(ctx context.Context, path string) error {
	if lr, ok := d.s.(storage.LinkRemover); ok {
		return lr.RemoveLink(ctx, path)
	}
	return fmt.Errorf("remove link %q: the store has no links: %w", path, storage.ErrNotFound)
}
