package manifest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/storage"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testservers.StopAll()
	os.Exit(code)
}

var objPrefix atomic.Int64

// openOnServer opens a catalog on a fresh prefix of an object-store emulator.
func openOnServer(t *testing.T, srv *testservers.Server, prefix string) *Catalog {
	t.Helper()
	return openOnServerWith(t, srv, prefix, storage.Options{})
}

// openOnServerWith is openOnServer with store options (AzureBlockSize) beyond the server's
// storage options.
func openOnServerWith(t *testing.T, srv *testservers.Server, prefix string, so storage.Options) *Catalog {
	t.Helper()
	so.StorageOptions = srv.StorageOptions
	c, err := OpenCatalog(context.Background(), srv.URI(prefix), Options{
		Storage: so,
		Catalog: catalog.Options{CommitRetries: 200, RetryBackoff: time.Millisecond},
	})
	if err != nil {
		t.Fatalf("OpenCatalog(%s): %v", srv.URI(prefix), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCatalogOnObjectStores runs the catalog's operations on the Lance-backed store over real
// S3, Azure Blob and GCS protocol servers (not the in-memory fakes): DDL seen by a second
// client, and concurrent creates from several clients where conditional PUT decides every
// commit race: each table is created exactly once, none is lost, a same-name race has one winner.
func TestCatalogOnObjectStores(t *testing.T) {
	for _, server := range objectStoreServers {
		t.Run(server.name, func(t *testing.T) {
			srv := server.start(t)
			ctx := context.Background()
			prefix := fmt.Sprintf("catalog-%d", objPrefix.Add(1))
			c := openOnServer(t, srv, prefix)
			if err := c.CreateNamespace(ctx, catalog.Ident{"a"}, map[string]string{"owner": "x"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CreateTable(ctx, catalog.Ident{"a", "t"}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
				t.Fatal(err)
			}
			other := openOnServer(t, srv, prefix)
			if got := names(t)(other.ListTables(ctx, catalog.Ident{"a"}, catalog.ListTablesOptions{})); !slices.Equal(got, []string{"t"}) {
				t.Fatalf("second client lists %v", got)
			}
			if _, err := other.DescribeTable(ctx, catalog.Ident{"a", "t"}, catalog.DescribeTableOptions{}); err != nil {
				t.Fatalf("describe through second client: %v", err)
			}

			// Four clients create distinct tables concurrently, and all race for one name.
			const clients = 4
			var wg sync.WaitGroup
			errs := make([]error, clients)
			sameErrs := make([]error, clients)
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ci := openOnServer(t, srv, prefix)
					_, errs[i] = ci.CreateTable(ctx, catalog.Ident{"a", fmt.Sprint("c", i)}, eventsSchema(), catalog.CreateTableOptions{})
					_, sameErrs[i] = ci.CreateTable(ctx, catalog.Ident{"a", "same"}, eventsSchema(), catalog.CreateTableOptions{})
				}()
			}
			wg.Wait()
			winners := 0
			for i := range clients {
				if errs[i] != nil {
					t.Errorf("client %d create: %v", i, errs[i])
				}
				switch {
				case sameErrs[i] == nil:
					winners++
				case !errors.Is(sameErrs[i], catalog.ErrTableAlreadyExists):
					t.Errorf("client %d lost the same-name race with %v, want TableAlreadyExists", i, sameErrs[i])
				}
			}
			if winners != 1 {
				t.Errorf("%d clients created a.same, want exactly 1", winners)
			}
			want := []string{"c0", "c1", "c2", "c3", "same", "t"}
			if got := names(t)(c.ListTables(ctx, catalog.Ident{"a"}, catalog.ListTablesOptions{})); !slices.Equal(got, want) {
				t.Fatalf("after the race: %v, want %v", got, want)
			}
			if err := other.DropNamespace(ctx, catalog.Ident{"a"}, catalog.DropNamespaceOptions{Cascade: true}); err != nil {
				t.Fatalf("drop cascade: %v", err)
			}
			if got := names(t)(c.ListNamespaces(ctx, nil, catalog.ListOptions{})); len(got) != 0 {
				t.Fatalf("after drop: namespaces %v", got)
			}
			// Nothing of the dropped tables is left on the server; only the catalog remains.
			objs, err := c.Store.List(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				if !strings.HasPrefix(o.Path, catalog.ManifestDir+"/") {
					t.Errorf("object left after DROP ... CASCADE: %s", o.Path)
				}
			}
		})
	}
}

var objectStoreServers = []struct {
	name  string
	start func(testing.TB) *testservers.Server
}{{"s3", testservers.S3}, {"az", testservers.Azure}, {"gs", testservers.GCS}}

// TestPeerInteropOnS3: a catalog lancecat writes on S3 (versitygw) lists, opens and appends in the
// reference; a namespace the reference creates there lists in lancecat. The reference's namespace
// code resolves region and endpoint from the environment, so the AWS_* variables are set for it.
func TestPeerInteropOnS3(t *testing.T) {
	peer.Require(t)
	srv := testservers.S3(t)
	for _, kv := range srv.PeerEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	ctx := context.Background()
	prefix := fmt.Sprintf("peer-%d", objPrefix.Add(1))
	c := openOnServer(t, srv, prefix)
	if err := c.CreateNamespace(ctx, catalog.Ident{"analytics"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, catalog.Ident{"analytics", "events"}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	args := func(extra map[string]any) map[string]any {
		a := map[string]any{"uri": srv.URI(prefix), "storageOptions": srv.StorageOptions}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	var pn peerNamespaces
	if err := peer.Op(ctx, t, "listNamespaces", args(nil), &pn); err != nil {
		t.Fatalf("peer listNamespaces: %v", err)
	}
	if !slices.Equal(pn.Namespaces, []string{"analytics"}) {
		t.Fatalf("peer lists namespaces %v, want [analytics]", pn.Namespaces)
	}
	var pt peerTables
	if err := peer.Op(ctx, t, "tableNames", args(map[string]any{"namespace": []string{"analytics"}}), &pt); err != nil {
		t.Fatalf("peer tableNames: %v", err)
	}
	if !slices.Equal(pt.Tables, []string{"events"}) {
		t.Fatalf("peer lists tables %v, want [events]", pt.Tables)
	}
	var added struct {
		Rows int64 `json:"rows"`
	}
	if err := peer.Op(ctx, t, "add", args(map[string]any{"namespace": []string{"analytics"}, "name": "events",
		"rows": []map[string]any{{"id": 1, "name": "a"}, {"id": 2, "name": nil}}}), &added); err != nil {
		t.Fatalf("peer add: %v", err)
	}
	if added.Rows != 2 {
		t.Fatalf("peer counts %d rows after its append, want 2", added.Rows)
	}
	if err := peer.Op(ctx, t, "createNamespace", args(map[string]any{"namespace": []string{"from_peer"}}), nil); err != nil {
		t.Fatalf("peer createNamespace: %v", err)
	}
	fresh := openOnServer(t, srv, prefix)
	if got := names(t)(fresh.ListNamespaces(ctx, nil, catalog.ListOptions{})); !slices.Equal(got, []string{"analytics", "from_peer"}) {
		t.Fatalf("lancecat lists %v after the peer's createNamespace", got)
	}
	desc, err := fresh.DescribeTable(ctx, catalog.Ident{"analytics", "events"}, catalog.DescribeTableOptions{})
	if err != nil {
		t.Fatalf("lancecat describes the table the peer appended to: %v", err)
	}
	if desc.RowCount != 2 {
		t.Fatalf("lancecat counts %d rows of the peer's append (version %d), want 2", desc.RowCount, desc.Version)
	}
}
