package lancefile

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// BenchmarkDecodeLineitem measures the raw decode of TPC-H lineitem's
// columns, apart from SQL: each sub-benchmark reads one column of the whole
// file in 8,192-row ranges (what a dataset scan asks for) and reports MB/s of
// decoded Arrow buffers, rows/s and the user CPU per pass (steadier than
// wall time on a loaded machine). The file is a lineitem-like table the
// writer writes (262,144 seeded rows with TPC-H's value domains), or, with
// LANCECAT_BENCH_LINEITEM set to a Lance data file or a dataset directory,
// the first data file of a real lineitem (e.g. the bench command's
// /tmp/engine-sf1/lancecat/lineitem.lance).
func BenchmarkDecodeLineitem(b *testing.B) {
	raw := lineitemBenchFile(b)
	ctx := context.Background()
	r, err := Open(ctx, BytesSource(raw))
	if err != nil {
		b.Fatal(err)
	}
	const chunk = 8192
	for _, fl := range r.Schema().Fields {
		if r.ColumnIndex(fl.ID) < 0 {
			continue
		}
		b.Run(fl.Name, func(b *testing.B) {
			var decoded int64
			read := func() {
				decoded = 0
				// A fresh reader per pass: page state is cached on the reader,
				// and a scan opens each data file once per query.
				r, err := Open(ctx, BytesSource(raw))
				if err != nil {
					b.Fatal(err)
				}
				for start := uint64(0); start < r.NumRows(); start += chunk {
					rec, err := r.ReadRange(ctx, []int32{fl.ID}, start, min(start+chunk, r.NumRows()))
					if err != nil {
						b.Fatal(err)
					}
					decoded += arrayBytes(rec.Column(0).Data())
					rec.Release()
				}
			}
			read()
			b.SetBytes(decoded)
			b.ReportAllocs()
			b.ResetTimer()
			user := processUserCPU()
			for i := 0; i < b.N; i++ {
				read()
			}
			b.ReportMetric(float64(r.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(processUserCPU()-user)/float64(b.N)/1e6, "user-ms/op")
		})
	}
}

// BenchmarkScanLineitemStore measures what a dataset scan of TPC-H Q6 does
// to a data file: its four columns (bit-packed dates, dictionary and
// bit-packed decimals) read together in 8,192-row ranges from a file in a
// local store, so the reads go through the store (open, pread) as a
// query's do, not through memory as BenchmarkDecodeLineitem's.
func BenchmarkScanLineitemStore(b *testing.B) {
	raw := lineitemBenchFile(b)
	ctx := context.Background()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lineitem.lance"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	st, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	open := func() *Reader {
		src, err := NewStoreSource(ctx, st, "lineitem.lance", int64(len(raw)))
		if err != nil {
			b.Fatal(err)
		}
		r, err := Open(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	r := open()
	var ids []int32
	for _, name := range []string{"l_quantity", "l_extendedprice", "l_discount", "l_shipdate"} {
		for _, fl := range r.Schema().Fields {
			if fl.Name == name {
				ids = append(ids, fl.ID)
			}
		}
	}
	if len(ids) != 4 {
		b.Fatalf("lineitem file lacks Q6's columns: ids %v", ids)
	}
	const chunk = 8192
	read := func() {
		r := open()
		for start := uint64(0); start < r.NumRows(); start += chunk {
			rec, err := r.ReadRange(ctx, ids, start, min(start+chunk, r.NumRows()))
			if err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	}
	read()
	b.ReportAllocs()
	b.ResetTimer()
	user := processUserCPU()
	for i := 0; i < b.N; i++ {
		read()
	}
	b.ReportMetric(float64(r.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(processUserCPU()-user)/float64(b.N)/1e6, "user-ms/op")
}

// arrayBytes sums the sizes of an array's buffers (its children's too).
func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}

// lineitemBenchFile is the bytes of the data file the decode benchmark reads.
func lineitemBenchFile(b testing.TB) []byte {
	b.Helper()
	if p := os.Getenv("LANCECAT_BENCH_LINEITEM"); p != "" {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files, _ := filepath.Glob(filepath.Join(p, "data", "*.lance"))
			if len(files) == 0 {
				b.Fatalf("LANCECAT_BENCH_LINEITEM=%s: no data/*.lance", p)
			}
			p = files[0]
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	return syntheticLineitem(b, 262144)
}

// syntheticLineitem writes n rows shaped like TPC-H's lineitem (its
// column types as lancecat loads them, and the spec's value domains), so
// the writer picks the encodings it picks for the real table.
func syntheticLineitem(b testing.TB, n int) []byte {
	b.Helper()
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	str := arrow.BinaryTypes.String
	as := arrow.NewSchema([]arrow.Field{
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l_quantity", Type: dec},
		{Name: "l_extendedprice", Type: dec},
		{Name: "l_discount", Type: dec},
		{Name: "l_tax", Type: dec},
		{Name: "l_returnflag", Type: str},
		{Name: "l_linestatus", Type: str},
		{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_commitdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_receiptdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_shipinstruct", Type: str},
		{Name: "l_shipmode", Type: str},
		{Name: "l_comment", Type: str},
	}, nil)
	schema, err := lanceschema.FromArrow(as)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(29, 15))
	words := strings.Fields("furiously regular deposits sleep carefully final packages haggle quickly ironic accounts among the blithely special requests boost slyly even pinto beans")
	instruct := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	mem := memory.DefaultAllocator
	const batch = 65536
	order := int64(1)
	for done := 0; done < n; {
		m := min(batch, n-done)
		bld := array.NewRecordBuilder(mem, as)
		line := int32(0)
		for i := 0; i < m; i++ {
			line++
			if line > int32(1+rng.IntN(7)) {
				order += int64(1 + rng.IntN(4))
				line = 1
			}
			qty := int64(1 + rng.IntN(50))
			price := qty * int64(90000+rng.IntN(110000)) / 100
			ship := int32(8036 + rng.IntN(2526)) // 1992-01-02 .. 1998-12-01
			bld.Field(0).(*array.Int64Builder).Append(order)
			bld.Field(1).(*array.Int64Builder).Append(int64(1 + rng.IntN(200000)))
			bld.Field(2).(*array.Int64Builder).Append(int64(1 + rng.IntN(10000)))
			bld.Field(3).(*array.Int32Builder).Append(line)
			bld.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(qty * 100))
			bld.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(price))
			bld.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(11))))
			bld.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(9))))
			bld.Field(8).(*array.StringBuilder).Append([]string{"R", "A", "N"}[rng.IntN(3)])
			bld.Field(9).(*array.StringBuilder).Append([]string{"O", "F"}[rng.IntN(2)])
			bld.Field(10).(*array.Date32Builder).Append(arrow.Date32(ship))
			bld.Field(11).(*array.Date32Builder).Append(arrow.Date32(ship + int32(rng.IntN(60)) - 30))
			bld.Field(12).(*array.Date32Builder).Append(arrow.Date32(ship + int32(1+rng.IntN(30))))
			bld.Field(13).(*array.StringBuilder).Append(instruct[rng.IntN(len(instruct))])
			bld.Field(14).(*array.StringBuilder).Append(modes[rng.IntN(len(modes))])
			var c strings.Builder
			for c.Len() < 10+rng.IntN(33) {
				if c.Len() > 0 {
					c.WriteByte(' ')
				}
				c.WriteString(words[rng.IntN(len(words))])
			}
			bld.Field(15).(*array.StringBuilder).Append(c.String())
		}
		rec := bld.NewRecordBatch()
		bld.Release()
		if err := w.Write(context.Background(), rec); err != nil {
			b.Fatal(err)
		}
		rec.Release()
		done += m
	}
	if _, err := w.Finish(context.Background()); err != nil {
		b.Fatal(fmt.Errorf("finish: %w", err))
	}
	return buf.Bytes()
}
