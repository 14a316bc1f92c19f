// Command bench measures lancecat side by side with the reference peer (Rust
// Lance via @lancedb/lancedb, conformance/peer) in the same run on the same
// machine, and prints one table per suite: operation | size | lancecat |
// peer | ratio (lancecat / peer, medians; below 1 lancecat is faster).
//
//	go run ./conformance/bench [flags] catalog|dataset|fts|vector|all
//
// Suite catalog: per-operation times (median, p90, p99) of CREATE TABLE,
// CREATE SCHEMA, list a whole namespace, describe, table exists, RENAME
// TABLE and DROP TABLE in a catalog of 500, 5,000, 50,000 and 100,000
// entries in one namespace, lancecat with durability=none (like for like
// with the reference, which never fsyncs) and with the durable default; 1,000
// CREATE TABLE one by one and in one transaction; then the `__manifest`
// bytes on disk after 5,000 one-by-one creates with default settings.
//
// Suite ingest (not part of all: it loads 10,000,000 rows by default):
// -rows deterministic rows (id, name, score, category, date) loaded from
// CSV with LOAD DATA INFILE and from Parquet with IMPORT INTO, each in a
// child process of its own (the bench re-executes itself) so its peak RSS
// is the load's, against the peer's table.add of the same rows from Arrow
// and DuckDB's COPY from the same files (node processes); rows/s, peak RSS,
// bytes on disk; then OPTIMIZE of a table of -fragments appends against
// the peer's optimize(). Every side's row count is checked.
//
// Suite dataset: full scan, one column and a 1,000-row range of the
// 100,000-row `__manifest` fixture (time, bytes read, rows).
//
// Suite fts (not part of all: it loads up to a million documents): a
// deterministic Zipf-distributed corpus of -docs documents (default 10,000
// and 1,000,000), loaded on both sides (lancecat: LOAD DATA; the peer:
// createTable from Arrow); the FTS index build (with positions, or without
// with -fts-no-positions) time, CPU time and bytes on disk; median and p99
// latency and CPU per query of -queries one-word, three-word and two-word
// phrase top-10 queries. lancecat runs through database/sql (CREATE FULLTEXT
// INDEX, MATCH ... AGAINST), the peer through createIndex(Index.fts(...))
// and search(MatchQuery | PhraseQuery) in one node process per size, with
// LANCE_CPU_THREADS of at least 2 (conformance/peer/lance-env.mjs: with the
// one thread Lance gives a 2-core machine its FTS build deadlocks); both
// sides must return the same number of rows per query.
//
// Suite vector (not part of all): seeded clustered float32 vectors
// (-vectors, default 1,000,000 x 128 and 100,000 x 768) that lancecat
// inserts through database/sql and the peer searches a copy of; exact search
// and, per index type (-types), the build time, index bytes, recall@10
// against the exact top 10 computed in Go, and median / p99 latency of
// -queries top-10 queries at the same -nprobes / -refine / -ef on both
// sides, without and with a 10% prefilter. Every query must return 10 rows
// on both sides.
//
// The peer's side runs in one node process per size (bench-peer.mjs in
// conformance/peer) and times each operation inside node, so node's start-up
// is not counted. See README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/index/inverted"
)

func main() {
	maybeIngestChild() // ingest.go: the suite's lancecat side re-executes this binary
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "tpch" {
		return runTPCH(args[1:], stdout, stderr) // tpch.go
	}
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	sizes := fl.String("sizes", "500,5000,50000,100000", "catalog suite: table entries in the benchmarked namespace")
	ops := fl.Int("ops", 0, "catalog suite: operations of each kind per size (0: 30 below 5,000, 20 below 50,000, else 10)")
	creates := fl.Int("creates", 5000, "catalog suite: one-by-one table creates for the bytes-on-disk part, default settings (0: skip)")
	batch := fl.Int("batch", 1000, "catalog suite: tables created one by one and in one transaction (0: skip)")
	batchSize := fl.Int("batchsize", 500, "catalog suite: table entries of the catalog the batch part starts from")
	docs := fl.String("docs", "10000,1000000", "fts suite: corpus sizes (documents)")
	ftsQueries := fl.Int("queries", 100, "fts and vector suites: queries of each kind per size")
	vectors := fl.String("vectors", "1000000x128,100000x768", "vector suite: data sets, ROWSxDIM")
	vecTypesFlag := fl.String("types", "IVF_FLAT,IVF_PQ,IVF_SQ,IVF_HNSW_SQ,IVF_HNSW_PQ,IVF_HNSW_FLAT", "vector suite: index types (IVF_SQ and IVF_HNSW_FLAT are lancecat only)")
	nprobes := fl.Int("nprobes", 20, "vector suite: IVF partitions probed, both sides")
	refine := fl.Int("refine", 0, "vector suite: refine factor, both sides (0: none)")
	ef := fl.Int("ef", 0, "vector suite: HNSW search beam width, both sides (0: the default, 1.5 x k x refine as the reference)")
	ftsNoPositions := fl.Bool("fts-no-positions", false, "fts suite: build both indices without positions and skip phrase queries")
	ftsBuildMemory := fl.Int("fts-build-memory", 0, "fts suite: lancecat's full-text build spills its postings every this many bytes (0: the default, inverted.BuildMemoryBytes)")
	ingestRows := fl.Int("rows", 10_000_000, "ingest suite: rows loaded from CSV and from Parquet")
	fragments := fl.Int("fragments", 1000, "ingest suite: appends (fragments) of the table OPTIMIZE compacts (0: skip)")
	fragRows := fl.Int("fragrows", 1000, "ingest suite: rows of each of those appends")
	noDuckDB := fl.Bool("no-duckdb", false, "ingest suite: without DuckDB (conformance/tpch/duckdb)")
	repeat := fl.Int("repeat", 5, "dataset suite: timed reads per operation")
	fixture := fl.String("fixture", "", "dataset suite: catalog root whose __manifest is read (default: the catalog-100000 fixture, generated with the peer if missing)")
	jsonOut := fl.String("json", "", "also write the results as JSON to this file (\"-\": stdout, instead of the table)")
	noPeer := fl.Bool("no-peer", false, "measure lancecat only")
	workDir := fl.String("workdir", "", "directory for the catalogs the suite builds (default: a new temporary directory)")
	keep := fl.Bool("keep", false, "keep the work directory")
	cpuProfile := fl.String("cpuprofile", "", "write a CPU profile of the run (lancecat's side; the peer is another process; the ingest suite's lancecat children write FILE.csv, FILE.parquet, FILE.optimize)")
	heapProfile := fl.String("heapprofile", "", "write a heap profile of lancecat's side at its highest heap (sampled every 100 ms; the profile is as of the last GC before it)")
	quiet := fl.Bool("q", false, "no progress lines on stderr")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./conformance/bench [flags] catalog|dataset|fts|ingest|vector|all\n       go run ./conformance/bench tpch [-sf 0.1] [-no-duckdb] [-no-mariadb] (conformance/tpch/cmd/tpchbench)")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *ftsBuildMemory > 0 {
		inverted.BuildMemoryBytes = *ftsBuildMemory
	}
	var suites []string
	for _, a := range fl.Args() {
		switch a {
		case "all":
			suites = append(suites, "catalog", "dataset")
		case "catalog", "dataset", "fts", "ingest", "vector":
			suites = append(suites, a)
		default:
			fl.Usage()
			return fmt.Errorf("unknown suite %q", a)
		}
	}
	if len(suites) == 0 {
		fl.Usage()
		return fmt.Errorf("name a suite")
	}
	sz, err := parseSizes(*sizes)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
		}
	}
	usePeer := !*noPeer
	if usePeer {
		if err := peer.Available(); err != nil {
			return fmt.Errorf("%w (use -no-peer to measure lancecat alone)", err)
		}
	}

	useDuckDB := !*noDuckDB && slices.Contains(suites, "ingest")
	if useDuckDB {
		if _, err := duckdbDir(); err != nil {
			return fmt.Errorf("%w (use -no-duckdb to leave DuckDB out)", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	wd := *workDir
	if wd == "" {
		if wd, err = os.MkdirTemp("", "lancecat-bench-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	if *keep {
		logf("work directory %s is kept", wd)
	} else {
		defer removeAll(wd)
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *heapProfile != "" {
		stop := sampleHeapPeak(*heapProfile, logf)
		defer stop()
	}

	var rows []Row
	for _, s := range suites {
		var r []Row
		switch s {
		case "catalog":
			r, err = runCatalog(ctx, catalogConfig{
				Sizes: sz, Ops: *ops, Creates: *creates, Batch: *batch, BatchSize: *batchSize,
				WorkDir: wd, Peer: usePeer, Log: logf,
			})
		case "fts":
			var d []int
			if d, err = parseSizes(*docs); err != nil {
				return err
			}
			if *ftsQueries < 1 {
				return fmt.Errorf("-queries %d: want at least 1", *ftsQueries)
			}
			r, err = runFTS(ctx, ftsConfig{Docs: d, Queries: *ftsQueries, WorkDir: wd, Peer: usePeer, NoPositions: *ftsNoPositions, Log: logf})
		case "ingest":
			if *ingestRows < 1 || *fragments < 0 || (*fragments > 0 && *fragRows < 1) {
				return fmt.Errorf("-rows %d, -fragments %d, -fragrows %d: want rows and fragment rows of at least 1", *ingestRows, *fragments, *fragRows)
			}
			r, err = runIngest(ctx, ingestConfig{Rows: *ingestRows, Fragments: *fragments, FragRows: *fragRows,
				WorkDir: wd, Peer: usePeer, DuckDB: useDuckDB, Keep: *keep, CPUProfile: *cpuProfile, Log: logf})
		case "vector":
			var cfg vectorConfig
			if cfg, err = vectorFlags(*vectors, *vecTypesFlag, *ftsQueries, *nprobes, *refine, *ef); err != nil {
				return err
			}
			cfg.WorkDir, cfg.Peer, cfg.Log = wd, usePeer, logf
			r, err = runVector(ctx, cfg)
		case "dataset":
			root := *fixture
			if root == "" {
				if root, err = fixtureDir(ctx, "catalog-100000"); err != nil {
					return err
				}
			}
			r, err = runDataset(ctx, datasetConfig{
				Root: root, Label: "100,000 rows", Repeat: *repeat, Offset: 50000, Limit: 1000,
				Column: "object_id", Peer: usePeer, Log: logf,
			})
		}
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}

	rep := Report{
		Date: time.Now().UTC().Format(time.RFC3339),
		Machine: map[string]string{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": strconv.Itoa(runtime.NumCPU()),
			"go": runtime.Version(), "load": loadAvg(), "peer": peerLabel(usePeer),
		},
		Rows: rows,
	}
	label := peerLabel(usePeer)
	if useDuckDB {
		rep.Machine["duckdb"] = duckdbLabel()
		label += ", " + rep.Machine["duckdb"]
	}
	if *jsonOut == "-" {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "lancecat vs peer (%s), %s, %s/%s, %d CPUs, load %s\n\n", label, rep.Date, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), rep.Machine["load"])
	if err := printTable(stdout, rows); err != nil {
		return err
	}
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return err
		}
		if err := writeJSON(f, rep); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

func peerLabel(on bool) string {
	if !on {
		return "no peer"
	}
	return "peer @lancedb/lancedb 0.31.0 (Rust Lance 8.0.0)"
}

// loadAvg is /proc/loadavg's first three fields, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// sampleHeapPeak samples the heap every 100 ms and writes a heap profile
// to file whenever the heap in use is 5% above its highest so far, until
// the returned stop: the file ends up with the profile nearest the peak.
func sampleHeapPeak(file string, logf func(string, ...any)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				logf("heap profile %s: peak heap objects %d MiB", file, peak>>20)
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak+peak/20 {
				peak = v
				f, err := os.Create(file)
				if err != nil {
					logf("heap profile: %v", err)
					return
				}
				if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
					logf("heap profile: %v", err)
				}
				f.Close()
			}
		}
	}()
	return func() { close(done); <-finished }
}
