package planner

import (
	"context"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// Procedures (operations SQL has no words for):
//
//	CALL register_table('a.t', 'relative/location')  register an existing dataset
//	CALL deregister_table('a.t')                      remove the entry, keep the data
//	CALL declare_table('a.t')                         reserve a name without data
//	CALL vacuum_catalog(['1h'])                       clean old `__manifest` versions
//
// Table names are strings in the SQL spelling of a name: parts separated by
// '.', backquoted when they hold a '.' or a backquote; a one-part name is in
// the current namespace.

func procName(c *sqlparse.Call) string {
	if len(c.Procedure) != 1 {
		return sqlparse.Name(c.Procedure).String()
	}
	return strings.ToLower(c.Procedure[0])
}

func (s *Session) stringArg(c *sqlparse.Call, i int, what string) (string, error) {
	v, ok := c.Args[i].(string)
	if !ok {
		return "", errorf(catalog.CodeInvalidInput, "%s: argument %d (%s) must be a string", procName(c), i+1, what)
	}
	return v, nil
}

// onlyTableArg is the table name of a procedure that takes just that.
func (s *Session) onlyTableArg(c *sqlparse.Call) (catalog.Ident, error) {
	if err := wantArgs(c, 1, 1, "(table name)"); err != nil {
		return nil, err
	}
	return s.tableArg(c, 0)
}

func (s *Session) tableArg(c *sqlparse.Call, i int) (catalog.Ident, error) {
	v, err := s.stringArg(c, i, "table name")
	if err != nil {
		return nil, err
	}
	parts, ok := splitDisplayName(v)
	if !ok || len(parts) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "%s: %s is not a table name", procName(c), quoteString(v))
	}
	return s.tableIdent(sqlparse.Name(parts))
}

func wantArgs(c *sqlparse.Call, min, max int, usage string) error {
	if len(c.Args) < min || len(c.Args) > max {
		return errorf(catalog.CodeInvalidInput, "%s takes %s", procName(c), usage)
	}
	return nil
}

func (s *Session) call(ctx context.Context, c *sqlparse.Call) (*Result, error) {
	name := procName(c)
	tableCols := []Column{varchar("Table"), varchar("Location")}
	switch name {
	case "register_table":
		if err := wantArgs(c, 2, 2, "(table name, relative location)"); err != nil {
			return nil, err
		}
		id, err := s.tableArg(c, 0)
		if err != nil {
			return nil, err
		}
		loc, err := s.stringArg(c, 1, "location")
		if err != nil {
			return nil, err
		}
		if s.tx != nil {
			s.tx.batch.RegisterTable(id, loc, nil)
			return rowsResult(tableCols, [][]any{{displayName(id), s.cat.TableURI(loc)}}), nil
		}
		info, err := s.cat.RegisterTable(ctx, id, loc, nil)
		if err != nil {
			return nil, err
		}
		return rowsResult(tableCols, [][]any{{displayName(id), info.URI}}), nil
	case "deregister_table":
		id, err := s.onlyTableArg(c)
		if err != nil {
			return nil, err
		}
		if s.tx != nil {
			s.tx.batch.DeregisterTable(id)
			return rowsResult(tableCols, [][]any{}), nil
		}
		info, err := s.cat.DeregisterTable(ctx, id)
		if err != nil {
			return nil, err
		}
		return rowsResult(tableCols, [][]any{{displayName(id), info.URI}}), nil
	case "declare_table":
		id, err := s.onlyTableArg(c)
		if err != nil {
			return nil, err
		}
		if s.tx != nil {
			s.tx.batch.DeclareTable(id, nil)
			return rowsResult(tableCols, [][]any{}), nil
		}
		info, err := s.cat.DeclareTable(ctx, id, nil)
		if err != nil {
			return nil, err
		}
		return rowsResult(tableCols, [][]any{{displayName(id), info.URI}}), nil
	case "vacuum_catalog":
		if err := wantArgs(c, 0, 1, "([retention]), e.g. vacuum_catalog('1h')"); err != nil {
			return nil, err
		}
		opts := catalog.DefaultVacuumOptions()
		if len(c.Args) == 1 {
			v, err := s.stringArg(c, 0, "retention")
			if err != nil {
				return nil, err
			}
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, errorf(catalog.CodeInvalidInput, "vacuum_catalog: %s is not a retention duration (e.g. '1h', '30m', '0s')", quoteString(v))
			}
			opts.Retention = d
			if d == 0 {
				// Zero means "default" to the catalog; a tiny positive
				// window keeps only the latest version.
				opts.Retention = time.Nanosecond
			}
		}
		rep, err := s.cat.Vacuum(ctx, opts)
		if err != nil {
			return nil, err
		}
		cols := []Column{bigint("Versions_removed"), bigint("Files_removed"), bigint("Bytes_removed"), bigint("Oldest_kept_version"),
			bigint("Orphan_dirs_removed"), bigint("Staged_files_removed"), bigint("Staged_bytes_removed")}
		return rowsResult(cols, [][]any{{int64(rep.VersionsRemoved), int64(rep.FilesRemoved), rep.BytesRemoved, int64(rep.OldestKept),
			int64(rep.OrphanDirsRemoved), int64(rep.StagedFilesRemoved), rep.StagedBytesRemoved}}), nil
	}
	if res, ok, err := s.lifecycleCall(ctx, c); ok {
		return res, err
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: CALL %s (procedures: register_table, deregister_table, declare_table, vacuum_catalog)", name)
}
