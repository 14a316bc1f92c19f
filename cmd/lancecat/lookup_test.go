package main

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
)

// sortedLines parses JSON Lines and re-renders each row canonically, sorted,
// so two row sets compare regardless of order.
func sortedLines(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		var v map[string]any
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// TestLookupMatchesPeerQuery: `dataset lookup` through each index kind of the
// peer-built `indexed` table returns exactly the rows of the peer's own
// filtered query.
func TestLookupMatchesPeerQuery(t *testing.T) {
	peer.Require(t)
	dir := peer.Fixture(t, "indexed")
	cases := []struct {
		args  []string
		where string
	}{
		{[]string{"--index", "id_idx", "--eq", "838"}, "id = 838"},
		{[]string{"--index", "id_idx", "--in", "0,2919,999999"}, "id IN (0, 2919, 999999)"},
		{[]string{"--index", "name_idx", "--prefix", "item-29"}, "name LIKE 'item-29%'"},
		{[]string{"--index", "category_idx", "--eq", "music"}, "category = 'music'"},
		{[]string{"--index", "tags_idx", "--eq", "eco"}, "array_has_any(tags, ['eco'])"},
	}
	for _, c := range cases {
		t.Run(c.where, func(t *testing.T) {
			code, out, stderr := runCLI(append([]string{"dataset", "lookup", dir}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			raw, err := peer.Run(context.Background(), t, "peer.mjs", "dataset.query", mustJSON(t, map[string]any{"path": dir, "where": c.where, "limit": 1000000}))
			if err != nil {
				t.Fatalf("peer query: %v: %s", err, raw)
			}
			got, want := sortedLines(t, out), sortedLines(t, peerRowsAsLines(t, raw))
			if len(want) == 0 {
				t.Fatalf("peer found no rows for %s: the case tests nothing", c.where)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("lookup %v: %d rows, peer %d rows\nfirst got:  %v\nfirst want: %v", c.args, len(got), len(want), first(got), first(want))
			}
		})
	}
	// A missing index fails clearly.
	code, _, stderr := runCLI("dataset", "lookup", dir, "--index", "nope", "--eq", "1")
	if code == 0 || !strings.Contains(stderr, "nope") {
		t.Fatalf("missing index: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI("dataset", "lookup", dir, "--index", "id_idx")
	if code != 2 {
		t.Fatalf("no predicate: exit %d, stderr %q", code, stderr)
	}
}

// peerRowsAsLines turns peer.mjs's {"rows": [...]} into JSON Lines.
func peerRowsAsLines(t *testing.T, raw []byte) string {
	t.Helper()
	var res struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("peer output: %v", err)
	}
	var b strings.Builder
	for _, r := range res.Rows {
		b.Write(r)
		b.WriteByte('\n')
	}
	return b.String()
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
