package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/index"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// ---- namespaces ----

func (s *Session) namespaceExists(ctx context.Context, ns catalog.Ident) (bool, error) {
	if s.tx != nil {
		if exists, touched := s.tx.batch.PendingNamespace(ns); touched {
			return exists, nil
		}
	}
	return s.cat.NamespaceExists(ctx, ns)
}

func (s *Session) tableExists(ctx context.Context, id catalog.Ident) (bool, error) {
	if s.tx != nil {
		if exists, touched := s.tx.batch.PendingTable(id); touched {
			return exists, nil
		}
	}
	return s.cat.TableExists(ctx, id)
}

func (s *Session) use(ctx context.Context, st *sqlparse.Use) (*Result, error) {
	ns := namespaceIdent(st.Namespace)
	ok, err := s.namespaceExists(ctx, ns)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(catalog.CodeNamespaceNotFound, "namespace %s does not exist", displayName(ns))
	}
	s.ns = ns
	return okResult(0), nil
}

// propertiesOf merges a COMMENT clause and a property list, refusing
// duplicate keys.
func propertiesOf(comment *string, props []sqlparse.Property) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range props {
		if p.Key == "" {
			return nil, errorf(catalog.CodeInvalidInput, "property key must not be empty")
		}
		if _, dup := out[p.Key]; dup {
			return nil, errorf(catalog.CodeInvalidInput, "property %s given twice", quoteString(p.Key))
		}
		out[p.Key] = p.Value
	}
	if comment != nil {
		if _, dup := out[CommentKey]; dup {
			return nil, errorf(catalog.CodeInvalidInput, "both COMMENT and property 'comment' given")
		}
		out[CommentKey] = *comment
	}
	return out, nil
}

func (s *Session) createSchema(ctx context.Context, st *sqlparse.CreateSchema) (*Result, error) {
	ns := namespaceIdent(st.Name)
	props, err := propertiesOf(st.Comment, st.Properties)
	if err != nil {
		return nil, err
	}
	if s.tx != nil {
		if st.IfNotExists {
			if ok, err := s.namespaceExists(ctx, ns); err != nil {
				return nil, err
			} else if ok {
				s.databaseExistsNote(ns)
				return okResult(0), nil
			}
		}
		s.tx.batch.CreateNamespace(ns, props)
		return okResult(0), nil
	}
	err = s.cat.CreateNamespace(ctx, ns, props)
	if err != nil && st.IfNotExists && errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		s.databaseExistsNote(ns)
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return okResult(0), nil
}

func (s *Session) dropSchema(ctx context.Context, st *sqlparse.DropSchema) (*Result, error) {
	ns := namespaceIdent(st.Name)
	opts := catalog.DropNamespaceOptions{Cascade: st.Cascade, IfExists: st.IfExists}
	if st.IfExists {
		// MariaDB's note for a database that is not there (checked first:
		// the drop itself says nothing of it).
		if ok, err := s.namespaceExists(ctx, ns); err != nil {
			return nil, err
		} else if !ok {
			s.warn(expr.LevelNote, 1008, "Can't drop database '%s'; database doesn't exist", displayName(ns))
		}
	}
	if s.tx != nil {
		s.tx.batch.DropNamespace(ns, opts)
		return okResult(0), nil
	}
	if err := s.cat.DropNamespace(ctx, ns, opts); err != nil {
		return nil, err
	}
	if len(ns) > 0 && hasPrefix(s.ns, ns) {
		// As MySQL does when the current database is dropped.
		s.ns = catalog.Ident{}
	}
	return okResult(0), nil
}

func (s *Session) alterSchema(ctx context.Context, st *sqlparse.AlterSchema) (*Result, error) {
	ns := namespaceIdent(st.Name)
	props, err := propertiesOf(nil, st.SetProperties)
	if err != nil {
		return nil, err
	}
	if len(props) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "ALTER SCHEMA needs at least one property")
	}
	if s.tx != nil {
		s.tx.batch.AlterNamespaceProperties(ns, props, nil)
		return okResult(0), nil
	}
	if err := s.cat.AlterNamespaceProperties(ctx, ns, props, nil); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

// ---- tables ----

// schemaFor builds the Arrow schema of CREATE TABLE's column list.
func schemaFor(st *sqlparse.CreateTable) (*arrow.Schema, error) {
	if len(st.Columns) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "CREATE TABLE %s needs at least one column", sqlparse.Name(st.Name))
	}
	index := map[string]int{}
	fields := make([]arrow.Field, 0, len(st.Columns))
	for i, cd := range st.Columns {
		if cd.Name == "" {
			return nil, errorf(catalog.CodeInvalidInput, "column name must not be empty")
		}
		if _, dup := index[cd.Name]; dup {
			return nil, errorf(catalog.CodeInvalidInput, "duplicate column name %s", sqlparse.QuoteIdent(cd.Name))
		}
		index[cd.Name] = i
		f, err := fieldForColumn(cd)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	seen := map[string]bool{}
	for pos, name := range st.PrimaryKey {
		i, ok := index[name]
		if !ok {
			return nil, errorf(catalog.CodeInvalidInput, "primary key column %s is not a column of the table", sqlparse.QuoteIdent(name))
		}
		if seen[name] {
			return nil, errorf(catalog.CodeInvalidInput, "primary key column %s given twice", sqlparse.QuoteIdent(name))
		}
		seen[name] = true
		f := fields[i]
		if st.Columns[i].Type.Kind == sqltypes.KindJSON || st.Columns[i].Type.Kind == sqltypes.KindVector || st.Columns[i].Type.Kind == sqltypes.KindMultiVector {
			return nil, errorf(catalog.CodeInvalidInput, "column %s of type %s cannot be part of the primary key", sqlparse.QuoteIdent(name), st.Columns[i].Type.SQL)
		}
		// Primary key columns are NOT NULL, as in MySQL (Lance requires
		// non-nullable primary key fields).
		f.Nullable = false
		fields[i] = sqltypes.WithFieldMeta(f, lanceschema.PrimaryKeyPositionKey, itoa(pos))
	}
	return arrow.NewSchema(fields, nil), nil
}

func (s *Session) createTable(ctx context.Context, st *sqlparse.CreateTable) (*Result, error) {
	if st.Query != nil {
		return s.createTableAsSelect(ctx, st) // ctas.go
	}
	id, err := s.tableIdent(st.Name)
	if err != nil {
		return nil, err
	}
	var schema *arrow.Schema
	var props map[string]string
	var indexes []declaredIndex // CREATE TABLE's index clauses, built once the table exists
	if len(st.Like) > 0 {
		src, err := s.tableIdent(st.Like)
		if err != nil {
			return nil, err
		}
		d, err := s.cat.DescribeTable(ctx, src, catalog.DescribeTableOptions{})
		if err != nil {
			return nil, err
		}
		if d.DeclaredOnly || d.Schema == nil {
			return nil, errorf(catalog.CodeInvalidInput, "table %s is declared but has no schema yet to copy", displayName(src))
		}
		schema = arrow.NewSchema(d.Schema.Fields(), nil)
		props = map[string]string{}
		for k, v := range d.Properties {
			props[k] = v
		}
		// The source's scalar indices (BTREE, BITMAP, LABEL_LIST: the ones
		// SQL declares; UNIQUE lives in the copied field metadata) are
		// built on the copy as CREATE TABLE's own index clauses are. Vector
		// and full-text indices need training data and are not copied.
		infos, err := s.tableIndices(ctx, d)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			switch info.Kind {
			case index.KindBTree, index.KindBitmap, index.KindLabelList:
				if len(info.Columns) == 1 {
					indexes = append(indexes, declaredIndex{name: info.Name, column: info.Columns[0], kind: info.Kind})
				}
			}
		}
	} else {
		if schema, err = schemaFor(st); err != nil {
			return nil, err
		}
		if schema, indexes, err = resolveIndexes(st, schema); err != nil {
			return nil, err
		}
		if len(st.ForeignKeys) > 0 {
			md, err := s.resolveForeignKeys(id, schema.Fields(), st.ForeignKeys, nil)
			if err != nil {
				return nil, err
			}
			meta := arrow.MetadataFrom(md)
			schema = arrow.NewSchema(schema.Fields(), &meta)
		}
		props = map[string]string{}
		if st.Comment != nil {
			props[CommentKey] = *st.Comment
		}
	}
	opts := catalog.CreateTableOptions{Properties: props}
	if s.tx != nil {
		if st.IfNotExists {
			if ok, err := s.tableExists(ctx, id); err != nil {
				return nil, err
			} else if ok {
				s.tableExistsNote(id)
				return okResult(0), nil
			}
		}
		s.tx.batch.CreateTable(id, schema, opts)
		if len(indexes) > 0 {
			s.tx.indexes = append(s.tx.indexes, pendingIndexes{id: id, defs: indexes})
		}
		return okResult(0), nil
	}
	_, err = s.cat.CreateTable(ctx, id, schema, opts)
	if err != nil && st.IfNotExists && errors.Is(err, catalog.ErrTableAlreadyExists) {
		s.tableExistsNote(id)
		return okResult(0), nil
	}
	if err != nil {
		return nil, err
	}
	if err := s.buildDeclaredIndexes(ctx, id, indexes); err != nil {
		return nil, fmt.Errorf("table %s was created, but its indices were not: %w", displayName(id), err)
	}
	return okResult(0), nil
}

func (s *Session) dropTable(ctx context.Context, st *sqlparse.DropTable) (*Result, error) {
	ids := make([]catalog.Ident, 0, len(st.Names))
	for _, n := range st.Names {
		id, err := s.tableIdent(n)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	batch := s.cat.NewBatch()
	if s.tx != nil {
		batch = s.tx.batch
	}
	var missing []string
	for _, id := range ids {
		if st.IfExists {
			ok, err := s.tableExists(ctx, id)
			if err != nil {
				return nil, err
			}
			if !ok {
				missing = append(missing, schemaName(id.Namespace())+"."+id.Name())
			}
		}
		batch.DropTable(id, st.IfExists)
	}
	if len(missing) > 0 {
		// One note naming every missing table, as MariaDB's.
		s.warn(expr.LevelNote, 1051, "Unknown table '%s'", strings.Join(missing, ","))
	}
	if s.tx != nil {
		return okResult(0), nil
	}
	// Several tables are dropped in one atomic commit: all or none.
	if err := batch.Commit(ctx); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

func (s *Session) renameTable(ctx context.Context, st *sqlparse.RenameTable) (*Result, error) {
	batch := s.cat.NewBatch()
	if s.tx != nil {
		batch = s.tx.batch
	}
	for _, p := range st.Pairs {
		from, err := s.tableIdent(p.From)
		if err != nil {
			return nil, err
		}
		to, err := s.tableIdent(p.To)
		if err != nil {
			return nil, err
		}
		batch.RenameTable(from, to)
		if s.tx != nil {
		}
	}
	if s.tx != nil {
		return okResult(0), nil
	}
	if err := batch.Commit(ctx); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

// alterStep is a run of consecutive ALTER TABLE actions of one kind, applied
// by one dataset commit.
type alterStep struct {
	add     []arrow.Field
	drop    []string
	renames []catalog.ColumnRename
}

func (s *Session) alterTable(ctx context.Context, st *sqlparse.AlterTable) (*Result, error) {
	if alterHasIndexActions(st) {
		return s.alterIndexes(ctx, st) // alterindex.go
	}
	id, err := s.tableIdent(st.Name)
	if err != nil {
		return nil, err
	}
	d, err := s.cat.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
	if err != nil {
		return nil, err
	}
	if d.DeclaredOnly || d.Schema == nil {
		return nil, errorf(catalog.CodeInvalidTableState, "table %s is declared but has no data yet: its columns cannot be altered", displayName(id))
	}
	// Validate every action against the schema as the earlier actions leave
	// it, before changing anything, so an invalid statement applies nothing.
	cols := map[string]bool{}
	for _, f := range d.Schema.Fields() {
		cols[f.Name] = true
	}
	var steps []alterStep
	last := func(kind int) *alterStep {
		if n := len(steps); n > 0 {
			l := &steps[n-1]
			if (kind == 0 && l.add != nil) || (kind == 1 && l.drop != nil) || (kind == 2 && l.renames != nil) {
				return l
			}
		}
		steps = append(steps, alterStep{})
		return &steps[len(steps)-1]
	}
	var keyActions []sqlparse.AlterAction
	for _, a := range st.Actions {
		switch a.(type) {
		case *sqlparse.AddPrimaryKey, *sqlparse.DropPrimaryKey, *sqlparse.AddForeignKey, *sqlparse.DropForeignKey:
			keyActions = append(keyActions, a)
		}
	}
	if len(keyActions) > 0 {
		if len(keyActions) != len(st.Actions) {
			return nil, errorf(catalog.CodeUnsupported, "not supported: key changes (PRIMARY KEY, FOREIGN KEY) combined with column changes in one ALTER TABLE")
		}
		if err := s.alterKeys(ctx, id, keyActions); err != nil {
			return nil, err
		}
		return okResult(0), nil
	}
	for _, a := range st.Actions {
		switch a := a.(type) {
		case *sqlparse.AddColumn:
			name := a.Column.Name
			if cols[name] {
				if a.IfNotExists {
					continue
				}
				return nil, errorf(catalog.CodeInvalidInput, "column %s already exists in table %s", sqlparse.QuoteIdent(name), displayName(id))
			}
			if a.Column.PrimaryKey {
				return nil, errorf(catalog.CodeUnsupported, "not supported: PRIMARY KEY in ALTER TABLE ADD COLUMN")
			}
			if !a.Column.Nullable {
				return nil, errorf(catalog.CodeTableSchemaValidationError, "new column %s must be nullable (existing rows get NULL)", sqlparse.QuoteIdent(name))
			}
			f, err := fieldForColumn(a.Column)
			if err != nil {
				return nil, err
			}
			l := last(0)
			l.add = append(l.add, f)
			cols[name] = true
		case *sqlparse.DropColumn:
			if !cols[a.Name] {
				if a.IfExists {
					continue
				}
				return nil, errorf(catalog.CodeTableColumnNotFound, "column %s does not exist in table %s", sqlparse.QuoteIdent(a.Name), displayName(id))
			}
			l := last(1)
			l.drop = append(l.drop, a.Name)
			delete(cols, a.Name)
			if len(cols) == 0 {
				return nil, errorf(catalog.CodeInvalidInput, "cannot drop every column of table %s", displayName(id))
			}
		case *sqlparse.RenameColumn:
			if !cols[a.From] {
				return nil, errorf(catalog.CodeTableColumnNotFound, "column %s does not exist in table %s", sqlparse.QuoteIdent(a.From), displayName(id))
			}
			if a.To == "" {
				return nil, errorf(catalog.CodeInvalidInput, "column name must not be empty")
			}
			if cols[a.To] && a.To != a.From {
				return nil, errorf(catalog.CodeInvalidInput, "column %s already exists in table %s", sqlparse.QuoteIdent(a.To), displayName(id))
			}
			if a.To == a.From {
				continue
			}
			l := last(2)
			l.renames = append(l.renames, catalog.ColumnRename{From: a.From, To: a.To})
			delete(cols, a.From)
			cols[a.To] = true
		default:
			return nil, errorf(catalog.CodeUnsupported, "not supported: ALTER TABLE action %T", a)
		}
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch {
		case step.add != nil:
			_, err = s.cat.AddColumns(ctx, id, step.add)
		case step.drop != nil:
			_, err = s.cat.DropColumns(ctx, id, step.drop)
		default:
			_, err = s.cat.RenameColumns(ctx, id, step.renames)
		}
		if err != nil {
			return nil, err
		}
	}
	return okResult(0), nil
}

// tableExistsNote is MariaDB's note for CREATE TABLE IF NOT EXISTS of a
// table that is there.
func (s *Session) tableExistsNote(id catalog.Ident) {
	s.warn(expr.LevelNote, 1050, "Table '%s' already exists", id.Name())
}

// databaseExistsNote is MariaDB's note for CREATE DATABASE IF NOT EXISTS of
// one that is there.
func (s *Session) databaseExistsNote(ns catalog.Ident) {
	s.warn(expr.LevelNote, 1007, "Can't create database '%s'; database exists", displayName(ns))
}
