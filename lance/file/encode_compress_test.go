package lancefile

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"testing"

	"github.com/lancecat/lancecat/lance/internal/pb/enc21pb"
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
