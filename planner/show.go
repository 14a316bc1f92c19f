package planner

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/index"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/storage"
)

// filterRows applies a SHOW statement's LIKE (on column likeCol) or WHERE.
func filterRows(cols []Column, rows [][]any, f sqlparse.Filter, likeCol int) ([][]any, error) {
	switch {
	case f.Like != nil:
		out := rows[:0:0]
		for _, r := range rows {
			if v, ok := r[likeCol].(string); ok && likeMatch(*f.Like, v, '\\') {
				out = append(out, r)
			}
		}
		return out, nil
	case f.Where != nil:
		env := newRowEnv(cols)
		if err := env.check(f.Where); err != nil {
			return nil, err
		}
		out := rows[:0:0]
		for _, r := range rows {
			ok, err := env.matches(f.Where, r)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, r)
			}
		}
		return out, nil
	}
	return rows, nil
}

// likeFilter pre-filters names with a LIKE pattern before any per-name
// catalog lookups (a WHERE is applied to the finished rows).
func likeFilter(names []string, f sqlparse.Filter) []string {
	if f.Like == nil {
		return names
	}
	out := names[:0:0]
	for _, n := range names {
		if likeMatch(*f.Like, n, '\\') {
			out = append(out, n)
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func (s *Session) showSchemas(ctx context.Context, st *sqlparse.ShowSchemas) (*Result, error) {
	parent := namespaceIdent(st.Parent)
	page, err := s.cat.ListNamespaces(ctx, parent, catalog.ListOptions{})
	if err != nil {
		return nil, err
	}
	cols := []Column{varchar("Database")}
	var rows [][]any
	for _, n := range page.Names {
		rows = append(rows, []any{n})
	}
	rows, err = filterRows(cols, rows, st.Filter, 0)
	if err != nil {
		return nil, err
	}
	return rowsResult(cols, rows), nil
}

func (s *Session) showTables(ctx context.Context, st *sqlparse.ShowTables) (*Result, error) {
	ns := s.ns
	if st.Namespace != nil {
		ns = namespaceIdent(st.Namespace)
	}
	var opts catalog.ListTablesOptions
	if st.Like != nil {
		// LIKE 'prefix%' lists through the object_id BTREE; likeFilter
		// below still applies the whole pattern.
		if prefix, ok := likePrefix(*st.Like, '\\'); ok {
			opts.NamePrefix = prefix
		}
	}
	page, err := s.cat.ListTables(ctx, ns, opts)
	if err != nil {
		return nil, err
	}
	label := "Tables"
	if len(ns) > 0 {
		label = "Tables_in_" + displayName(ns)
	}
	cols := []Column{varchar(label)}
	if st.Full {
		cols = append(cols, varchar("Table_type"))
	}
	var rows [][]any
	for _, name := range likeFilter(page.Names, st.Filter) {
		row := []any{name}
		if st.Full {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d, err := s.cat.DescribeTable(ctx, ns.Child(name), catalog.DescribeTableOptions{MetadataOnly: true})
			if err != nil {
				if catalogCode(err) == catalog.CodeTableNotFound {
					continue // dropped since the listing
				}
				return nil, err
			}
			typ := "BASE TABLE"
			if d.DeclaredOnly {
				typ = "DECLARED"
			}
			row = append(row, typ)
		}
		rows = append(rows, row)
	}
	if st.Where != nil {
		rows, err = filterRows(cols, rows, st.Filter, 0)
		if err != nil {
			return nil, err
		}
	}
	return rowsResult(cols, rows), nil
}

func catalogCode(err error) catalog.Code {
	c, _ := catalog.CodeOf(err)
	return c
}

func (s *Session) showTableStatus(ctx context.Context, st *sqlparse.ShowTableStatus) (*Result, error) {
	ns := s.ns
	if st.Namespace != nil {
		ns = namespaceIdent(st.Namespace)
	}
	page, err := s.cat.ListTables(ctx, ns, catalog.ListTablesOptions{})
	if err != nil {
		return nil, err
	}
	cols := []Column{varchar("Name"), varchar("Engine"), bigintNull("Version"), bigintNull("Rows"),
		varchar("Location"), varchar("Declared"), varcharNull("Comment")}
	var rows [][]any
	for _, name := range likeFilter(page.Names, st.Filter) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := s.cat.DescribeTable(ctx, ns.Child(name), catalog.DescribeTableOptions{})
		if err != nil {
			if catalogCode(err) == catalog.CodeTableNotFound {
				continue
			}
			return nil, err
		}
		rows = append(rows, statusRow(name, d))
	}
	if st.Where != nil {
		if rows, err = filterRows(cols, rows, st.Filter, 0); err != nil {
			return nil, err
		}
	}
	return rowsResult(cols, rows), nil
}

func statusRow(name string, d catalog.TableDescription) []any {
	var version, nrows, comment any
	if !d.DeclaredOnly {
		version, nrows = int64(d.Version), d.RowCount
	}
	if c, ok := d.Properties[CommentKey]; ok {
		comment = storage.Redact(c)
	}
	return []any{name, "Lance", version, nrows, storage.Redact(d.URI), yesNo(d.DeclaredOnly), comment}
}

func (s *Session) describeForColumns(ctx context.Context, n sqlparse.Name) (catalog.Ident, catalog.TableDescription, error) {
	id, err := s.tableIdent(n)
	if err != nil {
		return nil, catalog.TableDescription{}, err
	}
	d, err := s.cat.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
	return id, d, err
}

func (s *Session) showColumns(ctx context.Context, st *sqlparse.ShowColumns) (*Result, error) {
	_, d, err := s.describeForColumns(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	indexed, err := s.indexedColumns(ctx, d)
	if err != nil {
		return nil, err
	}
	cols := []Column{varchar("Field"), varchar("Type"), varchar("Null"), varchar("Key"), varcharNull("Default"), varchar("Extra")}
	if st.Full {
		cols = append(cols, varchar("Comment"))
	}
	var rows [][]any
	if d.Schema != nil {
		for _, f := range d.Schema.Fields() {
			row := []any{f.Name, typeName(f), yesNo(f.Nullable), columnKey(f, indexed), defaultText(f), extraText(f)}
			if st.Full {
				c, _ := sqltypes.FieldMeta(f, CommentKey)
				row = append(row, storage.Redact(c))
			}
			rows = append(rows, row)
		}
	}
	if rows, err = filterRows(cols, rows, st.Filter, 0); err != nil {
		return nil, err
	}
	return rowsResult(cols, rows), nil
}

// knownFieldMeta are field metadata keys SHOW CREATE TABLE renders as SQL
// (the rest is printed in a comment).
var knownFieldMeta = map[string]bool{
	CommentKey:                            true,
	lanceschema.PrimaryKeyPositionKey:     true,
	lanceschema.PrimaryKeyKey:             true,
	lanceschema.ArrowExtensionNameKey:     true,
	lanceschema.ArrowExtensionMetadataKey: true,
	AutoIncrementKey:                      true,
	DefaultKey:                            true,
	UniqueKey:                             true,
	sqltypes.CharLengthKey:                true,
}

// CreateTableSQL renders a CREATE TABLE statement for a table. Types SQL
// cannot spell use the Arrow-like spellings of SQLType (such a statement
// documents the schema faithfully but does not run). Field metadata and
// table properties that have no SQL clause are printed in comments.
func CreateTableSQL(id catalog.Ident, d catalog.TableDescription) string {
	return createTableSQL(id, d, nil)
}

// createTableSQL is CreateTableSQL with the table's Lance indices rendered
// as KEY / UNIQUE KEY clauses.
func createTableSQL(id catalog.Ident, d catalog.TableDescription, indices []index.Info) string {
	var b strings.Builder
	if d.DeclaredOnly || d.Schema == nil {
		b.WriteString("-- table " + displayName(id) + " is declared: it has no data and no schema yet\n")
		b.WriteString("CALL declare_table(" + quoteString(displayName(id)) + ")")
		return b.String()
	}
	b.WriteString("CREATE TABLE " + displayName(id) + " (\n")
	fields := d.Schema.Fields()
	pk := primaryKeyOf(d.Schema)
	keys := indexClauses(d.Schema, indices)
	for _, fk := range foreignKeysOf(d.Schema) {
		keys = append(keys, fk.sql(id))
	}
	for i, f := range fields {
		b.WriteString("  " + sqlparse.QuoteIdent(f.Name) + " " + typeName(f))
		if !f.Nullable {
			b.WriteString(" NOT NULL")
		}
		if isAutoIncrement(f) {
			b.WriteString(" AUTO_INCREMENT")
		}
		if text, ok := sqltypes.FieldMeta(f, DefaultKey); ok {
			b.WriteString(" DEFAULT " + storage.Redact(text))
		}
		if c, ok := sqltypes.FieldMeta(f, CommentKey); ok {
			b.WriteString(" COMMENT " + quoteString(storage.Redact(c)))
		}
		if extra := otherMeta(f); extra != "" {
			b.WriteString(" /* metadata: " + extra + " */")
		}
		if i < len(fields)-1 || len(pk) > 0 || len(keys) > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	if len(pk) > 0 {
		quoted := make([]string, len(pk))
		for i, n := range pk {
			quoted[i] = sqlparse.QuoteIdent(n)
		}
		b.WriteString("  PRIMARY KEY (" + strings.Join(quoted, ", ") + ")")
		if len(keys) > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	for i, k := range keys {
		b.WriteString("  " + k)
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(")")
	if c, ok := d.Properties[CommentKey]; ok {
		b.WriteString(" COMMENT " + quoteString(storage.Redact(c)))
	}
	var props []string
	for _, k := range sortedKeys(d.Properties) {
		if k != CommentKey {
			props = append(props, quoteString(k)+" = "+quoteString(storage.RedactProperty(k, d.Properties[k])))
		}
	}
	if len(props) > 0 {
		b.WriteString("\n/* table properties: " + strings.Join(props, ", ") + " */")
	}
	return b.String()
}

func otherMeta(f arrow.Field) string {
	var parts []string
	keys := f.Metadata.Keys()
	vals := f.Metadata.Values()
	m := map[string]string{}
	for i, k := range keys {
		m[k] = vals[i]
	}
	for _, k := range sortedKeys(m) {
		if knownFieldMeta[k] {
			// The JSON extension is rendered by the type; any other
			// extension is shown.
			if k == lanceschema.ArrowExtensionNameKey && !sqltypes.IsJSON(f) {
				parts = append(parts, quoteString(k)+" = "+quoteString(storage.RedactProperty(k, m[k])))
			}
			continue
		}
		parts = append(parts, quoteString(k)+" = "+quoteString(storage.RedactProperty(k, m[k])))
	}
	return strings.Join(parts, ", ")
}

func (s *Session) showCreateTable(ctx context.Context, st *sqlparse.ShowCreateTable) (*Result, error) {
	id, d, err := s.describeForColumns(ctx, st.Name)
	if err != nil {
		return nil, err
	}
	indices, err := s.tableIndices(ctx, d)
	if err != nil {
		return nil, err
	}
	cols := []Column{varchar("Table"), varchar("Create Table")}
	return rowsResult(cols, [][]any{{id.Name(), createTableSQL(id, d, indices)}}), nil
}

// CreateSchemaSQL renders a CREATE SCHEMA statement for a namespace.
func CreateSchemaSQL(ns catalog.Ident, props map[string]string) string {
	var b strings.Builder
	b.WriteString("CREATE SCHEMA " + displayName(ns))
	if c, ok := props[CommentKey]; ok {
		b.WriteString(" COMMENT " + quoteString(storage.Redact(c)))
	}
	var parts []string
	for _, k := range sortedKeys(props) {
		if k != CommentKey {
			parts = append(parts, quoteString(k)+" = "+quoteString(storage.RedactProperty(k, props[k])))
		}
	}
	if len(parts) > 0 {
		b.WriteString(" WITH PROPERTIES (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}

func (s *Session) showCreateSchema(ctx context.Context, st *sqlparse.ShowCreateSchema) (*Result, error) {
	ns := namespaceIdent(st.Name)
	if len(ns) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "SHOW CREATE SCHEMA needs a namespace name")
	}
	info, err := s.cat.DescribeNamespace(ctx, ns)
	if err != nil {
		return nil, err
	}
	cols := []Column{varchar("Database"), varchar("Create Database")}
	return rowsResult(cols, [][]any{{displayName(ns), CreateSchemaSQL(ns, info.Properties)}}), nil
}

// indexRows lists a table's indexes as SHOW INDEX rows (Table, Non_unique,
// Key_name, Seq_in_index, Column_name, Null, Index_type, Comment,
// Covered_fragments, Uncovered_fragments): the unenforced primary key first,
// then the Lance indices. information_schema.statistics reads them too.
func (s *Session) indexRows(ctx context.Context, id catalog.Ident, d catalog.TableDescription) ([][]any, error) {
	var rows [][]any
	if d.Schema != nil {
		for i, name := range primaryKeyOf(d.Schema) {
			f, _ := d.Schema.FieldsByName(name)
			null := ""
			if len(f) > 0 && f[0].Nullable {
				null = "YES"
			}
			rows = append(rows, []any{id.Name(), int64(0), "PRIMARY", int64(i + 1), name, null, "UNENFORCED", "Lance unenforced primary key", nil, nil})
		}
	}
	lance, err := s.lanceIndexRows(ctx, id, d)
	if err != nil {
		return nil, err
	}
	return append(rows, lance...), nil
}

func (s *Session) showIndex(ctx context.Context, st *sqlparse.ShowIndex) (*Result, error) {
	id, d, err := s.describeForColumns(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	cols := []Column{varchar("Table"), bigint("Non_unique"), varchar("Key_name"), bigint("Seq_in_index"),
		varchar("Column_name"), varchar("Null"), varchar("Index_type"), varchar("Comment"),
		varcharNull("Covered_fragments"), varcharNull("Uncovered_fragments")}
	rows, err := s.indexRows(ctx, id, d)
	if err != nil {
		return nil, err
	}
	if rows, err = filterRows(cols, rows, st.Filter, 0); err != nil {
		return nil, err
	}
	return rowsResult(cols, rows), nil
}
