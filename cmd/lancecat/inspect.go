package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// The `dataset inspect` document. Field order is fixed (struct order).
//
// Type spelling (inspectField.Type), Arrow type names:
//
//	null bool int8 int16 int32 int64 uint8 uint16 uint32 uint64
//	float16 float32 float64 utf8 large_utf8 binary large_binary
//	fixed_size_binary[N] date32 date64 time32[s|ms] time64[us|ns]
//	timestamp[s|ms|us|ns] (no zone) timestamp[us, UTC] (with zone)
//	duration[s|ms|us|ns] decimal128(P, S) decimal256(P, S)
//	list<T> large_list<T> fixed_size_list<T>[N]
//	struct<a: T, b: T> dictionary<V, K> json (Lance's JSON type)
//
// where T is the element's type spelled the same way (child names of lists
// are not shown; they are in "children").
type inspectDoc struct {
	URI                string            `json:"uri"`
	Version            uint64            `json:"version"`
	NamingScheme       string            `json:"naming_scheme"`
	Timestamp          string            `json:"timestamp,omitempty"`
	Writer             *inspectWriter    `json:"writer"`
	DataStorageVersion string            `json:"data_storage_version"`
	ReaderFlags        uint64            `json:"reader_feature_flags"`
	WriterFlags        uint64            `json:"writer_feature_flags"`
	Schema             []inspectField    `json:"schema"`
	SchemaMetadata     map[string]string `json:"schema_metadata"`
	Fragments          []inspectFragment `json:"fragments"`
	NumRows            uint64            `json:"num_rows"`
	Indices            []inspectIndex    `json:"indices"`
	TableMetadata      map[string]string `json:"table_metadata"`
	Config             map[string]string `json:"config"`
	Transaction        *inspectTx        `json:"transaction"`
}

type inspectWriter struct {
	Library string `json:"library"`
	Version string `json:"version"`
}

type inspectField struct {
	ID       int32             `json:"id"`
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Nullable bool              `json:"nullable"`
	Metadata map[string]string `json:"metadata"`
	Children []inspectField    `json:"children,omitempty"`
}

type inspectFile struct {
	Path          string  `json:"path"`
	Fields        []int32 `json:"fields"`
	ColumnIndices []int32 `json:"column_indices"`
	FileVersion   string  `json:"file_version"`
	SizeBytes     uint64  `json:"size_bytes"`
}

type inspectDeletion struct {
	Type        string `json:"type"`
	Path        string `json:"path"`
	NumDeleted  uint64 `json:"num_deleted_rows"`
	ReadVersion uint64 `json:"read_version"`
}

type inspectFragment struct {
	ID           uint64           `json:"id"`
	Files        []inspectFile    `json:"files"`
	PhysicalRows uint64           `json:"physical_rows"`
	Deletions    *inspectDeletion `json:"deletions"`
	Rows         uint64           `json:"rows"`
}

type inspectIndex struct {
	Name        string   `json:"name"`
	UUID        string   `json:"uuid"`
	Type        string   `json:"type"`
	Columns     []string `json:"columns"`
	FieldIDs    []int32  `json:"field_ids"`
	FragmentIDs []uint32 `json:"fragment_ids"`
	// Kind is the index kind (BTREE, BITMAP, LABEL_LIST, ...);
	// UncoveredFragments are the dataset's fragments no segment of this
	// index covers (a query through the index scans them).
	Kind               string   `json:"kind"`
	UncoveredFragments []uint64 `json:"uncovered_fragments"`
	DatasetVersion     uint64   `json:"dataset_version"`
	IndexVersion       *int32   `json:"index_version"`
	Files              []string `json:"files,omitempty"`
}

type inspectTx struct {
	Operation   string `json:"operation"`
	ReadVersion uint64 `json:"read_version"`
	UUID        string `json:"uuid"`
}

func describe(ctx context.Context, d *dataset.Dataset) (*inspectDoc, error) {
	m := d.Manifest()
	doc := &inspectDoc{
		URI:                d.URI(),
		Version:            m.Version,
		NamingScheme:       d.NamingScheme().String(),
		DataStorageVersion: m.DataFormat.Version,
		ReaderFlags:        m.ReaderFlags,
		WriterFlags:        m.WriterFlags,
		SchemaMetadata:     orEmpty(m.Schema.Metadata),
		TableMetadata:      orEmpty(m.TableMetadata),
		Config:             orEmpty(m.Config),
		Schema:             []inspectField{},
		Fragments:          []inspectFragment{},
		Indices:            []inspectIndex{},
	}
	if !m.Timestamp.IsZero() {
		doc.Timestamp = m.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	if wv := m.WriterVersion; wv != nil {
		doc.Writer = &inspectWriter{Library: wv.Library, Version: wv.Version}
	}
	for _, f := range m.Schema.Fields {
		fd, err := describeField(f)
		if err != nil {
			return nil, err
		}
		doc.Schema = append(doc.Schema, fd)
	}
	for _, f := range m.Fragments {
		fr := inspectFragment{ID: f.ID, PhysicalRows: f.PhysicalRows, Files: []inspectFile{}}
		for _, df := range f.Files {
			fr.Files = append(fr.Files, inspectFile{Path: df.Path, Fields: nonNil(df.Fields), ColumnIndices: nonNil(df.ColumnIndices),
				FileVersion: fmt.Sprintf("%d.%d", df.FileMajor, df.FileMinor), SizeBytes: df.SizeBytes})
		}
		if del := f.Deletion; del != nil {
			fr.Deletions = &inspectDeletion{Type: del.Type.String(), Path: d.DeletionFilePath(f), NumDeleted: del.NumDeleted, ReadVersion: del.ReadVersion}
		}
		n, err := d.FragmentLiveRows(ctx, f)
		if err != nil {
			return nil, err
		}
		fr.Rows = n
		doc.NumRows += n
		doc.Fragments = append(doc.Fragments, fr)
	}
	coverage := map[string]index.Info{}
	for _, info := range index.Describe(d) {
		coverage[info.Name] = info
	}
	for _, ix := range m.Indices {
		ii := inspectIndex{Name: ix.Name, UUID: ix.UUID, Type: ix.Type(), FieldIDs: nonNil(ix.Fields), Columns: []string{},
			FragmentIDs: []uint32{}, DatasetVersion: ix.DatasetVersion, IndexVersion: ix.IndexVersion,
			Kind: coverage[ix.Name].Kind.String(), UncoveredFragments: nonNil(coverage[ix.Name].Uncovered)}
		for _, id := range ix.Fields {
			name := fmt.Sprintf("#%d", id)
			if f := m.Schema.FieldByID(id); f != nil {
				name = fieldPath(m.Schema, f)
			}
			ii.Columns = append(ii.Columns, name)
		}
		if ix.FragmentBitmap != nil {
			ii.FragmentIDs = append(ii.FragmentIDs, ix.FragmentBitmap.ToArray()...)
		}
		for _, f := range ix.Files {
			ii.Files = append(ii.Files, f.Path)
		}
		doc.Indices = append(doc.Indices, ii)
	}
	tx, err := d.Transaction(ctx)
	if err != nil {
		return nil, err
	}
	if tx != nil {
		doc.Transaction = &inspectTx{Operation: tx.Operation, ReadVersion: tx.ReadVersion, UUID: tx.UUID}
	}
	return doc, nil
}

// fieldPath names a (possibly nested) field "parent.child".
func fieldPath(s *lanceschema.Schema, f *lanceschema.Field) string {
	name := f.Name
	for p := f.ParentID; p >= 0; {
		pf := s.FieldByID(p)
		if pf == nil {
			break
		}
		name = pf.Name + "." + name
		p = pf.ParentID
	}
	return name
}

func describeField(f *lanceschema.Field) (inspectField, error) {
	out := inspectField{ID: f.ID, Name: f.Name, Nullable: f.Nullable, Metadata: orEmpty(f.Metadata)}
	if f.LogicalType == "json" {
		out.Type = "json"
	} else {
		dt, err := f.ArrowType()
		if err != nil {
			return out, err
		}
		out.Type = typeName(dt)
	}
	for _, c := range f.Children {
		cd, err := describeField(c)
		if err != nil {
			return out, err
		}
		out.Children = append(out.Children, cd)
	}
	return out, nil
}

func unitName(u arrow.TimeUnit) string {
	switch u {
	case arrow.Second:
		return "s"
	case arrow.Millisecond:
		return "ms"
	case arrow.Microsecond:
		return "us"
	}
	return "ns"
}

// typeName spells an Arrow type as documented on inspectDoc.
func typeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.NullType:
		return "null"
	case *arrow.BooleanType:
		return "bool"
	case *arrow.Float16Type:
		return "float16"
	case *arrow.Float32Type:
		return "float32"
	case *arrow.Float64Type:
		return "float64"
	case *arrow.StringType:
		return "utf8"
	case *arrow.LargeStringType:
		return "large_utf8"
	case *arrow.BinaryType:
		return "binary"
	case *arrow.LargeBinaryType:
		return "large_binary"
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("fixed_size_binary[%d]", t.ByteWidth)
	case *arrow.Date32Type:
		return "date32"
	case *arrow.Date64Type:
		return "date64"
	case *arrow.Time32Type:
		return "time32[" + unitName(t.Unit) + "]"
	case *arrow.Time64Type:
		return "time64[" + unitName(t.Unit) + "]"
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return "timestamp[" + unitName(t.Unit) + "]"
		}
		return "timestamp[" + unitName(t.Unit) + ", " + t.TimeZone + "]"
	case *arrow.DurationType:
		return "duration[" + unitName(t.Unit) + "]"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal128(%d, %d)", t.Precision, t.Scale)
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal256(%d, %d)", t.Precision, t.Scale)
	case *arrow.ListType:
		return "list<" + typeName(t.Elem()) + ">"
	case *arrow.LargeListType:
		return "large_list<" + typeName(t.Elem()) + ">"
	case *arrow.FixedSizeListType:
		return fmt.Sprintf("fixed_size_list<%s>[%d]", typeName(t.Elem()), t.Len())
	case *arrow.StructType:
		parts := make([]string, 0, t.NumFields())
		for _, f := range t.Fields() {
			parts = append(parts, f.Name+": "+typeName(f.Type))
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	case *arrow.DictionaryType:
		return "dictionary<" + typeName(t.ValueType) + ", " + typeName(t.IndexType) + ">"
	}
	// Integers: Arrow's own names (int8 ... uint64).
	return dt.Name()
}

// orEmpty is metadata as inspect prints it: never null, secrets redacted
// (a storage option someone kept in the table's metadata).
func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return storage.RedactOptions(m)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
