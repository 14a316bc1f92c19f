package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		in          []float64
		median, p90 float64
	}{
		{[]float64{5}, 5, 5},
		{[]float64{3, 1, 2}, 2, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 4},
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 9},
	} {
		s := summarize(tc.in)
		if s.Median != tc.median || s.P90 != tc.p90 || s.N != len(tc.in) {
			t.Errorf("summarize(%v) = %+v, want median %v p90 %v", tc.in, *s, tc.median, tc.p90)
		}
	}
	if summarize(nil) != nil {
		t.Error("summarize(nil) != nil")
	}
}

// TestCatalogSuiteTiny runs the whole command (flags, both sides, table and
// JSON output) on the catalog suite at a tiny size and checks that every row
// carries both sides' numbers and that the table prints them.
func TestCatalogSuiteTiny(t *testing.T) {
	peer.Require(t)
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	var out bytes.Buffer
	args := []string{"-sizes", "20", "-ops", "2", "-creates", "4", "-autovacuum", "2",
		"-workdir", t.TempDir(), "-json", jsonPath, "-q", "catalog"}
	if err := run(args, &out, io.Discard); err != nil {
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
	ops := map[string]bool{}
	for _, r := range rep.Rows {
		ops[r.Operation] = true
		if r.Suite != "catalog" || r.Size == "" {
			t.Errorf("row %+v: suite or size missing", r)
		}
		if r.Lancecat == nil || r.Peer == nil || r.Ratio <= 0 {
			t.Errorf("row %q (%s) is not filled: lancecat %v peer %v ratio %v", r.Operation, r.Size, r.Lancecat, r.Peer, r.Ratio)
			continue
		}
		if r.Lancecat.Median <= 0 || r.Peer.Median <= 0 {
			t.Errorf("row %q (%s): non-positive medians %v / %v", r.Operation, r.Size, r.Lancecat.Median, r.Peer.Median)
		}
		if r.Unit == UnitNanos && strings.HasPrefix(r.Operation, "create table (") && (r.Lancecat.N != 2 || r.Peer.N != 2) {
			t.Errorf("row %q: %d / %d samples, want 2", r.Operation, r.Lancecat.N, r.Peer.N)
		}
	}
	for _, op := range catalogOps {
		if !ops[op.label] {
			t.Errorf("no row for %q", op.label)
		}
	}
	for _, want := range []string{"__manifest bytes, no vacuum", "__manifest bytes, vacuum to latest version", "__manifest bytes, auto-vacuum every 2 commits"} {
		if !ops[want] {
			t.Errorf("no row for %q", want)
		}
	}
	table := out.String()
	for _, r := range rep.Rows {
		line := ""
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, r.Operation+"  ") && strings.Contains(l, " "+r.Size+" ") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("table has no line for %q at %s:\n%s", r.Operation, r.Size, table)
			continue
		}
		if !strings.Contains(line, formatStat(r.Unit, r.Lancecat)) || !strings.Contains(line, formatStat(r.Unit, r.Peer)) {
			t.Errorf("table line %q lacks the JSON's numbers", line)
		}
	}
}

// TestDatasetSuiteSmall runs the dataset suite on the committed 3-row
// catalog fixture: both sides return the same row counts and lancecat reports
// the bytes it read.
func TestDatasetSuiteSmall(t *testing.T) {
	peer.Require(t)
	root := peer.Fixture(t, "catalog-3")
	rows, err := runDataset(context.Background(), datasetConfig{Root: root, Label: "small", Repeat: 2, Offset: 1, Limit: 2, Column: "object_id", Peer: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 9 {
		t.Fatalf("%d rows, want 9", len(rows))
	}
	for _, r := range rows {
		if r.Lancecat == nil || r.Lancecat.Median <= 0 {
			t.Errorf("row %q: lancecat side missing: %+v", r.Operation, r.Lancecat)
		}
		switch r.Unit {
		case UnitBytes:
			if r.Peer != nil {
				t.Errorf("row %q: the peer's bytes are not measured, got %+v", r.Operation, r.Peer)
			}
		default:
			if r.Peer == nil || r.Ratio <= 0 {
				t.Errorf("row %q: peer side missing: %+v", r.Operation, r.Peer)
			}
		}
		if strings.HasPrefix(r.Operation, "row range") && r.Unit == UnitRows && r.Lancecat.Median != 2 {
			t.Errorf("row range returned %v rows, want 2", r.Lancecat.Median)
		}
	}
}
