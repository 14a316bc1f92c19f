package planner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Spill files live in one directory per process and spill base directory,
// <base>/lancecat-spill-<pid>-<random>, created for the first sort that
// spills and removed when the last one closes. A process that dies without
// closing (kill -9, a crash) leaves its directory behind; the first spill
// of a later process under the same base removes the directories of pids
// that are no longer running. So nothing of a sort outlives the next
// process's first spill, and a catalog's vacuum never needs to know.

const spillDirPrefix = "lancecat-spill-"

type spillArea struct {
	dir   string
	users int
}

var spillAreas struct {
	mu    sync.Mutex
	areas map[string]*spillArea
	swept map[string]bool
}

// acquireSpillDir returns this process's spill directory under base,
// creating it (and sweeping dead processes' ones) for the first user.
func acquireSpillDir(base string) (string, error) {
	spillAreas.mu.Lock()
	defer spillAreas.mu.Unlock()
	if spillAreas.areas == nil {
		spillAreas.areas, spillAreas.swept = map[string]*spillArea{}, map[string]bool{}
	}
	if a := spillAreas.areas[base]; a != nil {
		a.users++
		return a.dir, nil
	}
	if !spillAreas.swept[base] {
		spillAreas.swept[base] = true
		sweepSpillDirs(base)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-*", spillDirPrefix, os.Getpid()))
	if err != nil {
		return "", err
	}
	spillAreas.areas[base] = &spillArea{dir: dir, users: 1}
	return dir, nil
}

// releaseSpillDir ends one user of base's spill directory; the last one
// removes it.
func releaseSpillDir(base string) {
	spillAreas.mu.Lock()
	defer spillAreas.mu.Unlock()
	a := spillAreas.areas[base]
	if a == nil {
		return
	}
	if a.users--; a.users <= 0 {
		os.RemoveAll(a.dir)
		delete(spillAreas.areas, base)
	}
}

// sweepSpillDirs removes the spill directories under base whose process is
// gone. Only real directories named lancecat-spill-<pid>-* are touched.
func sweepSpillDirs(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || e.Type()&os.ModeSymlink != 0 || !strings.HasPrefix(name, spillDirPrefix) {
			continue
		}
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, spillDirPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(base, name))
	}
}

// processAlive reports whether pid names a running process (when unsure:
// true, so a live process's files are never swept).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return !(errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH))
}

// spillFiles are the run files one spilling operator (a sort, a load's key
// check) writes in base's spill directory, acquired with the first file.
type spillFiles struct {
	base  string // Options.SpillDir or the system's temporary directory
	dir   string // this process's spill directory under base
	files []*os.File
}

// create opens a new run file named by pattern (os.CreateTemp's).
func (sf *spillFiles) create(pattern string) (*os.File, error) {
	if sf.dir == "" {
		dir, err := acquireSpillDir(sf.base)
		if err != nil {
			return nil, err
		}
		sf.dir = dir
	}
	f, err := os.CreateTemp(sf.dir, pattern)
	if err != nil {
		return nil, err
	}
	sf.files = append(sf.files, f)
	return f, nil
}

// remove deletes the run files and releases the directory.
func (sf *spillFiles) remove() {
	for _, f := range sf.files {
		f.Close()
		os.Remove(f.Name())
	}
	sf.files = nil
	if sf.dir != "" {
		releaseSpillDir(sf.base)
		sf.dir = ""
	}
}
