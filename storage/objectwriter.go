package storage

// Objects written as their bytes come, for files too large to hold whole
// in memory (a full-text index's posting file).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ObjectWriter writes one object as its bytes come. Commit publishes it
// as PutDeferred does (readers see all of it or nothing; on a Syncer it is
// not yet durable); Abort, or a failed Commit, leaves nothing behind.
// One of them must be called.
type ObjectWriter interface {
	Write(p []byte) (int, error)
	Commit() error
	Abort()
}

// StreamPutter is implemented by stores that can write an object as its
// bytes come (local disk) instead of from one buffer.
type StreamPutter interface {
	// CreateUnsynced starts an object at path written like PutUnsynced.
	CreateUnsynced(ctx context.Context, path string) (ObjectWriter, error)
}

// CreateDeferred starts an object at path written like PutDeferred: its
// bytes go to the store as they come on a StreamPutter, else they are
// gathered in memory and put by Commit.
func CreateDeferred(ctx context.Context, s Store, path string) (ObjectWriter, error) {
	if sp, ok := s.(StreamPutter); ok {
		return sp.CreateUnsynced(ctx, path)
	}
	if err := validatePath(path); err != nil {
		return nil, fmt.Errorf("put: %w", err)
	}
	return &bufferedObject{ctx: ctx, s: s, path: path}, nil
}

// bufferedObject is an ObjectWriter that puts its bytes at Commit.
type bufferedObject struct {
	ctx  context.Context
	s    Store
	path string
	buf  bytes.Buffer
	done bool
}

func (o *bufferedObject) Write(p []byte) (int, error) {
	if o.done {
		return 0, errObjectDone
	}
	return o.buf.Write(p)
}

func (o *bufferedObject) Commit() error {
	if o.done {
		return errObjectDone
	}
	data := o.buf.Bytes()
	o.buf, o.done = bytes.Buffer{}, true
	return PutDeferred(o.ctx, o.s, o.path, data)
}

func (o *bufferedObject) Abort() { o.buf, o.done = bytes.Buffer{}, true }

// errObjectDone is a Write or Commit after Commit or Abort.
var errObjectDone = errors.New("storage: object already committed or aborted")

// CreateUnsynced implements StreamPutter: the bytes go to a temporary file
// next to the object, renamed onto it by Commit.
func (s *localStore) CreateUnsynced(ctx context.Context, path string) (ObjectWriter, error) {
	s.prepareSyncfs()
	final, err := s.prepareWrite(ctx, "put", path)
	if err != nil {
		return nil, err
	}
	f, tmp, err := s.createTemp(final)
	if err != nil {
		return nil, fmt.Errorf("put %q: %w", path, dirRemoved(err))
	}
	return &localObject{ctx: ctx, s: s, path: path, final: final, tmp: tmp, f: f}, nil
}

type localObject struct {
	ctx              context.Context
	s                *localStore
	path, final, tmp string
	f                *os.File // nil once committed or aborted
}

func (o *localObject) Write(p []byte) (int, error) {
	if o.f == nil {
		return 0, errObjectDone
	}
	if err := o.s.check(o.ctx); err != nil {
		return 0, err
	}
	return o.f.Write(p)
}

func (o *localObject) Commit() error {
	if o.f == nil {
		return errObjectDone
	}
	f := o.f
	o.f = nil
	err := f.Close()
	if err == nil {
		err = o.s.check(o.ctx)
	}
	if err == nil {
		err = os.Rename(o.tmp, o.final)
	}
	if err != nil {
		os.Remove(o.tmp)
		o.s.pruneEmptyParents(filepath.Dir(o.final))
		return fmt.Errorf("put %q: %w", o.path, dirRemoved(err))
	}
	return nil
}

func (o *localObject) Abort() {
	if o.f == nil {
		return
	}
	o.f.Close()
	o.f = nil
	os.Remove(o.tmp)
	o.s.pruneEmptyParents(filepath.Dir(o.final))
}
