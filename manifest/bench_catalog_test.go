package manifest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/storage"
)

// Benchmarks of the catalog operations on the Lance-backed persistence, at
// 500 and 5,000 table entries in one namespace. They run only with -bench
// (never in the normal test run); the side-by-side numbers with the peer come
// from `go run ./conformance/bench catalog`. Write operations grow the catalog
// by one entry per iteration, so pin the count for comparable runs:
//
//	go test ./manifest -run '^$' -bench CatalogOps -benchtime 50x

func benchSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

// seededCatalog opens a catalog on local disk with namespaces "bench" and
// other_0..2 and size table entries in "bench" (written in one `__manifest`
// commit), plus one real table bench.real.
func seededCatalog(b *testing.B, size int) *manifest.Catalog {
	return seededCatalogWith(b, size, manifest.Options{})
}

func seededCatalogWith(b *testing.B, size int, opts manifest.Options) *manifest.Catalog {
	b.Helper()
	ctx := context.Background()
	c, err := manifest.OpenCatalog(ctx, b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	for _, ns := range []string{"bench", "other_0", "other_1", "other_2"} {
		if err := c.CreateNamespace(ctx, catalog.Ident{ns}, nil); err != nil {
			b.Fatal(err)
		}
	}
	rows := make([]catalog.Row, size)
	for i := range rows {
		id := fmt.Sprintf("bench$t%06d", i)
		loc := fmt.Sprintf("%08x_%s", uint32(i+1)*2654435761, id)
		rows[i] = catalog.Row{ObjectID: id, ObjectType: "table", Location: &loc}
	}
	mt := manifest.NewManifestTable(c.Store)
	snap, err := mt.Latest(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := mt.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: rows, BuildIndices: true}); err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, catalog.Ident{"bench", "real"}, benchSchema(), catalog.CreateTableOptions{}); err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkCatalogOps(b *testing.B) {
	ctx := context.Background()
	bench := catalog.Ident{"bench"}
	for _, size := range []int{500, 5000} {
		b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) {
			c := seededCatalog(b, size)
			seq := 0
			b.Run("CreateTable", func(b *testing.B) {
				schema := benchSchema()
				for b.Loop() {
					seq++
					if _, err := c.CreateTable(ctx, bench.Child(fmt.Sprintf("new%06d", seq)), schema, catalog.CreateTableOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("CreateNamespace", func(b *testing.B) {
				for b.Loop() {
					seq++
					if err := c.CreateNamespace(ctx, catalog.Ident{fmt.Sprintf("nsnew%06d", seq)}, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ListTables", func(b *testing.B) {
				for b.Loop() {
					p, err := c.ListTables(ctx, bench, catalog.ListTablesOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if len(p.Names) < size {
						b.Fatalf("listed %d tables, want at least %d", len(p.Names), size)
					}
				}
			})
			b.Run("DescribeTable", func(b *testing.B) {
				for b.Loop() {
					d, err := c.DescribeTable(ctx, bench.Child("real"), catalog.DescribeTableOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if d.Schema == nil || d.Schema.NumFields() != 2 {
						b.Fatalf("described schema %v", d.Schema)
					}
				}
			})
			b.Run("TableExists", func(b *testing.B) {
				id := bench.Child(fmt.Sprintf("t%06d", size/2))
				for b.Loop() {
					ok, err := c.TableExists(ctx, id)
					if err != nil || !ok {
						b.Fatalf("exists %s = %v, %v", id, ok, err)
					}
				}
			})
			// RENAME and DROP TABLE read the table's version rows (a prefix)
			// and check the locations of the other tables: issue #8 wants
			// them flat in the catalog's size.
			b.Run("RenameTable", func(b *testing.B) {
				from, to := bench.Child("real"), bench.Child("moved")
				for b.Loop() {
					if _, err := c.RenameTable(ctx, from, to); err != nil {
						b.Fatal(err)
					}
					from, to = to, from
				}
				if from[1] != "real" {
					if _, err := c.RenameTable(ctx, from, to); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("DropTable", func(b *testing.B) {
				schema := benchSchema()
				for b.Loop() {
					b.StopTimer()
					seq++
					id := bench.Child(fmt.Sprintf("drop%06d", seq))
					if _, err := c.CreateTable(ctx, id, schema, catalog.CreateTableOptions{}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := c.DropTable(ctx, id); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkCreateTable is CREATE TABLE alone at 500 entries, with both
// durability settings (none is what the reference does on local disk):
//
//	go test ./manifest -run '^$' -bench CreateTable -benchtime 200x
func BenchmarkCreateTable(b *testing.B) {
	ctx := context.Background()
	for _, d := range []storage.Durability{storage.DurabilityNone, storage.DurabilityFull} {
		b.Run("durability="+d.String(), func(b *testing.B) {
			c := seededCatalogWith(b, 500, manifest.Options{Storage: storage.Options{Durability: d}})
			schema := benchSchema()
			seq := 0
			for b.Loop() {
				seq++
				if _, err := c.CreateTable(ctx, catalog.Ident{"bench", fmt.Sprintf("new%06d", seq)}, schema, catalog.CreateTableOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBatchCreateTables is 1,000 CREATE TABLE in one transaction
// (catalog.Batch: one `__manifest` commit) at 500 entries, with both
// durability settings; the cost of durable is the syncs of the 1,000 new
// table datasets and of the `__manifest` version:
//
//	go test ./manifest -run '^$' -bench BatchCreateTables -benchtime 3x
func BenchmarkBatchCreateTables(b *testing.B) {
	ctx := context.Background()
	const tables = 1000
	for _, d := range []storage.Durability{storage.DurabilityNone, storage.DurabilityFull} {
		b.Run("durability="+d.String(), func(b *testing.B) {
			c := seededCatalogWith(b, 500, manifest.Options{Storage: storage.Options{Durability: d}})
			schema := benchSchema()
			seq := 0
			for b.Loop() {
				batch := c.NewBatch()
				for range tables {
					seq++
					batch.CreateTable(catalog.Ident{"bench", fmt.Sprintf("new%06d", seq)}, schema, catalog.CreateTableOptions{})
				}
				if err := batch.Commit(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tables), "ns/table")
		})
	}
}
