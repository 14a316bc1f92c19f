package lancefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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

func rdRows(rec arrow.Record) [][]string {
	out := make([][]string, rec.NumRows())
	for i := range out {
		for c := 0; c < int(rec.NumCols()); c++ {
			out[i] = append(out[i], rdCanon(rdRenderValue(rec.Column(c), i)))
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
			dir := rdFixtureDir(t, name)
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
	dir := filepath.Join(rdFixtureDir(t, "catalog-5000"), "__manifest")
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
	dir := filepath.Join(rdFixtureDir(t, "catalog-3"), "__manifest")
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

// TestReaderCorruptInputs: truncations and byte flips must give errors, not panics.
func TestReaderCorruptInputs(t *testing.T) {
	dir := filepath.Join(rdFixtureDir(t, "catalog-3"), "__manifest")
	good, err := os.ReadFile(rdFileOf(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Open(ctx, BytesSource(good[:len(good)-1])); err == nil {
		t.Fatal("truncated footer opened")
	}
	if _, err := Open(ctx, BytesSource(good[:10])); !errors.Is(err, ErrNotLance) {
		t.Fatalf("10 bytes: %v", err)
	}
	bad := append([]byte(nil), good...)
	copy(bad[len(bad)-8:], []byte{9, 0, 9, 0})
	if _, err := Open(ctx, BytesSource(bad)); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("version 9.9: %v", err)
	}
	for i := 0; i < len(good); i += max(1, len(good)/1000) {
		for _, x := range []byte{0xFF, 0x01, 0x80} {
			b := append([]byte(nil), good...)
			b[i] ^= x
			rdTryAll(b)
		}
	}
	for n := 0; n < len(good); n += max(1, len(good)/200) {
		rdTryAll(good[len(good)-n:])
		rdTryAll(good[:n])
	}
}

// rdTryAll opens b and reads everything; it only has to return.
func rdTryAll(b []byte) {
	ctx := context.Background()
	r, err := Open(ctx, BytesSource(b))
	if err != nil {
		return
	}
	n := min(r.NumRows(), 1<<16)
	for _, f := range r.Schema().Fields {
		if rec, err := r.ReadRange(ctx, []int32{f.ID}, 0, n); err == nil {
			rec.Release()
		}
		if n > 0 {
			if rec, err := r.Take(ctx, []int32{f.ID}, []uint64{0, n - 1}); err == nil {
				rec.Release()
			}
		}
	}
}

func rdSeeds(f *testing.F) {
	for _, name := range []string{"catalog-3", "catalog-v1", "types-1000"} {
		d := filepath.Join("..", "..", "conformance", "testdata", "fixtures", name)
		if _, err := os.Stat(d); err != nil {
			d = filepath.Join("/tmp/lfx", name)
		}
		files, _ := filepath.Glob(filepath.Join(d, "data", "*.lance"))
		more, _ := filepath.Glob(filepath.Join(d, "__manifest", "data", "*.lance"))
		for _, p := range append(files, more...) {
			if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
}

// FuzzOpen: footer, offset tables, file descriptor and column metadata.
func FuzzOpen(f *testing.F) {
	rdSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(context.Background(), BytesSource(b))
		if err != nil {
			return
		}
		for c := 0; c < r.NumColumns(); c++ {
			_, _ = r.column(context.Background(), c)
		}
	})
}

// FuzzDecodePage: page decoding (mini-block, full-zip, all-null and the
// compressive encodings) on mutated files.
func FuzzDecodePage(f *testing.F) {
	rdSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		rdTryAll(b)
	})
}

// BenchmarkReadManifest100k reads the 100,000-row __manifest: full scan, one
// column, and a row range; it reports bytes fetched per operation.
func BenchmarkReadManifest100k(b *testing.B) {
	dir := filepath.Join(rdFixtureDir(b, "catalog-100000"), "__manifest")
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
