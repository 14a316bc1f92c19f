package manifest

import (
	"context"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
	"github.com/lancecat/lancecat/storage"
)

// The Lance-backed __manifest table and datasets under the contract suites
// the in-memory fakes also pass.

func tempStore(t *testing.T) storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), "file://"+t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestManifestTableContract(t *testing.T) {
	catalogtest.RunManifestTableTests(t, func(t *testing.T) catalog.ManifestTable { return NewManifestTable(tempStore(t)) })
}

func TestDatasetsContract(t *testing.T) {
	catalogtest.RunDatasetsTests(t, func(t *testing.T) catalog.Datasets { return NewDatasets(tempStore(t)) })
}
