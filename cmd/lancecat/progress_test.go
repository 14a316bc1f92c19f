package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLoadProgressFlag: with --progress the CLI prints LOAD DATA's and
// IMPORT INTO's rows and bytes read on stderr (here not a terminal, so a
// line per report, the last with the final counts); without the flag a
// non-terminal stderr gets none, and --no-progress is accepted.
func TestLoadProgressFlag(t *testing.T) {
	data := t.TempDir()
	var b strings.Builder
	const rows = 20000
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%d,n%d\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(data, "big.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := filepath.Join(t.TempDir(), "cat") + "?load_data_dir=" + data
	script := `CREATE TABLE t (id BIGINT, name VARCHAR(10));
LOAD DATA INFILE 'big.csv' INTO TABLE t FIELDS TERMINATED BY ',';
CREATE TABLE u (id BIGINT, name VARCHAR(10));
IMPORT INTO u FROM 'big.csv';
SELECT COUNT(*) FROM t;`
	code, out, errOut := runSQLCLI("", "--uri", uri, "--progress", "--format", "csv", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, fmt.Sprint(rows)) {
		t.Fatalf("stdout %q", out)
	}
	want := fmt.Sprintf("%d rows, %s read", rows, humanBytes(int64(b.Len())))
	for _, verb := range []string{"LOAD DATA", "IMPORT INTO"} {
		re := regexp.MustCompile("(?m)^" + verb + `: (\d+) rows, .* read$`)
		lines := re.FindAllString(errOut, -1)
		if len(lines) == 0 || lines[len(lines)-1] != verb+": "+want {
			t.Fatalf("%s progress lines %q (stderr %q), want the last %q", verb, lines, errOut, verb+": "+want)
		}
	}
	if strings.Contains(out, "rows, ") {
		t.Fatalf("progress on stdout: %q", out)
	}
	for _, flags := range [][]string{nil, {"--no-progress"}} {
		args := append([]string{"--uri", filepath.Join(t.TempDir(), "cat") + "?load_data_dir=" + data}, flags...)
		code, _, errOut = runSQLCLI("", append(args, "-c", "CREATE TABLE t (id BIGINT, name VARCHAR(10)); LOAD DATA INFILE 'big.csv' INTO TABLE t FIELDS TERMINATED BY ','")...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q, want no progress", flags, code, errOut)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
