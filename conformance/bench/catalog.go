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
	"github.com/lancecat/lancecat/storage"
)

// catalogConfig configures the catalog suite.
type catalogConfig struct {
	Sizes      []int // table entries in namespace "bench"
	Ops        int   // operations of each kind per size; 0 = defaultOps(size)
	Namespaces int   // other namespaces in the seeded catalog
	// Creates is the number of one-by-one table creates of the bytes part
	// (0 skips it).
	Creates int
	// Batch is the number of tables of the batch part: created one by one
	// and in one transaction, in a catalog of BatchSize entries (0 skips it).
	Batch     int
	BatchSize int
	WorkDir   string
	Peer      bool
	Log       func(format string, args ...any)
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
	{"createTable", "CREATE TABLE (empty, 2 columns)"},
	{"createNamespace", "CREATE SCHEMA"},
	{"listTables", "list a whole namespace"},
	{"describeTable", "describe table"},
	{"tableExistsHit", "table exists (hit)"},
	{"tableExistsMiss", "table exists (miss)"},
	{"renameTable", "RENAME TABLE"},
	{"dropTable", "DROP TABLE"},
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
	// RenameError is the peer's refusal to rename (its local directory
	// namespace does not support it); empty when renames ran.
	RenameError string `json:"renameError"`
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
		"listedAfterDrops":    size,
	}
	for k, v := range want {
		if got, ok := r.Counts[k]; !ok || got != v {
			return fmt.Errorf("%s at %d entries: %s = %d (present %v), want %d", side, size, k, got, ok, v)
		}
	}
	for _, op := range catalogOps {
		n := ops
		if op.key == "renameTable" && r.RenameError != "" {
			n = 0
		}
		if len(r.Ns[op.key]) != n {
			return fmt.Errorf("%s at %d entries: %d samples of %s, want %d", side, size, len(r.Ns[op.key]), op.key, n)
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
// API, then writes the size table entries in one `__manifest` commit with
// the three indices built, as the peer's seed has them (without them the
// first timed write would pay the index build).
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
	_, err = mt.Commit(ctx, snap.Version(), &catalog.ManifestChange{Upserts: seedRows(size), BuildIndices: true})
	return err
}

// lancecatCatalog runs the catalog operations at one size on a fresh catalog
// in dir, in the same order as bench-peer.mjs.
func lancecatCatalog(ctx context.Context, dir string, size, ops, namespaces int, opts manifest.Options) (*catalogRun, error) {
	c, err := manifest.OpenCatalog(ctx, dir, opts)
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
	var renamed []string
	for i := 0; i < ops; i++ {
		to := fmt.Sprintf("ren%04d", i)
		if err := timed("renameTable", func() error {
			_, err := c.RenameTable(ctx, bench.Child(created[i]), bench.Child(to))
			return err
		}); err != nil {
			return nil, fmt.Errorf("rename %s: %w", created[i], err)
		}
		renamed = append(renamed, to)
	}
	for _, name := range renamed {
		if err := timed("dropTable", func() error { return c.DropTable(ctx, bench.Child(name)) }); err != nil {
			return nil, fmt.Errorf("drop %s: %w", name, err)
		}
	}
	if p, err = c.ListTables(ctx, bench, all); err != nil {
		return nil, err
	}
	run.Counts["listedAfterDrops"] = len(p.Names)
	return run, nil
}

// batchRun is one side's result of the batch part.
type batchRun struct {
	TotalNs int64   `json:"totalNs"`
	Samples []int64 `json:"samples"` // per create, one by one
	Listed  int     `json:"listed"`
	BatchNs int64   `json:"-"` // lancecat: the same creates in one transaction
}

// lancecatBatch creates n tables one by one in a catalog seeded with size
// entries, then n more in one transaction (catalog.Batch: one `__manifest`
// commit) in a second seeded catalog.
func lancecatBatch(ctx context.Context, dir string, size, n, namespaces int, opts manifest.Options) (*batchRun, error) {
	r := &batchRun{}
	schema := benchTableSchema()
	bench := catalog.Ident{"bench"}
	open := func(sub string) (*manifest.Catalog, error) {
		c, err := manifest.OpenCatalog(ctx, filepath.Join(dir, sub), opts)
		if err != nil {
			return nil, err
		}
		if err := seedLancecat(ctx, c, size, namespaces); err != nil {
			c.Close()
			return nil, fmt.Errorf("seed: %w", err)
		}
		if _, err := c.ListTables(ctx, bench, catalog.ListTablesOptions{}); err != nil { // warm-up
			c.Close()
			return nil, err
		}
		return c, nil
	}
	c, err := open("one-by-one")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		t := time.Now()
		if _, err := c.CreateTable(ctx, bench.Child(fmt.Sprintf("b%06d", i)), schema, catalog.CreateTableOptions{}); err != nil {
			return nil, fmt.Errorf("create table %d: %w", i, err)
		}
		r.Samples = append(r.Samples, time.Since(t).Nanoseconds())
	}
	r.TotalNs = time.Since(t0).Nanoseconds()
	p, err := c.ListTables(ctx, bench, catalog.ListTablesOptions{})
	if err != nil {
		return nil, err
	}
	r.Listed = len(p.Names)
	if r.Listed != size+n {
		return nil, fmt.Errorf("%d tables listed after %d one-by-one creates in %d", r.Listed, n, size)
	}

	bc, err := open("transaction")
	if err != nil {
		return nil, err
	}
	defer bc.Close()
	t0 = time.Now()
	b := bc.NewBatch()
	for i := 0; i < n; i++ {
		b.CreateTable(bench.Child(fmt.Sprintf("b%06d", i)), schema, catalog.CreateTableOptions{})
	}
	if err := b.Commit(ctx); err != nil {
		return nil, fmt.Errorf("batch of %d creates: %w", n, err)
	}
	r.BatchNs = time.Since(t0).Nanoseconds()
	if p, err = bc.ListTables(ctx, bench, catalog.ListTablesOptions{}); err != nil {
		return nil, err
	}
	if len(p.Names) != size+n {
		return nil, fmt.Errorf("%d tables listed after a batch of %d creates in %d", len(p.Names), n, size)
	}
	return r, nil
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
	Default     bytesRun // default settings: durability full, auto-vacuum every 20, 1-minute window
	AfterWindow dirSize  // then once the window has passed (one Vacuum, clock +1h, version files kept)
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

func lancecatBytes(ctx context.Context, workDir string, n int, logf func(string, ...any)) (*lancecatBytesResult, error) {
	res := &lancecatBytesResult{}
	dir := filepath.Join(workDir, "lancecat-bytes")
	c, r, err := lancecatCreates(ctx, dir, n, manifest.Options{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if runs, lastErr := c.AutoVacuumStats(); lastErr != nil {
		return nil, fmt.Errorf("auto-vacuum (%d runs): %w", runs, lastErr)
	}
	res.Default = r
	logf("lancecat: %d creates in %s, __manifest %s in %d files", n, fmtDur(float64(r.TotalNs)), fmtBytes(float64(r.Bytes)), r.Files)
	if _, err := c.Vacuum(ctx, futureVacuum(true)); err != nil {
		return nil, fmt.Errorf("vacuum: %w", err)
	}
	if res.AfterWindow, err = treeSize(filepath.Join(dir, catalog.ManifestDir)); err != nil {
		return nil, err
	}
	p, err := c.ListTables(ctx, catalog.Ident{"bench"}, catalog.ListTablesOptions{})
	if err != nil {
		return nil, fmt.Errorf("list after vacuum: %w", err)
	}
	if len(p.Names) != n {
		return nil, fmt.Errorf("after vacuum %d tables listed, want %d", len(p.Names), n)
	}
	return res, nil
}

// durabilityOpts are lancecat's options for one durability setting, every
// other option at its default.
func durabilityOpts(d storage.Durability) manifest.Options {
	return manifest.Options{Storage: storage.Options{Durability: d}}
}

// runCatalog runs the catalog suite and returns its rows. lancecat runs
// twice per size: with durability=none, like for like with the reference
// (which never fsyncs; the ratio column), and with the durable default.
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
		runs := map[storage.Durability]*catalogRun{}
		for _, d := range []storage.Durability{storage.DurabilityNone, storage.DurabilityFull} {
			logf("catalog: lancecat (durability=%s) at %s entries, %d ops each", d, label, ops)
			dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("lancecat-%s-%d", d, size))
			lc, err := lancecatCatalog(ctx, dir, size, ops, cfg.Namespaces, durabilityOpts(d))
			if err != nil {
				return nil, fmt.Errorf("lancecat (durability=%s) catalog at %d: %w", d, size, err)
			}
			if err := lc.check("lancecat", size, ops); err != nil {
				return nil, err
			}
			runs[d] = lc
			if err := removeAll(dir); err != nil {
				return nil, err
			}
		}
		var pr *catalogRun
		if cfg.Peer {
			logf("catalog: peer at %s entries", label)
			pr = &catalogRun{}
			dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("peer-%d", size))
			args := map[string]any{"dir": dir, "size": size, "ops": ops, "namespaces": cfg.Namespaces}
			if err := runPeer(ctx, "catalog", args, pr); err != nil {
				return nil, err
			}
			if err := pr.check("peer", size, ops); err != nil {
				return nil, err
			}
			if err := removeAll(dir); err != nil {
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
			row := Row{Suite: "catalog", Operation: op.label, Size: label, Unit: UnitNanos,
				Lancecat: side(runs[storage.DurabilityNone], op.key), Durable: side(runs[storage.DurabilityFull], op.key),
				Peer: side(pr, op.key)}
			if op.key == "renameTable" && pr != nil && pr.RenameError != "" {
				row.Note = "peer n/a: " + shorten(pr.RenameError, 70)
			}
			rows = append(rows, row)
		}
		seed := Row{Suite: "catalog", Operation: "seed catalog in one write (setup)", Size: label, Unit: UnitNanos,
			Lancecat: one(float64(runs[storage.DurabilityNone].SeedNs)), Durable: one(float64(runs[storage.DurabilityFull].SeedNs)),
			Note: "lancecat: ManifestTable.Commit; peer: createTable + 3 createIndex"}
		if pr != nil {
			seed.Peer = one(float64(pr.SeedNs))
		}
		rows = append(rows, seed)
	}

	if cfg.Batch > 0 {
		n, size := cfg.Batch, cfg.BatchSize
		label := sizeLabel(size)
		res := map[storage.Durability]*batchRun{}
		for _, d := range []storage.Durability{storage.DurabilityNone, storage.DurabilityFull} {
			logf("catalog: lancecat (durability=%s), %d creates one by one and in one transaction at %s entries", d, n, label)
			dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("lancecat-batch-%s", d))
			r, err := lancecatBatch(ctx, dir, size, n, cfg.Namespaces, durabilityOpts(d))
			if err != nil {
				return nil, fmt.Errorf("lancecat batch (durability=%s): %w", d, err)
			}
			res[d] = r
			if err := removeAll(dir); err != nil {
				return nil, err
			}
		}
		var pb *batchRun
		if cfg.Peer {
			logf("catalog: peer, %d creates one by one at %s entries", n, label)
			pb = &batchRun{}
			dir := filepath.Join(cfg.WorkDir, "peer-batch")
			if err := runPeer(ctx, "batch", map[string]any{"dir": dir, "size": size, "creates": n, "namespaces": cfg.Namespaces}, pb); err != nil {
				return nil, err
			}
			if pb.Listed != size+n {
				return nil, fmt.Errorf("peer listed %d tables after %d creates in %d", pb.Listed, n, size)
			}
			if err := removeAll(dir); err != nil {
				return nil, err
			}
		}
		none, full := res[storage.DurabilityNone], res[storage.DurabilityFull]
		total := Row{Suite: "catalog", Operation: fmt.Sprintf("%s CREATE TABLE one by one (total)", sizeLabel(n)), Size: label, Unit: UnitNanos,
			Lancecat: one(float64(none.TotalNs)), Durable: one(float64(full.TotalNs))}
		each := Row{Suite: "catalog", Operation: fmt.Sprintf("%s CREATE TABLE one by one (each)", sizeLabel(n)), Size: label, Unit: UnitNanos,
			Lancecat: summarize(nanos(none.Samples)), Durable: summarize(nanos(full.Samples))}
		if pb != nil {
			total.Peer, each.Peer = one(float64(pb.TotalNs)), summarize(nanos(pb.Samples))
		}
		rows = append(rows, total, each,
			Row{Suite: "catalog", Operation: fmt.Sprintf("%s CREATE TABLE in one transaction", sizeLabel(n)), Size: label, Unit: UnitNanos,
				Lancecat: one(float64(none.BatchNs)), Durable: one(float64(full.BatchNs)),
				Note: "one __manifest commit (BEGIN ... COMMIT); peer n/a: no multi-table transaction"})
	}

	if cfg.Creates > 0 {
		n := cfg.Creates
		label := sizeLabel(n) + " creates"
		logf("catalog: lancecat (default settings), %d tables created one by one", n)
		lb, err := lancecatBytes(ctx, cfg.WorkDir, n, logf)
		if err != nil {
			return nil, fmt.Errorf("lancecat bytes: %w", err)
		}
		if lb.Default.Listed != n {
			return nil, fmt.Errorf("lancecat listed %d tables after %d creates", lb.Default.Listed, n)
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
				Durable: one(float64(lb.Default.TotalNs)), Peer: peerVal(func(b *bytesRun) float64 { return float64(b.TotalNs) }),
				Note: "lancecat with default settings (durable, auto-vacuum)"},
			Row{Suite: "catalog", Operation: "__manifest versions", Size: label, Unit: UnitCount,
				Durable: one(float64(lb.Default.Versions)), Peer: peerVal(func(b *bytesRun) float64 { return float64(b.Versions) })},
			Row{Suite: "catalog", Operation: "__manifest bytes, default settings", Size: label, Unit: UnitBytes,
				Durable: one(float64(lb.Default.Bytes)), Peer: peerBytes,
				Note: fmt.Sprintf("auto-vacuum every %d commits, %s window; files: lancecat %d%s; peer never cleans",
					catalog.DefaultAutoVacuumEvery, catalog.DefaultAutoVacuumRetention, lb.Default.Files, peerFiles(pb))},
			Row{Suite: "catalog", Operation: "__manifest bytes, once the window has passed", Size: label, Unit: UnitBytes,
				Durable: one(float64(lb.AfterWindow.Bytes)), Peer: peerBytes,
				Note: fmt.Sprintf("one more vacuum with the clock +1h (version files kept): %d files", lb.AfterWindow.Files)},
		)
	}
	return finish(rows), nil
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func peerFiles(pb *bytesRun) string {
	if pb == nil {
		return ""
	}
	return fmt.Sprintf(", peer %d", pb.Files)
}

// removeAll is os.RemoveAll that reports what it could not remove.
func removeAll(dir string) error { return os.RemoveAll(dir) }
