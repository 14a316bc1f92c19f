package planner

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
)

// UNIQUE columns (field metadata lancecat:unique) are enforced by
// lancecat's own writes, as the PRIMARY KEY is (keys.go). Other writers
// (LanceDB, Lance) do not enforce them.

// valueKey is a comparable key for element i of arr (arrays of one column
// type only are compared with each other).
func valueKey(arr arrow.Array, i int) string { return arr.ValueStr(i) }

// rowAddresses reads the "_rowaddr" column a scan WithRowAddress appends.
func rowAddresses(rec arrow.RecordBatch) []uint64 {
	for i := int(rec.NumCols()) - 1; i >= 0; i-- {
		if rec.ColumnName(i) == "_rowaddr" {
			if a, ok := rec.Column(i).(interface{ Uint64Values() []uint64 }); ok {
				return a.Uint64Values()
			}
		}
	}
	return nil
}

// checkColumnUnique is CREATE UNIQUE INDEX's precondition: the column has
// no unique index yet and its live values do not repeat.
func checkColumnUnique(ctx context.Context, ds *dataset.Dataset, field arrow.Field, name string) error {
	if prev := uniqueIndexName(field); prev != "" {
		return errorf(catalog.CodeInvalidInput, "column %s already has the UNIQUE index %s", sqlparse.QuoteIdent(field.Name), sqlparse.QuoteIdent(prev))
	}
	seen := map[string]bool{}
	err := ds.Scan(ctx, dataset.ScanOptions{Columns: []string{field.Name}}, func(rec arrow.RecordBatch) error {
		arr := rec.Column(0)
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				continue
			}
			k := valueKey(arr, i)
			if seen[k] {
				return errorf(catalog.CodeInvalidInput, "cannot create UNIQUE index %s: column %s holds %s more than once",
					sqlparse.QuoteIdent(name), sqlparse.QuoteIdent(field.Name), quoteString(k))
			}
			seen[k] = true
		}
		return nil
	})
	return err
}

// markUnique sets lancecat:unique on the column (a field metadata commit).
func markUnique(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, column, indexName string) error {
	f := ds.Schema().Field(column)
	if f == nil {
		return errorf(catalog.CodeTableColumnNotFound, "table %s has no column %s", displayName(id), sqlparse.QuoteIdent(column))
	}
	if _, err := ds.UpdateFieldMetadata(ctx, f.ID, map[string]string{UniqueKey: indexName}, nil); err != nil {
		return fmt.Errorf("mark %s UNIQUE: %w", sqlparse.QuoteIdent(column), err)
	}
	return nil
}
