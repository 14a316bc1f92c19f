package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/sqlparse"
)

// FOREIGN KEY constraints are declared metadata, as Lance's primary key is:
// lancecat keeps each one in the Lance schema metadata under
// ForeignKeyKeyPrefix + name (JSON), shows it in SHOW CREATE TABLE and in
// information_schema (TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS,
// KEY_COLUMN_USAGE), and enforces nothing: no write checks the referenced
// rows and no ON DELETE / ON UPDATE action runs (as MySQL with
// foreign_key_checks = 0). The referenced table need not exist.

// ForeignKeyKeyPrefix starts the schema metadata key of a FOREIGN KEY.
const ForeignKeyKeyPrefix = "lancecat:foreign_key."

// foreignKey is a FOREIGN KEY as kept in the schema metadata.
type foreignKey struct {
	Name       string   `json:"name"`
	Columns    []string `json:"columns"`
	RefSchema  []string `json:"referenced_namespace"`
	RefTable   string   `json:"referenced_table"`
	RefColumns []string `json:"referenced_columns"`
	OnDelete   string   `json:"on_delete,omitempty"`
	OnUpdate   string   `json:"on_update,omitempty"`
}

// foreignKeysOf lists the FOREIGN KEYs in a schema's metadata, by name.
func foreignKeysOf(schema *arrow.Schema) []foreignKey {
	if schema == nil {
		return nil
	}
	md := schema.Metadata()
	var out []foreignKey
	for i, k := range md.Keys() {
		if !strings.HasPrefix(k, ForeignKeyKeyPrefix) {
			continue
		}
		var fk foreignKey
		if json.Unmarshal([]byte(md.Values()[i]), &fk) != nil || fk.RefTable == "" ||
			len(fk.Columns) == 0 || len(fk.Columns) != len(fk.RefColumns) {
			continue // not a constraint lancecat wrote: not shown
		}
		fk.Name = strings.TrimPrefix(k, ForeignKeyKeyPrefix)
		out = append(out, fk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// rule is a referential action as information_schema shows it: MySQL 8
// reports an action the statement did not give as NO ACTION.
func rule(r string) string {
	if r == "" {
		return "NO ACTION"
	}
	return r
}

// sql renders the constraint as SHOW CREATE TABLE does; the referenced
// table is qualified when it is in another namespace than table.
func (fk foreignKey) sql(table catalog.Ident) string {
	quote := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = sqlparse.QuoteIdent(n)
		}
		return strings.Join(q, ", ")
	}
	ref := sqlparse.QuoteIdent(fk.RefTable)
	if ns := catalog.Ident(fk.RefSchema); compareIdents(ns, table.Namespace()) != 0 {
		ref = displayName(ns.Child(fk.RefTable))
	}
	s := fmt.Sprintf("CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)", sqlparse.QuoteIdent(fk.Name), quote(fk.Columns), ref, quote(fk.RefColumns))
	if fk.OnDelete != "" {
		s += " ON DELETE " + fk.OnDelete
	}
	if fk.OnUpdate != "" {
		s += " ON UPDATE " + fk.OnUpdate
	}
	return s
}

// resolveForeignKeys checks declared FOREIGN KEYs against the table's
// fields and returns their schema metadata; existing are the table's
// constraints so far (generated names continue their numbering, as MySQL's
// <table>_ibfk_<n>).
func (s *Session) resolveForeignKeys(id catalog.Ident, fields []arrow.Field, defs []sqlparse.ForeignKeyDef, existing []foreignKey) (map[string]string, error) {
	names := map[string]bool{}
	for _, fk := range existing {
		names[strings.ToLower(fk.Name)] = true
	}
	out := map[string]string{}
	n := 0
	for _, def := range defs {
		fk := foreignKey{Name: def.Name, RefColumns: def.RefColumns, OnDelete: def.OnDelete, OnUpdate: def.OnUpdate}
		for _, c := range def.Columns {
			found := ""
			for _, f := range fields {
				if strings.EqualFold(f.Name, c) {
					found = f.Name
				}
			}
			if found == "" {
				return nil, errorf(catalog.CodeTableColumnNotFound, "FOREIGN KEY column %s is not a column of table %s", sqlparse.QuoteIdent(c), displayName(id))
			}
			fk.Columns = append(fk.Columns, found)
		}
		ref := def.RefTable
		var refID catalog.Ident
		if len(ref) == 1 {
			refID = id.Namespace().Child(ref[0])
		} else {
			var err error
			if refID, err = s.tableIdent(ref); err != nil {
				return nil, err
			}
		}
		fk.RefSchema, fk.RefTable = append([]string{}, refID.Namespace()...), refID.Name()
		if fk.Name == "" {
			for {
				n++
				fk.Name = fmt.Sprintf("%s_ibfk_%d", id.Name(), n)
				if !names[strings.ToLower(fk.Name)] {
					break
				}
			}
		}
		if names[strings.ToLower(fk.Name)] {
			return nil, errorf(catalog.CodeInvalidInput, "duplicate foreign key constraint name %s", sqlparse.QuoteIdent(fk.Name))
		}
		names[strings.ToLower(fk.Name)] = true
		b, err := json.Marshal(fk)
		if err != nil {
			return nil, err
		}
		out[ForeignKeyKeyPrefix+fk.Name] = string(b)
	}
	return out, nil
}

// alterKeys applies ALTER TABLE's key actions (DROP/ADD PRIMARY KEY, ADD/DROP
// FOREIGN KEY) to the table's latest version: the primary key moves in one
// field metadata commit, the foreign keys in one schema metadata commit.
func (s *Session) alterKeys(ctx context.Context, id catalog.Ident, actions []sqlparse.AlterAction) error {
	ds, err := s.openLatest(ctx, id)
	if err != nil {
		return err
	}
	schema, err := ds.Schema().ToArrow()
	if err != nil {
		return err
	}
	pk := primaryKeyOf(schema)
	pkChanged := false
	fks := foreignKeysOf(schema)
	setFK := map[string]string{}
	var dropFK []string
	for _, a := range actions {
		switch a := a.(type) {
		case *sqlparse.DropPrimaryKey:
			if len(pk) == 0 {
				return errorf(catalog.CodeInvalidInput, "table %s has no PRIMARY KEY to drop", displayName(id))
			}
			pk, pkChanged = nil, true
		case *sqlparse.AddPrimaryKey:
			if len(pk) > 0 {
				return errorf(catalog.CodeInvalidInput, "multiple primary keys defined (table %s has one: DROP PRIMARY KEY first)", displayName(id))
			}
			var cols []string
			for _, c := range a.Columns {
				f, ok := fieldByName(schema, c)
				if !ok {
					return errorf(catalog.CodeTableColumnNotFound, "PRIMARY KEY column %s is not a column of table %s", sqlparse.QuoteIdent(c), displayName(id))
				}
				if f.Nullable {
					return errorf(catalog.CodeUnsupported, "not supported: PRIMARY KEY on nullable column %s (lancecat cannot make an existing column NOT NULL; Lance's primary key columns are non-nullable)", sqlparse.QuoteIdent(f.Name))
				}
				if slicesContainsFold(cols, f.Name) {
					return errorf(catalog.CodeInvalidInput, "primary key column %s given twice", sqlparse.QuoteIdent(f.Name))
				}
				cols = append(cols, f.Name)
			}
			pk, pkChanged = cols, true
		case *sqlparse.AddForeignKey:
			md, err := s.resolveForeignKeys(id, schema.Fields(), []sqlparse.ForeignKeyDef{a.ForeignKey}, fks)
			if err != nil {
				return err
			}
			for k, v := range md {
				setFK[k] = v
				var fk foreignKey
				_ = json.Unmarshal([]byte(v), &fk)
				fk.Name = strings.TrimPrefix(k, ForeignKeyKeyPrefix)
				fks = append(fks, fk)
			}
		case *sqlparse.DropForeignKey:
			found := -1
			for i, fk := range fks {
				if strings.EqualFold(fk.Name, a.Name) {
					found = i
				}
			}
			if found < 0 {
				if a.IfExists {
					continue
				}
				return errorf(catalog.CodeInvalidInput, "table %s has no foreign key %s", displayName(id), sqlparse.QuoteIdent(a.Name))
			}
			key := ForeignKeyKeyPrefix + fks[found].Name
			delete(setFK, key)
			dropFK = append(dropFK, key)
			fks = append(fks[:found], fks[found+1:]...)
		}
	}
	if pkChanged {
		changes := map[int32]dataset.FieldMetadataChange{}
		for _, f := range ds.Schema().Fields {
			pos := -1
			for i, n := range pk {
				if n == f.Name {
					pos = i
				}
			}
			_, had := f.Metadata[lanceschema.PrimaryKeyPositionKey]
			_, hadFlag := f.Metadata[lanceschema.PrimaryKeyKey]
			switch {
			case pos >= 0:
				changes[f.ID] = dataset.FieldMetadataChange{Set: map[string]string{lanceschema.PrimaryKeyPositionKey: itoa(pos)}, Remove: []string{lanceschema.PrimaryKeyKey}}
			case had || hadFlag:
				changes[f.ID] = dataset.FieldMetadataChange{Remove: []string{lanceschema.PrimaryKeyPositionKey, lanceschema.PrimaryKeyKey}}
			}
		}
		if len(changes) > 0 {
			if ds, err = ds.UpdateFieldsMetadata(ctx, changes); err != nil {
				return err
			}
		}
	}
	if len(setFK) > 0 || len(dropFK) > 0 {
		if _, err := ds.UpdateSchemaMetadata(ctx, setFK, dropFK); err != nil {
			return err
		}
	}
	return nil
}

func fieldByName(schema *arrow.Schema, name string) (arrow.Field, bool) {
	for _, f := range schema.Fields() {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return arrow.Field{}, false
}

func slicesContainsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
