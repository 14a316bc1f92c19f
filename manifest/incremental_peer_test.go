package manifest

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
)

// TestPeerOnIncrementalLayouts: the peer reads, lists, describes and then
// writes to a catalog lancecat left in each state of the incremental write
// path (small uncovered fragments, deletion files, just tier-merged, just
// fully rewritten); lancecat then reads the peer's full rewrite, writes on
// top of it incrementally, and the peer lists that too.
func TestPeerOnIncrementalLayouts(t *testing.T) {
	peer.Require(t)
	for _, tc := range []struct {
		name   string
		opts   WriteOptions
		tables []string // created one by one after the seed batch
		drops  []catalog.Ident
		wantOp string
	}{
		{"small-fragments", WriteOptions{}, []string{"t1", "t2", "t3"}, nil, "Append"},
		{"deletions", WriteOptions{MergeFanout: 8}, []string{"t1", "t2"}, []catalog.Ident{{"z"}, {"a", "t1"}, {"a", "t0"}}, "Delete"},
		{"just-merged", WriteOptions{}, []string{"t1", "t2", "t3", "t4"}, nil, "Update"}, // the tier merge rides on the fourth create
		{"just-compacted", WriteOptions{RewriteMinRows: 3, RewriteDivisor: 1 << 20}, []string{"t1", "t2", "t3"}, []catalog.Ident{{"z"}}, "Overwrite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			c, err := OpenCatalog(ctx, root, Options{Write: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The seed: one batch, so one full rewrite with indices over it.
			b := c.NewBatch()
			b.CreateNamespace(catalog.Ident{"a"}, map[string]string{"owner": "ana"})
			b.CreateNamespace(catalog.Ident{"z"}, nil)
			b.CreateTable(catalog.Ident{"a", "t0"}, eventsSchema(), catalog.CreateTableOptions{})
			if err := b.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			for _, name := range tc.tables {
				if _, err := c.CreateTable(ctx, catalog.Ident{"a", name}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range tc.drops {
				var err error
				if len(id) == 1 {
					err = c.DropNamespace(ctx, id, catalog.DropNamespaceOptions{})
				} else {
					err = c.DropTable(ctx, id)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if op, _ := opOf(t, c.Store); op != tc.wantOp {
				t.Fatalf("latest operation %s, want %s", op, tc.wantOp)
			}
			lancecatNS, lancecatTables := lancecatList(t, c, nil), lancecatList(t, c, catalog.Ident{"a"})
			// One node process per call: ask only what is compared.
			nss := peerNames(t, "listNamespaces", root, nil)
			tables := peerNames(t, "tableNames", root, []string{"a"})
			if !slices.Equal(nss, lancecatNS) || !slices.Equal(tables, lancecatTables) {
				t.Fatalf("peer lists namespaces %v tables %v; lancecat %v %v", nss, tables, lancecatNS, lancecatTables)
			}
			var desc struct {
				Properties map[string]string `json:"properties"`
			}
			if err := peer.Op(ctx, t, "describeNamespace", map[string]any{"uri": root, "namespace": []string{"a"}}, &desc); err != nil {
				t.Fatal(err)
			}
			if desc.Properties["owner"] != "ana" {
				t.Fatalf("peer describes a as %v", desc.Properties)
			}
			// The peer writes: a full rewrite of its own.
			if err := peer.Op(ctx, t, "createNamespace", map[string]any{"uri": root, "namespace": []string{"a", "bypeer"}}, nil); err != nil {
				t.Fatal(err)
			}
			if op, ds := opOf(t, c.Store); op != "Overwrite" || len(ds.Fragments()) != 1 {
				t.Fatalf("peer's write is a %s with %d fragments, want one rewritten fragment", op, len(ds.Fragments()))
			}
			checkIndexedMatchesLinear(t, openStore(t, root), 100, true)
			fresh := open(t, root)
			if got := lancecatList(t, fresh, catalog.Ident{"a"}); !slices.Equal(got, lancecatTables) {
				t.Fatalf("lancecat tables of a after the peer's rewrite: %v, want %v", got, lancecatTables)
			}
			if p, err := fresh.ListNamespaces(ctx, catalog.Ident{"a"}, catalog.ListOptions{}); err != nil || !slices.Equal(p.Names, []string{"bypeer"}) {
				t.Fatalf("lancecat namespaces of a after the peer's write: %v %v", p.Names, err)
			}
			// lancecat writes incrementally on the peer's version; the peer reads it.
			_, before := opOf(t, c.Store)
			if _, err := fresh.CreateTable(ctx, catalog.Ident{"a", "after"}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
				t.Fatal(err)
			}
			_, after := opOf(t, c.Store)
			checkIncrementalOn(t, before, after)
			tables = peerNames(t, "tableNames", root, []string{"a"})
			want := append(slices.Clone(lancecatTables), "after")
			sort.Strings(want)
			if !slices.Equal(tables, want) {
				t.Fatalf("peer tables of a after lancecat's write on its rewrite: %v, want %v", tables, want)
			}
		})
	}
}

func lancecatList(t *testing.T, c *Catalog, ns catalog.Ident) []string {
	t.Helper()
	ctx := context.Background()
	var p catalog.Page
	var err error
	if ns == nil {
		p, err = c.ListNamespaces(ctx, nil, catalog.ListOptions{})
	} else {
		p, err = c.ListTables(ctx, ns, catalog.ListTablesOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(p.Names)
	sort.Strings(out)
	return out
}

// peerNames runs the peer's listNamespaces or tableNames and returns the
// names sorted.
func peerNames(t *testing.T, op, root string, ns []string) []string {
	t.Helper()
	var out struct {
		Namespaces []string `json:"namespaces"`
		Tables     []string `json:"tables"`
	}
	if err := peer.Op(context.Background(), t, op, map[string]any{"uri": root, "namespace": ns}, &out); err != nil {
		t.Fatalf("peer %s %v: %v", op, ns, err)
	}
	names := append(out.Namespaces, out.Tables...)
	sort.Strings(names)
	return names
}
