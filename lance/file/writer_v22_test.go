package lancefile_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

// checkFilesVersion checks every data file of d records the file version
// major.minor.
func checkFilesVersion(t testing.TB, d *dataset.Dataset, major, minor uint32) {
	t.Helper()
	n := 0
	for _, fr := range d.Fragments() {
		for _, df := range fr.Files {
			if df.FileMajor != major || df.FileMinor != minor {
				t.Fatalf("fragment %d file %s: version %d.%d, want %d.%d", fr.ID, df.Path, df.FileMajor, df.FileMinor, major, minor)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no data files")
	}
}

// TestWriterV22AppendToPeerFixture: lancecat reads every row of the peer's
// Lance 2.2 fixture (every type, inline and buffered constants, large-chunk
// mini-blocks) and appends them again to it: the append writes 2.2 files
// (2.1's encodings in 2.2's large-chunk grammar, which 2.2 readers require
// on every mini-block page), and the peer reads both copies identically.
func TestWriterV22AppendToPeerFixture(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := peer.FixtureCopy(t, "types-v2.2")
	d, err := dataset.Open(ctx, openStore(t, dir), "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Manifest().DataFormat.Version; v != "2.2" {
		t.Fatalf("fixture data format %q, want 2.2", v)
	}
	recs, err := d.ScanAll(ctx, dataset.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	before := peerRows(t, dir)
	sameJSONRows(t, "lancecat read of the 2.2 fixture", jsonRows(t, recs...), before)
	d, err = d.Append(ctx, recs)
	if err != nil {
		t.Fatalf("append to the peer's 2.2 fixture: %v", err)
	}
	checkFilesVersion(t, d, 2, 2)
	want := append(append([]map[string]any{}, before...), before...)
	sameJSONRows(t, "peer read after lancecat's append", peerRows(t, dir), want)
	sameJSONRows(t, "lancecat read after its append", scanRows(t, d), want)
}

// TestWriterV22PeerReadsCreate: a dataset lancecat creates as 2.2 (the rows
// of the peer's 2.2 fixture, written in two batches) opens in the peer,
// which reads every row and appends its own 2.2 rows after lancecat's.
func TestWriterV22PeerReadsCreate(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	src, err := dataset.Open(ctx, openStore(t, peer.Fixture(t, "types-v2.2")), "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := src.ScanAll(ctx, dataset.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	want := jsonRows(t, recs...)
	dir := filepath.Join(t.TempDir(), "c.lance")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	as := recs[0].Schema()
	d, err := dataset.CreateWithData(ctx, openStore(t, dir), "", as, []arrow.RecordBatch(recs), dataset.CreateOptions{DataStorageVersion: "2.2"})
	if err != nil {
		t.Fatalf("CreateWithData 2.2: %v", err)
	}
	checkFilesVersion(t, d, 2, 2)
	sameJSONRows(t, "peer read of lancecat's 2.2 dataset", peerRows(t, dir), want)
	// The peer rewrites a row (its own 2.2 file beside lancecat's; the peer
	// cannot build rows of large_list for an append): both read the same.
	var updated struct{}
	if err := peer.Op(ctx, t, "dataset.update", map[string]any{"path": dir, "where": "id = 0", "valuesSql": map[string]any{"int32": "5"}}, &updated); err != nil {
		t.Fatalf("peer update of lancecat's 2.2 dataset: %v", err)
	}
	d, err = dataset.Open(ctx, openStore(t, dir), "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := peerRows(t, dir)
	if len(after) != len(want) {
		t.Fatalf("peer reads %d rows after its update, want %d", len(after), len(want))
	}
	sameJSONRows(t, "lancecat read after the peer's update", scanRows(t, d), after)
	found := false
	for _, r := range after {
		if r["id"] == json.Number("0") {
			found = r["int32"] == json.Number("5")
		}
	}
	if !found {
		t.Fatal("the peer's update of row 0 is not visible")
	}
}
