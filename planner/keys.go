package planner

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
)

// Keys lancecat enforces on its own writes: the PRIMARY KEY (Lance's
// "unenforced" primary key, all its columns together) and each UNIQUE
// column. Every write path (INSERT, INSERT ... SELECT, LOAD DATA, IMPORT
// INTO, UPDATE; the upserts decide per key in upsert.go) checks its new
// keys against each other and against the live rows of the version it
// read, then commits with a recheck (dataset.RowChangeOptions.Recheck):
// when a concurrent commit makes the append rebase, the rows that commit
// added (the fragments the checked version did not have, or whose data
// files changed) are checked too, before the commit is rebuilt on it. So a
// key is checked against exactly the version the commit lands on, and of
// two lancecat writers inserting the same new key one wins and the other
// fails with 1062. A NULL in a key column matches nothing, as in MySQL.
//
// The table side of a check reads only the key's columns, or, for a
// one-column integer or string key with a scalar index and a statement of
// at most keyIndexLookupMax keys, asks the index (`col IN (keys)`, as a
// WHERE would), which reads only the matching rows plus the fragments the
// index does not cover.

// keyIndexLookupMax is the largest number of a statement's keys looked up
// through the key's index; more are checked by a scan of the key columns
// (an IN list of many values costs more index page reads than one scan).
const keyIndexLookupMax = 4096

// tableKey is one enforced key.
type tableKey struct {
	cols    []int // positions in the table schema
	primary bool
}

// enforcedKeys lists the keys of schema: the PRIMARY KEY first, then each
// UNIQUE column that is not the whole primary key.
func enforcedKeys(schema *arrow.Schema) []tableKey {
	var out []tableKey
	for ki, k := range upsertKeys(schema) {
		out = append(out, tableKey{cols: k, primary: ki == 0 && len(primaryKeyOf(schema)) > 0})
	}
	return out
}

// has reports whether column c is part of the key.
func (k tableKey) has(c int) bool {
	for _, x := range k.cols {
		if x == c {
			return true
		}
	}
	return false
}

// names are the key's column names.
func (k tableKey) names(schema *arrow.Schema) []string {
	out := make([]string, len(k.cols))
	for i, c := range k.cols {
		out[i] = schema.Field(c).Name
	}
	return out
}

// keyAt is the comparable key of row i of the columns cols of rec, and its
// text as MySQL's 1062 shows it (the values joined by '-'); ok is false
// when a key column is NULL.
func keyAt(rec arrow.RecordBatch, cols []int, i int) (key, shown string, ok bool) {
	if len(cols) == 1 {
		arr := rec.Column(cols[0])
		if arr.IsNull(i) {
			return "", "", false
		}
		k := valueKey(arr, i)
		return k, k, true
	}
	var kb, sb strings.Builder
	for j, c := range cols {
		arr := rec.Column(c)
		if arr.IsNull(i) {
			return "", "", false
		}
		v := valueKey(arr, i)
		if j > 0 {
			kb.WriteByte(0)
			sb.WriteByte('-')
		}
		// The length first: values holding the separator stay apart.
		kb.WriteString(strconv.Itoa(len(v)))
		kb.WriteByte(':')
		kb.WriteString(v)
		sb.WriteString(v)
	}
	return kb.String(), sb.String(), true
}

// duplicateError is the error of a key the statement gives twice or the
// table already holds: MySQL's 1062 text for the PRIMARY KEY, lancecat's
// own (kept for the UNIQUE columns it always had) naming the column and
// where the other copy is (detail: "rows 1 and 2", "the table already
// holds it").
func (k tableKey) duplicateError(schema *arrow.Schema, shown, detail string) error {
	if k.primary {
		return errorf(catalog.CodeInvalidInput, "Duplicate entry '%s' for key 'PRIMARY'", shown)
	}
	return errorf(catalog.CodeInvalidInput, "duplicate entry %s for UNIQUE column %s (%s)",
		quoteString(shown), sqlparse.QuoteIdent(schema.Field(k.cols[0]).Name), detail)
}

// statementKeys are the keys a statement writes, per enforced key: key ->
// row number (0-based) in the statement.
type statementKeys struct {
	keys []tableKey
	seen []map[string]int
}

func newStatementKeys(keys []tableKey) *statementKeys {
	sk := &statementKeys{keys: keys, seen: make([]map[string]int, len(keys))}
	for i := range keys {
		sk.seen[i] = map[string]int{}
	}
	return sk
}

// add records the keys of rec's rows (the statement's rows from, from+1,
// ...) and fails on one the statement already gave. skip(ki) leaves key ki
// out (fresh AUTO_INCREMENT ids cannot collide).
func (sk *statementKeys) add(schema *arrow.Schema, rec arrow.RecordBatch, from int, skip func(ki int) bool) error {
	for ki, k := range sk.keys {
		if skip != nil && skip(ki) {
			continue
		}
		seen := sk.seen[ki]
		for i := 0; i < int(rec.NumRows()); i++ {
			key, shown, ok := keyAt(rec, k.cols, i)
			if !ok {
				continue
			}
			if j, dup := seen[key]; dup {
				return k.duplicateError(schema, shown, "rows "+strconv.Itoa(j+1)+" and "+strconv.Itoa(from+i+1))
			}
			seen[key] = from + i
		}
	}
	return nil
}

// checkTable checks every key of sk against the live rows of ds (skip, if
// non-nil, names rows not to count: the ones an UPDATE replaces). frags,
// if non-nil, restricts the check to those fragments (a recheck).
func (s *Session) checkKeysAgainst(ctx context.Context, ds *dataset.Dataset, schema *arrow.Schema, sk *statementKeys, skip func(addr uint64) bool, frags []uint64) error {
	for ki, k := range sk.keys {
		if err := checkKeyAgainst(ctx, s, ds, schema, k, sk.seen[ki], skip, frags); err != nil {
			return err
		}
	}
	return nil
}

// checkKeyAgainst checks the keys (of key k) against the live rows of ds,
// as checkKeysAgainst does for all of a statement's.
func checkKeyAgainst[V any](ctx context.Context, s *Session, ds *dataset.Dataset, schema *arrow.Schema, k tableKey, keys map[string]V, skip func(addr uint64) bool, frags []uint64) error {
	return checkKeyAgainstFn(ctx, s, ds, schema, k, keys, skip, frags, func(shown string, _ V) error {
		return k.duplicateError(schema, shown, "the table already holds it")
	})
}

// checkKeyAgainstFn is checkKeyAgainst whose error for a key the table
// holds is dup's (given the key's text and its value in keys).
func checkKeyAgainstFn[V any](ctx context.Context, s *Session, ds *dataset.Dataset, schema *arrow.Schema, k tableKey, keys map[string]V, skip func(addr uint64) bool, frags []uint64, dup func(shown string, v V) error) error {
	if len(keys) == 0 || (frags != nil && len(frags) == 0) {
		return nil
	}
	hit := func(rec arrow.RecordBatch, cols []int, i int, addr uint64) error {
		if skip != nil && skip(addr) {
			return nil
		}
		key, shown, ok := keyAt(rec, cols, i)
		if !ok {
			return nil
		}
		if v, held := keys[key]; held {
			return dup(shown, v)
		}
		return nil
	}
	if frags == nil && len(keys) <= keyIndexLookupMax {
		if where := keyIndexLookup(ds, schema, k, keys); where != nil {
			env := newRowEnv(columnsOf(schema))
			env.session = s
			name := schema.Field(k.cols[0]).Name
			return s.matchingRows(ctx, ds, schema, env, where, false, func(addr uint64, rec arrow.RecordBatch, i int) error {
				c := rec.Schema().FieldIndices(name)
				if len(c) == 0 {
					return errorf(catalog.CodeInternal, "key lookup of %s returned no such column", sqlparse.QuoteIdent(name))
				}
				return hit(rec, c[:1], i, addr)
			})
		}
	}
	names := k.names(schema)
	cols := make([]int, len(names))
	for i := range cols {
		cols[i] = i
	}
	return ds.Scan(ctx, dataset.ScanOptions{Columns: names, Fragments: frags, WithRowAddress: skip != nil}, func(rec arrow.RecordBatch) error {
		var addrs []uint64
		if skip != nil {
			addrs = rowAddresses(rec)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var addr uint64
			if addrs != nil {
				addr = addrs[i]
			}
			if err := hit(rec, cols, i, addr); err != nil {
				return err
			}
		}
		return nil
	})
}

// keyIndexLookup is `col IN (keys)` for a one-column integer or string key
// that has a scalar index (nil otherwise: the caller scans).
func keyIndexLookup[V any](ds *dataset.Dataset, schema *arrow.Schema, k tableKey, keys map[string]V) sqlparse.Expr {
	if len(k.cols) != 1 {
		return nil
	}
	f := schema.Field(k.cols[0])
	if len(indexedFields(ds)[f.Name]) == 0 {
		return nil
	}
	in := &sqlparse.InList{X: &sqlparse.ColumnRef{Column: f.Name}}
	for key := range keys {
		switch f.Type.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
			v, err := strconv.ParseInt(key, 10, 64)
			if err != nil {
				return nil
			}
			in.List = append(in.List, &sqlparse.Literal{Kind: sqlparse.LitInt, Value: v})
		case arrow.STRING:
			in.List = append(in.List, &sqlparse.Literal{Kind: sqlparse.LitString, Value: key})
		default:
			return nil
		}
	}
	return in
}

// keyRecheck is the Recheck of a commit whose keys were checked against
// checked: check(latest, frags) checks them against the fragments of each
// later version that checked did not have (new fragments, or fragments
// whose data files changed; deletions only remove rows, so they cannot
// make a duplicate).
func keyRecheck(checked *dataset.Dataset, check func(ctx context.Context, latest *dataset.Dataset, frags []uint64) error) func(ctx context.Context, latest *dataset.Dataset) error {
	seen := fragmentFiles(checked)
	return func(ctx context.Context, latest *dataset.Dataset) error {
		now := fragmentFiles(latest)
		frags := []uint64{}
		for _, f := range latest.Manifest().Fragments {
			if seen[f.ID] != now[f.ID] {
				frags = append(frags, f.ID)
			}
		}
		seen = now
		if len(frags) == 0 {
			return nil
		}
		return check(ctx, latest, frags)
	}
}

// statementRecheck is keyRecheck for the keys of sk.
func (s *Session) statementRecheck(schema *arrow.Schema, checked *dataset.Dataset, sk *statementKeys, skip func(addr uint64) bool) func(ctx context.Context, latest *dataset.Dataset) error {
	return keyRecheck(checked, func(ctx context.Context, latest *dataset.Dataset, frags []uint64) error {
		return s.checkKeysAgainst(ctx, latest, schema, sk, skip, frags)
	})
}

// fragmentFiles maps each fragment of ds to its data file paths.
func fragmentFiles(ds *dataset.Dataset) map[uint64]string {
	out := map[uint64]string{}
	for _, f := range ds.Manifest().Fragments {
		var b strings.Builder
		for _, df := range f.Files {
			b.WriteString(df.Path)
			b.WriteByte(0)
		}
		out[f.ID] = b.String()
	}
	return out
}
