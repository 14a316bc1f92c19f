package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// BuildOptions configure Build.
type BuildOptions struct {
	// Name of the index; "" gives Lance's default "<column>_idx".
	Name string
	// BatchSize is the BTREE page size in rows (0: Lance's default 4096).
	BatchSize int
	// UUID names the index directory _indices/<uuid>/ ("": a random one).
	// A caller that must clean up after a failed build picks it first.
	UUID string
}

// globalBufferWriter is implemented by a Lance file writer that can store
// extra global buffers (needed for the label-list null rows).
type globalBufferWriter interface {
	AddGlobalBuffer(b []byte) (int, error)
}

// CreateIndex builds an index of kind on column over every fragment of ds
// and commits a version that registers it (replacing an index of the same
// name), as Lance's create_index does. It returns the new version.
func CreateIndex(ctx context.Context, ds *dataset.Dataset, column string, kind Kind, opts BuildOptions) (*dataset.Dataset, error) {
	meta, err := Build(ctx, ds, column, kind, opts)
	if err != nil {
		return nil, err
	}
	return ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, nil)
}

// indexEntry is one (value, row address) pair fed to a builder.
type indexEntry struct {
	v    any // normalized; nil: null
	addr uint64
}

// Build writes the files of a new index of kind on column over every
// fragment of ds under _indices/<uuid>/ and returns its metadata, ready for
// Dataset.CommitIndices. The files are the ones Lance writes for that kind
// (see btree.go and bitmap.go for the layouts).
func Build(ctx context.Context, ds *dataset.Dataset, column string, kind Kind, opts BuildOptions) (*dataset.IndexMetadata, error) {
	f := ds.Schema().Field(column)
	if f == nil {
		return nil, fmt.Errorf("%w: no column %q", ErrBadQuery, column)
	}
	for _, fr := range ds.Fragments() {
		if fr.HasRowIDs {
			return nil, fmt.Errorf("%w: dataset %s uses stable row ids", ErrUnsupported, ds.URI())
		}
	}
	at, err := f.ArrowType()
	if err != nil {
		return nil, err
	}
	valueType := at
	if kind == KindLabelList {
		lt, ok := at.(*arrow.ListType)
		if !ok {
			return nil, fmt.Errorf("%w: LABEL_LIST on %s column %q (needs a list)", ErrUnsupported, at, column)
		}
		valueType = lt.Elem()
	}
	if _, err := kindOf(valueType); err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = column + "_idx"
	}
	entries, listNulls, frags, err := collectEntries(ctx, ds, column, kind == KindLabelList)
	if err != nil {
		return nil, err
	}
	id := opts.UUID
	if id == "" {
		id = uuid.NewString()
	} else if _, err := uuid.Parse(id); err != nil {
		return nil, fmt.Errorf("%w: index uuid %q: %v", ErrBadQuery, id, err)
	}
	dir := path.Join(ds.Dir(), "_indices", id)
	var files map[string][]byte
	meta := &dataset.IndexMetadata{
		UUID: id, Fields: []int32{f.ID}, Name: name, DatasetVersion: ds.Version(), FragmentBitmap: frags,
	}
	var version int32
	switch kind {
	case KindBTree:
		bs := opts.BatchSize
		if bs <= 0 {
			bs = defaultBTreeBatch
		}
		files, err = buildBTreeFiles(ctx, entries, valueType, bs)
		meta.DetailsTypeURL, version = BTreeDetailsTypeURL, BTreeIndexVersion
	case KindBitmap:
		files, err = buildBitmapFile(ctx, entries, valueType, nil)
		meta.DetailsTypeURL, version = BitmapDetailsTypeURL, BitmapIndexVersion
	case KindLabelList:
		files, err = buildBitmapFile(ctx, entries, valueType, listNulls)
		meta.DetailsTypeURL, version = LabelListDetailsTypeURL, LabelListIndexVersion
	default:
		return nil, fmt.Errorf("%w: building a %s index", ErrUnsupported, kind)
	}
	if err != nil {
		return nil, fmt.Errorf("build %s index %q: %w", kind, name, err)
	}
	meta.IndexVersion = &version
	now := time.Now().UTC().Truncate(time.Millisecond)
	meta.CreatedAt = &now
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		// Synced by the commit that publishes the index (see storage.Syncer).
		if err := storage.PutDeferred(ctx, ds.Store(), path.Join(dir, n), files[n]); err != nil {
			return nil, fmt.Errorf("write index file %s: %w", n, err)
		}
		meta.Files = append(meta.Files, dataset.IndexFile{Path: n, SizeBytes: uint64(len(files[n]))})
	}
	return meta, nil
}

// collectEntries scans column with row addresses. For label lists it unnests
// the lists and returns the rows whose list is null separately.
func collectEntries(ctx context.Context, ds *dataset.Dataset, column string, unnest bool) ([]indexEntry, *RowSet, *roaring.Bitmap, error) {
	frags := roaring.New()
	for _, fr := range ds.Fragments() {
		if fr.ID > uint64(^uint32(0)) {
			return nil, nil, nil, fmt.Errorf("%w: fragment id %d", ErrUnsupported, fr.ID)
		}
		frags.Add(uint32(fr.ID))
	}
	var entries []indexEntry
	listNulls := &RowSet{}
	err := ds.Scan(ctx, dataset.ScanOptions{Columns: []string{column}, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		col := rec.Column(0)
		addrs, ok := rec.Column(1).(*array.Uint64)
		if !ok {
			return fmt.Errorf("row address column of type %s", rec.Column(1).DataType())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			addr := addrs.Value(i)
			if !unnest {
				v, _, err := valueAt(col, i)
				if err != nil {
					return err
				}
				entries = append(entries, indexEntry{v, addr})
				continue
			}
			l, ok := col.(*array.List)
			if !ok {
				return fmt.Errorf("%w: label list over %s", ErrUnsupported, col.DataType())
			}
			if l.IsNull(i) {
				listNulls.Add(addr)
				continue
			}
			a, b := l.ValueOffsets(i)
			for j := a; j < b; j++ {
				v, _, err := valueAt(l.ListValues(), int(j))
				if err != nil {
					return err
				}
				entries = append(entries, indexEntry{v, addr})
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return entries, listNulls, frags, nil
}

// sortEntries orders entries by value, nulls first, then by row address.
func sortEntries(entries []indexEntry) {
	slices.SortFunc(entries, func(a, b indexEntry) int {
		switch {
		case a.v == nil && b.v == nil:
		case a.v == nil:
			return -1
		case b.v == nil:
			return 1
		default:
			if c := compareValues(a.v, b.v); c != 0 {
				return c
			}
		}
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		}
		return 0
	})
}

func buildBTreeFiles(ctx context.Context, entries []indexEntry, vt arrow.DataType, batch int) (map[string][]byte, error) {
	sortEntries(entries)
	mem := memory.DefaultAllocator
	dataSchema := arrow.NewSchema([]arrow.Field{
		{Name: btreeValuesColumn, Type: vt, Nullable: true},
		{Name: btreeIDsColumn, Type: arrow.PrimitiveTypes.Uint64, Nullable: false},
	}, nil)
	var data bytes.Buffer
	dw, err := newIndexWriter(&data, dataSchema)
	if err != nil {
		return nil, err
	}
	minB, maxB := array.NewBuilder(mem, vt), array.NewBuilder(mem, vt)
	defer minB.Release()
	defer maxB.Release()
	nullCounts, pageIdx := array.NewUint32Builder(mem), array.NewUint32Builder(mem)
	defer nullCounts.Release()
	defer pageIdx.Release()
	for p, start := 0, 0; start < len(entries); p, start = p+1, start+batch {
		page := entries[start:min(start+batch, len(entries))]
		vb, ib := array.NewBuilder(mem, vt), array.NewUint64Builder(mem)
		nulls := 0
		for _, e := range page {
			if e.v == nil {
				nulls++
			}
			if err := appendValue(vb, e.v); err != nil {
				return nil, err
			}
			ib.Append(e.addr)
		}
		rec := buildRecord(dataSchema, vb, ib)
		err := dw.Write(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		// min is the page's first value and max its last, as Lance records them.
		if err := appendValue(minB, page[0].v); err != nil {
			return nil, err
		}
		if err := appendValue(maxB, page[len(page)-1].v); err != nil {
			return nil, err
		}
		nullCounts.Append(uint32(nulls))
		pageIdx.Append(uint32(p))
	}
	if _, err := dw.Finish(ctx); err != nil {
		return nil, err
	}
	lookupSchema := arrow.NewSchema([]arrow.Field{
		{Name: btreeLookupMinColumn, Type: vt, Nullable: true},
		{Name: btreeLookupMaxColumn, Type: vt, Nullable: true},
		{Name: btreeNullCountColumn, Type: arrow.PrimitiveTypes.Uint32, Nullable: false},
		{Name: btreePageIdxColumn, Type: arrow.PrimitiveTypes.Uint32, Nullable: false},
	}, nil)
	var lookup bytes.Buffer
	lw, err := newIndexWriter(&lookup, lookupSchema, btreeBatchSizeKey, strconv.Itoa(batch), btreeRangePartKey, "false")
	if err != nil {
		return nil, err
	}
	rec := buildRecord(lookupSchema, minB, maxB, nullCounts, pageIdx)
	defer rec.Release()
	if rec.NumRows() > 0 {
		if err := lw.Write(ctx, rec); err != nil {
			return nil, err
		}
	}
	if _, err := lw.Finish(ctx); err != nil {
		return nil, err
	}
	return map[string][]byte{btreeDataFile: data.Bytes(), btreeLookupFile: lookup.Bytes()}, nil
}

func buildBitmapFile(ctx context.Context, entries []indexEntry, vt arrow.DataType, listNulls *RowSet) (map[string][]byte, error) {
	sortEntries(entries)
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: bitmapKeysColumn, Type: vt, Nullable: true},
		{Name: bitmapBitmapsColumn, Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	kb, bb := array.NewBuilder(mem, vt), array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer kb.Release()
	defer bb.Release()
	keys := 0
	for i := 0; i < len(entries); {
		j := i
		set := &RowSet{}
		for j < len(entries) && sameKey(entries[i].v, entries[j].v) {
			set.Add(entries[j].addr)
			j++
		}
		b, err := set.MarshalBinary()
		if err != nil {
			return nil, err
		}
		if err := appendValue(kb, entries[i].v); err != nil {
			return nil, err
		}
		bb.Append(b)
		keys++
		i = j
	}
	stats, _ := json.Marshal(map[string]int{"num_bitmaps": keys})
	md := []string{indexStatsKey, string(stats)}
	var nullBuf []byte
	if listNulls != nil {
		var err error
		if nullBuf, err = listNulls.MarshalBinary(); err != nil {
			return nil, err
		}
		// Global buffer 0 is the file descriptor; the null rows go in buffer 1.
		md = append(md, labelListNullsKey, "1")
	}
	var out bytes.Buffer
	w, err := newIndexWriter(&out, schema, md...)
	if err != nil {
		return nil, err
	}
	gw, writerHasBuffers := any(w).(globalBufferWriter)
	if listNulls != nil && writerHasBuffers {
		idx, err := gw.AddGlobalBuffer(nullBuf)
		if err != nil {
			return nil, err
		}
		if idx != 1 {
			return nil, fmt.Errorf("label-list null rows landed in global buffer %d, not 1", idx)
		}
	}
	rec := buildRecord(schema, kb, bb)
	defer rec.Release()
	if rec.NumRows() > 0 {
		if err := w.Write(ctx, rec); err != nil {
			return nil, err
		}
	}
	if _, err := w.Finish(ctx); err != nil {
		return nil, err
	}
	if listNulls != nil && !writerHasBuffers {
		b, err := lancefile.AppendGlobalBuffer(out.Bytes(), nullBuf)
		if err != nil {
			return nil, err
		}
		return map[string][]byte{bitmapLookupFile: b}, nil
	}
	return map[string][]byte{bitmapLookupFile: out.Bytes()}, nil
}

func sameKey(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return compareValues(a, b) == 0
}

// newIndexWriter starts a Lance file for an index with schema-level
// metadata given as key, value pairs.
func newIndexWriter(w *bytes.Buffer, schema *arrow.Schema, kv ...string) (*lancefile.Writer, error) {
	ls, err := lanceschema.FromArrow(schema)
	if err != nil {
		return nil, err
	}
	if len(kv) > 0 {
		ls.Metadata = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			ls.Metadata[kv[i]] = kv[i+1]
		}
	}
	return lancefile.NewWriter(w, ls, lancefile.WriterOptions{})
}

func buildRecord(schema *arrow.Schema, builders ...array.Builder) arrow.Record {
	cols := make([]arrow.Array, len(builders))
	for i, b := range builders {
		cols[i] = b.NewArray()
	}
	n := int64(0)
	if len(cols) > 0 {
		n = int64(cols[0].Len())
	}
	rec := array.NewRecord(schema, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// appendValue appends a normalized value (nil: null) to a builder of the
// column's Arrow type.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(v.(int64)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int64)))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int64)))
	case *array.Date64Builder:
		bb.Append(arrow.Date64(v.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	case *array.Uint8Builder:
		bb.Append(uint8(v.(uint64)))
	case *array.Uint16Builder:
		bb.Append(uint16(v.(uint64)))
	case *array.Uint32Builder:
		bb.Append(uint32(v.(uint64)))
	case *array.Uint64Builder:
		bb.Append(v.(uint64))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.LargeStringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append([]byte(v.(string)))
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	default:
		return fmt.Errorf("%w: building an index over %s", ErrUnsupported, b.Type())
	}
	return nil
}
