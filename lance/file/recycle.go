package lancefile

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

type recycleKey struct{}

// WithRecycledBuffers returns a context under which reads of packed
// full-zip pages (vector columns without nulls) fill buffers that are
// reused once every array over them is released, instead of buffers the
// runtime zeroes first: an exact vector search reads its whole column batch
// by batch, and zeroing each batch's buffer cost about half as much as
// reading it. Only for callers that never touch a record's values after
// releasing it (the values are overwritten by a later read).
func WithRecycledBuffers(ctx context.Context) context.Context {
	return context.WithValue(ctx, recycleKey{}, true)
}

func recycling(ctx context.Context) bool {
	on, _ := ctx.Value(recycleKey{}).(bool)
	return on
}

// packedBuffers holds released buffers of packed reads (*[]byte).
var packedBuffers sync.Pool

// recycler is the memory.Allocator of recycled buffers. Allocate returns
// bytes that are not zeroed: the packed read overwrites every one.
type recycler struct{}

func (recycler) Allocate(size int) []byte {
	if p, ok := packedBuffers.Get().(*[]byte); ok && cap(*p) >= size {
		return (*p)[:size]
	}
	return make([]byte, size)
}

func (r recycler) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

func (recycler) Free(b []byte) {
	b = b[:cap(b)]
	packedBuffers.Put(&b)
}

var _ memory.Allocator = recycler{}
