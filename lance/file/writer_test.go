package lancefile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

func schemaFromArrow(t *testing.T, fields ...arrow.Field) *lanceschema.Schema {
	t.Helper()
	s, err := lanceschema.FromArrow(arrow.NewSchema(fields, nil))
	if err != nil {
		t.Fatal(err)
	}
	s.AssignIDs()
	return s
}

// fileLayouts parses a written file's footer and returns, per column, the
// page layouts (independently of the package's reader).
func fileLayouts(t *testing.T, data []byte) ([][]*enc21pb.PageLayout, *tablepb.FileDescriptor) {
	t.Helper()
	ft, err := ParseFooter(data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if ft.Version != V2_1 {
		t.Fatalf("footer version %v", ft.Version)
	}
	var cols [][]*enc21pb.PageLayout
	for c := 0; c < int(ft.NumColumns); c++ {
		e := data[ft.ColumnMetaOffsetsStart+uint64(c)*16:]
		pos, size := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
		cm := &file2pb.ColumnMetadata{}
		if err := proto.Unmarshal(data[pos:pos+size], cm); err != nil {
			t.Fatal(err)
		}
		var pages []*enc21pb.PageLayout
		for _, p := range cm.Pages {
			for i, off := range p.BufferOffsets {
				if off%PageBufferAlignment != 0 || off+p.BufferSizes[i] > ft.ColumnMetaStart {
					t.Fatalf("column %d: buffer at %d+%d not aligned or outside data", c, off, p.BufferSizes[i])
				}
			}
			a := &anypb.Any{}
			if err := proto.Unmarshal(p.Encoding.GetDirect().GetEncoding(), a); err != nil {
				t.Fatal(err)
			}
			if a.TypeUrl != writerPageLayoutURL {
				t.Fatalf("page type url %q", a.TypeUrl)
			}
			l := &enc21pb.PageLayout{}
			if err := proto.Unmarshal(a.Value, l); err != nil {
				t.Fatal(err)
			}
			pages = append(pages, l)
		}
		cols = append(cols, pages)
	}
	e := data[ft.GlobalBuffOffsetsStart:]
	pos, size := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
	fd := &tablepb.FileDescriptor{}
	if err := proto.Unmarshal(data[pos:pos+size], fd); err != nil {
		t.Fatal(err)
	}
	return cols, fd
}

func layoutName(l *enc21pb.PageLayout) string {
	switch x := l.Layout.(type) {
	case *enc21pb.PageLayout_MiniBlockLayout:
		if x.MiniBlockLayout.Dictionary != nil {
			return "miniblock/dict[" + compressionName(x.MiniBlockLayout.Dictionary) + "](" + compressionName(x.MiniBlockLayout.ValueCompression) + ")"
		}
		return "miniblock/" + compressionName(x.MiniBlockLayout.ValueCompression)
	case *enc21pb.PageLayout_FullZipLayout:
		return "fullzip/" + compressionName(x.FullZipLayout.ValueCompression)
	case *enc21pb.PageLayout_ConstantLayout:
		return "allnull"
	}
	return "?"
}

func compressionName(c *enc21pb.CompressiveEncoding) string {
	switch x := c.Compression.(type) {
	case *enc21pb.CompressiveEncoding_Flat:
		return "flat"
	case *enc21pb.CompressiveEncoding_Variable:
		return "variable"
	case *enc21pb.CompressiveEncoding_FixedSizeList:
		return "fsl(" + compressionName(x.FixedSizeList.Values) + ")"
	case *enc21pb.CompressiveEncoding_Fsst:
		return "fsst(" + compressionName(x.Fsst.Values) + ")"
	case *enc21pb.CompressiveEncoding_InlineBitpacking:
		return "bitpack"
	case *enc21pb.CompressiveEncoding_OutOfLineBitpacking:
		return "bitpack-out-of-line"
	case *enc21pb.CompressiveEncoding_Rle:
		return "rle"
	}
	return "?"
}

func TestWriterLayoutsChosen(t *testing.T) {
	s := schemaFromArrow(t,
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "long", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "v", Type: arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float32), Nullable: true},
		arrow.Field{Name: "bigv", Type: arrow.FixedSizeListOf(256, arrow.PrimitiveTypes.Float32), Nullable: true},
		arrow.Field{Name: "nulls", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	)
	rows := `[{"i": 1, "b": true, "s": "x", "long": "` + strings.Repeat("z", 300) + `", "v": [1,2,3,4], "bigv": [` +
		strings.TrimSuffix(strings.Repeat("1,", 256), ",") + `], "nulls": null, "st": {"x": null}, "l": []},
		{"i": 2, "b": null, "s": null, "long": null, "v": null, "bigv": null, "nulls": null, "st": null, "l": null}]`
	rec := recordFromJSON(t, s, rows)
	data, sum := writeFile(t, s, WriterOptions{}, rec)
	cols, fd := fileLayouts(t, data)
	want := []string{"miniblock/flat", "miniblock/flat", "miniblock/variable", "fullzip/variable",
		"miniblock/fsl(flat)", "fullzip/fsl(flat)", "allnull", "allnull", "allnull"}
	if len(cols) != len(want) {
		t.Fatalf("%d columns, want %d", len(cols), len(want))
	}
	for i, w := range want {
		if len(cols[i]) != 1 || layoutName(cols[i][0]) != w {
			t.Errorf("column %d: layout %v, want %s", i, cols[i], w)
		}
	}
	// The struct child is not a bare top-level column: its all-null page keeps def levels.
	if got := cols[7][0].GetConstantLayout().GetLayers(); len(got) != 2 {
		t.Errorf("struct child all-null layers %v", got)
	}
	if fd.Length != 2 || len(fd.Schema.Fields) != len(s.Flatten()) {
		t.Errorf("file descriptor: %d rows, %d fields", fd.Length, len(fd.Schema.Fields))
	}
	wantFields := []int32{0, 1, 2, 3, 4, 5, 6, 8, 10}
	if !equalInt32(sum.Fields, wantFields) || !equalInt32(sum.ColumnIndices, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("summary fields %v columns %v", sum.Fields, sum.ColumnIndices)
	}
	if sum.NumRows != 2 || sum.Major != 2 || sum.Minor != 1 {
		t.Errorf("summary %+v", sum)
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWriterRejectsBadInput(t *testing.T) {
	s := schemaFromArrow(t,
		arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
		arrow.Field{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: false}), Nullable: true},
	)
	ctx := context.Background()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := recordFromJSON(t, s, `[{"k": 1, "st": {"x": 1}}, {"k": 2, "st": null}]`)
	if err := w.Write(ctx, good); err != nil {
		t.Fatal(err)
	}
	bad := []arrow.Record{
		recordFromJSON(t, s, `[{"k": null, "st": null}]`),
		recordFromJSON(t, s, `[{"k": 3, "st": {"x": null}}]`),
	}
	other := schemaFromArrow(t, arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int32})
	bad = append(bad, recordFromJSON(t, other, `[{"k": 1}]`))
	wrongType := schemaFromArrow(t,
		arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32})})
	bad = append(bad, recordFromJSON(t, wrongType, `[{"k": 1, "st": null}]`))
	for i, r := range bad {
		if err := w.Write(ctx, r); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("bad record %d: err %v, want ErrInvalidArgument", i, err)
		}
	}
	sum, err := w.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.NumRows != 2 {
		t.Errorf("rejected records changed the file: %d rows", sum.NumRows)
	}
	if err := w.Write(ctx, good); !errors.Is(err, ErrWriterClosed) {
		t.Errorf("write after finish: %v", err)
	}
	for _, v := range []Version{{2, 3}, {9, 9}, legacyV0_2} {
		if _, err := NewWriter(&buf, s, WriterOptions{Version: v}); !errors.Is(err, ErrUnsupportedVersion) {
			t.Errorf("writing version %s: %v, want ErrUnsupportedVersion", v, err)
		}
	}
	fslStr := schemaFromArrow(t, arrow.Field{Name: "m", Type: arrow.FixedSizeListOf(2, arrow.BinaryTypes.String)})
	if _, err := NewWriter(&buf, fslStr, WriterOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("fixed_size_list<utf8>: %v, want ErrInvalidArgument", err)
	}
}

func TestWriterZeroRows(t *testing.T) {
	s := schemaFromArrow(t,
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true})
	as, _ := s.ToArrow()
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	empty := b.NewRecord()
	defer empty.Release()
	data, sum := writeFile(t, s, WriterOptions{}, empty, empty)
	cols, fd := fileLayouts(t, data)
	if sum.NumRows != 0 || fd.Length != 0 || len(cols) != 2 || len(cols[0]) != 0 || len(cols[1]) != 0 {
		t.Errorf("zero-row file: rows %d/%d, columns %v", sum.NumRows, fd.Length, cols)
	}
}

// TestMiniBlockRepIndex checks the repetition index against hand-computed
// rows per chunk, including rows that span chunks.
func TestMiniBlockRepIndex(t *testing.T) {
	// chunk 0: rows start at 0 and 3 (row 1 continues into chunk 1)
	// chunk 1: continuation, then rows at 2 and 4
	// chunk 2 (last): starts with a new row
	idx := appendRepIndex(nil, []uint16{1, 0, 0, 1, 0}, 1, 0, false)
	idx = appendRepIndex(idx, []uint16{0, 0, 1, 0, 1}, 1, 1, false)
	idx = appendRepIndex(idx, []uint16{1, 0}, 1, 2, true)
	want := []uint64{1, 2, 3, 0, 1, 0} // 5 rows in all
	if len(idx) != len(want) {
		t.Fatalf("index %v", idx)
	}
	for i := range want {
		if idx[i] != want[i] {
			t.Fatalf("index %v, want %v", idx, want)
		}
	}
}

// arrowTypeOf converts the JSONL.md schema notation used by the interop cases
// into an arrow type, so the cases also run without the peer.
func arrowTypeOf(t *testing.T, typ any) arrow.DataType {
	t.Helper()
	switch x := typ.(type) {
	case string:
		prims := map[string]arrow.DataType{
			"bool": arrow.FixedWidthTypes.Boolean, "int8": arrow.PrimitiveTypes.Int8, "int16": arrow.PrimitiveTypes.Int16,
			"int32": arrow.PrimitiveTypes.Int32, "int64": arrow.PrimitiveTypes.Int64, "uint8": arrow.PrimitiveTypes.Uint8,
			"uint16": arrow.PrimitiveTypes.Uint16, "uint32": arrow.PrimitiveTypes.Uint32, "uint64": arrow.PrimitiveTypes.Uint64,
			"float16": arrow.FixedWidthTypes.Float16, "float32": arrow.PrimitiveTypes.Float32, "float64": arrow.PrimitiveTypes.Float64,
			"utf8": arrow.BinaryTypes.String, "large_utf8": arrow.BinaryTypes.LargeString, "binary": arrow.BinaryTypes.Binary,
			"large_binary": arrow.BinaryTypes.LargeBinary, "date32": arrow.FixedWidthTypes.Date32,
			"timestamp[s]": arrow.FixedWidthTypes.Timestamp_s, "timestamp[ms]": arrow.FixedWidthTypes.Timestamp_ms,
			"timestamp[us]": &arrow.TimestampType{Unit: arrow.Microsecond}, "timestamp[ns, tz=UTC]": arrow.FixedWidthTypes.Timestamp_ns,
			"decimal128(10,2)": &arrow.Decimal128Type{Precision: 10, Scale: 2},
		}
		if dt, ok := prims[x]; ok {
			return dt
		}
	case map[string]any:
		if l, ok := x["list"]; ok {
			return arrow.ListOfField(arrowFieldOf(t, l.(f)))
		}
		if l, ok := x["fixed_size_list"]; ok {
			return arrow.FixedSizeListOfField(int32(x["size"].(int)), arrowFieldOf(t, l.(f)))
		}
		if fs, ok := x["struct"]; ok {
			var out []arrow.Field
			for _, c := range fs.([]f) {
				out = append(out, arrowFieldOf(t, c))
			}
			return arrow.StructOf(out...)
		}
	}
	t.Fatalf("no arrow type for %v", typ)
	return nil
}

func arrowFieldOf(t *testing.T, fl f) arrow.Field {
	nullable := true
	if n, ok := fl["nullable"].(bool); ok {
		nullable = n
	}
	return arrow.Field{Name: fl["name"].(string), Type: arrowTypeOf(t, fl["type"]), Nullable: nullable}
}

// TestWriterRoundTripOwnReader writes every interop case and reads it back
// with this package's reader (whole file and a Take of scattered rows).
func TestWriterRoundTripOwnReader(t *testing.T) {
	ctx := context.Background()
	for _, tc := range interopCases() {
		t.Run(tc.name, func(t *testing.T) {
			var fields []arrow.Field
			for _, fl := range tc.schema["fields"].([]f) {
				fields = append(fields, arrowFieldOf(t, fl))
			}
			s := schemaFromArrow(t, fields...)
			var recs []arrow.Record
			for _, b := range tc.batches {
				recs = append(recs, recordFromJSON(t, s, b))
			}
			data, sum := writeFile(t, s, tc.opts, recs...)
			r, err := Open(ctx, BytesSource(data))
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			var ids []int32
			for _, fl := range s.Fields {
				ids = append(ids, fl.ID)
			}
			got, err := r.ReadRange(ctx, ids, 0, sum.NumRows)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			defer got.Release()
			want := expectedRows(t, recs...)
			compareRows(t, expectedRows(t, got), want)
			if sum.NumRows > 3 {
				rows := []uint64{0, sum.NumRows / 2, sum.NumRows / 2, sum.NumRows - 1}
				took, err := r.Take(ctx, ids, rows)
				if err != nil {
					t.Fatalf("take: %v", err)
				}
				defer took.Release()
				var wantTake []map[string]any
				for _, i := range rows {
					wantTake = append(wantTake, want[i])
				}
				compareRows(t, expectedRows(t, took), wantTake)
			}
		})
	}
}

// TestWriterSparseListsFallBackToFullZip: more than 65535 rep/def levels in
// what would be one mini-block chunk cannot be stored there; full-zip is used.
func TestWriterSparseListsFallBackToFullZip(t *testing.T) {
	var tc interopCase
	for _, c := range interopCases() {
		if c.name == "sparse_lists_fullzip_fallback" {
			tc = c
		}
	}
	s := schemaFromArrow(t, arrowFieldOf(t, tc.schema["fields"].([]f)[0]), arrowFieldOf(t, tc.schema["fields"].([]f)[1]))
	data, _ := writeFile(t, s, WriterOptions{}, recordFromJSON(t, s, tc.batches[0]))
	cols, _ := fileLayouts(t, data)
	for i, c := range cols {
		if len(c) != 1 || !strings.HasPrefix(layoutName(c[0]), "fullzip/") {
			t.Errorf("column %d: %s, want full-zip", i, layoutName(c[0]))
		}
	}
}

// TestWriterParallelEncodeSameBytes: the writer encodes the columns of a
// batch on several goroutines (forEachLeaf); the file must be byte for
// byte the one a single goroutine writes (pages in column order), for
// every interop case (their shapes, options and page cuts).
func TestWriterParallelEncodeSameBytes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range interopCases() {
		t.Run(tc.name, func(t *testing.T) {
			var fields []arrow.Field
			for _, fl := range tc.schema["fields"].([]f) {
				fields = append(fields, arrowFieldOf(t, fl))
			}
			s := schemaFromArrow(t, fields...)
			var recs []arrow.Record
			for _, b := range tc.batches {
				recs = append(recs, recordFromJSON(t, s, b))
			}
			runtime.GOMAXPROCS(1)
			serial, _ := writeFile(t, s, tc.opts, recs...)
			runtime.GOMAXPROCS(4)
			parallel, _ := writeFile(t, s, tc.opts, recs...)
			if !bytes.Equal(serial, parallel) {
				t.Fatalf("%d columns: parallel encoding wrote %d bytes that differ from the serial %d", len(s.Fields), len(parallel), len(serial))
			}
		})
	}
}

// TestForEachLeafReportsFirstError: a failing column fails the call with
// the error of the first failing leaf in order, and every leaf ran.
func TestForEachLeafReportsFirstError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	lis := []int{0, 1, 2, 3, 4, 5, 6, 7}
	var ran [8]atomic.Bool
	errA, errB := errors.New("leaf 3"), errors.New("leaf 6")
	err := forEachLeaf(lis, func(li int) error {
		ran[li].Store(true)
		switch li {
		case 3:
			return errA
		case 6:
			return errB
		}
		return nil
	})
	if err != errA {
		t.Fatalf("error %v, want %v", err, errA)
	}
	for li := range ran {
		if !ran[li].Load() {
			t.Errorf("leaf %d did not run", li)
		}
	}
}
