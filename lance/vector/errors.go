package vector

import "errors"

var (
	// ErrCorrupt: an index file's bytes contradict Lance's format.
	ErrCorrupt = errors.New("vector index: corrupt")
	// ErrUnsupported: a valid index or query lancecat does not handle.
	ErrUnsupported = errors.New("vector index: unsupported")
	// ErrInvalidQuery: a query vector or parameter is unusable (wrong
	// dimension, NaN, k out of range).
	ErrInvalidQuery = errors.New("vector search: invalid query")
)
