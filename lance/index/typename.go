package index

import (
	"context"
	"encoding/json"
	"fmt"
	"path"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
)

// vectorIndexFile is the file of a vector index segment whose schema
// metadata key vectorIndexMetaKey holds {"type": "IVF_PQ", ...}, as the
// reference writes it.
const (
	vectorIndexFile    = "index.idx"
	vectorIndexMetaKey = "lance:index"
)

// TypeName names the kind of the index of metadata m as the reference
// does: BTREE, BITMAP, LABEL_LIST, INVERTED (full text), or for a vector
// index the type its index file records (IVF_PQ, IVF_HNSW_SQ, IVF_FLAT,
// ...). Only a vector index reads a file (its footer and schema). Kinds
// lancecat does not know are UNKNOWN.
func TypeName(ctx context.Context, ds *dataset.Dataset, m *dataset.IndexMetadata) (string, error) {
	k := KindOf(m)
	if k != KindVector {
		return k.String(), nil
	}
	if m.BaseID != nil {
		return k.String(), nil // in another base path: not read here
	}
	var size int64
	for _, f := range m.Files {
		if f.Path == vectorIndexFile {
			size = int64(f.SizeBytes)
		}
	}
	p := path.Join(ds.Dir(), "_indices", m.UUID, vectorIndexFile)
	src, err := lancefile.NewStoreSource(ctx, ds.Store(), p, size)
	if err != nil {
		return "", fmt.Errorf("index %q file %s: %w", m.Name, p, err)
	}
	r, err := lancefile.Open(ctx, src)
	if err != nil {
		return "", fmt.Errorf("index %q file %s: %w", m.Name, p, err)
	}
	raw, ok := r.Schema().Metadata[vectorIndexMetaKey]
	if !ok {
		return k.String(), nil
	}
	var meta struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(raw), &meta); err != nil || meta.Type == "" {
		return "", fmt.Errorf("%w: index %q: %s metadata %q", ErrCorrupt, m.Name, vectorIndexMetaKey, raw)
	}
	return meta.Type, nil
}
