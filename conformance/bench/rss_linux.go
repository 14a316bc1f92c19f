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

// selfCPU is this process's user + system CPU time so far, in nanoseconds
// (every thread's: the load's goroutines run on several).
func selfCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
