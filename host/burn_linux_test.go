package host_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// burnCPU spins until the calling thread has used d of CPU time: the cost a
// budget charges, whatever else the machine runs beside it.
func burnCPU(d time.Duration) {
	var ts unix.Timespec
	now := func() time.Duration {
		if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
			return 0
		}
		return time.Duration(ts.Nano())
	}
	start := now()
	for x := 0; now()-start < d; x++ {
		_ = x
	}
}
