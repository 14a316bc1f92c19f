package enc20_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	lancefile "github.com/lancecat/lancecat/lance/file"
)

// bigDataset returns a peer-written 2.0 dataset of rows rows made by
// testdata/gen-v20.mjs, generated once into the user cache directory
// (keyed by the script's contents and the row count).
func bigDataset(t *testing.T, rows int) string {
	t.Helper()
	peer.Require(t)
	script, err := filepath.Abs(filepath.Join("testdata", "gen-v20.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(append(src, strconv.Itoa(rows)...))
	base := os.Getenv(peer.CacheEnv)
	if base == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache directory: %v", err)
		}
		base = filepath.Join(uc, "lancecat", "fixtures")
	}
	dir := filepath.Join(base, "v20-"+hex.EncodeToString(h[:6]), "types-v2.0-"+strconv.Itoa(rows))
	if _, err := os.Stat(filepath.Join(dir, "_versions")); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	peerDir, err := peer.Dir()
	if err != nil {
		t.Fatal(err)
	}
	tmp := dir + ".partial-" + strconv.Itoa(os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, peerDir, tmp, strconv.Itoa(rows))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen-v20.mjs: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(filepath.Join(dir, "_versions")); statErr != nil {
			t.Fatal(err)
		}
		os.RemoveAll(tmp)
	}
	return dir
}

// TestPeerV20At100k reads a 100,000-row peer-written 2.0 dataset (several
// pages per column, list items in pages not aligned with the list pages,
// dictionary pages, zstd and lz4 compressed string bytes, an all-null
// column): every row decodes, and a sample of rows around page boundaries
// (by Take and by ReadRange) equals the peer's read of the same rows.
func TestPeerV20At100k(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 100k-row dataset with the peer")
	}
	const n = 100000
	dir := bigDataset(t, n)
	ctx := context.Background()

	// Every row of every column decodes, and ids run 0..n-1 in order.
	rows := readDataset(t, dir, []string{"id"}, func(r *lancefile.Reader, ids []int32) (arrow.Record, error) {
		var all []int32
		for _, f := range r.Schema().Fields {
			all = append(all, f.ID)
		}
		rec, err := r.ReadRange(ctx, all, 0, r.NumRows())
		if err != nil {
			return nil, err
		}
		defer rec.Release()
		for i, f := range rec.Schema().Fields() {
			if f.Name == "id" {
				col := rec.Column(i).(*array.Int64)
				col.Retain()
				return array.NewRecord(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{col}, rec.NumRows()), nil
			}
		}
		t.Fatal("no id column")
		return nil, nil
	})
	if len(rows) != n {
		t.Fatalf("read %d rows, want %d", len(rows), n)
	}
	for i, r := range rows {
		if r["id"].(interface{ String() string }).String() != strconv.Itoa(i) {
			t.Fatalf("row %d has id %v", i, r["id"])
		}
	}

	where := "id % 397 = 0 OR (id >= 33300 AND id < 33400) OR (id >= 49980 AND id < 50020) OR (id >= 74990 AND id < 75010) OR id >= 99990"
	var res struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := peer.Op(ctx, t, "dataset.query", map[string]any{"path": dir, "where": where}, &res); err != nil {
		t.Fatal(err)
	}
	var take []uint64
	for _, r := range res.Rows {
		id, err := strconv.ParseUint(r["id"].(interface{ String() string }).String(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		take = append(take, id)
	}
	if len(take) < 400 {
		t.Fatalf("peer returned %d sample rows", len(take))
	}
	ours := readDataset(t, dir, nil, func(r *lancefile.Reader, ids []int32) (arrow.Record, error) {
		return r.Take(ctx, ids, take)
	})
	compareRows(t, ours, res.Rows)

	// A range across the page boundary at 50000 (and list item pages inside it).
	var want []map[string]any
	for i, id := range take {
		if id >= 49980 && id < 50020 {
			want = append(want, res.Rows[i])
		}
	}
	ours = readDataset(t, dir, nil, func(r *lancefile.Reader, ids []int32) (arrow.Record, error) {
		return r.ReadRange(ctx, ids, 49980, 50020)
	})
	compareRows(t, ours, want)
}
