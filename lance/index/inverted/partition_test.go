package inverted

// Tests of the multi-partition build: a build over a small memory budget
// writes several partitions that answer every query as one partition does.

import (
	"context"
	"fmt"
	"math"
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

// TestPartitionedBuildSearchesAsOnePartition: with a memory budget of a few
// KiB the build writes many partitions (listed in the metadata, each with
// its own tokens, invert and docs files), and every query over them (match
// OR and AND, phrases with positions, prefix, boolean with MUST_NOT, with
// and without a top-k limit, after deleting rows) returns the same rows and
// scores as over the one-partition build of the same data: the scores use
// the whole index's document count, average length and document
// frequencies.
func TestPartitionedBuildSearchesAsOnePartition(t *testing.T) {
	ctx := context.Background()
	docs := phraseCorpus(3000)
	ds := phraseDataset(t, docs)
	params := tokenize.DefaultParams()
	params.WithPosition = true
	one, err := Build(ctx, ds, "text", params, BuildOptions{Name: "one"})
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int) { BuildMemoryBytes = old }(BuildMemoryBytes)
	BuildMemoryBytes = 16 << 10
	multi, err := Build(ctx, ds, "text", params, BuildOptions{Name: "multi"})
	if err != nil {
		t.Fatal(err)
	}
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
	if len(ixOne.parts) != 1 {
		t.Fatalf("default budget: %d partitions, want 1", len(ixOne.parts))
	}
	if len(ixMulti.parts) < 5 {
		t.Fatalf("budget of %d bytes: %d partitions, want several", BuildMemoryBytes, len(ixMulti.parts))
	}
	for i, p := range ixMulti.parts {
		if p.id != uint64(i) {
			t.Fatalf("partition %d has id %d", i, p.id)
		}
		for _, name := range []string{tokensFile(p.id), invertFile(p.id), docsFile(p.id)} {
			found := false
			for _, f := range multi.Files {
				found = found || f.Path == name
			}
			if !found {
				t.Fatalf("no file %s in the index metadata", name)
			}
		}
	}
	if ixMulti.numDocs != ixOne.numDocs || ixMulti.totalTokens != ixOne.totalTokens {
		t.Fatalf("multi: %d docs %d tokens, one: %d docs %d tokens", ixMulti.numDocs, ixMulti.totalTokens, ixOne.numDocs, ixOne.totalTokens)
	}
	t.Logf("%d partitions", len(ixMulti.parts))
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
				t.Fatalf("%s: %d hits over %d partitions, %d over one", label, len(got), len(ixMulti.parts), len(want))
			}
			for k := range want {
				g, w := got[k], want[k]
				if g.RowAddr != w.RowAddr || math.Abs(float64(g.Score)-float64(w.Score)) > 1e-9*math.Abs(float64(w.Score)) {
					t.Fatalf("%s: hit %d is %v over %d partitions, %v over one", label, k, g, len(ixMulti.parts), w)
				}
			}
			if q.Text == "alpha" && limit == 0 && len(want) < 1000 {
				t.Fatalf("corpus too thin: %d hits for alpha", len(want))
			}
		}
	}
}
