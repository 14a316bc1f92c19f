package enc20

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/lancecat/lancecat/lance/internal/pb/enc20pb"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// memFile is a minimal 2.0 container over bytes, for tests of this package
// alone (package lancefile, the real container, imports this one). edit may
// rewrite a column's metadata before the decoder sees it.
type memFile struct {
	b       []byte
	footer  [5]uint64 // column meta start, cmo table, gbo table, #global, #columns
	cols    []Range
	globals []Range
	schema  *lanceschema.Schema
	colOf   map[int32]int
	rows    uint64
	edit    func(col int, cm *file2pb.ColumnMetadata)
}

func openMem(t testing.TB, b []byte) *memFile {
	t.Helper()
	f := &memFile{b: b, colOf: map[int32]int{}}
	tail := b[len(b)-40:]
	le := binary.LittleEndian
	f.footer = [5]uint64{le.Uint64(tail), le.Uint64(tail[8:]), le.Uint64(tail[16:]), uint64(le.Uint32(tail[24:])), uint64(le.Uint32(tail[28:]))}
	if le.Uint16(tail[32:]) != 0 || le.Uint16(tail[34:]) != 3 {
		t.Fatalf("not a 2.0 file")
	}
	for i := uint64(0); i < f.footer[4]; i++ {
		o := f.footer[1] + 16*i
		f.cols = append(f.cols, Range{le.Uint64(b[o:]), le.Uint64(b[o+8:])})
	}
	for i := uint64(0); i < f.footer[3]; i++ {
		o := f.footer[2] + 16*i
		f.globals = append(f.globals, Range{le.Uint64(b[o:]), le.Uint64(b[o+8:])})
	}
	var fd tablepb.FileDescriptor
	g := f.globals[0]
	if err := proto.Unmarshal(b[g.Position:g.Position+g.Size], &fd); err != nil {
		t.Fatal(err)
	}
	s, err := lanceschema.FromProto(fd.Schema.Fields, fd.Schema.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	f.schema, f.rows = s, fd.Length
	for i, fl := range s.Flatten() { // 2.0: one column per field, pre-order
		f.colOf[fl.ID] = i
	}
	return f
}

func (f *memFile) ColumnIndex(id int32) int {
	if c, ok := f.colOf[id]; ok {
		return c
	}
	return -1
}

func (f *memFile) ColumnMetadata(_ context.Context, c int) (*file2pb.ColumnMetadata, error) {
	r := f.cols[c]
	var cm file2pb.ColumnMetadata
	if err := proto.Unmarshal(f.b[r.Position:r.Position+r.Size], &cm); err != nil {
		return nil, err
	}
	if f.edit != nil {
		f.edit(c, &cm)
	}
	return &cm, nil
}

func (f *memFile) DataEnd() uint64 { return f.footer[0] }

func (f *memFile) ReadRanges(_ context.Context, rs []Range) ([][]byte, error) {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		if r.Position > uint64(len(f.b)) || r.Size > uint64(len(f.b))-r.Position {
			return nil, fmt.Errorf("range outside file")
		}
		out[i] = f.b[r.Position : r.Position+r.Size]
	}
	return out, nil
}

func (f *memFile) GlobalBuffer(_ context.Context, i int) ([]byte, error) {
	if i < 0 || i >= len(f.globals) {
		return nil, fmt.Errorf("no global buffer %d", i)
	}
	g := f.globals[i]
	return f.b[g.Position : g.Position+g.Size], nil
}

func fixtureFiles(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "conformance", "testdata", "fixtures", "types-v2.0", "data", "*.lance"))
	if err != nil || len(m) == 0 {
		t.Skipf("types-v2.0 fixture not found: %v", err)
	}
	return m
}

// mainFixture is the fixture's data file holding most columns.
func mainFixture(t testing.TB) *memFile {
	t.Helper()
	var best *memFile
	for _, p := range fixtureFiles(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := openMem(t, b)
		if best == nil || len(f.cols) > len(best.cols) {
			best = f
		}
	}
	return best
}

func readAllFields(f *memFile) ([]arrow.Array, error) {
	out, err := Read(context.Background(), f, f.schema.Fields, [][2]uint64{{0, f.rows}}, f.rows)
	return out, err
}

func encodingOf(e *enc20pb.ArrayEncoding) *file2pb.Encoding {
	v, _ := proto.Marshal(e)
	a, _ := proto.Marshal(&anypb.Any{TypeUrl: "type.googleapis.com/lance.encodings.ArrayEncoding", Value: v})
	return &file2pb.Encoding{Location: &file2pb.Encoding_Direct{Direct: &file2pb.DirectEncoding{Encoding: a}}}
}

// editPage rewrites the array encoding of page 0 of the column of field name.
func editPage(f *memFile, name string, fn func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding)) {
	var col = -1
	for _, fl := range f.schema.Flatten() {
		if fl.Name == name && col < 0 {
			col = f.colOf[fl.ID]
		}
	}
	f.edit = func(c int, cm *file2pb.ColumnMetadata) {
		if c != col {
			return
		}
		p := cm.Pages[0]
		e, err := ParseArrayEncoding(p.Encoding)
		if err != nil {
			panic(err)
		}
		fn(p, e)
		p.Encoding = encodingOf(e)
	}
}

func TestMemFileReadsFixture(t *testing.T) {
	f := mainFixture(t)
	cols, err := readAllFields(f)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(cols)
	if len(cols) != len(f.schema.Fields) || cols[0].Len() != int(f.rows) {
		t.Fatalf("read %d columns of %d rows", len(cols), cols[0].Len())
	}
}

// TestCorruptPages: each edit makes one page inconsistent; reading the
// file must fail with ErrCorrupt (not panic, not allocate what the page
// claims).
func TestCorruptPages(t *testing.T) {
	flat := func(e *enc20pb.ArrayEncoding) *enc20pb.Flat {
		for e != nil {
			switch x := e.ArrayEncoding.(type) {
			case *enc20pb.ArrayEncoding_Flat:
				return x.Flat
			case *enc20pb.ArrayEncoding_Nullable:
				if s := x.Nullable.GetSomeNulls(); s != nil {
					e = s.Values
				} else {
					e = x.Nullable.GetNoNulls().GetValues()
				}
			default:
				return nil
			}
		}
		return nil
	}
	cases := []struct {
		name  string
		field string
		edit  func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding)
	}{
		{"page buffer shorter than values", "int64", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			p.BufferSizes[1] = 100
		}},
		{"page claims more rows than its buffer", "int32", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			p.Length = 1 << 40
		}},
		{"buffer outside the data", "int16", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			p.BufferOffsets[1] = 1 << 50
		}},
		{"missing page buffer", "uint8", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			p.BufferOffsets, p.BufferSizes = p.BufferOffsets[:1], p.BufferSizes[:1]
		}},
		{"bit width of another type", "uint16", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			flat(e).BitsPerValue = 64
		}},
		{"zero bit width", "float64", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			flat(e).BitsPerValue = 0
		}},
		{"binary null adjustment below the offsets", "utf8", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetBinary().NullAdjustment = 5
		}},
		{"binary bytes shorter than the offsets", "binary", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			p.BufferSizes[1] = 3
		}},
		{"dictionary with fewer items than indices use", "low_card", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetDictionary().NumDictionaryItems = 2
		}},
		{"dictionary claims 4 billion items", "low_card", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetDictionary().NumDictionaryItems = 1<<32 - 1
		}},
		{"list null adjustment zero", "list_i32", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetList().NullOffsetAdjustment = 0
		}},
		{"list offsets beyond its items", "list_utf8", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetList().NumItems = 10
		}},
		{"list items beyond the item column", "item", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			p.Length = 100 // the first "item" field: list_i32's items
		}},
		{"fixed-size list of another dimension", "vector", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetNullable().GetSomeNulls().GetValues().GetFixedSizeList().Dimension = 9
		}},
		{"struct header with data encoding", "struct", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.ArrayEncoding = &enc20pb.ArrayEncoding_Flat{Flat: &enc20pb.Flat{BitsPerValue: 8}}
		}},
		{"encoding missing", "id", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.ArrayEncoding = nil
		}},
		{"compression of a huge claimed size", "utf8", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
			e.GetBinary().Bytes.GetFlat().Compression = &enc20pb.Compression{Scheme: "lz4"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mainFixture(t)
			editPage(f, tc.field, tc.edit)
			cols, err := readAllFields(f)
			if err == nil {
				releaseAll(cols)
				t.Fatal("read succeeded")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
		})
	}
}

func TestUnsupportedEncodingsAreTyped(t *testing.T) {
	f := mainFixture(t)
	editPage(f, "int64", func(p *file2pb.ColumnMetadata_Page, e *enc20pb.ArrayEncoding) {
		e.ArrayEncoding = &enc20pb.ArrayEncoding_Constant{Constant: &enc20pb.Constant{Value: []byte{1}}}
	})
	cols, err := readAllFields(f)
	if err == nil {
		releaseAll(cols)
		t.Fatal("read succeeded")
	}
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "Constant") {
		t.Fatalf("error %v", err)
	}
}

// TestByteFlipsNeverPanic flips bytes all over the data and metadata of the
// fixture file and reads everything: errors are fine, panics are not.
func TestByteFlipsNeverPanic(t *testing.T) {
	orig := mainFixture(t).b
	for i := 0; i < 250; i++ {
		b := append([]byte(nil), orig...)
		pos := (i*7919 + i*i*31) % (len(b) - 40)
		b[pos] ^= byte(1 << (i % 8))
		if i%3 == 0 {
			b[(pos*13)%(len(b)-40)] = 0xFF
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("flip at %d: panic %v", pos, r)
				}
			}()
			f := openMemLenient(b)
			if f == nil {
				return
			}
			if cols, err := readAllFields(f); err == nil {
				releaseAll(cols)
			}
		}()
	}
}

// openMemLenient is openMem that returns nil for a container it cannot parse
// (the container is package lancefile's business, not this package's).
func openMemLenient(b []byte) (f *memFile) {
	defer func() {
		if recover() != nil {
			f = nil
		}
	}()
	tb := &silentTB{}
	f = openMem(tb, b)
	for _, r := range append(append([]Range(nil), f.cols...), f.globals...) {
		if r.Position > uint64(len(b)) || r.Size > uint64(len(b))-r.Position {
			return nil
		}
	}
	return f
}

type silentTB struct{ testing.TB }

func (*silentTB) Helper()               {}
func (*silentTB) Fatal(args ...any)     { panic("fatal") }
func (*silentTB) Fatalf(string, ...any) { panic("fatal") }
