package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// Table versions (time travel, history, restore, tags):
//
//	SELECT ... FROM t AS OF TIMESTAMP <expr>          the version current at that instant
//	SELECT ... FROM t AS OF TIMESTAMP table_version(3) version 3
//	SELECT ... FROM t AS OF TIMESTAMP table_tag('gold') the version tag gold points at
//	SHOW VERSIONS FROM t
//	SELECT ... FROM information_schema.table_versions | table_tags
//	CALL restore_table('ns.t', 3 | 'tag')
//	CALL create_tag('ns.t', 'name'[, version]) / update_tag(...) / delete_tag('ns.t', 'name')
//	CALL vacuum_table('ns.t'[, '7d'])
//
// AS OF TIMESTAMP is TiDB's grammar; the version and tag forms are two
// functions the planner reads in its place (TiDB's parser takes them
// without new syntax). Each table reference resolves its own version.

// timeTravelFuncs are the functions AS OF TIMESTAMP takes instead of an
// instant.
const (
	fnTableVersion = "table_version"
	fnTableTag     = "table_tag"
)

// openTableSource opens the dataset a FROM item names: the latest version,
// or with AS OF the version it selects.
func (s *Session) openTableSource(ctx context.Context, ts *sqlparse.TableSource) (catalog.Ident, *dataset.Dataset, error) {
	if ts.AsOf == nil {
		return s.openTableData(ctx, ts.Table)
	}
	id, err := s.tableIdent(ts.Table)
	if err != nil {
		return nil, nil, err
	}
	latest, err := s.openLatest(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	ds, err := s.asOf(ctx, id, latest, ts.AsOf)
	return id, ds, err
}

// asOf opens the version of latest's dataset that an AS OF expression names.
func (s *Session) asOf(ctx context.Context, id catalog.Ident, latest *dataset.Dataset, e sqlparse.Expr) (*dataset.Dataset, error) {
	if fc, ok := e.(*sqlparse.FuncCall); ok {
		switch strings.ToLower(fc.Name) {
		case fnTableVersion:
			if len(fc.Args) != 1 {
				return nil, errorf(catalog.CodeInvalidInput, "%s takes one version number", fnTableVersion)
			}
			v, err := s.constValue(fc.Args[0])
			if err != nil {
				return nil, err
			}
			n, ok := versionNumber(v)
			if !ok {
				return nil, errorf(catalog.CodeInvalidInput, "%s(%v): a version is a positive integer", fnTableVersion, v)
			}
			return s.openVersion(ctx, id, latest, n)
		case fnTableTag:
			if len(fc.Args) != 1 {
				return nil, errorf(catalog.CodeInvalidInput, "%s takes one tag name", fnTableTag)
			}
			v, err := s.constValue(fc.Args[0])
			if err != nil {
				return nil, err
			}
			name, ok := v.(string)
			if !ok {
				return nil, errorf(catalog.CodeInvalidInput, "%s(%v): a tag name is a string", fnTableTag, v)
			}
			ds, err := dataset.OpenTag(ctx, latest.Store(), latest.Dir(), name)
			return ds, versionErr(id, err)
		}
	}
	v, err := s.constValue(e)
	if err != nil {
		return nil, err
	}
	var at time.Time
	switch x := v.(type) {
	case time.Time:
		at = x
	case string:
		t, ok := sqltypes.ParseTime(x)
		if !ok {
			return nil, errorf(catalog.CodeInvalidInput, "AS OF TIMESTAMP %s is not a date or time", quoteString(x))
		}
		at = t
	default:
		return nil, errorf(catalog.CodeInvalidInput, "AS OF TIMESTAMP needs a time ('2026-12-01 10:00:00'), %s(n) or %s('name'); got %v", fnTableVersion, fnTableTag, v)
	}
	n, err := dataset.VersionAt(ctx, latest.Store(), latest.Dir(), at)
	if err != nil {
		return nil, versionErr(id, err)
	}
	return s.openVersion(ctx, id, latest, n)
}

func (s *Session) openVersion(ctx context.Context, id catalog.Ident, latest *dataset.Dataset, n uint64) (*dataset.Dataset, error) {
	if n == latest.Version() {
		return latest, nil
	}
	ds, err := dataset.OpenVersion(ctx, latest.Store(), latest.Dir(), n)
	return ds, versionErr(id, err)
}

// versionErr gives dataset version and tag errors their namespace codes.
func versionErr(id catalog.Ident, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, dataset.ErrVersionRemoved):
		return &catalog.Error{Code: catalog.CodeTableVersionNotFound, Message: fmt.Sprintf("table %s: the version was removed by vacuum", displayName(id)), Cause: err}
	case errors.Is(err, dataset.ErrVersionNotFound):
		return &catalog.Error{Code: catalog.CodeTableVersionNotFound, Message: fmt.Sprintf("table %s", displayName(id)), Cause: err}
	case errors.Is(err, dataset.ErrTagNotFound):
		return &catalog.Error{Code: catalog.CodeTableTagNotFound, Message: fmt.Sprintf("table %s", displayName(id)), Cause: err}
	case errors.Is(err, dataset.ErrTagExists):
		return &catalog.Error{Code: catalog.CodeTableTagAlreadyExists, Message: fmt.Sprintf("table %s", displayName(id)), Cause: err}
	case errors.Is(err, dataset.ErrInvalidArgument):
		return &catalog.Error{Code: catalog.CodeInvalidInput, Message: fmt.Sprintf("table %s", displayName(id)), Cause: err}
	case errors.Is(err, dataset.ErrCommitConflict):
		return &catalog.Error{Code: catalog.CodeConcurrentModification, Message: fmt.Sprintf("table %s", displayName(id)), Cause: err}
	}
	return err
}

// constValue evaluates an expression without columns (literals, bound
// parameters, functions such as NOW()).
func (s *Session) constValue(e sqlparse.Expr) (any, error) {
	env := newRowEnv(nil)
	env.session = s
	return env.eval(e, nil)
}

func versionNumber(v any) (uint64, bool) {
	switch x := v.(type) {
	case int64:
		return uint64(x), x > 0
	case uint64:
		return x, x > 0
	}
	return 0, false
}

// tableVersions lists a table's versions with the tags pointing at each.
func (s *Session) tableVersions(ctx context.Context, ds *dataset.Dataset) ([]dataset.VersionSummary, map[uint64][]string, error) {
	hist, err := dataset.History(ctx, ds.Store(), ds.Dir())
	if err != nil {
		return nil, nil, err
	}
	tags, err := dataset.ListTags(ctx, ds.Store(), ds.Dir())
	if err != nil {
		return nil, nil, err
	}
	byVersion := map[uint64][]string{}
	for _, t := range tags {
		byVersion[t.Version] = append(byVersion[t.Version], t.Name)
	}
	return hist, byVersion, nil
}

var versionColumns = []Column{bigint("Version"), {Name: "Timestamp", DatabaseType: "TIMESTAMP", Nullable: true}, varchar("Operation"), bigint("Rows"), varcharNull("Tags")}

func (s *Session) showVersions(ctx context.Context, st *sqlparse.ShowVersions) (*Result, error) {
	if st.Like != nil || st.Where != nil {
		return nil, errorf(catalog.CodeUnsupported, "not supported: SHOW VERSIONS with LIKE or WHERE (query information_schema.table_versions)")
	}
	_, ds, err := s.openTableData(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	hist, tags, err := s.tableVersions(ctx, ds)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, 0, len(hist))
	for _, h := range hist {
		rows = append(rows, []any{int64(h.Version), timeOrNil(h.Timestamp), h.Operation, int64(h.Rows), tagList(tags[h.Version])})
	}
	return rowsResult(versionColumns, rows), nil
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

func tagList(names []string) any {
	if len(names) == 0 {
		return nil
	}
	return strings.Join(names, ",")
}

func init() {
	infoViews["table_versions"] = &infoView{
		name: "table_versions", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("TABLE_SCHEMA"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(bigint("VERSION"), describeFull),
			vcol(Column{Name: "TIMESTAMP", DatabaseType: "TIMESTAMP", Nullable: true}, describeFull),
			vcol(varchar("OPERATION"), describeFull),
			vcol(bigint("ROW_COUNT"), describeFull),
			vcol(varcharNull("TAGS"), describeFull),
		},
	}
	infoViews["table_tags"] = &infoView{
		name: "table_tags", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("TABLE_SCHEMA"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(varchar("TAG_NAME"), describeFull),
			vcol(bigint("VERSION"), describeFull),
			vcol(Column{Name: "CREATED_AT", DatabaseType: "TIMESTAMP", Nullable: true}, describeFull),
			vcol(Column{Name: "UPDATED_AT", DatabaseType: "TIMESTAMP", Nullable: true}, describeFull),
			vcol(bigint("MANIFEST_SIZE"), describeFull),
		},
	}
}

// lifecycleViewRows are the rows of table_versions or table_tags for one
// table (none for a table declared without data).
func (s *Session) lifecycleViewRows(ctx context.Context, view string, id catalog.Ident, schema string) ([][]any, error) {
	ds, err := s.openLatest(ctx, id)
	if err != nil {
		if catalogCode(err) == catalog.CodeInvalidTableState || catalogCode(err) == catalog.CodeTableNotFound {
			return nil, nil
		}
		return nil, err
	}
	var rows [][]any
	switch view {
	case "table_versions":
		hist, tags, err := s.tableVersions(ctx, ds)
		if err != nil {
			return nil, err
		}
		for _, h := range hist {
			rows = append(rows, []any{schema, id.Name(), int64(h.Version), timeOrNil(h.Timestamp), h.Operation, int64(h.Rows), tagList(tags[h.Version])})
		}
	case "table_tags":
		tags, err := dataset.ListTags(ctx, ds.Store(), ds.Dir())
		if err != nil {
			return nil, err
		}
		for _, t := range tags {
			rows = append(rows, []any{schema, id.Name(), t.Name, int64(t.Version), timePtr(t.CreatedAt), timePtr(t.UpdatedAt), int64(t.ManifestSize)})
		}
	}
	return rows, nil
}

func timePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}

// lifecycleCall runs the table procedures; ok is false for other names.
func (s *Session) lifecycleCall(ctx context.Context, c *sqlparse.Call) (*Result, bool, error) {
	name := procName(c)
	switch name {
	case "restore_table", "create_tag", "update_tag", "delete_tag", "vacuum_table":
	default:
		return nil, false, nil
	}
	if len(c.Args) == 0 {
		return nil, true, errorf(catalog.CodeInvalidInput, "%s takes a table name first", name)
	}
	id, err := s.tableArg(c, 0)
	if err != nil {
		return nil, true, err
	}
	ds, err := s.openLatest(ctx, id)
	if err != nil {
		return nil, true, err
	}
	res, err := s.runLifecycleCall(ctx, c, name, id, ds)
	return res, true, err
}

func (s *Session) runLifecycleCall(ctx context.Context, c *sqlparse.Call, name string, id catalog.Ident, ds *dataset.Dataset) (*Result, error) {
	switch name {
	case "restore_table":
		if err := wantArgs(c, 2, 2, "(table name, version or tag)"); err != nil {
			return nil, err
		}
		var target *dataset.Dataset
		var err error
		switch v := c.Args[1].(type) {
		case string:
			target, err = dataset.OpenTag(ctx, ds.Store(), ds.Dir(), v)
		default:
			n, ok := versionNumber(v)
			if !ok {
				return nil, errorf(catalog.CodeInvalidInput, "restore_table: %v is not a version number or tag name", v)
			}
			target, err = s.openVersion(ctx, id, ds, n)
		}
		if err != nil {
			return nil, versionErr(id, err)
		}
		out, err := target.Restore(ctx)
		if err != nil {
			return nil, versionErr(id, err)
		}
		return rowsResult([]Column{varchar("Table"), bigint("Restored_version"), bigint("New_version")},
			[][]any{{displayName(id), int64(target.Version()), int64(out.Version())}}), nil
	case "create_tag", "update_tag":
		if err := wantArgs(c, 2, 3, "(table name, tag name[, version])"); err != nil {
			return nil, err
		}
		tag, err := s.stringArg(c, 1, "tag name")
		if err != nil {
			return nil, err
		}
		var version uint64
		if len(c.Args) == 3 {
			n, ok := versionNumber(c.Args[2])
			if !ok {
				return nil, errorf(catalog.CodeInvalidInput, "%s: %v is not a version number", name, c.Args[2])
			}
			version = n
		}
		var t dataset.Tag
		if name == "create_tag" {
			t, err = dataset.CreateTag(ctx, ds.Store(), ds.Dir(), tag, version)
		} else {
			t, err = dataset.UpdateTag(ctx, ds.Store(), ds.Dir(), tag, version)
		}
		if err != nil {
			return nil, versionErr(id, err)
		}
		return rowsResult([]Column{varchar("Table"), varchar("Tag"), bigint("Version")}, [][]any{{displayName(id), t.Name, int64(t.Version)}}), nil
	case "delete_tag":
		if err := wantArgs(c, 2, 2, "(table name, tag name)"); err != nil {
			return nil, err
		}
		tag, err := s.stringArg(c, 1, "tag name")
		if err != nil {
			return nil, err
		}
		if err := dataset.DeleteTag(ctx, ds.Store(), ds.Dir(), tag); err != nil {
			return nil, versionErr(id, err)
		}
		return okResult(0), nil
	case "vacuum_table":
		if err := wantArgs(c, 1, 2, "(table name[, retention]), e.g. vacuum_table('t', '7d')"); err != nil {
			return nil, err
		}
		retention := dataset.DefaultCleanupRetention
		if len(c.Args) == 2 {
			v, err := s.stringArg(c, 1, "retention")
			if err != nil {
				return nil, err
			}
			d, ok := parseRetention(v)
			if !ok {
				return nil, errorf(catalog.CodeInvalidInput, "vacuum_table: %s is not a retention (e.g. '7d', '12h', '30m', '0s')", quoteString(v))
			}
			retention = d
		}
		rep, err := dataset.Cleanup(ctx, ds.Store(), ds.Dir(), time.Now().Add(-retention))
		if err != nil {
			return nil, versionErr(id, err)
		}
		return rowsResult([]Column{bigint("Versions_removed"), bigint("Files_removed"), bigint("Bytes_removed"), bigint("Oldest_kept_version")},
			[][]any{{int64(rep.VersionsRemoved), int64(rep.FilesRemoved), rep.BytesRemoved, int64(rep.OldestKept)}}), nil
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: CALL %s", name)
}

// parseRetention reads a Go duration or a number of days ("7d").
func parseRetention(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		var n int64
		if _, err := fmt.Sscanf(days, "%d", &n); err != nil || n < 0 || n > 100000 || fmt.Sprint(n) != days {
			return 0, false
		}
		return time.Duration(n) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// truncateTable is TRUNCATE TABLE: one Delete version removing every
// fragment, indices kept (as Lance's delete of every row).
func (s *Session) truncateTable(ctx context.Context, st *sqlparse.TruncateTable) (*Result, error) {
	id, ds, err := s.openTableData(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	if len(ds.Fragments()) == 0 {
		return okResult(0), nil
	}
	if _, err := ds.Truncate(ctx); err != nil {
		return nil, versionErr(id, err)
	}
	return okResult(0), nil
}

// openSelectTable opens the table of a single-table SELECT, honouring its
// AS OF.
func (s *Session) openSelectTable(ctx context.Context, st *sqlparse.Select, name sqlparse.Name) (catalog.Ident, *dataset.Dataset, error) {
	if ts, err := singleTable(st.From); err == nil && ts.AsOf != nil {
		return s.openTableSource(ctx, ts)
	}
	return s.openTableData(ctx, name)
}
