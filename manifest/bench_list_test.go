package manifest_test

import (
	"context"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
)

// BenchmarkListNamespace lists a whole namespace of 50,000 tables (the
// listing `go run ./conformance/bench catalog` compares with the
// reference): warm, on the catalog that wrote it (version unchanged between
// listings), and cold, through a catalog opened afresh on the same
// directory each time (as a new process would).
//
//	go test ./manifest -run '^$' -bench ListNamespace -benchtime 20x
func BenchmarkListNamespace(b *testing.B) {
	ctx := context.Background()
	const size = 50000
	c := seededCatalog(b, size)
	bench := catalog.Ident{"bench"}
	list := func(b *testing.B, c *manifest.Catalog) {
		p, err := c.ListTables(ctx, bench, catalog.ListTablesOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Names) != size+1 { // the seeded entries and bench.real
			b.Fatalf("listed %d tables, want %d", len(p.Names), size+1)
		}
	}
	b.Run("warm", func(b *testing.B) {
		list(b, c)
		for b.Loop() {
			list(b, c)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			fresh, err := manifest.OpenCatalog(ctx, c.Store.URI(), manifest.Options{})
			if err != nil {
				b.Fatal(err)
			}
			list(b, fresh)
			fresh.Close()
		}
	})
}
