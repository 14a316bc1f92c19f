package planner

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/storage"
)

// Advisory locks: GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK and
// RELEASE_ALL_LOCKS as MySQL has them, held across the processes that open
// one catalog. Migration tools take one before migrating.
//
// A lock is a chain of lease objects in the catalog's store, under
// LockDir/<sha256 of the name>/<generation>: each generation says who holds
// the lock and until when, or that it is free. The next generation is
// written with PutIfAbsent, so of two sessions taking (or renewing, or
// releasing) a lock from the same generation exactly one succeeds — the
// same atomic create Lance commits use. A holder renews its lease every
// third of Options.LockLease while its session lives; a holder that
// crashed stops renewing, and its lock is free once the lease expires, so
// it cannot block others forever. Older generations are deleted after a new
// one lands. The directory starts with a dot, so neither Lance nor LanceDB
// nor lancecat's vacuum takes it for a table.
//
// As in MySQL a session may take a lock it holds again (RELEASE_LOCK then
// undoes one GET_LOCK), lock names are case-insensitive and at most 64
// characters, and a session's locks are released when it ends
// (Session.Close). A database/sql pool keeps a connection's session, and so
// its locks, until the connection is closed; take and release a lock on one
// *sql.Conn. Advisory means just that: nothing else checks the locks.

// LockDir is the directory of the advisory lock leases under the catalog root.
const LockDir = ".lancecat/locks"

// DefaultLockLease is how long a lease lasts unless renewed.
const DefaultLockLease = 30 * time.Second

// maxLockName is MySQL's limit on a lock name's length.
const maxLockName = 64

// lockPoll is how often a waiting GET_LOCK looks again.
const lockPoll = 50 * time.Millisecond

// lease is one generation of a lock, as JSON in its object.
type lease struct {
	Name    string `json:"name"`
	Owner   string `json:"owner"`
	Free    bool   `json:"free,omitempty"`
	Expires int64  `json:"expires_unix_ms"`
}

// maxLeaseSize bounds the lease objects read: lancecat's are ~150 bytes.
const maxLeaseSize = 4096

// parseLease decodes a lease object (false: not a lease lancecat wrote, or
// larger than maxLeaseSize).
func parseLease(data []byte) (lease, bool) {
	var l lease
	if len(data) == 0 || len(data) > maxLeaseSize || json.Unmarshal(data, &l) != nil || (l.Owner == "" && !l.Free) {
		return lease{}, false
	}
	return l, true
}

func (l lease) heldAt(now time.Time) bool { return !l.Free && now.UnixMilli() < l.Expires }

// heldLock is a lock this session holds.
type heldLock struct {
	dir   string // the lock's directory in the store
	name  string
	gen   uint64 // the generation this session wrote last
	count int    // GET_LOCK calls not yet released
}

// advisoryLocks are one session's advisory locks.
type advisoryLocks struct {
	store storage.Store
	lease time.Duration
	owner string

	mu      sync.Mutex
	held    map[string]*heldLock // by lower-case name
	stop    chan struct{}        // closes the renewer
	renewer sync.WaitGroup
}

func newAdvisoryLocks(store storage.Store, leaseFor time.Duration) *advisoryLocks {
	if leaseFor <= 0 {
		leaseFor = DefaultLockLease
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return &advisoryLocks{store: store, lease: leaseFor, owner: hex.EncodeToString(b[:]), held: map[string]*heldLock{}}
}

// locks returns the session's lock set, created on first use.
func (s *Session) locks() (*advisoryLocks, error) {
	if s.opts.Store == nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: advisory locks without the catalog's object store")
	}
	if s.advisory == nil {
		s.advisory = newAdvisoryLocks(s.opts.Store, s.opts.LockLease)
	}
	return s.advisory, nil
}

// Close ends the session: it discards an open transaction and releases the
// session's advisory locks, as MySQL does when a connection ends.
func (s *Session) Close() error {
	s.Reset()
	if s.advisory == nil {
		return nil
	}
	_, err := s.advisory.releaseAll(context.Background())
	s.advisory.stopRenewer()
	return err
}

func lockKey(name string) (key, dir string, err error) {
	if name == "" || len([]rune(name)) > maxLockName {
		return "", "", errorf(catalog.CodeInvalidInput, "incorrect user-level lock name %s (1 to %d characters)", quoteString(name), maxLockName)
	}
	key = strings.ToLower(name)
	sum := sha256.Sum256([]byte(key))
	return key, path.Join(LockDir, hex.EncodeToString(sum[:16])), nil
}

func genPath(dir string, gen uint64) string { return fmt.Sprintf("%s/%020d.json", dir, gen) }

// latest reads the newest generation of the lock in dir (gen 0 and a free
// lease when there is none).
func (a *advisoryLocks) latest(ctx context.Context, dir string) (uint64, lease, error) {
	for range 8 {
		objs, err := a.store.List(ctx, dir+"/")
		if err != nil {
			return 0, lease{}, err
		}
		var gen uint64
		var p string
		for _, o := range objs {
			base := strings.TrimSuffix(path.Base(o.Path), ".json")
			if g, err := strconv.ParseUint(base, 10, 64); err == nil && g >= gen {
				gen, p = g, o.Path
			}
		}
		if p == "" {
			return 0, lease{Free: true}, nil
		}
		var data []byte
		info, err := a.store.Stat(ctx, p)
		if err == nil && info.Size <= maxLeaseSize {
			data, err = a.store.Read(ctx, p)
		}
		if errors.Is(err, storage.ErrNotFound) {
			continue // superseded and deleted since the listing
		}
		if err != nil {
			return 0, lease{}, err
		}
		l, ok := parseLease(data)
		if !ok {
			// Not a lease lancecat wrote: taken until someone writes a
			// newer generation, never ours.
			return gen, lease{Owner: "?", Expires: time.Now().Add(a.lease).UnixMilli()}, nil
		}
		return gen, l, nil
	}
	return 0, lease{}, errorf(catalog.CodeConcurrentModification, "advisory lock %s changes too fast to read", dir)
}

// write puts generation gen of the lock in dir; false when another session
// wrote it first.
func (a *advisoryLocks) write(ctx context.Context, dir string, gen uint64, l lease) (bool, error) {
	data, err := json.Marshal(l)
	if err != nil {
		return false, err
	}
	err = a.store.PutIfAbsent(ctx, genPath(dir, gen), data)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Older generations are superseded.
	if objs, lerr := a.store.List(ctx, dir+"/"); lerr == nil {
		for _, o := range objs {
			base := strings.TrimSuffix(path.Base(o.Path), ".json")
			if g, perr := strconv.ParseUint(base, 10, 64); perr == nil && g < gen {
				_ = a.store.Delete(ctx, o.Path)
			}
		}
	}
	return true, nil
}

// get is GET_LOCK(name, timeout): 1 when the session holds the lock, 0
// when another session held it for the whole timeout (a negative timeout
// waits for ever, until ctx ends).
func (a *advisoryLocks) get(ctx context.Context, name string, timeout time.Duration) (int64, error) {
	key, dir, err := lockKey(name)
	if err != nil {
		return 0, err
	}
	a.mu.Lock()
	if h, ok := a.held[key]; ok {
		h.count++
		a.mu.Unlock()
		return 1, nil
	}
	a.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for {
		gen, cur, err := a.latest(ctx, dir)
		if err != nil {
			return 0, err
		}
		now := time.Now()
		if !cur.heldAt(now) {
			next := lease{Name: name, Owner: a.owner, Expires: now.Add(a.lease).UnixMilli()}
			ok, err := a.write(ctx, dir, gen+1, next)
			if err != nil {
				return 0, err
			}
			if ok {
				a.mu.Lock()
				a.held[key] = &heldLock{dir: dir, name: name, gen: gen + 1, count: 1}
				a.startRenewer()
				a.mu.Unlock()
				return 1, nil
			}
			continue // another session wrote that generation: look again
		}
		if timeout >= 0 && !now.Before(deadline) {
			return 0, nil
		}
		wait := lockPoll
		if timeout >= 0 && time.Until(deadline) < wait {
			wait = max(time.Until(deadline), time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// release is RELEASE_LOCK(name): 1 when the session held it (one GET_LOCK
// undone), 0 when another session holds it, NULL when nobody does.
func (a *advisoryLocks) release(ctx context.Context, name string) (any, error) {
	key, dir, err := lockKey(name)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h, ok := a.held[key]
	if !ok {
		_, cur, err := a.latest(ctx, dir)
		if err != nil {
			return nil, err
		}
		if cur.heldAt(time.Now()) {
			return int64(0), nil
		}
		return nil, nil
	}
	h.count--
	if h.count > 0 {
		return int64(1), nil
	}
	delete(a.held, key)
	ok, err = a.write(ctx, h.dir, h.gen+1, lease{Name: h.name, Owner: a.owner, Free: true})
	if err != nil {
		return nil, err
	}
	if !ok {
		// The lease expired (it was not renewed in time) and another
		// session took the lock: it was no longer ours.
		return int64(0), nil
	}
	return int64(1), nil
}

// releaseAll is RELEASE_ALL_LOCKS(): the number of GET_LOCK calls it undid.
func (a *advisoryLocks) releaseAll(ctx context.Context) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var n int64
	var first error
	for key, h := range a.held {
		n += int64(h.count)
		delete(a.held, key)
		if _, err := a.write(ctx, h.dir, h.gen+1, lease{Name: h.name, Owner: a.owner, Free: true}); err != nil && first == nil {
			first = err
		}
	}
	return n, first
}

// isFree is IS_FREE_LOCK(name): 1 when no session holds the lock.
func (a *advisoryLocks) isFree(ctx context.Context, name string) (int64, error) {
	_, dir, err := lockKey(name)
	if err != nil {
		return 0, err
	}
	_, cur, err := a.latest(ctx, dir)
	if err != nil {
		return 0, err
	}
	if cur.heldAt(time.Now()) {
		return 0, nil
	}
	return 1, nil
}

// isUsed is IS_USED_LOCK(name): NULL when the lock is free, else the
// holder's session id (a text: lancecat has no connection numbers).
func (a *advisoryLocks) isUsed(ctx context.Context, name string) (any, error) {
	_, dir, err := lockKey(name)
	if err != nil {
		return nil, err
	}
	_, cur, err := a.latest(ctx, dir)
	if err != nil {
		return nil, err
	}
	if !cur.heldAt(time.Now()) {
		return nil, nil
	}
	return cur.Owner, nil
}

// startRenewer starts the goroutine that renews the session's leases (a.mu held).
func (a *advisoryLocks) startRenewer() {
	if a.stop != nil {
		return
	}
	a.stop = make(chan struct{})
	stop := a.stop
	a.renewer.Add(1)
	go func() {
		defer a.renewer.Done()
		tick := time.NewTicker(a.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				a.renew()
			}
		}
	}()
}

// renew writes the next generation of every held lock with a new expiry.
// A lock whose generation someone else wrote (after our lease expired) is
// lost and forgotten.
func (a *advisoryLocks) renew() {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), a.lease/3)
	defer cancel()
	for key, h := range a.held {
		ok, err := a.write(ctx, h.dir, h.gen+1, lease{Name: h.name, Owner: a.owner, Expires: time.Now().Add(a.lease).UnixMilli()})
		switch {
		case err != nil:
			// Try again at the next tick; the lease may still be valid.
		case ok:
			h.gen++
		default:
			delete(a.held, key)
		}
	}
}

func (a *advisoryLocks) stopRenewer() {
	a.mu.Lock()
	stop := a.stop
	a.stop = nil
	a.mu.Unlock()
	if stop != nil {
		close(stop)
		a.renewer.Wait()
	}
}

// evalLockFunc evaluates the advisory lock functions.
func (env *rowEnv) evalLockFunc(name string, args []any) (any, error) {
	s := env.session
	if s == nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: %s here", strings.ToUpper(name))
	}
	a, err := s.locks()
	if err != nil {
		return nil, err
	}
	ctx := s.execCtx
	if ctx == nil {
		ctx = context.Background()
	}
	want := 1
	switch name {
	case "get_lock":
		want = 2
	case "release_all_locks":
		want = 0
	}
	if len(args) != want {
		return nil, errorf(catalog.CodeInvalidInput, "incorrect parameter count in the call to %s", strings.ToUpper(name))
	}
	if name == "release_all_locks" {
		return a.releaseAll(ctx)
	}
	if args[0] == nil {
		return nil, errorf(catalog.CodeInvalidInput, "incorrect user-level lock name NULL")
	}
	lockName := toString(args[0])
	switch name {
	case "get_lock":
		timeout := time.Duration(-1)
		if args[1] != nil {
			secs, err := toFloatArg(args[1])
			if err != nil {
				return nil, err
			}
			if secs >= 0 {
				timeout = time.Duration(secs * float64(time.Second))
			}
		}
		return a.get(ctx, lockName, timeout)
	case "release_lock":
		return a.release(ctx, lockName)
	case "is_free_lock":
		return a.isFree(ctx, lockName)
	default:
		return a.isUsed(ctx, lockName)
	}
}

// isLockFunction reports whether name is one of the advisory lock functions.
func isLockFunction(name string) bool {
	switch strings.ToLower(name) {
	case "get_lock", "release_lock", "is_free_lock", "is_used_lock", "release_all_locks":
		return true
	}
	return false
}

func toFloatArg(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(toString(v)), 64)
	if err != nil {
		return 0, errorf(catalog.CodeInvalidInput, "GET_LOCK timeout %s is not a number", quoteString(toString(v)))
	}
	return f, nil
}
