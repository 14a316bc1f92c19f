package lanceschema

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// every type lancecat maps, as Lance spells it.
var arrowCases = []struct {
	dt arrow.DataType
	lt string
}{
	{arrow.FixedWidthTypes.Boolean, "bool"},
	{arrow.PrimitiveTypes.Int8, "int8"},
	{arrow.PrimitiveTypes.Int16, "int16"},
	{arrow.PrimitiveTypes.Int32, "int32"},
	{arrow.PrimitiveTypes.Int64, "int64"},
	{arrow.PrimitiveTypes.Uint8, "uint8"},
	{arrow.PrimitiveTypes.Uint16, "uint16"},
	{arrow.PrimitiveTypes.Uint32, "uint32"},
	{arrow.PrimitiveTypes.Uint64, "uint64"},
	{arrow.FixedWidthTypes.Float16, "halffloat"},
	{arrow.PrimitiveTypes.Float32, "float"},
	{arrow.PrimitiveTypes.Float64, "double"},
	{arrow.BinaryTypes.String, "string"},
	{arrow.BinaryTypes.LargeString, "large_string"},
	{arrow.BinaryTypes.Binary, "binary"},
	{arrow.BinaryTypes.LargeBinary, "large_binary"},
	{arrow.FixedWidthTypes.Date32, "date32:day"},
	{arrow.FixedWidthTypes.Time64us, "time64:us"},
	{&arrow.TimestampType{Unit: arrow.Second}, "timestamp:s:-"},
	{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "timestamp:us:UTC"},
	{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "America/New_York"}, "timestamp:ns:America/New_York"},
	{&arrow.Decimal128Type{Precision: 20, Scale: 4}, "decimal:128:20:4"},
	{arrow.FixedSizeListOf(768, arrow.PrimitiveTypes.Float32), "fixed_size_list:float:768"},
	{arrow.ListOf(arrow.BinaryTypes.String), "list"},
	{arrow.LargeListOf(arrow.PrimitiveTypes.Int64), "large_list"},
	{arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})), "list.struct"},
	{arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
	), "struct"},
}

func TestArrowRoundTripEveryType(t *testing.T) {
	for _, c := range arrowCases {
		t.Run(c.lt, func(t *testing.T) {
			as := arrow.NewSchema([]arrow.Field{{Name: "c", Type: c.dt, Nullable: true}}, nil)
			s, err := FromArrow(as)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Fields[0].LogicalType; got != c.lt {
				t.Fatalf("logical type = %q, want %q", got, c.lt)
			}
			// Through the on-disk form and back.
			pf, md := s.Proto()
			s2, err := FromProto(pf, md)
			if err != nil {
				t.Fatal(err)
			}
			back, err := s2.ToArrow()
			if err != nil {
				t.Fatal(err)
			}
			if !arrow.TypeEqual(back.Field(0).Type, c.dt) {
				t.Fatalf("round trip: got %s, want %s", back.Field(0).Type, c.dt)
			}
		})
	}
}

func TestAssignIDsPreOrder(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{
		{Name: "object_id", Type: arrow.BinaryTypes.String},
		{Name: "base_objects", Type: arrow.ListOfField(arrow.Field{Name: "object_id", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}), Nullable: true},
	}, nil)
	s, err := FromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	var ids, parents []int32
	for _, f := range s.Flatten() {
		ids = append(ids, f.ID)
		parents = append(parents, f.ParentID)
	}
	wantIDs := []int32{0, 1, 2, 3, 4}
	wantParents := []int32{-1, -1, 1, -1, 3}
	for i := range wantIDs {
		if ids[i] != wantIDs[i] || parents[i] != wantParents[i] {
			t.Fatalf("ids %v parents %v, want %v %v", ids, parents, wantIDs, wantParents)
		}
	}
	if s.MaxID() != 4 {
		t.Fatalf("MaxID = %d", s.MaxID())
	}
}

func TestPrimaryKeyMetadata(t *testing.T) {
	md := arrow.NewMetadata([]string{PrimaryKeyPositionKey}, []string{"0"})
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Metadata: md},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	s, err := FromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Fields[0].UnenforcedPrimaryKey || s.Fields[1].UnenforcedPrimaryKey {
		t.Fatalf("primary key flags: %v %v", s.Fields[0].UnenforcedPrimaryKey, s.Fields[1].UnenforcedPrimaryKey)
	}
	if pk := s.PrimaryKey(); len(pk) != 1 || pk[0] != "id" {
		t.Fatalf("PrimaryKey = %v", pk)
	}
}

func TestJSONLogicalType(t *testing.T) {
	md := arrow.NewMetadata([]string{ArrowExtensionNameKey}, []string{ArrowJSONExtensionName})
	s, err := FromArrow(arrow.NewSchema([]arrow.Field{{Name: "j", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if s.Fields[0].LogicalType != "json" {
		t.Fatalf("logical type %q", s.Fields[0].LogicalType)
	}
	af, err := s.Fields[0].ArrowField()
	if err != nil {
		t.Fatal(err)
	}
	if af.Type.ID() != arrow.LARGE_BINARY {
		t.Fatalf("json storage type %s", af.Type)
	}
	if v, _ := af.Metadata.GetValue(ArrowExtensionNameKey); v != JSONExtensionName {
		t.Fatalf("extension name %q", v)
	}
}

func TestFromProtoRejectsBadTrees(t *testing.T) {
	cases := map[string][]*tablepb.Field{
		"orphan child": {{Name: "c", Id: 1, ParentId: 7, LogicalType: "int32"}},
		"duplicate id": {{Name: "a", Id: 0, ParentId: -1, LogicalType: "int32"}, {Name: "b", Id: 0, ParentId: -1, LogicalType: "int32"}},
		"nil field":    {nil},
	}
	for name, fields := range cases {
		if _, err := FromProto(fields, nil); !errors.Is(err, ErrInvalidSchema) {
			t.Errorf("%s: err = %v, want ErrInvalidSchema", name, err)
		}
	}
	// An unknown logical type decodes (names and ids are still useful) but
	// has no Arrow type.
	s, err := FromProto([]*tablepb.Field{{Name: "x", Id: 0, ParentId: -1, LogicalType: "mystery:1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ToArrow(); !errors.Is(err, ErrInvalidSchema) {
		t.Fatalf("ToArrow of unknown type: %v", err)
	}
	for _, lt := range []string{"decimal:128:99:2", "fixed_size_list:float:x", "timestamp:xs:UTC", "list"} {
		f := &Field{Name: "x", LogicalType: lt}
		if _, err := f.ArrowType(); !errors.Is(err, ErrInvalidSchema) {
			t.Errorf("%s: err = %v", lt, err)
		}
	}
}
