package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/testenv"
)

// TestMain lets the ingest suite's lancecat side re-execute the test binary
// as its child process, as it re-executes the bench command.
func TestMain(m *testing.M) {
	maybeIngestChild()
	os.Exit(m.Run())
}

// tableRows reads every row of rec into ingestRows.
func tableRows(t *testing.T, tbl arrow.Table) []ingestRow {
	t.Helper()
	var out []ingestRow
	tr := array.NewTableReader(tbl, 1000)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, csvRowAt(rec, i))
		}
	}
	return out
}

// The generator gives the same rows in every run, and the CSV, Parquet and
// Arrow files hold exactly those rows: all sides load the same data.
func TestIngestGeneratorDeterministic(t *testing.T) {
	const n = 3000
	g1, g2 := newIngestGen(), newIngestGen()
	var want []ingestRow
	cats := map[string]int{}
	for i := 0; i < n; i++ {
		a, b := g1.row(), g2.row()
		if a != b {
			t.Fatalf("row %d differs between two generators: %+v, %+v", i, a, b)
		}
		if a.ID != int64(i+1) || !strings.Contains(a.Name, " ") || a.Score < 0 || a.Score > 1000 ||
			math.Round(a.Score*100)/100 != a.Score || a.Day < ingestEpochDay || a.Day >= ingestEpochDay+ingestDays {
			t.Errorf("row %d out of shape: %+v", i, a)
		}
		cats[a.Category]++
		want = append(want, a)
	}
	if len(cats) != 4 || cats["books"] < cats["tools"] {
		t.Errorf("categories %v: want the 4, skewed", cats)
	}

	dir1, dir2 := t.TempDir(), t.TempDir()
	f1, err := writeIngestFiles(context.Background(), dir1, n, true)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := writeIngestFiles(context.Background(), dir2, n, false)
	if err != nil {
		t.Fatal(err)
	}
	csv1, err := os.ReadFile(f1.CSV)
	if err != nil {
		t.Fatal(err)
	}
	csv2, err := os.ReadFile(f2.CSV)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(csv1, csv2) {
		t.Error("two CSV files of the same rows differ")
	}
	lines := strings.Split(strings.TrimSuffix(string(csv1), "\n"), "\n")
	if len(lines) != n+1 || lines[0] != "id,name,score,category,day" {
		t.Fatalf("CSV has %d lines, header %q", len(lines), lines[0])
	}
	for i, r := range want {
		if got := string(r.appendCSV(nil)); lines[i+1]+"\n" != got {
			t.Fatalf("CSV line %d is %q, the generator's row %q", i+1, lines[i+1], got)
		}
	}

	pf, err := file.OpenParquetFile(f1.Parquet, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if got := tableRows(t, tbl); len(got) != n || !equalRows(got, want) {
		t.Errorf("the Parquet file holds %d rows, not the generator's %d", len(got), n)
	}

	af, err := os.Open(f1.Arrows)
	if err != nil {
		t.Fatal(err)
	}
	defer af.Close()
	if got := readArrows(t, af); !equalRows(got, want) {
		t.Errorf("the Arrow file holds %d rows, not the generator's %d", len(got), n)
	}

	// The OPTIMIZE table's appends are the generator's first rows, one
	// record batch each.
	frag := filepath.Join(t.TempDir(), "f.arrows")
	if err := writeFragmentArrows(context.Background(), frag, 4, 25); err != nil {
		t.Fatal(err)
	}
	ff, err := os.Open(frag)
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	r, err := ipc.NewReader(bufio.NewReader(ff))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var batches int
	var got []ingestRow
	for r.Next() {
		batches++
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, csvRowAt(rec, i))
		}
	}
	if batches != 4 || !equalRows(got, want[:100]) {
		t.Errorf("fragment file: %d batches, %d rows; want 4 batches of the first 100 rows", batches, len(got))
	}
}

func readArrows(t *testing.T, f io.Reader) []ingestRow {
	t.Helper()
	r, err := ipc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var out []ingestRow
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, csvRowAt(rec, i))
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return out
}

func equalRows(a, b []ingestRow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A side whose count or manifest disagrees with the rows generated fails
// the run.
func TestIngestCheckRows(t *testing.T) {
	if err := checkRows("x", 10, &ingestResult{Rows: 10}, &lanceStats{Rows: 10}); err != nil {
		t.Fatal(err)
	}
	if checkRows("x", 10, &ingestResult{Rows: 9}, nil) == nil {
		t.Error("a count of 9 for 10 rows passed")
	}
	if checkRows("x", 10, &ingestResult{Rows: 10}, &lanceStats{Rows: 11}) == nil {
		t.Error("a manifest of 11 rows for 10 passed")
	}
}

// TestIngestSuiteTiny runs the whole ingest suite (flags, lancecat child
// processes, the peer, DuckDB, table and JSON) at 2,000 rows and 10
// fragments: every side reports every number, the counts are the ones the
// suite built, and the table prints the JSON's numbers.
func TestIngestSuiteTiny(t *testing.T) {
	peer.Require(t)
	args := []string{"-rows", "2000", "-fragments", "10", "-fragrows", "30", "-workdir", t.TempDir(), "-q"}
	duck := true
	if _, err := duckdbDir(); err != nil {
		if testenv.Strict() {
			t.Fatalf("DUCKDB REQUIRED BUT UNAVAILABLE: %v", err)
		}
		t.Logf("DUCKDB SKIPPED: %v", err)
		duck = false
		args = append(args, "-no-duckdb")
	}
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	var out bytes.Buffer
	if err := run(append(args, "-json", jsonPath, "ingest"), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	ops := map[string]Row{}
	for _, r := range rep.Rows {
		ops[r.Operation] = r
		if r.Lancecat == nil || r.Peer == nil {
			t.Errorf("row %q: lancecat %+v, peer %+v", r.Operation, r.Lancecat, r.Peer)
			continue
		}
		if r.Unit != UnitCount && (r.Lancecat.Median <= 0 || r.Peer.Median <= 0 || r.Ratio <= 0) {
			t.Errorf("row %q: lancecat %v, peer %v, ratio %v", r.Operation, r.Lancecat.Median, r.Peer.Median, r.Ratio)
		}
		load := strings.HasPrefix(r.Operation, "load ")
		if wantDuck := duck && load && r.Unit != UnitCount; wantDuck != (r.DuckDB != nil && r.DuckDB.Median > 0) {
			t.Errorf("row %q: DuckDB %+v", r.Operation, r.DuckDB)
		}
		line := ""
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, r.Operation+"  ") {
				line = l
			}
		}
		if !strings.Contains(line, formatStat(r.Unit, r.Lancecat)) || !strings.Contains(line, formatStat(r.Unit, r.Peer)) ||
			(r.DuckDB != nil && !strings.Contains(line, formatStat(r.Unit, r.DuckDB))) {
			t.Errorf("table line %q lacks the JSON's numbers of %q", line, r.Operation)
		}
	}
	for _, format := range []string{"CSV", "Parquet"} {
		tm, rate := ops["load "+format+": time"], ops["load "+format+": rows/s"]
		if tm.Lancecat == nil || rate.Lancecat == nil || math.Abs(rate.Lancecat.Median*tm.Lancecat.Median/1e9-2000) > 1 {
			t.Errorf("%s: rows/s %+v does not match 2,000 rows in %+v", format, rate.Lancecat, tm.Lancecat)
		}
	}
	for op, want := range map[string]float64{"fragments before OPTIMIZE": 10, "fragments after OPTIMIZE": 1} {
		r, ok := ops[op]
		if !ok || r.Lancecat == nil || r.Peer == nil || r.Lancecat.Median != want || r.Peer.Median != want {
			t.Errorf("%s: %+v, want %v on both sides", op, r, want)
		}
	}
}
