package catalogtest

import (
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// The fakes must honour the contracts the Lance implementations honour
// (manifest/contract_test.go runs the same suites on those).

func TestMemManifestContract(t *testing.T) {
	RunManifestTableTests(t, func(t *testing.T) catalog.ManifestTable { return NewMemManifest() })
}

func TestMemDatasetsContract(t *testing.T) {
	RunDatasetsTests(t, func(t *testing.T) catalog.Datasets { return NewEnv(t).Datasets })
}
