//go:build !linux

package main

import "os"

// peakRSS is unknown off Linux (ru_maxrss units differ by system): 0, which
// the table prints as "-".
func peakRSS(*os.ProcessState) int64 { return 0 }

// selfCPU is not measured off Linux: 0.
func selfCPU() int64 { return 0 }
