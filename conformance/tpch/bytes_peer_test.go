package tpch

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

// dataBytes sums the sizes of the data files of the dataset at ds.
func dataBytes(t *testing.T, ds string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(ds, "data", "*.lance"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no data files (%v)", ds, err)
	}
	var n int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += st.Size()
	}
	return n
}

// TestTPCHBytesVsPeer loads TPC-H (SF 0.01, or LANCECAT_TPCH_BYTES_SF) into
// lancecat, then lets the peer read lineitem and orders and write the same
// rows with its own writer (conformance/peer/rewrite.mjs): the peer must
// read every row of ours, and our data files may hold at most 1.05x the
// peer's bytes (issue #18's bound; measured 0.99x on 2026-12-07).
func TestTPCHBytesVsPeer(t *testing.T) {
	peer.Require(t)
	sf := 0.01
	if s := os.Getenv("LANCECAT_TPCH_BYTES_SF"); s != "" {
		if _, err := fmt.Sscan(s, &sf); err != nil {
			t.Fatalf("LANCECAT_TPCH_BYTES_SF: %v", err)
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Generate(dir, sf, 29); err != nil {
		t.Fatal(err)
	}
	cat := t.TempDir()
	lc, err := sql.Open("lancecat", cat+"?durability=none&load_data_dir="+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	lc.SetMaxOpenConns(1)
	if err := Load(ctx, lc, dir, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lineitem", "orders"} {
		var rows int64
		if err := lc.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+name).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(cat, "*"+name+".lance"))
		if len(matches) != 1 {
			t.Fatalf("%s: dataset directories %v", name, matches)
		}
		dst := t.TempDir()
		out, err := peer.Run(ctx, t, "rewrite.mjs", matches[0], dst)
		if err != nil {
			t.Fatalf("%s: peer rewrite: %v", name, err)
		}
		var res struct{ Rows int64 }
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s: %v (%s)", name, err, out)
		}
		if res.Rows != rows {
			t.Fatalf("%s: the peer read %d rows, lancecat holds %d", name, res.Rows, rows)
		}
		ours, theirs := dataBytes(t, matches[0]), dataBytes(t, filepath.Join(dst, "t.lance"))
		t.Logf("SF %g %s: %d rows, lancecat %d bytes, peer %d bytes (x%.3f)", sf, name, rows, ours, theirs, float64(ours)/float64(theirs))
		if r := float64(ours) / float64(theirs); r > 1.05 {
			t.Errorf("%s: lancecat's data files hold %d bytes, x%.3f the peer's %d (more than 1.05x)", name, ours, r, theirs)
		}
	}
}
