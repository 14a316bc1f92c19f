// Command tpchbench times the 22 TPC-H queries in lancecat, DuckDB and
// MariaDB over the same generated data (conformance/tpch) and prints, per
// query, the three times, lancecat's ratios to the others and lancecat's
// peak RSS, then the geometric means. It is what `go run ./conformance/bench
// tpch -sf N` runs. Each lancecat query runs in a child process of its own
// (this binary with -child), so its peak RSS is that query's (plus opening
// the catalog); DuckDB runs in node (conformance/tpch/duckdb, npm ci there
// first), MariaDB through the Go MySQL driver. Times are one warm run each
// (after one untimed run) of the query alone, not its load.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lancecat/lancecat/conformance/mariadb"
	"github.com/lancecat/lancecat/conformance/tpch"
	_ "github.com/lancecat/lancecat/driver"
)

type childResult struct {
	Ms float64 `json:"ms"`
	// UserMs is the timed run's user CPU time: on a loaded machine it
	// is steadier than the wall time.
	UserMs float64 `json:"user_ms"`
	Rows   int     `json:"rows"`
	HWM    int64   `json:"hwm_kib"` // VmHWM: the child's own peak RSS
	Error  string  `json:"error,omitempty"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tpchbench:", err)
		os.Exit(1)
	}
}

func run() error {
	sf := flag.Float64("sf", 0.1, "scale factor")
	seed := flag.Uint64("seed", 29, "generator seed")
	workDir := flag.String("workdir", "", "directory for the data and databases (default: a new temporary directory, removed after)")
	duckDir := flag.String("duckdb", "", "the directory of conformance/tpch/duckdb (default: found from the working directory)")
	noDuck := flag.Bool("no-duckdb", false, "skip DuckDB")
	noMaria := flag.Bool("no-mariadb", false, "skip MariaDB")
	child := flag.String("child", "", "internal: run one query in lancecat (catalog,query number)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of each lancecat query's timed run to this directory (qN.pprof)")
	reuse := flag.Bool("reuse", false, "reuse the data and lancecat catalog already in -workdir (skip generating and loading)")
	only := flag.String("q", "", "run only these queries (comma-separated numbers)")
	flag.Parse()
	if *child != "" {
		return runChild(*child, *sf, *cpuProfile)
	}
	ctx := context.Background()
	dir := *workDir
	if dir == "" {
		d, err := os.MkdirTemp("", "tpchbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	start := time.Now()
	catalog := filepath.Join(dir, "lancecat")
	if !*reuse {
		counts, err := tpch.Generate(data, *sf, *seed)
		if err != nil {
			return err
		}
		logf("SF %g seed %d: generated %v in %v", *sf, *seed, counts, time.Since(start).Round(time.Millisecond))

		lc, err := sql.Open("lancecat", catalog+"?durability=none&load_data_dir="+data)
		if err != nil {
			return err
		}
		start = time.Now()
		if err := tpch.Load(ctx, lc, data, false); err != nil {
			return err
		}
		lc.Close()
		logf("lancecat loaded in %v", time.Since(start).Round(time.Millisecond))
	}

	queries := tpch.Queries(*sf)
	if *only != "" {
		var keep []tpch.Query
		for _, f := range strings.Split(*only, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("-q: %w", err)
			}
			for _, q := range queries {
				if q.N == n {
					keep = append(keep, q)
				}
			}
		}
		queries = keep
	}
	type row struct {
		lc      childResult
		rss     int64 // KiB
		duck    float64
		maria   float64
		duckErr string
		mErr    string
	}
	rows := make([]row, len(queries))
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for i, q := range queries {
		cmd := exec.Command(self, "-sf", fmt.Sprint(*sf), "-cpuprofile", *cpuProfile, "-child", catalog+","+strconv.Itoa(q.N))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			rows[i].lc.Error = err.Error()
		} else if err := json.Unmarshal(out.Bytes(), &rows[i].lc); err != nil {
			rows[i].lc.Error = "bad child output: " + out.String()
		}
		// Not the rusage's Maxrss: a child forked from this process
		// starts from its RSS (Go forks with CLONE_VM until exec), and
		// this one holds the load's peak.
		rows[i].rss = rows[i].lc.HWM
		logf("lancecat Q%d: %.0f ms (user %.0f ms) %s", q.N, rows[i].lc.Ms, rows[i].lc.UserMs, rows[i].lc.Error)
	}

	if !*noDuck {
		dd := *duckDir
		if dd == "" {
			dd = findDuckDir()
		}
		spec := map[string]any{}
		var tables []map[string]string
		for _, t := range tpch.Tables {
			tables = append(tables, map[string]string{"name": t.Name, "ddl": t.DDL})
		}
		var qs []map[string]any
		for _, q := range queries {
			qs = append(qs, map[string]any{"n": q.N, "sql": q.SQL})
		}
		spec["tables"], spec["queries"] = tables, qs
		b, _ := json.Marshal(spec)
		specPath := filepath.Join(dir, "queries.json")
		if err := os.WriteFile(specPath, b, 0o644); err != nil {
			return err
		}
		cmd := exec.Command("node", filepath.Join(dd, "run.mjs"), data, specPath)
		cmd.Dir = dd
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("duckdb (npm ci in %s first?): %w", dd, err)
		}
		dec := json.NewDecoder(&out)
		for {
			var r struct {
				N      int      `json:"n"`
				Ms     float64  `json:"ms"`
				Error  string   `json:"error"`
				LoadMs *float64 `json:"load_ms"`
			}
			if err := dec.Decode(&r); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			if r.LoadMs != nil {
				logf("duckdb loaded in %.0f ms", *r.LoadMs)
				continue
			}
			for i, q := range queries {
				if q.N == r.N {
					rows[i].duck, rows[i].duckErr = r.Ms, r.Error
				}
			}
		}
	}

	if !*noMaria {
		srv, err := mariadb.Start(ctx, filepath.Join(dir, "mariadb"), "--innodb-buffer-pool-size=512M")
		if err != nil {
			return err
		}
		defer srv.Close()
		my := srv.DB
		my.SetMaxOpenConns(1)
		for _, s := range []string{"CREATE DATABASE tpch", "USE tpch"} {
			if _, err := my.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		start = time.Now()
		if err := tpch.Load(ctx, my, data, true); err != nil {
			return err
		}
		logf("mariadb loaded in %v", time.Since(start).Round(time.Millisecond))
		for i, q := range queries {
			if _, _, err := timeQuery(ctx, my, q.SQL); err != nil {
				rows[i].mErr = err.Error()
				continue
			}
			ms, _, err := timeQuery(ctx, my, q.SQL)
			rows[i].maria = ms
			if err != nil {
				rows[i].mErr = err.Error()
			}
			logf("mariadb Q%d: %.0f ms", q.N, ms)
		}
	}

	host, _ := os.Hostname()
	fmt.Printf("TPC-H SF %g (seed %d), %d CPUs, host %s; times in ms (one warm run), RSS = the lancecat query process's peak\n\n", *sf, *seed, numCPU(), host)
	fmt.Println("| Q | lancecat | lancecat user CPU | DuckDB | MariaDB | lancecat/DuckDB | lancecat/MariaDB | lancecat peak RSS |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	var gl, gu, gd, gm []float64
	for i, q := range queries {
		r := rows[i]
		cell := func(ms float64, e string) string {
			if e == "skipped" {
				return "-"
			}
			if e != "" {
				return "error"
			}
			return fmt.Sprintf("%.0f", ms)
		}
		ratio := func(a, b float64, ea, eb string) string {
			if ea != "" || eb != "" || b <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f", a/b)
		}
		fmt.Printf("| Q%d | %s | %s | %s | %s | %s | %s | %d MiB |\n", q.N, cell(r.lc.Ms, r.lc.Error), cell(r.lc.UserMs, r.lc.Error), cell(r.duck, r.duckErr+skip(*noDuck)),
			cell(r.maria, r.mErr+skip(*noMaria)), ratio(r.lc.Ms, r.duck, r.lc.Error, r.duckErr+skip(*noDuck)),
			ratio(r.lc.Ms, r.maria, r.lc.Error, r.mErr+skip(*noMaria)), r.rss/1024)
		if r.lc.Error == "" {
			gl = append(gl, r.lc.Ms)
			gu = append(gu, r.lc.UserMs)
		}
		if r.duckErr == "" && !*noDuck {
			gd = append(gd, r.duck)
		}
		if r.mErr == "" && !*noMaria {
			gm = append(gm, r.maria)
		}
	}
	// A skipped engine has no mean: "-", not NaN.
	num := func(v float64, prec int) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	fmt.Printf("| geomean | %s | %s | %s | %s | %s | %s | |\n", num(geo(gl), 0), num(geo(gu), 0), num(geo(gd), 0), num(geo(gm), 0),
		num(geo(gl)/geo(gd), 1), num(geo(gl)/geo(gm), 1))
	return nil
}

func skip(b bool) string {
	if b {
		return "skipped"
	}
	return ""
}

func geo(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(math.Max(x, 0.01))
	}
	return math.Exp(s / float64(len(xs)))
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("processor\t:"))
}

func findDuckDir() string {
	for _, d := range []string{"duckdb", "conformance/tpch/duckdb", "../tpch/duckdb"} {
		if _, err := os.Stat(filepath.Join(d, "run.mjs")); err == nil {
			abs, _ := filepath.Abs(d)
			return abs
		}
	}
	return "duckdb"
}

// timeQuery runs q to its end and returns its time in ms.
func timeQuery(ctx context.Context, db *sql.DB, q string) (float64, int, error) {
	start := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return float64(time.Since(start).Microseconds()) / 1000, n, rows.Err()
}

// runChild runs one query in lancecat (one untimed run, then the timed one)
// and prints its result as JSON.
func runChild(arg string, sf float64, profDir string) error {
	var catalog string
	var n int
	for i := len(arg) - 1; i >= 0; i-- {
		if arg[i] == ',' {
			catalog = arg[:i]
			n, _ = strconv.Atoi(arg[i+1:])
			break
		}
	}
	db, err := sql.Open("lancecat", catalog)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var res childResult
	for _, q := range tpch.Queries(sf) {
		if q.N != n {
			continue
		}
		if _, _, err := timeQuery(context.Background(), db, q.SQL); err != nil {
			res.Error = err.Error()
			break
		}
		if profDir != "" {
			f, err := os.Create(filepath.Join(profDir, fmt.Sprintf("q%d.pprof", n)))
			if err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer f.Close()
		}
		u0 := userCPU()
		res.Ms, res.Rows, err = timeQuery(context.Background(), db, q.SQL)
		res.UserMs = float64((userCPU() - u0).Microseconds()) / 1000
		if profDir != "" {
			pprof.StopCPUProfile()
		}
		if err != nil {
			res.Error = err.Error()
		}
	}
	res.HWM = vmHWM()
	return json.NewEncoder(os.Stdout).Encode(res)
}

// userCPU is this process's user CPU time so far.
func userCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}

// vmHWM is this process's peak resident set (KiB) from /proc/self/status.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}
