package inverted

// Tests of the bounded-memory build: a build over a small memory budget
// spills many partitions and merges them into the files one partition of
// the same rows is.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index/tokenize"
	"github.com/lancecat/lancecat/storage"
)

// phraseDataset writes docs (id i = document i) to an in-memory dataset.
func phraseDataset(t *testing.T, docs []string) *dataset.Dataset {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "memory://", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for from := 0; from < len(docs); from += 1000 {
		ib := array.NewInt64Builder(memory.DefaultAllocator)
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		for i := from; i < min(from+1000, len(docs)); i++ {
			ib.Append(int64(i))
			sb.Append(docs[i])
		}
		n := int64(sb.Len())
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), sb.NewArray()}, n))
	}
	ds, err := dataset.CreateWithData(ctx, st, "t", schema, recs, dataset.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestSpilledBuildIsTheOnePartitionBuild: with a memory budget of a few
// KiB the build spills many partitions and merges them into one whose
// files (tokens, invert with positions, docs, metadata) are byte for byte
// those of the build that held everything in memory, leaves no spill file
// behind, and every query over it (match OR and AND, phrases with
// positions, prefix, boolean with MUST_NOT, with and without a top-k
// limit, after deleting rows) returns the same rows and scores.
func TestSpilledBuildIsTheOnePartitionBuild(t *testing.T) {
	ctx := context.Background()
	docs := phraseCorpus(3000)
	ds := phraseDataset(t, docs)
	params := tokenize.DefaultParams()
	params.WithPosition = true
	spills := 0
	defer func() { onSpill = nil }()
	onSpill = func(int) error { spills++; return nil }
	area := &testSpillArea{dir: t.TempDir()}
	one, err := Build(ctx, ds, "text", params, BuildOptions{Name: "one", SpillArea: area})
	if err != nil {
		t.Fatal(err)
	}
	if spills != 0 {
		t.Fatalf("default budget: %d spills", spills)
	}
	defer func(old int) { BuildMemoryBytes = old }(BuildMemoryBytes)
	BuildMemoryBytes = 16 << 10
	multi, err := Build(ctx, ds, "text", params, BuildOptions{Name: "multi", SpillArea: area})
	if err != nil {
		t.Fatal(err)
	}
	if spills < 5 {
		t.Fatalf("budget of %d bytes: %d spilled partitions, want several", BuildMemoryBytes, spills)
	}
	t.Logf("%d spilled partitions", spills)
	if len(one.Files) != len(multi.Files) {
		t.Fatalf("files %v, one-partition build %v", multi.Files, one.Files)
	}
	for i, f := range one.Files {
		if multi.Files[i] != f {
			t.Fatalf("file %v, one-partition build %v", multi.Files[i], f)
		}
		a, err := ds.Store().Read(ctx, path.Join(ds.Dir(), "_indices", one.UUID, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ds.Store().Read(ctx, path.Join(ds.Dir(), "_indices", multi.UUID, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes differ from the one-partition build's %d", f.Path, len(b), len(a))
		}
	}
	area.checkEmpty(t)
	// Delete every seventh row: both indices must skip the same rows.
	var del []uint64
	err = ds.Scan(ctx, dataset.ScanOptions{Columns: []string{"id"}, WithRowAddress: true}, func(rec arrow.RecordBatch) error {
		idc := rec.Column(0).(*array.Int64)
		ac := rec.Column(1).(*array.Uint64)
		for i := 0; i < int(rec.NumRows()); i++ {
			if idc.Value(i)%7 == 3 {
				del = append(del, ac.Value(i))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = ds.Delete(ctx, del); err != nil {
		t.Fatal(err)
	}
	ixOne, err := Open(ctx, ds, one)
	if err != nil {
		t.Fatal(err)
	}
	ixMulti, err := Open(ctx, ds, multi)
	if err != nil {
		t.Fatal(err)
	}
	if len(ixOne.parts) != 1 || len(ixMulti.parts) != 1 {
		t.Fatalf("%d and %d partitions, want 1", len(ixOne.parts), len(ixMulti.parts))
	}
	queries := []Query{
		{Kind: Match, Text: "alpha"},
		{Kind: Match, Text: "rare"},
		{Kind: Match, Text: "rare gamma w3"},
		{Kind: Match, Text: "beta delta theta", And: true},
		{Kind: Match, Text: "absent"},
		{Kind: Phrase, Text: "alpha beta"},
		{Kind: Phrase, Text: "rare alpha"},
		{Kind: Phrase, Text: "alpha the beta"},
		{Kind: Phrase, Text: "alpha alpha alpha"},
		{Kind: Prefix, Text: "w1"},
		{Kind: Boolean, Clauses: []Clause{{Must, Query{Kind: Match, Text: "rare"}}, {MustNot, Query{Kind: Phrase, Text: "alpha beta"}}, {Should, Query{Kind: Match, Text: "gamma"}}}},
	}
	for _, q := range queries {
		for _, limit := range []int{0, 10} {
			label := fmt.Sprintf("%v limit %d", q, limit)
			want, _, err := ixOne.Search(ctx, q, SearchOptions{Limit: limit})
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			got, _, err := ixMulti.Search(ctx, q, SearchOptions{Limit: limit})
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d hits over the spilled build, %d over one", label, len(got), len(want))
			}
			for k := range want {
				g, w := got[k], want[k]
				if g.RowAddr != w.RowAddr || math.Abs(float64(g.Score)-float64(w.Score)) > 1e-9*math.Abs(float64(w.Score)) {
					t.Fatalf("%s: hit %d is %v over the spilled build, %v over one", label, k, g, w)
				}
			}
			if q.Text == "alpha" && limit == 0 && len(want) < 1000 {
				t.Fatalf("corpus too thin: %d hits for alpha", len(want))
			}
		}
	}
}

// testSpillArea is a SpillArea over a test's directory that counts its
// users.
type testSpillArea struct {
	dir   string
	users int
}

func (a *testSpillArea) Acquire() (string, error) { a.users++; return a.dir, nil }
func (a *testSpillArea) Release()                 { a.users-- }

// checkEmpty fails t if a spill file is left in the area or the area is
// still acquired.
func (a *testSpillArea) checkEmpty(t *testing.T) {
	t.Helper()
	left, err := os.ReadDir(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("spill file %s left behind", e.Name())
	}
	if a.users != 0 {
		t.Errorf("spill area acquired %d more times than released", a.users)
	}
}

// TestSpilledBuildRemovesSpillsOnError: a build that fails after it has
// spilled, while scanning (an error at the third spill, a cancelled
// context) or while merging the spills (a spill file cut short), returns
// the error and leaves no spill file and no acquired spill area behind.
func TestSpilledBuildRemovesSpillsOnError(t *testing.T) {
	ds := phraseDataset(t, phraseCorpus(3000))
	params := tokenize.DefaultParams()
	params.WithPosition = true
	defer func(old int) { BuildMemoryBytes = old }(BuildMemoryBytes)
	BuildMemoryBytes = 16 << 10
	defer func() { onSpill = nil }()
	// The spills of a build that succeeds.
	total := 0
	onSpill = func(int) error { total++; return nil }
	if _, err := Build(context.Background(), ds, "text", params, BuildOptions{SpillArea: &testSpillArea{dir: t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	if total < 5 {
		t.Fatalf("%d spills, want several", total)
	}
	errHook := errors.New("hook")
	for _, tc := range []struct {
		name string
		hook func(ctx context.Context, cancel func(), area *testSpillArea, spill int) error
		want error
	}{
		{"error at the third spill", func(_ context.Context, _ func(), _ *testSpillArea, spill int) error {
			if spill == 2 {
				return errHook
			}
			return nil
		}, errHook},
		{"cancelled at the third spill", func(_ context.Context, cancel func(), _ *testSpillArea, spill int) error {
			if spill == 2 {
				cancel()
			}
			return nil
		}, context.Canceled},
		{"spill cut short before the merge", func(_ context.Context, _ func(), area *testSpillArea, spill int) error {
			if spill == total-1 {
				files, err := os.ReadDir(area.dir)
				if err != nil || len(files) == 0 {
					return fmt.Errorf("spill files: %v", err)
				}
				return os.Truncate(path.Join(area.dir, files[0].Name()), 100)
			}
			return nil
		}, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			area := &testSpillArea{dir: t.TempDir()}
			onSpill = func(spill int) error { return tc.hook(ctx, cancel, area, spill) }
			_, err := Build(ctx, ds, "text", params, BuildOptions{SpillArea: area})
			if !errors.Is(err, tc.want) {
				t.Fatalf("build: %v, want %v", err, tc.want)
			}
			area.checkEmpty(t)
		})
	}
}
