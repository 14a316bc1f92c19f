package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestRunMemory(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, "memory://quickstart-test"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"> SHOW SCHEMAS\nDatabase\ndemo\n",
		"> SHOW TABLES FROM demo\nTables_in_demo\nevents\n",
		"id\tBIGINT\tNO\tPRI\tNULL\t\n",
		"payload\tJSON\tYES\t\tNULL\t\n",
		"embedding\tVECTOR(4)\tYES\t\tNULL\t\n",
		"demo.events has 0 rows\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestRunLocalDir runs the example on a local directory, as `go run` does,
// twice: the second run finds the schema and table (IF NOT EXISTS).
func TestRunLocalDir(t *testing.T) {
	dir := t.TempDir()
	if err := run(context.Background(), io.Discard, dir); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(context.Background(), &out, dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "demo.events has 0 rows") {
		t.Fatalf("output:\n%s", out.String())
	}
}
