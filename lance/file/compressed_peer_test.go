package lancefile

// General (LZ4 / zstd) buffer compression against the reference peer: the peer writes a 2.1
// dataset whose fields carry "lance-encoding:compression" metadata (conformance/peer/gen-compressed.mjs),
// the test proves from the page encodings that the peer really applied general compression with
// both schemes, and then compares every row and column read by this package with the peer's read.

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
)

// ccEncodingName renders a CompressiveEncoding tree as text, e.g.
// "general[zstd](fsst(variable(flat)))": the oneof case names, general ones with their scheme.
func ccEncodingName(e *enc21pb.CompressiveEncoding) string {
	if e == nil {
		return "-"
	}
	m := e.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("compression")
	fd := m.WhichOneof(od)
	if fd == nil {
		return "<unset>"
	}
	name := string(fd.Name())
	if g, ok := e.Compression.(*enc21pb.CompressiveEncoding_General); ok {
		s := strings.TrimPrefix(g.General.GetCompression().GetScheme().String(), "COMPRESSION_ALGORITHM_")
		name += "[" + strings.ToLower(s) + "]"
	}
	var kids []string
	ccNested(m.Get(fd).Message(), func(c *enc21pb.CompressiveEncoding) { kids = append(kids, ccEncodingName(c)) })
	if len(kids) > 0 {
		name += "(" + strings.Join(kids, ",") + ")"
	}
	return name
}

// ccNested calls f for every CompressiveEncoding directly below m (not below those).
func ccNested(m protoreflect.Message, f func(*enc21pb.CompressiveEncoding)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		visit := func(x protoreflect.Message) {
			if c, ok := x.Interface().(*enc21pb.CompressiveEncoding); ok {
				f(c)
			} else {
				ccNested(x, f)
			}
		}
		if fd.IsList() {
			for i := 0; i < v.List().Len(); i++ {
				visit(v.List().Get(i).Message())
			}
		} else {
			visit(v.Message())
		}
		return true
	})
}

// ccPageName describes a 2.1 page layout: its kind and the compressions of its buffers.
func ccPageName(l *enc21pb.PageLayout) string {
	switch x := l.Layout.(type) {
	case *enc21pb.PageLayout_MiniBlockLayout:
		mb := x.MiniBlockLayout
		s := "mini-block value=" + ccEncodingName(mb.ValueCompression)
		if mb.Dictionary != nil {
			s += " dict=" + ccEncodingName(mb.Dictionary)
		}
		if mb.RepCompression != nil || mb.DefCompression != nil {
			s += " rep=" + ccEncodingName(mb.RepCompression) + " def=" + ccEncodingName(mb.DefCompression)
		}
		return s
	case *enc21pb.PageLayout_FullZipLayout:
		return "full-zip value=" + ccEncodingName(x.FullZipLayout.ValueCompression)
	case *enc21pb.PageLayout_ConstantLayout:
		return "constant"
	case *enc21pb.PageLayout_BlobLayout:
		return "blob"
	}
	return "<unknown layout>"
}

// ccPageEncodings returns, per top-level field name, the distinct page descriptions of the columns
// of every data file of the dataset at dir.
func ccPageEncodings(t *testing.T, dir string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	m := rdLatestManifest(t, dir)
	seen := map[string]map[string]bool{}
	for _, frag := range m.Fragments {
		for _, df := range frag.Files {
			r := rdOpenFile(t, filepath.Join(dir, "data", df.Path))
			for _, top := range r.Schema().Fields {
				var leaves []int32
				for _, f := range r.Schema().Flatten() {
					if f.ID == top.ID || ccIsBelow(r, f.ID, top.ID) {
						leaves = append(leaves, f.ID)
					}
				}
				for _, id := range leaves {
					c := r.ColumnIndex(id)
					if c < 0 {
						continue
					}
					ci, err := r.column(ctx, c)
					if err != nil {
						t.Fatalf("%s column %d: %v", df.Path, c, err)
					}
					for _, pg := range ci.pages {
						if seen[top.Name] == nil {
							seen[top.Name] = map[string]bool{}
						}
						seen[top.Name][ccPageName(pg.layout)] = true
					}
				}
			}
		}
	}
	out := map[string][]string{}
	for name, s := range seen {
		for d := range s {
			out[name] = append(out[name], d)
		}
		sort.Strings(out[name])
	}
	return out
}

// ccIsBelow reports whether field id is a descendant of field top.
func ccIsBelow(r *Reader, id, top int32) bool {
	parent := map[int32]int32{}
	for _, f := range r.Schema().Flatten() {
		parent[f.ID] = f.ParentID
	}
	for p, ok := parent[id]; ok && p >= 0; p, ok = parent[p] {
		if p == top {
			return true
		}
	}
	return false
}

// TestReaderPeerGeneralCompression: the peer writes ~20,000 rows x 21 columns with LZ4 and zstd
// compression metadata (int64, float64 with and without byte stream split, RLE int32, short utf8,
// long utf8 in full-zip pages, binary, list<utf8>, fixed_size_list<float32>[16], dictionary utf8,
// with nulls); the page encodings must show general compression with both schemes in mini-block
// pages and zstd in full-zip pages (the peer ignores "lz4" there), and every row must read as the peer reads it (floats compared
// as raw bits).
func TestReaderPeerGeneralCompression(t *testing.T) {
	peer.Require(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "compressed")
	out, err := peer.Run(ctx, t, "gen-compressed.mjs", dir, "20000")
	if err != nil {
		t.Fatalf("gen-compressed.mjs: %v", err)
	}
	t.Logf("peer wrote: %s", strings.TrimSpace(string(out)))

	// 1. What the peer wrote.
	enc := ccPageEncodings(t, dir)
	names := make([]string, 0, len(enc))
	for n := range enc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-14s %s", n, strings.Join(enc[n], " | "))
	}
	// The encodings the peer (Lance 8.0.0) picks for this data, each of which must appear so that
	// the comparison below exercises it: general compression wraps the inner mini-block encoding
	// (flat, byte stream split, RLE, variable; also dictionary indices) with the scheme the field
	// asks for; full-zip pages compress each value on its own, always with zstd.
	required := []string{
		"mini-block value=general[lz4](flat)",
		"mini-block value=general[zstd](flat)",
		"mini-block value=general[lz4](byte_stream_split(flat))",
		"mini-block value=general[zstd](byte_stream_split(flat))",
		"mini-block value=general[lz4](rle(flat,flat))",
		"mini-block value=general[zstd](rle(flat,flat))",
		"mini-block value=general[lz4](variable(flat))",
		"mini-block value=general[zstd](variable(flat))",
		"mini-block value=general[lz4](byte_stream_split(flat)) dict=variable(flat)",
		"mini-block value=general[zstd](byte_stream_split(flat)) dict=variable(flat)",
		"full-zip value=general[zstd](variable(flat))",
	}
	for _, want := range required {
		ok := false
		for _, n := range names {
			for _, d := range enc[n] {
				ok = ok || strings.HasPrefix(d, want)
			}
		}
		if !ok {
			t.Errorf("no page encoded as %q: the peer did not write what this test is meant to exercise", want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// 2. Every row and column, read by us and by the peer.
	ours := rdReadDataset(t, dir)
	if ours.numRows() != 20000 {
		t.Fatalf("we read %d rows, want 20000", ours.numRows())
	}
	var floatCols, otherCols []string
	for i, n := range ours.names {
		var typ arrow.DataType
		for _, f := range ours.frags {
			if f.cols[i] != nil {
				typ = f.cols[i].DataType()
			}
		}
		if typ != nil && rdHasFloat(typ) {
			floatCols = append(floatCols, n)
		} else {
			otherCols = append(otherCols, n)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var otherLines []string
	var floatOut []byte
	var otherErr, floatErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		otherLines, otherErr = peer.DumpLines(ctx, t, dir, peer.DumpOptions{Columns: otherCols})
	}()
	go func() {
		defer wg.Done()
		floatOut, floatErr = peer.Run(ctx, t, "../../lance/file/testdata/floatbits.mjs", abs, strings.Join(floatCols, ","))
	}()
	wg.Wait()
	if err := errors.Join(otherErr, floatErr); err != nil {
		t.Fatalf("peer read: %v", err)
	}
	rdCompareLines(t, ours, otherCols, false, otherLines)
	rdCompareLines(t, ours, floatCols, true, strings.Split(strings.TrimSuffix(string(floatOut), "\n"), "\n"))
	t.Logf("%d rows equal: %d columns as text, %d float columns (%v) as bits", ours.numRows(), len(otherCols), len(floatCols), floatCols)
}
