package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStatementComplete(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"SHOW SCHEMAS;", true},
		{"SHOW SCHEMAS ;  \t", true},
		{"SHOW SCHEMAS", false},
		{"SHOW SCHEMAS; SHOW", false},
		{"SHOW\nSCHEMAS\n;", true},
		{"SELECT ';'", false},
		{"SELECT ';", false},
		{"SELECT 'it''s;'", false},
		{"SELECT 'a\\';", false}, // backslash escapes the quote: still in the string
		{"SELECT 'a\\\\';", true},
		{`SELECT "x;"`, false},
		{"SELECT `a;b`", false},
		{"SELECT `a``;`;", true},
		{"SELECT 1; -- done", true},
		{"SELECT 1 -- not yet;", false},
		{"SELECT 1 --not a comment;", true},
		{"SELECT 1; # done", true},
		{"SELECT 1 # comment;\n", false},
		{"SELECT 1 /* ; */", false},
		{"SELECT 1 /* unfinished ;", false},
		{"SELECT 1; /* trailing */", true},
		{"SELECT 1 /* a */;", true},
		{"", false},
		{";", true},
	} {
		if got := statementComplete(c.text); got != c.want {
			t.Errorf("statementComplete(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestHistoryEntry(t *testing.T) {
	if got := historyEntry("SELECT *   \n  FROM t\t\n;"); got != "SELECT *   FROM t ;" {
		t.Errorf("got %q", got)
	}
}

// TestTtyIOCtrlC: Ctrl-C reaches the line editor as Enter, alone, and is
// remembered; other bytes pass through unchanged.
func TestTtyIOCtrlC(t *testing.T) {
	r, w := io.Pipe()
	tty := &ttyIO{in: r, out: io.Discard}
	go func() {
		w.Write([]byte("ab\x03cd"))
		w.Write([]byte("\x03"))
		w.Close()
	}()
	p := make([]byte, 64)
	var reads []string
	var flags []bool
	for {
		n, err := tty.Read(p)
		if err != nil {
			break
		}
		reads = append(reads, string(p[:n]))
		flags = append(flags, tty.takeInterrupt())
	}
	if strings.Join(reads, "|") != "ab|\r|cd|\r" {
		t.Errorf("reads %q", reads)
	}
	if len(flags) != 4 || flags[0] || !flags[1] || flags[2] || !flags[3] {
		t.Errorf("interrupt flags %v", flags)
	}
}

func TestHistoryPersisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lancecat_history")
	h := loadHistory(path)
	h.add("SHOW SCHEMAS;")
	h.add("SHOW SCHEMAS;") // a repeat is not added again
	h.add("")
	h.add("SHOW TABLES;")
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "SHOW SCHEMAS;\nSHOW TABLES;\n" {
		t.Fatalf("file %q, %v", b, err)
	}
	th := termHistory{loadHistory(path)}
	th.Add("a continuation line") // the terminal's own additions are ignored
	if th.Len() != 2 || th.At(0) != "SHOW TABLES;" || th.At(1) != "SHOW SCHEMAS;" {
		t.Errorf("reloaded: %d entries", th.Len())
	}
	// A long file is cut to the last historyMaxEntries entries.
	var lines []string
	for i := 0; i < historyMaxEntries+10; i++ {
		lines = append(lines, "SELECT "+strings.Repeat("x", i%7)+";")
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	h = loadHistory(path)
	if len(h.entries) != historyMaxEntries || h.entries[0] != lines[10] {
		t.Errorf("kept %d entries, first %q", len(h.entries), h.entries[0])
	}
	b, _ = os.ReadFile(path)
	if strings.Count(string(b), "\n") != historyMaxEntries {
		t.Errorf("file not trimmed: %d lines", strings.Count(string(b), "\n"))
	}
	// An unwritable history does not fail anything.
	h = loadHistory(filepath.Join(t.TempDir(), "no", "such", "dir", "h"))
	h.add("SELECT 1;")
	if len(h.entries) != 1 {
		t.Errorf("entries %v", h.entries)
	}
}
