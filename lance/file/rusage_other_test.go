//go:build !unix

package lancefile

import "time"

// processUserCPU is not measured here (0).
func processUserCPU() time.Duration { return 0 }
