package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// alterHasIndexActions says whether an ALTER TABLE adds or drops indices
// (ADD INDEX / KEY / UNIQUE / FULLTEXT, DROP INDEX / KEY).
func alterHasIndexActions(st *sqlparse.AlterTable) bool {
	for _, a := range st.Actions {
		switch a.(type) {
		case *sqlparse.AddIndex, *sqlparse.DropIndexAction:
			return true
		}
	}
	return false
}

// alterIndexes runs an ALTER TABLE that adds or drops indices, as MySQL
// migrations write them (`ALTER TABLE t ADD COLUMN c INT, ADD INDEX ix (c)`).
// The column changes, if any, run first as one ALTER; then each index change
// runs as CREATE INDEX / DROP INDEX would, in the statement's order. Every
// index action is checked against the table as the column changes leave it
// (columns, names, duplicate names, unnamed indices named after their column
// as MySQL does) before anything is changed, so a statement that names a
// missing column or a taken name changes nothing. Each index is its own
// commit of the table's dataset (Lance's CreateIndex), as with CREATE INDEX.
func (s *Session) alterIndexes(ctx context.Context, st *sqlparse.AlterTable) (*Result, error) {
	id, ds, err := s.indexTarget(ctx, st.Name)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	cols := map[string]string{} // lower-case name -> name, after the column changes
	for _, f := range schema.Fields() {
		cols[strings.ToLower(f.Name)] = f.Name
	}
	var columnActions []sqlparse.AlterAction
	for _, a := range st.Actions {
		switch a := a.(type) {
		case *sqlparse.AddIndex, *sqlparse.DropIndexAction:
			continue
		case *sqlparse.AddColumn:
			cols[strings.ToLower(a.Column.Name)] = a.Column.Name
		case *sqlparse.DropColumn:
			delete(cols, strings.ToLower(a.Name))
		case *sqlparse.RenameColumn:
			delete(cols, strings.ToLower(a.From))
			cols[strings.ToLower(a.To)] = a.To
		default:
			return nil, errorf(catalog.CodeUnsupported, "not supported: key changes (PRIMARY KEY, FOREIGN KEY) combined with index changes in one ALTER TABLE")
		}
		columnActions = append(columnActions, a)
	}
	names := map[string]bool{} // lower-case index names as each action leaves them
	for _, m := range ds.Indices() {
		names[strings.ToLower(m.Name)] = true
	}
	var steps []sqlparse.Statement
	for _, a := range st.Actions {
		switch a := a.(type) {
		case *sqlparse.DropIndexAction:
			if !names[strings.ToLower(a.Name)] {
				if a.IfExists {
					continue
				}
				return nil, errorf(catalog.CodeTableIndexNotFound, "table %s has no index named %s", displayName(id), sqlparse.QuoteIdent(a.Name))
			}
			delete(names, strings.ToLower(a.Name))
			steps = append(steps, &sqlparse.DropIndex{Name: a.Name, Table: st.Name})
		case *sqlparse.AddIndex:
			d := a.Index
			col, ok := cols[strings.ToLower(d.Column)]
			if !ok {
				return nil, errorf(catalog.CodeTableColumnNotFound, "table %s has no column %s", displayName(id), sqlparse.QuoteIdent(d.Column))
			}
			name := d.Name
			if name == "" {
				name = col
				for n := 2; names[strings.ToLower(name)]; n++ {
					name = fmt.Sprintf("%s_%d", col, n)
				}
			} else if names[strings.ToLower(name)] {
				return nil, errorf(catalog.CodeTableIndexAlreadyExists, "table %s already has an index named %s", displayName(id), sqlparse.QuoteIdent(name))
			}
			names[strings.ToLower(name)] = true
			using := d.Using
			if _, scalar := indexKinds[using]; !scalar && using != "INVERTED" {
				return nil, errorf(catalog.CodeUnsupported, "not supported: index type %s (Lance scalar indices: BTREE, BITMAP, LABEL_LIST; full-text: FULLTEXT)", using)
			}
			steps = append(steps, &sqlparse.CreateIndex{Unique: d.Unique, Name: name, Table: st.Name, Column: col, Using: using})
		}
	}
	if len(columnActions) > 0 {
		if _, err := s.alterTable(ctx, &sqlparse.AlterTable{Name: st.Name, Actions: columnActions}); err != nil {
			return nil, err
		}
	}
	for _, step := range steps {
		var err error
		switch step := step.(type) {
		case *sqlparse.CreateIndex:
			_, err = s.createIndex(ctx, step)
		case *sqlparse.DropIndex:
			_, err = s.dropIndex(ctx, step)
		}
		if err != nil {
			return nil, err
		}
	}
	return okResult(0), nil
}
