package lanceschema

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// A schema read from disk with a type Arrow cannot represent (these values
// panicked in arrow.FixedSizeListOf or later in printing) is refused with
// ErrInvalidSchema when it is converted to Arrow.
func TestHostileLogicalTypesRefused(t *testing.T) {
	for _, lt := range []string{
		"fixed_size_list:float:0",
		"fixed_size_list:float:-3",
		"fixed_size_list:float:2147483647",
		"fixed_size_list:lance.bfloat16:0",
		"fixed_size_binary:0",
		"fixed_size_binary:2000000",
		"decimal:128:10:11",
		"decimal:128:10:-2147483648",
		"decimal:128:39:2",
		"decimal:256:77:2",
		"decimal:256:20:2147483647",
	} {
		s, err := FromProto([]*tablepb.Field{{Id: 0, ParentId: -1, Name: "c", LogicalType: lt}}, nil)
		if err != nil {
			t.Fatalf("%s: FromProto: %v", lt, err)
		}
		if _, err := s.ToArrow(); !errors.Is(err, ErrInvalidSchema) {
			t.Errorf("%s: ToArrow = %v, want ErrInvalidSchema", lt, err)
		}
	}
	for _, lt := range []string{"fixed_size_list:float:1", "decimal:128:38:38", "decimal:128:1:0", "decimal:256:76:0", "fixed_size_binary:1"} {
		s, _ := FromProto([]*tablepb.Field{{Id: 0, ParentId: -1, Name: "c", LogicalType: lt}}, nil)
		if _, err := s.ToArrow(); err != nil {
			t.Errorf("%s: %v, want it accepted", lt, err)
		}
	}
}

// nestedStructs returns a chain of depth structs with an int32 leaf below.
func nestedStructs(depth int) []*tablepb.Field {
	fields := make([]*tablepb.Field, 0, depth+1)
	for i := 0; i < depth; i++ {
		fields = append(fields, &tablepb.Field{Id: int32(i), ParentId: int32(i - 1), Name: fmt.Sprintf("s%d", i), LogicalType: "struct"})
	}
	return append(fields, &tablepb.Field{Id: int32(depth), ParentId: int32(depth - 1), Name: "leaf", LogicalType: "int32"})
}

func TestNestingDepthLimit(t *testing.T) {
	s, err := FromProto(nestedStructs(MaxNestingDepth-1), nil)
	if err != nil {
		t.Fatalf("depth %d: %v", MaxNestingDepth, err)
	}
	if _, err := s.ToArrow(); err != nil {
		t.Fatalf("depth %d: ToArrow: %v", MaxNestingDepth, err)
	}
	// 3,000 levels took 30 s and 340 MB to inspect before the limit.
	for _, depth := range []int{MaxNestingDepth, 3000} {
		if _, err := FromProto(nestedStructs(depth), nil); !errors.Is(err, ErrInvalidSchema) {
			t.Errorf("depth %d: err = %v, want ErrInvalidSchema", depth+1, err)
		}
	}
	deep := "int32"
	for i := 0; i <= MaxNestingDepth; i++ {
		deep = "fixed_size_list:" + deep + ":2"
	}
	s, _ = FromProto([]*tablepb.Field{{Id: 0, ParentId: -1, Name: "c", LogicalType: deep}}, nil)
	if _, err := s.ToArrow(); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("nested fixed_size_list: %v, want ErrInvalidSchema", err)
	}
}
