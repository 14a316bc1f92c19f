package storage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lancecat/lancecat/internal/testservers"
)

// Object stores of the suite run on emulators started by internal/testservers on loopback.

func TestMain(m *testing.M) {
	code := m.Run()
	testservers.StopAll()
	os.Exit(code)
}

// Objects written through the S3 store land under their exact keys (no escaping, no sidecar
// objects), so the Rust implementation finds them where it expects them.
func TestS3ObjectsStoredUnderExactKeys(t *testing.T) {
	srv := testservers.S3(t)
	s := openCloudTest(t, srv, "exact/lake")
	keys := map[string]string{
		"__manifest/_versions/18446744073709551614.manifest": "m",
		"f0688d65_analytics$events/.lance-reserved":          "",
		"root_t.lance/data/a b+c=d.lance":                    "data",
	}
	for k, v := range keys {
		if err := s.PutIfAbsent(ctx, k, []byte(v)); err != nil {
			t.Fatalf("PutIfAbsent(%q): %v", k, err)
		}
	}
	root := filepath.Join(srv.DataDir, testservers.Bucket, "exact", "lake")
	var onDisk []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(onDisk) != len(keys) {
		t.Errorf("server holds %v, want exactly %d objects", onDisk, len(keys))
	}
	for k, v := range keys {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(k)))
		if err != nil || string(got) != v {
			t.Errorf("server file for %q: %q, %v", k, got, err)
		}
	}
	listed, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range listed {
		if _, ok := keys[o.Path]; !ok {
			t.Errorf("List returned unknown key %q", o.Path)
		}
	}
}
