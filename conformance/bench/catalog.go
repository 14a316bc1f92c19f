package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
)

// catalogConfig configures the catalog suite.
type catalogConfig struct {
	Sizes      []int // table entries in namespace "bench"
	Ops        int   // operations of each kind per size; 0 = defaultOps(size)
	Namespaces int   // other namespaces in the seeded catalog
	// Creates is the number of one-by-one table creates of the bytes part
	// (0 skips it).
	Creates int
	// AutoVacuumEvery, when positive, adds a lancecat run of the bytes part
	// with auto-vacuum every that many commits.
	AutoVacuumEvery int
	WorkDir         string
	Peer            bool
	Log             func(format string, args ...any)
}

func defaultOps(size int) int {
	switch {
	case size >= 50000:
		return 10
	case size >= 5000:
		return 20
	}
	return 30
}

// The operations of the catalog suite, in the order they run, with their
// table labels. Both sides report samples under these keys.
var catalogOps = []struct{ key, label string }{
	{"createTable", "create table (empty, 2 columns)"},
	{"createNamespace", "create namespace"},
	{"listTables", "list tables (whole namespace)"},
	{"describeTable", "describe table"},
	{"tableExistsHit", "table exists (hit)"},
	{"tableExistsMiss", "table exists (miss)"},
}

// benchTableSchema is the schema of every table the suite creates (the
// peer's bench-peer.mjs uses the same).
func benchTableSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

// catalogRun is one side's result for one size.
type catalogRun struct {
	SeedNs int64              `json:"seedNs"`
	Ns     map[string][]int64 `json:"ns"`
	Counts map[string]int     `json:"counts"`
}

// check verifies that the operations did what they claim (a benchmark of a
// wrong answer is worthless).
func (r *catalogRun) check(side string, size, ops int) error {
	want := map[string]int{
		"listedBeforeCreates": size,
		"listed":              size + ops,
		"describedFields":     2,
		"existsHits":          ops,
		"existsMisses":        ops,
	}
	for k, v := range want {
		if got, ok := r.Counts[k]; !ok || got != v {
			return fmt.Errorf("%s at %d entries: %s = %d (present %v), want %d", side, size, k, got, ok, v)
		}
	}
	for _, op := range catalogOps {
		if len(r.Ns[op.key]) != ops {
			return fmt.Errorf("%s at %d entries: %d samples of %s, want %d", side, size, len(r.Ns[op.key]), op.key, ops)
		}
	}
	return nil
}

// seedRows are the table entries of the seeded catalog: bench$t000000...,
// with locations shaped like the reference's (the directories do not exist:
// listing, exists and the create path never open them).
func seedRows(size int) []catalog.Row {
	rows := make([]catalog.Row, size)
	for i := range rows {
		id := fmt.Sprintf("bench$t%06d", i)
		loc := fmt.Sprintf("%08x_%s", uint32(i+1)*2654435761, id)
		rows[i] = catalog.Row{ObjectID: id, ObjectType: "table", Location: &loc}
	}
	return rows
}

// seedLancecat creates namespaces "bench" and other_0.. through the catalog
// API, then writes the size table entries in one `__manifest` commit.
func seedLancecat(ctx context.Context, c *manifest.Catalog, size, namespaces int) error {
	if err := c.CreateNamespace(ctx, catalog.Ident{"bench"}, nil); err != nil {
		return err
	}
	for i := 0; i < namespaces; i++ {
		if err := c.CreateNamespace(ctx, catalog.Ident{fmt.Sprintf("other_%d", i)}, nil); err != nil {
			return err
		}
	}
	mt := manifest.NewManifestTable(c.Store)
	snap, err := mt.Latest(ctx)
	if err != nil {
		return err
	}
	_, err = mt.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: seedRows(size)})
	return err
}

// lancecatCatalog runs the catalog operations at one size on a fresh catalog
// in dir, in the same order as bench-peer.mjs.
func lancecatCatalog(ctx context.Context, dir string, size, ops, namespaces int) (*catalogRun, error) {
	c, err := manifest.OpenCatalog(ctx, dir, manifest.Options{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	run := &catalogRun{Ns: map[string][]int64{}, Counts: map[string]int{}}
	t0 := time.Now()
	if err := seedLancecat(ctx, c, size, namespaces); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	run.SeedNs = time.Since(t0).Nanoseconds()

	timed := func(key string, fn func() error) error {
		t := time.Now()
		err := fn()
		run.Ns[key] = append(run.Ns[key], time.Since(t).Nanoseconds())
		return err
	}
	bench := catalog.Ident{"bench"}
	all := catalog.ListTablesOptions{}
	// Warm-up (untimed): the first read decodes `__manifest`.
	p, err := c.ListTables(ctx, bench, all)
	if err != nil {
		return nil, err
	}
	run.Counts["listedBeforeCreates"] = len(p.Names)

	schema := benchTableSchema()
	var created []string
	for i := 0; i < ops; i++ {
		name := fmt.Sprintf("new%04d", i)
		if err := timed("createTable", func() error {
			_, err := c.CreateTable(ctx, bench.Child(name), schema, catalog.CreateTableOptions{})
			return err
		}); err != nil {
			return nil, fmt.Errorf("create table %s: %w", name, err)
		}
		created = append(created, name)
	}
	for i := 0; i < ops; i++ {
		ns := catalog.Ident{fmt.Sprintf("nsnew%04d", i)}
		if err := timed("createNamespace", func() error { return c.CreateNamespace(ctx, ns, nil) }); err != nil {
			return nil, fmt.Errorf("create namespace %s: %w", ns, err)
		}
	}
	for i := 0; i < ops; i++ {
		if err := timed("listTables", func() error {
			p, err := c.ListTables(ctx, bench, all)
			run.Counts["listed"] = len(p.Names)
			return err
		}); err != nil {
			return nil, err
		}
	}
	for i := 0; i < ops; i++ {
		id := bench.Child(created[i%len(created)])
		if err := timed("describeTable", func() error {
			d, err := c.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
			if d.Schema != nil {
				run.Counts["describedFields"] = d.Schema.NumFields()
			}
			return err
		}); err != nil {
			return nil, fmt.Errorf("describe %s: %w", id, err)
		}
	}
	for i := 0; i < ops; i++ {
		id := bench.Child(created[(i*7)%len(created)])
		if err := timed("tableExistsHit", func() error {
			ok, err := c.TableExists(ctx, id)
			if ok {
				run.Counts["existsHits"]++
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	for i := 0; i < ops; i++ {
		id := bench.Child(fmt.Sprintf("missing%d", i))
		if err := timed("tableExistsMiss", func() error {
			ok, err := c.TableExists(ctx, id)
			if !ok {
				run.Counts["existsMisses"]++
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// bytesRun is one side's result of the one-by-one creates.
type bytesRun struct {
	TotalNs  int64 `json:"totalNs"`
	Listed   int   `json:"listed"`
	Versions int   `json:"versions"`
	Bytes    int64 `json:"bytes"`
	Files    int   `json:"files"`
}

type dirSize struct {
	Bytes int64
	Files int
}

func treeSize(dir string) (dirSize, error) {
	var s dirSize
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			s.Bytes += info.Size()
			s.Files++
		}
		return nil
	})
	return s, err
}

func countVersions(manifestDir string) (int, error) {
	m, err := filepath.Glob(filepath.Join(manifestDir, "_versions", "*.manifest"))
	return len(m), err
}

// lancecatBytesResult is the lancecat side of the bytes part.
type lancecatBytesResult struct {
	NoVacuum       bytesRun
	KeepVersions   dirSize // after Vacuum{KeepVersionFiles: true}, everything superseded
	AllButLatest   dirSize // after Vacuum{KeepVersionFiles: false}
	VacuumNs       int64   // both vacuums
	AutoVacuum     *bytesRun
	AutoVacuumRuns int
}

// futureVacuum makes every superseded version eligible now: the clock is set
// one hour ahead and the retention is one second ("retention 0").
func futureVacuum(keepVersionFiles bool) catalog.VacuumOptions {
	return catalog.VacuumOptions{Retention: time.Second, Now: time.Now().Add(time.Hour), KeepVersionFiles: keepVersionFiles}
}

// lancecatCreates creates n tables one by one in namespace "bench" of a fresh
// catalog in dir.
func lancecatCreates(ctx context.Context, dir string, n int, opts manifest.Options) (*manifest.Catalog, bytesRun, error) {
	var r bytesRun
	c, err := manifest.OpenCatalog(ctx, dir, opts)
	if err != nil {
		return nil, r, err
	}
	bench := catalog.Ident{"bench"}
	if err := c.CreateNamespace(ctx, bench, nil); err != nil {
		c.Close()
		return nil, r, err
	}
	schema := benchTableSchema()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if _, err := c.CreateTable(ctx, bench.Child(fmt.Sprintf("t%06d", i)), schema, catalog.CreateTableOptions{}); err != nil {
			c.Close()
			return nil, r, fmt.Errorf("create table %d: %w", i, err)
		}
	}
	r.TotalNs = time.Since(t0).Nanoseconds()
	p, err := c.ListTables(ctx, bench, catalog.ListTablesOptions{})
	if err != nil {
		c.Close()
		return nil, r, err
	}
	r.Listed = len(p.Names)
	md := filepath.Join(dir, catalog.ManifestDir)
	if r.Versions, err = countVersions(md); err != nil {
		c.Close()
		return nil, r, err
	}
	s, err := treeSize(md)
	if err != nil {
		c.Close()
		return nil, r, err
	}
	r.Bytes, r.Files = s.Bytes, s.Files
	return c, r, nil
}

func lancecatBytes(ctx context.Context, workDir string, n, autoEvery int, logf func(string, ...any)) (*lancecatBytesResult, error) {
	res := &lancecatBytesResult{}
	dir := filepath.Join(workDir, "lancecat-bytes")
	c, r, err := lancecatCreates(ctx, dir, n, manifest.Options{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res.NoVacuum = r
	logf("lancecat: %d creates in %s, __manifest %s in %d files", n, fmtDur(float64(r.TotalNs)), fmtBytes(float64(r.Bytes)), r.Files)
	md := filepath.Join(dir, catalog.ManifestDir)
	t0 := time.Now()
	if _, err := c.Vacuum(ctx, futureVacuum(true)); err != nil {
		return nil, fmt.Errorf("vacuum (keep version files): %w", err)
	}
	if res.KeepVersions, err = treeSize(md); err != nil {
		return nil, err
	}
	if _, err := c.Vacuum(ctx, futureVacuum(false)); err != nil {
		return nil, fmt.Errorf("vacuum: %w", err)
	}
	res.VacuumNs = time.Since(t0).Nanoseconds()
	if res.AllButLatest, err = treeSize(md); err != nil {
		return nil, err
	}
	p, err := c.ListTables(ctx, catalog.Ident{"bench"}, catalog.ListTablesOptions{})
	if err != nil {
		return nil, fmt.Errorf("list after vacuum: %w", err)
	}
	if len(p.Names) != n {
		return nil, fmt.Errorf("after vacuum %d tables listed, want %d", len(p.Names), n)
	}

	if autoEvery > 0 {
		opts := manifest.Options{Catalog: catalog.Options{
			AutoVacuumEvery: autoEvery,
			// A clock far ahead: every superseded version is eligible at
			// each run (retention 0 in effect).
			AutoVacuumOptions: catalog.VacuumOptions{Retention: time.Second, Now: time.Now().Add(100 * 24 * time.Hour)},
		}}
		ac, ar, err := lancecatCreates(ctx, filepath.Join(workDir, "lancecat-autovacuum"), n, opts)
		if err != nil {
			return nil, fmt.Errorf("auto-vacuum run: %w", err)
		}
		runs, lastErr := ac.AutoVacuumStats()
		ac.Close()
		if lastErr != nil {
			return nil, fmt.Errorf("auto-vacuum: %w", lastErr)
		}
		res.AutoVacuum, res.AutoVacuumRuns = &ar, runs
		logf("lancecat auto-vacuum every %d: %d creates in %s, __manifest %s", autoEvery, n, fmtDur(float64(ar.TotalNs)), fmtBytes(float64(ar.Bytes)))
	}
	return res, nil
}

// runCatalog runs the catalog suite and returns its rows.
func runCatalog(ctx context.Context, cfg catalogConfig) ([]Row, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if cfg.Namespaces == 0 {
		cfg.Namespaces = 3
	}
	var rows []Row
	for _, size := range cfg.Sizes {
		ops := cfg.Ops
		if ops <= 0 {
			ops = defaultOps(size)
		}
		label := sizeLabel(size)
		logf("catalog: lancecat at %s entries, %d ops each", label, ops)
		lc, err := lancecatCatalog(ctx, filepath.Join(cfg.WorkDir, fmt.Sprintf("lancecat-%d", size)), size, ops, cfg.Namespaces)
		if err != nil {
			return nil, fmt.Errorf("lancecat catalog at %d: %w", size, err)
		}
		if err := lc.check("lancecat", size, ops); err != nil {
			return nil, err
		}
		var pr *catalogRun
		if cfg.Peer {
			logf("catalog: peer at %s entries", label)
			pr = &catalogRun{}
			args := map[string]any{"dir": filepath.Join(cfg.WorkDir, fmt.Sprintf("peer-%d", size)), "size": size, "ops": ops, "namespaces": cfg.Namespaces}
			if err := runPeer(ctx, "catalog", args, pr); err != nil {
				return nil, err
			}
			if err := pr.check("peer", size, ops); err != nil {
				return nil, err
			}
		}
		side := func(r *catalogRun, key string) *Stat {
			if r == nil {
				return nil
			}
			return summarize(nanos(r.Ns[key]))
		}
		for _, op := range catalogOps {
			rows = append(rows, Row{Suite: "catalog", Operation: op.label, Size: label, Unit: UnitNanos,
				Lancecat: side(lc, op.key), Peer: side(pr, op.key)})
		}
		seed := Row{Suite: "catalog", Operation: "seed catalog in one write (setup)", Size: label, Unit: UnitNanos,
			Lancecat: one(float64(lc.SeedNs)), Note: "lancecat: ManifestTable.Commit; peer: createTable + 3 createIndex"}
		if pr != nil {
			seed.Peer = one(float64(pr.SeedNs))
		}
		rows = append(rows, seed)
	}
	if cfg.Creates > 0 {
		n := cfg.Creates
		label := sizeLabel(n) + " creates"
		logf("catalog: lancecat, %d tables created one by one", n)
		lb, err := lancecatBytes(ctx, cfg.WorkDir, n, cfg.AutoVacuumEvery, logf)
		if err != nil {
			return nil, fmt.Errorf("lancecat bytes: %w", err)
		}
		if lb.NoVacuum.Listed != n {
			return nil, fmt.Errorf("lancecat listed %d tables after %d creates", lb.NoVacuum.Listed, n)
		}
		var pb *bytesRun
		if cfg.Peer {
			logf("catalog: peer, %d tables created one by one (takes a while: ~25 ms each at 5,000)", n)
			pb = &bytesRun{}
			if err := runPeer(ctx, "bytes", map[string]any{"dir": filepath.Join(cfg.WorkDir, "peer-bytes"), "creates": n}, pb); err != nil {
				return nil, err
			}
			if pb.Listed != n {
				return nil, fmt.Errorf("peer listed %d tables after %d creates", pb.Listed, n)
			}
		}
		peerVal := func(f func(*bytesRun) float64) *Stat {
			if pb == nil {
				return nil
			}
			return one(f(pb))
		}
		peerBytes := peerVal(func(b *bytesRun) float64 { return float64(b.Bytes) })
		rows = append(rows,
			Row{Suite: "catalog", Operation: "create tables one by one (total)", Size: label, Unit: UnitNanos,
				Lancecat: one(float64(lb.NoVacuum.TotalNs)), Peer: peerVal(func(b *bytesRun) float64 { return float64(b.TotalNs) })},
			Row{Suite: "catalog", Operation: "__manifest versions", Size: label, Unit: UnitCount,
				Lancecat: one(float64(lb.NoVacuum.Versions)), Peer: peerVal(func(b *bytesRun) float64 { return float64(b.Versions) })},
			Row{Suite: "catalog", Operation: "__manifest bytes, no vacuum", Size: label, Unit: UnitBytes,
				Lancecat: one(float64(lb.NoVacuum.Bytes)), Peer: peerBytes,
				Note: fmt.Sprintf("files: lancecat %d%s", lb.NoVacuum.Files, peerFiles(pb))},
			Row{Suite: "catalog", Operation: "__manifest bytes, vacuum keeping version files", Size: label, Unit: UnitBytes,
				Lancecat: one(float64(lb.KeepVersions.Bytes)), Peer: peerBytes,
				Note: "one Vacuum at the end, clock +1h, KeepVersionFiles (the safe default); peer never cleans"},
			Row{Suite: "catalog", Operation: "__manifest bytes, vacuum to latest version", Size: label, Unit: UnitBytes,
				Lancecat: one(float64(lb.AllButLatest.Bytes)), Peer: peerBytes,
				Note: fmt.Sprintf("then Vacuum without KeepVersionFiles: %d files left; both vacuums took %s", lb.AllButLatest.Files, fmtDur(float64(lb.VacuumNs)))},
		)
		if av := lb.AutoVacuum; av != nil {
			rows = append(rows,
				Row{Suite: "catalog", Operation: fmt.Sprintf("__manifest bytes, auto-vacuum every %d commits", cfg.AutoVacuumEvery), Size: label, Unit: UnitBytes,
					Lancecat: one(float64(av.Bytes)), Peer: peerBytes,
					Note: fmt.Sprintf("clock +100d (retention 0 in effect), version files removed; %d runs", lb.AutoVacuumRuns)},
				Row{Suite: "catalog", Operation: fmt.Sprintf("create tables one by one, auto-vacuum every %d (total)", cfg.AutoVacuumEvery), Size: label, Unit: UnitNanos,
					Lancecat: one(float64(av.TotalNs)), Peer: peerVal(func(b *bytesRun) float64 { return float64(b.TotalNs) })},
			)
		}
	}
	return finish(rows), nil
}

func peerFiles(pb *bytesRun) string {
	if pb == nil {
		return ""
	}
	return fmt.Sprintf(", peer %d", pb.Files)
}

// removeAll is os.RemoveAll that reports what it could not remove.
func removeAll(dir string) error { return os.RemoveAll(dir) }
