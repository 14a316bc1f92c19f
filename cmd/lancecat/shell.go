package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/lancecat/lancecat/storage"
)

const (
	shellPrompt        = "lancecat> "
	shellContinuation  = "      -> "
	historyFileName    = ".lancecat_history"
	historyMaxEntries  = 1000
	shellQuitCommandsD = `\q, exit, quit or Ctrl-D`
)

// runShell is the interactive shell on the terminal in/out. The terminal
// is in raw mode only while a line is read (x/term's Terminal edits it);
// statements run with the terminal in its normal mode, so that Ctrl-C
// raises SIGINT, which cancels the running statement's context. Ctrl-C
// while reading discards the input (see ttyIO).
func runShell(db *sql.DB, f sqlFlags, in, out *os.File, stderr io.Writer) int {
	fd := int(in.Fd())
	conn, err := db.Conn(context.Background())
	if err != nil {
		fmt.Fprintf(stderr, "lancecat: %s\n", errorText(err))
		return 1
	}
	defer conn.Close()

	hist := loadHistory(historyPath())
	tty := &ttyIO{in: in, out: out}
	t := term.NewTerminal(tty, shellPrompt)
	t.History = termHistory{hist}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	ex := &executor{conn: conn, out: newFormatter(f.format, out), progress: newProgressPrinter(f.progress, stderr)}
	fmt.Fprintf(out, "lancecat SQL shell on %s. End statements with ';'. %s leaves.\n", storage.Redact(f.uri), shellQuitCommandsD)

	var pending strings.Builder // the statement typed so far (lines joined by "\n")
	for {
		if w, h, err := term.GetSize(int(out.Fd())); err == nil {
			t.SetSize(w, h)
		}
		if pending.Len() == 0 {
			t.SetPrompt(shellPrompt)
		} else {
			t.SetPrompt(shellContinuation)
		}
		state, err := term.MakeRaw(fd)
		if err != nil {
			fmt.Fprintf(stderr, "lancecat: terminal: %s\n", err)
			return 1
		}
		line, err := t.ReadLine()
		term.Restore(fd, state)
		if tty.takeInterrupt() {
			pending.Reset()
			continue
		}
		if errors.Is(err, term.ErrPasteIndicator) {
			err = nil
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(out)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "lancecat: terminal: %s\n", err)
			return 1
		}
		if pending.Len() == 0 {
			switch strings.TrimSuffix(strings.TrimSpace(line), ";") {
			case `\q`, "exit", "quit":
				return 0
			case "":
				continue
			}
		} else {
			pending.WriteByte('\n')
		}
		pending.WriteString(line)
		if !statementComplete(pending.String()) {
			continue
		}
		script := pending.String()
		pending.Reset()
		hist.add(historyEntry(script))

		// Run with a context that a SIGINT (Ctrl-C) cancels; forget
		// interrupts that came before the statement started.
		for len(sigs) > 0 {
			<-sigs
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			select {
			case <-sigs:
				cancel()
			case <-done:
			}
		}()
		err = ex.runScript(ctx, script)
		close(done)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "lancecat: %s\n", errorText(err))
		}
	}
}

// ttyIO is the terminal as x/term's Terminal reads and writes it. x/term
// ends ReadLine with io.EOF on Ctrl-C as on Ctrl-D; ttyIO tells them apart:
// it hands a Ctrl-C byte to the Terminal as Enter, alone in its Read (so
// that the line it ends is the one being edited), and remembers it, so the
// shell discards that line.
type ttyIO struct {
	in          io.Reader
	out         io.Writer
	buf         []byte
	pending     []byte // read from in, not yet handed out
	interrupted bool
}

func (t *ttyIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(t.pending) == 0 {
		if t.buf == nil {
			t.buf = make([]byte, 256)
		}
		n, err := t.in.Read(t.buf)
		if n == 0 {
			return 0, err
		}
		t.pending = t.buf[:n]
	}
	const ctrlC = 3
	switch i := bytes.IndexByte(t.pending, ctrlC); {
	case i == 0:
		t.pending = t.pending[1:]
		t.interrupted = true
		p[0] = '\r'
		return 1, nil
	case i > 0:
		n := copy(p, t.pending[:i])
		t.pending = t.pending[n:]
		return n, nil
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
}

func (t *ttyIO) Write(p []byte) (int, error) { return t.out.Write(p) }

// takeInterrupt reports (and forgets) whether the last line read was ended
// by Ctrl-C.
func (t *ttyIO) takeInterrupt() bool {
	i := t.interrupted
	t.interrupted = false
	return i
}

// statementComplete reports whether text ends with ';' outside quotes
// ('...', "...", `...`) and comments (/* ... */, "-- " and "#" to the end of
// the line), followed only by spaces and comments.
func statementComplete(text string) bool {
	const (
		normal = iota
		single
		double
		backtick
		block
		line
	)
	state, semi := normal, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		next := byte(0)
		if i+1 < len(text) {
			next = text[i+1]
		}
		switch state {
		case normal:
			switch {
			case c == '\'':
				state, semi = single, false
			case c == '"':
				state, semi = double, false
			case c == '`':
				state, semi = backtick, false
			case c == '#':
				state = line
			case c == '-' && next == '-' && (i+2 >= len(text) || isSpace(text[i+2])):
				state = line
				i++
			case c == '/' && next == '*':
				state = block
				i++
			case c == ';':
				semi = true
			case isSpace(c):
			default:
				semi = false
			}
		case single, double:
			quote := byte('\'')
			if state == double {
				quote = '"'
			}
			switch {
			case c == '\\':
				i++
			case c == quote && next == quote:
				i++
			case c == quote:
				state = normal
			}
		case backtick:
			if c == '`' {
				if next == '`' {
					i++
				} else {
					state = normal
				}
			}
		case block:
			if c == '*' && next == '/' {
				state = normal
				i++
			}
		case line:
			if c == '\n' {
				state = normal
			}
		}
	}
	return semi && (state == normal || state == line)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// historyEntry is a statement as one history line: its lines joined by a
// space (a line editor edits one line), without trailing spaces.
func historyEntry(stmt string) string {
	lines := strings.Split(stmt, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}

func historyPath() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, historyFileName)
}

// history is the shell's statement history, oldest first, persisted to a
// file one entry per line (best effort: errors of the file are ignored).
type history struct {
	path    string
	entries []string
}

func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	file, err := os.Open(path)
	if err != nil {
		return h
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			h.entries = append(h.entries, l)
		}
	}
	if len(h.entries) > historyMaxEntries {
		h.entries = h.entries[len(h.entries)-historyMaxEntries:]
		if len(h.entries) > 0 && sc.Err() == nil {
			h.rewrite()
		}
	}
	return h
}

// rewrite replaces the file with the kept entries (so it does not grow
// without bound).
func (h *history) rewrite() {
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(h.entries, "\n")+"\n"), 0o600); err != nil {
		return
	}
	if err := os.Rename(tmp, h.path); err != nil {
		os.Remove(tmp)
	}
}

func (h *history) add(entry string) {
	if entry == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == entry) {
		return
	}
	h.entries = append(h.entries, entry)
	if len(h.entries) > historyMaxEntries {
		h.entries = h.entries[1:]
	}
	if h.path == "" {
		return
	}
	file, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	file.WriteString(entry + "\n")
	file.Close()
}

// termHistory shows history to x/term's Terminal (Up/Down); the Terminal's
// own additions (every line, also the continuation lines of a statement)
// are ignored: the shell adds whole statements.
type termHistory struct{ h *history }

func (t termHistory) Add(string)      {}
func (t termHistory) Len() int        { return len(t.h.entries) }
func (t termHistory) At(i int) string { return t.h.entries[len(t.h.entries)-1-i] }
