package lancefile

// Interop tests of the writer against the reference peer (Rust Lance via
// LanceDB). The peer only reads data files through datasets, so each test
// lets the peer create an empty table, writes a data file with our writer,
// commits it as version 2 with a test-only manifest writer (scaffolding, the
// real one lives in lance/dataset), and asks the peer to print every row.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// ---------------------------------------------------------------- dataset scaffolding

// peerEmptyDataset has the peer create an empty table with schemaJSON
// (JSONL.md notation) and returns the dataset directory.
func peerEmptyDataset(t *testing.T, schemaJSON any) string {
	t.Helper()
	peer.Require(t)
	dir := t.TempDir()
	var out map[string]any
	err := peer.Op(context.Background(), t, "createEmptyTable", map[string]any{
		"uri": dir, "name": "t", "manifestEnabled": false, "schema": schemaJSON,
	}, &out)
	if err != nil {
		t.Fatalf("peer createEmptyTable: %v", err)
	}
	return filepath.Join(dir, "t.lance")
}

const u64Max = ^uint64(0)

func versionPath(ds string, v uint64) string {
	return filepath.Join(ds, "_versions", fmt.Sprintf("%020d.manifest", u64Max-v))
}

// readManifestFile decodes a manifest file: the Manifest proto at the
// position stored in its 16-byte tail.
func readManifestFile(t *testing.T, path string) (*tablepb.Manifest, [4]byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 16 || string(b[len(b)-4:]) != "LANC" {
		t.Fatalf("%s: not a manifest", path)
	}
	pos := binary.LittleEndian.Uint64(b[len(b)-16:])
	n := uint64(binary.LittleEndian.Uint32(b[pos:]))
	m := &tablepb.Manifest{}
	if err := proto.Unmarshal(b[pos+4:pos+4+n], m); err != nil {
		t.Fatal(err)
	}
	return m, [4]byte(b[len(b)-8 : len(b)-4])
}

// datasetSchema returns the schema of a dataset version as lanceschema.
func datasetSchema(t *testing.T, ds string, v uint64) *lanceschema.Schema {
	t.Helper()
	m, _ := readManifestFile(t, versionPath(ds, v))
	s, err := lanceschema.FromProto(m.Fields, m.SchemaMetadata)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// commitFile stores data as data/<name>.lance and commits version 2 of the
// dataset with one fragment holding it, the way the peer commits an append
// (inline Append transaction at the start of the manifest file). If schema is
// non-nil it replaces the dataset schema (used for types the peer's JSON
// schema notation cannot express).
func commitFile(t *testing.T, ds string, data []byte, sum FileSummary, schema *lanceschema.Schema) {
	t.Helper()
	name := fmt.Sprintf("%x.lance", time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(ds, "data", name), data, 0o644); err != nil {
		if err := os.MkdirAll(filepath.Join(ds, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ds, "data", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prev, tail := readManifestFile(t, versionPath(ds, 1))
	frag := &tablepb.DataFragment{
		Id: 0,
		Files: []*tablepb.DataFile{{
			Path:             name,
			Fields:           sum.Fields,
			ColumnIndices:    sum.ColumnIndices,
			FileMajorVersion: sum.Major,
			FileMinorVersion: sum.Minor,
			FileSizeBytes:    uint64(sum.Size),
		}},
		PhysicalRows: sum.NumRows,
	}
	m := proto.Clone(prev).(*tablepb.Manifest)
	if schema != nil {
		m.Fields, m.SchemaMetadata = schema.Proto()
	}
	m.Fragments = []*tablepb.DataFragment{frag}
	m.Version = 2
	maxID := uint32(0)
	m.MaxFragmentId = &maxID
	m.TransactionFile = ""
	now := time.Now()
	m.Timestamp.Seconds, m.Timestamp.Nanos = now.Unix(), int32(now.Nanosecond())
	tx := &tablepb.Transaction{
		ReadVersion: 1,
		Uuid:        fmt.Sprintf("00000000-0000-4000-8000-%012x", now.UnixNano()&0xffffffffffff),
		Operation:   &tablepb.Transaction_Append_{Append: &tablepb.Transaction_Append{Fragments: []*tablepb.DataFragment{frag}}},
	}
	txBytes, err := proto.Marshal(tx)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	out = binary.LittleEndian.AppendUint32(out, uint32(len(txBytes)))
	out = append(out, txBytes...)
	zero := uint64(0)
	m.TransactionSection = &zero
	mb, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	pos := uint64(len(out))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(mb)))
	out = append(out, mb...)
	out = binary.LittleEndian.AppendUint64(out, pos)
	out = append(out, tail[:]...)
	out = append(out, "LANC"...)
	if err := os.WriteFile(versionPath(ds, 2), out, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(ds, "_versions", "latest_version_hint.json"), []byte(`{"version":2}`), 0o644)
}

// writeFile writes recs with our writer and returns the bytes and summary.
func writeFile(t *testing.T, schema *lanceschema.Schema, opts WriterOptions, recs ...arrow.Record) ([]byte, FileSummary) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := w.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Size != int64(buf.Len()) {
		t.Fatalf("summary size %d, wrote %d", sum.Size, buf.Len())
	}
	return buf.Bytes(), sum
}

// recordFromJSON builds a record of the dataset's arrow schema from arrow-go JSON rows.
func recordFromJSON(t *testing.T, schema *lanceschema.Schema, rows string) arrow.Record {
	t.Helper()
	as, err := schema.ToArrow()
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, as, strings.NewReader(rows), array.WithUseNumber())
	if err != nil {
		t.Fatalf("building record: %v", err)
	}
	t.Cleanup(rec.Release)
	return rec
}

// ---------------------------------------------------------------- expected rows (JSONL.md)

// expectedRows renders records the way dump.mjs prints rows (JSONL.md) and
// parses them like peer.Dump does.
func expectedRows(t *testing.T, recs ...arrow.Record) []map[string]any {
	t.Helper()
	var lines []string
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			var sb strings.Builder
			sb.WriteByte('{')
			for c := 0; c < int(rec.NumCols()); c++ {
				if c > 0 {
					sb.WriteByte(',')
				}
				k, _ := json.Marshal(rec.ColumnName(c))
				sb.Write(k)
				sb.WriteByte(':')
				sb.WriteString(jsonValue(t, rec.Column(c), i))
			}
			sb.WriteByte('}')
			lines = append(lines, sb.String())
		}
	}
	rows, err := peer.ParseRows(lines)
	if err != nil {
		t.Fatalf("parse expected rows: %v\n%s", err, strings.Join(lines, "\n"))
	}
	return rows
}

func floatJSON(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return `"NaN"`
	case math.IsInf(f, 1):
		return `"Infinity"`
	case math.IsInf(f, -1):
		return `"-Infinity"`
	}
	if bits == 32 { // the peer's float32 text (ties differ from Go's shortest formatting)
		return rdPeerFloatText(f, func(y float64) float64 { return float64(float32(y)) })
	}
	b, _ := json.Marshal(f)
	return string(b)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func timestampJSON(v int64, unit arrow.TimeUnit, zoned bool) string {
	var sec, nsec int64
	switch unit {
	case arrow.Second:
		sec = v
	case arrow.Millisecond:
		sec, nsec = floorDiv(v, 1000), floorMod(v, 1000)*1e6
	case arrow.Microsecond:
		sec, nsec = floorDiv(v, 1e6), floorMod(v, 1e6)*1e3
	case arrow.Nanosecond:
		sec, nsec = floorDiv(v, 1e9), floorMod(v, 1e9)
	}
	s := time.Unix(sec, nsec).UTC().Format("2006-01-02T15:04:05") + fmt.Sprintf(".%09d", nsec)
	if zoned {
		s += "Z"
	}
	return jsonString(s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func decimalJSON(n decimalNum, scale int32) string {
	bi := n.BigInt()
	neg := bi.Sign() < 0
	s := new(big.Int).Abs(bi).String()
	if scale > 0 {
		for len(s) <= int(scale) {
			s = "0" + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	}
	if neg {
		s = "-" + s
	}
	return jsonString(s)
}

type decimalNum interface{ BigInt() *big.Int }

func jsonValue(t *testing.T, arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return "null"
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float16: // JSONL.md: shortest decimal that rounds back in float16
		return rdHalfText(a.Value(i).Uint16())
	case *array.Float32:
		return floatJSON(float64(a.Value(i)), 32)
	case *array.Float64:
		return floatJSON(a.Value(i), 64)
	case *array.String:
		return jsonString(a.Value(i))
	case *array.LargeString:
		return jsonString(a.Value(i))
	case *array.Binary:
		return jsonString(base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.LargeBinary:
		return jsonString(base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.FixedSizeBinary:
		return jsonString(base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.Date32:
		return jsonString(a.Value(i).ToTime().UTC().Format("2006-01-02"))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		return timestampJSON(int64(a.Value(i)), tt.Unit, tt.TimeZone != "")
	case *array.Decimal128:
		return decimalJSON(a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.List:
		s, e := a.ValueOffsets(i)
		return jsonList(t, a.ListValues(), int(s), int(e))
	case *array.LargeList:
		s, e := a.ValueOffsets(i)
		return jsonList(t, a.ListValues(), int(s), int(e))
	case *array.FixedSizeList:
		s, e := a.ValueOffsets(i)
		return jsonList(t, a.ListValues(), int(s), int(e))
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		var sb strings.Builder
		sb.WriteByte('{')
		for k := 0; k < st.NumFields(); k++ {
			if k > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(jsonString(st.Field(k).Name))
			sb.WriteByte(':')
			sb.WriteString(jsonValue(t, a.Field(k), i))
		}
		sb.WriteByte('}')
		return sb.String()
	}
	t.Fatalf("no JSON rendering for %s", arr.DataType())
	return ""
}

func jsonList(t *testing.T, child arrow.Array, s, e int) string {
	parts := make([]string, 0, e-s)
	for j := s; j < e; j++ {
		parts = append(parts, jsonValue(t, child, j))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func compareRows(t *testing.T, got, want []map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("peer read %d rows, want %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Errorf("row %d:\n got %s\nwant %s", i, truncateText(string(g), 600), truncateText(string(w), 600))
			if bad++; bad > 5 {
				t.Fatalf("too many mismatching rows")
			}
		}
	}
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// TestWriterPeerReadsFSST: pages our writer FSST-compresses (utf8 with NULLs
// and empty strings, text, multi-byte UTF-8 in large_utf8, the items of a
// list<utf8>, long values in full-zip pages, several pages each with its own
// table) read in the peer exactly
// as written: a full dump and a row range from the middle of the pages. The
// file must really hold FSST pages for every one of those columns.
func TestWriterPeerReadsFSST(t *testing.T) {
	peer.Require(t)
	if testing.Short() {
		t.Skip("heavy peer case skipped in -short mode (covered by TestWriterFSSTRoundTrip)")
	}
	list := func(item any) map[string]any { return map[string]any{"list": f{"name": "item", "type": item}} }
	ds := peerEmptyDataset(t, schemaOf(notNull("id", "int64"), field("s", "utf8"), field("txt", "utf8"),
		field("ls", "large_utf8"), field("l", list("utf8")), field("bin", "binary"), field("long", "utf8")))
	schema := datasetSchema(t, ds, 1)
	const n, batch = 24000, 6000
	row := func(i int) string {
		s := fmt.Sprintf("%q", fmt.Sprintf("name_%d", i))
		switch i % 9 {
		case 0:
			s = "null"
		case 1:
			s = `""`
		}
		words := []string{"furiously", "regular", "deposits", "sleep", "ironic", "packages", "Ångström", "데이터"}
		var txt []string
		for j := 0; j < 3+i%11; j++ {
			txt = append(txt, words[(i*7+j*3)%len(words)])
		}
		l := fmt.Sprintf(`["item-%d", null, "item-%d-b"]`, i, i%100)
		if i%5 == 0 {
			l = "[]"
		}
		long := "null"
		if i%7 != 0 {
			long = fmt.Sprintf("%q", strings.Repeat(strings.Join(txt, " ")+fmt.Sprintf(" #%d; ", i), 300/len(txt)))
		}
		return fmt.Sprintf(`{"id": %d, "s": %s, "txt": %q, "ls": "zürich-数据-🦀-%d", "l": %s, "bin": "%s", "long": %s}`,
			i, s, strings.Join(txt, " ")+fmt.Sprintf(" %d", i), i, l, base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("bin_%d", i))), long)
	}
	var recs []arrow.Record
	for lo := 0; lo < n; lo += batch {
		recs = append(recs, recordFromJSON(t, schema, manyRows(batch, func(i int) string { return row(lo + i) })))
	}
	data, sum := writeFile(t, schema, WriterOptions{PageBytes: 128 << 10}, recs...)
	// Columns: id, s, txt, ls, l (its item leaf), bin, long (full-zip).
	pages := fsstPages(t, data)
	if !strings.HasPrefix(pages[6][0], "fullzip/") {
		t.Errorf("column long: pages %v, want full-zip", pages[6])
	}
	for c, name := range []string{"id", "s", "txt", "ls", "l", "bin", "long"} {
		fsst := 0
		for _, p := range pages[c] {
			if strings.Contains(p, "fsst") {
				fsst++
			}
		}
		switch {
		case name == "id" || name == "bin":
			if fsst != 0 {
				t.Errorf("column %s: FSST pages %v", name, pages[c])
			}
		case fsst < 2:
			t.Errorf("column %s: pages %v, want several FSST pages", name, pages[c])
		}
	}
	commitFile(t, ds, data, sum, nil)
	want := expectedRows(t, recs...)
	got, err := peer.Dump(context.Background(), t, ds, peer.DumpOptions{})
	if err != nil {
		t.Fatalf("peer dump: %v", err)
	}
	compareRows(t, got, want)
	var q struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := peer.Op(context.Background(), t, "dataset.query", map[string]any{"path": ds, "offset": 12345, "limit": 40}, &q); err != nil {
		t.Fatalf("peer query: %v", err)
	}
	lines := make([]string, len(q.Rows))
	for i, r := range q.Rows {
		lines[i] = string(r)
	}
	rows, err := peer.ParseRows(lines)
	if err != nil {
		t.Fatal(err)
	}
	compareRows(t, rows, want[12345:12345+40])
}
