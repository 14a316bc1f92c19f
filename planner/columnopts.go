package planner

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/index/inverted"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/storage"
)

// Column options live in the Lance schema as field metadata under a
// "lancecat:" prefix, so they travel with the table (Lance and LanceDB keep
// field metadata they do not know, and ignore it):
//
//	lancecat:auto_increment = "true"   AUTO_INCREMENT / SERIAL: lancecat assigns values on INSERT
//	lancecat:default        = SQL text DEFAULT: a literal (NULL, 42, 'x', X'00') or CURRENT_TIMESTAMP[(p)]
//	lancecat:unique         = name     UNIQUE: the name of the column's unique index; lancecat's
//	                                   writes refuse a value the column already holds
//
// Other writers (LanceDB, the Lance libraries) see these keys but neither
// assign, default nor enforce anything.
const (
	AutoIncrementKey = "lancecat:auto_increment"
	DefaultKey       = "lancecat:default"
	UniqueKey        = "lancecat:unique"
)

// columnOptionMeta returns the field metadata for a column's AUTO_INCREMENT
// and DEFAULT options, checking that a literal default fits the column type.
func columnOptionMeta(cd sqlparse.ColumnDef, f arrow.Field) (map[string]string, error) {
	md := map[string]string{}
	if cd.AutoIncrement {
		if !isIntegerType(f.Type) {
			return nil, errorf(catalog.CodeInvalidInput, "AUTO_INCREMENT column %s must have an integer type", sqlparse.QuoteIdent(cd.Name))
		}
		md[AutoIncrementKey] = "true"
	}
	if d := cd.Default; d != nil {
		if !d.CurrentTimestamp {
			if d.Value == nil && !cd.Nullable {
				return nil, errorf(catalog.CodeInvalidInput, "column %s is NOT NULL and cannot default to NULL", sqlparse.QuoteIdent(cd.Name))
			}
			b := array.NewBuilder(memory.DefaultAllocator, f.Type)
			err := sqltypes.Append(b, f, d.Value)
			b.Release()
			if err != nil {
				return nil, errorf(catalog.CodeInvalidInput, "DEFAULT %s of column %s (%s): %v", d.SQL(), sqlparse.QuoteIdent(cd.Name), cd.Type.SQL, err)
			}
		} else if _, ok := f.Type.(*arrow.TimestampType); !ok {
			return nil, errorf(catalog.CodeInvalidInput, "DEFAULT CURRENT_TIMESTAMP needs a DATETIME or TIMESTAMP column; %s is %s", sqlparse.QuoteIdent(cd.Name), cd.Type.SQL)
		}
		md[DefaultKey] = d.SQL()
	}
	return md, nil
}

func isIntegerType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// isAutoIncrement reports whether lancecat assigns the column's values.
func isAutoIncrement(f arrow.Field) bool {
	v, _ := sqltypes.FieldMeta(f, AutoIncrementKey)
	return v == "true"
}

// isUnique reports whether lancecat's writes keep the column's values unique.
func isUnique(f arrow.Field) bool {
	_, ok := sqltypes.FieldMeta(f, UniqueKey)
	return ok
}

// uniqueIndexName is the name of the column's unique index ("" if none).
func uniqueIndexName(f arrow.Field) string {
	v, _ := sqltypes.FieldMeta(f, UniqueKey)
	return v
}

// columnDefault reads a field's DEFAULT (nil when it has none).
func columnDefault(f arrow.Field) (*sqlparse.ColumnDefault, error) {
	text, ok := sqltypes.FieldMeta(f, DefaultKey)
	if !ok {
		return nil, nil
	}
	d, err := sqlparse.ParseColumnDefault(text)
	if err != nil {
		return nil, errorf(catalog.CodeInvalidInput, "column %s has an unreadable %s: %v", sqlparse.QuoteIdent(f.Name), DefaultKey, err)
	}
	return &d, nil
}

// appendDefault appends a column's default; now is the statement's time
// (one value for every row of a statement, as in MySQL).
func appendDefault(fb array.Builder, f arrow.Field, d *sqlparse.ColumnDefault, now time.Time) error {
	if !d.CurrentTimestamp {
		return sqltypes.Append(fb, f, d.Value)
	}
	tt, ok := f.Type.(*arrow.TimestampType)
	b, okb := fb.(*array.TimestampBuilder)
	if !ok || !okb {
		return fmt.Errorf("CURRENT_TIMESTAMP default on a %s column", typeName(f))
	}
	// DATETIME has no zone: its wall clock is UTC, the session time zone
	// lancecat uses everywhere.
	ts, err := arrow.TimestampFromTime(now.UTC().Truncate(tt.Unit.Multiplier()), tt.Unit)
	if err != nil {
		return err
	}
	b.Append(ts)
	return nil
}

// defaultText is COLUMN_DEFAULT / DESCRIBE's Default for a field as displayed
// (secrets redacted): nil when it has none (or defaults to NULL).
func defaultText(f arrow.Field) any {
	d, err := columnDefault(f)
	if err != nil || d == nil {
		return nil
	}
	if t, ok := d.Text(); ok {
		return storage.Redact(t) // a default may be a signed URL
	}
	return nil
}

// extraText is DESCRIBE's Extra / information_schema.columns.EXTRA.
func extraText(f arrow.Field) string {
	if isAutoIncrement(f) {
		return "auto_increment"
	}
	if d, _ := columnDefault(f); d != nil && d.CurrentTimestamp {
		return "DEFAULT_GENERATED"
	}
	return ""
}

// columnKey is DESCRIBE's Key: PRI, UNI or MUL (first column of a
// non-unique index), as MySQL shows it.
func columnKey(f arrow.Field, indexed map[string]bool) string {
	if _, ok := primaryKeyPosition(f); ok {
		return "PRI"
	}
	if isUnique(f) {
		return "UNI"
	}
	if indexed[f.Name] {
		return "MUL"
	}
	return ""
}

// indexNames picks the names of CREATE TABLE's index clauses: as written,
// or, for unnamed ones, the column's name with _2, _3... on collision, as
// MySQL does.
func indexNames(defs []sqlparse.IndexDef) ([]string, error) {
	used := map[string]bool{}
	names := make([]string, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			continue
		}
		if used[strings.ToLower(d.Name)] {
			return nil, errorf(catalog.CodeInvalidInput, "duplicate index name %s", sqlparse.QuoteIdent(d.Name))
		}
		used[strings.ToLower(d.Name)] = true
		names[i] = d.Name
	}
	for i, d := range defs {
		if d.Name != "" {
			continue
		}
		name := d.Column
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s_%d", d.Column, n)
		}
		used[strings.ToLower(name)] = true
		names[i] = name
	}
	return names, nil
}

// declaredIndex is one index of CREATE TABLE, resolved.
type declaredIndex struct {
	name, column string
	kind         index.Kind
}

// resolveIndexes checks CREATE TABLE's index clauses against the schema and
// marks the columns of unique ones in the schema.
func resolveIndexes(st *sqlparse.CreateTable, schema *arrow.Schema) (*arrow.Schema, []declaredIndex, error) {
	if len(st.Indexes) == 0 {
		return schema, nil, nil
	}
	names, err := indexNames(st.Indexes)
	if err != nil {
		return nil, nil, err
	}
	fields := schema.Fields()
	var out []declaredIndex
	for i, d := range st.Indexes {
		if d.Using == "INVERTED" {
			k := schema.FieldIndices(d.Column)
			if len(k) != 1 || (fields[k[0]].Type.ID() != arrow.STRING && fields[k[0]].Type.ID() != arrow.LARGE_STRING) {
				return nil, nil, errorf(catalog.CodeInvalidInput, "FULLTEXT index %s needs a text column", sqlparse.QuoteIdent(names[i]))
			}
			out = append(out, declaredIndex{name: names[i], column: fields[k[0]].Name, kind: index.KindInverted})
			continue
		}
		kind, ok := indexKinds[d.Using]
		if !ok {
			return nil, nil, errorf(catalog.CodeUnsupported, "not supported: index type %s (Lance scalar indices: BTREE, BITMAP, LABEL_LIST)", d.Using)
		}
		k := schema.FieldIndices(d.Column)
		if len(k) != 1 {
			return nil, nil, errorf(catalog.CodeTableColumnNotFound, "index %s: no column %s", sqlparse.QuoteIdent(names[i]), sqlparse.QuoteIdent(d.Column))
		}
		if err := checkIndexable(kind, fields[k[0]]); err != nil {
			return nil, nil, err
		}
		if d.Unique {
			if isUnique(fields[k[0]]) {
				return nil, nil, errorf(catalog.CodeInvalidInput, "column %s has two UNIQUE indices", sqlparse.QuoteIdent(d.Column))
			}
			fields[k[0]] = sqltypes.WithFieldMeta(fields[k[0]], UniqueKey, names[i])
		}
		out = append(out, declaredIndex{name: names[i], column: fields[k[0]].Name, kind: kind})
	}
	md := schema.Metadata()
	return arrow.NewSchema(fields, &md), out, nil
}

// buildDeclaredIndexes builds CREATE TABLE's indices on the new (empty)
// table and registers them in one commit of its dataset.
func (s *Session) buildDeclaredIndexes(ctx context.Context, id catalog.Ident, defs []declaredIndex) error {
	if len(defs) == 0 {
		return nil
	}
	ds, err := s.openTableID(ctx, id)
	if err != nil {
		return err
	}
	var metas []*dataset.IndexMetadata
	var dirs []string
	cleanup := func() {
		for _, d := range dirs {
			_, _ = ds.Store().DeletePrefix(context.WithoutCancel(ctx), path.Join(ds.Dir(), "_indices", d)+"/")
		}
	}
	for _, d := range defs {
		dirID := uuid.NewString()
		dirs = append(dirs, dirID)
		var meta *dataset.IndexMetadata
		var err error
		if d.kind == index.KindInverted {
			meta, err = inverted.Build(ctx, ds, d.column, tokenize.DefaultParams(), inverted.BuildOptions{Name: d.name, UUID: dirID, SpillArea: s.ftsSpillArea()})
		} else {
			meta, err = index.Build(ctx, ds, d.column, d.kind, index.BuildOptions{Name: d.name, UUID: dirID})
		}
		if err != nil {
			cleanup()
			return indexError(id, d.name, err)
		}
		metas = append(metas, meta)
	}
	if _, err := ds.CommitIndices(ctx, metas, nil); err != nil {
		cleanup()
		return indexError(id, defs[0].name, err)
	}
	return nil
}

// describedDataset opens the dataset of a described table, or returns nil
// for a declared table without data (or a location with no dataset yet).
func (s *Session) describedDataset(ctx context.Context, d catalog.TableDescription) (*dataset.Dataset, error) {
	if s.opts.Store == nil || d.DeclaredOnly || d.Location == "" {
		return nil, nil
	}
	ds, err := dataset.Open(ctx, s.opts.Store, d.Location, dataset.OpenOptions{})
	if errors.Is(err, dataset.ErrNotFound) {
		return nil, nil
	}
	return ds, err
}

// tableIndices describes the Lance indices of a table (none for a declared
// table without data).
func (s *Session) tableIndices(ctx context.Context, d catalog.TableDescription) ([]index.Info, error) {
	ds, err := s.describedDataset(ctx, d)
	if err != nil || ds == nil {
		return nil, err
	}
	return index.Describe(ds), nil
}

// indexedColumns are the columns some Lance index covers first.
func (s *Session) indexedColumns(ctx context.Context, d catalog.TableDescription) (map[string]bool, error) {
	infos, err := s.tableIndices(ctx, d)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, info := range infos {
		if len(info.Columns) > 0 {
			out[info.Columns[0]] = true
		}
	}
	return out, nil
}

// indexClauses renders the scalar indices SQL can declare as CREATE TABLE
// clauses: UNIQUE KEY for a column's unique index, KEY ... USING kind
// otherwise. Vector and full-text indices have no clause (SHOW INDEX lists
// them).
func indexClauses(schema *arrow.Schema, infos []index.Info) []string {
	var out []string
	for _, info := range infos {
		if len(info.Columns) != 1 {
			continue
		}
		k, ok := indexKindNames[info.Kind]
		if !ok {
			continue
		}
		col := info.Columns[0]
		word := "KEY"
		if fs, _ := schema.FieldsByName(col); len(fs) == 1 && uniqueIndexName(fs[0]) == info.Name {
			word = "UNIQUE KEY"
		}
		clause := word + " " + sqlparse.QuoteIdent(info.Name) + " (" + sqlparse.QuoteIdent(col) + ")"
		if info.Kind != index.KindBTree {
			clause += " USING " + k
		}
		out = append(out, clause)
	}
	return out
}

// indexKindNames are the USING words of the kinds CREATE INDEX builds.
var indexKindNames = map[index.Kind]string{index.KindBTree: "BTREE", index.KindBitmap: "BITMAP", index.KindLabelList: "LABEL_LIST"}
