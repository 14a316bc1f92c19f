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
// lancecat's own writes: before an INSERT commits, the new values are
// checked against each other and against the column's live rows in the
// version the append is based on. NULLs never collide (as in MySQL). Other
// writers (LanceDB, Lance) do not enforce it, and two lancecat writers
// appending the same new value at the same moment can both pass the check:
// Lance appends commute, so neither commit conflicts.

// valueKey is a comparable key for element i of arr (arrays of one column
// type only are compared with each other).
func valueKey(arr arrow.Array, i int) string { return arr.ValueStr(i) }

// checkUniqueBatch checks that the non-null values of column col of rec do
// not repeat; it returns the set of keys.
func checkUniqueBatch(rec arrow.RecordBatch, col int) (map[string]int, error) {
	arr := rec.Column(col)
	seen := make(map[string]int, arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			continue
		}
		k := valueKey(arr, i)
		if j, dup := seen[k]; dup {
			return nil, errorf(catalog.CodeInvalidInput, "duplicate entry %s for UNIQUE column %s (rows %d and %d)",
				quoteString(k), sqlparse.QuoteIdent(rec.ColumnName(col)), j+1, i+1)
		}
		seen[k] = i
	}
	return seen, nil
}

// checkUniqueAgainst scans column name of ds and fails on the first live
// value that is in keys. skip, if non-nil, says which row addresses not to
// count (rows an UPDATE replaces).
func checkUniqueAgainst(ctx context.Context, ds *dataset.Dataset, name string, keys map[string]int, skip func(addr uint64) bool) error {
	if len(keys) == 0 {
		return nil
	}
	return ds.Scan(ctx, dataset.ScanOptions{Columns: []string{name}, WithRowAddress: skip != nil}, func(rec arrow.RecordBatch) error {
		arr := rec.Column(0)
		var addrs []uint64
		if skip != nil {
			addrs = rowAddresses(rec)
		}
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) || (skip != nil && skip(addrs[i])) {
				continue
			}
			if _, dup := keys[valueKey(arr, i)]; dup {
				return errorf(catalog.CodeInvalidInput, "duplicate entry %s for UNIQUE column %s (the table already holds it)",
					quoteString(valueKey(arr, i)), sqlparse.QuoteIdent(name))
			}
		}
		return nil
	})
}

// checkUniqueColumns enforces every UNIQUE column of schema for the rows
// of rec about to be appended to ds.
// skipCols are columns known not to collide (freshly assigned ids).
func checkUniqueColumns(ctx context.Context, ds *dataset.Dataset, schema *arrow.Schema, rec arrow.RecordBatch, skipCols map[int]bool) error {
	for i, f := range schema.Fields() {
		if !isUnique(f) || skipCols[i] {
			continue
		}
		keys, err := checkUniqueBatch(rec, i)
		if err != nil {
			return err
		}
		if err := checkUniqueAgainst(ctx, ds, f.Name, keys, nil); err != nil {
			return err
		}
	}
	return nil
}

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
