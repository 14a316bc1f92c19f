package peer

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("peer.update", false, "regenerate the committed small fixtures and their .expected.jsonl with the peer")

// fakeTB records Skip/Fatal instead of stopping the goroutine, to observe Require.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped, f.msg = true, strings.TrimSpace(fmtArgs(args)) }
func (f *fakeTB) Skipf(format string, a ...any)  { f.Skip(format) }
func (f *fakeTB) Fatal(args ...any)              { f.failed, f.msg = true, strings.TrimSpace(fmtArgs(args)) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.Fatal(format) }

func fmtArgs(args []any) string {
	var b strings.Builder
	for _, a := range args {
		if s, ok := a.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

func TestRequireSkipsLoudlyWithoutNode(t *testing.T) {
	t.Setenv("PATH", "")
	t.Setenv(RequireEnv, "")
	t.Setenv("CI", "")
	f := &fakeTB{TB: t}
	Require(f)
	if !f.skipped || f.failed {
		t.Fatalf("Require with empty PATH: skipped=%v failed=%v, want a skip", f.skipped, f.failed)
	}
	for _, want := range []string{"PEER TESTS SKIPPED", "node not found", "npm ci"} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("skip message %q lacks %q", f.msg, want)
		}
	}
	if err := Available(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Available() = %v, want ErrUnavailable", err)
	}
}

func TestRequireFailsWhenPeerRequired(t *testing.T) {
	t.Setenv("PATH", "")
	t.Setenv(RequireEnv, "1")
	t.Setenv("CI", "")
	f := &fakeTB{TB: t}
	Require(f)
	if !f.failed || f.skipped {
		t.Fatalf("Require with %s=1 and empty PATH: skipped=%v failed=%v, want a failure", RequireEnv, f.skipped, f.failed)
	}
	if !strings.Contains(f.msg, "node not found") {
		t.Errorf("failure message %q lacks the cause", f.msg)
	}
}

func TestRepoRootHoldsGoMod(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "conformance", "peer", "gen-fixtures.mjs")); err != nil {
		t.Fatalf("RepoRoot %s: %v", root, err)
	}
}

// locationPrefix masks the random 8-hex prefix the namespace API draws for table directories.
var locationPrefix = regexp.MustCompile(`"location":"[0-9a-f]{8}_`)

// normalizeCatalogRows removes what the peer's namespace API does not write deterministically
// from __manifest rows: the random 8-hex location prefix, and the key order of the metadata JSON
// (the peer serializes namespace properties from a hash map). Other fixtures pass unchanged.
func normalizeCatalogRows(t *testing.T, name string, lines []string) []string {
	t.Helper()
	if name != "catalog-3" {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		rows, err := ParseRows([]string{locationPrefix.ReplaceAllString(l, `"location":"XXXXXXXX_`)})
		if err != nil {
			t.Fatal(err)
		}
		row := rows[0]
		if md, ok := row["metadata"].(string); ok {
			var props map[string]string
			if err := json.Unmarshal([]byte(md), &props); err != nil {
				t.Fatalf("%s row %d: metadata is not a JSON object of strings: %v", name, i, err)
			}
			canon, _ := json.Marshal(props) // sorted keys
			row["metadata"] = string(canon)
		}
		b, _ := json.Marshal(row)
		out[i] = string(b)
	}
	return out
}

// fixtureDumps returns the peer's dump of every small fixture under dir, keyed by fixture name.
// Catalog fixtures are represented by their __manifest (locations masked).
func fixtureDumps(t *testing.T, dir string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	for _, name := range SmallFixtures {
		target := filepath.Join(dir, name)
		if name == "catalog-v1" {
			target = filepath.Join(target, "alpha.lance")
		} else if strings.HasPrefix(name, "catalog-") {
			target = filepath.Join(target, "__manifest")
		}
		lines, err := DumpLines(ctx, t, target, DumpOptions{})
		if err != nil {
			t.Fatalf("dump %s: %v", name, err)
		}
		out[name] = normalizeCatalogRows(t, name, lines)
	}
	return out
}

func generateSet(t *testing.T, set string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Run(context.Background(), t, "gen-fixtures.mjs", dir, set); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSmallFixturesRegenerateIdentically generates the small set afresh and compares the peer's
// read of every fixture with the committed .expected.jsonl (written from an earlier generation):
// row content must not depend on the run.
func TestSmallFixturesRegenerateIdentically(t *testing.T) {
	Require(t)
	fresh := fixtureDumps(t, generateSet(t, "small"))
	for _, name := range SmallFixtures {
		want, err := ExpectedLines(name)
		if err != nil {
			t.Fatal(err)
		}
		want = normalizeCatalogRows(t, name, want)
		if len(fresh[name]) == 0 {
			t.Errorf("%s: empty dump", name)
		}
		if !slices.Equal(fresh[name], want) {
			t.Errorf("%s: regenerated rows differ from the committed generation (%d vs %d rows); "+
				"if gen-fixtures.mjs changed on purpose, run go test ./conformance/peer -run TestCommittedFixturesMatchPeer -peer.update",
				name, len(fresh[name]), len(want))
		}
	}
}

// TestCommittedFixturesMatchPeer checks that each committed small fixture exists, that the peer
// reads it, and that its .expected.jsonl is exactly the peer's current read.
func TestCommittedFixturesMatchPeer(t *testing.T) {
	Require(t)
	dir, err := CommittedDir()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		regenerateCommitted(t, dir)
	}
	for _, name := range SmallFixtures {
		target := expectedTarget(dir, name)
		got, err := DumpLines(context.Background(), t, target, DumpOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantRows, err := ExpectedDump(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gotRows, err := ParseRows(got)
		if err != nil {
			t.Fatal(err)
		}
		if len(gotRows) != len(wantRows) {
			t.Errorf("%s: peer reads %d rows, expected.jsonl has %d", name, len(gotRows), len(wantRows))
			continue
		}
		for i := range gotRows {
			g, _ := json.Marshal(gotRows[i])
			w, _ := json.Marshal(wantRows[i])
			if string(g) != string(w) {
				t.Errorf("%s row %d:\n peer     %s\n expected %s", name, i, g, w)
				break
			}
		}
	}
}

// expectedTarget is the dataset whose dump <name>.expected.jsonl stores.
func expectedTarget(dir, name string) string {
	switch name {
	case "catalog-v1":
		return filepath.Join(dir, name, "alpha.lance")
	case "catalog-3":
		return filepath.Join(dir, name, "__manifest")
	}
	return filepath.Join(dir, name)
}

func regenerateCommitted(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), t, "gen-fixtures.mjs", dir, "small")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("regenerated:\n%s", out)
	for _, name := range SmallFixtures {
		lines, err := DumpLines(context.Background(), t, expectedTarget(dir, name), DumpOptions{})
		if err != nil {
			t.Fatal(err)
		}
		data := strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, name+".expected.jsonl"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTypesDumpConventions(t *testing.T) {
	rows, err := Dump(context.Background(), t, Fixture(t, "types-1000"), DumpOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("got %d rows, want 4 (--limit 4)", len(rows))
	}
	// Rows 0..3 hold the generator's fixed extreme values (gen-fixtures.mjs typesColumns).
	checks := []struct {
		row  int
		col  string
		want string // JSON text of the value
	}{
		{0, "int64", "-9223372036854775808"}, {1, "int64", "9223372036854775807"},
		{1, "uint64", "18446744073709551615"}, {0, "int8", "-128"},
		{1, "float32", "3.4028235e+38"}, {0, "float16", "-65500"}, {2, "float64", "-0"},
		{3, "float64", `"NaN"`}, {3, "float32", `"NaN"`}, {2, "float16", "-0"},
		{0, "date32", `"0001-01-01"`}, {1, "date32", `"9999-12-31"`},
		{0, "ts_ns", `"1677-09-21T00:12:43.145224192"`}, {3, "ts_ns", `"1969-12-31T23:59:59.999999999"`},
		{3, "ts_ns_berlin", `"2023-11-14T22:13:20.123456789Z"`}, {0, "ts_us_utc", `"1970-01-01T00:00:00.000000000Z"`},
		{1, "dec_18_2", `"-0.01"`}, {0, "dec_38_10", `"9999999999999999999999999999.9999999999"`},
		{2, "binary", `"AP8A"`}, {0, "binary", `""`}, {1, "binary", "null"},
		{3, "list_i32", "[-2147483648,2147483647,0]"}, {2, "list_utf8", `[null,""]`},
		{1, "struct", `{"a":null,"b":null,"c":null}`}, {3, "struct", `{"a":-1,"b":"x","c":[null,"NaN",-0]}`},
		{1, "vector", `[0,-0,"NaN","Infinity","-Infinity",1,null,3.4028235e+38]`},
		{3, "large_list_i64", "[-9223372036854775808,9223372036854775807]"}, {1, "large_list_i64", "null"},
		{0, "all_null_i64", "null"}, {2, "const_i64", "42"},
	}
	for _, c := range checks {
		got, err := json.Marshal(rows[c.row][c.col])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("row %d %s = %s, want %s", c.row, c.col, got, c.want)
		}
	}
}

func TestDumpColumnsAndVersion(t *testing.T) {
	dir := Fixture(t, "deleted-rows")
	ctx := context.Background()
	rows, err := Dump(ctx, t, dir, DumpOptions{Columns: []string{"score", "id"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2985 { // 3000 - 515 deleted + 500 appended
		t.Fatalf("latest version: %d rows, want 2985", len(rows))
	}
	if len(rows[0]) != 2 || rows[0]["id"] == nil {
		t.Errorf("--columns score,id gave row %v", rows[0])
	}
	for _, r := range rows {
		id, _ := r["id"].(json.Number).Int64()
		if id < 3000 && (id%7 == 3 || (id >= 1000 && id < 1100)) {
			t.Fatalf("deleted row id %d is still read", id)
		}
	}
	v1, err := Dump(ctx, t, dir, DumpOptions{Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(v1) != 3000 {
		t.Errorf("version 1: %d rows, want 3000", len(v1))
	}
}

func TestOpCatalogRoundTrip(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	if err := Op(ctx, t, "createNamespace", map[string]any{"uri": uri, "namespace": []string{"sales"}, "properties": map[string]string{"owner": "ann"}}, nil); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"fields": []map[string]any{
		{"name": "id", "type": "int64", "nullable": false},
		{"name": "u", "type": "uint64"},
		{"name": "at", "type": "timestamp[ns, tz=UTC]"},
	}}
	rows := []map[string]any{
		{"id": json.Number("-9223372036854775808"), "u": json.Number("18446744073709551615"), "at": "2024-02-29T12:34:56.123456789Z"},
		{"id": json.Number("9007199254740993"), "u": nil, "at": nil},
	}
	if err := Op(ctx, t, "createTable", map[string]any{"uri": uri, "namespace": []string{"sales"}, "name": "orders", "schema": schema, "rows": rows}, nil); err != nil {
		t.Fatal(err)
	}
	var q struct{ Rows []map[string]any }
	if err := Op(ctx, t, "query", map[string]any{"uri": uri, "namespace": []string{"sales"}, "name": "orders", "where": "id > 0"}, &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Rows) != 1 || q.Rows[0]["id"] != json.Number("9007199254740993") {
		t.Fatalf("query id > 0 = %v, want the one row with id 9007199254740993", q.Rows)
	}
	var all struct{ Rows []map[string]any }
	if err := Op(ctx, t, "query", map[string]any{"uri": uri, "namespace": []string{"sales"}, "name": "orders"}, &all); err != nil {
		t.Fatal(err)
	}
	if all.Rows[0]["u"] != json.Number("18446744073709551615") || all.Rows[0]["at"] != "2024-02-29T12:34:56.123456789Z" {
		t.Errorf("row 0 = %v", all.Rows[0])
	}
	var open struct {
		Schema struct{ Fields []map[string]any }
		Rows   json.Number
	}
	if err := Op(ctx, t, "openTable", map[string]any{"uri": uri, "namespace": []string{"sales"}, "name": "orders"}, &open); err != nil {
		t.Fatal(err)
	}
	if open.Rows != "2" || len(open.Schema.Fields) != 3 || open.Schema.Fields[2]["type"] != "timestamp[ns, tz=UTC]" {
		t.Errorf("openTable = %+v", open)
	}
	var names struct{ Tables []string }
	if err := Op(ctx, t, "tableNames", map[string]any{"uri": uri, "namespace": []string{"sales"}}, &names); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names.Tables, []string{"orders"}) {
		t.Errorf("tableNames = %v", names.Tables)
	}
	// A refusal comes back as *Error carrying the peer's message.
	err := Op(ctx, t, "dropNamespace", map[string]any{"uri": uri, "namespace": []string{"sales"}}, nil)
	var perr *Error
	if !errors.As(err, &perr) || !strings.Contains(perr.Message, "not empty") {
		t.Fatalf("dropNamespace of a non-empty namespace: %v, want *Error mentioning 'not empty'", err)
	}
}

func TestCatalog5000ServedByPeerNamespaceAPI(t *testing.T) {
	ctx := context.Background()
	dir := Fixture(t, "catalog-5000")
	rows, err := Dump(ctx, t, filepath.Join(dir, "__manifest"), DumpOptions{Columns: []string{"object_id", "object_type"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5000 {
		t.Fatalf("__manifest has %d rows, want 5000", len(rows))
	}
	var rootNS []string
	tablesOf := map[string][]string{}
	for _, r := range rows {
		id, typ := r["object_id"].(string), r["object_type"].(string)
		parts := strings.Split(id, "$")
		switch {
		case typ == "namespace" && len(parts) == 1:
			rootNS = append(rootNS, id)
		case typ == "table":
			ns := strings.Join(parts[:len(parts)-1], "$")
			tablesOf[ns] = append(tablesOf[ns], parts[len(parts)-1])
		}
	}
	var listed struct{ Namespaces []string }
	if err := Op(ctx, t, "listNamespaces", map[string]any{"uri": dir, "limit": 100000}, &listed); err != nil {
		t.Fatal(err)
	}
	slices.Sort(rootNS)
	slices.Sort(listed.Namespaces)
	if !slices.Equal(listed.Namespaces, rootNS) {
		t.Errorf("peer lists %d root namespaces, manifest has %d", len(listed.Namespaces), len(rootNS))
	}
	checked := 0
	for ns, want := range tablesOf {
		var got struct{ Tables []string }
		if err := Op(ctx, t, "tableNames", map[string]any{"uri": dir, "namespace": strings.Split(ns, "$"), "limit": 100000}, &got); err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		slices.Sort(got.Tables)
		if !slices.Equal(got.Tables, want) {
			t.Errorf("namespace %s: peer lists %d tables, manifest has %d", ns, len(got.Tables), len(want))
		}
		if checked++; checked == 3 {
			break
		}
	}
	var idx struct {
		Indices []struct{ Name, IndexType string }
	}
	if err := Op(ctx, t, "dataset.listIndices", map[string]any{"path": filepath.Join(dir, "__manifest")}, &idx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range idx.Indices {
		got = append(got, i.Name+":"+i.IndexType)
	}
	slices.Sort(got)
	want := []string{"base_objects_label_list:LabelList", "object_id_btree:BTree", "object_type_bitmap:Bitmap"}
	if !slices.Equal(got, want) {
		t.Errorf("__manifest indices = %v, want %v", got, want)
	}
}

func TestFixtureCopyIsPrivate(t *testing.T) {
	src := Fixture(t, "catalog-v1")
	dst := FixtureCopy(t, "catalog-v1")
	if err := os.WriteFile(filepath.Join(dst, "alpha.lance", "scratch"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(src, "alpha.lance", "scratch")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("write to the copy reached the shared fixture (stat: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "alpha.lance", "_versions")); err != nil {
		t.Fatalf("copy lacks _versions: %v", err)
	}
}
