package lancefile

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/conformance/peer"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// fsstWords is a vocabulary for text-like values (TPC-H comment style).
var fsstWords = strings.Fields(`the quick brown fox jumps over lazy dog furiously regular deposits
	sleep carefully ironic packages haggle blithely final requests across accounts nag slyly express
	pinto beans among theodolites special instructions wake quietly bold foxes cajole above pending
	dependencies integrate daringly even platelets boost permanently silent courts detect`)

func fsstText(r *rand.Rand, minLen, maxLen int) string {
	n := minLen + r.IntN(maxLen-minLen+1)
	var sb strings.Builder
	for sb.Len() < n {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(fsstWords[r.IntN(len(fsstWords))])
	}
	return sb.String()[:n]
}

// fsstRoundTrip trains on values, compresses each and decodes it with the
// package's reader-side decoder (the one that reads peer files).
func fsstRoundTrip(t testing.TB, values [][]byte) (compressed int) {
	t.Helper()
	var data []byte
	offs := []uint64{0}
	for _, v := range values {
		data = append(data, v...)
		offs = append(offs, uint64(len(data)))
	}
	enc := trainFSST(fsstSample(offs, data))
	if enc == nil {
		// Only when there is nothing to learn from.
		if len(data) != 0 {
			t.Fatalf("no symbol table for %d bytes", len(data))
		}
		return 0
	}
	tab := enc.table()
	if len(tab) != fsstTableSize {
		t.Fatalf("table of %d bytes", len(tab))
	}
	h := binary.LittleEndian.Uint64(tab)
	if h>>32 != 0x46535354 || h&(1<<24) == 0 || int(h&0xFF) != len(enc.syms) || len(enc.syms) > 255 || len(enc.syms) == 0 {
		t.Fatalf("table header %#x for %d symbols", h, len(enc.syms))
	}
	dec, err := parseFSSTTable(tab)
	if err != nil {
		t.Fatal(err)
	}
	in := &block{n: uint64(len(values)), variable: true, offsets: []uint64{0}}
	for _, v := range values {
		in.data = enc.appendCompressed(in.data, v)
		in.offsets = append(in.offsets, uint64(len(in.data)))
	}
	out, err := dec.decodeBlock(in)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		got := out.data[out.offsets[i]:out.offsets[i+1]]
		if !bytes.Equal(got, v) {
			t.Fatalf("value %d: got %q, want %q", i, got, v)
		}
	}
	return len(in.data)
}

func TestFSSTEncoderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var everyByte []byte
	for b := 0; b < 256; b++ {
		everyByte = append(everyByte, byte(b))
	}
	gen := func(n int, f func(i int) []byte) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	cases := []struct {
		name   string
		values [][]byte
		// shrinks: the compressed values must be smaller than the input
		shrinks bool
	}{
		{"text", gen(5000, func(int) []byte { return []byte(fsstText(r, 10, 80)) }), true},
		{"names", gen(20000, func(i int) []byte { return []byte(fmt.Sprintf("name_%d", i)) }), true},
		{"random_ascii", gen(3000, func(int) []byte {
			b := make([]byte, 1+r.IntN(40))
			for j := range b {
				b[j] = byte(33 + r.IntN(94))
			}
			return b
		}), false},
		{"random_bytes", gen(3000, func(int) []byte {
			b := make([]byte, r.IntN(60))
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			return b
		}), false},
		// 0xFF is the escape code: as data it must come back, escaped or as a symbol.
		// (Uniform bytes: every byte earns its own symbol and the table barely shrinks them.)
		{"every_byte_value", gen(500, func(i int) []byte { return append(everyByte[i%256:], everyByte[:i%256]...) }), false},
		{"escape_bytes", gen(2000, func(i int) []byte { return bytes.Repeat([]byte{0xFF, byte(i)}, 1+i%9) }), true},
		{"empty_mixed", gen(2000, func(i int) []byte {
			if i%3 == 0 {
				return nil
			}
			return []byte(fsstText(r, 1, 30))
		}), true},
		{"one_value", [][]byte{[]byte("a single value repeated value value")}, false},
		{"one_byte", [][]byte{{0xFF}}, false},
		{"long_values", gen(40, func(int) []byte { return []byte(fsstText(r, 3000, 9000)) }), true},
		{"all_empty", gen(100, func(int) []byte { return nil }), false},
		{"utf8", gen(3000, func(i int) []byte { return []byte(fmt.Sprintf("zürich-数据-🦀-%d-naïve", i%500)) }), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, v := range tc.values {
				n += len(v)
			}
			c := fsstRoundTrip(t, tc.values)
			t.Logf("%d values, %d bytes -> %d", len(tc.values), n, c)
			if tc.shrinks && c >= n {
				t.Errorf("compressed %d bytes to %d", n, c)
			}
		})
	}
}

// TestFSSTSampleBounded: training looks at about 16 KiB whatever the page size.
func TestFSSTSampleBounded(t *testing.T) {
	var data []byte
	offs := []uint64{0}
	for i := 0; i < 200000; i++ {
		data = fmt.Appendf(data, "value-%d", i)
		offs = append(offs, uint64(len(data)))
	}
	size := 0
	for _, v := range fsstSample(offs, data) {
		size += len(v)
	}
	if size < fsstSampleTarget || size > fsstSampleTarget+512 {
		t.Errorf("sample of %d bytes from %d", size, len(data))
	}
	// Mostly empty values: the draws stop.
	offs = make([]uint64, 1000001)
	offs[1000000] = 1
	if s := fsstSample(offs, []byte{'x'}); len(s) > 1 {
		t.Errorf("sample of %d values from one byte", len(s))
	}
}

func FuzzFSSTRoundTrip(f *testing.F) {
	f.Add([]byte("hello world\x00hello there\x00world"), byte(0))
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0, 0xFE, 0xFF}, byte(0xFF))
	f.Add(bytes.Repeat([]byte("abcdefghij"), 200), byte('e'))
	f.Fuzz(func(t *testing.T, raw []byte, sep byte) {
		// The input split at sep: values of any bytes, empty ones included.
		fsstRoundTrip(t, bytes.Split(raw, []byte{sep}))
	})
}

// ---------------------------------------------------------------- through the writer

// fsstPages returns, per column, the value compression of each page of a
// written file as text, e.g. "miniblock/fsst(variable)".
func fsstPages(t *testing.T, data []byte) [][]string {
	t.Helper()
	cols, _ := fileLayouts(t, data)
	var out [][]string
	for _, pages := range cols {
		var names []string
		for _, p := range pages {
			names = append(names, layoutName(p))
		}
		out = append(out, names)
	}
	return out
}

// stringRecord builds a one-column record of type dt from values (nil: NULL).
func stringRecord(t *testing.T, name string, dt arrow.DataType, values []*string) (*arrow.Schema, arrow.Record) {
	t.Helper()
	as := arrow.NewSchema([]arrow.Field{{Name: name, Type: dt, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	for _, v := range values {
		switch fb := b.Field(0).(type) {
		case *array.StringBuilder:
			if v == nil {
				fb.AppendNull()
			} else {
				fb.Append(*v)
			}
		case *array.LargeStringBuilder:
			if v == nil {
				fb.AppendNull()
			} else {
				fb.Append(*v)
			}
		case *array.BinaryBuilder:
			if v == nil {
				fb.AppendNull()
			} else {
				fb.Append([]byte(*v))
			}
		}
	}
	rec := b.NewRecord()
	t.Cleanup(rec.Release)
	return as, rec
}

func strPtrs(n int, f func(i int) *string) []*string {
	out := make([]*string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func sp(s string) *string { return &s }

// TestWriterFSSTChosen: the writer compresses a string page with FSST exactly
// where Lance 8.0 does (utf8 and large_utf8, longest value >= 5 bytes, >= 32
// KiB of values; never binary; mini-block and full-zip pages), and the symbol
// table is in the page encoding.
func TestWriterFSSTChosen(t *testing.T) {
	names := func(n int) []*string { return strPtrs(n, func(i int) *string { return sp(fmt.Sprintf("name_%d", i)) }) }
	short := strPtrs(20000, func(i int) *string { return sp(fmt.Sprintf("%04d", i%10000)) })
	r := rand.New(rand.NewPCG(3, 4))
	random := strPtrs(3000, func(int) *string {
		b := make([]byte, 12)
		for j := range b {
			b[j] = byte(33 + r.IntN(94))
		}
		return sp(string(b))
	})
	cases := []struct {
		name   string
		dt     arrow.DataType
		values []*string
		want   string
	}{
		{"utf8", arrow.BinaryTypes.String, names(20000), "miniblock/fsst(variable)"},
		{"large_utf8", arrow.BinaryTypes.LargeString, names(20000), "miniblock/fsst(variable)"},
		{"with_nulls", arrow.BinaryTypes.String, strPtrs(30000, func(i int) *string {
			if i%4 == 0 {
				return nil
			}
			return sp(fmt.Sprintf("v%d", i))
		}), "miniblock/fsst(variable)"},
		{"binary", arrow.BinaryTypes.Binary, names(20000), "miniblock/variable"},
		{"under_32k", arrow.BinaryTypes.String, names(2500), "miniblock/variable"},
		{"max_len_4", arrow.BinaryTypes.String, short, "miniblock/variable"},
		// Incompressible values: a table would only add bytes.
		{"random", arrow.BinaryTypes.String, random, "miniblock/variable"},
		// Values of 256 bytes or more go to full-zip pages, compressed value by value.
		{"long_fullzip", arrow.BinaryTypes.String, strPtrs(100, func(i int) *string { return sp(strings.Repeat(fmt.Sprintf("row %d, ", i), 40+i)) }), "fullzip/fsst(variable)"},
		{"long_large_fullzip", arrow.BinaryTypes.LargeString, strPtrs(100, func(i int) *string { return sp(strings.Repeat(fmt.Sprintf("row %d, ", i), 40+i)) }), "fullzip/fsst(variable)"},
		{"long_binary_fullzip", arrow.BinaryTypes.Binary, strPtrs(100, func(i int) *string { return sp(strings.Repeat(fmt.Sprintf("row %d, ", i), 40+i)) }), "fullzip/variable"},
		{"long_under_32k", arrow.BinaryTypes.String, strPtrs(50, func(i int) *string { return sp(strings.Repeat("ab", 150)) }), "fullzip/variable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as, rec := stringRecord(t, "s", tc.dt, tc.values)
			s := schemaFromArrow(t, as.Fields()...)
			data, _ := writeFile(t, s, WriterOptions{}, rec)
			got := fsstPages(t, data)[0]
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("pages %v, want [%s]", got, tc.want)
			}
			if strings.Contains(tc.want, "fsst") {
				cols, _ := fileLayouts(t, data)
				vc := cols[0][0].GetMiniBlockLayout().GetValueCompression()
				if fz := cols[0][0].GetFullZipLayout(); fz != nil {
					vc = fz.GetValueCompression()
				}
				tab := vc.GetFsst().GetSymbolTable()
				if _, err := parseFSSTTable(tab); err != nil || binary.LittleEndian.Uint64(tab)>>32 != 0x46535354 {
					t.Fatalf("symbol table: %v", err)
				}
				inner := vc.GetFsst().GetValues()
				wantBits := uint64(32)
				if tc.dt.ID() == arrow.LARGE_STRING {
					wantBits = 64
				}
				if b := inner.GetVariable().GetOffsets().GetFlat().GetBitsPerValue(); b != wantBits {
					t.Fatalf("inner offsets of %d bits, want %d", b, wantBits)
				}
			}
		})
	}
}

// fsstReadBack reads every row of a written one-column file with the
// package's reader and a Take of the given rows, and compares with values.
func fsstReadBack(t *testing.T, data []byte, values []*string, take []uint64) {
	t.Helper()
	ctx := context.Background()
	r, err := Open(ctx, BytesSource(data))
	if err != nil {
		t.Fatal(err)
	}
	id := r.Schema().Fields[0].ID
	check := func(rec arrow.Record, rows []uint64) {
		col := rec.Column(0)
		if col.Len() != len(rows) {
			t.Fatalf("%d values, want %d", col.Len(), len(rows))
		}
		for i, row := range rows {
			want := values[row]
			var got string
			switch a := col.(type) {
			case *array.String:
				got = a.Value(i)
			case *array.LargeString:
				got = a.Value(i)
			case *array.Binary:
				got = string(a.Value(i))
			}
			if (want == nil) != col.IsNull(i) || (want != nil && got != *want) {
				t.Fatalf("row %d: got %q (null %v), want %v", row, got, col.IsNull(i), want)
			}
		}
	}
	all, err := r.ReadRange(ctx, []int32{id}, 0, uint64(len(values)))
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	rows := make([]uint64, len(values))
	for i := range rows {
		rows[i] = uint64(i)
	}
	check(all, rows)
	took, err := r.Take(ctx, []int32{id}, take)
	if err != nil {
		t.Fatal(err)
	}
	defer took.Release()
	check(took, take)
}

// TestWriterFSSTRoundTrip: FSST pages read back through the package's reader
// (the decoder that reads the peer's FSST pages): text, names, NULLs and
// empty strings, multi-byte UTF-8, 100k values in many chunks and several
// pages (each with its own table), rows on both sides of chunk boundaries,
// and full-zip pages of long values.
func TestWriterFSSTRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name   string
		dt     arrow.DataType
		values []*string
		opts   WriterOptions
		pages  int // at least this many FSST pages
	}{
		{"text", arrow.BinaryTypes.String, strPtrs(5000, func(int) *string { return sp(fsstText(r, 10, 200)) }), WriterOptions{}, 1},
		{"nulls_and_empty", arrow.BinaryTypes.String, strPtrs(20000, func(i int) *string {
			switch i % 5 {
			case 0:
				return nil
			case 1:
				return sp("")
			}
			return sp(fmt.Sprintf("row %d: %s", i, fsstText(r, 1, 20)))
		}), WriterOptions{}, 1},
		{"utf8_runes", arrow.BinaryTypes.LargeString, strPtrs(10000, func(i int) *string {
			return sp(fmt.Sprintf("zürich-数据-🦀-%d-ÿ", i))
		}), WriterOptions{}, 1},
		{"100k_many_pages", arrow.BinaryTypes.String, strPtrs(100000, func(i int) *string {
			return sp(fmt.Sprintf("customer#%09d", i*7919%1000003))
		}), WriterOptions{PageBytes: 256 << 10}, 4},
		// Values just under the full-zip threshold: few per chunk.
		{"255_byte_values", arrow.BinaryTypes.String, strPtrs(400, func(int) *string { return sp(fsstText(r, 255, 255)) }), WriterOptions{}, 1},
		// Full-zip pages: long values, NULLs and empty strings among them.
		{"fullzip", arrow.BinaryTypes.String, strPtrs(3000, func(i int) *string {
			switch i % 6 {
			case 0:
				return nil
			case 1:
				return sp("")
			}
			return sp(fsstText(r, 256, 3000))
		}), WriterOptions{PageBytes: 1 << 20}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Written 1,000 rows a Write: pages are cut between writes.
			var recs []arrow.Record
			var as *arrow.Schema
			for lo := 0; lo < len(tc.values); lo += 1000 {
				var rec arrow.Record
				as, rec = stringRecord(t, "s", tc.dt, tc.values[lo:min(lo+1000, len(tc.values))])
				recs = append(recs, rec)
			}
			s := schemaFromArrow(t, as.Fields()...)
			data, _ := writeFile(t, s, tc.opts, recs...)
			pages := fsstPages(t, data)[0]
			n := 0
			for _, p := range pages {
				if strings.Contains(p, "fsst") {
					n++
				}
			}
			if n < tc.pages {
				t.Fatalf("%d FSST pages (%v), want at least %d", n, pages, tc.pages)
			}
			// Rows around chunk boundaries (chunks hold powers of two values) and scattered ones.
			var take []uint64
			for _, b := range []int{0, 1, 63, 64, 127, 128, 255, 256, 511, 512, 1023, 1024, 4095, 4096} {
				if b < len(tc.values) {
					take = append(take, uint64(b))
				}
			}
			for i := 0; i < 50; i++ {
				take = append(take, uint64(r.IntN(len(tc.values))))
			}
			take = append(take, uint64(len(tc.values)-1))
			slices.Sort(take)
			fsstReadBack(t, data, tc.values, take)
		})
	}
}

// TestWriterFSSTListOfStrings: the strings of a list<utf8> column are
// FSST-compressed with the rep/def levels beside them and read back.
func TestWriterFSSTListOfStrings(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	var want []string
	for i := 0; i < 8000; i++ {
		switch i % 7 {
		case 0:
			lb.AppendNull()
			want = append(want, "null")
			continue
		case 1:
			lb.Append(true)
			want = append(want, "[]")
			continue
		}
		lb.Append(true)
		var items []string
		for j := 0; j < i%4+1; j++ {
			if (i+j)%9 == 0 {
				vb.AppendNull()
				items = append(items, "null")
			} else {
				v := fmt.Sprintf("item-%d-%d", i, j)
				vb.Append(v)
				items = append(items, v)
			}
		}
		want = append(want, "["+strings.Join(items, ",")+"]")
	}
	rec := b.NewRecord()
	defer rec.Release()
	s := schemaFromArrow(t, as.Fields()...)
	data, sum := writeFile(t, s, WriterOptions{}, rec)
	if got := fsstPages(t, data)[0]; len(got) != 1 || got[0] != "miniblock/fsst(variable)" {
		t.Fatalf("pages %v", got)
	}
	ctx := context.Background()
	r, err := Open(ctx, BytesSource(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadRange(ctx, []int32{s.Fields[0].ID}, 0, sum.NumRows)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	l := got.Column(0).(*array.List)
	vals := l.ListValues().(*array.String)
	for i := range want {
		text := "null"
		if !l.IsNull(i) {
			s, e := l.ValueOffsets(i)
			var items []string
			for j := s; j < e; j++ {
				if vals.IsNull(int(j)) {
					items = append(items, "null")
				} else {
					items = append(items, vals.Value(int(j)))
				}
			}
			text = "[" + strings.Join(items, ",") + "]"
		}
		if text != want[i] {
			t.Fatalf("row %d: %s, want %s", i, text, want[i])
		}
	}
}

// columnBytes is what each column of a Lance 2.1 file takes: its page
// buffers and its column metadata (where the encodings, FSST symbol tables
// included, are stored).
func columnBytes(t testing.TB, data []byte) []int {
	t.Helper()
	r, err := Open(context.Background(), BytesSource(data))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, r.NumColumns())
	for c := range out {
		ci, err := r.column(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		out[c] = proto.Size(ci.meta)
		for _, p := range ci.pages {
			for _, b := range p.bufs {
				out[c] += int(b.Size)
			}
		}
	}
	return out
}

// ---------------------------------------------------------------- size against the peer

// fsstStringFileBytes writes values as a one-column NOT NULL utf8 file, 100,000
// rows a Write (as tpch-load.mjs hands them to the peer), and returns the
// column's bytes.
func fsstStringFileBytes(t testing.TB, values []string) int {
	t.Helper()
	as := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	s, err := lanceschema.FromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	s.AssignIDs()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < len(values); lo += 100000 {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues(values[lo:min(lo+100000, len(values))], nil)
		col := b.NewArray()
		rec := array.NewRecord(as, []arrow.Array{col}, int64(col.Len()))
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		col.Release()
		b.Release()
	}
	if _, err := w.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	return columnBytes(t, buf.Bytes())[0]
}

// fsstPeerStringBytes has the peer write values as a one-column NOT NULL utf8
// table (tpch-load.mjs: 100,000 rows a batch) and returns the column's bytes
// over its data files.
func fsstPeerStringBytes(t *testing.T, values []string) int {
	t.Helper()
	dir := t.TempDir()
	tsv := filepath.Join(dir, "s.tsv")
	if err := os.WriteFile(tsv, []byte(strings.Join(values, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal([]any{map[string]any{"name": "t", "file": tsv,
		"schema": map[string]any{"fields": []any{map[string]any{"name": "s", "type": "utf8", "nullable": false}}}}})
	specFile := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specFile, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := peer.Run(context.Background(), t, "tpch-load.mjs", filepath.Join(dir, "cat"), specFile); err != nil {
		t.Fatalf("tpch-load.mjs: %v (%s)", err, out)
	}
	total := 0
	for _, f := range rdDataFiles(t, filepath.Join(dir, "cat", "t.lance")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += columnBytes(t, data)[0]
	}
	return total
}

// TestWriterFSSTSizeVsPeer: a string column of 200,000 names ("name_<i>", the
// issue's table) takes at most 1.05x the bytes the peer's FSST pages take, and
// clearly less than without FSST. LANCECAT_FSST_TSV=file:col[,file:col...]
// adds columns of tab-separated files (e.g. TPC-H lineitem's l_comment, column
// 15 of the conformance/tpch generator's lineitem.tsv) to the logged figures.
func TestWriterFSSTSizeVsPeer(t *testing.T) {
	peer.Require(t)
	if testing.Short() {
		t.Skip("heavy peer case skipped in -short mode")
	}
	type column struct {
		name   string
		values []string
		check  bool
	}
	names := make([]string, 200000)
	for i := range names {
		names[i] = fmt.Sprintf("name_%d", i)
	}
	cols := []column{{"name (200,000 rows)", names, true}}
	if env := os.Getenv("LANCECAT_FSST_TSV"); env != "" {
		for _, spec := range strings.Split(env, ",") {
			path, colText, _ := strings.Cut(spec, ":")
			c, err := strconv.Atoi(colText)
			if err != nil {
				t.Fatalf("LANCECAT_FSST_TSV %q: %v", spec, err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var vals []string
			for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
				vals = append(vals, strings.Split(line, "\t")[c])
			}
			cols = append(cols, column{fmt.Sprintf("%s col %d (%d rows)", filepath.Base(path), c, len(vals)), vals, false})
		}
	}
	for _, c := range cols {
		raw := 0
		for _, v := range c.values {
			raw += len(v)
		}
		writerFSST = false
		before := fsstStringFileBytes(t, c.values)
		writerFSST = true
		after := fsstStringFileBytes(t, c.values)
		theirs := fsstPeerStringBytes(t, c.values)
		t.Logf("%s: %d value bytes; lancecat without FSST %d, with FSST %d; peer %d (%.3fx)",
			c.name, raw, before, after, theirs, float64(after)/float64(theirs))
		if c.check && (float64(after) > 1.05*float64(theirs) || after >= before) {
			t.Errorf("%s: %d bytes with FSST (%d without), peer %d", c.name, after, before, theirs)
		}
	}
}

// BenchmarkWriterStrings writes 200,000 names and 200,000 text values (two
// utf8 columns) per iteration, with and without FSST.
func BenchmarkWriterStrings(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	as := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}, {Name: "txt", Type: arrow.BinaryTypes.String}}, nil)
	s, err := lanceschema.FromArrow(as)
	if err != nil {
		b.Fatal(err)
	}
	s.AssignIDs()
	nb, tb := array.NewStringBuilder(memory.DefaultAllocator), array.NewStringBuilder(memory.DefaultAllocator)
	raw := 0
	for i := 0; i < 200000; i++ {
		v, txt := fmt.Sprintf("name_%d", i), fsstText(r, 10, 43)
		nb.Append(v)
		tb.Append(txt)
		raw += len(v) + len(txt)
	}
	nc, tc := nb.NewArray(), tb.NewArray()
	rec := array.NewRecord(as, []arrow.Array{nc, tc}, 200000)
	defer rec.Release()
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsst=%v", on), func(b *testing.B) {
			writerFSST = on
			defer func() { writerFSST = true }()
			var size int64
			for i := 0; i < b.N; i++ {
				w, err := NewWriter(io.Discard, s, WriterOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(context.Background(), rec); err != nil {
					b.Fatal(err)
				}
				sum, err := w.Finish(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				size = sum.Size
			}
			b.SetBytes(int64(raw))
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
}
