// Package failpoint marks the steps of lancecat's writes (files staged, index written, version
// published, directory removed, ...) so that tests can stop a write at any one of them, as a
// crash would. Inject is always compiled in and costs one atomic load when nothing is armed;
// only tests arm it.
//
// A stopped write never returns: its goroutine blocks for the rest of the process, so none of
// its later steps or deferred cleanups run, exactly as if the process had been killed there. The
// test abandons the handle and inspects what is on disk.
package failpoint

import (
	"sync"
	"sync/atomic"
)

type plan struct {
	mu     sync.Mutex
	name   string // the step to stop at ("" records only)
	nth    int    // stop at its nth hit (1-based)
	seen   int
	hits   []string
	fired  chan struct{}
	once   sync.Once
	record bool
	panics bool // panic at the armed step instead of blocking
}

var active atomic.Pointer[plan]

// Inject marks the step name. When a test armed that step (and this is the armed occurrence),
// it signals the test and blocks the calling goroutine forever.
func Inject(name string) {
	p := active.Load()
	if p == nil {
		return
	}
	p.mu.Lock()
	p.hits = append(p.hits, name)
	stop := false
	if name == p.name {
		p.seen++
		stop = p.seen == p.nth
	}
	p.mu.Unlock()
	if stop {
		p.once.Do(func() { close(p.fired) })
		if p.panics {
			panic("failpoint: injected panic at " + name)
		}
		select {} // crashed here
	}
}

// Handle is an armed (or recording) plan. Only one is active at a time.
type Handle struct{ p *plan }

// Record starts recording every step hit, in order, without stopping any.
func Record() *Handle {
	p := &plan{fired: make(chan struct{}), record: true}
	active.Store(p)
	return &Handle{p}
}

// Arm stops the nth (1-based) hit of step name; Fired is closed when that happens.
func Arm(name string, nth int) *Handle {
	p := &plan{name: name, nth: nth, fired: make(chan struct{})}
	active.Store(p)
	return &Handle{p}
}

// ArmPanic makes the nth (1-based) hit of step name panic instead of blocking: a bug deep inside a
// write, for tests of the driver's recover boundary. Fired is closed when it happens.
func ArmPanic(name string, nth int) *Handle {
	p := &plan{name: name, nth: nth, fired: make(chan struct{}), panics: true}
	active.Store(p)
	return &Handle{p}
}

// Fired is closed when the armed step has been reached (and its goroutine stopped).
func (h *Handle) Fired() <-chan struct{} { return h.p.fired }

// Hits returns the steps hit so far, in order.
func (h *Handle) Hits() []string {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	return append([]string(nil), h.p.hits...)
}

// Disarm deactivates the handle (if it is still the active one).
func (h *Handle) Disarm() { active.CompareAndSwap(h.p, nil) }
