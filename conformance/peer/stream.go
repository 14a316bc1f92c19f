package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// StreamTable returns a catalog directory holding table "t" (id int64 = 0..rows-1, s utf8 of 10
// to 40 bytes) written by the peer in fragments of 250,000 rows (stream-table.mjs), generating it
// into the fixture cache once per machine. It is the table of the streaming measurement (issue
// 11); treat it as read-only.
func StreamTable(t testing.TB, rows int) string {
	t.Helper()
	Require(t)
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("stream-%d", rows)
	final := filepath.Join(cache, name)
	if _, err := os.Stat(final); err == nil {
		return final
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockFile(filepath.Join(cache, name+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(final); err == nil {
		return final
	}
	partial := filepath.Join(cache, "."+name+".partial")
	if err := os.RemoveAll(partial); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), generateTimeout)
	defer cancel()
	if _, err := run(ctx, "stream-table.mjs", "gen", partial, fmt.Sprint(rows)); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(partial, final); err != nil {
		t.Fatal(err)
	}
	return final
}

// StreamRead is the peer's read of the stream table: t.query().select(["id", "s"]).toArrow(),
// timed from the call to the returned table (opening the table excluded).
type StreamRead struct {
	Rows       int64   `json:"rows"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"` // user+system CPU of the read

	MaxRSSBytes int64  `json:"maxRSSBytes"`
	IDSum       string `json:"idSum"`
}

// ReadStreamTable runs the peer's read of the stream table at dir in a fresh node process.
func ReadStreamTable(ctx context.Context, t testing.TB, dir string) (StreamRead, error) {
	t.Helper()
	var r StreamRead
	out, err := Run(ctx, t, "stream-table.mjs", "read", dir)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(out, &r)
}
