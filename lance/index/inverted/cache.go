package inverted

import (
	"container/list"
	"context"
	"reflect"
	"sync"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// Loading an index reads every partition's token map, posting lengths and
// docs (12 bytes a document): at a million documents that is most of a
// query's time if each statement loads it again. The files of an index
// never change once written (a rebuilt index gets a new UUID), so opened
// segments are kept, process-wide, by the dataset's location and the
// index's UUID, and bound to each dataset version that asks for them; the
// binding of the latest version asked for is kept too (its deletion
// bitmaps, read lazily, then serve the next statements on that version).

// keptSegments bounds the segments the cache holds (least recently used
// first out).
const keptSegments = 8

// postingCacheBytes bounds the decoded posting lists one segment keeps.
const postingCacheBytes = 64 << 20

type segmentEntry struct {
	key   string
	store storage.Store
	seg   *segment
	// bound is the segment bound to the latest version asked for.
	bound *Index
}

var segmentCache struct {
	sync.Mutex
	entries []*segmentEntry // most recently used last
}

// OpenCached is Open through the process-wide segment cache: the segment
// is loaded once per dataset location, index UUID and store, and bound to
// ds (whose fragments and deletions decide which rows are live).
func OpenCached(ctx context.Context, ds *dataset.Dataset, m *dataset.IndexMetadata) (*Index, error) {
	key := ds.URI() + "\x00" + m.UUID
	store := ds.Store()
	c := &segmentCache
	c.Lock()
	for i, e := range c.entries {
		if e.key != key || !sameStore(e.store, store) {
			continue
		}
		copy(c.entries[i:], c.entries[i+1:])
		c.entries[len(c.entries)-1] = e
		if b := e.bound; b != nil && b.ds.Version() == ds.Version() && sameFragments(b.Meta, m) {
			c.Unlock()
			return b, nil
		}
		ix := e.seg.bind(ds, m)
		e.bound = ix
		c.Unlock()
		return ix, nil
	}
	c.Unlock()
	seg, err := loadSegment(ctx, ds, m)
	if err != nil {
		return nil, err
	}
	ix := seg.bind(ds, m)
	c.Lock()
	defer c.Unlock()
	for _, e := range c.entries {
		if e.key == key && sameStore(e.store, store) {
			// Another statement loaded it meanwhile: keep one copy.
			e.bound = ix
			ix.segment = e.seg
			return ix, nil
		}
	}
	c.entries = append(c.entries, &segmentEntry{key: key, store: store, seg: seg, bound: ix})
	if len(c.entries) > keptSegments {
		c.entries[0] = nil
		c.entries = c.entries[1:]
	}
	return ix, nil
}

// sameStore reports whether a and b are one store object (a store closed
// and opened again at the same location is another: the segment's readers
// hold the old one).
func sameStore(a, b storage.Store) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

// sameFragments reports whether two manifests' copies of an index's
// metadata cover the same fragments (the only part a binding reads).
func sameFragments(a, b *dataset.IndexMetadata) bool {
	if a.FragmentBitmap == nil || b.FragmentBitmap == nil {
		return a.FragmentBitmap == nil && b.FragmentBitmap == nil
	}
	return a.FragmentBitmap.Equals(b.FragmentBitmap)
}

// ForgetStore drops the cached segments read through store. The owner of a
// store calls it when it closes the store (sql.DB.Close): the segments, up
// to keptSegments of them with their posting caches, would otherwise stay
// in memory for the life of the process, unreachable through any open store.
func ForgetStore(store storage.Store) {
	c := &segmentCache
	c.Lock()
	defer c.Unlock()
	kept := c.entries[:0]
	for _, e := range c.entries {
		if !sameStore(e.store, store) {
			kept = append(kept, e)
		}
	}
	for i := len(kept); i < len(c.entries); i++ {
		c.entries[i] = nil
	}
	c.entries = kept
}

// dropCachedSegments empties the segment cache (tests).
func dropCachedSegments() {
	segmentCache.Lock()
	segmentCache.entries = nil
	segmentCache.Unlock()
}

// postingKey names one decoded list of a segment: a token's posting list
// or, with positions set, its positionList.
type postingKey struct {
	part      int
	tok       uint32
	positions bool
}

// cachedList is what the posting cache holds: *posting or *positionList.
type cachedList interface {
	bytes() int64
}

// postingCache keeps decoded posting and position lists, least recently
// used out first, within a byte budget (the reference caches them in its
// index cache too).
type postingCache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	order *list.List // of *postingEntry, most recently used at the front
	byKey map[postingKey]*list.Element
}

type postingEntry struct {
	key   postingKey
	pl    cachedList
	bytes int64
}

func newPostingCache(max int64) postingCache {
	return postingCache{max: max, order: list.New(), byKey: map[postingKey]*list.Element{}}
}

// get returns the cached list for k, or nil.
func (c *postingCache) get(k postingKey) cachedList {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*postingEntry).pl
}

func (c *postingCache) put(k postingKey, pl cachedList) {
	n := pl.bytes()
	if n > c.max/4 {
		return // one list would crowd out the rest
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.order.PushFront(&postingEntry{key: k, pl: pl, bytes: n})
	c.bytes += n
	for c.bytes > c.max {
		el := c.order.Back()
		e := el.Value.(*postingEntry)
		c.order.Remove(el)
		delete(c.byKey, e.key)
		c.bytes -= e.bytes
	}
}

// bytes estimates the memory the decoded list holds.
func (pl *posting) bytes() int64 {
	return int64(64 + 4*(cap(pl.docs)+cap(pl.freqs)))
}
