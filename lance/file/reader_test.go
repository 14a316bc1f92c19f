package lancefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/internal/pb/file2pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// rdFileOf returns the single data file of a one-fragment dataset.
func rdFileOf(t testing.TB, dir string) string {
	t.Helper()
	m := rdLatestManifest(t, dir)
	if len(m.Fragments) == 0 || len(m.Fragments[0].Files) == 0 {
		t.Fatalf("%s has no data files", dir)
	}
	return filepath.Join(dir, "data", m.Fragments[0].Files[0].Path)
}

// rdRows renders every value of rec (JSONL.md text, floats as exact bits).
func rdRows(rec arrow.Record) [][]string {
	out := make([][]string, rec.NumRows())
	for i := range out {
		for c := 0; c < int(rec.NumCols()); c++ {
			out[i] = append(out[i], string(rdAppendValue(nil, rec.Column(c), i, true)))
		}
	}
	return out
}

// TestReaderProjectionRangesTake checks that projections, row ranges that
// cross page and chunk boundaries, and Take return exactly the rows of a full
// read (itself proven equal to the peer's read by TestReaderPeer*).
func TestReaderProjectionRangesTake(t *testing.T) {
	for _, name := range []string{"types-1000", "catalog-5000"} {
		t.Run(name, func(t *testing.T) {
			dir := peer.Fixture(t, name)
			if name == "catalog-5000" {
				dir = filepath.Join(dir, "__manifest")
			}
			r := rdOpenFile(t, rdFileOf(t, dir))
			ctx := context.Background()
			var ids []int32
			for _, f := range r.Schema().Fields {
				ids = append(ids, f.ID)
			}
			full, err := r.ReadRange(ctx, ids, 0, r.NumRows())
			if err != nil {
				t.Fatal(err)
			}
			defer full.Release()
			want := rdRows(full)
			n := r.NumRows()
			// Reversed projection of every other field.
			var proj []int32
			var projIdx []int
			for i := len(ids) - 1; i >= 0; i -= 2 {
				proj = append(proj, ids[i])
				projIdx = append(projIdx, i)
			}
			ranges := [][2]uint64{{0, n}, {0, 1}, {n - 1, n}, {1, 2}, {7, 9}, {100, 613}, {511, 1537}, {n / 3, n - 5}, {5, 5}}
			for _, rg := range ranges {
				if rg[1] > n {
					continue
				}
				rec, err := r.ReadRange(ctx, proj, rg[0], rg[1])
				if err != nil {
					t.Fatalf("ReadRange %v: %v", rg, err)
				}
				got := rdRows(rec)
				if uint64(len(got)) != rg[1]-rg[0] {
					t.Fatalf("ReadRange %v: %d rows", rg, len(got))
				}
				for i, row := range got {
					for j, v := range row {
						if w := want[rg[0]+uint64(i)][projIdx[j]]; v != w {
							t.Fatalf("ReadRange %v row %d field %d: %s, full read %s", rg, rg[0]+uint64(i), proj[j], rdTrunc(v), rdTrunc(w))
						}
					}
				}
				rec.Release()
			}
			var take []uint64
			for _, x := range []uint64{0, 0, 3, 4, 5, 511, 512, 513, 998, 1023, 1024, 4095, 4096} {
				if x < n {
					take = append(take, x)
				}
			}
			take = append(take, n-1)
			rec, err := r.Take(ctx, ids, take)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			for i, row := range rdRows(rec) {
				for j, v := range row {
					if w := want[take[i]][j]; v != w {
						t.Fatalf("Take row %d field %d: %s, full read %s", take[i], ids[j], rdTrunc(v), rdTrunc(w))
					}
				}
			}
			if st := r.Stats(); st.BytesRead <= 0 || st.PagesDecoded <= 0 {
				t.Fatalf("stats not counted: %+v", st)
			}
			if _, err := r.ReadRange(ctx, []int32{9999}, 0, 1); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("unknown field id: %v", err)
			}
			if _, err := r.ReadRange(ctx, ids[:1], 0, n+1); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("range past the end: %v", err)
			}
			if _, err := r.Take(ctx, ids[:1], []uint64{3, 2}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("descending take: %v", err)
			}
		})
	}
}

// TestReaderReadsOnlyWhatItNeeds: one column of a small row range must not
// fetch the whole file.
func TestReaderReadsOnlyWhatItNeeds(t *testing.T) {
	dir := filepath.Join(peer.Fixture(t, "catalog-5000"), "__manifest")
	path := rdFileOf(t, dir)
	st, _ := os.Stat(path)
	r := rdOpenFile(t, path)
	afterOpen := r.Stats().BytesRead
	rec, err := r.ReadRange(context.Background(), []int32{r.Schema().Fields[1].ID}, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	got := r.Stats().BytesRead - afterOpen
	t.Logf("file %d bytes, open read %d, one column 10 rows read %d", st.Size(), afterOpen, got)
	if got*4 > st.Size() {
		t.Fatalf("reading 10 rows of one column fetched %d of %d bytes", got, st.Size())
	}
}

func TestReaderColumnIndex(t *testing.T) {
	dir := filepath.Join(peer.Fixture(t, "catalog-3"), "__manifest")
	m := rdLatestManifest(t, dir)
	df := m.Fragments[0].Files[0]
	r := rdOpenFile(t, filepath.Join(dir, "data", df.Path))
	for i, id := range df.Fields {
		if got := r.ColumnIndex(id); got != int(df.ColumnIndices[i]) {
			t.Errorf("ColumnIndex(%d) = %d, manifest says %d", id, got, df.ColumnIndices[i])
		}
	}
	for _, f := range r.Schema().Fields {
		if f.LogicalType == "list" && r.ColumnIndex(f.ID) != -1 {
			t.Errorf("list field %d has column %d", f.ID, r.ColumnIndex(f.ID))
		}
	}
	if r.Version() != V2_1 {
		t.Errorf("version %v", r.Version())
	}
}

// TestReaderCorruptInputs: truncations and byte flips of a catalog file and of every field and
// page of types-1000 (each encoding the peer wrote) give typed errors (or, where the damage
// happens to keep the file consistent, rows), never panics or untyped errors.
func TestReaderCorruptInputs(t *testing.T) {
	dir := filepath.Join(peer.Fixture(t, "catalog-3"), "__manifest")
	good, err := os.ReadFile(rdFileOf(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Open(ctx, BytesSource(good[:len(good)-1])); !errors.Is(err, ErrNotLance) {
		t.Fatalf("truncated footer: %v", err)
	}
	if _, err := Open(ctx, BytesSource(good[:10])); !errors.Is(err, ErrNotLance) {
		t.Fatalf("10 bytes: %v", err)
	}
	bad := append([]byte(nil), good...)
	copy(bad[len(bad)-8:], []byte{9, 0, 9, 0})
	if _, err := Open(ctx, BytesSource(bad)); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("version 9.9: %v", err)
	}
	inputs := [][]byte{good}
	for _, p := range rdDataFiles(t, peer.Fixture(t, "types-1000")) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, ff := range rdFieldFiles(t, raw) {
			inputs = append(inputs, ff.data)
		}
	}
	for _, in := range inputs {
		if errs := rdTryAll(t, in); errs != 0 {
			t.Fatalf("an undamaged file gives %d errors", errs)
		}
		step := max(1, len(in)/100)
		if len(in) == len(good) {
			step = max(1, len(in)/1000)
		}
		for i := 0; i < len(in); i += step {
			for _, x := range []byte{0xFF, 0x01, 0x80} {
				b := append([]byte(nil), in...)
				b[i] ^= x
				rdTryAll(t, b)
			}
		}
		for n := 0; n < len(in); n += max(1, len(in)/50) {
			rdTryAll(t, in[len(in)-n:])
			rdTryAll(t, in[:n])
		}
	}
}

// rdTryAll opens b and reads every field (a range and a Take). Every error must be one of the
// package's typed errors, and every successful read must return the rows asked for. It returns
// the number of errors.
func rdTryAll(t testing.TB, b []byte) int {
	t.Helper()
	ctx := context.Background()
	errs := 0
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		errs++
		for _, typed := range []error{ErrNotLance, ErrUnsupportedVersion, ErrCorrupt, ErrUnsupportedEncoding} {
			if errors.Is(err, typed) {
				return
			}
		}
		t.Fatalf("%s: untyped error %v", what, err)
	}
	r, err := Open(ctx, BytesSource(b))
	check("Open", err)
	if err != nil {
		return errs
	}
	n := min(r.NumRows(), 1<<16)
	for _, f := range r.Schema().Fields {
		_, _, err := r.FixedRowBytes(ctx, []int32{f.ID})
		check("FixedRowBytes "+f.Name, err)
		if n > 2 {
			rec, err := r.ReadRanges(ctx, []int32{f.ID}, [][2]uint64{{0, 1}, {n - 1, n}})
			check("ReadRanges "+f.Name, err)
			if err == nil {
				if rec.NumRows() != 2 {
					t.Fatalf("ReadRanges %s: %d rows, asked for 2", f.Name, rec.NumRows())
				}
				rec.Release()
			}
		}
		rec, err := r.ReadRange(ctx, []int32{f.ID}, 0, n)
		check("ReadRange "+f.Name, err)
		if err == nil {
			if uint64(rec.NumRows()) != n {
				t.Fatalf("ReadRange %s: %d rows, asked for %d", f.Name, rec.NumRows(), n)
			}
			rec.Release()
		}
		if n > 0 {
			rec, err := r.Take(ctx, []int32{f.ID}, []uint64{0, n - 1})
			check("Take "+f.Name, err)
			if err == nil {
				if rec.NumRows() != 2 {
					t.Fatalf("Take %s: %d rows, asked for 2", f.Name, rec.NumRows())
				}
				rec.Release()
			}
		}
	}
	return errs
}

// rdSeeds adds the data and index files of the committed fixtures (their own decoding), and
// every field and page of types-1000 as a standalone file (rdFieldFiles): each encoding the peer
// wrote there (bit-packing, FSST, dictionary, RLE, full-zip, general compression, ...) in a seed
// small enough for the fuzzer to mutate.
func rdSeeds(f *testing.F) {
	dir, err := peer.CommittedDir()
	if err != nil {
		f.Fatal(err)
	}
	var files []string
	for _, pat := range []string{"types-1000/data/*.lance", "catalog-3/__manifest/data/*.lance", "catalog-v1/*/data/*.lance", "indexed/data/*.lance", "indexed/_indices/*/*.lance"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil || len(m) == 0 {
			f.Fatalf("no fixture files %s (%v)", pat, err)
		}
		files = append(files, m...)
	}
	// The peer's Lance 2.2 files (large-chunk mini-blocks, inline and buffered constants) are
	// generated, so they seed the fuzzers where the peer runs (always in CI).
	fieldFiles := func(p string) bool { return strings.Contains(p, "types-1000") }
	if peer.Available() == nil {
		v22 := rdDataFiles(f, peer.Fixture(f, "types-v2.2"))
		files = append(files, v22...)
		fieldFiles = func(p string) bool { return strings.Contains(p, "types-1000") || slices.Contains(v22, p) }
	}
	n := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= 64<<10 {
			f.Add(b)
			n++
		}
		if fieldFiles(p) {
			for _, ff := range rdFieldFiles(f, b) {
				if len(ff.data) <= 64<<10 {
					f.Add(ff.data)
					n++
				}
			}
		}
	}
	if n < 50 {
		f.Fatalf("only %d fuzz seeds", n)
	}
}

// FuzzOpen: footer, offset tables, file descriptor and column metadata.
func FuzzOpen(f *testing.F) {
	rdSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(context.Background(), BytesSource(b))
		if err != nil {
			if !errors.Is(err, ErrNotLance) && !errors.Is(err, ErrUnsupportedVersion) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open: untyped error %v", err)
			}
			return
		}
		for c := 0; c < r.NumColumns(); c++ {
			if _, err := r.column(context.Background(), c); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedEncoding) {
				t.Fatalf("column %d: untyped error %v", c, err)
			}
		}
	})
}

// FuzzDecodePage: page decoding (mini-block, full-zip, all-null and the
// compressive encodings) on mutated files.
func FuzzDecodePage(f *testing.F) {
	rdSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		rdTryAll(t, b)
	})
}

// rdFuzzBase is one field (or one page of a field) of types-1000 (and types-v2.2) as a standalone file, parsed
// back so fuzz targets can rebuild it with one part replaced.
type rdFuzzBase struct {
	raw    []byte
	schema *lanceschema.Schema
	rows   uint64
	metas  []*file2pb.ColumnMetadata
}

func rdFuzzBases(f *testing.F) []rdFuzzBase {
	var out []rdFuzzBase
	paths := rdDataFiles(f, peer.Fixture(f, "types-1000"))
	if peer.Available() == nil { // the generated 2.2 fixture, where the peer runs (see rdSeeds)
		paths = append(paths, rdDataFiles(f, peer.Fixture(f, "types-v2.2"))...)
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, ff := range rdFieldFiles(f, raw) {
			r, err := Open(context.Background(), BytesSource(ff.data))
			if err != nil {
				f.Fatal(err)
			}
			base := rdFuzzBase{raw: ff.data, schema: r.Schema(), rows: r.NumRows()}
			for _, ref := range r.colMetaRefs {
				m := &file2pb.ColumnMetadata{}
				if err := proto.Unmarshal(ff.data[ref.Position:ref.Position+ref.Size], m); err != nil {
					f.Fatal(err)
				}
				base.metas = append(base.metas, m)
			}
			out = append(out, base)
		}
	}
	return out
}

// FuzzPageBuffer: the encoded bytes of one page buffer (bit-packed, FSST, RLE, dictionary,
// full-zip, ... as the peer wrote them in types-1000), mutated under their unchanged layout.
func FuzzPageBuffer(f *testing.F) {
	bases := rdFuzzBases(f)
	for bi, b := range bases {
		for c, m := range b.metas {
			for p, pg := range m.Pages {
				for i := range pg.BufferOffsets {
					f.Add(uint16(bi), uint8(c), uint8(p), uint8(i), b.raw[pg.BufferOffsets[i]:pg.BufferOffsets[i]+pg.BufferSizes[i]])
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, bi uint16, c, p, i uint8, buf []byte) {
		b := bases[int(bi)%len(bases)]
		data := rdBuildFileWith(t, b.raw, b.schema, b.metas, b.rows, -1, func(cc, pp, ii int) []byte {
			if cc == int(c) && pp == int(p) && ii == int(i) {
				return buf
			}
			return nil
		}, nil)
		rdTryAll(t, data)
	})
}

// FuzzColumnMetadata: one column's metadata (pages, buffer positions and sizes, the page layout
// protobuf), mutated in an otherwise valid file.
func FuzzColumnMetadata(f *testing.F) {
	bases := rdFuzzBases(f)
	for bi, b := range bases {
		for c, m := range b.metas {
			raw, err := proto.Marshal(m)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint16(bi), uint8(c), raw)
		}
	}
	f.Fuzz(func(t *testing.T, bi uint16, c uint8, meta []byte) {
		b := bases[int(bi)%len(bases)]
		data := rdBuildFileWith(t, b.raw, b.schema, b.metas, b.rows, -1, nil, func(cc int) []byte {
			if cc == int(c) {
				return meta
			}
			return nil
		})
		rdTryAll(t, data)
	})
}

// BenchmarkReadManifest100k reads the 100,000-row __manifest: full scan, one
// column, and a row range; it reports bytes fetched per operation.
func BenchmarkReadManifest100k(b *testing.B) {
	dir := filepath.Join(peer.Fixture(b, "catalog-100000"), "__manifest")
	data, err := os.ReadFile(rdFileOf(b, dir))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	run := func(b *testing.B, read func(r *Reader, ids []int32) (arrow.Record, error)) {
		var bytes, pages int64
		for i := 0; i < b.N; i++ {
			r, err := Open(ctx, BytesSource(data))
			if err != nil {
				b.Fatal(err)
			}
			var ids []int32
			for _, f := range r.Schema().Fields {
				ids = append(ids, f.ID)
			}
			rec, err := read(r, ids)
			if err != nil {
				b.Fatal(err)
			}
			rec.Release()
			bytes += r.Stats().BytesRead
			pages += r.Stats().PagesDecoded
		}
		b.ReportMetric(float64(bytes)/float64(b.N), "bytes_read/op")
		b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
		b.ReportMetric(float64(len(data)), "file_bytes")
	}
	b.Run("full", func(b *testing.B) {
		run(b, func(r *Reader, ids []int32) (arrow.Record, error) { return r.ReadRange(ctx, ids, 0, r.NumRows()) })
	})
	b.Run("one_column", func(b *testing.B) {
		run(b, func(r *Reader, ids []int32) (arrow.Record, error) { return r.ReadRange(ctx, ids[:1], 0, r.NumRows()) })
	})
	b.Run("range_1000", func(b *testing.B) {
		run(b, func(r *Reader, ids []int32) (arrow.Record, error) { return r.ReadRange(ctx, ids, 50000, 51000) })
	})
}
