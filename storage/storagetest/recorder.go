// Package storagetest has test doubles for storage.Store.
package storagetest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/lancecat/lancecat/storage"
)

// Event kinds a Recorder logs.
const (
	Write   = "write"   // Put: durable on its own
	Defer   = "defer"   // PutUnsynced: not durable until synced
	Sync    = "sync"    // one path of a Sync call
	Publish = "publish" // PutIfAbsent: durable on its own
	// PublishDeferred is PutIfAbsentUnsynced: created atomically, not
	// durable until synced.
	PublishDeferred = "publish-deferred"
)

// Event is one logged store mutation.
type Event struct {
	Kind, Path string
}

// Recorder is a storage.Store and storage.Syncer over another store that logs
// the order of writes, syncs and publishes, so tests can check that a commit
// makes its files durable before it publishes the version that refers to them.
type Recorder struct {
	storage.Store

	mu     sync.Mutex
	events []Event
}

var _ storage.Syncer = (*Recorder)(nil)

// NewRecorder wraps inner.
func NewRecorder(inner storage.Store) *Recorder { return &Recorder{Store: inner} }

func (r *Recorder) log(kind, path string) {
	r.mu.Lock()
	r.events = append(r.events, Event{kind, path})
	r.mu.Unlock()
}

// Put writes through and logs a durable write.
func (r *Recorder) Put(ctx context.Context, path string, data []byte) error {
	err := r.Store.Put(ctx, path, data)
	if err == nil {
		r.log(Write, path)
	}
	return err
}

// PutIfAbsent writes through and logs a publish.
func (r *Recorder) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	err := r.Store.PutIfAbsent(ctx, path, data)
	if err == nil {
		r.log(Publish, path)
	}
	return err
}

// PutUnsynced writes through and logs a deferred write.
func (r *Recorder) PutUnsynced(ctx context.Context, path string, data []byte) error {
	err := r.Store.Put(ctx, path, data)
	if err == nil {
		r.log(Defer, path)
	}
	return err
}

// PutIfAbsentUnsynced writes through and logs a deferred publish.
func (r *Recorder) PutIfAbsentUnsynced(ctx context.Context, path string, data []byte) error {
	err := r.Store.PutIfAbsent(ctx, path, data)
	if err == nil {
		r.log(PublishDeferred, path)
	}
	return err
}

// Sync logs one sync event per path.
func (r *Recorder) Sync(ctx context.Context, paths []string) error {
	for _, p := range paths {
		r.log(Sync, p)
	}
	return ctx.Err()
}

// PutIfAbsentAfterSync logs a sync of each of synced, then a publish.
func (r *Recorder) PutIfAbsentAfterSync(ctx context.Context, path string, data []byte, synced []string) error {
	if err := r.Sync(ctx, synced); err != nil {
		return err
	}
	return r.PutIfAbsent(ctx, path, data)
}

// Events returns the log so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// CheckDurableBefore returns an error unless every one of files was made
// durable (a Put, or a PutUnsynced followed by a Sync of it) before the
// publish of version.
func (r *Recorder) CheckDurableBefore(version string, files []string) error {
	ev := r.Events()
	pub := slices.Index(ev, Event{Publish, version})
	if pub < 0 {
		return fmt.Errorf("%s was never published", version)
	}
	for _, f := range files {
		durable := false
		for _, e := range ev[:pub] {
			if e.Path == f && (e.Kind == Write || e.Kind == Sync || e.Kind == Publish) {
				durable = true
			}
		}
		if !durable {
			return fmt.Errorf("%s was published before %s was durable (log: %v)", version, f, ev[:pub+1])
		}
	}
	return nil
}

// Count returns how many events of kind are logged.
func (r *Recorder) Count(kind string) int {
	n := 0
	for _, e := range r.Events() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
