package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestInspectPeerDataset(t *testing.T) {
	dir := peer.Fixture(t, "deleted-rows")
	code, out, stderr := runCLI("dataset", "inspect", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc inspectDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("want one JSON line, got %q", out)
	}
	if doc.Version != 3 || doc.NumRows != 2985 || len(doc.Fragments) != 2 || doc.DataStorageVersion != "2.1" {
		t.Errorf("doc: version %d rows %d fragments %d", doc.Version, doc.NumRows, len(doc.Fragments))
	}
	if doc.Fragments[0].Deletions == nil || doc.Fragments[0].Rows+doc.Fragments[0].Deletions.NumDeleted != doc.Fragments[0].PhysicalRows {
		t.Errorf("fragment 0: %+v", doc.Fragments[0])
	}
	var types []string
	for _, f := range doc.Schema {
		types = append(types, f.Name+":"+f.Type)
	}
	if strings.Join(types, " ") != "id:int64 name:utf8 at:timestamp[us, UTC] score:float64" {
		t.Errorf("types %v", types)
	}
	// Older version.
	code, out, _ = runCLI("dataset", "inspect", dir, "--version", "1")
	if code != 0 || !strings.Contains(out, `"version":1,`) {
		t.Errorf("--version 1: %d %s", code, out)
	}
}

func TestInspectTypeSpelling(t *testing.T) {
	code, out, stderr := runCLI("dataset", "inspect", peer.Fixture(t, "types-1000"))
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc inspectDoc
	json.Unmarshal([]byte(out), &doc)
	got := map[string]string{}
	for _, f := range doc.Schema {
		got[f.Name] = f.Type
	}
	want := map[string]string{
		"float16": "float16", "large_utf8": "large_utf8", "ts_ns_berlin": "timestamp[ns, Europe/Berlin]", "ts_s": "timestamp[s]",
		"dec_38_10": "decimal128(38, 10)", "list_utf8": "list<utf8>", "vector": "fixed_size_list<float32>[8]",
		"struct": "struct<a: int32, b: utf8, c: list<float64>>", "large_list_i64": "large_list<int64>", "date32": "date32",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

func TestInspectIndices(t *testing.T) {
	code, out, stderr := runCLI("dataset", "inspect", peer.Fixture(t, "indexed"))
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc inspectDoc
	json.Unmarshal([]byte(out), &doc)
	var got []string
	for _, ix := range doc.Indices {
		got = append(got, ix.Name+"/"+ix.Type+"/"+strings.Join(ix.Columns, ","))
		if len(ix.FragmentIDs) == 0 || ix.DatasetVersion == 0 {
			t.Errorf("index %+v", ix)
		}
		want := map[string]string{"id_idx": "BTREE", "name_idx": "BTREE", "category_idx": "BITMAP", "tags_idx": "LABEL_LIST"}[ix.Name]
		if ix.Kind != want || len(ix.UncoveredFragments) != 0 {
			t.Errorf("index %s: kind %q (want %q), uncovered %v", ix.Name, ix.Kind, want, ix.UncoveredFragments)
		}
	}
	if len(got) < 2 {
		t.Errorf("indices %v", got)
	}
}

func TestCatMatchesPeerDump(t *testing.T) {
	for _, c := range []struct {
		fixture string
		args    []string
		opts    peer.DumpOptions
	}{
		{"deleted-rows", nil, peer.DumpOptions{}},
		{"types-1000", []string{"--columns", "vector,id,struct", "--limit", "50"}, peer.DumpOptions{Columns: []string{"vector", "id", "struct"}, Limit: 50}},
		{"deleted-rows", []string{"--version", "2", "--limit", "10"}, peer.DumpOptions{Version: 2, Limit: 10}},
	} {
		dir := peer.Fixture(t, c.fixture)
		code, out, stderr := runCLI(append([]string{"dataset", "cat", dir}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, stderr)
		}
		got, err := peer.ParseRows(strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
		if err != nil {
			t.Fatal(err)
		}
		var want []map[string]any
		if c.args == nil {
			want, err = peer.ExpectedDump(c.fixture)
		} else {
			want, err = peer.Dump(context.Background(), t, dir, c.opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s %v: %d rows, peer %d", c.fixture, c.args, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s %v row %d:\n ours %v\n peer %v", c.fixture, c.args, i, got[i], want[i])
			}
		}
		if c.args != nil {
			// Keys in --columns order.
			first := strings.SplitN(out, "\n", 2)[0]
			if !strings.HasPrefix(first, `{"vector":`) && c.fixture == "types-1000" {
				t.Errorf("column order: %s", first[:40])
			}
		}
	}
}

func TestErrors(t *testing.T) {
	tmp := t.TempDir()
	corrupt := filepath.Join(tmp, "corrupt")
	if err := os.CopyFS(corrupt, os.DirFS(peer.Fixture(t, "deleted-rows"))); err != nil {
		t.Fatal(err)
	}
	vs, _ := filepath.Glob(filepath.Join(corrupt, "_versions", "*.manifest"))
	for _, v := range vs {
		os.Chmod(v, 0o644)
		os.WriteFile(v, []byte("not a manifest at all"), 0o644)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"dataset", "inspect", filepath.Join(tmp, "missing")}, 1, "not found"},
		{[]string{"dataset", "cat", filepath.Join(tmp, "missing")}, 1, "not found"},
		{[]string{"dataset", "inspect", peer.Fixture(t, "deleted-rows"), "--version", "42"}, 1, "version not found"},
		{[]string{"dataset", "cat", corrupt}, 1, "corrupt"},
		{[]string{"dataset", "cat", peer.Fixture(t, "deleted-rows"), "--columns", "nope"}, 1, "no column"},
		{[]string{"dataset", "inspect"}, 2, "missing dataset URI"},
		{[]string{"dataset", "inspect", "x", "--version", "abc"}, 2, "bad --version"},
		{[]string{"frobnicate"}, 2, "unknown command"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) || !strings.HasPrefix(stderr, "lancecat: ") {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
		if c.code == 1 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: want one line on stderr, got %q", c.args, stderr)
		}
	}
}

// TestBinary builds the command and runs it once as a separate process.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "lancecat")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "dataset", "cat", peer.Fixture(t, "deleted-rows"), "--limit", "3").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := peer.ExpectedLines("deleted-rows")
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	wantRows, _ := peer.ParseRows(want[:3])
	gotRows, err := peer.ParseRows(got)
	if err != nil || !reflect.DeepEqual(gotRows, wantRows) {
		t.Errorf("binary cat: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "dataset", "inspect", filepath.Join(t.TempDir(), "nope"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "not found") {
		t.Errorf("missing dataset: %v %q", err, stderr.String())
	}
}

// dataset inspect prints field metadata with secrets redacted (issue #10): a column comment
// holding a signed URL keeps the URL and loses the signature.
func TestInspectRedactsSecrets(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE SCHEMA s",
		"CREATE TABLE s.t (a BIGINT COMMENT 'copy of https://acct.blob.core.windows.net/c/x?sv=2022&sig=INSPECTSIG')",
		"INSERT INTO s.t VALUES (1)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var loc string
	if err := db.QueryRowContext(ctx, "SELECT location FROM information_schema.tables WHERE table_schema = 's' AND table_name = 't'").Scan(&loc); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("dataset", "inspect", strings.TrimPrefix(loc, "file://"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "INSPECTSIG") || !strings.Contains(out, "acct.blob.core.windows.net/c/x?sv=2022\\u0026sig=REDACTED") && !strings.Contains(out, "acct.blob.core.windows.net/c/x?sv=2022&sig=REDACTED") {
		t.Errorf("inspect output: %s", out)
	}
}
