package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeManifest feeds arbitrary bytes to the manifest decoder: it must
// return a manifest or an error, never panic or over-allocate. Seeds are the
// peer-written manifests of the committed fixtures.
func FuzzDecodeManifest(f *testing.F) {
	seeds, _ := filepath.Glob("../../conformance/testdata/fixtures/*/_versions/*.manifest")
	more, _ := filepath.Glob("../../conformance/testdata/fixtures/*/*/_versions/*.manifest")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("LANC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeManifest(b)
		if err == nil && (m == nil || m.Schema == nil) {
			t.Fatal("nil manifest without error")
		}
		if err == nil {
			// A decoded manifest re-encodes and decodes to the same version.
			out, err := EncodeManifest(m, m.HasIndexSection, nil)
			if err != nil {
				return // e.g. an index uuid that does not re-encode
			}
			m2, err := DecodeManifest(out)
			if err != nil || m2.Version != m.Version || len(m2.Fragments) != len(m.Fragments) {
				t.Fatalf("re-encode: %v", err)
			}
		}
	})
}
