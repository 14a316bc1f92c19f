package planner

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpillDirChildProcess is the child of TestSpillDirSweptAfterKill: it
// spills into base's per-process directory, prints it and waits to be
// killed.
func TestSpillDirChildProcess(t *testing.T) {
	base := os.Getenv("LANCECAT_SPILL_CHILD_BASE")
	if base == "" {
		t.Skip("only as the child of TestSpillDirSweptAfterKill")
	}
	dir, err := acquireSpillDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lancecat-sort-1.run"), []byte("rows"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("SPILLDIR " + dir + "\n")
	time.Sleep(time.Minute)
}

// TestSpillDirSweptAfterKill: issue 19 finding 7. Sort spill files stayed
// in $TMPDIR after kill -9. They live in one directory per process, removed
// by the last user and, when the process was killed, by the next process's
// first spill (its pid is gone).
func TestSpillDirSweptAfterKill(t *testing.T) {
	base := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpillDirChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LANCECAT_SPILL_CHILD_BASE="+base)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "SPILLDIR "); ok {
			dir = d
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if dir == "" || filepath.Dir(dir) != base {
		t.Fatalf("the child reported spill directory %q", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "lancecat-sort-1.run")); err != nil {
		t.Fatalf("the killed child's run file is not there to sweep: %v", err)
	}
	// A live process's directory is left alone; the dead one's goes.
	mine, err := acquireSpillDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the first spill after the kill left the dead process's %s (%v)", dir, err)
	}
	sweepSpillDirs(base)
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the sweep removed a live process's directory: %v", err)
	}
	releaseSpillDir(base)
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the last user left %s (%v)", mine, err)
	}
}

// TestSpillLeavesNothing: an ORDER BY that spills leaves no file or
// directory in the spill directory once its result is read.
func TestSpillLeavesNothing(t *testing.T) {
	base := t.TempDir()
	f := whereTable(t, Options{MaxRows: 2, SpillDir: base})
	if rows := f.rows("SELECT * FROM w ORDER BY id DESC"); len(rows) == 0 {
		t.Fatal("no rows")
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("spill directory holds %v after the query", ents)
	}
}
