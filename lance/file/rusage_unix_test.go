//go:build unix

package lancefile

import (
	"syscall"
	"time"
)

// processUserCPU is the user CPU time of this process so far (benchmarks
// report it beside wall time: on a shared machine it varies less).
func processUserCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
