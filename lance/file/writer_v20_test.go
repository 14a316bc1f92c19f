package lancefile_test

// Tests of the Lance file format 2.0 writer: round trips through our own 2.0
// reader, the page encodings it chooses, and (peer tests) datasets stored as
// 2.0 that lancecat appends to or creates and the reference peer reads.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/arrowjson"
	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
	"github.com/lancecat/lancecat/lance/file/internal/enc20"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// ---------------------------------------------------------------- data

// v20AllTypes is a schema with every type the writer supports, nullable and
// not, nested lists and structs, and a column that is always null.
func v20AllTypes() *arrow.Schema {
	f := func(name string, dt arrow.DataType, nullable bool) arrow.Field {
		return arrow.Field{Name: name, Type: dt, Nullable: nullable}
	}
	item := func(dt arrow.DataType) arrow.Field { return f("item", dt, true) }
	return arrow.NewSchema([]arrow.Field{
		f("id", arrow.PrimitiveTypes.Int64, false),
		f("bool", arrow.FixedWidthTypes.Boolean, true),
		f("int8", arrow.PrimitiveTypes.Int8, true),
		f("int16", arrow.PrimitiveTypes.Int16, true),
		f("int32", arrow.PrimitiveTypes.Int32, true),
		f("int64", arrow.PrimitiveTypes.Int64, true),
		f("uint8", arrow.PrimitiveTypes.Uint8, true),
		f("uint16", arrow.PrimitiveTypes.Uint16, true),
		f("uint32", arrow.PrimitiveTypes.Uint32, true),
		f("uint64", arrow.PrimitiveTypes.Uint64, true),
		f("float16", arrow.FixedWidthTypes.Float16, true),
		f("float32", arrow.PrimitiveTypes.Float32, true),
		f("float64", arrow.PrimitiveTypes.Float64, true),
		f("utf8", arrow.BinaryTypes.String, true),
		f("large_utf8", arrow.BinaryTypes.LargeString, true),
		f("binary", arrow.BinaryTypes.Binary, true),
		f("large_binary", arrow.BinaryTypes.LargeBinary, true),
		f("date32", arrow.FixedWidthTypes.Date32, true),
		f("time64", arrow.FixedWidthTypes.Time64us, true),
		f("ts_s", &arrow.TimestampType{Unit: arrow.Second}, true),
		f("ts_ms", &arrow.TimestampType{Unit: arrow.Millisecond}, true),
		f("ts_us_utc", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, true),
		f("ts_ns", &arrow.TimestampType{Unit: arrow.Nanosecond}, true),
		f("dec", &arrow.Decimal128Type{Precision: 18, Scale: 2}, true),
		f("dec38", &arrow.Decimal128Type{Precision: 38, Scale: 10}, true),
		f("name", arrow.BinaryTypes.String, false),
		f("list_i32", arrow.ListOfField(item(arrow.PrimitiveTypes.Int32)), true),
		f("list_utf8", arrow.ListOfField(item(arrow.BinaryTypes.String)), true),
		f("large_list_i64", arrow.LargeListOfField(item(arrow.PrimitiveTypes.Int64)), true),
		f("list_list", arrow.ListOfField(item(arrow.ListOfField(item(arrow.PrimitiveTypes.Int16)))), true),
		f("struct", arrow.StructOf(
			f("a", arrow.PrimitiveTypes.Int32, true),
			f("b", arrow.BinaryTypes.String, true),
			f("c", arrow.ListOfField(item(arrow.PrimitiveTypes.Float64)), true),
			f("d", arrow.StructOf(f("x", arrow.FixedWidthTypes.Boolean, true)), true),
		), true),
		f("list_struct", arrow.ListOfField(item(arrow.StructOf(
			f("k", arrow.PrimitiveTypes.Int64, true),
			f("v", arrow.BinaryTypes.String, true),
		))), true),
		f("vector", arrow.FixedSizeListOfField(4, item(arrow.PrimitiveTypes.Float32)), true),
		f("all_null_i64", arrow.PrimitiveTypes.Int64, true),
		f("all_null_utf8", arrow.BinaryTypes.String, true),
		f("all_null_list", arrow.ListOfField(item(arrow.PrimitiveTypes.Int32)), true),
		f("all_null_struct", arrow.StructOf(f("z", arrow.PrimitiveTypes.Int32, true)), true),
		f("all_null_vector", arrow.FixedSizeListOfField(2, item(arrow.PrimitiveTypes.Float32)), true),
	}, nil)
}

// v20Gen fills records with deterministic values: extremes, nulls at every
// level (about one value in six), empty and null lists, and columns named
// all_null* that hold only nulls.
type v20Gen struct {
	rng  *rand.Rand
	next int64
}

func newV20Gen(seed uint64) *v20Gen { return &v20Gen{rng: rand.New(rand.NewPCG(seed, 7))} }

func (g *v20Gen) record(t testing.TB, schema *arrow.Schema, n int) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for r := 0; r < n; r++ {
		for i, f := range schema.Fields() {
			allNull := strings.HasPrefix(f.Name, "all_null")
			if f.Name == "id" {
				b.Field(i).(*array.Int64Builder).Append(g.next)
				continue
			}
			g.value(b.Field(i), f.Type, f.Nullable, allNull)
		}
		g.next++
	}
	return b.NewRecord()
}

func (g *v20Gen) value(b array.Builder, dt arrow.DataType, nullable, allNull bool) {
	if nullable && (allNull || g.rng.IntN(6) == 0) {
		b.AppendNull()
		return
	}
	k := g.rng.IntN(8) // 0, 1: extremes
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(g.rng.IntN(2) == 0)
	case *array.Int8Builder:
		bb.Append([]int8{math.MinInt8, math.MaxInt8, int8(g.rng.Uint32())}[min(k, 2)])
	case *array.Int16Builder:
		bb.Append(int16(g.rng.IntN(1 << 16)))
	case *array.Int32Builder:
		bb.Append([]int32{math.MinInt32, math.MaxInt32, int32(g.rng.Uint32())}[min(k, 2)])
	case *array.Int64Builder:
		bb.Append([]int64{math.MinInt64, math.MaxInt64, int64(g.rng.Uint64())}[min(k, 2)])
	case *array.Uint8Builder:
		bb.Append(uint8(g.rng.Uint32()))
	case *array.Uint16Builder:
		bb.Append(uint16(g.rng.Uint32()))
	case *array.Uint32Builder:
		bb.Append([]uint32{0, math.MaxUint32, g.rng.Uint32()}[min(k, 2)])
	case *array.Uint64Builder:
		bb.Append([]uint64{0, math.MaxUint64, g.rng.Uint64()}[min(k, 2)])
	case *array.Float16Builder:
		bb.Append(float16.New([]float32{-65504, 65504, float32(g.rng.NormFloat64() * 100)}[min(k, 2)]))
	case *array.Float32Builder:
		bb.Append([]float32{-math.MaxFloat32, float32(math.Inf(1)), float32(g.rng.NormFloat64())}[min(k, 2)])
	case *array.Float64Builder:
		bb.Append([]float64{-math.MaxFloat64, math.SmallestNonzeroFloat64, g.rng.NormFloat64() * 1e6}[min(k, 2)])
	case *array.StringBuilder:
		bb.Append(g.text(k))
	case *array.LargeStringBuilder:
		bb.Append(g.text(k))
	case *array.BinaryBuilder:
		bb.Append([]byte(g.text(k)))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(g.rng.IntN(2_900_000) - 719_162))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(g.rng.Int64N(86_400_000_000)))
	case *array.TimestampBuilder:
		// Years 1685..2255: inside what every unit (and the dump) can show.
		sec := g.rng.Int64N(18e9) - 9e9
		mul := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[dt.(*arrow.TimestampType).Unit]
		bb.Append(arrow.Timestamp(sec*mul + g.rng.Int64N(mul)))
	case *array.Decimal128Builder:
		p := dt.(*arrow.Decimal128Type).Precision
		lim := int64(math.Pow10(int(min(p, 18)))) - 1
		bb.Append(decimal128.FromI64(g.rng.Int64N(2*lim+1) - lim))
	case *array.ListBuilder, *array.LargeListBuilder:
		ll := bb.(array.ListLikeBuilder)
		elem := dt.(arrow.ListLikeType).ElemField()
		n := g.rng.IntN(5) // 0: an empty list
		ll.Append(true)
		for j := 0; j < n; j++ {
			g.value(ll.ValueBuilder(), elem.Type, elem.Nullable, false)
		}
	case *array.StructBuilder:
		bb.Append(true)
		st := dt.(*arrow.StructType)
		for j, cf := range st.Fields() {
			g.value(bb.FieldBuilder(j), cf.Type, cf.Nullable, false)
		}
	case *array.FixedSizeListBuilder:
		bb.Append(true)
		ft := dt.(*arrow.FixedSizeListType)
		for j := 0; j < int(ft.Len()); j++ {
			g.value(bb.ValueBuilder(), ft.Elem(), ft.ElemField().Nullable, false)
		}
	default:
		panic(fmt.Sprintf("v20Gen: no generator for %T (%s)", b, dt))
	}
}

func (g *v20Gen) text(k int) string {
	switch k {
	case 0:
		return ""
	case 1:
		return strings.Repeat("long value ", 20+g.rng.IntN(20))
	}
	return fmt.Sprintf("v%d-ü-%x", g.next, g.rng.Uint32())
}

// ---------------------------------------------------------------- expectations

// jsonRows renders records in the dump convention (JSONL.md), parsed.
func jsonRows(t testing.TB, recs ...arrow.Record) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range recs {
		if err := arrowjson.WriteLines(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() == 0 {
		return nil
	}
	rows, err := peer.ParseRows(strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// as20 turns expected rows into what a 2.0 file holds: 2.0 stores no struct
// validity, so a null struct reads back as a struct whose children are null
// (Lance's own 2.0 files do the same).
func as20(schema *arrow.Schema, rows []map[string]any) []map[string]any {
	var fix func(v any, dt arrow.DataType) any
	fix = func(v any, dt arrow.DataType) any {
		switch t := dt.(type) {
		case *arrow.StructType:
			m, _ := v.(map[string]any)
			out := map[string]any{}
			for _, f := range t.Fields() {
				var cv any
				if m != nil {
					cv = m[f.Name]
				}
				out[f.Name] = fix(cv, f.Type)
			}
			return out
		case arrow.ListLikeType:
			l, ok := v.([]any)
			if !ok {
				return v
			}
			out := make([]any, len(l))
			for i, x := range l {
				out[i] = fix(x, t.Elem())
			}
			return out
		}
		return v
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		o := map[string]any{}
		for _, f := range schema.Fields() {
			o[f.Name] = fix(r[f.Name], f.Type)
		}
		out[i] = o
	}
	return out
}

func sameJSONRows(t testing.TB, what string, got, want []map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			for k := range want[i] {
				if !reflect.DeepEqual(got[i][k], want[i][k]) {
					g, _ := json.Marshal(got[i][k])
					w, _ := json.Marshal(want[i][k])
					t.Fatalf("%s: row %d column %q differs:\n got  %s\n want %s", what, i, k, g, w)
				}
			}
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Fatalf("%s: row %d differs:\n got  %s\n want %s", what, i, g, w)
		}
	}
}

// ---------------------------------------------------------------- file round trips

func lanceSchema(t testing.TB, as *arrow.Schema) *lanceschema.Schema {
	t.Helper()
	s, err := lanceschema.FromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	s.AssignIDs()
	return s
}

// writeV20 writes recs as one 2.0 file.
func writeV20(t testing.TB, s *lanceschema.Schema, pageBytes int, recs ...arrow.Record) ([]byte, lancefile.FileSummary) {
	t.Helper()
	var buf bytes.Buffer
	w, err := lancefile.NewWriter(&buf, s, lancefile.WriterOptions{Version: lancefile.V2_0, PageBytes: pageBytes})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := w.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Size != int64(buf.Len()) {
		t.Fatalf("summary size %d, file has %d bytes", sum.Size, buf.Len())
	}
	return buf.Bytes(), sum
}

func topIDs(s *lanceschema.Schema) []int32 {
	var ids []int32
	for _, f := range s.Fields {
		ids = append(ids, f.ID)
	}
	return ids
}

func TestWriterV20RoundTrip(t *testing.T) {
	as := v20AllTypes()
	s := lanceSchema(t, as)
	for _, tc := range []struct {
		name      string
		pageBytes int
		sizes     []int
	}{
		{"one page", 0, []int{300}},
		{"many writes", 0, []int{1, 0, 77, 300}},
		{"page per write", 1, []int{5, 1, 0, 64, 200}},
		{"small pages", 2048, []int{40, 40, 40, 40, 40, 40, 40, 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newV20Gen(42)
			var recs []arrow.Record
			for _, n := range tc.sizes {
				r := g.record(t, as, n)
				defer r.Release()
				recs = append(recs, r)
			}
			file, sum := writeV20(t, s, tc.pageBytes, recs...)
			total := 0
			for _, n := range tc.sizes {
				total += n
			}
			if sum.NumRows != uint64(total) || sum.Major != 2 || sum.Minor != 0 {
				t.Fatalf("summary %+v, want %d rows of version 2.0", sum, total)
			}
			var all []int32
			for _, f := range s.Flatten() {
				all = append(all, f.ID)
			}
			if !reflect.DeepEqual(sum.Fields, all) {
				t.Fatalf("summary fields %v, want every field in pre-order %v", sum.Fields, all)
			}
			for i, c := range sum.ColumnIndices {
				if c != int32(i) {
					t.Fatalf("column indices %v, want 0..%d", sum.ColumnIndices, len(all)-1)
				}
			}
			if tail := file[len(file)-8:]; !bytes.Equal(tail, []byte{0, 0, 3, 0, 'L', 'A', 'N', 'C'}) {
				t.Fatalf("footer ends % x, want 00 00 03 00 LANC", tail)
			}
			r, err := lancefile.Open(context.Background(), lancefile.BytesSource(file))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Version().Is20() || r.NumRows() != uint64(total) || r.NumColumns() != len(all) {
				t.Fatalf("reader: version %s, %d rows, %d columns", r.Version(), r.NumRows(), r.NumColumns())
			}
			want := as20(as, jsonRows(t, recs...))
			got, err := r.ReadRange(context.Background(), topIDs(s), 0, uint64(total))
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			sameJSONRows(t, "ReadRange", jsonRows(t, got), want)
			// Single rows spread over the pages.
			if total > 10 {
				take := []uint64{0, 3, 9, uint64(total / 2), uint64(total/2 + 1), uint64(total - 1)}
				tk, err := r.Take(context.Background(), topIDs(s), take)
				if err != nil {
					t.Fatal(err)
				}
				defer tk.Release()
				var sel []map[string]any
				for _, i := range take {
					sel = append(sel, want[i])
				}
				sameJSONRows(t, "Take", jsonRows(t, tk), sel)
			}
		})
	}
}

func TestWriterV20ZeroRows(t *testing.T) {
	as := v20AllTypes()
	s := lanceSchema(t, as)
	empty := newV20Gen(1).record(t, as, 0)
	defer empty.Release()
	for _, recs := range [][]arrow.Record{nil, {empty}} {
		file, sum := writeV20(t, s, 0, recs...)
		if sum.NumRows != 0 || len(sum.Fields) != len(s.Flatten()) {
			t.Fatalf("summary %+v", sum)
		}
		r, err := lancefile.Open(context.Background(), lancefile.BytesSource(file))
		if err != nil {
			t.Fatal(err)
		}
		if r.NumRows() != 0 || !r.Version().Is20() {
			t.Fatalf("%d rows, version %s", r.NumRows(), r.Version())
		}
		got, err := r.ReadRange(context.Background(), topIDs(s), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.NumRows() != 0 || got.NumCols() != int64(len(s.Fields)) {
			t.Fatalf("read %d rows, %d columns", got.NumRows(), got.NumCols())
		}
		got.Release()
	}
}

func TestWriterV20RejectsBadInput(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil)
	s := lanceSchema(t, as)
	var buf bytes.Buffer
	w, err := lancefile.NewWriter(&buf, s, lancefile.WriterOptions{Version: lancefile.V2_0})
	if err != nil {
		t.Fatal(err)
	}
	other := newV20Gen(1).record(t, arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String}}, nil), 3)
	defer other.Release()
	if err := w.Write(context.Background(), other); !errors.Is(err, lancefile.ErrInvalidArgument) {
		t.Fatalf("writing a utf8 column into an int32 field: %v, want ErrInvalidArgument", err)
	}
	good := newV20Gen(1).record(t, as, 3)
	defer good.Release()
	if err := w.Write(context.Background(), good); err != nil {
		t.Fatalf("a good record after a rejected one: %v", err)
	}
	sum, err := w.Finish(context.Background())
	if err != nil || sum.NumRows != 3 {
		t.Fatalf("Finish: %+v, %v", sum, err)
	}
	if _, err := w.Finish(context.Background()); !errors.Is(err, lancefile.ErrWriterClosed) {
		t.Fatalf("second Finish: %v", err)
	}
	// A type the 2.0 writer does not support.
	ns := lanceSchema(t, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.Null, Nullable: true}}, nil))
	if _, err := lancefile.NewWriter(&buf, ns, lancefile.WriterOptions{Version: lancefile.V2_0}); !errors.Is(err, lancefile.ErrInvalidArgument) {
		t.Fatalf("null-typed field: %v, want ErrInvalidArgument", err)
	}
	if _, err := lancefile.NewWriter(&buf, s, lancefile.WriterOptions{Version: lancefile.Version{Major: 2, Minor: 9}}); !errors.Is(err, lancefile.ErrUnsupportedVersion) {
		t.Fatalf("version 2.9: %v, want ErrUnsupportedVersion", err)
	}
}

// v20Columns parses the column metadata of a file.
func v20Columns(t testing.TB, file []byte) []*file2pb.ColumnMetadata {
	t.Helper()
	f, err := lancefile.ParseFooter(file, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var cols []*file2pb.ColumnMetadata
	for i := 0; i < int(f.NumColumns); i++ {
		e := file[f.ColumnMetaOffsetsStart+16*uint64(i):]
		pos, size := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
		cm := &file2pb.ColumnMetadata{}
		if err := proto.Unmarshal(file[pos:pos+size], cm); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, cm)
	}
	return cols
}

// TestWriterV20PageEncodings pins the encodings the writer picks to the ones
// the peer's own 2.0 files use (see the types-v2.0 fixture): nullable
// (no/some/all nulls) around flat, binary with u64 end indices and a null
// adjustment, list offsets with a null offset adjustment, a data-less struct
// header page, nullable fixed_size_list; buffers 64-byte aligned, priority 0.
func TestWriterV20PageEncodings(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "an", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32), Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, as, strings.NewReader(`[
		{"n": 1, "i": 1,    "an": null, "s": "a",  "l": [1, 2],    "st": {"a": 1}, "v": [1, 2], "b": true},
		{"n": 2, "i": null, "an": null, "s": null, "l": null,      "st": null,     "v": null,   "b": false},
		{"n": 3, "i": 3,    "an": null, "s": "",   "l": [],        "st": {"a": 3}, "v": [3, 4], "b": true},
		{"n": 4, "i": 4,    "an": null, "s": "dd", "l": [3],       "st": {"a": 4}, "v": [5, 6], "b": true},
		{"n": 5, "i": 5,    "an": null, "s": "e",  "l": [4, 5, 6], "st": {"a": 5}, "v": [7, 8], "b": false}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	s := lanceSchema(t, as)
	file, _ := writeV20(t, s, 0, rec)
	cols := v20Columns(t, file)
	flat := func(bits, buf int) string {
		b := "{}"
		if buf > 0 {
			b = fmt.Sprintf(`{"bufferIndex": %d}`, buf)
		}
		return fmt.Sprintf(`{"flat": {"bitsPerValue": "%d", "buffer": %s}}`, bits, b)
	}
	noNulls := func(v string) string { return `{"nullable": {"noNulls": {"values": ` + v + `}}}` }
	someNulls := func(v string) string {
		return `{"nullable": {"someNulls": {"validity": ` + flat(1, 0) + `, "values": ` + v + `}}}`
	}
	// Columns in pre-order: n, i, an, s, l, l.item, st, st.a, v, b.
	want := []struct {
		rows uint64
		enc  string
		bufs []int // buffer sizes
	}{
		{5, noNulls(flat(64, 0)), []int{40}},
		{5, someNulls(flat(32, 1)), []int{1, 20}},
		{5, `{"nullable": {"allNulls": {}}}`, nil},
		{5, `{"binary": {"indices": ` + noNulls(flat(64, 0)) + `, "bytes": ` + flat(8, 1) + `, "nullAdjustment": "5"}}`, []int{40, 4}},
		{5, `{"list": {"offsets": ` + noNulls(flat(64, 0)) + `, "nullOffsetAdjustment": "7", "numItems": "6"}}`, []int{40}},
		{6, noNulls(flat(32, 0)), []int{24}},
		{5, `{"struct": {}}`, nil},
		{5, someNulls(flat(32, 1)), []int{1, 20}},
		// arrow fills the items of a null list with nulls: the items get a
		// validity too (the fixture's vector column looks the same).
		{5, someNulls(`{"fixedSizeList": {"dimension": 2, "items": {"nullable": {"someNulls": {"validity": ` + flat(1, 1) + `, "values": ` + flat(32, 2) + `}}}}}`), []int{1, 2, 40}},
		{5, noNulls(flat(1, 0)), []int{1}},
	}
	if len(cols) != len(want) {
		t.Fatalf("%d columns, want %d", len(cols), len(want))
	}
	for c, w := range want {
		if len(cols[c].Pages) != 1 {
			t.Fatalf("column %d: %d pages, want 1", c, len(cols[c].Pages))
		}
		p := cols[c].Pages[0]
		enc, err := enc20.ParseArrayEncoding(p.Encoding)
		if err != nil {
			t.Fatal(err)
		}
		gotJSON, _ := protojson.Marshal(enc)
		var got, exp any
		if err := json.Unmarshal(gotJSON, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(w.enc), &exp); err != nil {
			t.Fatalf("column %d: bad expectation: %v", c, err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("column %d encoding:\n got  %s\n want %s", c, gotJSON, w.enc)
		}
		if p.Length != w.rows || p.Priority != 0 {
			t.Errorf("column %d: page of %d rows, priority %d; want %d rows, priority 0", c, p.Length, p.Priority, w.rows)
		}
		var sizes []int
		for i, off := range p.BufferOffsets {
			if off%64 != 0 {
				t.Errorf("column %d buffer %d at %d: not 64-byte aligned", c, i, off)
			}
			sizes = append(sizes, int(p.BufferSizes[i]))
		}
		if !reflect.DeepEqual(sizes, w.bufs) {
			t.Errorf("column %d buffer sizes %v, want %v", c, sizes, w.bufs)
		}
	}
	u64s := func(c, b int) []uint64 {
		p := cols[c].Pages[0]
		raw := file[p.BufferOffsets[b] : p.BufferOffsets[b]+p.BufferSizes[b]]
		out := make([]uint64, len(raw)/8)
		for i := range out {
			out[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
		return out
	}
	// String ends (a null adds the null adjustment 5) and list ends (a
	// null adds 7; the empty list ends where the previous one did).
	if got := u64s(3, 0); !reflect.DeepEqual(got, []uint64{1, 1 + 5, 1, 3, 4}) {
		t.Errorf("binary indices %v", got)
	}
	if got := u64s(4, 0); !reflect.DeepEqual(got, []uint64{2, 2 + 7, 2, 3, 6}) {
		t.Errorf("list offsets %v", got)
	}
}

// ---------------------------------------------------------------- peer

// peerTypeJSON spells an Arrow type in the peer's schema notation (JSONL.md).
func v20PeerType(dt arrow.DataType) any {
	field := func(f arrow.Field) map[string]any {
		return map[string]any{"name": f.Name, "type": v20PeerType(f.Type), "nullable": f.Nullable}
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
		return map[string]any{"fixed_size_list": field(t.ElemField()), "size": t.Len()}
	case *arrow.StructType:
		var fs []any
		for _, f := range t.Fields() {
			fs = append(fs, field(f))
		}
		return map[string]any{"struct": fs}
	}
	return dt.Name()
}

func v20PeerSchema(as *arrow.Schema) map[string]any {
	var fs []any
	for _, f := range as.Fields() {
		fs = append(fs, map[string]any{"name": f.Name, "type": v20PeerType(f.Type), "nullable": f.Nullable})
	}
	return map[string]any{"fields": fs}
}

// withoutFields drops top-level fields (types the peer's JSON notation or
// row builder cannot express).
func withoutFields(as *arrow.Schema, names ...string) *arrow.Schema {
	var fs []arrow.Field
	for _, f := range as.Fields() {
		drop := false
		for _, n := range names {
			drop = drop || f.Name == n
		}
		if !drop {
			fs = append(fs, f)
		}
	}
	return arrow.NewSchema(fs, nil)
}

func openStore(t testing.TB, dir string) storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func scanRows(t testing.TB, d *dataset.Dataset) []map[string]any {
	t.Helper()
	recs, err := d.ScanAll(context.Background(), dataset.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return jsonRows(t, recs...)
}

func peerRows(t testing.TB, dir string) []map[string]any {
	t.Helper()
	rows, err := peer.Dump(context.Background(), t, dir, peer.DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkFiles20 checks every data file of d is a 2.0 file (manifest and
// footer) that owns a column for every field, in pre-order.
func checkFiles20(t testing.TB, dir string, d *dataset.Dataset) {
	t.Helper()
	var all []int32
	for _, f := range d.Schema().Flatten() {
		all = append(all, f.ID)
	}
	for _, fr := range d.Fragments() {
		for _, df := range fr.Files {
			if df.FileMajor != 2 || df.FileMinor != 0 {
				t.Fatalf("fragment %d file %s: version %d.%d, want 2.0", fr.ID, df.Path, df.FileMajor, df.FileMinor)
			}
			if !reflect.DeepEqual(df.Fields, all) {
				t.Fatalf("fragment %d: fields %v, want %v", fr.ID, df.Fields, all)
			}
			b, err := os.ReadFile(filepath.Join(dir, "data", df.Path))
			if err != nil {
				t.Fatal(err)
			}
			if tail := b[len(b)-8:]; !bytes.Equal(tail, []byte{0, 0, 3, 0, 'L', 'A', 'N', 'C'}) {
				t.Fatalf("%s: footer ends % x, want 00 00 03 00 LANC", df.Path, tail)
			}
		}
	}
}

// TestWriterV20PeerReadsAppend: the peer creates an empty 2.0 table,
// lancecat appends rows of every type, the peer reads every row back
// identically and appends more, lancecat reads everything back, and the data
// files of both record the same fields and column indices.
func TestWriterV20PeerReadsAppend(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	// time64 has no spelling in the peer's schema notation and arrow-js
	// cannot build large_list (TestWriterV20AppendToPeerFixture covers it).
	as := withoutFields(v20AllTypes(), "time64", "large_list_i64")
	root := t.TempDir()
	var created map[string]any
	if err := peer.Op(ctx, t, "createEmptyTable", map[string]any{
		"uri": root, "name": "t", "manifestEnabled": false, "schema": v20PeerSchema(as), "dataStorageVersion": "2.0",
	}, &created); err != nil {
		t.Fatalf("peer createEmptyTable: %v", err)
	}
	dir := filepath.Join(root, "t.lance")
	d, err := dataset.Open(ctx, openStore(t, dir), "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Manifest().DataFormat.Version; v != "2.0" {
		t.Fatalf("peer table has data storage version %q, want 2.0", v)
	}
	ds, err := d.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	g := newV20Gen(7)
	r1, r2 := g.record(t, ds, 700), g.record(t, ds, 3)
	defer r1.Release()
	defer r2.Release()
	d, err = d.Append(ctx, []arrow.RecordBatch{r1, r2})
	if err != nil {
		t.Fatalf("lancecat append to a 2.0 dataset: %v", err)
	}
	checkFiles20(t, dir, d)
	want := as20(ds, jsonRows(t, r1, r2))
	sameJSONRows(t, "peer read of lancecat's append", peerRows(t, dir), want)

	// The peer appends to the same table: the first 50 rows as it printed
	// them.
	more, err := peer.DumpLines(ctx, t, dir, peer.DumpOptions{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var added map[string]any
	if err := peer.Op(ctx, t, "dataset.add", map[string]any{"path": dir, "rows": json.RawMessage("[" + strings.Join(more, ",") + "]")}, &added); err != nil {
		t.Fatalf("peer add: %v", err)
	}
	d, err = d.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, want[:50]...)
	sameJSONRows(t, "lancecat read after the peer's append", scanRows(t, d), want)
	sameJSONRows(t, "peer read after its append", peerRows(t, dir), want)
	if n := len(d.Fragments()); n < 2 {
		t.Fatalf("%d fragments, want lancecat's and the peer's", n)
	}
	ours, theirs := d.Fragments()[0].Files[0], d.Fragments()[len(d.Fragments())-1].Files[0]
	if !reflect.DeepEqual(ours.Fields, theirs.Fields) || !reflect.DeepEqual(ours.ColumnIndices, theirs.ColumnIndices) ||
		ours.FileMajor != theirs.FileMajor || ours.FileMinor != theirs.FileMinor {
		t.Fatalf("lancecat's data file records fields %v columns %v version %d.%d; the peer's %v %v %d.%d",
			ours.Fields, ours.ColumnIndices, ours.FileMajor, ours.FileMinor, theirs.Fields, theirs.ColumnIndices, theirs.FileMajor, theirs.FileMinor)
	}
	checkFiles20(t, dir, d)
}

// TestWriterV20PeerReadsCreate: lancecat creates a 2.0 dataset with data
// (CreateWithData, DataStorageVersion "2.0"); the peer opens it as 2.0 and
// reads every row, and appends to it.
func TestWriterV20PeerReadsCreate(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	as := v20AllTypes()
	dir := filepath.Join(t.TempDir(), "c.lance")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g := newV20Gen(11)
	r1, r2 := g.record(t, as, 1), g.record(t, as, 400)
	defer r1.Release()
	defer r2.Release()
	d, err := dataset.CreateWithData(ctx, openStore(t, dir), "", as, []arrow.RecordBatch{r1, r2}, dataset.CreateOptions{DataStorageVersion: "2.0"})
	if err != nil {
		t.Fatalf("CreateWithData 2.0: %v", err)
	}
	checkFiles20(t, dir, d)
	want := as20(as, jsonRows(t, r1, r2))
	sameJSONRows(t, "lancecat read of its 2.0 dataset", scanRows(t, d), want)
	// The peer's dump cannot print time64: compare the other columns, and
	// time64 through a filter the peer evaluates.
	var cols []string
	for _, f := range as.Fields() {
		if f.Name != "time64" {
			cols = append(cols, f.Name)
		}
	}
	got, err := peer.Dump(ctx, t, dir, peer.DumpOptions{Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range want {
		delete(r, "time64")
	}
	sameJSONRows(t, "peer read of lancecat's 2.0 dataset", got, want)
	var opened struct {
		Rows json.Number `json:"rows"`
	}
	if err := peer.Op(ctx, t, "dataset.open", map[string]any{"path": dir}, &opened); err != nil {
		t.Fatal(err)
	}
	if opened.Rows.String() != "401" {
		t.Fatalf("peer counts %s rows, want 401", opened.Rows)
	}
	tcol := r2.Column(as.FieldIndices("time64")[0]).(*array.Time64)
	noon, nulls := 0, r1.Column(as.FieldIndices("time64")[0]).NullN()+tcol.NullN()
	for _, rec := range []arrow.Record{r1, r2} {
		c := rec.Column(as.FieldIndices("time64")[0]).(*array.Time64)
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) && c.Value(i) < 43_200_000_000 {
				noon++
			}
		}
	}
	// Three exact values, found by id.
	var exact []string
	for i := 0; i < tcol.Len() && len(exact) < 3; i++ {
		if tcol.IsValid(i) {
			id := r2.Column(0).(*array.Int64).Value(i)
			exact = append(exact, fmt.Sprintf("(id = %d AND CAST(time64 AS BIGINT) = %d)", id, tcol.Value(i)))
		}
	}
	for where, n := range map[string]int{"time64 IS NULL": nulls, "CAST(time64 AS BIGINT) < 43200000000": noon, strings.Join(exact, " OR "): len(exact)} {
		var cnt struct {
			Rows json.Number `json:"rows"`
		}
		if err := peer.Op(ctx, t, "dataset.countRows", map[string]any{"path": dir, "where": where}, &cnt); err != nil {
			t.Fatalf("peer countRows %s: %v", where, err)
		}
		if cnt.Rows.String() != fmt.Sprint(n) {
			t.Fatalf("peer counts %s rows where %s, want %d", cnt.Rows, where, n)
		}
	}
}

// TestWriterV20AppendToPeerFixture: lancecat reads every row of the peer's
// 2.0 fixture (all types, dictionary and all-null pages, list<struct>, ...)
// and appends them again as its own 2.0 file; the peer reads both copies
// identically.
func TestWriterV20AppendToPeerFixture(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := peer.FixtureCopy(t, "types-v2.0")
	d, err := dataset.Open(ctx, openStore(t, dir), "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
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
	sameJSONRows(t, "lancecat read of the fixture", jsonRows(t, recs...), before)
	d, err = d.Append(ctx, recs)
	if err != nil {
		t.Fatalf("append to the peer's 2.0 fixture: %v", err)
	}
	want := append(append([]map[string]any{}, before...), before...)
	sameJSONRows(t, "peer read after lancecat's append", peerRows(t, dir), want)
	sameJSONRows(t, "lancecat read after its append", scanRows(t, d), want)
}

// TestWriterV20PeerReadsMultiPage: fields large enough to be cut into
// several pages (list<struct> whose items pages follow its offsets pages
// under one struct header page, a struct whose child is paged) read back
// identically in the peer.
func TestWriterV20PeerReadsMultiPage(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ls", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
		)), Nullable: true},
		{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		), Nullable: true},
	}, nil)
	big := func(first, n int) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, as)
		defer b.Release()
		ls := b.Field(1).(*array.ListBuilder)
		item := ls.ValueBuilder().(*array.StructBuilder)
		st := b.Field(2).(*array.StructBuilder)
		for r := first; r < first+n; r++ {
			b.Field(0).(*array.Int64Builder).Append(int64(r))
			switch r % 9 {
			case 4:
				ls.AppendNull()
			case 5:
				ls.Append(true) // empty
			default:
				ls.Append(true)
				for j := 0; j < 5; j++ {
					item.Append(true)
					item.FieldBuilder(0).(*array.Int64Builder).Append(int64(r*10 + j))
					item.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("%d-%d-%s", r, j, strings.Repeat("x", 1400)))
				}
			}
			if r%7 == 3 {
				st.AppendNull() // appends nulls to the children too
			} else {
				st.Append(true)
				st.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprintf("%d%s", r, strings.Repeat("y", 5500)))
				st.FieldBuilder(1).(*array.Float64Builder).Append(float64(r) / 3)
			}
		}
		return b.NewRecord()
	}
	recs := []arrow.Record{big(0, 1000), big(1000, 1000), big(2000, 100)}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	dir := filepath.Join(t.TempDir(), "m.lance")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := dataset.CreateWithData(ctx, openStore(t, dir), "", as, recs, dataset.CreateOptions{DataStorageVersion: "2.0"})
	if err != nil {
		t.Fatal(err)
	}
	checkFiles20(t, dir, d)
	file, err := os.ReadFile(filepath.Join(dir, "data", d.Fragments()[0].Files[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	// Columns: id, ls, ls.item (struct header), k, v, st (header), label, x.
	cols := v20Columns(t, file)
	for c, n := range map[int]int{1: 2, 2: 1, 3: 2, 4: 2, 5: 1, 6: 2, 7: 2} {
		if got := len(cols[c].Pages); got != n {
			t.Fatalf("column %d has %d pages, want %d", c, got, n)
		}
	}
	want := jsonRows(t, recs...)
	sameJSONRows(t, "peer read of a multi-page 2.0 file", peerRows(t, dir), as20(as, want))
	sameJSONRows(t, "lancecat read of a multi-page 2.0 file", scanRows(t, d), as20(as, want))
}

// BenchmarkWriterV20 writes 64Ki rows of every supported type per iteration.
func BenchmarkWriterV20(b *testing.B) {
	as := v20AllTypes()
	s := lanceSchema(b, as)
	rec := newV20Gen(3).record(b, as, 1<<16)
	defer rec.Release()
	b.ResetTimer()
	var size int64
	for i := 0; i < b.N; i++ {
		w, err := lancefile.NewWriter(io.Discard, s, lancefile.WriterOptions{Version: lancefile.V2_0})
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
	b.SetBytes(size)
	b.ReportMetric(float64(rec.NumRows()*int64(b.N))/b.Elapsed().Seconds(), "rows/s")
}
