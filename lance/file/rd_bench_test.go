package lancefile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// rdDataFiles lists the data files of a dataset directory.
func rdDataFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "data", "*.lance"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rdEncodings names every page layout and compressive encoding message used by the pages of
// the file at path (e.g. "MiniBlockLayout", "InlineBitpacking", "Fsst"), with counts.
func rdEncodings(t testing.TB, path string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() == nil || fd.IsMap() {
				return true
			}
			if fd.Message().Name() == "CompressiveEncoding" && !fd.IsList() {
				seen[string(fd.Name())]++ // the role: value_compression, dictionary, rep_compression, ...
			}
			if fd.IsList() {
				for i := 0; i < v.List().Len(); i++ {
					seen[string(fd.Message().Name())]++
					walk(v.List().Get(i).Message())
				}
				return true
			}
			seen[string(fd.Message().Name())]++
			walk(v.Message())
			return true
		})
	}
	r := rdOpenFile(t, path)
	for c := 0; c < r.NumColumns(); c++ {
		ci, err := r.column(context.Background(), c)
		if err != nil {
			t.Fatalf("%s column %d: %v", path, c, err)
		}
		for _, pg := range ci.pages {
			walk(pg.layout.ProtoReflect())
		}
	}
	return seen
}

// TestReaderFixturesCoverEncodings: the encodings the peer comparisons (TestReaderPeer*) and the
// fuzz seeds rely on are really present in the committed types-1000 fixture, so those tests
// exercise them (a fixture regenerated with other encodings fails here, not silently).
func TestReaderFixturesCoverEncodings(t *testing.T) {
	seen := map[string]int{}
	for _, f := range rdDataFiles(t, peer.Fixture(t, "types-1000")) {
		for k, v := range rdEncodings(t, f) {
			seen[k] += v
		}
	}
	var names []string
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	t.Logf("types-1000 encodings: %v", seen)
	for _, want := range rdTypesEncodings {
		if seen[want] == 0 {
			t.Errorf("types-1000 has no %s page/encoding (has %s)", want, strings.Join(names, ", "))
		}
	}
}

// rdTypesEncodings are the layouts, compressions and compression roles the peer wrote into
// types-1000. (No fixture holds General (LZ4/zstd) buffer compression: Lance 8.0 does not choose
// it by default.)
var rdTypesEncodings = []string{
	"MiniBlockLayout", "FullZipLayout", "ConstantLayout",
	"Flat", "Variable", "InlineBitpacking", "OutOfLineBitpacking", "Fsst", "Rle", "FixedSizeList",
	"dictionary", "rep_compression", "def_compression", "run_lengths",
}

// rdFieldFiles splits the Lance 2.1 file raw into standalone files, one per top-level field (its
// columns, page buffers, column metadata and a file descriptor of that field alone), and, when
// the field's columns have several pages with the same row counts, one per page. Small, valid
// files that each hold one encoding: seeds for the fuzz targets.
func rdFieldFiles(t testing.TB, raw []byte) []rdFieldFile {
	t.Helper()
	ctx := context.Background()
	r, err := Open(ctx, BytesSource(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []rdFieldFile
	for _, f := range r.Schema().Fields {
		var cols []int
		var walk func(fl *lanceschema.Field)
		walk = func(fl *lanceschema.Field) {
			if c, ok := r.fieldColumn[fl.ID]; ok {
				cols = append(cols, c)
			}
			for _, ch := range fl.Children {
				walk(ch)
			}
		}
		walk(f)
		sort.Ints(cols)
		metas := make([]*file2pb.ColumnMetadata, len(cols))
		for i, c := range cols {
			ref := r.colMetaRefs[c]
			metas[i] = &file2pb.ColumnMetadata{}
			if err := proto.Unmarshal(raw[ref.Position:ref.Position+ref.Size], metas[i]); err != nil {
				t.Fatal(err)
			}
		}
		schema := &lanceschema.Schema{Fields: []*lanceschema.Field{f}, Metadata: r.Schema().Metadata}
		out = append(out, rdFieldFile{rdBuildFile(t, raw, schema, metas, r.NumRows(), -1), 0})
		nPages := len(metas[0].Pages)
		same := nPages > 1
		for _, m := range metas {
			if len(m.Pages) != nPages {
				same = false
				break
			}
			for p := range m.Pages {
				same = same && m.Pages[p].Length == metas[0].Pages[p].Length
			}
		}
		var start uint64
		for p := 0; same && p < nPages; p++ {
			out = append(out, rdFieldFile{rdBuildFile(t, raw, schema, metas, metas[0].Pages[p].Length, p), start})
			start += metas[0].Pages[p].Length
		}
	}
	return out
}

type rdFieldFile struct {
	data     []byte
	firstRow uint64 // row of the source file the first row comes from
}

// rdBuildFile writes a 2.1 file with the given columns (page == -1: all pages; else only that
// page), copying their buffers from raw.
func rdBuildFile(t testing.TB, raw []byte, schema *lanceschema.Schema, metas []*file2pb.ColumnMetadata, rows uint64, page int) []byte {
	return rdBuildFileWith(t, raw, schema, metas, rows, page, nil, nil)
}

// rdBuildFileWith is rdBuildFile with replacements: buf(c, p, i) (when non-nil and returning
// non-nil) replaces buffer i of page p of column c, meta(c) replaces column c's metadata bytes.
func rdBuildFileWith(t testing.TB, raw []byte, schema *lanceschema.Schema, metas []*file2pb.ColumnMetadata, rows uint64, page int,
	buf func(c, p, i int) []byte, meta func(c int) []byte) []byte {
	t.Helper()
	var data []byte
	place := func(b []byte) uint64 {
		for len(data)%PageBufferAlignment != 0 {
			data = append(data, 0)
		}
		pos := uint64(len(data))
		data = append(data, b...)
		return pos
	}
	var newMetas [][]byte
	for c, m := range metas {
		m = proto.Clone(m).(*file2pb.ColumnMetadata)
		if page >= 0 {
			m.Pages = m.Pages[page : page+1]
		}
		for pi, p := range m.Pages {
			for i := range p.BufferOffsets {
				b := raw[p.BufferOffsets[i] : p.BufferOffsets[i]+p.BufferSizes[i]]
				if buf != nil {
					if nb := buf(c, pi, i); nb != nil {
						b = nb
					}
				}
				p.BufferOffsets[i], p.BufferSizes[i] = place(b), uint64(len(b))
			}
		}
		for i := range m.BufferOffsets {
			m.BufferOffsets[i] = place(raw[m.BufferOffsets[i] : m.BufferOffsets[i]+m.BufferSizes[i]])
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if meta != nil {
			if nb := meta(c); nb != nil {
				b = nb
			}
		}
		newMetas = append(newMetas, b)
	}
	fields, md := schema.Proto()
	desc, err := proto.Marshal(&tablepb.FileDescriptor{Schema: &tablepb.Schema{Fields: fields, Metadata: md}, Length: rows})
	if err != nil {
		t.Fatal(err)
	}
	for len(data)%PageBufferAlignment != 0 {
		data = append(data, 0)
	}
	gb := BufferRef{uint64(len(data)), uint64(len(desc))}
	data = append(data, desc...)
	cmStart := uint64(len(data))
	var refs []BufferRef
	for _, b := range newMetas {
		refs = append(refs, BufferRef{uint64(len(data)), uint64(len(b))})
		data = append(data, b...)
	}
	cmoStart := uint64(len(data))
	data = AppendOffsetTable(data, refs)
	gboStart := uint64(len(data))
	data = AppendOffsetTable(data, []BufferRef{gb})
	return AppendFooter(data, Footer{
		ColumnMetaStart: cmStart, ColumnMetaOffsetsStart: cmoStart, GlobalBuffOffsetsStart: gboStart,
		NumGlobalBuffers: 1, NumColumns: uint32(len(metas)), Version: V2_1,
	})
}

// TestReaderFieldFilesReadLikeTheirSource: the per-field files built for the fuzz seeds are
// valid Lance files holding the same values as the fixture they come from (so the seeds reach the
// page decoders instead of failing early).
func TestReaderFieldFilesReadLikeTheirSource(t *testing.T) {
	ctx := context.Background()
	for _, path := range rdDataFiles(t, peer.Fixture(t, "types-1000")) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src := rdOpenFile(t, path)
		for _, ff := range rdFieldFiles(t, raw) {
			r, err := Open(ctx, BytesSource(ff.data))
			if err != nil {
				t.Fatalf("field file: %v", err)
			}
			f := r.Schema().Fields[0]
			got, err := r.ReadRange(ctx, []int32{f.ID}, 0, r.NumRows())
			if err != nil {
				t.Fatalf("field %s: %v", f.Name, err)
			}
			want, err := src.ReadRange(ctx, []int32{f.ID}, ff.firstRow, ff.firstRow+r.NumRows())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(rdRows(got), rdRows(want), slices.Equal) {
				t.Errorf("field file of %s (rows %d+%d) does not read like its source", f.Name, ff.firstRow, r.NumRows())
			}
			got.Release()
			want.Release()
		}
	}
}

// BenchmarkReadTypes100k reads every column of the types-100000 fixture, one column at a time.
func BenchmarkReadTypes100k(b *testing.B) {
	files := rdDataFiles(b, peer.Fixture(b, "types-100000"))
	var raws [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, raw := range raws {
			r, err := Open(ctx, BytesSource(raw))
			if err != nil {
				b.Fatal(err)
			}
			for _, fl := range r.Schema().Fields {
				rec, err := r.ReadRange(ctx, []int32{fl.ID}, 0, r.NumRows())
				if err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
		}
	}
}
