package manifest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

func openStore(t *testing.T, dir string) storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestIndexedReadsMatchLinearOnPeerFixtures: on `__manifest` tables the
// peer wrote (with its indices), indexed Get/Scan equal the linear path.
func TestIndexedReadsMatchLinearOnPeerFixtures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sample int
		broad  bool
	}{{"catalog-3", 100, true}, {"catalog-5000", 200, true}, {"catalog-100000", 20, false}} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, peer.Fixture(t, tc.name))
			checkIndexedMatchesLinear(t, st, tc.sample, tc.broad)
		})
	}
}

// peerMutate appends rows to `__manifest` and deletes one with the peer
// (dataset API): the appended fragment is covered by no index and the
// deletion lands in a deletion file of an indexed fragment.
func peerMutate(t *testing.T, root, deleteID string) {
	t.Helper()
	ctx := context.Background()
	mdir := filepath.Join(root, catalog.ManifestDir)
	rows := []map[string]any{
		{"object_id": "appended", "object_type": "namespace", "location": nil, "metadata": `{"by":"peer"}`, "base_objects": nil},
		{"object_id": "appended$t", "object_type": "table", "location": "abcd0123_appended$t", "metadata": nil, "base_objects": []any{"ns0$t0", deleteID}},
		{"object_id": deleteID + "x", "object_type": "table", "location": "l", "metadata": nil, "base_objects": []any{}},
	}
	if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": mdir, "rows": rows}, nil); err != nil {
		t.Fatal(err)
	}
	if err := peer.Op(ctx, t, "dataset.delete", map[string]any{"path": mdir, "where": "object_id = '" + deleteID + "'"}, nil); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, root)
	ds, err := dataset.Open(ctx, st, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Fragments()) < 2 || ds.Fragments()[0].Deletion == nil {
		t.Fatalf("peer mutation left fragments %d, first deletion %v", len(ds.Fragments()), ds.Fragments()[0].Deletion)
	}
}

// TestIndexedReadsMatchLinearAfterPeerAppendAndDelete: fragments the
// indices do not cover (a peer append) are scanned, rows the peer deleted
// are not returned, on a catalog lancecat wrote and on a peer fixture.
func TestIndexedReadsMatchLinearAfterPeerAppendAndDelete(t *testing.T) {
	ctx := context.Background()
	t.Run("lancecat-written", func(t *testing.T) {
		dir := t.TempDir()
		mt, _ := newTable(t, dir)
		seedRows(t, mt, true)
		peerMutate(t, dir, "ns2$t3")
		st := openStore(t, dir)
		checkIndexedMatchesLinear(t, st, 1000, true)
		// Through the catalog: a fresh handle sees the appended rows and not
		// the deleted one.
		c := open(t, dir)
		if ok, err := c.TableExists(ctx, catalog.Ident{"appended", "t"}); err != nil || !ok {
			t.Fatalf("appended table: %v %v", ok, err)
		}
		if ok, err := c.TableExists(ctx, catalog.Ident{"ns2", "t3"}); err != nil || ok {
			t.Fatalf("deleted table: %v %v", ok, err)
		}
	})
	t.Run("catalog-5000", func(t *testing.T) {
		dir := peer.FixtureCopy(t, "catalog-5000")
		ds, err := dataset.Open(ctx, openStore(t, dir), catalog.ManifestDir, dataset.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var victim string
		err = ds.Scan(ctx, dataset.ScanOptions{Columns: []string{colObjectID}, Offset: 2500, Limit: 1}, func(rec arrow.RecordBatch) error {
			victim = rec.Column(0).ValueStr(0)
			return nil
		})
		if err != nil || victim == "" {
			t.Fatalf("pick a row: %v", err)
		}
		peerMutate(t, dir, victim)
		checkIndexedMatchesLinear(t, openStore(t, dir), 150, true)
	})
}

type peerPlan struct {
	Plan string `json:"plan"`
}

// TestPeerUsesLancecatManifestIndices: after lancecat's DDL the peer plans
// filtered reads of `__manifest` with lancecat's scalar indices, its
// namespace API works on the catalog, and its next write rebuilds the
// indices, which lancecat then reads through.
func TestPeerUsesLancecatManifestIndices(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := t.TempDir()
	c := open(t, dir)
	if err := c.CreateNamespace(ctx, catalog.Ident{"sales"}, map[string]string{"owner": "ana"}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, catalog.Ident{"sales", "eu"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"orders", "refunds"} {
		if _, err := c.CreateTable(ctx, catalog.Ident{"sales", "eu", name}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mdir := filepath.Join(dir, catalog.ManifestDir)
	for _, tc := range []struct{ where, index string }{
		{"object_id = 'sales$eu$orders'", "object_id_btree"},
		{"object_type = 'namespace'", "object_type_bitmap"},
	} {
		var p peerPlan
		if err := peer.Op(ctx, t, "dataset.explainPlan", map[string]any{"path": mdir, "where": tc.where}, &p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Plan, "ScalarIndexQuery") || !strings.Contains(p.Plan, tc.index) {
			t.Fatalf("peer plan for %s does not use %s:\n%s", tc.where, tc.index, p.Plan)
		}
		// The indexed answer equals a filter over every row.
		var got, all struct {
			Rows []map[string]any `json:"rows"`
		}
		if err := peer.Op(ctx, t, "dataset.query", map[string]any{"path": mdir, "where": tc.where}, &got); err != nil {
			t.Fatal(err)
		}
		if err := peer.Op(ctx, t, "dataset.query", map[string]any{"path": mdir}, &all); err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, r := range all.Rows {
			if (strings.HasPrefix(tc.where, "object_id") && r["object_id"] == "sales$eu$orders") ||
				(strings.HasPrefix(tc.where, "object_type") && r["object_type"] == "namespace") {
				want++
			}
		}
		if len(got.Rows) != want || want == 0 {
			t.Fatalf("peer %s: %d rows through the index, %d by a full filter", tc.where, len(got.Rows), want)
		}
	}

	// The peer's namespace API on lancecat's catalog.
	var nss peerNamespaces
	if err := peer.Op(ctx, t, "listNamespaces", map[string]any{"uri": dir, "namespace": []string{"sales"}}, &nss); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nss.Namespaces, []string{"eu"}) {
		t.Fatalf("peer namespaces of sales: %v", nss.Namespaces)
	}
	var tables struct {
		Tables []string `json:"tables"`
	}
	if err := peer.Op(ctx, t, "tableNames", map[string]any{"uri": dir, "namespace": []string{"sales", "eu"}}, &tables); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tables.Tables, []string{"orders", "refunds"}) {
		t.Fatalf("peer tables of sales.eu: %v", tables.Tables)
	}
	var desc struct {
		Properties map[string]string `json:"properties"`
	}
	if err := peer.Op(ctx, t, "describeNamespace", map[string]any{"uri": dir, "namespace": []string{"sales"}}, &desc); err != nil {
		t.Fatal(err)
	}
	if desc.Properties["owner"] != "ana" {
		t.Fatalf("peer describe sales: %v", desc.Properties)
	}

	// The peer's next write rebuilds the indices over its rewrite.
	if err := peer.Op(ctx, t, "createNamespace", map[string]any{"uri": dir, "namespace": []string{"sales", "us"}}, nil); err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Indices []struct {
			Name             string      `json:"name"`
			NumUnindexedRows json.Number `json:"numUnindexedRows"`
			NumIndexedRows   json.Number `json:"numIndexedRows"`
		} `json:"indices"`
	}
	if err := peer.Op(ctx, t, "dataset.listIndices", map[string]any{"path": mdir}, &idx); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ix := range idx.Indices {
		names = append(names, ix.Name)
		if ix.NumUnindexedRows.String() != "0" || ix.NumIndexedRows.String() == "0" {
			t.Errorf("peer index %s after its rewrite: indexed %s, unindexed %s", ix.Name, ix.NumIndexedRows, ix.NumUnindexedRows)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{indexBaseObjects, indexObjectID, indexObjectType}) {
		t.Fatalf("peer indices after its rewrite: %v", names)
	}
	st := openStore(t, dir)
	ds, err := dataset.Open(ctx, st, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkManifestIndices(t, ds)
	checkIndexedMatchesLinear(t, st, 100, true)
	// And lancecat writes on top of the peer's version again.
	c2 := open(t, dir)
	if got := names2(t, c2, catalog.Ident{"sales"}); !slices.Equal(got, []string{"eu", "us"}) {
		t.Fatalf("lancecat namespaces of sales: %v", got)
	}
	if err := c2.CreateNamespace(ctx, catalog.Ident{"sales", "apac"}, nil); err != nil {
		t.Fatal(err)
	}
	// lancecat's write is incremental: the peer's indices stay, the new
	// row sits in a fragment they do not cover.
	peerVersion := ds
	if ds, err = ds.Latest(ctx); err != nil {
		t.Fatal(err)
	}
	checkIncrementalOn(t, peerVersion, ds)
	checkIndexedMatchesLinear(t, st, 100, true)
	if err := peer.Op(ctx, t, "listNamespaces", map[string]any{"uri": dir, "namespace": []string{"sales"}}, &nss); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nss.Namespaces, []string{"apac", "eu", "us"}) {
		t.Fatalf("peer namespaces of sales after lancecat's write: %v", nss.Namespaces)
	}
}

func names2(t *testing.T, c *Catalog, ns catalog.Ident) []string {
	t.Helper()
	p, err := c.ListNamespaces(context.Background(), ns, catalog.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Names
}
