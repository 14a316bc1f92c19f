package tpch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSplitLines: a file of more lines than a part holds is split into
// parts of whole lines that join back into the file; a smaller one is
// loaded as it is.
func TestSplitLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.tsv")
	text := "1\ta\n2\tb\n3\tc\n4\td\n5\te\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	parts, err := splitLines(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 {
		t.Fatalf("parts %v, want 3", parts)
	}
	var joined strings.Builder
	for i, part := range parts {
		b, err := os.ReadFile(part)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != min(2, 5-2*i) {
			t.Errorf("part %d has %d lines", i, n)
		}
		joined.Write(b)
	}
	if joined.String() != text {
		t.Errorf("parts join to %q, want %q", joined.String(), text)
	}
	for _, part := range parts {
		os.Remove(part)
	}
	whole, err := splitLines(p, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 1 || whole[0] != p {
		t.Errorf("a file within the part size: %v, want [%s]", whole, p)
	}
	if left, _ := filepath.Glob(p + ".*"); len(left) != 0 {
		t.Errorf("files left beside the table's: %v", left)
	}
}

// TestWithoutPrimaryKey: every table's DDL loses its PRIMARY KEY clause
// and nothing else.
func TestWithoutPrimaryKey(t *testing.T) {
	for _, tb := range Tables {
		got := withoutPrimaryKey(tb.DDL)
		if strings.Contains(got, "PRIMARY KEY") || !strings.HasSuffix(got, ")") {
			t.Errorf("%s: %s", tb.Name, got)
		}
		if !strings.HasPrefix(tb.DDL, strings.TrimSuffix(got, ")")) {
			t.Errorf("%s: %s is not the DDL up to its key", tb.Name, got)
		}
	}
}
