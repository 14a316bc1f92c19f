package driver

import (
	"context"
	"errors"
	"sync"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/storage"
)

// A handle is one open catalog shared by every connector (and so every
// connection) on the same key. It is reference-counted by connectors and
// closed when the last one releases it.
type handle struct {
	key   string
	ready chan struct{} // closed when opening finished
	err   error         // opening error (set before ready is closed)
	cat   *catalog.Catalog
	store storage.Store // the catalog root, for reading and appending table data
	close func() error
	refs  int // guarded by registry.mu
}

var registry = struct {
	mu      sync.Mutex
	handles map[string]*handle
}{handles: map[string]*handle{}}

// acquire returns the shared handle for cfg, opening the catalog if no
// connector holds it. The caller must release it.
func acquire(ctx context.Context, cfg Config) (*handle, error) {
	key := cfg.key()
	if key == "" { // private catalog
		h := &handle{ready: make(chan struct{}), refs: 1}
		h.cat, h.store, h.close, h.err = openCatalog(ctx, cfg)
		close(h.ready)
		if h.err != nil {
			return nil, h.err
		}
		return h, nil
	}
	registry.mu.Lock()
	h, ok := registry.handles[key]
	if ok {
		h.refs++
		registry.mu.Unlock()
		select {
		case <-h.ready:
		case <-ctx.Done():
			h.release()
			return nil, ctx.Err()
		}
		if h.err != nil {
			h.release()
			return nil, h.err
		}
		return h, nil
	}
	h = &handle{key: key, ready: make(chan struct{}), refs: 1}
	registry.handles[key] = h
	registry.mu.Unlock()

	// Open outside the lock: other URIs are not blocked by slow I/O. The
	// open is not tied to the first caller's cancellation, since other
	// callers may be waiting for it.
	h.cat, h.store, h.close, h.err = openCatalog(context.WithoutCancel(ctx), cfg)
	close(h.ready)
	if h.err != nil {
		h.release()
		return nil, h.err
	}
	return h, nil
}

// release drops one reference; the last one closes the catalog.
func (h *handle) release() {
	if h.key == "" {
		if h.close != nil {
			_ = h.close()
		}
		return
	}
	registry.mu.Lock()
	h.refs--
	last := h.refs == 0
	if last && registry.handles[h.key] == h {
		delete(registry.handles, h.key)
	}
	registry.mu.Unlock()
	if last && h.close != nil {
		_ = h.close()
	}
}

// openHandles reports how many catalog handles are open (for tests).
func openHandles() int {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return len(registry.handles)
}

// openCatalog is the one place where the driver obtains a catalog: the
// Lance-backed directory catalog of manifest, on every URI
// (memory:// included, so in-memory catalogs hold real Lance bytes).
// memory:// catalogs are discarded when their last handle closes.
func openCatalog(ctx context.Context, cfg Config) (*catalog.Catalog, storage.Store, func() error, error) {
	if err := cfg.validate(); err != nil {
		return nil, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	opts := manifest.Options{
		Catalog: catalog.Options{
			Mode:           cfg.Mode,
			SkipIndexBuild: cfg.SkipIndexBuild,
			CommitRetries:  cfg.CommitRetries,
			ReadOnly:       cfg.ReadOnly,
			// Auto-vacuum keeps the version files (as vacuum_catalog does):
			// see catalog.DefaultAutoVacuumOptions.
			AutoVacuumEvery:   cfg.AutoVacuumEvery,
			AutoVacuumOptions: catalog.DefaultAutoVacuumOptions(),
		},
		Storage: storage.Options{ReadOnly: cfg.ReadOnly, StorageOptions: cfg.StorageOptions, Durability: cfg.Durability},
	}
	lc, err := manifest.OpenCatalog(ctx, cfg.URI, opts)
	if err != nil {
		if errors.Is(err, storage.ErrInvalidURI) || errors.Is(err, storage.ErrInvalidOption) {
			return nil, nil, nil, errNoPos(&catalog.Error{Code: catalog.CodeInvalidInput, Message: "open catalog " + cfg.URI, Cause: err})
		}
		return nil, nil, nil, errNoPos(err)
	}
	closeFn := func() error {
		// The engine's process-wide index caches must not outlive the store.
		planner.ForgetStore(lc.Store)
		if scheme(cfg.URI) == "memory" {
			// An in-memory catalog lives as long as a connector uses it.
			_, _ = lc.Store.DeletePrefix(context.Background(), "")
		}
		return lc.Close()
	}
	return lc.Catalog, lc.Store, closeFn, nil
}
