//go:build !linux

package host_test

import "time"

// burnCPU spins for d of wall time: off Linux the budget is wall time.
func burnCPU(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
