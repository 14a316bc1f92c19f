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
		in               []float64
		median, p90, p99 float64
	}{
		{[]float64{5}, 5, 5, 5},
		{[]float64{3, 1, 2}, 2, 3, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 4, 4},
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 9, 10},
	} {
		s := summarize(tc.in)
		if s.Median != tc.median || s.P90 != tc.p90 || s.P99 != tc.p99 || s.N != len(tc.in) {
			t.Errorf("summarize(%v) = %+v, want median %v p90 %v p99 %v", tc.in, *s, tc.median, tc.p90, tc.p99)
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
	args := []string{"-sizes", "20", "-ops", "2", "-creates", "4", "-batch", "3", "-batchsize", "20",
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
		if r.Durable == nil || r.Durable.Median <= 0 {
			t.Errorf("row %q (%s): no durable lancecat number: %+v", r.Operation, r.Size, r.Durable)
			continue
		}
		// The peer may only be missing where it cannot do the operation,
		// and says so.
		if r.Peer == nil {
			if !strings.Contains(r.Note, "peer n/a") {
				t.Errorf("row %q (%s) has no peer number and no n/a note", r.Operation, r.Size)
			}
		} else if r.Peer.Median <= 0 || r.DurableRatio <= 0 {
			t.Errorf("row %q (%s): peer %+v, durable ratio %v", r.Operation, r.Size, r.Peer, r.DurableRatio)
		}
		// Per-operation rows compare durability=none with the peer.
		if r.Unit == UnitNanos && r.Lancecat == nil && !strings.HasPrefix(r.Operation, "create tables one by one") {
			t.Errorf("row %q (%s) has no durability=none number", r.Operation, r.Size)
		}
		if r.Unit == UnitNanos && strings.HasPrefix(r.Operation, "CREATE TABLE (") && (r.Lancecat.N != 2 || r.Durable.N != 2 || r.Peer.N != 2) {
			t.Errorf("row %q: %d / %d / %d samples, want 2", r.Operation, r.Lancecat.N, r.Durable.N, r.Peer.N)
		}
	}
	for _, op := range catalogOps {
		if !ops[op.label] {
			t.Errorf("no row for %q", op.label)
		}
	}
	for _, want := range []string{"__manifest bytes, default settings", "__manifest bytes, once the window has passed",
		"3 CREATE TABLE one by one (total)", "3 CREATE TABLE in one transaction"} {
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
		if !strings.Contains(line, formatStat(r.Unit, r.Lancecat)) || !strings.Contains(line, formatStat(r.Unit, r.Durable)) || !strings.Contains(line, formatStat(r.Unit, r.Peer)) {
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
