package index

import (
	"fmt"

	"github.com/lancecat/lancecat/lance/index/rowset"
)

// RowSet is a set of row addresses (or stable row ids) in Lance's
// RowIdTreeMap layout; see package rowset.
type RowSet = rowset.Set

// ErrCorrupt is wrapped by every error about malformed index bytes.
var ErrCorrupt = rowset.ErrCorrupt

// NewRowSet returns a set holding values.
func NewRowSet(values ...uint64) *RowSet { return rowset.New(values...) }

// DecodeRowSet decodes Lance's RowIdTreeMap serialization.
func DecodeRowSet(b []byte) (*RowSet, error) { return rowset.Decode(b) }

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
