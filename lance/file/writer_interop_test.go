package lancefile

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/conformance/peer"
)

type f map[string]any // a field in JSONL.md schema notation

func field(name string, typ any) f { return f{"name": name, "type": typ} }
func notNull(name string, typ any) f {
	return f{"name": name, "type": typ, "nullable": false}
}
func schemaOf(fields ...f) map[string]any { return map[string]any{"fields": fields} }

// longString returns a deterministic string of n bytes (ASCII with some
// multi-byte runes) for row i.
func longString(i, n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		fmt.Fprintf(&sb, "row%d-é✓-", i)
	}
	out := sb.String()[:n]
	for !utf8.ValidString(out) {
		out = out[:len(out)-1]
	}
	return out
}

type interopCase struct {
	name   string
	schema map[string]any
	// batches of rows in arrow-go JSON (one JSON array per Write call)
	batches []string
	opts    WriterOptions
	// heavy cases (thousands of rows) are skipped by the peer tests in -short mode
	heavy bool
}

func primitiveRows() string {
	return `[
 {"b": true, "i8": -128, "i16": -32768, "i32": -2147483648, "i64": -9223372036854775808,
  "u8": 255, "u16": 65535, "u32": 4294967295, "u64": 18446744073709551615,
  "f16": 1.5, "f32": 0.1, "f64": "NaN", "d": "1970-01-01", "ts": 0, "tsz": -1, "tss": 1, "tsm": 1700000000123,
  "dec": "-12345678.90", "s": "", "ls": "héllo ✓ 😀", "bin": "AAEC", "lbin": ""},
 {"b": false, "i8": 127, "i16": 32767, "i32": 2147483647, "i64": 9223372036854775807,
  "u8": 0, "u16": 0, "u32": 0, "u64": 0,
  "f16": -0.25, "f32": "+Inf", "f64": "-Inf", "d": "2024-02-29", "ts": 1700000000123456, "tsz": 1700000000123456789, "tss": -86400, "tsm": -1,
  "dec": "0.00", "s": "plain", "ls": "", "bin": "", "lbin": "/w=="},
 {"b": null, "i8": null, "i16": null, "i32": null, "i64": null, "u8": null, "u16": null, "u32": null, "u64": null,
  "f16": null, "f32": null, "f64": null, "d": null, "ts": null, "tsz": null, "tss": null, "tsm": null,
  "dec": null, "s": null, "ls": null, "bin": null, "lbin": null},
 {"b": true, "i8": 0, "i16": 1, "i32": -1, "i64": 0, "u8": 1, "u16": 2, "u32": 3, "u64": 9223372036854775808,
  "f16": 0, "f32": -0.0, "f64": -0.0, "d": "1969-12-31", "ts": -1, "tsz": 0, "tss": 0, "tsm": 0,
  "dec": "99999999.99", "s": "x", "ls": "y", "bin": "3q2+7w==", "lbin": "AA=="},
 {"b": false, "i8": 5, "i16": 5, "i32": 5, "i64": 5, "u8": 5, "u16": 5, "u32": 5, "u64": 5,
  "f16": 1024, "f32": 3.4028235e38, "f64": 2.2250738585072014e-308, "d": "2000-01-01", "ts": 5, "tsz": 5, "tss": 5, "tsm": 5,
  "dec": "-0.01", "s": "tab\tnewline\n\"quote\"", "ls": "\u0000nul", "bin": null, "lbin": null}
]`
}

var primitiveSchema = schemaOf(
	field("b", "bool"), field("i8", "int8"), field("i16", "int16"), field("i32", "int32"), field("i64", "int64"),
	field("u8", "uint8"), field("u16", "uint16"), field("u32", "uint32"), field("u64", "uint64"),
	field("f16", "float16"), field("f32", "float32"), field("f64", "float64"), field("d", "date32"),
	field("ts", "timestamp[us]"), field("tsz", "timestamp[ns, tz=UTC]"), field("tss", "timestamp[s]"), field("tsm", "timestamp[ms]"),
	field("dec", "decimal128(10,2)"), field("s", "utf8"), field("ls", "large_utf8"), field("bin", "binary"), field("lbin", "large_binary"),
)

func manyRows(n int, row func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = row(i)
	}
	return "[" + strings.Join(parts, ",\n") + "]"
}

func interopCases() []interopCase {
	list := func(item any) map[string]any { return map[string]any{"list": f{"name": "item", "type": item}} }
	strct := func(fs ...f) map[string]any { return map[string]any{"struct": fs} }
	fsl := func(item any, n int) map[string]any {
		return map[string]any{"fixed_size_list": f{"name": "item", "type": item}, "size": n}
	}
	return []interopCase{
		{name: "primitives", schema: primitiveSchema, batches: []string{primitiveRows()}},
		{name: "primitives_many_rows", heavy: true, schema: primitiveSchema, batches: []string{manyRows(5000, func(i int) string {
			if i%7 == 3 {
				return `{}`
			}
			return fmt.Sprintf(`{"b": %t, "i8": %d, "i16": %d, "i32": %d, "i64": %d, "u8": %d, "u16": %d, "u32": %d, "u64": %d,
			 "f16": %d, "f32": %d.5, "f64": %d.25, "d": %d, "ts": %d, "tsz": %d, "tss": %d, "tsm": %d, "dec": "%d.%02d",
			 "s": "s%d", "ls": "ls%d", "bin": "AAEC", "lbin": "AA=="}`,
				i%3 == 0, i%100-50, i*3-7000, i*100003, int64(i)*-1000000007, i%256, i%65536, i*7, uint64(i)*1e15,
				i%2000-1000, i, -i, i-2500, int64(i)*1e9, int64(i)*1e12, i, i, i, i%100, i, i*i)
		})}},
		{name: "strings_long_fullzip", schema: schemaOf(field("s", "utf8"), field("ls", "large_utf8"), field("bin", "binary")),
			batches: []string{manyRows(40, func(i int) string {
				if i%5 == 4 {
					return `{"s": null, "ls": "", "bin": null}`
				}
				return fmt.Sprintf(`{"s": %q, "ls": %q, "bin": "%s"}`, longString(i, 300+i*97), longString(i, 1500+i), strings.Repeat("QUJD", 100+i))
			})}},
		{name: "struct_nulls", schema: schemaOf(
			field("s", strct(field("x", "int32"), field("y", "utf8"), field("z", strct(field("w", "float64"))))),
			notNull("id", "int64")),
			batches: []string{`[
			{"s": {"x": 1, "y": "a", "z": {"w": 1.5}}, "id": 1},
			{"s": null, "id": 2},
			{"s": {"x": null, "y": null, "z": null}, "id": 3},
			{"s": {"x": 4, "y": "", "z": {"w": null}}, "id": 4},
			{"s": {"x": -5, "y": "ü", "z": {"w": -0.0}}, "id": 5}
			]`}},
		{name: "lists", schema: schemaOf(
			field("li", list("int32")), field("ls", list("utf8")), field("lb", list("bool")), field("ll", list(list("int64")))),
			batches: []string{`[
			{"li": [1, 2, 3], "ls": ["a", null, ""], "lb": [true, false, null], "ll": [[1], [], null, [2, 3]]},
			{"li": [], "ls": [], "lb": [], "ll": []},
			{"li": null, "ls": null, "lb": null, "ll": null},
			{"li": [null], "ls": [null], "lb": [null], "ll": [null]},
			{"li": [-2147483648, 2147483647], "ls": ["xyz"], "lb": [true], "ll": [[null, 5]]}
			]`}},
		{name: "list_of_struct", schema: schemaOf(
			field("ls", list(strct(field("a", "int32"), field("b", "utf8")))),
			field("sl", strct(field("l", list("float32")), field("k", "utf8")))),
			batches: []string{`[
			{"ls": [{"a": 1, "b": "x"}, null, {"a": null, "b": "y"}], "sl": {"l": [1.5, null], "k": "k1"}},
			{"ls": [], "sl": {"l": [], "k": null}},
			{"ls": null, "sl": null},
			{"ls": [{"a": 2, "b": null}], "sl": {"l": null, "k": "k4"}}
			]`}},
		{name: "fixed_size_list", schema: schemaOf(
			field("v", fsl("float32", 4)), field("w", fsl("int64", 2)), field("big", fsl("float32", 128))),
			batches: []string{manyRows(30, func(i int) string {
				if i%6 == 5 {
					return `{"v": null, "w": [null, 1], "big": null}`
				}
				big := make([]string, 128)
				for j := range big {
					big[j] = fmt.Sprintf("%d.25", i*128+j)
				}
				nan := `"NaN"` // the peer refuses to append vectors with NaN: keep them out of the appended prefix
				if i < 20 {
					nan = `"Infinity"`
				}
				return fmt.Sprintf(`{"v": [%d.5, -0.0, `+nan+`, %d], "w": [%d, -9223372036854775808], "big": [%s]}`, i, -i, i, strings.Join(big, ","))
			})}},
		{name: "all_null_columns", schema: schemaOf(
			field("i", "int64"), field("s", "utf8"), field("l", list("int32")), field("st", strct(field("x", "int32"))), field("v", fsl("float32", 3)), notNull("k", "int32")),
			batches: []string{`[
			{"i": null, "s": null, "l": null, "st": null, "v": null, "k": 1},
			{"i": null, "s": null, "l": [], "st": {"x": null}, "v": null, "k": 2},
			{"i": null, "s": null, "l": [null], "st": null, "v": null, "k": 3}
			]`}},
		{name: "many_lists_multi_chunk", heavy: true, schema: schemaOf(field("l", list("int64")), field("s", list("utf8"))),
			batches: []string{manyRows(3000, func(i int) string {
				switch i % 9 {
				case 0:
					return `{"l": null, "s": null}`
				case 1:
					return `{"l": [], "s": []}`
				}
				n := i % 13
				vals := make([]string, n)
				strs := make([]string, n)
				for j := range vals {
					vals[j] = fmt.Sprint(i*100 + j)
					strs[j] = fmt.Sprintf("%q", fmt.Sprint("v", i, "_", j))
					if (i+j)%11 == 0 {
						vals[j], strs[j] = "null", "null"
					}
				}
				return fmt.Sprintf(`{"l": [%s], "s": [%s]}`, strings.Join(vals, ","), strings.Join(strs, ","))
			})}},
		// Far more empty/null lists than values: the last mini-block chunk
		// would hold the ~70,000 levels after the only values, more than a
		// chunk can count (even with bit-packed levels), so the writer falls
		// back to full-zip.
		{name: "sparse_lists_fullzip_fallback", heavy: true, schema: schemaOf(field("l", list("int64")), field("s", list("utf8"))),
			batches: []string{manyRows(70000, func(i int) string {
				switch {
				case i == 7:
					return fmt.Sprintf(`{"l": [%d, null, 3], "s": ["x%d", null]}`, i, i)
				case i%2 == 0:
					return `{"l": [], "s": null}`
				}
				return `{"l": null, "s": []}`
			})}},
		// Data that makes the writer pick each of Lance's compressions:
		// bit-packed sequential, small and nullable integers (out-of-line
		// bit-packed definition levels), RLE runs, flat random negatives,
		// bit-packed doubles; chunk boundaries at 1024 values (4097 rows).
		{name: "compressed_fixed", heavy: true, schema: schemaOf(
			notNull("seq", "int64"), field("small", "uint8"), field("runs", "int32"), field("neg", "int64"),
			field("dbl", "float64"), field("n16", "int16"), field("b", "bool"), field("d", "date32"), field("ts", "timestamp[us]")),
			batches: []string{manyRows(4097, func(i int) string {
				n16 := fmt.Sprint(i % 3000)
				if i%9 == 4 || i == 4096 {
					n16 = "null"
				}
				return fmt.Sprintf(`{"seq": %d, "small": %d, "runs": %d, "neg": %d, "dbl": %d.5, "n16": %s, "b": %t, "d": %d, "ts": %d}`,
					i+1000000, i%16, i/700, -int64(i)*7919*104729-1, i%1000, n16, i%5 == 0, 19000+i%30, 1700000000000000+int64(i)*1000)
			})}},
		// Low-cardinality strings become dictionary pages (32-bit indices for
		// utf8 / binary, 64-bit for large_utf8), also under lists and structs
		// and with nulls; the indices are bit-packed or run-length encoded.
		{name: "dictionary_strings", heavy: true, schema: schemaOf(
			field("cat", "utf8"), field("lcat", "large_utf8"), field("bcat", "binary"), field("sorted", "utf8"),
			field("tags", list("utf8")), field("st", strct(field("k", "utf8"), field("v", "int32"))), field("long", "utf8")),
			batches: []string{manyRows(3000, func(i int) string {
				cats := []string{"red", "green", "blue", "", "yellow ✓"}
				cat := jsonString(cats[i%5])
				if i%11 == 3 {
					cat = "null"
				}
				tags := fmt.Sprintf(`[%s, %s]`, jsonString(cats[i%3]), jsonString(cats[(i/3)%5]))
				if i%13 == 0 {
					tags = "[]"
				} else if i%17 == 0 {
					tags = "null"
				}
				return fmt.Sprintf(`{"cat": %s, "lcat": "L%d", "bcat": %s, "sorted": "grp-%03d", "tags": %s, "st": {"k": "k%d", "v": %d}, "long": %s}`,
					cat, i%7, jsonString([]string{"AAEC", "/w==", ""}[i%3]), i/100, tags, i%4, i, jsonString(longString(i%3, 300)))
			})}},
		// 100,000 rows: several pages' worth of bit-packed, dictionary and
		// RLE chunks and bit-packed levels.
		{name: "hundred_thousand_rows", heavy: true, schema: schemaOf(
			notNull("id", "int64"), field("cat", "utf8"), field("n", "int32"), field("l", list("int16"))),
			batches: []string{manyRows(100000, func(i int) string {
				n := fmt.Sprint(i % 77777)
				if i%10 == 0 {
					n = "null"
				}
				return fmt.Sprintf(`{"id": %d, "cat": "c%d", "n": %s, "l": [%d, %d]}`, i, i%4, n, i%300, i/1000)
			})}},
		{name: "multi_batch_small_pages", opts: WriterOptions{PageBytes: 2000}, schema: schemaOf(
			field("i", "int32"), field("s", "utf8"), field("l", list("int16")), field("b", "bool")),
			batches: []string{
				manyRows(700, func(i int) string {
					return fmt.Sprintf(`{"i": %d, "s": "a%d", "l": [%d, 1], "b": %t}`, i, i, i%100, i%3 == 0)
				}),
				manyRows(3, func(i int) string { return `{"i": null, "s": null, "l": null, "b": null}` }),
				`[]`,
				manyRows(1001, func(i int) string { return fmt.Sprintf(`{"i": %d, "s": "b%d", "l": [], "b": %t}`, -i, i, i%2 == 0) }),
			}},
	}
}

// TestWriterPeerReadsBackAndAppends writes each case with our writer and
// commits it; the peer then appends a prefix of the same rows as a second
// fragment and reads both back: every value of our fragment (and of its own)
// must be identical. The peer must also record the same DataFile fields /
// column indices for its file as our FileSummary does for ours.
func TestWriterPeerReadsBackAndAppends(t *testing.T) {
	peer.Require(t)
	for _, tc := range interopCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy && testing.Short() {
				t.Skip("heavy peer case skipped in -short mode (covered by TestWriterRoundTripOwnReader)")
			}
			t.Parallel()
			ds := peerEmptyDataset(t, tc.schema)
			schema := datasetSchema(t, ds, 1)
			recs := make([]arrow.Record, 0, len(tc.batches))
			for _, b := range tc.batches {
				recs = append(recs, recordFromJSON(t, schema, b))
			}
			data, sum := writeFile(t, schema, tc.opts, recs...)
			commitFile(t, ds, data, sum, nil)
			want := expectedRows(t, recs...)
			if len(want) == 0 {
				t.Skip("no rows to append")
			}
			// The peer takes rows on its command line: append a prefix.
			added := want[:min(len(want), 20)]
			var res map[string]any
			if err := peer.Op(context.Background(), t, "dataset.add", map[string]any{"path": ds, "rows": added}, &res); err != nil {
				// Tell a bad file from a failed append.
				got, derr := peer.Dump(context.Background(), t, ds, peer.DumpOptions{})
				if derr == nil {
					compareRows(t, got, want)
				}
				t.Fatalf("peer add: %s (dump of our file alone: %v)", truncateText(err.Error(), 2000), derr)
			}
			got, err := peer.Dump(context.Background(), t, ds, peer.DumpOptions{})
			if err != nil {
				t.Fatalf("peer dump: %v", err)
			}
			compareRows(t, got, append(append([]map[string]any{}, want...), added...))
			m, _ := readManifestFile(t, versionPath(ds, 3))
			if len(m.Fragments) != 2 || len(m.Fragments[1].Files) != 1 {
				t.Fatalf("version 3 has %d fragments", len(m.Fragments))
			}
			theirs := m.Fragments[1].Files[0]
			if !reflect.DeepEqual(theirs.Fields, sum.Fields) || !reflect.DeepEqual(theirs.ColumnIndices, sum.ColumnIndices) {
				t.Errorf("peer DataFile fields %v columns %v; our summary fields %v columns %v",
					theirs.Fields, theirs.ColumnIndices, sum.Fields, sum.ColumnIndices)
			}
			if theirs.FileMajorVersion != sum.Major || theirs.FileMinorVersion != sum.Minor {
				t.Errorf("peer file version %d.%d, ours %d.%d", theirs.FileMajorVersion, theirs.FileMinorVersion, sum.Major, sum.Minor)
			}
		})
	}
}

// TestWriterPeerTypesOutsideNotation covers types the peer's JSON schema
// notation cannot declare (large_list, time64, decimal256 is not supported by
// the dump): the dataset schema is replaced by ours in the committed version.
func TestWriterPeerTypesOutsideNotation(t *testing.T) {
	peer.Require(t)
	ds := peerEmptyDataset(t, schemaOf(field("ll", "int32"), field("t", "int32"), field("lb", "int32"), field("fb", "int32"), field("k", "int32")))
	s := schemaFromArrow(t,
		arrow.Field{Name: "ll", Type: arrow.LargeListOf(arrow.BinaryTypes.LargeString), Nullable: true},
		arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		arrow.Field{Name: "lb", Type: arrow.ListOf(arrow.BinaryTypes.LargeBinary), Nullable: true},
		arrow.Field{Name: "fb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
		arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: false},
	)
	rec := recordFromJSON(t, s, `[
	 {"ll": ["a", null, ""], "t": 0, "lb": ["AAEC", null], "fb": "AAEC", "k": 1},
	 {"ll": [], "t": 86399999999, "lb": [], "fb": null, "k": 2},
	 {"ll": null, "t": null, "lb": null, "fb": "////", "k": 3},
	 {"ll": ["`+longString(1, 2000)+`"], "t": 1, "lb": [""], "fb": "AAAA", "k": 4}
	]`)
	data, sum := writeFile(t, s, WriterOptions{}, rec)
	commitFile(t, ds, data, sum, s)

	// time64 is not printable by dump.mjs: read it cast to int64 (microseconds).
	out, err := peer.Run(context.Background(), t, "../../lance/file/testdata/select.mjs", ds,
		`{"t": "arrow_cast(t, 'Int64')", "k": "k"}`)
	if err != nil {
		t.Fatalf("peer select: %v", err)
	}
	got, err := peer.ParseRows(strings.Split(strings.TrimSpace(string(out)), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := peer.ParseRows([]string{`{"t":0,"k":1}`, `{"t":86399999999,"k":2}`, `{"t":null,"k":3}`, `{"t":1,"k":4}`})
	compareRows(t, got, want)

	rows, err := peer.Dump(context.Background(), t, ds, peer.DumpOptions{Columns: []string{"ll", "lb", "fb", "k"}})
	if err != nil {
		t.Fatalf("peer dump: %v", err)
	}
	proj := recordFromJSON(t, schemaFromArrow(t,
		arrow.Field{Name: "ll", Type: arrow.LargeListOf(arrow.BinaryTypes.LargeString), Nullable: true},
		arrow.Field{Name: "lb", Type: arrow.ListOf(arrow.BinaryTypes.LargeBinary), Nullable: true},
		arrow.Field{Name: "fb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
		arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: false}), `[
	 {"ll": ["a", null, ""], "lb": ["AAEC", null], "fb": "AAEC", "k": 1},
	 {"ll": [], "lb": [], "fb": null, "k": 2},
	 {"ll": null, "lb": null, "fb": "////", "k": 3},
	 {"ll": ["`+longString(1, 2000)+`"], "lb": [""], "fb": "AAAA", "k": 4}]`)
	compareRows(t, rows, expectedRows(t, proj))
}

// TestWriterPeerZeroRowFile: a file from zero-row batches is a valid file the
// peer opens as an empty fragment.
func TestWriterPeerZeroRowFile(t *testing.T) {
	peer.Require(t)
	ds := peerEmptyDataset(t, schemaOf(field("i", "int64"), field("l", map[string]any{"list": f{"name": "item", "type": "utf8"}})))
	s := datasetSchema(t, ds, 1)
	empty := recordFromJSON(t, s, `[]`)
	data, sum := writeFile(t, s, WriterOptions{}, empty)
	commitFile(t, ds, data, sum, nil)
	var res struct{ Rows json.Number }
	if err := peer.Op(context.Background(), t, "dataset.countRows", map[string]any{"path": ds}, &res); err != nil {
		t.Fatalf("peer countRows: %v", err)
	}
	if res.Rows.String() != "0" {
		t.Errorf("peer counts %s rows", res.Rows)
	}
	got, err := peer.Dump(context.Background(), t, ds, peer.DumpOptions{})
	if err != nil {
		t.Fatalf("peer dump: %v", err)
	}
	if len(got) != 0 {
		t.Errorf("peer read %d rows", len(got))
	}
}

// TestWriterPeerSlicedInput writes sliced records (non-zero arrow offsets,
// bool bitmaps starting mid-byte, several writes per page) and checks the
// peer reads exactly the sliced rows.
func TestWriterPeerSlicedInput(t *testing.T) {
	peer.Require(t)
	for _, name := range []string{"primitives", "list_of_struct", "fixed_size_list"} {
		var tc interopCase
		for _, c := range interopCases() {
			if c.name == name {
				tc = c
			}
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ds := peerEmptyDataset(t, tc.schema)
			schema := datasetSchema(t, ds, 1)
			full := recordFromJSON(t, schema, tc.batches[0])
			n := full.NumRows()
			var recs []arrow.Record
			for _, r := range [][2]int64{{1, n / 2}, {n / 2, n / 2}, {n/2 + 3, n - 1}} {
				if r[0] > r[1] {
					continue
				}
				s := full.NewSlice(r[0], r[1])
				t.Cleanup(s.Release)
				recs = append(recs, s)
			}
			data, sum := writeFile(t, schema, WriterOptions{}, recs...)
			commitFile(t, ds, data, sum, nil)
			got, err := peer.Dump(context.Background(), t, ds, peer.DumpOptions{})
			if err != nil {
				t.Fatalf("peer dump: %v", err)
			}
			compareRows(t, got, expectedRows(t, recs...))
		})
	}
}
