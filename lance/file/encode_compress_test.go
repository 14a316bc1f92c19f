package lancefile

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"testing"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// levelsName names the rep/def compression of a mini-block page ("-" without).
func levelsName(l *enc21pb.PageLayout) string {
	mb := l.GetMiniBlockLayout()
	if mb == nil {
		return "-"
	}
	name := func(e *enc21pb.CompressiveEncoding) string {
		if e == nil {
			return "-"
		}
		return compressionName(e)
	}
	return name(mb.RepCompression) + "/" + name(mb.DefCompression)
}

// writeCase writes the named interop case with our writer and returns, per
// column, the distinct "layout levels" descriptions of its pages.
func writeCase(t *testing.T, name string) []string {
	t.Helper()
	var tc interopCase
	for _, c := range interopCases() {
		if c.name == name {
			tc = c
		}
	}
	if tc.name == "" {
		t.Fatalf("no interop case %q", name)
	}
	var fields []arrow.Field
	for _, fl := range tc.schema["fields"].([]f) {
		fields = append(fields, arrowFieldOf(t, fl))
	}
	s := schemaFromArrow(t, fields...)
	data, _ := writeFile(t, s, tc.opts, recordFromJSON(t, s, tc.batches[0]))
	cols, _ := fileLayouts(t, data)
	var out []string
	for _, pages := range cols {
		seen := map[string]bool{}
		var ds []string
		for _, p := range pages {
			d := layoutName(p) + " " + levelsName(p)
			if !seen[d] {
				seen[d] = true
				ds = append(ds, d)
			}
		}
		out = append(out, strings.Join(ds, " | "))
	}
	return out
}

// TestWriterChoosesCompressions: the page encodings of the written files
// show each compression the data calls for (so a chosen encoding that is not
// emitted fails here): bit-packing, RLE, flat where nothing shrinks the
// values, dictionaries with bit-packed or RLE indices, and bit-packed levels.
func TestWriterChoosesCompressions(t *testing.T) {
	check := func(name string, want []string) {
		got := writeCase(t, name)
		if len(got) != len(want) {
			t.Fatalf("%s: %d columns %q, want %d", name, len(got), got, len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s column %d: %q, want %q", name, i, got[i], want[i])
			}
		}
	}
	check("compressed_fixed", []string{
		"miniblock/bitpack -/-", // seq from 1,000,000: 21 of 64 bits
		"miniblock/bitpack -/-", // small: 4 of 8 bits
		"miniblock/rle -/-",     // runs of 700 equal values
		"miniblock/flat -/-",    // negatives need all 64 bits
		// doubles below 1000 leave only the sign bit: 63 of 64 bits would
		// not pay for the header words and the runt chunk's padding
		"miniblock/flat -/-",
		// nulls in every 1024 items (also the runt): out-of-line def levels
		"miniblock/bitpack -/bitpack-out-of-line",
		"miniblock/flat -/-",    // bools are single bits already
		"miniblock/bitpack -/-", // dates cycling over 30 days
		"miniblock/bitpack -/-", // timestamps one millisecond apart
	})
	check("dictionary_strings", []string{
		"miniblock/dict[variable](bitpack) -/bitpack-out-of-line", // cat, with nulls
		"miniblock/dict[variable](bitpack) -/-",                   // lcat: large_utf8, 64-bit indices
		"miniblock/dict[variable](bitpack) -/-",                   // bcat: binary
		"miniblock/dict[variable](rle) -/-",                       // sorted: indices in runs of 100
		// tags: list<utf8>, bit-packed rep and def levels
		"miniblock/dict[variable](bitpack) bitpack-out-of-line/bitpack-out-of-line",
		"miniblock/dict[variable](bitpack) -/-", // st.k
		"miniblock/bitpack -/-",                 // st.v
		"miniblock/dict[variable](bitpack) -/-", // long: 3 distinct 300-byte values (no full-zip)
	})
	// Three rows: nothing pays for a 1024-value chunk or a dictionary.
	if got := writeCase(t, "primitives"); strings.Contains(strings.Join(got, " "), "bitpack") || strings.Contains(strings.Join(got, " "), "dict") {
		t.Errorf("primitives (3 rows): %q, want flat and variable only", got)
	}
}

// BenchmarkWriter21Million writes 1,000,000 rows of (BIGINT id, VARCHAR
// name, DOUBLE, 4-value category, nullable INT, LIST<SMALLINT>) per
// iteration, in batches of 8,192 rows.
func BenchmarkWriter21Million(b *testing.B) {
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "cat", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int16), Nullable: true},
	}, nil)
	s, err := lanceschema.FromArrow(as)
	if err != nil {
		b.Fatal(err)
	}
	const rows, batch = 1000000, 8192
	rng := rand.New(rand.NewSource(1))
	cats := []string{"books", "games", "music", "tools"}
	var recs []arrow.Record
	for start := 0; start < rows; start += batch {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
		for i := start; i < min(rows, start+batch); i++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("customer-%07d", rng.Intn(10000000)))
			rb.Field(2).(*array.Float64Builder).Append(float64(rng.Intn(10000000)) / 100)
			rb.Field(3).(*array.StringBuilder).Append(cats[rng.Intn(4)])
			if i%10 == 0 {
				rb.Field(4).AppendNull()
			} else {
				rb.Field(4).(*array.Int32Builder).Append(int32(rng.Intn(100000)))
			}
			lb := rb.Field(5).(*array.ListBuilder)
			lb.Append(true)
			for k := 0; k < i%3; k++ {
				lb.ValueBuilder().(*array.Int16Builder).Append(int16(k * i))
			}
		}
		recs = append(recs, rb.NewRecord())
		rb.Release()
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	ctx := context.Background()
	b.ResetTimer()
	var size int64
	for i := 0; i < b.N; i++ {
		w, err := NewWriter(io.Discard, s, WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
		sum, err := w.Finish(ctx)
		if err != nil {
			b.Fatal(err)
		}
		size = sum.Size
	}
	b.ReportMetric(float64(size), "file-bytes")
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
