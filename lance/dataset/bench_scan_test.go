package dataset_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// Benchmarks of reads of the peer-written 100,000-row `__manifest` fixture
// (catalog-100000; generated with the peer once per machine). They run only
// with -bench; `go run ./conformance/bench dataset` prints the same reads
// side by side with the peer's:
//
//	go test ./lance/dataset -run '^$' -bench ScanManifest100k

// dataBytesStore counts the bytes read from data files (.../data/...).
type dataBytesStore struct {
	storage.Store
	n atomic.Int64
}

func (s *dataBytesStore) ReadRange(ctx context.Context, path string, off, length int64) ([]byte, error) {
	b, err := s.Store.ReadRange(ctx, path, off, length)
	if strings.Contains(path, "/data/") {
		s.n.Add(int64(len(b)))
	}
	return b, err
}

func (s *dataBytesStore) Read(ctx context.Context, path string) ([]byte, error) {
	b, err := s.Store.Read(ctx, path)
	if strings.Contains(path, "/data/") {
		s.n.Add(int64(len(b)))
	}
	return b, err
}

func BenchmarkScanManifest100k(b *testing.B) {
	ctx := context.Background()
	root := peer.Fixture(b, "catalog-100000")
	st, err := storage.Open(ctx, root, storage.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cs := &dataBytesStore{Store: st}
	ds, err := dataset.Open(ctx, cs, "__manifest", dataset.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts dataset.ScanOptions
		rows int64
	}{
		{"FullScan", dataset.ScanOptions{}, 100000},
		{"OneColumn", dataset.ScanOptions{Columns: []string{"object_id"}}, 100000},
		{"RowRange1000", dataset.ScanOptions{Offset: 50000, Limit: 1000}, 1000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cs.n.Store(0)
			for b.Loop() {
				var rows int64
				if err := ds.Scan(ctx, tc.opts, func(rec arrow.RecordBatch) error {
					rows += rec.NumRows()
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if rows != tc.rows {
					b.Fatalf("%d rows, want %d", rows, tc.rows)
				}
			}
			b.ReportMetric(float64(cs.n.Load())/float64(b.N), "databytes/op")
		})
	}
}
