package index

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/lancecat/lancecat/lance/dataset"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// Kind is the type of a scalar index.
type Kind int

const (
	KindUnknown Kind = iota
	KindBTree
	KindBitmap
	KindLabelList
	// KindInverted is the full-text (FTS) index; KindVector a vector index,
	// whose exact type (IVF_PQ, IVF_HNSW_SQ, ...) its files record (see
	// TypeName). lancecat names them but does not search them.
	KindInverted
	KindVector
)

func (k Kind) String() string {
	switch k {
	case KindBTree:
		return "BTREE"
	case KindBitmap:
		return "BITMAP"
	case KindLabelList:
		return "LABEL_LIST"
	case KindInverted:
		return "INVERTED"
	case KindVector:
		return "VECTOR"
	}
	return "UNKNOWN"
}

// searchable reports whether lancecat can open and search indices of k
// (the scalar kinds).
func (k Kind) searchable() bool {
	return k == KindBTree || k == KindBitmap || k == KindLabelList
}

// Type URLs of the index details Lance stores in IndexMetadata.index_details
// (messages of proto package lance.table). Lance writes them with an empty
// host part: "/lance.table.BTreeIndexDetails".
const (
	BTreeDetailsTypeURL     = "/lance.table.BTreeIndexDetails"
	BitmapDetailsTypeURL    = "/lance.table.BitmapIndexDetails"
	LabelListDetailsTypeURL = "/lance.table.LabelListIndexDetails"
)

// Index versions Lance writes for each kind (IndexMetadata.index_version).
// A label list at version 1 stores the null-list rows in a global buffer.
const (
	BTreeIndexVersion     = 0
	BitmapIndexVersion    = 0
	LabelListIndexVersion = 1
)

// KindOf classifies index metadata by its details type URL.
func KindOf(m *dataset.IndexMetadata) Kind {
	switch m.Type() {
	case "BTree":
		return KindBTree
	case "Bitmap":
		return KindBitmap
	case "LabelList":
		return KindLabelList
	case "Inverted":
		return KindInverted
	case "Vector":
		return KindVector
	}
	return KindUnknown
}

// ErrNoIndex is returned by Open when the dataset has no index of that name.
var ErrNoIndex = errors.New("index: no such index")

// Result is what an index search returns.
type Result struct {
	// Rows are the row addresses (fragment id << 32 | offset) of the live rows
	// of covered fragments that match.
	Rows *RowSet
	// Uncovered lists, ascending, the ids of the dataset's fragments the index
	// does not cover: the caller must scan them with the same predicate.
	Uncovered []uint64
}

// segmentImpl is a loaded index segment of some kind.
type segmentImpl interface {
	search(ctx context.Context, q Query) (*RowSet, error)
}

type segment struct {
	meta  *dataset.IndexMetadata
	files *segmentFiles
	impl  segmentImpl
}

// Index is an opened scalar index of a dataset version: every segment (delta
// index) of one name. It is safe for concurrent searches.
type Index struct {
	ds       *dataset.Dataset
	name     string
	kind     Kind
	field    *lanceschema.Field
	segments []*segment
	covered  *roaring.Bitmap // fragment ids covered by some segment (and present)
	frags    map[uint64]*dataset.Fragment
	dels     *deletionCache
}

// Open loads the index called name of the dataset version ds: the small
// lookup structures (BTREE page lookup, bitmap keys) are read now, data pages
// and bitmaps on each search.
func Open(ctx context.Context, ds *dataset.Dataset, name string) (*Index, error) {
	var metas []*dataset.IndexMetadata
	for _, m := range ds.Indices() {
		if m.Name == name {
			metas = append(metas, m)
		}
	}
	if len(metas) == 0 {
		return nil, fmt.Errorf("%w: %q in %s", ErrNoIndex, name, ds.URI())
	}
	ix := &Index{ds: ds, name: name, kind: KindOf(metas[0]), covered: roaring.New(), frags: map[uint64]*dataset.Fragment{}}
	for _, f := range ds.Fragments() {
		if f.HasRowIDs {
			return nil, fmt.Errorf("%w: dataset %s uses stable row ids", ErrUnsupported, ds.URI())
		}
		ix.frags[f.ID] = f
	}
	ix.dels = newDeletionCache(ds)
	for _, m := range metas {
		if k := KindOf(m); k != ix.kind || !k.searchable() {
			return nil, fmt.Errorf("%w: index %q segment %s has type %q", ErrUnsupported, name, m.UUID, m.DetailsTypeURL)
		}
		if len(m.Fields) != 1 {
			return nil, fmt.Errorf("%w: index %q on %d fields", ErrUnsupported, name, len(m.Fields))
		}
		if m.BaseID != nil {
			return nil, fmt.Errorf("%w: index %q segment %s lives in base path %d", ErrUnsupported, name, m.UUID, *m.BaseID)
		}
		f := ds.Schema().FieldByID(m.Fields[0])
		if f == nil {
			return nil, fmt.Errorf("%w: index %q is on field id %d, absent from the schema", ErrCorrupt, name, m.Fields[0])
		}
		if ix.field == nil {
			ix.field = f
		} else if ix.field.ID != f.ID {
			return nil, fmt.Errorf("%w: index %q segments on different fields", ErrCorrupt, name)
		}
		sizes := map[string]int64{}
		for _, file := range m.Files {
			sizes[file.Path] = int64(file.SizeBytes)
		}
		files := newSegmentFiles(ds.Store(), path.Join(ds.Dir(), "_indices", m.UUID), sizes)
		seg := &segment{meta: m, files: files}
		var err error
		switch ix.kind {
		case KindBTree:
			seg.impl, err = loadBTree(ctx, files)
		case KindBitmap:
			seg.impl, err = loadBitmap(ctx, files, false)
		case KindLabelList:
			seg.impl, err = loadBitmap(ctx, files, true)
		}
		if err != nil {
			return nil, fmt.Errorf("index %q segment %s: %w", name, m.UUID, err)
		}
		if m.FragmentBitmap != nil {
			it := m.FragmentBitmap.Iterator()
			for it.HasNext() {
				id := it.Next()
				if _, ok := ix.frags[uint64(id)]; ok {
					ix.covered.Add(id)
				}
			}
		}
		ix.segments = append(ix.segments, seg)
	}
	return ix, nil
}

// Name is the index name.
func (ix *Index) Name() string { return ix.name }

// Kind is the index type.
func (ix *Index) Kind() Kind { return ix.kind }

// Field is the indexed column.
func (ix *Index) Field() *lanceschema.Field { return ix.field }

// Segments returns the metadata of the index's segments.
func (ix *Index) Segments() []*dataset.IndexMetadata {
	out := make([]*dataset.IndexMetadata, len(ix.segments))
	for i, s := range ix.segments {
		out[i] = s.meta
	}
	return out
}

// Covered lists the ids of the dataset's fragments the index covers.
func (ix *Index) Covered() []uint64 {
	out := make([]uint64, 0, ix.covered.GetCardinality())
	it := ix.covered.Iterator()
	for it.HasNext() {
		out = append(out, uint64(it.Next()))
	}
	return out
}

// Uncovered lists the ids of the dataset's fragments the index does not cover.
func (ix *Index) Uncovered() []uint64 {
	var out []uint64
	for _, f := range ix.ds.Fragments() {
		if f.ID > uint64(^uint32(0)) || !ix.covered.Contains(uint32(f.ID)) {
			out = append(out, f.ID)
		}
	}
	slices.Sort(out)
	return out
}

// Stats sums the work of the index's files since Open.
func (ix *Index) Stats() Stats {
	var s Stats
	for _, seg := range ix.segments {
		fs := seg.files.stats()
		s.BytesRead += fs.BytesRead
		s.Reads += fs.Reads
		s.RowsDecoded += fs.RowsDecoded
		s.FilesOpened += fs.FilesOpened
	}
	return s
}

// Search answers q from the index: the matching live rows of the covered
// fragments, and the fragments the caller must still scan.
func (ix *Index) Search(ctx context.Context, q Query) (*Result, error) {
	switch ix.kind {
	case KindLabelList:
		if q.Op != OpHasAny && q.Op != OpHasAll {
			return nil, fmt.Errorf("%w: a LABEL_LIST index answers array_has_any / array_has_all, not %s", ErrBadQuery, q.Op)
		}
	default:
		if q.Op == OpHasAny || q.Op == OpHasAll {
			return nil, fmt.Errorf("%w: %s needs a LABEL_LIST index, %q is %s", ErrBadQuery, q.Op, ix.name, ix.kind)
		}
	}
	rows := &RowSet{}
	for _, seg := range ix.segments {
		if seg.meta.FragmentBitmap == nil {
			continue // coverage unknown: its fragments are reported uncovered
		}
		hits, err := seg.impl.search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("index %q: %w", ix.name, err)
		}
		fb := seg.meta.FragmentBitmap
		hits.RetainGroups(func(hi uint32) bool { return fb.Contains(hi) && ix.covered.Contains(hi) })
		rows.Or(hits)
	}
	for _, hi := range rows.Groups() {
		f := ix.frags[uint64(hi)]
		rows.ExpandFull(hi, f.PhysicalRows)
		if f.Deletion == nil {
			continue
		}
		del, err := ix.dels.get(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("index %q: %w", ix.name, err)
		}
		rows.RemoveLows(hi, del, f.PhysicalRows)
	}
	return &Result{Rows: rows, Uncovered: ix.Uncovered()}, nil
}
