package planner

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Scalar indices on user tables:
//
//	CREATE INDEX [IF NOT EXISTS] name ON [ns.]t (col) [USING BTREE|BITMAP|LABEL_LIST]
//	DROP INDEX [IF EXISTS] name ON [ns.]t
//
// CREATE INDEX builds a Lance scalar index (lance/index) over every
// fragment of the table's latest version and commits a new version of the
// table's dataset that registers it; DROP INDEX commits a version without
// it (the index files stay for older versions, as in Lance). Neither
// touches the catalog's `__manifest`, so both are refused inside a
// transaction. BTREE (the default) and BITMAP index scalar columns
// (integers, floats, strings, binaries, booleans, dates and times);
// LABEL_LIST indexes list columns (for array_has_any / array_has_all).
// SELECT uses BTREE and BITMAP indices for =, IN and LIKE 'prefix%'
// (see ScalarIndexes); SHOW INDEX lists them.

// indexKinds maps the USING words to index kinds.
var indexKinds = map[string]index.Kind{"": index.KindBTree, "BTREE": index.KindBTree, "BITMAP": index.KindBitmap, "LABEL_LIST": index.KindLabelList}

// indexTarget opens the table of an index statement.
func (s *Session) indexTarget(ctx context.Context, name sqlparse.Name) (catalog.Ident, *dataset.Dataset, error) {
	if len(name) >= 2 && strings.EqualFold(name[0], "information_schema") {
		return nil, nil, errorf(catalog.CodeInvalidInput, "information_schema views have no indices")
	}
	return s.openTableData(ctx, name)
}

func (s *Session) createIndex(ctx context.Context, st *sqlparse.CreateIndex) (*Result, error) {
	if st.Vector {
		return s.createVectorIndex(ctx, st) // vectorddl.go
	}
	if st.Using == "INVERTED" || st.Using == "FULLTEXT" {
		return s.createFullTextIndex(ctx, st) // fts.go
	}
	kind, ok := indexKinds[st.Using]
	if !ok {
		return nil, errorf(catalog.CodeUnsupported, "not supported: index type %s (Lance scalar indices: BTREE, BITMAP, LABEL_LIST)", st.Using)
	}
	id, ds, err := s.indexTarget(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	for _, m := range ds.Indices() {
		if m.Name == st.Name {
			if st.IfNotExists {
				return okResult(0), nil
			}
			return nil, errorf(catalog.CodeTableIndexAlreadyExists, "table %s already has an index named %s", displayName(id), sqlparse.QuoteIdent(st.Name))
		}
	}
	var field *arrow.Field
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	for i, f := range schema.Fields() {
		if strings.EqualFold(f.Name, st.Column) {
			field = &schema.Fields()[i]
			break
		}
	}
	if field == nil {
		return nil, errorf(catalog.CodeTableColumnNotFound, "table %s has no column %s", displayName(id), sqlparse.QuoteIdent(st.Column))
	}
	if err := checkIndexable(kind, *field); err != nil {
		return nil, err
	}
	if st.Unique {
		if err := checkColumnUnique(ctx, ds, *field, st.Name); err != nil {
			return nil, err
		}
	}
	// The index directory is named first, so a failed build or commit can
	// remove what it wrote.
	dirID := uuid.NewString()
	cleanup := func() {
		_, _ = ds.Store().DeletePrefix(context.WithoutCancel(ctx), path.Join(ds.Dir(), "_indices", dirID)+"/")
	}
	meta, err := index.Build(ctx, ds, field.Name, kind, index.BuildOptions{Name: st.Name, UUID: dirID})
	if err != nil {
		cleanup()
		return nil, indexError(id, st.Name, err)
	}
	ds, err = ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, nil)
	if err != nil {
		cleanup()
		return nil, indexError(id, st.Name, err)
	}
	if st.Unique {
		// After the index commit: a failure here leaves an ordinary index.
		if err := markUnique(ctx, id, ds, field.Name, st.Name); err != nil {
			return nil, err
		}
	}
	return okResult(0), nil
}

// checkIndexable says why a column of type f cannot carry an index of kind.
func checkIndexable(kind index.Kind, f arrow.Field) error {
	t := f.Type
	if kind == index.KindLabelList {
		lt, ok := t.(*arrow.ListType)
		if !ok {
			return errorf(catalog.CodeInvalidInput, "a LABEL_LIST index needs a list column; %s is %s (use BTREE or BITMAP)", sqlparse.QuoteIdent(f.Name), typeName(f))
		}
		t = lt.Elem()
	}
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.BOOL,
		arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64:
		if sqltypes.IsJSON(f) {
			break
		}
		return nil
	}
	if kind == index.KindLabelList {
		return errorf(catalog.CodeUnsupported, "not supported: a LABEL_LIST index on %s (%s): list elements must be integers, floats, strings, binaries, booleans, dates or times", sqlparse.QuoteIdent(f.Name), typeName(f))
	}
	if _, ok := t.(arrow.ListLikeType); ok {
		return errorf(catalog.CodeInvalidInput, "a %s index needs a scalar column; %s is %s (use LABEL_LIST for lists)", kind, sqlparse.QuoteIdent(f.Name), typeName(f))
	}
	return errorf(catalog.CodeUnsupported, "not supported: a %s index on %s (%s): indexable types are integers, floats, strings, binaries, booleans, dates and times", kind, sqlparse.QuoteIdent(f.Name), typeName(f))
}

// indexError maps lance/index and lance/dataset errors to catalog codes.
func indexError(id catalog.Ident, name string, err error) error {
	code := catalog.CodeInternal
	switch {
	case errors.Is(err, index.ErrUnsupported), errors.Is(err, dataset.ErrUnsupported), errors.Is(err, dataset.ErrReadOnlyFeature):
		code = catalog.CodeUnsupported
	case errors.Is(err, dataset.ErrCommitConflict):
		code = catalog.CodeConcurrentModification
	}
	return &catalog.Error{Code: code, Message: fmt.Sprintf("index %s on %s: %v", sqlparse.QuoteIdent(name), displayName(id), err), Cause: err}
}

func (s *Session) dropIndex(ctx context.Context, st *sqlparse.DropIndex) (*Result, error) {
	id, ds, err := s.indexTarget(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, m := range ds.Indices() {
		if m.Name == st.Name {
			removed = append(removed, m.UUID)
		}
	}
	if len(removed) == 0 {
		if st.IfExists {
			return okResult(0), nil
		}
		return nil, errorf(catalog.CodeTableIndexNotFound, "table %s has no index named %s", displayName(id), sqlparse.QuoteIdent(st.Name))
	}
	ds, err = ds.CommitIndices(ctx, nil, removed)
	if err != nil {
		return nil, indexError(id, st.Name, err)
	}
	// Dropping a UNIQUE index ends its enforcement.
	for _, f := range ds.Schema().Fields {
		if f.Metadata[UniqueKey] == st.Name {
			if _, err := ds.UpdateFieldMetadata(ctx, f.ID, nil, []string{UniqueKey}); err != nil {
				return nil, fmt.Errorf("drop UNIQUE from %s: %w", sqlparse.QuoteIdent(f.Name), err)
			}
		}
	}
	return okResult(0), nil
}

// lanceIndexRows lists the Lance scalar indices of a table for SHOW INDEX
// (nothing for a declared table without data).
func (s *Session) lanceIndexRows(ctx context.Context, id catalog.Ident, d catalog.TableDescription) ([][]any, error) {
	ds, err := s.describedDataset(ctx, d)
	if err != nil || ds == nil {
		return nil, err
	}
	var rows [][]any
	for _, info := range index.Describe(ds) {
		typ, comment := info.Kind.String(), fmt.Sprintf("Lance scalar index (%d segment(s))", len(info.Segments))
		switch info.Kind {
		case index.KindVector, index.KindInverted:
			// The exact type (IVF_PQ, ...) is in the first segment's files.
			for _, m := range ds.Indices() {
				if m.Name == info.Name {
					if typ, err = index.TypeName(ctx, ds, m); err != nil {
						return nil, err
					}
					break
				}
			}
			what := "full-text"
			if info.Kind == index.KindVector {
				what = "vector"
			}
			comment = fmt.Sprintf("Lance %s index (%d segment(s))", what, len(info.Segments))
		}
		for i, c := range info.Columns {
			null := ""
			nonUnique := int64(1)
			if f := ds.Schema().Field(c); f != nil {
				if f.Nullable {
					null = "YES"
				}
				if f.Metadata[UniqueKey] == info.Name {
					nonUnique = 0
				}
			}
			rows = append(rows, []any{id.Name(), nonUnique, info.Name, int64(i + 1), c, null, typ,
				comment, fragList(info.Covered), fragList(info.Uncovered)})
		}
	}
	return rows, nil
}
