package peer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// DumpOptions select what dump.mjs prints.
type DumpOptions struct {
	Columns []string // nil: all columns in schema order
	Limit   int      // > 0: at most this many rows
	Version int64    // > 0: read this table version instead of the latest
}

func (o DumpOptions) args() []string {
	var a []string
	if len(o.Columns) > 0 {
		a = append(a, "--columns", strings.Join(o.Columns, ","))
	}
	if o.Limit > 0 {
		a = append(a, "--limit", strconv.Itoa(o.Limit))
	}
	if o.Version > 0 {
		a = append(a, "--version", strconv.FormatInt(o.Version, 10))
	}
	return a
}

// DumpLines returns the peer's read of the dataset at datasetDir as JSON Lines (JSONL.md), one
// string per row, in the peer's scan order.
func DumpLines(ctx context.Context, t testing.TB, datasetDir string, opts DumpOptions) ([]string, error) {
	t.Helper()
	abs, err := filepath.Abs(datasetDir)
	if err != nil {
		return nil, err
	}
	out, err := Run(ctx, t, "dump.mjs", append([]string{abs}, opts.args()...)...)
	if err != nil {
		return nil, err
	}
	return splitLines(out), nil
}

// Dump is DumpLines parsed: one map per row, numbers as json.Number (exact 64-bit integers).
func Dump(ctx context.Context, t testing.TB, datasetDir string, opts DumpOptions) ([]map[string]any, error) {
	t.Helper()
	lines, err := DumpLines(ctx, t, datasetDir, opts)
	if err != nil {
		return nil, err
	}
	return ParseRows(lines)
}

// ExpectedDump reads conformance/testdata/fixtures/<name>.expected.jsonl: the peer's dump of the
// committed fixture, stored for machines without node.
func ExpectedDump(name string) ([]map[string]any, error) {
	lines, err := ExpectedLines(name)
	if err != nil {
		return nil, err
	}
	return ParseRows(lines)
}

// ExpectedLines is ExpectedDump unparsed: the stored JSON Lines, one string per row.
func ExpectedLines(name string) ([]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, committedDir, name+".expected.jsonl"))
	if err != nil {
		return nil, err
	}
	return splitLines(data), nil
}

// ParseRows parses JSON Lines rows with json.Number for numbers.
func ParseRows(lines []string) ([]map[string]any, error) {
	rows := make([]map[string]any, 0, len(lines))
	for i, l := range lines {
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("peer: row %d: %w", i, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func splitLines(b []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}
