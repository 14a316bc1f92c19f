package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// datasetConfig configures the dataset suite.
type datasetConfig struct {
	// Root is a catalog directory whose `__manifest` is read (the
	// catalog-100000 fixture by default).
	Root   string
	Label  string // size label, e.g. "100,000 rows"
	Repeat int    // timed reads per operation
	Offset uint64 // first row of the range read
	Limit  uint64 // rows of the range read
	Column string // the one column read
	Peer   bool
	Log    func(format string, args ...any)
}

// countingStore counts the bytes read through a Store. Reads of data files
// (".../data/*.lance") are counted apart: they are exactly what the
// lancefile readers fetch (lancefile's Reader.Stats().BytesRead sums the same
// ReadRange calls); the rest is manifest and version probing.
type countingStore struct {
	storage.Store
	bytes, dataBytes, reads atomic.Int64
}

func (s *countingStore) count(path string, n int) {
	s.bytes.Add(int64(n))
	s.reads.Add(1)
	if strings.Contains(path, "/data/") {
		s.dataBytes.Add(int64(n))
	}
}

func (s *countingStore) Read(ctx context.Context, path string) ([]byte, error) {
	b, err := s.Store.Read(ctx, path)
	s.count(path, len(b))
	return b, err
}

func (s *countingStore) ReadRange(ctx context.Context, path string, offset, length int64) ([]byte, error) {
	b, err := s.Store.ReadRange(ctx, path, offset, length)
	s.count(path, len(b))
	return b, err
}

func (s *countingStore) reset() {
	s.bytes.Store(0)
	s.dataBytes.Store(0)
	s.reads.Store(0)
}

// datasetOp is one read of the suite.
type datasetOp struct {
	key, label string
	opts       dataset.ScanOptions
}

func datasetOps(cfg datasetConfig) []datasetOp {
	return []datasetOp{
		{"fullScan", "full scan (all columns)", dataset.ScanOptions{}},
		{"oneColumn", fmt.Sprintf("one column (%s)", cfg.Column), dataset.ScanOptions{Columns: []string{cfg.Column}}},
		{"rowRange", fmt.Sprintf("row range (offset %s, limit %s)", sizeLabel(int(cfg.Offset)), sizeLabel(int(cfg.Limit))), dataset.ScanOptions{Offset: cfg.Offset, Limit: cfg.Limit}},
	}
}

// lancecatRead is lancecat's result of one dataset operation.
type lancecatRead struct {
	Ns        []int64
	Rows      int64
	Bytes     int64 // per read, all files
	DataBytes int64 // per read, data files only
	Reads     int64
}

func lancecatDataset(ctx context.Context, cfg datasetConfig) (map[string]*lancecatRead, error) {
	st, err := storage.Open(ctx, cfg.Root, storage.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	cs := &countingStore{Store: st}
	ds, err := dataset.Open(ctx, cs, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]*lancecatRead{}
	for _, op := range datasetOps(cfg) {
		r := &lancecatRead{}
		scan := func() (int64, error) {
			var rows int64
			err := ds.Scan(ctx, op.opts, func(rec arrow.RecordBatch) error {
				rows += rec.NumRows()
				return nil
			})
			return rows, err
		}
		// Untimed warm-up, as on the peer's side: it fills the OS page cache
		// and gives the bytes one read costs.
		cs.reset()
		rows, err := scan()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.key, err)
		}
		r.Rows, r.Bytes, r.DataBytes, r.Reads = rows, cs.bytes.Load(), cs.dataBytes.Load(), cs.reads.Load()
		for i := 0; i < cfg.Repeat; i++ {
			t := time.Now()
			n, err := scan()
			r.Ns = append(r.Ns, time.Since(t).Nanoseconds())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op.key, err)
			}
			if n != rows {
				return nil, fmt.Errorf("%s: %d rows, warm-up read %d", op.key, n, rows)
			}
		}
		out[op.key] = r
	}
	return out, nil
}

type peerDatasetRun struct {
	Ns   map[string][]int64 `json:"ns"`
	Rows map[string]int64   `json:"rows"`
}

// runDataset runs the dataset suite and returns its rows.
func runDataset(ctx context.Context, cfg datasetConfig) ([]Row, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("dataset: lancecat reading %s/__manifest", cfg.Root)
	lc, err := lancecatDataset(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("lancecat dataset: %w", err)
	}
	var pr *peerDatasetRun
	if cfg.Peer {
		logf("dataset: peer reading the same")
		pr = &peerDatasetRun{}
		args := map[string]any{"path": cfg.Root + "/" + catalog.ManifestDir, "repeat": cfg.Repeat, "offset": cfg.Offset, "limit": cfg.Limit, "column": cfg.Column}
		if err := runPeer(ctx, "dataset", args, pr); err != nil {
			return nil, err
		}
	}
	var rows []Row
	for _, op := range datasetOps(cfg) {
		l := lc[op.key]
		t := Row{Suite: "dataset", Operation: op.label + ": time", Size: cfg.Label, Unit: UnitNanos, Lancecat: summarize(nanos(l.Ns))}
		n := Row{Suite: "dataset", Operation: op.label + ": rows returned", Size: cfg.Label, Unit: UnitRows, Lancecat: one(float64(l.Rows))}
		if pr != nil {
			t.Peer = summarize(nanos(pr.Ns[op.key]))
			n.Peer = one(float64(pr.Rows[op.key]))
			if pr.Rows[op.key] != l.Rows {
				return nil, fmt.Errorf("%s: lancecat returned %d rows, the peer %d", op.key, l.Rows, pr.Rows[op.key])
			}
		}
		b := Row{Suite: "dataset", Operation: op.label + ": bytes read", Size: cfg.Label, Unit: UnitBytes, Lancecat: one(float64(l.DataBytes)),
			Note: fmt.Sprintf("data files (= lancefile Stats.BytesRead); %s incl. manifest, %d reads; peer: not measured", fmtBytes(float64(l.Bytes)), l.Reads)}
		rows = append(rows, t, b, n)
	}
	return finish(rows), nil
}
