package manifest

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
)

func open(t *testing.T, uri string) *Catalog {
	t.Helper()
	c, err := OpenCatalog(context.Background(), uri, Options{})
	if err != nil {
		t.Fatalf("OpenCatalog(%s): %v", uri, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func eventsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

func names(t *testing.T) func(catalog.Page, error) []string {
	return func(p catalog.Page, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p.Names
	}
}

// TestManifestRoundTripInMemory runs the catalog's basic operations on the
// Lance-backed persistence (not the fakes) over memory://.
func TestManifestRoundTripInMemory(t *testing.T) {
	ctx := context.Background()
	c := open(t, "memory://lancestore-roundtrip")
	if err := c.CreateNamespace(ctx, catalog.Ident{"a"}, map[string]string{"owner": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, catalog.Ident{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, catalog.Ident{"a", "b", "t"}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	// A second handle on the same store sees everything (no stale cache).
	c2 := open(t, "memory://lancestore-roundtrip")
	if got := names(t)(c2.ListNamespaces(ctx, catalog.Ident{"a"}, catalog.ListOptions{})); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("namespaces of a = %v", got)
	}
	if got := names(t)(c2.ListTables(ctx, catalog.Ident{"a", "b"}, catalog.ListTablesOptions{})); !slices.Equal(got, []string{"t"}) {
		t.Fatalf("tables of a.b = %v", got)
	}
	info, err := c2.DescribeNamespace(ctx, catalog.Ident{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Properties["owner"] != "x" {
		t.Fatalf("properties %v", info.Properties)
	}
	if err := c2.DropTable(ctx, catalog.Ident{"a", "b", "t"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.TableExists(ctx, catalog.Ident{"a", "b", "t"}); err != nil || ok {
		t.Fatalf("after drop: exists=%v err=%v", ok, err)
	}
}

type peerNamespaces struct {
	Namespaces []string `json:"namespaces"`
}

type peerTables struct {
	Tables []string `json:"tables"`
}

func peerList(ctx context.Context, t *testing.T, root string, ns []string) (nss, tables []string) {
	t.Helper()
	var pn peerNamespaces
	if err := peer.Op(ctx, t, "listNamespaces", map[string]any{"uri": root, "namespace": ns}, &pn); err != nil {
		t.Fatalf("peer listNamespaces %v: %v", ns, err)
	}
	var pt peerTables
	if err := peer.Op(ctx, t, "tableNames", map[string]any{"uri": root, "namespace": ns}, &pt); err != nil {
		t.Fatalf("peer tableNames %v: %v", ns, err)
	}
	sort.Strings(pn.Namespaces)
	sort.Strings(pt.Tables)
	return pn.Namespaces, pt.Tables
}

// TestPeerReadsLancecatCatalog: lancecat writes a catalog on local disk; the
// peer lists the same namespaces and tables, opens a table and appends to it.
func TestPeerReadsLancecatCatalog(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	root := t.TempDir()
	c := open(t, root)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.CreateNamespace(ctx, catalog.Ident{"analytics"}, map[string]string{"team": "data"}))
	must(c.CreateNamespace(ctx, catalog.Ident{"analytics", "daily"}, nil))
	_, err := c.CreateTable(ctx, catalog.Ident{"analytics", "events"}, eventsSchema(), catalog.CreateTableOptions{})
	must(err)
	_, err = c.CreateTable(ctx, catalog.Ident{"roots"}, eventsSchema(), catalog.CreateTableOptions{})
	must(err)
	_, err = c.CreateTable(ctx, catalog.Ident{"analytics", "daily", "rollup"}, eventsSchema(), catalog.CreateTableOptions{})
	must(err)

	nss, tables := peerList(ctx, t, root, nil)
	if !slices.Equal(nss, []string{"analytics"}) || !slices.Equal(tables, []string{"roots"}) {
		t.Fatalf("peer root listing: namespaces %v tables %v", nss, tables)
	}
	nss, tables = peerList(ctx, t, root, []string{"analytics"})
	if !slices.Equal(nss, []string{"daily"}) || !slices.Equal(tables, []string{"events"}) {
		t.Fatalf("peer analytics listing: namespaces %v tables %v", nss, tables)
	}
	_, tables = peerList(ctx, t, root, []string{"analytics", "daily"})
	if !slices.Equal(tables, []string{"rollup"}) {
		t.Fatalf("peer analytics.daily tables %v", tables)
	}
	var desc map[string]any
	must(peer.Op(ctx, t, "describeNamespace", map[string]any{"uri": root, "namespace": []string{"analytics"}}, &desc))
	if props, _ := desc["properties"].(map[string]any); props["team"] != "data" {
		t.Fatalf("peer describeNamespace: %v", desc)
	}
	// The peer appends to a table lancecat created, then lancecat counts.
	rows := []map[string]any{{"id": 1, "name": "a"}, {"id": 2, "name": nil}}
	must(peer.Op(ctx, t, "add", map[string]any{"uri": root, "namespace": []string{"analytics"}, "name": "events", "rows": rows}, nil))
	d, err := c.DescribeTable(ctx, catalog.Ident{"analytics", "events"}, catalog.DescribeTableOptions{})
	must(err)
	if d.Version != 2 {
		t.Fatalf("version after peer append = %d, want 2", d.Version)
	}
}

// TestLancecatReadsPeerCatalog: the peer's catalog (fixture catalog-3) lists
// the same in lancecat, and a table lancecat adds is listed by the peer.
func TestLancecatReadsPeerCatalog(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	root := peer.FixtureCopy(t, "catalog-3")
	c := open(t, root)
	for _, ns := range [][]string{nil, {"analytics"}} {
		wantNS, wantTables := peerList(ctx, t, root, ns)
		gotNS := names(t)(c.ListNamespaces(ctx, catalog.Ident(ns), catalog.ListOptions{}))
		gotTables := names(t)(c.ListTables(ctx, catalog.Ident(ns), catalog.ListTablesOptions{}))
		if !slices.Equal(gotNS, wantNS) || !slices.Equal(gotTables, wantTables) {
			t.Fatalf("namespace %v: lancecat lists %v / %v, peer %v / %v", ns, gotNS, gotTables, wantNS, wantTables)
		}
	}
	if _, err := c.CreateTable(ctx, catalog.Ident{"analytics", "from_go"}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	_, tables := peerList(ctx, t, root, []string{"analytics"})
	if !slices.Contains(tables, "from_go") {
		t.Fatalf("peer does not list the table lancecat created: %v", tables)
	}
}
