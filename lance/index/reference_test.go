package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// refRow is one row of a reference full scan: its row address and the
// JSON-decoded values of its columns (numbers as json.Number).
type refRow struct {
	addr uint64
	vals map[string]any
}

func openDataset(t testing.TB, dir string) *dataset.Dataset {
	t.Helper()
	return openDatasetRW(t, dir, false)
}

func openDatasetRW(t testing.TB, dir string, writable bool) *dataset.Dataset {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+dir, storage.Options{ReadOnly: !writable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ds, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// rowsFromJSONL reads a peer dump of a single-fragment dataset without
// deletions: line i is the row at address i (fragment 0, offset i).
func rowsFromJSONL(t testing.TB, path string) []refRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []refRow
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, refRow{addr: uint64(len(rows)), vals: m})
	}
	return rows
}

// refValue converts a JSON value of an int64 or utf8 column to the index's
// normalized form (nil for null).
func refValue(t testing.TB, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		return x
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			t.Fatalf("reference value %v: %v", x, err)
		}
		return i
	case string:
		return x
	}
	t.Fatalf("unexpected reference value %T", v)
	return nil
}

// refMatch evaluates q on one row the way SQL does (independently of the
// index code's plan logic for list predicates).
func refMatch(t testing.TB, q Query, v any) bool {
	switch q.Op {
	case OpHasAny, OpHasAll:
		list, ok := v.([]any)
		if !ok {
			return false // null list
		}
		has := func(label any) bool {
			for _, e := range list {
				if e != nil && e.(string) == label.(string) {
					return true
				}
			}
			return false
		}
		for _, l := range q.Values {
			if q.Op == OpHasAny && has(l) {
				return true
			}
			if q.Op == OpHasAll && !has(l) {
				return false
			}
		}
		return q.Op == OpHasAll
	}
	x := refValue(t, v)
	switch q.Op {
	case OpIsNull:
		return x == nil
	case OpEq:
		return x != nil && compareValues(x, q.Values[0]) == 0
	case OpIn:
		for _, c := range q.Values {
			if c != nil && x != nil && compareValues(x, c) == 0 {
				return true
			}
		}
		return false
	case OpPrefix:
		s, ok := x.(string)
		return ok && strings.HasPrefix(s, q.Values[0].(string))
	case OpRange:
		if x == nil {
			return false
		}
		if q.Lo != nil {
			c := compareValues(x, q.Lo.Value)
			if c < 0 || (c == 0 && !q.Lo.Inclusive) {
				return false
			}
		}
		if q.Hi != nil {
			c := compareValues(x, q.Hi.Value)
			if c > 0 || (c == 0 && !q.Hi.Inclusive) {
				return false
			}
		}
		return true
	}
	t.Fatalf("no reference for %s", q.Op)
	return false
}

func refSearch(t testing.TB, rows []refRow, column string, q Query) []uint64 {
	var out []uint64
	for _, r := range rows {
		if refMatch(t, q, r.vals[column]) {
			out = append(out, r.addr)
		}
	}
	slices.Sort(out)
	return out
}

// randomQueries draws queries over the values seen in column: present and
// absent values, empty strings, nulls, ranges and prefixes.
func randomQueries(t testing.TB, rng *rand.Rand, rows []refRow, column string, kind Kind, n int) []Query {
	var present []any
	seen := map[any]bool{}
	isString := false
	var listLabels []any
	for _, r := range rows {
		v := r.vals[column]
		if l, ok := v.([]any); ok {
			for _, e := range l {
				if e != nil && !seen[e] {
					seen[e] = true
					listLabels = append(listLabels, e)
				}
			}
			continue
		}
		x := refValue(t, v)
		if x == nil || seen[x] {
			continue
		}
		seen[x] = true
		present = append(present, x)
		_, isString = x.(string)
	}
	if kind == KindLabelList {
		pool := append(slices.Clone(listLabels), "absent-label", "")
		var qs []Query
		for i := 0; i < n; i++ {
			k := 1 + rng.IntN(3)
			var ls []any
			for j := 0; j < k; j++ {
				ls = append(ls, pool[rng.IntN(len(pool))])
			}
			if i%2 == 0 {
				qs = append(qs, HasAny(ls...))
			} else {
				qs = append(qs, HasAll(ls...))
			}
		}
		return qs
	}
	absent := func() any {
		if isString {
			return []any{"", "zzz-absent", "item-", "\xff"}[rng.IntN(4)]
		}
		return []any{int64(-1), int64(1 << 40), int64(-1 << 62)}[rng.IntN(3)]
	}
	pick := func() any {
		if rng.IntN(5) == 0 || len(present) == 0 {
			return absent()
		}
		return present[rng.IntN(len(present))]
	}
	var qs []Query
	for i := 0; i < n; i++ {
		switch i % 6 {
		case 0:
			qs = append(qs, Eq(pick()))
		case 1:
			vs := []any{pick(), pick(), pick()}
			if rng.IntN(3) == 0 {
				vs = append(vs, nil)
			}
			qs = append(qs, In(vs...))
		case 2:
			qs = append(qs, IsNull())
		case 3:
			a, b := pick(), pick()
			if compareValues(a, b) > 0 {
				a, b = b, a
			}
			lo := &Bound{Value: a, Inclusive: rng.IntN(2) == 0}
			hi := &Bound{Value: b, Inclusive: rng.IntN(2) == 0}
			switch rng.IntN(4) {
			case 0:
				lo = nil
			case 1:
				hi = nil
			}
			if lo == nil && hi == nil {
				hi = &Bound{Value: b, Inclusive: true}
			}
			qs = append(qs, Range(lo, hi))
		case 4, 5:
			if !isString {
				qs = append(qs, Eq(pick()))
				continue
			}
			s, _ := pick().(string)
			if len(s) > 0 {
				s = s[:rng.IntN(len(s)+1)]
			}
			qs = append(qs, Prefix(s))
		}
	}
	return qs
}

// checkSearch compares the index answer with the reference for each query.
func checkSearch(t *testing.T, ix *Index, rows []refRow, column string, qs []Query) {
	checkSearchMin(t, ix, rows, column, qs, len(qs)/4)
}

// checkSearchMin is checkSearch requiring at least minNonEmpty queries with
// matches (0 for an index over no values).
func checkSearchMin(t *testing.T, ix *Index, rows []refRow, column string, qs []Query, minNonEmpty int) {
	t.Helper()
	ctx := context.Background()
	nonEmpty := 0
	defer func() {
		// The query mix must exercise real matches, not only empty answers.
		if !t.Failed() && nonEmpty < minNonEmpty {
			t.Errorf("%s: only %d of %d queries matched any row", ix.Name(), nonEmpty, len(qs))
		}
	}()
	for _, q := range qs {
		res, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatalf("%s %s: %v", ix.Name(), q, err)
		}
		got, err := res.Rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		want := refSearch(t, rows, column, q)
		if len(want) > 0 {
			nonEmpty++
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s %s: index returned %d rows, full scan %d (first diff %s)", ix.Name(), q, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []uint64) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %d vs %d", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}

// rowsFromScan is the reference full scan: every live row of ds with its row
// address and the value of column (normalized; lists as []any).
func rowsFromScan(t testing.TB, ds *dataset.Dataset, column string) []refRow {
	t.Helper()
	var rows []refRow
	err := ds.Scan(context.Background(), dataset.ScanOptions{Columns: []string{column}, WithRowAddress: true},
		func(rec arrow.RecordBatch) error {
			col := rec.Column(0)
			addrs := rec.Column(1).(*array.Uint64)
			for i := 0; i < int(rec.NumRows()); i++ {
				var v any
				if l, ok := col.(*array.List); ok {
					if !l.IsNull(i) {
						a, b := l.ValueOffsets(i)
						items := []any{}
						for j := a; j < b; j++ {
							x, ok, err := valueAt(l.ListValues(), int(j))
							if err != nil {
								return err
							}
							if !ok {
								x = nil
							}
							items = append(items, x)
						}
						v = items
					}
				} else {
					x, ok, err := valueAt(col, i)
					if err != nil {
						return err
					}
					if ok {
						v = x
					}
				}
				rows = append(rows, refRow{addr: addrs.Value(i), vals: map[string]any{column: v}})
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
