package manifest

import (
	"context"
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
	"github.com/lancecat/lancecat/storage"
)

// lanceRoot is a catalogtest.Root on the Lance-backed `__manifest` table and datasets at uri:
// each catalog instance opens its own store, as another process would.
func lanceRoot(t *testing.T, uri string, opts storage.Options) catalogtest.Root {
	t.Helper()
	open := func(t *testing.T) storage.Store {
		t.Helper()
		st, err := storage.Open(context.Background(), uri, opts)
		if err != nil {
			t.Fatalf("open %s: %v", uri, err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return catalogtest.Root{
		Store: open(t),
		Options: func(t *testing.T) catalog.Options {
			st := open(t)
			return catalog.Options{Root: catalog.StoreDir(st), Manifest: NewManifestTable(st), Datasets: NewDatasets(st)}
		},
	}
}

// The catalog's concurrency and atomicity suite (run on the fakes in catalog/) on the Lance store:
// local disk, where cross-process put-if-absent decides commit races, and the object-store
// servers, where conditional PUT does.
func TestConcurrencyOnLocalDisk(t *testing.T) {
	catalogtest.RunConcurrencyTests(t, func(t *testing.T) catalogtest.Root {
		return lanceRoot(t, "file://"+t.TempDir(), storage.Options{})
	})
}

func TestConcurrencyOnObjectStores(t *testing.T) {
	for _, server := range objectStoreServers {
		t.Run(server.name, func(t *testing.T) {
			srv := server.start(t)
			catalogtest.RunConcurrencyTests(t, func(t *testing.T) catalogtest.Root {
				r := lanceRoot(t, srv.URI(fmt.Sprintf("concurrency-%d", objPrefix.Add(1))), storage.Options{StorageOptions: srv.StorageOptions})
				// Every commit rewrites the catalog over HTTP and ten instances mostly conflict
				// (45 s for one test on versitygw): four race within the CI budget.
				r.Instances = 4
				return r
			})
		})
	}
}

// The ManifestTable and Datasets contracts (contract_test.go runs them on local disk) on the
// object-store servers.
func TestContractsOnObjectStores(t *testing.T) {
	for _, server := range objectStoreServers {
		t.Run(server.name, func(t *testing.T) {
			srv := server.start(t)
			store := func(t *testing.T) storage.Store {
				return lanceRoot(t, srv.URI(fmt.Sprintf("contract-%d", objPrefix.Add(1))), storage.Options{StorageOptions: srv.StorageOptions}).Store
			}
			catalogtest.RunManifestTableTests(t, func(t *testing.T) catalog.ManifestTable { return NewManifestTable(store(t)) })
			catalogtest.RunDatasetsTests(t, func(t *testing.T) catalog.Datasets { return NewDatasets(store(t)) })
		})
	}
}
