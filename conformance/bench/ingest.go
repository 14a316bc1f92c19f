package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// ingestConfig configures the ingest suite.
type ingestConfig struct {
	Rows      int // rows loaded from CSV and from Parquet
	Fragments int // appends of the OPTIMIZE table (0: skip that part)
	FragRows  int // rows of each append
	WorkDir   string
	Peer      bool
	DuckDB    bool
	// Keep keeps every table, database and input file (-keep), to look
	// at; otherwise each goes once measured, to bound the disk used.
	Keep bool
	// CPUProfile is -cpuprofile: each lancecat child writes its own profile
	// to CPUProfile + "." + its operation.
	CPUProfile string
	Log        func(format string, args ...any)
}

// ingestPeerAdd is the rows of one table.add of the peer's load: Lance's
// default rows per data file and lancecat's LOAD DATA batch, so both sides
// write fragments of the same size.
const ingestPeerAdd = 1 << 20

// ingestChildEnv, when set, makes the bench binary (or its test binary) run
// one lancecat side of the suite instead of its command: the JSON
// ingestChildArgs. A child process of its own is what makes the peak RSS
// the load's, not the generator's or the other loads'.
const ingestChildEnv = "LANCECAT_BENCH_INGEST_CHILD"

type ingestChildArgs struct {
	Op        string `json:"op"` // csv | parquet | fragments | optimize
	Root      string `json:"root"`
	Data      string `json:"data,omitempty"` // load_data_dir: where the input files are
	Fragments int    `json:"fragments,omitempty"`
	FragRows  int    `json:"fragRows,omitempty"`
	// CPUProfile, when set, is where the child writes a CPU profile of its
	// run (-cpuprofile P writes P.csv, P.parquet, ...: the loads happen in
	// the children, not in the process -cpuprofile profiles).
	CPUProfile string `json:"cpuProfile,omitempty"`
}

// ingestResult is what each side's process reports: the timed operation's
// nanoseconds and the table's row count afterwards, counted by that side.
type ingestResult struct {
	Ns int64 `json:"ns"`
	// CPUNs is the process's user + system CPU time over the timed
	// operation (all threads): on a shared machine the wall time also
	// counts waiting for a core, this does not.
	CPUNs int64  `json:"cpuNs"`
	Rows  int64  `json:"rows"`
	Adds  int    `json:"adds,omitempty"`
	Error string `json:"error,omitempty"`
}

// maybeIngestChild runs the child side and exits when ingestChildEnv is
// set; it returns at once otherwise. main and TestMain call it first.
func maybeIngestChild() {
	spec := os.Getenv(ingestChildEnv)
	if spec == "" {
		return
	}
	res, err := ingestChild(context.Background(), spec)
	if err != nil {
		res = &ingestResult{Error: err.Error()}
	}
	if jerr := json.NewEncoder(os.Stdout).Encode(res); jerr != nil || err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// ingestChild is lancecat's side of one operation, through database/sql as
// an application runs it: durability=none, like for like with the
// reference, which never fsyncs.
func ingestChild(ctx context.Context, spec string) (*ingestResult, error) {
	var a ingestChildArgs
	if err := json.Unmarshal([]byte(spec), &a); err != nil {
		return nil, err
	}
	dsn := a.Root + "?durability=none"
	if a.Data != "" {
		dsn += "&load_data_dir=" + url.QueryEscape(a.Data)
	}
	if err := os.MkdirAll(a.Root, 0o755); err != nil {
		return nil, err
	}
	if a.CPUProfile != "" {
		f, err := os.Create(a.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	db, err := sql.Open("lancecat", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var timed func() error
	switch a.Op {
	case "csv", "parquet":
		if _, err := db.ExecContext(ctx, ingestDDL); err != nil {
			return nil, err
		}
		stmt := `LOAD DATA INFILE 'ingest.csv' INTO TABLE t FIELDS TERMINATED BY ',' IGNORE 1 LINES`
		if a.Op == "parquet" {
			stmt = `IMPORT INTO t FROM 'ingest.parquet' FORMAT 'parquet'`
		}
		timed = func() error {
			_, err := db.ExecContext(ctx, stmt)
			return err
		}
	case "fragments":
		if _, err := db.ExecContext(ctx, ingestDDL); err != nil {
			return nil, err
		}
		timed = func() error {
			g := newIngestGen()
			var b strings.Builder
			for i := 0; i < a.Fragments; i++ {
				b.Reset()
				b.WriteString("INSERT INTO t VALUES ")
				for j := 0; j < a.FragRows; j++ {
					if j > 0 {
						b.WriteByte(',')
					}
					g.row().sqlValues(&b)
				}
				if _, err := db.ExecContext(ctx, b.String()); err != nil {
					return fmt.Errorf("append %d: %w", i, err)
				}
			}
			return nil
		}
	case "optimize":
		timed = func() error {
			_, err := db.ExecContext(ctx, "OPTIMIZE TABLE t")
			return err
		}
	default:
		return nil, fmt.Errorf("unknown child op %q", a.Op)
	}
	t0, c0 := time.Now(), selfCPU()
	if err := timed(); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Op, err)
	}
	res := &ingestResult{Ns: time.Since(t0).Nanoseconds(), CPUNs: selfCPU() - c0}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&res.Rows); err != nil {
		return nil, err
	}
	return res, nil
}

// runMeasured runs cmd, which prints one JSON ingestResult (or {"error"})
// on stdout, and returns it with the process's peak RSS.
func runMeasured(cmd *exec.Cmd, label string) (*ingestResult, int64, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res ingestResult
	decErr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &res)
	if decErr == nil && res.Error != "" {
		return nil, 0, fmt.Errorf("%s: %s", label, res.Error)
	}
	if runErr != nil {
		return nil, 0, fmt.Errorf("%s: %w: %s", label, runErr, strings.TrimSpace(stderr.String()))
	}
	if decErr != nil {
		return nil, 0, fmt.Errorf("%s: decode %q: %w", label, stdout.String(), decErr)
	}
	return &res, peakRSS(cmd.ProcessState), nil
}

// runLancecatChild re-executes this binary as the child of a.
func runLancecatChild(ctx context.Context, a ingestChildArgs) (*ingestResult, int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, 0, err
	}
	spec, err := json.Marshal(a)
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), ingestChildEnv+"="+string(spec))
	return runMeasured(cmd, "lancecat "+a.Op)
}

// runIngestPeer runs `node ingest.mjs op <args>` in conformance/peer.
func runIngestPeer(ctx context.Context, op string, args any) (*ingestResult, int64, error) {
	dir, err := peer.Dir()
	if err != nil {
		return nil, 0, err
	}
	spec, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "ingest.mjs"), op, string(spec))
	cmd.Dir = dir
	return runMeasured(cmd, "peer "+op)
}

// duckdbDir is conformance/tpch/duckdb (the pinned @duckdb/node-api), found
// from this file's location as runTPCH finds conformance/tpch.
func duckdbDir() (string, error) {
	dir := filepath.Join("conformance", "tpch", "duckdb")
	if _, file, _, ok := runtime.Caller(0); ok {
		dir = filepath.Join(filepath.Dir(file), "..", "tpch", "duckdb")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		return "", fmt.Errorf("DuckDB's node package is not installed (npm ci in %s): %w", dir, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node not found: %w", err)
	}
	return filepath.Abs(dir)
}

// duckdbLabel names the DuckDB the suite drives, from its installed
// package's version.
func duckdbLabel() string {
	dir, err := duckdbDir()
	if err != nil {
		return "DuckDB ?"
	}
	var pkg struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		return "DuckDB ?"
	}
	return "DuckDB @duckdb/node-api " + pkg.Version
}

// runIngestDuckDB loads file (csv or parquet) into a new DuckDB database
// file db with COPY.
func runIngestDuckDB(ctx context.Context, db, file, format string) (*ingestResult, int64, error) {
	dir, err := duckdbDir()
	if err != nil {
		return nil, 0, err
	}
	spec, err := json.Marshal(map[string]string{"db": db, "ddl": ingestDDL, "file": file, "format": format})
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "ingest.mjs"), string(spec))
	cmd.Dir = dir
	return runMeasured(cmd, "DuckDB COPY "+format)
}

// lanceStats describes a Lance table directory's latest version and files.
type lanceStats struct {
	Fragments  int
	Rows       uint64 // live rows of the latest version, from its manifest
	LiveBytes  int64  // the data files the latest version references
	DataBytes  int64  // every file under data/ (older versions' too)
	TotalBytes int64  // every file of the directory
}

// tableStats reads dir's latest manifest with lancecat's reader (the same
// reader for both sides' tables) and sums its file sizes.
func tableStats(ctx context.Context, dir string) (*lanceStats, error) {
	st, err := storage.Open(ctx, filepath.Dir(dir), storage.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ds, err := dataset.Open(ctx, st, filepath.Base(dir), dataset.OpenOptions{})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	s := &lanceStats{Fragments: len(ds.Fragments())}
	for _, f := range ds.Fragments() {
		n, known := f.LiveRows()
		if !known {
			return nil, fmt.Errorf("%s: fragment %d has an uncounted deletion file", dir, f.ID)
		}
		s.Rows += n
		for _, df := range f.Files {
			info, err := os.Stat(filepath.Join(dir, "data", filepath.FromSlash(df.Path)))
			if err != nil {
				return nil, err
			}
			s.LiveBytes += info.Size()
		}
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		s.TotalBytes += info.Size()
		if strings.HasPrefix(filepath.ToSlash(p), filepath.ToSlash(dir)+"/data/") {
			s.DataBytes += info.Size()
		}
		return nil
	})
	return s, err
}

// fileBytes sums the sizes of the paths that exist.
func fileBytes(paths ...string) (int64, error) {
	var n int64
	for _, p := range paths {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += info.Size()
	}
	return n, nil
}

// ingestSide is one side's measurements of one operation.
type ingestSide struct {
	Ns, CPUNs, RSS int64
	Stats          *lanceStats // Lance tables
	Bytes          int64       // DuckDB's database file
}

// checkRows fails the run when a side's own count or the manifest's row
// count is not want: a benchmark of a wrong load is worthless.
func checkRows(what string, want int64, res *ingestResult, st *lanceStats) error {
	if res.Rows != want {
		return fmt.Errorf("%s: the table has %d rows, want %d", what, res.Rows, want)
	}
	if st != nil && int64(st.Rows) != want {
		return fmt.Errorf("%s: the latest manifest has %d rows, want %d", what, st.Rows, want)
	}
	return nil
}

func childProfile(cfg ingestConfig, op string) string {
	if cfg.CPUProfile == "" {
		return ""
	}
	return cfg.CPUProfile + "." + op
}

// runIngest runs the ingest suite and returns its rows.
func runIngest(ctx context.Context, cfg ingestConfig) ([]Row, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	drop := func(p string) error {
		if cfg.Keep {
			return nil
		}
		return removeAll(p)
	}
	data := filepath.Join(cfg.WorkDir, "ingest-data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	want := int64(cfg.Rows)
	t0 := time.Now()
	files, err := writeIngestFiles(ctx, data, cfg.Rows, cfg.Peer)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	logf("ingest: generated %s rows in %v (not counted)", sizeLabel(cfg.Rows), time.Since(t0).Round(time.Millisecond))

	lc := map[string]*ingestSide{}
	duck := map[string]*ingestSide{}
	var pr *ingestSide
	formats := []string{"csv", "parquet"}
	for _, format := range formats {
		logf("ingest: lancecat from %s", format)
		root := filepath.Join(cfg.WorkDir, "lancecat-"+format)
		res, rss, err := runLancecatChild(ctx, ingestChildArgs{Op: format, Root: root, Data: data, CPUProfile: childProfile(cfg, format)})
		if err != nil {
			return nil, err
		}
		st, err := tableStats(ctx, filepath.Join(root, "t.lance"))
		if err != nil {
			return nil, err
		}
		if err := checkRows("lancecat from "+format, want, res, st); err != nil {
			return nil, err
		}
		lc[format] = &ingestSide{Ns: res.Ns, CPUNs: res.CPUNs, RSS: rss, Stats: st}
		if err := drop(root); err != nil {
			return nil, err
		}
	}
	if cfg.Peer {
		logf("ingest: peer add from Arrow")
		dir := filepath.Join(cfg.WorkDir, "peer-load")
		res, rss, err := runIngestPeer(ctx, "load", map[string]any{"dir": dir, "arrows": files.Arrows, "per": ingestPeerAdd})
		if err != nil {
			return nil, err
		}
		st, err := tableStats(ctx, filepath.Join(dir, "t.lance"))
		if err != nil {
			return nil, err
		}
		if err := checkRows("peer add", want, res, st); err != nil {
			return nil, err
		}
		pr = &ingestSide{Ns: res.Ns, CPUNs: res.CPUNs, RSS: rss, Stats: st}
		if err := drop(dir); err != nil {
			return nil, err
		}
	}
	if cfg.DuckDB {
		for _, format := range formats {
			logf("ingest: DuckDB COPY from %s", format)
			db := filepath.Join(cfg.WorkDir, "duckdb-"+format+".db")
			file := files.CSV
			if format == "parquet" {
				file = files.Parquet
			}
			res, rss, err := runIngestDuckDB(ctx, db, file, format)
			if err != nil {
				return nil, err
			}
			if err := checkRows("DuckDB COPY from "+format, want, res, nil); err != nil {
				return nil, err
			}
			n, err := fileBytes(db, db+".wal")
			if err != nil {
				return nil, err
			}
			duck[format] = &ingestSide{Ns: res.Ns, CPUNs: res.CPUNs, RSS: rss, Bytes: n}
			if err := drop(db); err != nil {
				return nil, err
			}
			if err := drop(db + ".wal"); err != nil {
				return nil, err
			}
		}
	}
	if err := drop(data); err != nil {
		return nil, err
	}

	label := sizeLabel(cfg.Rows) + " rows"
	var rows []Row
	side := func(s *ingestSide, f func(*ingestSide) float64) *Stat {
		if s == nil {
			return nil
		}
		return one(f(s))
	}
	rate := func(ns int64) float64 { return float64(cfg.Rows) / (float64(ns) / 1e9) }
	// lanceOr is a Lance table's figure, or DuckDB's database file.
	lanceOr := func(f func(*lanceStats) int64) func(*ingestSide) float64 {
		return func(s *ingestSide) float64 {
			if s.Stats == nil {
				return float64(s.Bytes)
			}
			return float64(f(s.Stats))
		}
	}
	for _, format := range formats {
		name, stmt := "CSV", "LOAD DATA INFILE"
		if format == "parquet" {
			name, stmt = "Parquet", "IMPORT INTO ... FORMAT 'parquet'"
		}
		l, d := lc[format], duck[format]
		row := func(op string, unit Unit, f func(*ingestSide) float64, note string) Row {
			return Row{Suite: "ingest", Operation: "load " + name + ": " + op, Size: label, Unit: unit,
				Lancecat: side(l, f), Peer: side(pr, f), DuckDB: side(d, f), Note: note}
		}
		// DuckDB has no fragments: its column stays empty.
		nfrags := func(s *ingestSide) float64 { return float64(s.Stats.Fragments) }
		frags := Row{Suite: "ingest", Operation: "load " + name + ": fragments", Size: label, Unit: UnitCount,
			Lancecat: side(l, nfrags), Peer: side(pr, nfrags)}
		rows = append(rows,
			row("time", UnitNanos, func(s *ingestSide) float64 { return float64(s.Ns) },
				"lancecat "+stmt+"; peer table.add from Arrow (the same run in both loads); DuckDB COPY + CHECKPOINT"),
			row("rows/s", UnitRate, func(s *ingestSide) float64 { return rate(s.Ns) }, "higher is better"),
			row("CPU time (user+sys)", UnitNanos, func(s *ingestSide) float64 { return float64(s.CPUNs) }, "all threads, over the timed part"),
			row("peak RSS", UnitBytes, func(s *ingestSide) float64 { return float64(s.RSS) }, "of the loading process"),
			row("bytes on disk (data files)", UnitBytes, lanceOr(func(s *lanceStats) int64 { return s.DataBytes }), "DuckDB: its database file"),
			row("bytes on disk (total)", UnitBytes, lanceOr(func(s *lanceStats) int64 { return s.TotalBytes }), ""),
			frags,
		)
	}

	if cfg.Fragments > 0 {
		r, err := runIngestOptimize(ctx, cfg, logf)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return finish(rows), nil
}

// runIngestOptimize builds a table of cfg.Fragments appends of cfg.FragRows
// rows on each side (untimed setup, reported), then times lancecat's
// OPTIMIZE TABLE against the peer's table.optimize().
func runIngestOptimize(ctx context.Context, cfg ingestConfig, logf func(string, ...any)) ([]Row, error) {
	want := int64(cfg.Fragments) * int64(cfg.FragRows)
	drop := func(p string) error {
		if cfg.Keep {
			return nil
		}
		return removeAll(p)
	}
	type sides struct {
		build, opt    *ingestResult
		rss           int64
		before, after *lanceStats
	}
	measure := func(what string, build func() (*ingestResult, error), optimize func() (*ingestResult, int64, error), dir string) (*sides, error) {
		var s sides
		var err error
		logf("ingest: %s builds %d appends of %d rows", what, cfg.Fragments, cfg.FragRows)
		if s.build, err = build(); err != nil {
			return nil, err
		}
		if s.before, err = tableStats(ctx, dir); err != nil {
			return nil, err
		}
		if err := checkRows(what+" appends", want, s.build, s.before); err != nil {
			return nil, err
		}
		// Each append is one fragment: anything else is not the table the
		// comparison is about.
		if s.before.Fragments != cfg.Fragments {
			return nil, fmt.Errorf("%s: %d appends left %d fragments", what, cfg.Fragments, s.before.Fragments)
		}
		logf("ingest: %s optimize", what)
		if s.opt, s.rss, err = optimize(); err != nil {
			return nil, err
		}
		if s.after, err = tableStats(ctx, dir); err != nil {
			return nil, err
		}
		if err := checkRows(what+" after optimize", want, s.opt, s.after); err != nil {
			return nil, err
		}
		return &s, nil
	}
	root := filepath.Join(cfg.WorkDir, "lancecat-optimize")
	l, err := measure("lancecat",
		func() (*ingestResult, error) {
			res, _, err := runLancecatChild(ctx, ingestChildArgs{Op: "fragments", Root: root, Fragments: cfg.Fragments, FragRows: cfg.FragRows})
			return res, err
		},
		func() (*ingestResult, int64, error) {
			return runLancecatChild(ctx, ingestChildArgs{Op: "optimize", Root: root, CPUProfile: childProfile(cfg, "optimize")})
		}, filepath.Join(root, "t.lance"))
	if err != nil {
		return nil, err
	}
	if err := drop(root); err != nil {
		return nil, err
	}
	var p *sides
	if cfg.Peer {
		arrows := filepath.Join(cfg.WorkDir, "fragments.arrows")
		if err := writeFragmentArrows(ctx, arrows, cfg.Fragments, cfg.FragRows); err != nil {
			return nil, err
		}
		dir := filepath.Join(cfg.WorkDir, "peer-optimize")
		p, err = measure("peer",
			func() (*ingestResult, error) {
				res, _, err := runIngestPeer(ctx, "fragments", map[string]any{"dir": dir, "arrows": arrows})
				return res, err
			},
			func() (*ingestResult, int64, error) {
				return runIngestPeer(ctx, "optimize", map[string]any{"dir": dir})
			}, filepath.Join(dir, "t.lance"))
		if err != nil {
			return nil, err
		}
		if err := drop(dir); err != nil {
			return nil, err
		}
		if err := drop(arrows); err != nil {
			return nil, err
		}
	}
	label := fmt.Sprintf("%s x %s rows", sizeLabel(cfg.Fragments), sizeLabel(cfg.FragRows))
	row := func(op string, unit Unit, f func(*sides) float64, note string) Row {
		r := Row{Suite: "ingest", Operation: op, Size: label, Unit: unit, Lancecat: one(f(l)), Note: note}
		if p != nil {
			r.Peer = one(f(p))
		}
		return r
	}
	return []Row{
		row(fmt.Sprintf("%s appends (setup)", sizeLabel(cfg.Fragments)), UnitNanos, func(s *sides) float64 { return float64(s.build.Ns) },
			"lancecat: one INSERT of each; peer: table.add of each"),
		row("fragments before OPTIMIZE", UnitCount, func(s *sides) float64 { return float64(s.before.Fragments) }, ""),
		row("OPTIMIZE: time", UnitNanos, func(s *sides) float64 { return float64(s.opt.Ns) }, "lancecat OPTIMIZE TABLE; peer table.optimize()"),
		row("OPTIMIZE: CPU time (user+sys)", UnitNanos, func(s *sides) float64 { return float64(s.opt.CPUNs) }, "all threads"),
		row("OPTIMIZE: peak RSS", UnitBytes, func(s *sides) float64 { return float64(s.rss) }, "of the optimizing process"),
		row("fragments after OPTIMIZE", UnitCount, func(s *sides) float64 { return float64(s.after.Fragments) }, ""),
		row("bytes after OPTIMIZE (live data files)", UnitBytes, func(s *sides) float64 { return float64(s.after.LiveBytes) }, "what the latest version references"),
		row("bytes after OPTIMIZE (total)", UnitBytes, func(s *sides) float64 { return float64(s.after.TotalBytes) }, "old versions kept on both sides"),
	}, nil
}
