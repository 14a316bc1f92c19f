package main

import (
	"os"
	"syscall"
)

// peakRSS is a finished child's peak resident set size in bytes, from the
// rusage wait4 returned for it (Linux counts ru_maxrss in KiB); 0 if unknown.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
