package manifest

import (
	"context"
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/storage"
)

// Benchmarks of index building and read push-down (numbers, never
// assertions):
//
//	go test ./manifest -run '^$' -bench 'ManifestCommit|ColdRead|WarmRead' -benchtime 20x

// BenchmarkManifestCommit: one catalog change (upsert of one new row) at
// 500 to 100,000 entries, incremental (the default: tier merges and the
// periodic full rewrite included, amortized over b.N) and as a full rewrite
// with the three indices rebuilt (the reference's shape, AlwaysRewrite).
// The writer's snapshot starts lazy, as in a process that did not write
// the base. Run with -benchtime Nx (N commits).
func BenchmarkManifestCommit(b *testing.B) {
	for _, size := range []int{500, 5000, 50000, 100000} {
		for _, shape := range []string{"incremental", "rewrite"} {
			b.Run(fmt.Sprintf("entries=%d/%s", size, shape), func(b *testing.B) {
				ctx := context.Background()
				store, err := storage.Open(ctx, b.TempDir(), storage.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer store.Close()
				seed := NewManifestTable(store)
				if err := seed.Create(ctx); err != nil {
					b.Fatal(err)
				}
				rows := make([]catalog.Row, size)
				for i := range rows {
					id := fmt.Sprintf("bench$t%06d", i)
					loc := "0000abcd_" + id
					rows[i] = catalog.Row{ObjectID: id, ObjectType: "table", Location: &loc}
				}
				v, err := seed.Commit(ctx, 1, &catalog.ManifestChange{Upserts: rows, BuildIndices: true})
				if err != nil {
					b.Fatal(err)
				}
				mt := NewManifestTableWith(store, WriteOptions{AlwaysRewrite: shape == "rewrite"})
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					id := fmt.Sprintf("bench$n%06d", i)
					snap, err := mt.Latest(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if _, ok, err := snap.Get(ctx, id); err != nil || ok {
						b.Fatalf("exists check: %v %v", ok, err)
					}
					v, err = mt.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: []catalog.Row{{ObjectID: id, ObjectType: "table", Location: &id}}, BuildIndices: true})
					if err != nil {
						b.Fatal(err)
					}
				}
				_ = v
			})
		}
	}
}

// coldOps are the reads of a catalog command run in a new process: describe
// (a Get of an existing table), exists (a Get of a missing one) and list
// (the tables of one namespace).
var coldOps = []struct {
	name string
	run  func(ctx context.Context, s catalog.ManifestSnapshot) error
}{
	{"describe", func(ctx context.Context, s catalog.ManifestSnapshot) error {
		_, ok, err := s.Get(ctx, "ns0556$t016976")
		if err == nil && !ok {
			err = fmt.Errorf("not found")
		}
		return err
	}},
	{"exists", func(ctx context.Context, s catalog.ManifestSnapshot) error {
		_, ok, err := s.Get(ctx, "ns0556$missing")
		if err == nil && ok {
			err = fmt.Errorf("found")
		}
		return err
	}},
	{"list", func(ctx context.Context, s catalog.ManifestSnapshot) error {
		rows, err := s.Scan(ctx, catalog.RowFilter{Types: []string{catalog.ObjectTypeTable}, IDPrefix: "ns0556$", DirectOnly: true})
		if err == nil && len(rows) == 0 {
			err = fmt.Errorf("empty listing")
		}
		return err
	}},
}

// BenchmarkColdRead: describe / exists / list on the peer's 100,000-entry
// catalog from a cold ManifestTable (nothing cached, as in a new process),
// with index push-down and with the full decode.
func BenchmarkColdRead(b *testing.B) {
	root := peer.Fixture(b, "catalog-100000")
	ctx := context.Background()
	store, err := storage.Open(ctx, root, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for _, op := range coldOps {
		for _, push := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/pushdown=%v", op.name, push), func(b *testing.B) {
				var decoded int64
				for i := 0; i < b.N; i++ {
					mt := NewManifestTable(store)
					snap, err := mt.Latest(ctx)
					if err != nil {
						b.Fatal(err)
					}
					s := snap.(*snapshot)
					if !push {
						if _, _, err := s.all(ctx); err != nil {
							b.Fatal(err)
						}
					}
					if err := op.run(ctx, s); err != nil {
						b.Fatal(err)
					}
					decoded += s.rowsDecoded.Load()
				}
				b.ReportMetric(float64(decoded)/float64(b.N), "rows-decoded/op")
			})
		}
	}
}

// BenchmarkWarmRead: the same reads repeated on one snapshot (one process,
// version unchanged): through the indices every time, or from the decoded
// rows kept in memory (the full decode paid once, outside the timer).
func BenchmarkWarmRead(b *testing.B) {
	root := peer.Fixture(b, "catalog-100000")
	ctx := context.Background()
	store, err := storage.Open(ctx, root, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for _, op := range coldOps {
		for _, push := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/pushdown=%v", op.name, push), func(b *testing.B) {
				snap, err := NewManifestTable(store).Latest(ctx)
				if err != nil {
					b.Fatal(err)
				}
				s := snap.(*snapshot)
				if !push {
					if _, _, err := s.all(ctx); err != nil {
						b.Fatal(err)
					}
				}
				if err := op.run(ctx, s); err != nil { // open the indices
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := op.run(ctx, s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
