package index

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// TestBuildAndSearchLocal builds every index kind with lancecat on a dataset
// lancecat wrote (in memory, no peer needed), including an empty one, and
// checks searches against a full scan.
func TestBuildAndSearchLocal(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "memory://", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	empty, err := dataset.Create(ctx, st, "empty", schema, dataset.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		col  string
		kind Kind
	}{{"k", KindBTree}, {"s", KindBitmap}, {"l", KindLabelList}} {
		if empty, err = CreateIndex(ctx, empty, k.col, k.kind, BuildOptions{}); err != nil {
			t.Fatalf("index on empty dataset: %v", err)
		}
		ix, err := Open(ctx, empty, k.col+"_idx")
		if err != nil {
			t.Fatal(err)
		}
		q := Eq(uint64(1))
		if k.kind == KindLabelList {
			q = HasAny("x")
		} else if k.kind == KindBitmap {
			q = Eq("x")
		}
		if r, err := ix.Search(ctx, q); err != nil || !r.Rows.IsEmpty() {
			t.Fatalf("search of empty %s: %v", k.kind, err)
		}
	}

	rng := rand.New(rand.NewPCG(8, 8))
	mem := memory.DefaultAllocator
	var recs []arrow.RecordBatch
	for b := 0; b < 3; b++ {
		kb := array.NewUint32Builder(mem)
		sb := array.NewStringBuilder(mem)
		lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
		vb := lb.ValueBuilder().(*array.StringBuilder)
		for i := 0; i < 700; i++ {
			if rng.IntN(10) == 0 {
				kb.AppendNull()
			} else {
				kb.Append(uint32(rng.IntN(300)))
			}
			if rng.IntN(10) == 0 {
				sb.AppendNull()
			} else {
				sb.Append([]string{"", "x", "y", "zz"}[rng.IntN(4)])
			}
			if rng.IntN(10) == 0 {
				lb.AppendNull()
			} else {
				lb.Append(true)
				for j := rng.IntN(3); j > 0; j-- {
					vb.Append([]string{"p", "q", "r"}[rng.IntN(3)])
				}
			}
		}
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{kb.NewArray(), sb.NewArray(), lb.NewArray()}, 700))
	}
	ds, err := dataset.CreateWithData(ctx, st, "full", schema, recs, dataset.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		col  string
		kind Kind
	}{{"k", KindBTree}, {"s", KindBTree}, {"s", KindBitmap}, {"l", KindLabelList}} {
		name := k.col + "_" + k.kind.String()
		if ds, err = CreateIndex(ctx, ds, k.col, k.kind, BuildOptions{Name: name, BatchSize: 100}); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(ctx, ds, name)
		if err != nil {
			t.Fatal(err)
		}
		rows := rowsFromScan(t, ds, k.col)
		// The reference works on int64: widen the uint32 column.
		qs := randomQueries(t, rand.New(rand.NewPCG(9, 9)), widen(rows, k.col), k.col, k.kind, 90)
		checkSearch(t, ix, widen(rows, k.col), k.col, qs)
	}
}

func widen(rows []refRow, col string) []refRow {
	out := make([]refRow, len(rows))
	for i, r := range rows {
		v := r.vals[col]
		if u, ok := v.(uint64); ok {
			v = int64(u)
		}
		out[i] = refRow{addr: r.addr, vals: map[string]any{col: v}}
	}
	return out
}
