// Package lanceschema is Lance's schema model: the flattened field list that
// Lance stores in table manifests and file footers, and its mapping to and
// from Arrow schemas.
//
// Lance stores a schema as a pre-order list of fields, each with an id and
// the id of its parent (-1 at the top level). Field ids are what data files
// and indices refer to, so they must survive every conversion: a Schema built
// from Arrow gets fresh ids, a Schema decoded from disk keeps its own.
package lanceschema

import (
	"errors"
	"fmt"
	"sort"
)

// ErrInvalidSchema reports a field list that cannot form a schema tree, or a
// logical type lancecat does not understand.
var ErrInvalidSchema = errors.New("lanceschema: invalid schema")

// Well-known metadata keys.
const (
	// PrimaryKeyPositionKey marks a field as part of the unenforced primary
	// key; its value is the 0-based position of the field in the key.
	PrimaryKeyPositionKey = "lance-schema:unenforced-primary-key:position"
	// PrimaryKeyKey is the older boolean form of the primary-key marker.
	PrimaryKeyKey = "lance-schema:unenforced-primary-key"
	// ArrowExtensionNameKey carries an Arrow extension type name.
	ArrowExtensionNameKey = "ARROW:extension:name"
	// ArrowExtensionMetadataKey carries an Arrow extension type's metadata.
	ArrowExtensionMetadataKey = "ARROW:extension:metadata"
	// JSONExtensionName is the extension Lance uses for its JSON type
	// (logical type "json", stored as large binary).
	JSONExtensionName = "lance.json"
	// ArrowJSONExtensionName is Arrow's canonical JSON extension (utf8 storage).
	ArrowJSONExtensionName = "arrow.json"
)

// Encoding is the legacy per-field encoding hint Lance still records in
// field descriptors. 2.x readers do not depend on it, but writers set it the
// way Lance does so manifests look the same.
type Encoding int32

const (
	EncodingNone       Encoding = 0
	EncodingPlain      Encoding = 1
	EncodingVarBinary  Encoding = 2
	EncodingDictionary Encoding = 3
	EncodingRLE        Encoding = 4
)

// Dictionary locates a legacy (0.x file format) dictionary in a file.
type Dictionary struct {
	Offset int64
	Length int64
}

// Field is one field of a Lance schema and, through Children, its subtree.
type Field struct {
	ID          int32
	ParentID    int32
	Name        string
	LogicalType string // Lance's logical type string, e.g. "int64", "list", "timestamp:us:UTC"
	Nullable    bool
	// Metadata is the field metadata (stored as bytes on disk; Lance's
	// metadata values are UTF-8 in practice).
	Metadata             map[string]string
	ExtensionName        string
	UnenforcedPrimaryKey bool
	Encoding             Encoding
	Dictionary           *Dictionary
	Children             []*Field
}

// Schema is a Lance schema: top-level fields (with their subtrees) and
// schema-level metadata.
type Schema struct {
	Fields   []*Field
	Metadata map[string]string
}

// Flatten returns every field of the schema in pre-order (a parent before its
// children, siblings in order): the order Lance stores them in.
func (s *Schema) Flatten() []*Field {
	var out []*Field
	var walk func(fs []*Field)
	walk = func(fs []*Field) {
		for _, f := range fs {
			out = append(out, f)
			walk(f.Children)
		}
	}
	walk(s.Fields)
	return out
}

// FieldByID returns the field with the given id anywhere in the tree.
func (s *Schema) FieldByID(id int32) *Field {
	for _, f := range s.Flatten() {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// Field returns the top-level field with the given name.
func (s *Schema) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// MaxID returns the largest field id in the schema, or -1 when it is empty.
func (s *Schema) MaxID() int32 {
	max := int32(-1)
	for _, f := range s.Flatten() {
		if f.ID > max {
			max = f.ID
		}
	}
	return max
}

// AssignIDs gives every field whose id is negative a fresh id, in pre-order,
// starting after the largest id already present, and fixes parent ids.
func (s *Schema) AssignIDs() {
	next := s.MaxID() + 1
	var walk func(fs []*Field, parent int32)
	walk = func(fs []*Field, parent int32) {
		for _, f := range fs {
			if f.ID < 0 {
				f.ID = next
				next++
			}
			f.ParentID = parent
			walk(f.Children, f.ID)
		}
	}
	walk(s.Fields, -1)
}

// Clone returns a deep copy of the schema.
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	out := &Schema{Metadata: cloneMap(s.Metadata)}
	for _, f := range s.Fields {
		out.Fields = append(out.Fields, f.Clone())
	}
	return out
}

// Clone returns a deep copy of the field and its subtree.
func (f *Field) Clone() *Field {
	c := *f
	c.Metadata = cloneMap(f.Metadata)
	if f.Dictionary != nil {
		d := *f.Dictionary
		c.Dictionary = &d
	}
	c.Children = nil
	for _, ch := range f.Children {
		c.Children = append(c.Children, ch.Clone())
	}
	return &c
}

// Project returns a schema holding only the top-level fields with the given
// names, in the order given.
func (s *Schema) Project(names []string) (*Schema, error) {
	out := &Schema{Metadata: cloneMap(s.Metadata)}
	for _, n := range names {
		f := s.Field(n)
		if f == nil {
			return nil, fmt.Errorf("%w: no field %q", ErrInvalidSchema, n)
		}
		out.Fields = append(out.Fields, f.Clone())
	}
	return out, nil
}

// PrimaryKey returns the names of the top-level fields that form the
// unenforced primary key, ordered by their key position.
func (s *Schema) PrimaryKey() []string {
	type pk struct {
		name string
		pos  int
	}
	var keys []pk
	for i, f := range s.Fields {
		pos, ok := f.PrimaryKeyPosition()
		if !ok {
			continue
		}
		if pos < 0 {
			pos = 1<<30 + i // marked without a position: after the positioned ones, in field order
		}
		keys = append(keys, pk{f.Name, pos})
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].pos < keys[j].pos })
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return names
}

// PrimaryKeyPosition reports whether the field is part of the unenforced
// primary key and its position in it (-1 when marked without a position).
func (f *Field) PrimaryKeyPosition() (int, bool) {
	if v, ok := f.Metadata[PrimaryKeyPositionKey]; ok {
		var pos int
		if _, err := fmt.Sscanf(v, "%d", &pos); err == nil {
			return pos, true
		}
	}
	if f.UnenforcedPrimaryKey {
		return -1, true
	}
	switch f.Metadata[PrimaryKeyKey] {
	case "true", "1", "yes", "TRUE", "True", "YES", "Yes":
		return -1, true
	}
	return 0, false
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
