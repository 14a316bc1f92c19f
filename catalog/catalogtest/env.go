package catalogtest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/storage"
)

// Env is one catalog root on a fresh memory:// store with its fakes. Open
// more Catalogs on it (Env.Open) to play several processes.
type Env struct {
	TB       testing.TB
	Store    storage.Store
	Manifest *MemManifest
	Datasets *MemDatasets
}

var envSeq atomic.Int64

// NewEnv creates a fresh environment; the store is closed at the end of
// the test.
func NewEnv(tb testing.TB) *Env {
	tb.Helper()
	uri := fmt.Sprintf("memory://catalogtest-%d-%d/lake", envSeq.Add(1), envSeq.Load())
	st, err := storage.Open(context.Background(), uri, storage.Options{})
	if err != nil {
		tb.Fatalf("open %s: %v", uri, err)
	}
	tb.Cleanup(func() {
		_, _ = st.DeletePrefix(context.Background(), "")
		_ = st.Close()
	})
	return &Env{TB: tb, Store: st, Manifest: NewMemManifest(), Datasets: NewMemDatasets(st)}
}

// Options returns catalog options wired to the env's fakes; adjust fields
// before Open.
func (e *Env) Options(mode catalog.Mode) catalog.Options {
	return catalog.Options{Mode: mode, Root: catalog.StoreDir(e.Store), Manifest: e.Manifest, Datasets: e.Datasets}
}

// Open opens a Catalog in mode on the env (fails the test on error).
func (e *Env) Open(mode catalog.Mode) *catalog.Catalog {
	e.TB.Helper()
	c, err := catalog.Open(context.Background(), e.Options(mode))
	if err != nil {
		e.TB.Fatalf("open catalog: %v", err)
	}
	return c
}

// Paths lists every object path of the store, sorted.
func (e *Env) Paths() []string {
	e.TB.Helper()
	objs, err := e.Store.List(context.Background(), "")
	if err != nil {
		e.TB.Fatalf("list store: %v", err)
	}
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Path
	}
	return out
}

// TopDirs lists the directories directly under the root.
func (e *Env) TopDirs() []string {
	e.TB.Helper()
	_, dirs, err := e.Store.ListDir(context.Background(), "")
	if err != nil {
		e.TB.Fatalf("list root: %v", err)
	}
	if dirs == nil {
		dirs = []string{}
	}
	return dirs
}
