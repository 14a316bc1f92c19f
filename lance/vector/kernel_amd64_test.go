//go:build amd64 && !purego

package vector

import (
	"bytes"
	"context"
	"path"
	"testing"
)

// TestBuildSameBytesPortable: a seeded build writes the same index bytes
// with the assembly kernels and with the portable Go ones (what a machine
// without AVX2, or another architecture, runs), for the types whose
// training goes through the batch and column kernels.
func TestBuildSameBytesPortable(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2: only the portable kernels run here")
	}
	ctx := context.Background()
	ds := vectorDataset(t, 3000, 32)
	for _, typ := range []string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ"} {
		var files [2]map[string][]byte
		for k, asm := range []bool{true, false} {
			useAVX2 = asm
			meta, _, err := Build(ctx, ds, "v", BuildOptions{Type: typ, Metric: L2, NumPartitions: 8, NumSubVectors: 4, Seed: 5, Name: "v_idx"})
			useAVX2 = true
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			files[k] = map[string][]byte{}
			for _, f := range meta.Files {
				b, err := ds.Store().Read(ctx, path.Join(ds.Dir(), "_indices", meta.UUID, f.Path))
				if err != nil {
					t.Fatal(err)
				}
				files[k][f.Path] = b
			}
		}
		if len(files[0]) == 0 {
			t.Fatalf("%s: no index files", typ)
		}
		for name, b := range files[0] {
			if !bytes.Equal(b, files[1][name]) {
				t.Errorf("%s: %s differs between the assembly and the portable kernels", typ, name)
			}
		}
	}
}
