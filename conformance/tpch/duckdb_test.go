package tpch

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// duckDBRequired says whether a missing DuckDB fails the test instead of
// skipping it: on CI (CI=true) and with LANCECAT_REQUIRE_DUCKDB=1. DuckDB is
// the benchmark's speed anchor, so CI checks it runs and answers the
// queries the benchmark times.
func duckDBRequired() bool {
	return os.Getenv("CI") == "true" || os.Getenv("LANCECAT_REQUIRE_DUCKDB") == "1"
}

// TestTPCHMatchesDuckDB runs the 22 queries in DuckDB (conformance/tpch/
// duckdb, the pinned @duckdb/node-api the benchmark uses) and in lancecat
// over the same generated rows, and compares the answers as
// TestTPCHMatchesMariaDB does (numbers to 0.01, rows in order). It proves
// that the benchmark's DuckDB column times the same queries with the same
// answers, and is a second oracle of lancecat's TPC-H results.
func TestTPCHMatchesDuckDB(t *testing.T) {
	sf := scaleFactor(t)
	ctx := context.Background()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("duckdb", "node_modules", "@duckdb", "node-api"))
	}
	if err != nil {
		if duckDBRequired() {
			t.Fatalf("DuckDB is required (CI=true or LANCECAT_REQUIRE_DUCKDB=1) but cannot run (node and `npm ci` in conformance/tpch/duckdb): %v", err)
		}
		t.Skipf("DuckDB not available (node and `npm ci` in conformance/tpch/duckdb): %v", err)
	}

	dir := t.TempDir()
	if _, err := Generate(dir, sf, 29); err != nil {
		t.Fatal(err)
	}
	queries := Queries(sf)
	var spec struct {
		Tables  []map[string]string `json:"tables"`
		Queries []map[string]any    `json:"queries"`
	}
	for _, tb := range Tables {
		spec.Tables = append(spec.Tables, map[string]string{"name": tb.Name, "ddl": tb.DDL})
	}
	for _, q := range queries {
		spec.Queries = append(spec.Queries, map[string]any{"n": q.N, "sql": q.SQL})
	}
	specPath := filepath.Join(t.TempDir(), "queries.json")
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(dctx, node, filepath.Join("duckdb", "run.mjs"), dir, specPath, "--values")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	duck := map[int][][]*string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			N      int     `json:"n"`
			Error  string  `json:"error"`
			Values [][]any `json:"values"`
			LoadMs float64 `json:"load_ms"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("DuckDB output %q: %v", sc.Text(), err)
		}
		if line.N == 0 {
			continue
		}
		if line.Error != "" {
			t.Errorf("DuckDB cannot run Q%d: %s", line.N, line.Error)
			continue
		}
		duck[line.N] = duckText(line.Values)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	lc, err := sql.Open("lancecat", t.TempDir()+"?durability=none&load_data_dir="+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	lc.SetMaxOpenConns(1)
	if err := Load(ctx, lc, dir, false); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		t.Run(fmt.Sprintf("Q%02d", q.N), func(t *testing.T) {
			want, ok := duck[q.N]
			if !ok {
				t.Fatalf("DuckDB gave no answer to Q%d", q.N)
			}
			if len(want) == 0 {
				t.Errorf("DuckDB's answer to Q%d is empty: the comparison proves little", q.N)
			}
			got, _, err := run(ctx, lc, q.SQL)
			if err != nil {
				t.Fatalf("lancecat: %v", err)
			}
			if diff, _ := compare(want, got); diff != "" {
				t.Errorf("Q%d differs (MariaDB below means DuckDB): %s", q.N, diff)
			}
		})
	}
}

// duckText turns DuckDB's JSON rows into text cells as run does for
// database/sql rows (nil for NULL; numbers in Go's shortest form).
func duckText(rows [][]any) [][]*string {
	out := make([][]*string, len(rows))
	for i, r := range rows {
		out[i] = make([]*string, len(r))
		for j, v := range r {
			var s string
			switch x := v.(type) {
			case nil:
				continue
			case string:
				s = x
			case float64:
				s = strconv.FormatFloat(x, 'f', -1, 64)
			case bool:
				s = strconv.FormatBool(x)
			default:
				s = fmt.Sprint(x)
			}
			out[i][j] = &s
		}
	}
	return out
}
