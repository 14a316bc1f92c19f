package lanceschema

import (
	"fmt"
	"sort"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// maxFields bounds the size of a schema decoded from disk: a larger one is
// treated as corrupt rather than allocated.
const maxFields = 1 << 20

// FromProto builds a schema from Lance's flattened field list (pre-order,
// linked by parent ids) and schema metadata.
func FromProto(fields []*tablepb.Field, metadata map[string][]byte) (*Schema, error) {
	if len(fields) > maxFields {
		return nil, fmt.Errorf("%w: %d fields", ErrInvalidSchema, len(fields))
	}
	s := &Schema{Metadata: bytesMap(metadata)}
	byID := make(map[int32]*Field, len(fields))
	depth := make(map[int32]int, len(fields))
	for _, pf := range fields {
		if pf == nil {
			return nil, fmt.Errorf("%w: nil field", ErrInvalidSchema)
		}
		f := &Field{
			ID:                   pf.GetId(),
			ParentID:             pf.GetParentId(),
			Name:                 pf.GetName(),
			LogicalType:          pf.GetLogicalType(),
			Nullable:             pf.GetNullable(),
			Metadata:             bytesMap(pf.GetMetadata()),
			ExtensionName:        pf.GetExtensionName(),
			UnenforcedPrimaryKey: pf.GetUnenforcedPrimaryKey(),
			Encoding:             Encoding(pf.GetEncoding()),
		}
		if d := pf.GetDictionary(); d != nil {
			f.Dictionary = &Dictionary{Offset: d.GetOffset(), Length: d.GetLength()}
		}
		if _, dup := byID[f.ID]; dup {
			return nil, fmt.Errorf("%w: duplicate field id %d", ErrInvalidSchema, f.ID)
		}
		byID[f.ID] = f
		if f.ParentID < 0 {
			depth[f.ID] = 1
			s.Fields = append(s.Fields, f)
			continue
		}
		parent, ok := byID[f.ParentID]
		if !ok {
			return nil, fmt.Errorf("%w: field %d (%q) names parent %d before it is defined", ErrInvalidSchema, f.ID, f.Name, f.ParentID)
		}
		depth[f.ID] = depth[f.ParentID] + 1
		if err := checkDepth(f.Name, depth[f.ID]); err != nil {
			return nil, err
		}
		parent.Children = append(parent.Children, f)
	}
	return s, nil
}

// Proto flattens the schema into Lance's field list and metadata map.
func (s *Schema) Proto() ([]*tablepb.Field, map[string][]byte) {
	flat := s.Flatten()
	out := make([]*tablepb.Field, 0, len(flat))
	for _, f := range flat {
		pf := &tablepb.Field{
			Type:                 tablepb.Field_PARENT, // Lance always writes 0 here
			Name:                 f.Name,
			Id:                   f.ID,
			ParentId:             f.ParentID,
			LogicalType:          f.LogicalType,
			Nullable:             f.Nullable,
			Encoding:             tablepb.Encoding(f.Encoding),
			ExtensionName:        f.ExtensionName,
			Metadata:             stringBytesMap(f.Metadata),
			UnenforcedPrimaryKey: f.UnenforcedPrimaryKey,
		}
		if f.Dictionary != nil {
			pf.Dictionary = &tablepb.Dictionary{Offset: f.Dictionary.Offset, Length: f.Dictionary.Length}
		}
		out = append(out, pf)
	}
	return out, stringBytesMap(s.Metadata)
}

func bytesMap(m map[string][]byte) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func stringBytesMap(m map[string]string) map[string][]byte {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
