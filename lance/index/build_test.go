package index

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

// peerTableRows makes rows for a peer-created table: int64 id, utf8 name
// (nulls, empty strings), low-cardinality category, list<utf8> tags.
func peerTableRows(n int, seed uint64) []map[string]any {
	rng := rand.New(rand.NewPCG(seed, 9))
	cats := []any{"red", "green", "blue", "", nil}
	labels := []string{"a", "b", "c", "d", ""}
	rows := make([]map[string]any, n)
	for i := range rows {
		var name any = fmt.Sprintf("n%04d", rng.IntN(n/3))
		switch rng.IntN(20) {
		case 0:
			name = nil
		case 1:
			name = ""
		}
		var tags any
		if rng.IntN(15) != 0 {
			l := []any{}
			for j := rng.IntN(4); j > 0; j-- {
				l = append(l, labels[rng.IntN(len(labels))])
			}
			tags = l
		}
		rows[i] = map[string]any{"id": (i * 37) % n, "name": name, "category": cats[rng.IntN(len(cats))], "tags": tags}
	}
	return rows
}

var peerTableSchema = map[string]any{"fields": []any{
	map[string]any{"name": "id", "type": "int64", "nullable": false},
	map[string]any{"name": "name", "type": "utf8", "nullable": true},
	map[string]any{"name": "category", "type": "utf8", "nullable": true},
	map[string]any{"name": "tags", "type": map[string]any{"list": map[string]any{"name": "item", "type": "utf8", "nullable": true}}, "nullable": true},
}}

// TestPeerUsesLancecatIndices builds the four index kinds with lancecat on a
// table the peer wrote, then has the peer list them, plan filtered queries
// with them (explainPlan names the scalar index) and answer those queries
// with exactly the rows of lancecat's full scan. The peer then rebuilds one
// of them under the same name and lancecat reads the rebuilt index.
func TestPeerUsesLancecatIndices(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	root := t.TempDir()
	const n = 600 // command-line size limit; small BTREE pages below make several pages
	if err := peer.Op(ctx, t, "createTable", map[string]any{"uri": root, "name": "t", "manifestEnabled": false,
		"schema": peerTableSchema, "rows": peerTableRows(n, 1)}, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "t.lance")
	ds := openDatasetRW(t, dir, true)
	specs := []struct {
		column, name string
		kind         Kind
		where        string
		q            Query
		negate       bool // the where clause is NOT q (null values never match)
	}{
		{"id", "lc_id_btree", KindBTree, "id = 424", Eq(int64(424)), false},
		{"name", "lc_name_btree", KindBTree, "name IN ('n0007', 'n0100', '')", In("n0007", "n0100", ""), false},
		{"category", "lc_category_bitmap", KindBitmap, "category = 'green'", Eq("green"), false},
		{"tags", "lc_tags_label_list", KindLabelList, "array_has_any(tags, ['b', 'd'])", HasAny("b", "d"), false},
		// Needs the null-list rows lancecat stored: null lists must not match NOT.
		{"tags", "lc_tags_label_list", KindLabelList, "NOT array_has_any(tags, ['b'])", HasAny("b"), true},
	}
	var err error
	for _, s := range specs {
		if s.negate {
			continue // same index as the previous spec
		}
		ds, err = CreateIndex(ctx, ds, s.column, s.kind, BuildOptions{Name: s.name, BatchSize: 128})
		if err != nil {
			t.Fatalf("build %s: %v", s.name, err)
		}
	}
	var listed struct {
		Indices []struct {
			Name      string `json:"name"`
			IndexType string `json:"indexType"`
			Columns   []string
		} `json:"indices"`
	}
	if err := peer.Op(ctx, t, "dataset.listIndices", map[string]any{"path": dir}, &listed); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		found := false
		for _, li := range listed.Indices {
			found = found || li.Name == s.name
		}
		if !found {
			t.Fatalf("peer does not list %s: %+v", s.name, listed.Indices)
		}
	}
	for _, s := range specs {
		t.Run(s.where, func(t *testing.T) {
			var plan struct{ Plan string }
			if err := peer.Op(ctx, t, "dataset.explainPlan", map[string]any{"path": dir, "where": s.where, "verbose": true}, &plan); err != nil {
				t.Fatal(err)
			}
			t.Logf("peer plan for %q:\n%s", s.where, plan.Plan)
			if !strings.Contains(plan.Plan, "ScalarIndexQuery") || !strings.Contains(plan.Plan, "@"+s.name) {
				t.Fatalf("peer plan for %q does not use a scalar index:\n%s", s.where, plan.Plan)
			}
			// The peer's answer (through our index) equals lancecat's full scan.
			var got struct{ Rows []map[string]json.Number }
			if err := peer.Op(ctx, t, "dataset.query", map[string]any{"path": dir, "where": s.where, "columns": []string{"id"}}, &got); err != nil {
				t.Fatal(err)
			}
			rows := rowsFromScan(t, ds, s.column)
			ids := rowsFromScan(t, ds, "id")
			var want, peerIDs []string
			for i, r := range rows {
				m := refMatch(t, s.q, r.vals[s.column])
				if s.negate {
					m = r.vals[s.column] != nil && !m
				}
				if m {
					want = append(want, fmt.Sprint(ids[i].vals["id"]))
				}
			}
			for _, r := range got.Rows {
				peerIDs = append(peerIDs, r["id"].String())
			}
			slices.Sort(want)
			slices.Sort(peerIDs)
			if len(want) == 0 || !slices.Equal(want, peerIDs) {
				t.Fatalf("peer returned %d rows for %q, full scan %d", len(peerIDs), s.where, len(want))
			}
			// And lancecat's own search of the index it built agrees.
			ix, err := Open(ctx, ds, s.name)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(4, uint64(len(s.name))))
			checkSearch(t, ix, rows, s.column, randomQueries(t, rng, rows, s.column, s.kind, 60))
		})
	}
	// The peer rebuilds an index lancecat wrote, under the same name.
	if err := peer.Op(ctx, t, "dataset.createIndex", map[string]any{"path": dir, "column": "name", "kind": "btree", "indexName": "lc_name_btree"}, nil); err != nil {
		t.Fatalf("peer rebuild: %v", err)
	}
	ds = openDataset(t, dir)
	ix, err := Open(ctx, ds, "lc_name_btree")
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Segments()) != 1 {
		t.Fatalf("%d segments after the peer's rebuild", len(ix.Segments()))
	}
	rows := rowsFromScan(t, ds, "name")
	checkSearch(t, ix, rows, "name", randomQueries(t, rand.New(rand.NewPCG(5, 5)), rows, "name", KindBTree, 60))
}

// TestPeerOptimizesLancecatIndices has the peer append rows to a table
// indexed by lancecat and run optimize(), which merges the new rows into the
// existing indices by reading lancecat's index files. Afterwards every index
// must cover every fragment and answer like a full scan.
func TestPeerOptimizesLancecatIndices(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	root := t.TempDir()
	if err := peer.Op(ctx, t, "createTable", map[string]any{"uri": root, "name": "t", "manifestEnabled": false,
		"schema": peerTableSchema, "rows": peerTableRows(300, 2)}, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "t.lance")
	ds := openDatasetRW(t, dir, true)
	kinds := []struct {
		column string
		kind   Kind
	}{{"id", KindBTree}, {"name", KindBTree}, {"category", KindBitmap}, {"tags", KindLabelList}}
	var err error
	for _, k := range kinds {
		if ds, err = CreateIndex(ctx, ds, k.column, k.kind, BuildOptions{BatchSize: 64}); err != nil {
			t.Fatal(err)
		}
	}
	more := peerTableRows(300, 3)[:120]
	for i := range more {
		more[i]["id"] = 1000 + i
	}
	if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": more}, nil); err != nil {
		t.Fatal(err)
	}
	out, err := peer.Run(ctx, t, "../../lance/index/testdata/peer_optimize.mjs", dir)
	if err != nil {
		t.Fatalf("peer optimize: %v", err)
	}
	t.Logf("peer optimize: %s", out)
	ds = openDataset(t, dir)
	for _, k := range kinds {
		name := k.column + "_idx"
		ix, err := Open(ctx, ds, name)
		if err != nil {
			t.Fatal(err)
		}
		if u := ix.Uncovered(); len(u) != 0 {
			t.Fatalf("%s: fragments %v still uncovered after the peer's optimize", name, u)
		}
		rows := rowsFromScan(t, ds, k.column)
		if len(rows) != 420 {
			t.Fatalf("%d rows after optimize", len(rows))
		}
		checkSearch(t, ix, rows, k.column, randomQueries(t, rand.New(rand.NewPCG(6, 6)), rows, k.column, k.kind, 60))
	}
}
