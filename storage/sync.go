package storage

import (
	"context"
	"fmt"
	"strings"
)

// Durability says when writes to local disk are made durable (fsync). Object
// stores ignore it: a completed PUT is durable there.
type Durability int

const (
	// DurabilityFull (the default) fsyncs every object and the directory
	// entries naming it before the operation that publishes it returns:
	// Put and PutIfAbsent sync on their own; objects written with
	// PutDeferred are synced together by one SyncAll before the commit that
	// refers to them.
	DurabilityFull Durability = iota
	// DurabilityNone never fsyncs, as the reference implementation does on
	// local disk: writes are atomic and ordered for other processes, but an
	// operating-system crash or power loss can lose recent commits.
	DurabilityNone
)

// String is the option value: "full" or "none".
func (d Durability) String() string {
	switch d {
	case DurabilityFull:
		return "full"
	case DurabilityNone:
		return "none"
	}
	return fmt.Sprintf("Durability(%d)", int(d))
}

// ParseDurability parses "full" or "none" (case-insensitive); "" is full.
func ParseDurability(s string) (Durability, error) {
	switch strings.ToLower(s) {
	case "", "full":
		return DurabilityFull, nil
	case "none":
		return DurabilityNone, nil
	}
	return 0, fmt.Errorf("%w: durability %q: want full or none", ErrInvalidOption, s)
}

// Syncer is implemented by stores whose writes become durable only when
// synced (local disk). A commit writes its files with PutUnsynced, syncs them
// all at once with Sync, then publishes them with one durable PutIfAbsent:
// one round of parallel fsyncs per commit instead of one (plus directory
// syncs) per file. Use it through PutDeferred and SyncAll, which fall back to
// Put and nothing on stores without the capability.
type Syncer interface {
	// PutUnsynced is Put without making the object durable: other
	// processes see it (atomically, never torn) once it returns, but a
	// crash may lose it until Sync has been called with its path.
	PutUnsynced(ctx context.Context, path string, data []byte) error
	// Sync makes the objects at paths durable: their contents, their
	// directory entries, and the entries of directories created for them.
	Sync(ctx context.Context, paths []string) error
	// PutIfAbsentAfterSync is PutIfAbsent (durable, as always) that
	// first makes the objects at synced durable, syncing them together
	// with the new object's content, so that the new object becomes
	// visible only once everything it refers to is durable: a commit's
	// files and its version file cost one round of parallel fsyncs, then
	// one for the version's directory entry.
	PutIfAbsentAfterSync(ctx context.Context, path string, data []byte, synced []string) error
	// PutIfAbsentUnsynced is PutIfAbsent (atomic, never replacing an
	// existing object) without making the new object durable: a crash may
	// lose it until Sync has been called with its path. It publishes a
	// version that a later commit makes durable together with its own
	// files (a new table's first version, synced by the `__manifest`
	// commit that names the table), saving that version its own rounds of
	// fsyncs.
	PutIfAbsentUnsynced(ctx context.Context, path string, data []byte) error
}

// PutDeferred writes an object that a later commit publishes. On a Syncer it
// is written without syncing and must be passed to SyncAll before anything
// durable refers to it; on other stores it is a Put.
func PutDeferred(ctx context.Context, s Store, path string, data []byte) error {
	if sy, ok := s.(Syncer); ok {
		return sy.PutUnsynced(ctx, path, data)
	}
	return s.Put(ctx, path, data)
}

// PutIfAbsentDeferred creates an object only if it does not exist, like
// PutIfAbsent; on a Syncer it is not made durable (Syncer.PutIfAbsentUnsynced)
// and must be passed to SyncAll (or to the synced files of a later
// PutIfAbsentAfterSync) before anything durable refers to it.
func PutIfAbsentDeferred(ctx context.Context, s Store, path string, data []byte) error {
	if sy, ok := s.(Syncer); ok {
		return sy.PutIfAbsentUnsynced(ctx, path, data)
	}
	return s.PutIfAbsent(ctx, path, data)
}

// SyncAll makes objects written with PutDeferred durable (nothing to do on
// stores that are not Syncers).
func SyncAll(ctx context.Context, s Store, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if sy, ok := s.(Syncer); ok {
		return sy.Sync(ctx, paths)
	}
	return ctx.Err()
}

// PutIfAbsentAfterSync publishes an object that refers to objects written
// with PutDeferred: they are made durable before the new object exists
// (Syncer.PutIfAbsentAfterSync); on other stores it is PutIfAbsent.
func PutIfAbsentAfterSync(ctx context.Context, s Store, path string, data []byte, synced []string) error {
	if sy, ok := s.(Syncer); ok {
		return sy.PutIfAbsentAfterSync(ctx, path, data, synced)
	}
	return s.PutIfAbsent(ctx, path, data)
}
