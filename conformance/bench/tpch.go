package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// runTPCH is `go run ./conformance/bench tpch [-sf N] [flags]`: the TPC-H
// benchmark (lancecat, DuckDB and MariaDB per query, ratios, lancecat's
// peak RSS, geometric means). It lives in conformance/tpch's own module
// (conformance/tpch/cmd/tpchbench), which needs the Go MySQL driver the
// lancecat module must not depend on, so this runs it with `go run` there.
// DuckDB comes from conformance/tpch/duckdb (run `npm ci` there first).
func runTPCH(args []string, stdout, stderr io.Writer) error {
	dir := "conformance/tpch"
	if _, file, _, ok := runtime.Caller(0); ok {
		if d := filepath.Join(filepath.Dir(file), "..", "tpch"); exists(d) {
			dir = d
		}
	}
	if !exists(dir) {
		return fmt.Errorf("tpch: %s not found (run from the repository root)", dir)
	}
	duck := filepath.Join(dir, "duckdb")
	if abs, err := filepath.Abs(duck); err == nil {
		duck = abs
	}
	cmd := exec.Command("go", append([]string{"run", "./cmd/tpchbench", "-duckdb", duck}, args...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr, cmd.Stdin = stdout, stderr, os.Stdin
	return cmd.Run()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
