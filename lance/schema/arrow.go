package lanceschema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// ArrowType returns the Arrow type of the field, built from its logical type
// and, for lists and structs, its children.
func (f *Field) ArrowType() (arrow.DataType, error) {
	lt := f.LogicalType
	switch lt {
	case "struct":
		fields := make([]arrow.Field, 0, len(f.Children))
		for _, c := range f.Children {
			af, err := c.ArrowField()
			if err != nil {
				return nil, err
			}
			fields = append(fields, af)
		}
		return arrow.StructOf(fields...), nil
	case "list", "list.struct", "large_list", "large_list.struct":
		if len(f.Children) != 1 {
			return nil, fmt.Errorf("%w: %s field %q has %d children, want 1", ErrInvalidSchema, lt, f.Name, len(f.Children))
		}
		item, err := f.Children[0].ArrowField()
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(lt, "large_list") {
			return arrow.LargeListOfField(item), nil
		}
		return arrow.ListOfField(item), nil
	}
	return parseLogicalType(lt)
}

// ArrowField returns the field as an Arrow field with its metadata. Lance's
// JSON logical type becomes large binary tagged with the lance.json extension
// name, as Lance itself presents it.
func (f *Field) ArrowField() (arrow.Field, error) {
	dt, err := f.ArrowType()
	if err != nil {
		return arrow.Field{}, err
	}
	md := cloneMap(f.Metadata)
	if f.ExtensionName != "" {
		if md == nil {
			md = map[string]string{}
		}
		md[ArrowExtensionNameKey] = f.ExtensionName
	}
	if f.LogicalType == "json" {
		if md == nil {
			md = map[string]string{}
		}
		md[ArrowExtensionNameKey] = JSONExtensionName
	}
	return arrow.Field{Name: f.Name, Type: dt, Nullable: f.Nullable, Metadata: metadataOf(md)}, nil
}

// ToArrow converts the schema to an Arrow schema (field ids are not carried).
func (s *Schema) ToArrow() (*arrow.Schema, error) {
	fields := make([]arrow.Field, 0, len(s.Fields))
	for _, f := range s.Fields {
		af, err := f.ArrowField()
		if err != nil {
			return nil, err
		}
		fields = append(fields, af)
	}
	md := metadataOf(s.Metadata)
	return arrow.NewSchema(fields, &md), nil
}

// FromArrow converts an Arrow schema into a Lance schema with fresh field ids
// assigned in pre-order from 0.
func FromArrow(as *arrow.Schema) (*Schema, error) {
	s := &Schema{Metadata: mapOf(as.Metadata())}
	for _, af := range as.Fields() {
		f, err := FieldFromArrow(af)
		if err != nil {
			return nil, err
		}
		s.Fields = append(s.Fields, f)
	}
	s.AssignIDs()
	return s, nil
}

// FieldFromArrow converts one Arrow field (and its children) into a Lance
// field with unassigned (-1) ids.
func FieldFromArrow(af arrow.Field) (*Field, error) {
	return fieldFromArrow(af, 1)
}

func fieldFromArrow(af arrow.Field, depth int) (*Field, error) {
	if err := checkDepth(af.Name, depth); err != nil {
		return nil, err
	}
	md := mapOf(af.Metadata)
	f := &Field{ID: -1, ParentID: -1, Name: af.Name, Nullable: af.Nullable, Metadata: md}
	if ext := md[ArrowExtensionNameKey]; ext == JSONExtensionName || ext == ArrowJSONExtensionName {
		f.LogicalType = "json"
		delete(f.Metadata, ArrowExtensionNameKey)
		delete(f.Metadata, ArrowExtensionMetadataKey)
		if len(f.Metadata) == 0 {
			f.Metadata = nil
		}
		f.Encoding = EncodingVarBinary
		return f, nil
	}
	if _, ok := md[PrimaryKeyPositionKey]; ok {
		f.UnenforcedPrimaryKey = true
	} else if v := strings.ToLower(md[PrimaryKeyKey]); v == "true" || v == "1" || v == "yes" {
		f.UnenforcedPrimaryKey = true
	}
	lt, err := logicalTypeOf(af.Type)
	if err != nil {
		return nil, fmt.Errorf("field %q: %w", af.Name, err)
	}
	f.LogicalType = lt
	switch t := af.Type.(type) {
	case *arrow.StructType:
		for _, cf := range t.Fields() {
			c, err := fieldFromArrow(cf, depth+1)
			if err != nil {
				return nil, err
			}
			f.Children = append(f.Children, c)
		}
	case *arrow.ListType:
		c, err := fieldFromArrow(t.ElemField(), depth+1)
		if err != nil {
			return nil, err
		}
		f.Children = []*Field{c}
	case *arrow.LargeListType:
		c, err := fieldFromArrow(t.ElemField(), depth+1)
		if err != nil {
			return nil, err
		}
		f.Children = []*Field{c}
	}
	f.Encoding = encodingOf(af.Type)
	return f, nil
}

func encodingOf(dt arrow.DataType) Encoding {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return EncodingVarBinary
	case arrow.DICTIONARY:
		return EncodingDictionary
	case arrow.LIST, arrow.LARGE_LIST:
		return EncodingPlain
	case arrow.STRUCT, arrow.NULL:
		return EncodingNone
	}
	return EncodingPlain // every fixed-stride type
}

func timeUnitString(u arrow.TimeUnit) string {
	switch u {
	case arrow.Second:
		return "s"
	case arrow.Millisecond:
		return "ms"
	case arrow.Microsecond:
		return "us"
	default:
		return "ns"
	}
}

func parseTimeUnit(s string) (arrow.TimeUnit, error) {
	switch s {
	case "s":
		return arrow.Second, nil
	case "ms":
		return arrow.Millisecond, nil
	case "us":
		return arrow.Microsecond, nil
	case "ns":
		return arrow.Nanosecond, nil
	}
	return 0, fmt.Errorf("%w: unknown time unit %q", ErrInvalidSchema, s)
}

// logicalTypeOf is Lance's spelling of an Arrow type.
func logicalTypeOf(dt arrow.DataType) (string, error) {
	switch t := dt.(type) {
	case *arrow.NullType:
		return "null", nil
	case *arrow.BooleanType:
		return "bool", nil
	case *arrow.Int8Type:
		return "int8", nil
	case *arrow.Uint8Type:
		return "uint8", nil
	case *arrow.Int16Type:
		return "int16", nil
	case *arrow.Uint16Type:
		return "uint16", nil
	case *arrow.Int32Type:
		return "int32", nil
	case *arrow.Uint32Type:
		return "uint32", nil
	case *arrow.Int64Type:
		return "int64", nil
	case *arrow.Uint64Type:
		return "uint64", nil
	case *arrow.Float16Type:
		return "halffloat", nil
	case *arrow.Float32Type:
		return "float", nil
	case *arrow.Float64Type:
		return "double", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal:128:%d:%d", t.Precision, t.Scale), nil
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal:256:%d:%d", t.Precision, t.Scale), nil
	case *arrow.StringType:
		return "string", nil
	case *arrow.BinaryType:
		return "binary", nil
	case *arrow.LargeStringType:
		return "large_string", nil
	case *arrow.LargeBinaryType:
		return "large_binary", nil
	case *arrow.Date32Type:
		return "date32:day", nil
	case *arrow.Date64Type:
		return "date64:ms", nil
	case *arrow.Time32Type:
		return "time32:" + timeUnitString(t.Unit), nil
	case *arrow.Time64Type:
		return "time64:" + timeUnitString(t.Unit), nil
	case *arrow.TimestampType:
		tz := t.TimeZone
		if tz == "" {
			tz = "-"
		}
		return "timestamp:" + timeUnitString(t.Unit) + ":" + tz, nil
	case *arrow.DurationType:
		return "duration:" + timeUnitString(t.Unit), nil
	case *arrow.StructType:
		return "struct", nil
	case *arrow.DictionaryType:
		v, err := logicalTypeOf(t.ValueType)
		if err != nil {
			return "", err
		}
		k, err := logicalTypeOf(t.IndexType)
		if err != nil {
			return "", err
		}
		return "dict:" + v + ":" + k + ":false", nil
	case *arrow.ListType:
		if t.Elem().ID() == arrow.STRUCT {
			return "list.struct", nil
		}
		return "list", nil
	case *arrow.LargeListType:
		if t.Elem().ID() == arrow.STRUCT {
			return "large_list.struct", nil
		}
		return "large_list", nil
	case *arrow.FixedSizeListType:
		if t.ElemField().Metadata.FindKey(ArrowExtensionNameKey) >= 0 {
			if name, _ := t.ElemField().Metadata.GetValue(ArrowExtensionNameKey); name == "lance.bfloat16" {
				return fmt.Sprintf("fixed_size_list:lance.bfloat16:%d", t.Len()), nil
			}
		}
		inner, err := logicalTypeOf(t.Elem())
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("fixed_size_list:%s:%d", inner, t.Len()), nil
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("fixed_size_binary:%d", t.ByteWidth), nil
	}
	return "", fmt.Errorf("%w: unsupported Arrow type %s", ErrInvalidSchema, dt)
}

// parseLogicalType maps a leaf logical type (anything but struct and lists,
// whose types depend on their children) to an Arrow type.
func parseLogicalType(lt string) (arrow.DataType, error) {
	if n := strings.Count(lt, "fixed_size_list:") + strings.Count(lt, "dict:"); n > MaxNestingDepth {
		return nil, fmt.Errorf("%w: logical type nests deeper than %d levels", ErrInvalidSchema, MaxNestingDepth)
	}
	return parseLeafType(lt)
}

func parseLeafType(lt string) (arrow.DataType, error) {
	switch lt {
	case "null":
		return arrow.Null, nil
	case "bool":
		return arrow.FixedWidthTypes.Boolean, nil
	case "int8":
		return arrow.PrimitiveTypes.Int8, nil
	case "uint8":
		return arrow.PrimitiveTypes.Uint8, nil
	case "int16":
		return arrow.PrimitiveTypes.Int16, nil
	case "uint16":
		return arrow.PrimitiveTypes.Uint16, nil
	case "int32":
		return arrow.PrimitiveTypes.Int32, nil
	case "uint32":
		return arrow.PrimitiveTypes.Uint32, nil
	case "int64":
		return arrow.PrimitiveTypes.Int64, nil
	case "uint64":
		return arrow.PrimitiveTypes.Uint64, nil
	case "halffloat":
		return arrow.FixedWidthTypes.Float16, nil
	case "float":
		return arrow.PrimitiveTypes.Float32, nil
	case "double":
		return arrow.PrimitiveTypes.Float64, nil
	case "string":
		return arrow.BinaryTypes.String, nil
	case "binary":
		return arrow.BinaryTypes.Binary, nil
	case "large_string":
		return arrow.BinaryTypes.LargeString, nil
	case "large_binary", "json":
		return arrow.BinaryTypes.LargeBinary, nil
	case "date32:day":
		return arrow.FixedWidthTypes.Date32, nil
	case "date64:ms":
		return arrow.FixedWidthTypes.Date64, nil
	case "time32:s":
		return arrow.FixedWidthTypes.Time32s, nil
	case "time32:ms":
		return arrow.FixedWidthTypes.Time32ms, nil
	case "time64:us":
		return arrow.FixedWidthTypes.Time64us, nil
	case "time64:ns":
		return arrow.FixedWidthTypes.Time64ns, nil
	case "duration:s":
		return arrow.FixedWidthTypes.Duration_s, nil
	case "duration:ms":
		return arrow.FixedWidthTypes.Duration_ms, nil
	case "duration:us":
		return arrow.FixedWidthTypes.Duration_us, nil
	case "duration:ns":
		return arrow.FixedWidthTypes.Duration_ns, nil
	}
	head, rest, _ := strings.Cut(lt, ":")
	switch head {
	case "timestamp":
		unit, tz, ok := strings.Cut(rest, ":")
		if !ok {
			break
		}
		u, err := parseTimeUnit(unit)
		if err != nil {
			return nil, err
		}
		if tz == "-" {
			tz = ""
		}
		return &arrow.TimestampType{Unit: u, TimeZone: tz}, nil
	case "decimal":
		parts := strings.Split(rest, ":")
		if len(parts) != 3 {
			break
		}
		p, err1 := strconv.ParseInt(parts[1], 10, 32)
		sc, err2 := strconv.ParseInt(parts[2], 10, 32)
		if err1 != nil || err2 != nil {
			break
		}
		switch parts[0] {
		case "128":
			if err := checkDecimal(lt, p, sc, MaxDecimal128Precision); err != nil {
				return nil, err
			}
			return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(sc)}, nil
		case "256":
			if err := checkDecimal(lt, p, sc, MaxDecimal256Precision); err != nil {
				return nil, err
			}
			return &arrow.Decimal256Type{Precision: int32(p), Scale: int32(sc)}, nil
		}
	case "fixed_size_list":
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.ParseInt(rest[i+1:], 10, 32)
		if err != nil {
			break
		}
		if err := checkFixedLen(lt, n); err != nil {
			return nil, err
		}
		inner := rest[:i]
		if inner == "lance.bfloat16" {
			md := arrow.NewMetadata([]string{ArrowExtensionNameKey, ArrowExtensionMetadataKey}, []string{"lance.bfloat16", ""})
			return arrow.FixedSizeListOfField(int32(n), arrow.Field{Name: "item", Type: &arrow.FixedSizeBinaryType{ByteWidth: 2}, Nullable: true, Metadata: md}), nil
		}
		et, err := parseLeafType(inner)
		if err != nil {
			return nil, err
		}
		return arrow.FixedSizeListOfField(int32(n), arrow.Field{Name: "item", Type: et, Nullable: true}), nil
	case "fixed_size_binary":
		n, err := strconv.ParseInt(rest, 10, 32)
		if err != nil {
			break
		}
		if err := checkFixedLen(lt, n); err != nil {
			return nil, err
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: int(n)}, nil
	case "dict":
		parts := strings.Split(rest, ":")
		if len(parts) != 3 {
			break
		}
		vt, err := parseLeafType(parts[0])
		if err != nil {
			return nil, err
		}
		kt, err := parseLeafType(parts[1])
		if err != nil {
			return nil, err
		}
		return &arrow.DictionaryType{IndexType: kt, ValueType: vt}, nil
	}
	return nil, fmt.Errorf("%w: unsupported logical type %q", ErrInvalidSchema, lt)
}

func metadataOf(m map[string]string) arrow.Metadata {
	if len(m) == 0 {
		return arrow.Metadata{}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return arrow.NewMetadata(keys, vals)
}

func mapOf(md arrow.Metadata) map[string]string {
	if md.Len() == 0 {
		return nil
	}
	out := make(map[string]string, md.Len())
	for i, k := range md.Keys() {
		out[k] = md.Values()[i]
	}
	return out
}
