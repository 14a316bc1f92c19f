package dataset_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/arrowjson"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// raceChildEnv makes the test binary act as one racing writer process.
const raceChildEnv = "LANCECAT_DATASET_RACE_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(raceChildEnv); spec != "" {
		os.Exit(raceChild(spec))
	}
	os.Exit(m.Run())
}

func openDir(t testing.TB, dir string) storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// ourRows scans a dataset and renders it the way `dataset cat` does, parsed.
func ourRows(t testing.TB, d *dataset.Dataset, opts dataset.ScanOptions) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	err := d.Scan(context.Background(), opts, func(rec arrow.RecordBatch) error { return arrowjson.WriteLines(&buf, rec) })
	if err != nil {
		t.Fatal(err)
	}
	rows, err := peer.ParseRows(strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"))
	if buf.Len() == 0 {
		rows, err = nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func sameRows(t testing.TB, what string, got, want []map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, peer has %d", what, len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Fatalf("%s: row %d differs:\n ours %s\n peer %s", what, i, g, w)
		}
	}
}

// peerTypeJSON spells an Arrow type in the peer's schema notation (JSONL.md).
func peerTypeJSON(dt arrow.DataType) any {
	field := func(f arrow.Field) map[string]any {
		return map[string]any{"name": f.Name, "type": peerTypeJSON(f.Type), "nullable": f.Nullable}
	}
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return "bool"
	case *arrow.StringType:
		return "utf8"
	case *arrow.LargeStringType:
		return "large_utf8"
	case *arrow.Float16Type:
		return "float16"
	case *arrow.Float32Type:
		return "float32"
	case *arrow.Float64Type:
		return "float64"
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("fixed_size_binary[%d]", t.ByteWidth)
	case *arrow.TimestampType:
		u := map[arrow.TimeUnit]string{arrow.Second: "s", arrow.Millisecond: "ms", arrow.Microsecond: "us", arrow.Nanosecond: "ns"}[t.Unit]
		if t.TimeZone != "" {
			return "timestamp[" + u + ", tz=" + t.TimeZone + "]"
		}
		return "timestamp[" + u + "]"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal128(%d,%d)", t.Precision, t.Scale)
	case *arrow.ListType:
		return map[string]any{"list": field(t.ElemField())}
	case *arrow.LargeListType:
		return map[string]any{"large_list": field(t.ElemField())}
	case *arrow.FixedSizeListType:
		return map[string]any{"fixed_size_list": field(t.ElemField()), "size": json.Number(strconv.Itoa(int(t.Len())))}
	case *arrow.StructType:
		var fs []any
		for _, f := range t.Fields() {
			fs = append(fs, field(f))
		}
		return map[string]any{"struct": fs}
	}
	return dt.Name()
}

type peerSchema struct {
	Fields []map[string]any `json:"fields"`
}

type peerOpen struct {
	Schema  peerSchema  `json:"schema"`
	Rows    json.Number `json:"rows"`
	Version json.Number `json:"version"`
}

// checkPeerAgrees opens the dataset in the peer and compares version,
// schema, row count and every row with lancecat's view of it.
func checkPeerAgrees(t *testing.T, dir string, d *dataset.Dataset) {
	t.Helper()
	checkPeerMetadata(t, dir, d)
	want, err := peer.Dump(context.Background(), t, dir, peer.DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, dir, ourRows(t, d, dataset.ScanOptions{}), want)
}

// checkPeerMetadata compares version, schema and row count with the peer.
func checkPeerMetadata(t *testing.T, dir string, d *dataset.Dataset) {
	t.Helper()
	ctx := context.Background()
	var po peerOpen
	if err := peer.Op(ctx, t, "dataset.open", map[string]any{"path": dir}, &po); err != nil {
		t.Fatalf("peer open %s: %v", dir, err)
	}
	if po.Version.String() != strconv.FormatUint(d.Version(), 10) {
		t.Errorf("%s: peer sees version %s, lancecat %d", dir, po.Version, d.Version())
	}
	n, err := d.CountRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if po.Rows.String() != strconv.FormatUint(n, 10) {
		t.Errorf("%s: peer counts %s rows, lancecat %d", dir, po.Rows, n)
	}
	as, err := d.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	if len(po.Schema.Fields) != as.NumFields() {
		t.Fatalf("%s: peer schema has %d fields, lancecat %d", dir, len(po.Schema.Fields), as.NumFields())
	}
	for i, f := range as.Fields() {
		pf := po.Schema.Fields[i]
		want := map[string]any{"name": f.Name, "type": peerTypeJSON(f.Type), "nullable": f.Nullable}
		got := map[string]any{"name": pf["name"], "type": pf["type"], "nullable": pf["nullable"]}
		if f.Metadata.Len() == 0 || pf["metadata"] == nil {
			// compared below when both have metadata
		} else {
			md := map[string]any{}
			for j, k := range f.Metadata.Keys() {
				md[k] = f.Metadata.Values()[j]
			}
			want["metadata"], got["metadata"] = md, pf["metadata"]
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Errorf("%s: field %d:\n lancecat %s\n peer     %s", dir, i, wj, gj)
		}
	}
}

// datasetDirs lists the dataset directories of a fixture (a catalog's
// tables and __manifest, or the fixture itself).
func datasetDirs(t *testing.T, root string) []string {
	if _, err := os.Stat(filepath.Join(root, "_versions")); err == nil {
		return []string{root}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, e.Name(), "_versions")); err == nil {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}

// TestFixtureRowsMatchPeerDump: the committed peer dumps of the fixtures
// equal lancecat's scan (runs without node).
func TestFixtureRowsMatchPeerDump(t *testing.T) {
	for _, name := range []string{"types-1000", "deleted-rows", "types-v2.0", "indexed", "catalog-3", "catalog-v1"} {
		t.Run(name, func(t *testing.T) {
			root := peer.Fixture(t, name)
			dir := root
			switch name {
			case "catalog-3":
				dir = filepath.Join(root, "__manifest")
			case "catalog-v1":
				dir = filepath.Join(root, "alpha.lance")
			}
			want, err := peer.ExpectedDump(name)
			if err != nil {
				t.Fatal(err)
			}
			d, err := dataset.Open(context.Background(), openDir(t, dir), "", dataset.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, name, ourRows(t, d, dataset.ScanOptions{}), want)
		})
	}
}

// TestPeerFixturesDecode: every dataset the peer wrote in the small
// fixtures decodes with the peer's version, schema, row count and rows.
func TestPeerFixturesDecode(t *testing.T) {
	peer.Require(t)
	for _, name := range []string{"types-1000", "deleted-rows", "types-v2.0", "indexed", "catalog-3", "catalog-v1"} {
		for _, dir := range datasetDirs(t, peer.Fixture(t, name)) {
			t.Run(name+"/"+filepath.Base(dir), func(t *testing.T) {
				d, err := dataset.Open(context.Background(), openDir(t, dir), "", dataset.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				// Rows: TestFixtureRowsMatchPeerDump compares them with the
				// peer's dumps; here version, schema and count.
				checkPeerMetadata(t, dir, d)
			})
		}
	}
}

// TestPeerIndexMetadata: the index section of peer-written datasets decodes
// to the indices the peer lists.
func TestPeerIndexMetadata(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{peer.Fixture(t, "indexed"), filepath.Join(peer.Fixture(t, "catalog-3"), "__manifest")} {
		d, err := dataset.Open(ctx, openDir(t, dir), "", dataset.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ix := range d.Indices() {
			f := d.Schema().FieldByID(ix.Fields[0])
			if ix.FragmentBitmap == nil || ix.UUID == "" || f == nil {
				t.Errorf("%s: index %+v incomplete", dir, ix)
				continue
			}
			got = append(got, fmt.Sprintf("%s:%s:%s:%s", ix.Name, ix.Type(), f.Name, ix.UUID))
		}
		var pl struct {
			Indices []struct {
				Name, IndexType, IndexUUID string
				Columns                    []string
			} `json:"indices"`
		}
		if err := peer.Op(ctx, t, "dataset.listIndices", map[string]any{"path": dir}, &pl); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, ix := range pl.Indices {
			want = append(want, fmt.Sprintf("%s:%s:%s:%s", ix.Name, ix.IndexType, ix.Columns[0], ix.IndexUUID))
		}
		if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
			t.Errorf("%s:\n ours %v\n peer %v", dir, got, want)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestPeerReadsLancecatDatasets: datasets lancecat creates (empty with every
// type of the types fixture; with data; after each schema-only change and
// a delete) open in the peer with the same schema, row count and rows, and
// the peer can append to them.
func TestPeerReadsLancecatDatasets(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	src, err := dataset.Open(ctx, openDir(t, peer.Fixture(t, "types-1000")), "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := src.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	expected, err := peer.ExpectedDump("types-1000")
	if err != nil {
		t.Fatal(err)
	}
	// The peer harness (apache-arrow 18 in node) cannot build large_list
	// rows for an append, so the datasets here leave that column out.
	var fields []arrow.Field
	var names []string
	for _, f := range full.Fields() {
		if f.Name != "large_list_i64" {
			fields = append(fields, f)
			names = append(names, f.Name)
		}
	}
	schema := arrow.NewSchema(fields, nil)
	const n = 100
	expected = expected[:n]
	for _, r := range expected {
		delete(r, "large_list_i64")
	}
	rows := func(t *testing.T) []arrow.RecordBatch {
		recs, err := src.ScanAll(ctx, dataset.ScanOptions{Columns: names, Limit: n})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			for _, r := range recs {
				r.Release()
			}
		})
		return recs
	}
	root := t.TempDir()

	t.Run("empty", func(t *testing.T) {
		dir := filepath.Join(root, "empty.lance")
		d, err := dataset.Create(ctx, openDir(t, dir), "", schema, dataset.CreateOptions{TableMetadata: map[string]string{"owner": "lancecat"}})
		if err != nil {
			t.Fatal(err)
		}
		checkPeerAgrees(t, dir, d)
		// The peer appends rows; lancecat reads them back as the peer does.
		var added struct{ Version, Rows json.Number }
		// LanceDB refuses vectors with NaN on add: append rows without.
		var clean []map[string]any
		for _, r := range expected {
			if b, _ := json.Marshal(r["vector"]); !strings.Contains(string(b), "NaN") && len(clean) < 50 {
				clean = append(clean, r)
			}
		}
		if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": clean}, &added); err != nil {
			t.Fatal(err)
		}
		if added.Rows.String() != "50" || added.Version.String() != "2" {
			t.Errorf("peer add: %+v", added)
		}
		d, err = d.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d.Manifest().TableMetadata["owner"] != "lancecat" {
			t.Errorf("peer dropped table metadata: %v", d.Manifest().TableMetadata)
		}
		sameRows(t, "after peer add", ourRows(t, d, dataset.ScanOptions{}), clean)
		checkPeerAgrees(t, dir, d)
		// And lancecat appends after the peer.
		d, err = d.Append(ctx, rows(t))
		if err != nil {
			t.Fatal(err)
		}
		checkPeerAgrees(t, dir, d)
	})

	t.Run("with-data-and-changes", func(t *testing.T) {
		dir := filepath.Join(root, "data.lance")
		st := openDir(t, dir)
		d, err := dataset.CreateWithData(ctx, st, "", schema, rows(t), dataset.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkPeerAgrees(t, dir, d)
		sameRows(t, "lancecat-written rows", ourRows(t, d, dataset.ScanOptions{}), expected)

		steps := []struct {
			name string
			do   func(*dataset.Dataset) (*dataset.Dataset, error)
		}{
			// Lance's incremental shapes: Update (new fragment + deletion
			// file in one version), then a Rewrite merging two fragments.
			{"update", func(d *dataset.Dataset) (*dataset.Dataset, error) {
				part := rows(t)[0].NewSlice(0, 10)
				defer part.Release()
				return d.Update(ctx, []arrow.RecordBatch{part}, []uint64{1, 2}, dataset.RowChangeOptions{})
			}},
			{"update again", func(d *dataset.Dataset) (*dataset.Dataset, error) {
				part := rows(t)[0].NewSlice(10, 15)
				defer part.Release()
				return d.Update(ctx, []arrow.RecordBatch{part}, []uint64{1<<32 | 3}, dataset.RowChangeOptions{})
			}},
			{"rewrite", func(d *dataset.Dataset) (*dataset.Dataset, error) {
				return d.RewriteFragments(ctx, []uint64{1, 2}, dataset.RowChangeOptions{})
			}},
			{"add columns", func(d *dataset.Dataset) (*dataset.Dataset, error) {
				return d.AddNullableColumns(ctx, arrow.Field{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
					arrow.Field{Name: "extra", Type: arrow.StructOf(arrow.Field{Name: "p", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true})
			}},
			{"rename", func(d *dataset.Dataset) (*dataset.Dataset, error) { return d.RenameColumn(ctx, "utf8", "text") }},
			{"drop", func(d *dataset.Dataset) (*dataset.Dataset, error) { return d.DropColumns(ctx, "binary", "struct") }},
			{"table metadata", func(d *dataset.Dataset) (*dataset.Dataset, error) {
				return d.UpdateTableMetadata(ctx, map[string]string{"a": "1"}, nil)
			}},
			{"delete", func(d *dataset.Dataset) (*dataset.Dataset, error) { return d.Delete(ctx, []uint64{0, 5, 99}) }},
		}
		for _, s := range steps {
			d, err = s.do(d)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			checkPeerAgrees(t, dir, d)
		}
		// The peer appends to the changed dataset (the added columns too).
		var row map[string]any
		for _, r := range expected {
			if b, _ := json.Marshal(r["vector"]); !strings.Contains(string(b), "NaN") {
				row = map[string]any{}
				for k, v := range r {
					row[k] = v
				}
				break
			}
		}
		row["id"], row["text"], row["note"], row["extra"] = json.Number("5000"), row["utf8"], "n", map[string]any{"p": json.Number("7")}
		delete(row, "utf8")
		delete(row, "binary")
		delete(row, "struct")
		var added struct{ Version, Rows json.Number }
		before, err := d.CountRows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": []any{row}}, &added); err != nil {
			t.Fatal(err)
		}
		d, err = d.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if added.Rows.String() != fmt.Sprint(before+1) || before != 100+10+5-2-1-3 {
			t.Errorf("rows after peer add: %s (%d before)", added.Rows, before)
		}
		checkPeerAgrees(t, dir, d)
		last := ourRows(t, d, dataset.ScanOptions{Columns: []string{"id", "text", "note", "extra"}, Offset: before})
		if len(last) != 1 || last[0]["note"] != "n" || fmt.Sprint(last[0]["extra"]) != "map[p:7]" {
			t.Errorf("peer-appended row reads %v", last)
		}
	})
}

// ---------------------------------------------------------------- commit race

// raceChild appends rows one commit at a time, retrying lost races, and
// prints how many commits it made. spec: "<dir>;<writer id>;<commits>".
func raceChild(spec string) int {
	parts := strings.Split(spec, ";")
	if len(parts) != 3 {
		fmt.Fprintln(os.Stderr, "bad spec", spec)
		return 2
	}
	dir := parts[0]
	writer, _ := strconv.Atoi(parts[1])
	n, _ := strconv.Atoi(parts[2])
	ctx := context.Background()
	st, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	conflicts, rebased := 0, 0
	for i := 0; i < n; i++ {
		for {
			d, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			as, _ := d.ArrowSchema()
			b := array.NewInt64Builder(memory.DefaultAllocator)
			b.Append(int64(writer*1000 + i))
			col := b.NewArray()
			rec := array.NewRecordBatch(as, []arrow.Array{col}, 1)
			nd, err := d.Append(ctx, []arrow.RecordBatch{rec})
			if err == nil && nd.Version() != d.Version()+1 {
				rebased++ // lost the race for d.Version()+1 and rebased
			}
			rec.Release()
			col.Release()
			if errors.Is(err, dataset.ErrCommitConflict) {
				conflicts++
				continue
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			break
		}
	}
	fmt.Printf("%d commits, %d rebased over concurrent commits, %d conflicts retried\n", n, rebased, conflicts)
	return 0
}

// TestPeerCommitRace: several lancecat processes and several peer processes
// append to one dataset at once. Every version has exactly one winner and no
// append is lost: the final row set is exactly every value every writer
// appended, and the version count equals the number of commits.
func TestPeerCommitRace(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "race.lance")
	st := openDir(t, dir)
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err := dataset.Create(ctx, st, "", schema, dataset.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const goWriters, peerWriters, commitsEach = 3, 2, 6
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goWriters+peerWriters*commitsEach)
	for w := 0; w < goWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s;%d;%d", raceChildEnv, dir, w, commitsEach))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs <- fmt.Errorf("lancecat writer %d: %v: %s", w, err, out)
				return
			}
			t.Logf("lancecat writer %d: %s", w, strings.TrimSpace(string(out)))
		}()
	}
	for w := 0; w < peerWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < commitsEach; i++ {
				row := map[string]any{"v": json.Number(strconv.Itoa((goWriters+w)*1000 + i))}
				if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": []any{row}}, nil); err != nil {
					errs <- fmt.Errorf("peer writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	d, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	total := (goWriters + peerWriters) * commitsEach
	if d.Version() != uint64(1+total) {
		t.Errorf("version %d, want %d (one per commit)", d.Version(), 1+total)
	}
	vs, err := dataset.ListVersions(ctx, st, "")
	if err != nil || len(vs) != 1+total {
		t.Errorf("%d version files, want %d (%v)", len(vs), 1+total, err)
	}
	seen := map[string]int{}
	for _, r := range ourRows(t, d, dataset.ScanOptions{}) {
		seen[string(r["v"].(json.Number))]++
	}
	for w := 0; w < goWriters+peerWriters; w++ {
		for i := 0; i < commitsEach; i++ {
			k := strconv.Itoa(w*1000 + i)
			if seen[k] != 1 {
				t.Errorf("value %s appears %d times", k, seen[k])
			}
		}
	}
	if len(seen) != total {
		t.Errorf("%d distinct values, want %d", len(seen), total)
	}
	checkPeerAgrees(t, dir, d)
}
