package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lancecat/lancecat/planner"
)

// openPTY allocates a pseudo-terminal (Linux /dev/ptmx) of 200x50.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("SKIP: no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("SKIP: unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("SKIP: ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("SKIP: open pts: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 200}); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// console is the lancecat program (run in this process, as main runs it)
// on a pseudo-terminal, driven like a user.
type console struct {
	t      *testing.T
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	mark   int // output before mark has been matched
	exited chan int
}

// startConsole runs the program with args, its standard input, output and
// error on a new pseudo-terminal.
func startConsole(t *testing.T, args ...string) *console {
	t.Helper()
	m, s := openPTY(t)
	c := &console{t: t, master: m, exited: make(chan int, 1)}
	go func() {
		code := runWithInput(args, s, s, s)
		s.Close()
		c.exited <- code
	}()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			c.mu.Lock()
			c.out.Write(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { m.Close() })
	return c
}

func (c *console) typeText(s string) {
	c.t.Helper()
	if _, err := c.master.Write([]byte(s)); err != nil {
		c.t.Fatal(err)
	}
}

// expect waits until want appears in the output after the last match.
func (c *console) expect(want string) {
	c.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c.mu.Lock()
		rest := c.out.String()[c.mark:]
		if i := strings.Index(rest, want); i >= 0 {
			c.mark += i + len(want)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if time.Now().After(deadline) {
			c.t.Fatalf("did not see %q; output after the last match:\n%q", want, rest)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// since returns the output after the last match (not consuming it).
func (c *console) since() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()[c.mark:]
}

// wait returns the exit status.
func (c *console) wait() int {
	c.t.Helper()
	select {
	case code := <-c.exited:
		return code
	case <-time.After(15 * time.Second):
		c.t.Fatalf("lancecat did not exit; output:\n%q", c.since())
		return -1
	}
}

// TestShellOnTerminal drives the interactive shell on a pseudo-terminal
// (the terminal is detected, put in raw mode and restored for real):
// a multi-line statement with the continuation prompt, Ctrl-C discarding
// typed input, history recall with the Up arrow (also across sessions, from
// ~/.lancecat_history), errors that do not end the shell, raw mode only
// while reading, SIGINT cancelling running statements, \q and Ctrl-D.
func TestShellOnTerminal(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	lake := filepath.Join(home, "lake")

	c := startConsole(t, "--uri", lake)
	c.expect("lancecat SQL shell on " + lake)
	c.expect("lancecat> ")
	c.typeText("CREATE SCHEMA demo;\r")
	c.expect("OK")
	c.expect("lancecat> ")

	// A statement over two lines: no output until the ';'.
	c.typeText("SHOW\r")
	c.expect("      -> ")
	if strings.Contains(c.since(), "Database") {
		t.Fatalf("ran before ';': %q", c.since())
	}
	c.typeText("SCHEMAS;\r")
	c.expect("Database")
	c.expect("demo")
	c.expect("(1 row)")
	c.expect("lancecat> ")

	// Ctrl-C discards the typed line and the pending statement lines.
	c.typeText("SELEC this is\r")
	c.expect("      -> ")
	c.typeText("garbage\x03")
	c.expect("lancecat> ")
	c.typeText("SHOW SCHEMAS;\r")
	c.expect("(1 row)")
	c.expect("lancecat> ")
	if strings.Contains(c.since(), "syntax") {
		t.Fatalf("discarded input ran: %q", c.since())
	}

	// Up twice recalls the statement before the last (the repeated SHOW
	// SCHEMAS is one entry); it fails, and the shell goes on.
	c.typeText("\x1b[A\x1b[A")
	c.expect("CREATE SCHEMA demo;")
	c.typeText("\r")
	c.expect("lancecat: NamespaceAlreadyExists at line 1 column 1")
	c.expect("lancecat> ")
	if st, err := unix.IoctlGetTermios(int(c.master.Fd()), unix.TCGETS); err != nil || st.Lflag&(unix.ISIG|unix.ICANON) != 0 {
		t.Errorf("terminal at the prompt not in raw mode: %+v %v", st, err)
	}

	// Ctrl-C while statements run: the terminal is back in its normal mode
	// (so Ctrl-C raises SIGINT), and SIGINT cancels the rest of the script.
	var many strings.Builder
	for i := range 200 {
		fmt.Fprintf(&many, "CREATE SCHEMA s%d; ", i)
	}
	c.typeText(many.String() + "\r")
	c.expect("OK\r\n")
	if st, err := unix.IoctlGetTermios(int(c.master.Fd()), unix.TCGETS); err != nil || st.Lflag&(unix.ISIG|unix.ICANON) != unix.ISIG|unix.ICANON {
		t.Errorf("terminal not restored while a statement runs: %+v %v", st, err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// Between statements the driver reports ServiceUnavailable ("statement
	// interrupted"); inside a catalog commit, the commit's error wrapping
	// the cancellation (when the cancellation lands during the version's
	// put-if-absent, an outcome-unknown error that names it, then its check).
	c.expect(" at line 1 column ")
	c.expect("context canceled")
	c.expect("lancecat> ")
	c.typeText("SHOW SCHEMAS LIKE 's199';\r")
	c.expect("(0 rows)")
	c.expect("lancecat> ")

	c.typeText("\\q\r")
	if code := c.wait(); code != 0 {
		t.Fatalf("\\q: exit status %d", code)
	}
	hist, err := os.ReadFile(filepath.Join(home, ".lancecat_history"))
	if err != nil || string(hist) != "CREATE SCHEMA demo;\nSHOW SCHEMAS;\nCREATE SCHEMA demo;\n"+
		strings.TrimSpace(many.String())+"\nSHOW SCHEMAS LIKE 's199';\n" {
		t.Fatalf("history file %q, %v", hist, err)
	}

	// A new session recalls the statements of the previous one; Ctrl-D
	// on an empty line leaves with status 0.
	c = startConsole(t, "--uri", lake, "--format", "csv")
	c.expect("lancecat> ")
	c.typeText("\x1b[A\x1b[A\x1b[A")
	c.expect("CREATE SCHEMA demo;")
	c.typeText("\x15SHOW SCHEMAS;\r") // Ctrl-U clears the recalled line
	c.expect("Database\r\ndemo\r\n")
	c.expect("lancecat> ")
	c.typeText("\x04")
	if code := c.wait(); code != 0 {
		t.Fatalf("Ctrl-D: exit status %d", code)
	}
}

// TestProgressOnTerminal: a terminal stderr turns load progress on without
// a flag and redraws one line in place ('\r'), ending it with a newline;
// --no-progress turns it off.
func TestProgressOnTerminal(t *testing.T) {
	master, slave := openPTY(t)
	p := newProgressPrinter(0, slave)
	if p == nil || !p.tty {
		t.Fatalf("terminal stderr: printer %+v, want one drawing in place", p)
	}
	if newProgressPrinter(-1, slave) != nil {
		t.Fatal("--no-progress on a terminal still prints")
	}
	p.start("IMPORT INTO")
	p.report(planner.LoadProgress{Rows: 8192, Bytes: 100000})
	p.finish()
	buf := make([]byte, 256)
	n, err := master.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); !strings.HasPrefix(got, "\rIMPORT INTO: 8192 rows, 97.7 KiB read") || !strings.Contains(got, "\n") {
		t.Fatalf("terminal got %q", got)
	}
}
