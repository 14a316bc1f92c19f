package inverted

// Hooks for the external tests (cache_test.go).

// DropCachedSegments empties the process-wide segment cache.
var DropCachedSegments = dropCachedSegments

// CachedSegments is how many segments the cache holds.
func CachedSegments() int {
	segmentCache.Lock()
	defer segmentCache.Unlock()
	return len(segmentCache.entries)
}

// KeptSegments is the cache's bound.
const KeptSegments = keptSegments
