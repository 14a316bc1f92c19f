package planner

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Field metadata keys the planner writes and reads.
const (
	// CommentKey holds a column comment (field metadata) or a table or
	// namespace comment (property).
	CommentKey = "comment"
)

// fieldForColumn maps a SQL column definition to the Arrow field stored in
// the Lance schema: the type's field (sqltypes.Type.Field, with its Lance
// metadata) plus the comment and the column options (columnopts.go).
func fieldForColumn(cd sqlparse.ColumnDef) (arrow.Field, error) {
	if cd.Type.Arrow == nil {
		return arrow.Field{}, errorf(catalog.CodeUnsupported, "not supported: column type %s", cd.Type.SQL)
	}
	md := cd.Type.Metadata()
	if cd.Comment != nil {
		md[CommentKey] = *cd.Comment
	}
	opts, err := columnOptionMeta(cd, cd.Type.Field(cd.Name, cd.Nullable))
	if err != nil {
		return arrow.Field{}, err
	}
	for k, v := range opts {
		md[k] = v
	}
	f := arrow.Field{Name: cd.Name, Type: cd.Type.Arrow, Nullable: cd.Nullable}
	if len(md) > 0 {
		f.Metadata = sqltypes.MetadataOf(md)
	}
	return f, nil
}

// typeName spells the type of a field in lancecat's SQL (sqltypes.Name).
func typeName(f arrow.Field) string { return sqltypes.Name(f, sqlparse.Quoting) }

// primaryKeyPosition returns the field's position in the unenforced primary
// key, if it is part of it.
func primaryKeyPosition(f arrow.Field) (int, bool) {
	if v, ok := sqltypes.FieldMeta(f, lanceschema.PrimaryKeyPositionKey); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, true
		}
		return -1, true
	}
	if v, ok := sqltypes.FieldMeta(f, lanceschema.PrimaryKeyKey); ok {
		switch strings.ToLower(v) {
		case "true", "1", "yes":
			return -1, true
		}
	}
	return 0, false
}

// primaryKeyOf lists the primary-key columns of schema in key order.
func primaryKeyOf(schema *arrow.Schema) []string {
	type pk struct {
		name string
		pos  int
	}
	var keys []pk
	for i, f := range schema.Fields() {
		pos, ok := primaryKeyPosition(f)
		if !ok {
			continue
		}
		if pos < 0 {
			pos = 1<<30 + i
		}
		keys = append(keys, pk{f.Name, pos})
	}
	for i := 1; i < len(keys); i++ { // insertion sort: stable and tiny
		for j := i; j > 0 && keys[j].pos < keys[j-1].pos; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}
