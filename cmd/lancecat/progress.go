package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
)

// progressInterval is how often a running load's progress line is redrawn.
const progressInterval = 250 * time.Millisecond

// progressPrinter shows how far a LOAD DATA or IMPORT INTO has got (the
// planner's load progress callback) on stderr: on a terminal one line
// redrawn in place, else (--progress into a file or pipe) one line per
// report interval. The last counts are always printed when the statement
// ends, so a short load shows one line.
type progressPrinter struct {
	w   io.Writer
	tty bool

	mu    sync.Mutex
	verb  string
	cur   planner.LoadProgress
	seen  bool
	last  time.Time
	width int // of the line drawn last, to blank it when redrawing
}

// newProgressPrinter returns the printer the flags ask for, or nil: mode
// > 0 is --progress, < 0 --no-progress, 0 on when stderr is a terminal.
func newProgressPrinter(mode int, stderr io.Writer) *progressPrinter {
	f, isFile := stderr.(*os.File)
	tty := isFile && term.IsTerminal(int(f.Fd()))
	if mode < 0 || (mode == 0 && !tty) {
		return nil
	}
	return &progressPrinter{w: stderr, tty: tty}
}

// loadVerb names the statements that report load progress ("" for others).
func loadVerb(st sqlparse.Statement) string {
	switch st.(type) {
	case *sqlparse.LoadData:
		return "LOAD DATA"
	case *sqlparse.ImportInto:
		return "IMPORT INTO"
	}
	return ""
}

func (p *progressPrinter) start(verb string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verb, p.seen, p.last, p.width = verb, false, time.Now(), 0
}

// report is the planner's callback: it runs on the statement's goroutine
// and only draws when progressInterval has passed.
func (p *progressPrinter) report(lp planner.LoadProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur, p.seen = lp, true
	if now := time.Now(); now.Sub(p.last) >= progressInterval {
		p.last = now
		p.draw(false)
	}
}

// finish prints the last counts, if the statement reported any.
func (p *progressPrinter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen {
		p.draw(true)
	}
	p.seen = false
}

func (p *progressPrinter) draw(final bool) {
	line := fmt.Sprintf("%s: %d rows, %s read", p.verb, p.cur.Rows, humanBytes(p.cur.Bytes))
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	pad := p.width - len(line)
	p.width = len(line)
	if pad < 0 {
		pad = 0
	}
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r%s%*s%s", line, pad, "", end)
}

// humanBytes renders n bytes in binary units, one decimal.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", v, []string{"KiB", "MiB", "GiB", "TiB"}[i])
}
