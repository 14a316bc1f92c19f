package conformance

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/planner"
)

// TestFloatIndexNaNAndZeros: the reference writes a DOUBLE column holding
// NaN, ±Infinity, -0, 0, ordinary numbers and NULLs, with a BTREE on it
// (the reference refuses a BITMAP on a float column). lancecat's WHERE
// over it (=, ranges, BETWEEN, zero bounds) returns the same rows through
// the index as through a scan without indices, and those rows are the ones the documented order
// gives (totalOrder with -0 = 0: NaN above +Infinity, equal to itself);
// predicates away from zero also match the reference's own filter (which
// orders floats by totalOrder too). ORDER BY follows the same order.
func TestFloatIndexNaNAndZeros(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	negZero := math.Copysign(0, -1)
	// Values by id; the JSON the peer reads spells NaN and the infinities
	// as strings.
	values := []any{nil, math.NaN(), math.Inf(1), math.Inf(-1), negZero, 0.0, 1.5, -1.5, 2.0, math.NaN(), negZero, 0.0, nil, 1e300, -2.0}
	jsonValue := func(v any) any {
		f, ok := v.(float64)
		switch {
		case !ok:
			return nil
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return f
	}
	var rows []map[string]any
	for rep := range 20 { // several pages' worth of repeats
		for i, v := range values {
			rows = append(rows, map[string]any{"id": rep*100 + i, "f": jsonValue(v)})
		}
	}
	schema := map[string]any{"fields": []map[string]any{
		{"name": "id", "type": "int64", "nullable": false},
		{"name": "f", "type": "float64", "nullable": true},
	}}
	res, err := peer.Batch(ctx, t,
		peer.BatchOp{Op: "createTable", Args: map[string]any{"uri": root, "name": "fl", "schema": schema, "rows": rows}},
		peer.BatchOp{Op: "createIndex", Args: map[string]any{"uri": root, "name": "fl", "column": "f", "kind": "btree", "indexName": "f_bt"}},
	)
	if err != nil {
		t.Fatalf("the peer writes the table: %v", err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("peer op %d: %v", i, r.Err)
		}
	}
	lc, err := manifest.OpenCatalog(ctx, root, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	counter := &servedLookups{}
	indexed := planner.NewSession(lc.Catalog, planner.Options{Store: lc.Store, Indexes: counter})
	scanned := planner.NewSession(lc.Catalog, planner.Options{Store: lc.Store, NoIndexes: true})
	ids := func(s *planner.Session, q string) []int64 {
		out := []int64{}
		for _, r := range sessionExec(ctx, t, s, q).Rows {
			out = append(out, r[0].(int64))
		}
		return out
	}
	// want computes the rows from the values: keep decides on a non-NULL
	// value.
	want := func(keep func(f float64) bool) []int64 {
		out := []int64{}
		for rep := range 20 {
			for i, v := range values {
				if f, ok := v.(float64); ok && keep(f) {
					out = append(out, int64(rep*100+i))
				}
			}
		}
		return out
	}
	isNaN := math.IsNaN
	cases := []struct {
		where string
		keep  func(float64) bool
		peer  bool // the reference's filter agrees (no zero involved)
	}{
		{"%s = 1.5", func(f float64) bool { return f == 1.5 }, true},
		{"%s = 0", func(f float64) bool { return f == 0 }, false},
		{"%s > 1", func(f float64) bool { return f > 1 || isNaN(f) }, true},
		{"%s >= 2", func(f float64) bool { return f >= 2 || isNaN(f) }, true},
		{"%s < -1", func(f float64) bool { return f < -1 }, true},
		{"%s <= 1.5", func(f float64) bool { return f <= 1.5 }, true},
		{"%s > 0", func(f float64) bool { return f > 0 || isNaN(f) }, false},
		{"%s >= 0", func(f float64) bool { return f >= 0 || isNaN(f) }, false},
		{"%s < 0", func(f float64) bool { return f < 0 }, false},
		{"%s <= 0", func(f float64) bool { return f <= 0 }, false},
		{"%s BETWEEN -1.5 AND 0", func(f float64) bool { return f >= -1.5 && f <= 0 }, false},
		{"%s BETWEEN 1 AND 1e308", func(f float64) bool { return f >= 1 && f <= 1e308 }, true},
		{"%s > 1e308", func(f float64) bool { return f > 1e308 || isNaN(f) }, true},
	}
	var peerQueries []map[string]any
	for _, c := range cases {
		where := fmt.Sprintf(c.where, "f")
		q := "SELECT id FROM fl WHERE " + where + " ORDER BY id"
		before := counter.served
		got := ids(indexed, q)
		if counter.served == before {
			t.Errorf("WHERE %s: not answered through the index:\n%s", where, explainText(ctx, t, indexed, q))
		}
		if scan := ids(scanned, q); !reflect.DeepEqual(got, scan) {
			t.Errorf("WHERE %s: indexed %v, scanned %v", where, got, scan)
		}
		if w := want(c.keep); !reflect.DeepEqual(got, w) {
			t.Errorf("WHERE %s: got %v, want %v", where, got, w)
		}
		if c.peer {
			peerQueries = append(peerQueries, map[string]any{"where": where, "columns": []string{"id"}})
		}
	}
	var peerRes struct {
		Results []struct {
			Rows []struct {
				ID float64 `json:"id"`
			} `json:"rows"`
		} `json:"results"`
	}
	if err := peer.Op(ctx, t, "dataset.queryMany", map[string]any{"uri": root, "name": "fl", "queries": peerQueries}, &peerRes); err != nil {
		t.Fatal(err)
	}
	for i, pq := range peerQueries {
		theirs := []int64{}
		for _, r := range peerRes.Results[i].Rows {
			theirs = append(theirs, int64(r.ID))
		}
		sort.Slice(theirs, func(a, b int) bool { return theirs[a] < theirs[b] })
		if ours := ids(scanned, fmt.Sprintf("SELECT id FROM fl WHERE %s ORDER BY id", pq["where"])); !reflect.DeepEqual(ours, theirs) {
			t.Errorf("WHERE %s: lancecat %v, the reference %v", pq["where"], ours, theirs)
		}
	}
	// ORDER BY: NULLs first, then -Inf ... -0 = 0 ... +Inf, NaN last.
	var order []string
	for _, r := range sessionExec(ctx, t, indexed, "SELECT f FROM fl WHERE id < 100 ORDER BY f, id").Rows {
		order = append(order, fmt.Sprint(r[0]))
	}
	if got := fmt.Sprint(order); got != "[<nil> <nil> -Inf -2 -1.5 -0 0 -0 0 1.5 2 1e+300 +Inf NaN NaN]" {
		t.Errorf("ORDER BY f: %s", got)
	}
}
