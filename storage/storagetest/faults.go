// Package storagetest holds test support for code that runs on a storage.Store: FaultStore, a
// wrapper that injects the failures real object stores produce (errors, lost acknowledgements,
// spurious and self-inflicted 412/409 on conditional writes, short reads, slow calls) at chosen
// calls, so commit paths can be tested against them deterministically.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lancecat/lancecat/storage"
)

// ErrInjected is wrapped by every error a FaultStore makes up.
var ErrInjected = errors.New("storagetest: injected fault")

// Op names a Store method a Rule applies to.
type Op string

// The Store methods a Rule can target.
const (
	OpRead         Op = "Read"
	OpReadRange    Op = "ReadRange"
	OpStat         Op = "Stat"
	OpList         Op = "List"
	OpListDir      Op = "ListDir"
	OpPut          Op = "Put"
	OpPutIfAbsent  Op = "PutIfAbsent"
	OpDelete       Op = "Delete"
	OpDeletePrefix Op = "DeletePrefix"
)

// Fault is what happens to a call a Rule matches.
type Fault int

const (
	// FailBefore returns an error without doing anything (a request that never arrived).
	FailBefore Fault = iota
	// FailAfter does the call, then returns an error: the write landed but its acknowledgement
	// was lost (a timeout, a dropped connection).
	FailAfter
	// ConflictBefore makes PutIfAbsent report ErrAlreadyExists without writing (a 412/409 for an
	// object that a concurrent writer created and then removed, or a confused server).
	ConflictBefore
	// ConflictAfter writes, then reports ErrAlreadyExists: the SDK retried a request whose first
	// attempt landed, and the retry saw that write (412 Precondition Failed).
	ConflictAfter
	// ShortRead returns the object (or range) less its second half, with no error.
	ShortRead
	// Slow waits Rule.Delay (or until the context ends), then does the call.
	Slow
)

func (f Fault) String() string {
	switch f {
	case FailBefore:
		return "FailBefore"
	case FailAfter:
		return "FailAfter"
	case ConflictBefore:
		return "ConflictBefore"
	case ConflictAfter:
		return "ConflictAfter"
	case ShortRead:
		return "ShortRead"
	case Slow:
		return "Slow"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// Rule injects Fault into calls of Op whose path contains PathContains ("" matches every path).
// With Nth > 0 only the Nth matching call is hit (once); with Nth == 0 every matching call is.
type Rule struct {
	Op           Op
	PathContains string
	Nth          int
	Fault        Fault
	Delay        time.Duration // for Slow
}

type armed struct {
	Rule
	seen, fired int
}

// FaultStore wraps a Store and applies its rules. It is safe for concurrent use.
type FaultStore struct {
	storage.Store
	mu    sync.Mutex
	rules []*armed
	hits  []string
}

// New wraps inner with rules.
func New(inner storage.Store, rules ...Rule) *FaultStore {
	f := &FaultStore{Store: inner}
	for _, r := range rules {
		f.rules = append(f.rules, &armed{Rule: r})
	}
	return f
}

// Fired returns a description ("Op path Fault") of every fault injected so far, in order.
func (f *FaultStore) Fired() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.hits...)
}

// match returns the rule that hits this call, if any.
func (f *FaultStore) match(op Op, path string) *Rule {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.Op != op || !strings.Contains(path, r.PathContains) {
			continue
		}
		r.seen++
		if r.Nth > 0 && r.seen != r.Nth {
			continue
		}
		r.fired++
		f.hits = append(f.hits, fmt.Sprintf("%s %s %s", op, path, r.Fault))
		rule := r.Rule
		return &rule
	}
	return nil
}

func injected(op Op, path string, fault Fault) error {
	return fmt.Errorf("%s %q: %w (%s)", op, path, ErrInjected, fault)
}

// do runs call under the rule that matches (op, path).
func (f *FaultStore) do(ctx context.Context, op Op, path string, call func() error) error {
	r := f.match(op, path)
	if r == nil {
		return call()
	}
	switch r.Fault {
	case FailBefore:
		return injected(op, path, r.Fault)
	case FailAfter:
		if err := call(); err != nil {
			return err
		}
		return injected(op, path, r.Fault)
	case ConflictBefore:
		return fmt.Errorf("%s %q: %w (%w: ConflictBefore)", op, path, storage.ErrAlreadyExists, ErrInjected)
	case ConflictAfter:
		if err := call(); err != nil {
			return err
		}
		return fmt.Errorf("%s %q: %w (%w: ConflictAfter)", op, path, storage.ErrAlreadyExists, ErrInjected)
	case Slow:
		t := time.NewTimer(r.Delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		return call()
	}
	return call()
}

// read runs a whole or ranged read under the rule that matches; ShortRead truncates the result.
func (f *FaultStore) read(ctx context.Context, op Op, path string, call func() ([]byte, error)) ([]byte, error) {
	r := f.match(op, path)
	if r == nil {
		return call()
	}
	switch r.Fault {
	case ShortRead:
		b, err := call()
		if err != nil {
			return b, err
		}
		return b[:len(b)/2], nil
	case FailBefore:
		return nil, injected(op, path, r.Fault)
	case FailAfter:
		if _, err := call(); err != nil {
			return nil, err
		}
		return nil, injected(op, path, r.Fault)
	case Slow:
		t := time.NewTimer(r.Delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return call()
}

func (f *FaultStore) Read(ctx context.Context, path string) ([]byte, error) {
	return f.read(ctx, OpRead, path, func() ([]byte, error) { return f.Store.Read(ctx, path) })
}

func (f *FaultStore) ReadRange(ctx context.Context, path string, offset, length int64) ([]byte, error) {
	return f.read(ctx, OpReadRange, path, func() ([]byte, error) { return f.Store.ReadRange(ctx, path, offset, length) })
}

func (f *FaultStore) Stat(ctx context.Context, path string) (info storage.ObjectInfo, err error) {
	err = f.do(ctx, OpStat, path, func() error { info, err = f.Store.Stat(ctx, path); return err })
	return info, err
}

func (f *FaultStore) List(ctx context.Context, prefix string) (objs []storage.ObjectInfo, err error) {
	err = f.do(ctx, OpList, prefix, func() error { objs, err = f.Store.List(ctx, prefix); return err })
	return objs, err
}

func (f *FaultStore) ListDir(ctx context.Context, dir string) (files []storage.ObjectInfo, dirs []string, err error) {
	err = f.do(ctx, OpListDir, dir, func() error { files, dirs, err = f.Store.ListDir(ctx, dir); return err })
	return files, dirs, err
}

func (f *FaultStore) Put(ctx context.Context, path string, data []byte) error {
	return f.do(ctx, OpPut, path, func() error { return f.Store.Put(ctx, path, data) })
}

func (f *FaultStore) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	return f.do(ctx, OpPutIfAbsent, path, func() error { return f.Store.PutIfAbsent(ctx, path, data) })
}

func (f *FaultStore) Delete(ctx context.Context, path string) error {
	return f.do(ctx, OpDelete, path, func() error { return f.Store.Delete(ctx, path) })
}

func (f *FaultStore) DeletePrefix(ctx context.Context, prefix string) (n int, err error) {
	err = f.do(ctx, OpDeletePrefix, prefix, func() error { n, err = f.Store.DeletePrefix(ctx, prefix); return err })
	return n, err
}
